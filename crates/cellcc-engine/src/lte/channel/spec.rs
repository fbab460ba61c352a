//! What the user writes to describe a cell's radio channel: carriers, powers,
//! noise figures, path loss, shadowing, fast fading, interfering eNBs, and where
//! each UE is and how it moves.
//!
//! ```toml
//! [cells.channel]
//! pathloss = { model = "okumura_hata", city = "large" }
//! shadowing = { sigma_db = 8, decorrelation_m = 50 }
//! fading = { profile = "eva", speed_kmh = 60 }
//! enb = { position_m = [0, 0], height_m = 30, tx_power_dbm = 46 }
//! ul_power_control = { kind = "open_loop", p0_nominal_pusch_dbm = -80, alpha = 1.0 }
//! interferers = [{ position_m = [500, 0] }]
//! # per UE:
//! placement = { position_m = [100, 0], mobility = { kind = "random_walk", speed_kmh = 3, bounds_m = [90, -10, 110, 10] } }
//! ```
//! Defaults are ns-3 LENA's (its attribute named in each field's doc) where it has one,
//! else the 3GPP evaluation value. Every field is checked by `validate` with the
//! range its model is defined on.

pub use super::hst::FrequencyTracking;
pub use super::interference::InterfererLoad;
use super::mobility::MPS_PER_KMH;
pub use super::power_control::UlPowerControlSpec;
use super::ul_interference::{default_uplink_load, validate_uplink_load};
use crate::error::ScenarioError;
use serde::{Deserialize, Serialize};

pub(super) type Check = Result<(), ScenarioError>;

/// ns-3 `LteHelper` default DL EARFCN 100 -> 2120 MHz (TS 36.101 Table 5.7.3-1, band 1).
pub const DEFAULT_DL_CARRIER_MHZ: f64 = 2120.0;
/// ns-3 default UL EARFCN 18100 -> 1930 MHz (band 1 UL, 190 MHz below the DL).
pub const DEFAULT_UL_CARRIER_MHZ: f64 = 1930.0;
/// ns-3 `LteEnbPhy::TxPower` default, dBm.
pub const DEFAULT_ENB_TX_POWER_DBM: f64 = 30.0;
/// ns-3 `LteUePhy::TxPower` default, dBm.
pub const DEFAULT_UE_TX_POWER_DBM: f64 = 10.0;
/// ns-3 `LteEnbPhy::NoiseFigure` default, dB.
pub const DEFAULT_ENB_NOISE_FIGURE_DB: f64 = 5.0;
/// ns-3 `LteUePhy::NoiseFigure` default, dB.
pub const DEFAULT_UE_NOISE_FIGURE_DB: f64 = 9.0;
/// eNB antenna height, m: seed 004's site height; TR 36.814 Table B.1.2.1-1 uses 25 m (UMa).
pub const DEFAULT_ENB_HEIGHT_M: f64 = 30.0;
/// UE antenna height, m: TR 36.814 Table B.1.2.1-1 h_UT = 1.5 m.
pub const DEFAULT_UE_HEIGHT_M: f64 = 1.5;
/// TR 36.814 Table A.2.1.1-2: shadowing standard deviation 8 dB, correlation distance 50 m.
pub const DEFAULT_SHADOWING_SIGMA_DB: f64 = 8.0;
pub const DEFAULT_SHADOWING_DECORRELATION_M: f64 = 50.0;
/// ns-3 `LogDistancePropagationLossModel` defaults: exponent 3, reference 1 m, 46.6777 dB.
pub const DEFAULT_LOG_DISTANCE_EXPONENT: f64 = 3.0;
pub const DEFAULT_LOG_DISTANCE_REF_M: f64 = 1.0;
pub const DEFAULT_LOG_DISTANCE_REF_LOSS_DB: f64 = 46.6777;
/// TR 36.942 §4.5.2: base station antenna 15 m above the average rooftop.
pub const DEFAULT_ROOFTOP_CLEARANCE_M: f64 = 15.0;
/// ns-3 `HybridBuildingsPropagationLossModel::Los2NlosThr` default: P.1411 LOS below 200 m.
pub const DEFAULT_LOS_THRESHOLD_M: f64 = 200.0;
/// ns-3 `RandomWalk2dMobilityModel::Time` default: change direction every 1 s.
pub const DEFAULT_WALK_LEG_S: f64 = 1.0;

/// The radio channel of one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelSpec {
    /// Downlink carrier, MHz, in [400, 6000] (LTE bands). Default 2120 (ns-3 EARFCN 100).
    #[serde(default = "d_dl_carrier")]
    pub dl_carrier_mhz: f64,
    /// Uplink carrier, MHz, in [400, 6000]. Default 1930 (ns-3 UL EARFCN 18100).
    #[serde(default = "d_ul_carrier")]
    pub ul_carrier_mhz: f64,
    /// The serving eNB.
    #[serde(default)]
    pub enb: EnbSpec,
    /// UE transmit power under `ul_power_control = { kind = "fixed" }`, dBm, in [-40, 33].
    /// Default 10 (ns-3 `LteUePhy::TxPower`; TS 36.101 §6.2.2 power class 3 caps it at 23).
    /// Refused under power control, which sets the power itself (its cap is `p_cmax_dbm`).
    #[serde(default)]
    pub ue_tx_power_dbm: Option<f64>,
    /// Uplink power control (TS 36.213 §5.1.1.1). Default open loop with ns-3 LENA's
    /// `LteUePowerControl` defaults ([`super::power_control`]).
    #[serde(default)]
    pub ul_power_control: UlPowerControlSpec,
    /// UE receiver noise figure, dB, in [0, 20]. Default 9 (ns-3 `LteUePhy::NoiseFigure`).
    #[serde(default = "d_ue_nf")]
    pub ue_noise_figure_db: f64,
    /// Path-loss model. Default Friis (ns-3 `LteHelper::PathlossModel`).
    #[serde(default)]
    pub pathloss: PathLossSpec,
    /// Log-normal shadowing; absent = none (ns-3 LENA has none unless a buildings model is used).
    #[serde(default)]
    pub shadowing: Option<ShadowingSpec>,
    /// Fast fading. Default none (ns-3 LENA: no `FadingModel` unless set).
    #[serde(default)]
    pub fading: FadingSpec,
    /// Neighbour eNBs transmitting on the downlink RBs their load fills. Default none.
    #[serde(default)]
    pub interferers: Vec<InterfererSpec>,
    /// More neighbours: a hexagonal grid of sites around the serving eNB (same power and
    /// height as it), after `interferers`. Default none.
    #[serde(default)]
    pub hex_layout: Option<HexLayoutSpec>,
}

/// The serving eNB: where it stands, its power and receiver.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnbSpec {
    /// Position (x, y), m, finite. Default the origin.
    #[serde(default)]
    pub position_m: [f64; 2],
    /// Antenna height, m, in (0, 200]. Default 30 (seed 004's sites).
    #[serde(default = "d_enb_h")]
    pub height_m: f64,
    /// Total transmit power over the band, dBm, in [0, 60]. Default 30 (ns-3 `LteEnbPhy::TxPower`).
    #[serde(default = "d_enb_tx")]
    pub tx_power_dbm: f64,
    /// Receiver noise figure, dB, in [0, 20]. Default 5 (ns-3 `LteEnbPhy::NoiseFigure`).
    #[serde(default = "d_enb_nf")]
    pub noise_figure_db: f64,
    /// Transmit pattern. Default isotropic (ns-3 `LteHelper::EnbAntennaModelType`).
    #[serde(default)]
    pub antenna: AntennaSpec,
}

/// A neighbour eNB whose downlink interferes on the RBs its load fills.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterfererSpec {
    /// Position (x, y), m, finite.
    pub position_m: [f64; 2],
    /// Antenna height, m, in (0, 200]. Default the serving eNB's.
    #[serde(default)]
    pub height_m: Option<f64>,
    /// Total transmit power, dBm, in [0, 60]. Default the serving eNB's.
    #[serde(default)]
    pub tx_power_dbm: Option<f64>,
    /// Default isotropic.
    #[serde(default)]
    pub antenna: AntennaSpec,
    /// Data-region load: full_buffer | idle | fraction. Default full_buffer (the control region
    /// always sees full interference).
    #[serde(default)]
    pub load: InterfererLoad,
    /// Uplink load of the cell's UE ([`super::ul_interference`]): full_buffer | idle | fraction.
    /// Default idle ([`default_uplink_load`]). Not idle needs the interferer at least 105 m from
    /// the serving eNB (its distance is taken as the ISD of its cell, where its UE is dropped).
    #[serde(default = "default_uplink_load")]
    pub uplink_load: InterfererLoad,
}

impl InterfererSpec {
    /// Its antenna height, m: `height_m`, else the serving eNB's.
    pub fn height_m_or(&self, serving: &EnbSpec) -> f64 {
        self.height_m.unwrap_or(serving.height_m)
    }

    /// Its total transmit power, dBm: `tx_power_dbm`, else the serving eNB's.
    pub fn tx_power_dbm_or(&self, serving: &EnbSpec) -> f64 {
        self.tx_power_dbm.unwrap_or(serving.tx_power_dbm)
    }
}

/// An eNB's horizontal antenna pattern.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AntennaSpec {
    #[default]
    Isotropic,
    /// TR 36.814 Table A.2.1.1-2 / ns-3 `ParabolicAntennaModel`: -min(12 (phi/phi_3dB)^2, A_m) dB.
    Parabolic {
        /// Boresight, degrees counter-clockwise from +x, in [-360, 360]. Default 0.
        #[serde(default)]
        orientation_deg: f64,
        /// 3 dB beamwidth, degrees, in (0, 180]. Default 60 (ns-3 `Beamwidth`; TR 36.814 and seed 004: 70).
        #[serde(default = "d_beamwidth")]
        beamwidth_deg: f64,
        /// A_m, dB, in [0, 50]. Default 20 (ns-3 `MaxAttenuation`, TR 36.814).
        #[serde(default = "d_max_att")]
        max_attenuation_db: f64,
    },
}

/// Neighbour cells on a hexagonal grid of sites around the serving eNB (ns-3
/// `LteHexGridEnbTopologyHelper`; TR 36.814 Table A.2.1.1-2 layout), all with one load.
/// With 3 sectors the serving eNB is the centre site's sector at 0 degrees (give it
/// `antenna = { kind = "parabolic" }` to match); its two sister sectors interfere too.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexLayoutSpec {
    /// Rings of sites around the centre, 1..=4 (seed 004: 2, i.e. 19 sites).
    pub rings: u8,
    /// Inter-site distance, m, in (0, 10000]. Default 500 (TR 36.814 case 1, seed 004).
    #[serde(default = "d_isd")]
    pub isd_m: f64,
    /// Sectors per site: 1 (omni) or 3. Default 3.
    #[serde(default = "d_sectors")]
    pub sectors: u8,
    /// Sector antennas' 3 dB beamwidth, degrees, in (0, 180]. Default 70 (TR 36.814, seed 004).
    #[serde(default = "d_sector_beamwidth")]
    pub beamwidth_deg: f64,
    /// Default 20 dB.
    #[serde(default = "d_max_att")]
    pub max_attenuation_db: f64,
    /// Sector antenna offset from the site towards its boresight, m, in [0, 10]. Default 0.5 (ns-3, seed 004).
    #[serde(default = "d_sector_offset")]
    pub sector_offset_m: f64,
    /// Every layout cell's data-region load. Default full_buffer.
    #[serde(default)]
    pub load: InterfererLoad,
    /// Every layout cell's uplink load (one UE per cell, [`super::ul_interference`]). Default
    /// idle ([`default_uplink_load`]). Not idle needs `isd_m` >= 105.
    #[serde(default = "default_uplink_load")]
    pub uplink_load: InterfererLoad,
}

/// Where a UE starts and how it moves (one per UE of the cell).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UePlacement {
    /// Start position (x, y), m, finite.
    pub position_m: [f64; 2],
    /// Antenna height, m, in (0, 50]. Default 1.5 (TR 36.814 h_UT).
    #[serde(default = "d_ue_h")]
    pub height_m: f64,
    /// Default static.
    #[serde(default)]
    pub mobility: MobilitySpec,
}

/// Path-loss model, chosen by `model`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum PathLossSpec {
    /// Free space (Friis 1946; ns-3 `FriisPropagationLossModel`).
    #[default]
    Friis,
    /// `L0 + 10 n log10(d / d0)` (ns-3 `LogDistancePropagationLossModel`).
    LogDistance {
        /// Exponent n in [1, 8]. Default 3.
        #[serde(default = "d_ld_exp")]
        exponent: f64,
        /// d0, m, in (0, 1000]. Default 1.
        #[serde(default = "d_ld_ref")]
        reference_distance_m: f64,
        /// L0, dB, in [0, 200]. Default 46.6777 (Friis at 5.15 GHz, 1 m).
        #[serde(default = "d_ld_loss")]
        reference_loss_db: f64,
    },
    /// Okumura-Hata (150-1500 MHz) and its COST-231 extension (1500-2000 MHz,
    /// used above 1500 MHz as ns-3 `OkumuraHataPropagationLossModel` does).
    /// Valid for d in [1, 20] km, eNB 30-200 m, UE 1-10 m.
    OkumuraHata {
        /// Default urban.
        #[serde(default)]
        environment: HataEnvironment,
        /// Default large (ns-3 `CitySize` default).
        #[serde(default)]
        city: CitySize,
    },
    /// TR 36.942 §4.5.2 macro cell, urban: `40(1-4e-3 Dhb) log10 R - 18 log10 Dhb + 21 log10 f + 80`.
    Tr36942Urban {
        /// Dhb: eNB antenna above the average rooftop, m, in [0.1, 50]. Default 15.
        #[serde(default = "d_rooftop")]
        rooftop_clearance_m: f64,
    },
    /// TR 36.814 Table B.1.2.1-1, urban macro (UMa): d in [10, 5000] m.
    Tr36814Uma {
        /// Line of sight or not. Default nlos.
        #[serde(default)]
        condition: LosCondition,
    },
    /// TR 36.814 Table B.1.2.1-1, urban micro (UMi, hexagonal): d in [10, 5000] (LOS) / [10, 2000] (NLOS) m.
    Tr36814Umi {
        #[serde(default)]
        condition: LosCondition,
    },
    /// ITU-R P.1411 line of sight, the median of its lower and upper bounds
    /// (ns-3 `ItuR1411LosPropagationLossModel`).
    ItuR1411Los,
    /// ITU-R P.1411 §4.2.1 non-line-of-sight over rooftops (ns-3
    /// `ItuR1411NlosOverRooftopPropagationLossModel`, its attribute defaults).
    ItuR1411NlosOverRooftop {
        /// h_r, m, in (0, 90]. Default 20.
        #[serde(default = "d_rooftop_m")]
        rooftop_height_m: f64,
        /// phi, degrees in [0, 90], street orientation to the direct path. Default 45.
        #[serde(default = "d_street_orientation")]
        street_orientation_deg: f64,
        /// w, m, in (0, 1000]. Default 20.
        #[serde(default = "d_street_width")]
        street_width_m: f64,
        /// l, m, over which the buildings extend, in (0, 10000]. Default 80.
        #[serde(default = "d_buildings_extent")]
        buildings_extent_m: f64,
        /// b, m, in (0, 1000]. Default 50.
        #[serde(default = "d_building_separation")]
        building_separation_m: f64,
        /// Metropolitan centre (k_f slope 1.5) rather than medium city / suburban (0.7).
        /// Default true (ns-3 Urban + Large city).
        #[serde(default = "yes")]
        metropolitan: bool,
    },
    /// ns-3 `HybridBuildingsPropagationLossModel` between outdoor nodes: ITU-R P.1411 LOS below
    /// `los_threshold_m`, P.1411 §4.2.1 NLOS over rooftops from it, and beyond 1 km Okumura-Hata
    /// (COST-231 above 1500 MHz) unless both ends are below the rooftops. Distances are 3-D.
    ItuR1411Hybrid {
        /// ns-3 `Los2NlosThr`, m, in (0, 1e6]. Default 200 (its default; lena-dual-stripe.cc sets 1e6).
        #[serde(default = "d_los_threshold")]
        los_threshold_m: f64,
        /// ns-3 `Environment`, for Okumura-Hata. Default urban.
        #[serde(default)]
        environment: HataEnvironment,
        /// ns-3 `CitySize`; urban + large is P.1411's metropolitan centre. Default large.
        #[serde(default)]
        city: CitySize,
        /// ns-3 `RooftopLevel`, m, in (0, 90]. Default 20. The street fields below are as in
        /// `itu_r1411_nlos_over_rooftop` (ns-3 leaves its NLOS model's defaults in place).
        #[serde(default = "d_rooftop_m")]
        rooftop_height_m: f64,
        #[serde(default = "d_street_orientation")]
        street_orientation_deg: f64,
        #[serde(default = "d_street_width")]
        street_width_m: f64,
        #[serde(default = "d_buildings_extent")]
        buildings_extent_m: f64,
        #[serde(default = "d_building_separation")]
        building_separation_m: f64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum HataEnvironment {
    #[default]
    Urban,
    Suburban,
    OpenAreas,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CitySize {
    Small,
    Medium,
    #[default]
    Large,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LosCondition {
    Los,
    #[default]
    Nlos,
}

/// Log-normal shadowing, correlated along the UE's track (Gudmundson 1991).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShadowingSpec {
    /// Standard deviation, dB, in [0, 20]. Default 8 (TR 36.814 Table A.2.1.1-2).
    #[serde(default = "d_sh_sigma")]
    pub sigma_db: f64,
    /// Distance at which the correlation falls to 1/e, m, in (0, 1000]. Default 50 (same table).
    #[serde(default = "d_sh_corr")]
    pub decorrelation_m: f64,
}

/// Fast fading: a TS 36.104 Annex B.2 multipath profile at a maximum Doppler, or the
/// Annex B.3 high-speed train ([`super::hst`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FadingSpec {
    /// none | epa | eva | etu | hst. Default none.
    #[serde(default)]
    pub profile: FadingProfile,
    /// Maximum Doppler, Hz, in [0, 2000]. Give this or `speed_kmh`, not both;
    /// neither = the profile's usual value (EPA 5, EVA 70, ETU 300 Hz; TS 36.104 Table B.2-3;
    /// hst: its scenario's f_d, TS 36.101 / TS 36.104 Table B.3-1).
    #[serde(default)]
    pub doppler_hz: Option<f64>,
    /// UE speed, km/h, in [0, 500] (hst: (0, 500], replacing the scenario's v): Doppler = v f_c / c
    /// at each direction's carrier (hst uplink: v (f_DL + f_UL) / c).
    #[serde(default)]
    pub speed_kmh: Option<f64>,
    /// Rician K-factor of a line-of-sight ray added to the first tap, dB, in [-30, 30].
    /// Absent = Rayleigh. Not with hst (its one path does not fade).
    #[serde(default)]
    pub k_factor_db: Option<f64>,
    /// hst only: TS 36.104 Table B.3-1 scenario, 1 (open space) or 3 (tunnel). Default 3.
    #[serde(default)]
    pub scenario: Option<u8>,
    /// hst only: the receiver's frequency tracking. Default `{ kind = "lagged", lag_ms = 1 }`.
    #[serde(default)]
    pub tracking: Option<FrequencyTracking>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FadingProfile {
    #[default]
    None,
    Epa,
    Eva,
    Etu,
    Hst,
}

/// How a UE moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MobilitySpec {
    #[default]
    Static,
    /// Straight line at a constant speed (ns-3 `ConstantVelocityMobilityModel`).
    ConstantVelocity {
        /// km/h in [0, 500].
        speed_kmh: f64,
        /// Direction, degrees counter-clockwise from +x, finite. Default 0.
        #[serde(default)]
        heading_deg: f64,
    },
    /// Legs of `leg_s` in a uniformly random direction at `speed_kmh`, reflecting
    /// off the walls of `bounds_m` (ns-3 `RandomWalk2dMobilityModel`, Mode=Time).
    RandomWalk {
        /// km/h in (0, 500].
        speed_kmh: f64,
        /// Leg duration, s, in (0, 3600]. Default 1 (ns-3 `Time`).
        #[serde(default = "d_leg")]
        leg_s: f64,
        /// [x_min, y_min, x_max, y_max], m; must contain the start position.
        bounds_m: [f64; 4],
    },
    /// Pick a uniform point in `bounds_m`, go there at a uniform speed in
    /// [min, max] km/h, pause, repeat (ns-3 `RandomWaypointMobilityModel`).
    RandomWaypoint {
        /// km/h in (0, 500].
        min_speed_kmh: f64,
        /// km/h in [min_speed_kmh, 500].
        max_speed_kmh: f64,
        /// s in [0, 3600]. Default 0.
        #[serde(default)]
        pause_s: f64,
        bounds_m: [f64; 4],
    },
    /// From the start position at t = 0 to each waypoint in turn, in a straight line at the
    /// constant speed that reaches it at its time, then standing at the last (ns-3
    /// `WaypointMobilityModel`).
    Waypoints { points: Vec<Waypoint> },
}

/// A point a UE reaches at a given time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waypoint {
    /// Seconds from the start, increasing along the list, the first > 0.
    pub t_s: f64,
    pub position_m: [f64; 2],
}

/// Most waypoints one UE may have (a track a few hours long at one per second).
pub const MAX_WAYPOINTS: usize = 10_000;

/// Highest speed accepted, km/h (above the 350 km/h of TS 36.101 Annex B.3's train).
pub const MAX_SPEED_KMH: f64 = 500.0;

fn d_dl_carrier() -> f64 {
    DEFAULT_DL_CARRIER_MHZ
}
fn d_ul_carrier() -> f64 {
    DEFAULT_UL_CARRIER_MHZ
}
fn d_ue_nf() -> f64 {
    DEFAULT_UE_NOISE_FIGURE_DB
}
fn d_enb_h() -> f64 {
    DEFAULT_ENB_HEIGHT_M
}
fn d_enb_tx() -> f64 {
    DEFAULT_ENB_TX_POWER_DBM
}
fn d_enb_nf() -> f64 {
    DEFAULT_ENB_NOISE_FIGURE_DB
}
fn d_ue_h() -> f64 {
    DEFAULT_UE_HEIGHT_M
}
fn d_ld_exp() -> f64 {
    DEFAULT_LOG_DISTANCE_EXPONENT
}
fn d_ld_ref() -> f64 {
    DEFAULT_LOG_DISTANCE_REF_M
}
fn d_ld_loss() -> f64 {
    DEFAULT_LOG_DISTANCE_REF_LOSS_DB
}
fn d_rooftop() -> f64 {
    DEFAULT_ROOFTOP_CLEARANCE_M
}
fn d_sh_sigma() -> f64 {
    DEFAULT_SHADOWING_SIGMA_DB
}
fn d_sh_corr() -> f64 {
    DEFAULT_SHADOWING_DECORRELATION_M
}
fn d_leg() -> f64 {
    DEFAULT_WALK_LEG_S
}
fn d_rooftop_m() -> f64 {
    20.0
}
fn d_street_orientation() -> f64 {
    45.0
}
fn d_street_width() -> f64 {
    20.0
}
fn d_buildings_extent() -> f64 {
    80.0
}
fn d_building_separation() -> f64 {
    50.0
}
fn d_los_threshold() -> f64 {
    DEFAULT_LOS_THRESHOLD_M
}
fn yes() -> bool {
    true
}
fn d_beamwidth() -> f64 {
    60.0
}
fn d_sector_beamwidth() -> f64 {
    70.0
}
fn d_max_att() -> f64 {
    20.0
}
fn d_isd() -> f64 {
    500.0
}
fn d_sectors() -> u8 {
    3
}
fn d_sector_offset() -> f64 {
    0.5
}

impl Default for EnbSpec {
    fn default() -> Self {
        EnbSpec {
            position_m: [0.0, 0.0],
            height_m: DEFAULT_ENB_HEIGHT_M,
            tx_power_dbm: DEFAULT_ENB_TX_POWER_DBM,
            noise_figure_db: DEFAULT_ENB_NOISE_FIGURE_DB,
            antenna: AntennaSpec::Isotropic,
        }
    }
}

impl Default for ChannelSpec {
    fn default() -> Self {
        ChannelSpec {
            dl_carrier_mhz: DEFAULT_DL_CARRIER_MHZ,
            ul_carrier_mhz: DEFAULT_UL_CARRIER_MHZ,
            enb: EnbSpec::default(),
            ue_tx_power_dbm: None,
            ul_power_control: UlPowerControlSpec::default(),
            ue_noise_figure_db: DEFAULT_UE_NOISE_FIGURE_DB,
            pathloss: PathLossSpec::default(),
            shadowing: None,
            fading: FadingSpec::default(),
            interferers: Vec::new(),
            hex_layout: None,
        }
    }
}

/// `x` finite and in `[lo, hi]`, else a ScenarioError naming `path` and `allowed`.
pub(super) fn in_range(x: f64, lo: f64, hi: f64, path: impl FnOnce() -> String, allowed: &str) -> Check {
    if x.is_finite() && (lo..=hi).contains(&x) {
        Ok(())
    } else {
        Err(ScenarioError::new(path(), x, allowed))
    }
}

/// `x` finite and in `(0, hi]`.
pub(super) fn positive_upto(x: f64, hi: f64, path: impl FnOnce() -> String, allowed: &str) -> Check {
    in_range(x, f64::MIN_POSITIVE, hi, path, allowed)
}

fn finite_point(p: &[f64], path: impl FnOnce() -> String) -> Check {
    if p.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(ScenarioError::new(path(), format!("{p:?}"), "finite coordinates in m"))
    }
}

/// Carrier range accepted, MHz: LTE bands span 450 MHz to 5.9 GHz (TS 36.101 Table 5.5-1).
const CARRIER_RANGE_MHZ: (f64, f64) = (400.0, 6000.0);

impl ChannelSpec {
    /// The UE's total power under `ul_power_control = "fixed"`: `ue_tx_power_dbm`, else
    /// [`DEFAULT_UE_TX_POWER_DBM`].
    pub fn fixed_ue_tx_power_dbm(&self) -> f64 {
        self.ue_tx_power_dbm.unwrap_or(DEFAULT_UE_TX_POWER_DBM)
    }

    /// The spec with the defaults that follow from other fields written in, as the channel uses
    /// them: the UE's power under fixed power control, each listed interferer's height and power
    /// ([`InterfererSpec::height_m_or`], [`InterfererSpec::tx_power_dbm_or`]). A run's resolved
    /// view (`scenario.json`) shows this.
    pub fn with_derived_defaults(&self) -> ChannelSpec {
        let mut s = self.clone();
        if s.ul_power_control == UlPowerControlSpec::Fixed {
            s.ue_tx_power_dbm = Some(s.fixed_ue_tx_power_dbm());
        }
        for f in &mut s.interferers {
            (f.height_m, f.tx_power_dbm) = (Some(f.height_m_or(&s.enb)), Some(f.tx_power_dbm_or(&s.enb)));
        }
        s
    }

    /// Check every field against its range; `path` is this spec's place in the scenario.
    pub fn validate(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        let (lo, hi) = CARRIER_RANGE_MHZ;
        in_range(self.dl_carrier_mhz, lo, hi, || p("dl_carrier_mhz"), "MHz in [400, 6000]")?;
        in_range(self.ul_carrier_mhz, lo, hi, || p("ul_carrier_mhz"), "MHz in [400, 6000]")?;
        self.enb.validate(&p("enb"))?;
        match (self.ue_tx_power_dbm, self.ul_power_control) {
            (None, _) => {}
            (Some(tx_dbm), UlPowerControlSpec::Fixed) => {
                in_range(tx_dbm, -40.0, 33.0, || p("ue_tx_power_dbm"), "dBm in [-40, 33]")?;
            }
            (Some(tx_dbm), UlPowerControlSpec::OpenLoop { .. }) => {
                let allowed = "absent: ul_power_control (default open_loop) sets the UE's power, capped at its \
                               p_cmax_dbm; or set ul_power_control = { kind = \"fixed\" }";
                return Err(ScenarioError::new(p("ue_tx_power_dbm"), tx_dbm, allowed));
            }
        }
        self.ul_power_control.validate(&p("ul_power_control"))?;
        in_range(self.ue_noise_figure_db, 0.0, 20.0, || p("ue_noise_figure_db"), "dB in [0, 20]")?;
        self.pathloss.validate(path, self)?;
        if let Some(s) = &self.shadowing {
            in_range(s.sigma_db, 0.0, 20.0, || p("shadowing.sigma_db"), "dB in [0, 20]")?;
            positive_upto(s.decorrelation_m, 1000.0, || p("shadowing.decorrelation_m"), "m in (0, 1000]")?;
        }
        self.fading.validate(&p("fading"))?;
        for (i, f) in self.interferers.iter().enumerate() {
            let ip = format!("{path}.interferers[{i}]");
            finite_point(&f.position_m, || format!("{ip}.position_m"))?;
            if let Some(h) = f.height_m {
                positive_upto(h, 200.0, || format!("{ip}.height_m"), "m in (0, 200]")?;
            }
            if let Some(t) = f.tx_power_dbm {
                in_range(t, 0.0, 60.0, || format!("{ip}.tx_power_dbm"), "dBm in [0, 60]")?;
            }
            f.antenna.validate(&format!("{ip}.antenna"))?;
            f.load.validate(&format!("{ip}.load"))?;
            let isd_m = (f.position_m[0] - self.enb.position_m[0]).hypot(f.position_m[1] - self.enb.position_m[1]);
            validate_uplink_load(
                f.uplink_load,
                isd_m,
                &format!("{ip}.uplink_load"),
                "its distance to the serving eNB",
            )?;
        }
        self.hex_layout.as_ref().map_or(Ok(()), |l| l.validate(&p("hex_layout")))
    }

    /// Check a UE's placement against this channel (the eNB position and the path-loss model's range).
    pub fn validate_placement(&self, ue: &UePlacement, path: &str) -> Check {
        ue.validate(path)?;
        self.pathloss.validate_ue_height(ue.height_m, &format!("{path}.height_m"))
    }
}

impl EnbSpec {
    fn validate(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        finite_point(&self.position_m, || p("position_m"))?;
        positive_upto(self.height_m, 200.0, || p("height_m"), "m in (0, 200]")?;
        in_range(self.tx_power_dbm, 0.0, 60.0, || p("tx_power_dbm"), "dBm in [0, 60]")?;
        in_range(self.noise_figure_db, 0.0, 20.0, || p("noise_figure_db"), "dB in [0, 20]")?;
        self.antenna.validate(&p("antenna"))
    }
}

impl AntennaSpec {
    fn validate(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        match *self {
            AntennaSpec::Isotropic => Ok(()),
            AntennaSpec::Parabolic { orientation_deg, beamwidth_deg, max_attenuation_db } => {
                in_range(orientation_deg, -360.0, 360.0, || p("orientation_deg"), "degrees in [-360, 360]")?;
                positive_upto(beamwidth_deg, 180.0, || p("beamwidth_deg"), "degrees in (0, 180]")?;
                in_range(max_attenuation_db, 0.0, 50.0, || p("max_attenuation_db"), "dB in [0, 50]")
            }
        }
    }
}

impl HexLayoutSpec {
    fn validate(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        if !(1..=4).contains(&self.rings) {
            return Err(ScenarioError::new(p("rings"), self.rings, "an integer in [1, 4]"));
        }
        if self.sectors != 1 && self.sectors != 3 {
            return Err(ScenarioError::new(p("sectors"), self.sectors, "1 or 3"));
        }
        positive_upto(self.isd_m, 10_000.0, || p("isd_m"), "m in (0, 10000]")?;
        positive_upto(self.beamwidth_deg, 180.0, || p("beamwidth_deg"), "degrees in (0, 180]")?;
        in_range(self.max_attenuation_db, 0.0, 50.0, || p("max_attenuation_db"), "dB in [0, 50]")?;
        in_range(self.sector_offset_m, 0.0, 10.0, || p("sector_offset_m"), "m in [0, 10]")?;
        self.load.validate(&p("load"))?;
        validate_uplink_load(self.uplink_load, self.isd_m, &p("uplink_load"), "isd_m")
    }
}

/// Highest Doppler accepted, Hz (TS 36.101 Annex B.3 HST scenario 1: 1340 Hz).
const MAX_DOPPLER_HZ: f64 = 2000.0;

impl FadingSpec {
    fn validate(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        if let (Some(_), Some(_)) = (self.doppler_hz, self.speed_kmh) {
            return Err(ScenarioError::new(p("speed_kmh"), "both", "doppler_hz or speed_kmh, not both"));
        }
        if let Some(fd) = self.doppler_hz {
            in_range(fd, 0.0, MAX_DOPPLER_HZ, || p("doppler_hz"), "Hz in [0, 2000]")?;
        }
        if let Some(v) = self.speed_kmh {
            in_range(v, 0.0, MAX_SPEED_KMH, || p("speed_kmh"), "km/h in [0, 500]")?;
        }
        if let Some(k) = self.k_factor_db {
            in_range(k, -30.0, 30.0, || p("k_factor_db"), "dB in [-30, 30]")?;
        }
        if self.profile == FadingProfile::Hst {
            self.validate_hst(path)
        } else if let Some(n) = self.scenario {
            Err(ScenarioError::new(p("scenario"), n, "only with profile = \"hst\""))
        } else if self.tracking.is_some() {
            Err(ScenarioError::new(p("tracking"), "given", "only with profile = \"hst\""))
        } else {
            Ok(())
        }
    }

    fn validate_hst(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        if let Some(n) = self.scenario.filter(|n| super::hst::scenario(*n).is_none()) {
            return Err(ScenarioError::new(p("scenario"), n, "1 (open space) or 3 (tunnel), TS 36.104 Table B.3-1"));
        }
        if let Some(k) = self.k_factor_db {
            return Err(ScenarioError::new(p("k_factor_db"), k, "absent for hst (one non-fading path)"));
        }
        if let Some(v) = self.speed_kmh {
            positive_upto(v, MAX_SPEED_KMH, || p("speed_kmh"), "km/h in (0, 500] for hst")?;
        }
        match self.tracking {
            Some(FrequencyTracking::Lagged { lag_ms }) => {
                in_range(lag_ms, 0.0, 1000.0, || p("tracking.lag_ms"), "ms in [0, 1000]")
            }
            _ => Ok(()),
        }
    }
}

impl UePlacement {
    fn validate(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        finite_point(&self.position_m, || p("position_m"))?;
        positive_upto(self.height_m, 50.0, || p("height_m"), "m in (0, 50]")?;
        self.mobility.validate(&p("mobility"), self.position_m)
    }
}

impl MobilitySpec {
    fn validate(&self, path: &str, start_m: [f64; 2]) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        let speed = |v: f64, f: &str| positive_upto(v, MAX_SPEED_KMH, || p(f), "km/h in (0, 500]");
        match *self {
            MobilitySpec::Static => Ok(()),
            MobilitySpec::ConstantVelocity { speed_kmh, heading_deg } => {
                in_range(speed_kmh, 0.0, MAX_SPEED_KMH, || p("speed_kmh"), "km/h in [0, 500]")?;
                in_range(heading_deg, -360.0, 360.0, || p("heading_deg"), "degrees in [-360, 360]")
            }
            MobilitySpec::RandomWalk { speed_kmh, leg_s, bounds_m } => {
                speed(speed_kmh, "speed_kmh")?;
                positive_upto(leg_s, 3600.0, || p("leg_s"), "s in (0, 3600]")?;
                check_bounds(bounds_m, start_m, &p("bounds_m"))
            }
            MobilitySpec::RandomWaypoint { min_speed_kmh, max_speed_kmh, pause_s, bounds_m } => {
                speed(min_speed_kmh, "min_speed_kmh")?;
                in_range(
                    max_speed_kmh,
                    min_speed_kmh,
                    MAX_SPEED_KMH,
                    || p("max_speed_kmh"),
                    "km/h in [min_speed_kmh, 500]",
                )?;
                in_range(pause_s, 0.0, 3600.0, || p("pause_s"), "s in [0, 3600]")?;
                check_bounds(bounds_m, start_m, &p("bounds_m"))
            }
            MobilitySpec::Waypoints { ref points } => check_waypoints(points, start_m, &p("points")),
        }
    }
}

/// Waypoints: 1..=MAX_WAYPOINTS, finite, times increasing from > 0, and no leg faster than
/// MAX_SPEED_KMH.
fn check_waypoints(points: &[Waypoint], start_m: [f64; 2], path: &str) -> Check {
    if points.is_empty() || points.len() > MAX_WAYPOINTS {
        let allowed = format!("1 to {MAX_WAYPOINTS} waypoints");
        return Err(ScenarioError::new(path, format!("{} waypoints", points.len()), allowed));
    }
    let (mut t_prev_s, mut at_m) = (0.0, start_m);
    for (i, w) in points.iter().enumerate() {
        let p = |f: &str| format!("{path}[{i}].{f}");
        finite_point(&w.position_m, || p("position_m"))?;
        if !(w.t_s.is_finite() && w.t_s > t_prev_s) {
            let allowed = format!("s, finite and after the previous waypoint's {t_prev_s} s (the start: 0)");
            return Err(ScenarioError::new(p("t_s"), w.t_s, allowed));
        }
        let speed_kmh = (w.position_m[0] - at_m[0]).hypot(w.position_m[1] - at_m[1]) / (w.t_s - t_prev_s) / MPS_PER_KMH;
        if speed_kmh > MAX_SPEED_KMH {
            let allowed = format!("a position reachable at up to {MAX_SPEED_KMH} km/h (this leg needs {speed_kmh:.0})");
            return Err(ScenarioError::new(p("position_m"), format!("{:?}", w.position_m), allowed));
        }
        (t_prev_s, at_m) = (w.t_s, w.position_m);
    }
    Ok(())
}

fn check_bounds(b: [f64; 4], start_m: [f64; 2], path: &str) -> Check {
    let [x0, y0, x1, y1] = b;
    let ok = b.iter().all(|v| v.is_finite())
        && x0 < x1
        && y0 < y1
        && (x0..=x1).contains(&start_m[0])
        && (y0..=y1).contains(&start_m[1]);
    if ok {
        Ok(())
    } else {
        Err(ScenarioError::new(
            path,
            format!("{b:?}"),
            "[x_min, y_min, x_max, y_max] in m, min < max, containing position_m",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<ChannelSpec, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn an_empty_spec_takes_the_ns3_defaults() {
        let s = parse("{}").unwrap();
        assert_eq!(s, ChannelSpec::default());
        assert_eq!((s.enb.tx_power_dbm, s.ue_tx_power_dbm), (30.0, None));
        assert_eq!((s.enb.noise_figure_db, s.ue_noise_figure_db), (5.0, 9.0));
        s.validate("c").unwrap();
    }

    #[test]
    fn a_full_spec_parses_and_validates() {
        let s = parse(
            r#"{"pathloss": {"model": "okumura_hata", "city": "small"},
                "shadowing": {"sigma_db": 6},
                "fading": {"profile": "eva", "speed_kmh": 60},
                "enb": {"position_m": [0, 0], "height_m": 30, "tx_power_dbm": 46},
                "dl_carrier_mhz": 1800, "ul_carrier_mhz": 1710,
                "interferers": [{"position_m": [500, 0]}]}"#,
        )
        .unwrap();
        s.validate("c").unwrap();
        assert_eq!(s.shadowing.unwrap().decorrelation_m, 50.0);
    }

    #[test]
    fn unknown_fields_are_refused() {
        assert!(parse(r#"{"pathlos": {"model": "friis"}}"#).is_err());
        assert!(parse(r#"{"fading": {"profile": "eva", "dopler_hz": 5}}"#).is_err());
    }

    #[test]
    fn bad_values_name_their_field() {
        let fading = FadingSpec {
            profile: FadingProfile::Epa,
            doppler_hz: Some(5.0),
            speed_kmh: Some(3.0),
            ..FadingSpec::default()
        };
        let s = ChannelSpec { fading, ..ChannelSpec::default() };
        assert_eq!(s.validate("c").unwrap_err().path, "c.fading.speed_kmh");
        let mut s = ChannelSpec::default();
        s.enb.tx_power_dbm = f64::NAN;
        assert_eq!(s.validate("c").unwrap_err().path, "c.enb.tx_power_dbm");
        let s = ChannelSpec {
            pathloss: PathLossSpec::OkumuraHata { environment: HataEnvironment::Urban, city: CitySize::Large },
            ..ChannelSpec::default()
        };
        assert_eq!(s.validate("c").unwrap_err().path, "c.dl_carrier_mhz", "2120 MHz is above COST-231's 2000");
    }

    #[test]
    fn the_hybrid_p1411_takes_ns3_defaults_and_checks_its_ranges() {
        let s = parse(r#"{"pathloss": {"model": "itu_r1411_hybrid"}}"#).unwrap();
        let PathLossSpec::ItuR1411Hybrid { los_threshold_m, city, rooftop_height_m, .. } = s.pathloss else {
            panic!("{:?}", s.pathloss)
        };
        assert_eq!((los_threshold_m, city, rooftop_height_m), (200.0, CitySize::Large, 20.0));
        s.validate("c").unwrap();
        let with = |json: &str| {
            let s = parse(&format!(r#"{{"pathloss": {{"model": "itu_r1411_hybrid", {json}}}}}"#)).unwrap();
            s.validate("c").map_err(|e| e.path)
        };
        assert_eq!(with(r#""los_threshold_m": 1e6"#), Ok(()), "lena-dual-stripe's always-LOS value");
        assert_eq!(with(r#""los_threshold_m": 0"#).unwrap_err(), "c.pathloss.los_threshold_m");
        assert_eq!(with(r#""los_threshold_m": 2e6"#).unwrap_err(), "c.pathloss.los_threshold_m");
        assert_eq!(with(r#""street_width_m": -1"#).unwrap_err(), "c.pathloss.street_width_m");
        assert_eq!(with(r#""rooftop_height_m": 30"#).unwrap_err(), "c.enb.height_m", "eNB at the rooftops");
        let s = parse(r#"{"pathloss": {"model": "itu_r1411_hybrid"}, "dl_carrier_mhz": 2600}"#).unwrap();
        assert_eq!(s.validate("c").unwrap_err().path, "c.dl_carrier_mhz", "ns-3 uses Kun 2600 MHz there");
        let ue = UePlacement { position_m: [100.0, 0.0], height_m: 25.0, mobility: MobilitySpec::Static };
        assert_eq!(s.validate_placement(&ue, "u").unwrap_err().path, "u.height_m", "UE above the rooftops");
    }

    #[test]
    fn a_walk_must_start_inside_its_box() {
        let s = ChannelSpec::default();
        let ue = UePlacement {
            position_m: [100.0, 0.0],
            height_m: 1.5,
            mobility: MobilitySpec::RandomWalk { speed_kmh: 3.0, leg_s: 1.0, bounds_m: [0.0, 0.0, 20.0, 20.0] },
        };
        assert_eq!(s.validate_placement(&ue, "u").unwrap_err().path, "u.mobility.bounds_m");
    }

    #[test]
    fn waypoints_must_be_finite_in_time_order_and_reachable() {
        let check = |json: &str| {
            let mobility: MobilitySpec = serde_json::from_str(json).expect("parses");
            let ue = UePlacement { position_m: [0.0, 0.0], height_m: 1.5, mobility };
            ChannelSpec::default().validate_placement(&ue, "u").map_err(|e| e.path)
        };
        let pts = |p: &str| format!(r#"{{"kind": "waypoints", "points": [{p}]}}"#);
        assert_eq!(check(&pts(r#"{"t_s": 10, "position_m": [100, 0]}, {"t_s": 20, "position_m": [0, 0]}"#)), Ok(()));
        assert_eq!(check(&pts("")).unwrap_err(), "u.mobility.points");
        assert_eq!(check(&pts(r#"{"t_s": 0, "position_m": [1, 0]}"#)).unwrap_err(), "u.mobility.points[0].t_s");
        let back = r#"{"t_s": 10, "position_m": [1, 0]}, {"t_s": 10, "position_m": [2, 0]}"#;
        assert_eq!(check(&pts(back)).unwrap_err(), "u.mobility.points[1].t_s");
        // 1000 m in 5 s is 720 km/h, above MAX_SPEED_KMH (500).
        let fast = r#"{"t_s": 10, "position_m": [1, 0]}, {"t_s": 15, "position_m": [1001, 0]}"#;
        assert_eq!(check(&pts(fast)).unwrap_err(), "u.mobility.points[1].position_m");
        assert!(serde_json::from_str::<MobilitySpec>(&pts(r#"{"t_s": 1, "position_m": [1, 0], "x": 1}"#)).is_err());
    }
}
