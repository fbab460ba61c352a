//! What a scenario writes about the radio channel, whatever the medium: path loss, shadowing,
//! fast fading, antenna patterns, and where a terminal is and how it moves. LTE's cell channel
//! (`lte::channel::spec::ChannelSpec`) and a Wi-Fi BSS both hold these.
//!
//! ```toml
//! pathloss = { model = "okumura_hata", city = "large" }
//! shadowing = { sigma_db = 8, decorrelation_m = 50 }
//! fading = { profile = "eva", speed_kmh = 60 }
//! # per terminal:
//! placement = { position_m = [100, 0], mobility = { kind = "random_walk", speed_kmh = 3, bounds_m = [90, -10, 110, 10] } }
//! ```
//! Defaults are ns-3's (its attribute named in each field's doc) where it has one, else the 3GPP
//! evaluation value. Every field is checked by its `validate` with the range its model is defined on.

pub use super::hst::FrequencyTracking;
use super::mobility::MPS_PER_KMH;
pub use super::tr38901::{Tr38901Condition, Tr38901Scenario};
use crate::error::ScenarioError;
use serde::{Deserialize, Serialize};

pub type Check = Result<(), ScenarioError>;

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

/// A transmitter's horizontal antenna pattern (an eNB's, an access point's).
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

/// Where a terminal (an LTE UE, a Wi-Fi station or access point) starts and how it moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
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
    /// The IEEE 802.11 TGn indoor channel models' path loss, which TGac keeps for its models B-F
    /// (Erceg et al., IEEE 802.11-03/940r4, "Path loss"; IEEE 802.11-09/0308r12): free space up
    /// to the model's breakpoint distance, 35 dB per decade beyond it. Distances are 3-D.
    Tgac {
        /// The environment, which sets the breakpoint. Required.
        channel_model: TgacModel,
    },
    /// ITU-R P.1238 site-general indoor loss (§3.1 of editions up to P.1238-9; ns-3
    /// `ItuR1238PropagationLossModel`): `20 log10 f + N log10 d + Lf - 28`, f in MHz, d in m (>= 1).
    ItuR1238 {
        /// N, the distance power loss coefficient of the band and building (P.1238's table), in
        /// [10, 60]. Required: the table's entries depend on both.
        power_loss_coefficient: f64,
        /// Lf, the floor penetration loss between the two ends, dB in [0, 100]. Default 0 (same floor).
        #[serde(default)]
        floor_penetration_loss_db: f64,
    },
    /// TR 38.901 Table 7.4.1-1 (radio/tr38901.rs): UMa, UMi-Street Canyon, RMa or InH-Office,
    /// LOS, NLOS, or each link drawn from Table 7.4.2-1's LOS probability. Carrier 0.5-100 GHz.
    Tr38901 {
        /// "uma" (default), "umi", "rma", "inh_mixed", "inh_open".
        #[serde(default)]
        scenario: Tr38901Scenario,
        /// "los", "nlos" or "drawn" (default).
        #[serde(default)]
        condition: Tr38901Condition,
    },
}

/// TGn / TGac channel models B-F (IEEE 802.11-03/940r4 Table "Path loss model parameters").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TgacModel {
    /// Residential: breakpoint 5 m.
    B,
    /// Residential / small office: 5 m.
    C,
    /// Typical office: 10 m.
    D,
    /// Large office: 20 m.
    E,
    /// Large space, indoors and outdoors: 30 m.
    F,
}

impl TgacModel {
    /// d_BP, m (IEEE 802.11-03/940r4).
    pub fn breakpoint_m(self) -> f64 {
        match self {
            TgacModel::B | TgacModel::C => 5.0,
            TgacModel::D => 10.0,
            TgacModel::E => 20.0,
            TgacModel::F => 30.0,
        }
    }
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

impl ShadowingSpec {
    pub fn validate(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        in_range(self.sigma_db, 0.0, 20.0, || p("sigma_db"), "dB in [0, 20]")?;
        positive_upto(self.decorrelation_m, 1000.0, || p("decorrelation_m"), "m in (0, 1000]")
    }
}

/// Fast fading: a TS 36.104 Annex B.2 multipath profile at a maximum Doppler, or the
/// Annex B.3 high-speed train ([`super::hst`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FadingSpec {
    /// none | epa | eva | etu | hst | tdl_a..tdl_e. Default none.
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
    /// tdl_* only: the RMS delay spread the normalised delays are scaled to, ns, in (0, 5000].
    /// Default 100 (TR 38.901 Table 7.7.3-1 "nominal").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_spread_ns: Option<f64>,
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
    /// TR 38.901 §7.7.2 tapped delay lines (radio/tdl.rs): A-C NLOS, D and E with a LOS tap.
    TdlA,
    TdlB,
    TdlC,
    TdlD,
    TdlE,
}

impl FadingProfile {
    /// A TR 38.901 TDL, whose delays scale with `delay_spread_ns` and which pairs with no usual Doppler.
    pub fn is_tdl(self) -> bool {
        matches!(self, Self::TdlA | Self::TdlB | Self::TdlC | Self::TdlD | Self::TdlE)
    }
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
fn d_max_att() -> f64 {
    20.0
}

/// `x` finite and in `[lo, hi]`, else a ScenarioError naming `path` and `allowed`.
pub fn in_range(x: f64, lo: f64, hi: f64, path: impl FnOnce() -> String, allowed: &str) -> Check {
    if x.is_finite() && (lo..=hi).contains(&x) {
        Ok(())
    } else {
        Err(ScenarioError::new(path(), x, allowed))
    }
}

/// `x` finite and in `(0, hi]`.
pub fn positive_upto(x: f64, hi: f64, path: impl FnOnce() -> String, allowed: &str) -> Check {
    in_range(x, f64::MIN_POSITIVE, hi, path, allowed)
}

/// Every coordinate of `p` finite.
pub fn finite_point(p: &[f64], path: impl FnOnce() -> String) -> Check {
    if p.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(ScenarioError::new(path(), format!("{p:?}"), "finite coordinates in m"))
    }
}

impl AntennaSpec {
    pub fn validate(&self, path: &str) -> Check {
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

/// Longest TDL delay spread accepted, ns: five times TR 38.901 Table 7.7.3-1's "very long" 1000 ns.
const MAX_DELAY_SPREAD_NS: f64 = 5000.0;
/// Highest Doppler accepted, Hz (TS 36.101 Annex B.3 HST scenario 1: 1340 Hz).
const MAX_DOPPLER_HZ: f64 = 2000.0;

impl FadingSpec {
    pub fn validate(&self, path: &str) -> Check {
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
        if self.profile.is_tdl() {
            if self.doppler_hz.is_none() && self.speed_kmh.is_none() {
                return Err(ScenarioError::new(
                    p("doppler_hz"),
                    "absent",
                    "doppler_hz or speed_kmh for a TR 38.901 TDL (it pairs with no Doppler of its own)",
                ));
            }
            if let Some(ds) = self.delay_spread_ns {
                positive_upto(ds, MAX_DELAY_SPREAD_NS, || p("delay_spread_ns"), "ns in (0, 5000]")?;
            }
        } else if self.delay_spread_ns.is_some() {
            return Err(ScenarioError::new(p("delay_spread_ns"), "given", "only with a tdl_* profile"));
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

impl Placement {
    pub fn validate(&self, path: &str) -> Check {
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
