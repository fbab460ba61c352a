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

pub use super::power_control::UlPowerControlSpec;
use super::ul_interference::{default_uplink_load, validate_uplink_load};
use crate::error::ScenarioError;
pub use crate::radio::antenna::HexGrid;
pub use crate::radio::interference::InterfererLoad;
use crate::radio::pathloss::LossContext;
// The medium-neutral parts of the channel's schema (crate::radio::spec), named as the cell's
// channel has always named them: a UE's placement is a radio `Placement`.
pub use crate::radio::spec::{
    finite_point, in_range, positive_upto, AntennaSpec, Check, CitySize, FadingProfile, FadingSpec, FrequencyTracking,
    HataEnvironment, LosCondition, MobilitySpec, PathLossSpec, Placement as UePlacement, ShadowingSpec, Waypoint,
    DEFAULT_LOG_DISTANCE_EXPONENT, DEFAULT_LOG_DISTANCE_REF_LOSS_DB, DEFAULT_LOG_DISTANCE_REF_M,
    DEFAULT_LOS_THRESHOLD_M, DEFAULT_ROOFTOP_CLEARANCE_M, DEFAULT_SHADOWING_DECORRELATION_M,
    DEFAULT_SHADOWING_SIGMA_DB, DEFAULT_UE_HEIGHT_M, DEFAULT_WALK_LEG_S, MAX_SPEED_KMH, MAX_WAYPOINTS,
};
use serde::{Deserialize, Serialize};

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
        self.pathloss.validate(path, &self.loss_context(path))?;
        if let Some(s) = &self.shadowing {
            s.validate(&p("shadowing"))?;
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

    /// The carriers and antenna heights the path-loss model's validity is checked against.
    fn loss_context(&self, path: &str) -> LossContext {
        let p = |f: &str| format!("{path}.{f}");
        LossContext {
            carriers_mhz: vec![(p("dl_carrier_mhz"), self.dl_carrier_mhz), (p("ul_carrier_mhz"), self.ul_carrier_mhz)],
            serving_height_m: (p("enb.height_m"), self.enb.height_m),
            other_heights_m: (self.interferers.iter().enumerate())
                .map(|(i, f)| (p(&format!("interferers[{i}].height_m")), f.height_m_or(&self.enb)))
                .collect(),
        }
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

impl HexLayoutSpec {
    /// The layout's sites and sectors, without the loads the cells carry.
    pub fn grid(&self) -> HexGrid {
        HexGrid { rings: self.rings, isd_m: self.isd_m, sectors: self.sectors, sector_offset_m: self.sector_offset_m }
    }

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
