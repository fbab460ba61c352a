//! Uplink power control: how much power a UE puts on each PRB of its PUSCH grant and of
//! its sounding reference signal (TS 36.213 §5.1.1.1 and §5.1.3.1, one serving cell, FDD).
//!
//! ```text
//!  P_PUSCH(i) = min(P_CMAX, 10 log10 M_PUSCH(i) + P_O_PUSCH + alpha PL + Delta_TF(i) + f(i))   dBm
//!  P_SRS(i)   = min(P_CMAX, P_SRS_OFFSET + 10 log10 M_SRS + P_O_PUSCH + alpha PL + f(i))        dBm
//!  P_O_PUSCH  = P_O_NOMINAL_PUSCH + P_O_UE_PUSCH,   PL = referenceSignalPower - filtered RSRP
//! ```
//! Choices (each as ns-3 LENA 3.44 makes it, src/lte/model/lte-ue-power-control.cc):
//! - j = 1 (dynamically scheduled grants): the only PUSCH the engine sends.
//! - Delta_TF = 0: `deltaMCS-Enabled` is off by default (TS 36.331 UplinkPowerControlDedicated,
//!   K_S = 0 in TS 36.213 §5.1.1.1), as LENA's `m_deltaTF = 0`.
//! - f(i) = 0: LENA's eNB sends TPC command 1 in every DCI (lte-fr-no-op-algorithm.cc `DoGetTpc`;
//!   the UL DCIs of pf/rr-ff-mac-scheduler.cc carry 0 but are not applied), which is 0 dB in
//!   accumulation mode (TS 36.213 Table 5.1.1.1-2), so the closed-loop term never moves.
//! - PL: the large-scale downlink gain (path loss, shadowing, antenna) of the serving link. The L3
//!   filter (TS 36.331 §5.5.3.2, k = 4) over RSRP measured every 200 ms (TS 36.133 §9.1.2) averages
//!   fast fading out; LENA filters every TTI, so its PL keeps ~2 ms of the band-averaged fading.
//! - The power is never below -40 dBm (TS 36.101 §6.3.2 minimum output power; LENA's `Pcmin`).

use super::spec::{in_range, Check};
use crate::error::ScenarioError;
use serde::{Deserialize, Serialize};

/// ns-3 `LteUePowerControl::PoNominalPusch` default, dBm.
pub const DEFAULT_P0_NOMINAL_PUSCH_DBM: i32 = -80;
/// ns-3 `LteUePowerControl::PoUePusch` default, dB.
pub const DEFAULT_P0_UE_PUSCH_DB: i32 = 0;
/// ns-3 `LteUePowerControl::Alpha` default.
pub const DEFAULT_ALPHA: f64 = 1.0;
/// ns-3 `LteUePowerControl::Pcmax` default, dBm: power class 3 (TS 36.101 Table 6.2.2-1).
pub const DEFAULT_P_CMAX_DBM: f64 = 23.0;
/// ns-3 `LteUePowerControl::PsrsOffset` default: 7, i.e. 0 dB.
pub const DEFAULT_P_SRS_OFFSET: u8 = 7;
/// TS 36.331 UplinkPowerControlCommon `alpha` ENUMERATED {al0, al04, al05, al06, al07, al08, al09, al1}.
pub const ALPHAS: [f64; 8] = [0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
/// TS 36.331 `p0-NominalPUSCH` INTEGER (-126..24), dBm.
pub const P0_NOMINAL_PUSCH_RANGE_DBM: (i32, i32) = (-126, 24);
/// TS 36.331 `p0-UE-PUSCH` INTEGER (-8..7), dB.
pub const P0_UE_PUSCH_RANGE_DB: (i32, i32) = (-8, 7);
/// TS 36.331 `pSRS-Offset` INTEGER (0..15).
pub const P_SRS_OFFSET_MAX: u8 = 15;
/// TS 36.213 §5.1.3.1, K_S = 0: P_SRS_OFFSET = -10.5 + 1.5 pSRS-Offset dB.
const SRS_OFFSET_BASE_DB: f64 = -10.5;
const SRS_OFFSET_STEP_DB: f64 = 1.5;
/// TS 36.101 §6.3.2: minimum output power, dBm (LENA `Pcmin`).
pub const MIN_OUTPUT_POWER_DBM: f64 = -40.0;
/// TS 36.101 §6.2.2: power classes 1-3 reach at most 31 dBm; the same bound as `ue_tx_power_dbm`.
const P_CMAX_RANGE_DBM: (f64, f64) = (-40.0, 33.0);

/// How a UE sets its uplink power.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum UlPowerControlSpec {
    /// A fixed total power, `ue_tx_power_dbm`, on PUSCH and SRS alike (ns-3 with
    /// `LteUePhy::EnableUplinkPowerControl` false).
    Fixed,
    /// TS 36.213 §5.1.1.1 fractional power control with f(i) = 0 (see the module doc).
    /// Default (ns-3 `LteUePhy::EnableUplinkPowerControl` is true by default).
    OpenLoop {
        /// P_O_NOMINAL_PUSCH, dBm, integer in [-126, 24]. Default -80 (ns-3 `PoNominalPusch`).
        #[serde(default = "d_p0_nominal")]
        p0_nominal_pusch_dbm: i32,
        /// P_O_UE_PUSCH, dB, integer in [-8, 7]. Default 0 (ns-3 `PoUePusch`).
        #[serde(default = "d_p0_ue")]
        p0_ue_pusch_db: i32,
        /// Path-loss compensation, one of 0, 0.4, 0.5, ..., 1. Default 1 (ns-3 `Alpha`).
        #[serde(default = "d_alpha")]
        alpha: f64,
        /// P_CMAX, dBm, in [-40, 33]. Default 23 (ns-3 `Pcmax`, power class 3).
        #[serde(default = "d_p_cmax")]
        p_cmax_dbm: f64,
        /// pSRS-Offset, integer in [0, 15]: P_SRS_OFFSET = -10.5 + 1.5 x dB. Default 7 (ns-3 `PsrsOffset`), 0 dB.
        #[serde(default = "d_p_srs_offset")]
        p_srs_offset: u8,
    },
}

fn d_p0_nominal() -> i32 {
    DEFAULT_P0_NOMINAL_PUSCH_DBM
}
fn d_p0_ue() -> i32 {
    DEFAULT_P0_UE_PUSCH_DB
}
fn d_alpha() -> f64 {
    DEFAULT_ALPHA
}
fn d_p_cmax() -> f64 {
    DEFAULT_P_CMAX_DBM
}
fn d_p_srs_offset() -> u8 {
    DEFAULT_P_SRS_OFFSET
}

impl Default for UlPowerControlSpec {
    fn default() -> Self {
        UlPowerControlSpec::OpenLoop {
            p0_nominal_pusch_dbm: DEFAULT_P0_NOMINAL_PUSCH_DBM,
            p0_ue_pusch_db: DEFAULT_P0_UE_PUSCH_DB,
            alpha: DEFAULT_ALPHA,
            p_cmax_dbm: DEFAULT_P_CMAX_DBM,
            p_srs_offset: DEFAULT_P_SRS_OFFSET,
        }
    }
}

impl UlPowerControlSpec {
    /// Check every field against TS 36.331's ranges; `path` names this spec.
    pub fn validate(&self, path: &str) -> Check {
        let UlPowerControlSpec::OpenLoop { p0_nominal_pusch_dbm, p0_ue_pusch_db, alpha, p_cmax_dbm, p_srs_offset } =
            *self
        else {
            return Ok(());
        };
        let p = |f: &str| format!("{path}.{f}");
        let int_in = |x: i32, (lo, hi): (i32, i32), f: &str, allowed: &str| {
            if (lo..=hi).contains(&x) {
                Ok(())
            } else {
                Err(ScenarioError::new(p(f), x, allowed))
            }
        };
        int_in(p0_nominal_pusch_dbm, P0_NOMINAL_PUSCH_RANGE_DBM, "p0_nominal_pusch_dbm", "integer dBm in [-126, 24]")?;
        int_in(p0_ue_pusch_db, P0_UE_PUSCH_RANGE_DB, "p0_ue_pusch_db", "integer dB in [-8, 7]")?;
        if !ALPHAS.contains(&alpha) {
            return Err(ScenarioError::new(p("alpha"), alpha, "one of 0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1"));
        }
        let (lo, hi) = P_CMAX_RANGE_DBM;
        in_range(p_cmax_dbm, lo, hi, || p("p_cmax_dbm"), "dBm in [-40, 33]")?;
        int_in(i32::from(p_srs_offset), (0, i32::from(P_SRS_OFFSET_MAX)), "p_srs_offset", "integer in [0, 15]")
    }
}

/// A UE's uplink power rule, resolved from the spec (and `ue_tx_power_dbm` for `fixed`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UlPower {
    Fixed { tx_power_dbm: f64 },
    OpenLoop { p0_pusch_dbm: f64, alpha: f64, p_cmax_dbm: f64, srs_offset_db: f64 },
}

impl UlPower {
    pub fn new(spec: &UlPowerControlSpec, ue_tx_power_dbm: f64) -> Self {
        match *spec {
            UlPowerControlSpec::Fixed => UlPower::Fixed { tx_power_dbm: ue_tx_power_dbm },
            UlPowerControlSpec::OpenLoop { p0_nominal_pusch_dbm, p0_ue_pusch_db, alpha, p_cmax_dbm, p_srs_offset } => {
                UlPower::OpenLoop {
                    p0_pusch_dbm: f64::from(p0_nominal_pusch_dbm + p0_ue_pusch_db),
                    alpha,
                    p_cmax_dbm,
                    srs_offset_db: SRS_OFFSET_BASE_DB + SRS_OFFSET_STEP_DB * f64::from(p_srs_offset),
                }
            }
        }
    }

    /// TS 36.213 §5.1.1.1 eq. for P_PUSCH,c(i) (Delta_TF = f(i) = 0): total power over
    /// `m_prb` PRBs at path loss `pl_db`, dBm.
    pub fn pusch_dbm(&self, pl_db: f64, m_prb: u32) -> f64 {
        self.power_dbm(pl_db, m_prb, 0.0)
    }

    /// TS 36.213 §5.1.3.1 eq. for P_SRS,c(i): total sounding power over `m_srs` PRBs, dBm.
    pub fn srs_dbm(&self, pl_db: f64, m_srs: u32) -> f64 {
        match *self {
            UlPower::Fixed { .. } => self.power_dbm(pl_db, m_srs, 0.0),
            UlPower::OpenLoop { srs_offset_db, .. } => self.power_dbm(pl_db, m_srs, srs_offset_db),
        }
    }

    /// Power per PRB of a PUSCH over `m_prb` PRBs, dBm.
    pub fn pusch_per_prb_dbm(&self, pl_db: f64, m_prb: u32) -> f64 {
        self.pusch_dbm(pl_db, m_prb) - db(m_prb)
    }

    /// Power per PRB of an SRS over `m_srs` PRBs, dBm.
    pub fn srs_per_prb_dbm(&self, pl_db: f64, m_srs: u32) -> f64 {
        self.srs_dbm(pl_db, m_srs) - db(m_srs)
    }

    fn power_dbm(&self, pl_db: f64, m_prb: u32, offset_db: f64) -> f64 {
        match *self {
            UlPower::Fixed { tx_power_dbm } => tx_power_dbm,
            UlPower::OpenLoop { p0_pusch_dbm, alpha, p_cmax_dbm, .. } => {
                let wanted_dbm = offset_db + db(m_prb) + p0_pusch_dbm + alpha * pl_db;
                wanted_dbm.min(p_cmax_dbm).max(MIN_OUTPUT_POWER_DBM)
            }
        }
    }
}

/// 10 log10 of a PRB count (at least one PRB).
fn db(m_prb: u32) -> f64 {
    10.0 * f64::from(m_prb.max(1)).log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(p0: i32, alpha: f64) -> UlPower {
        let spec = UlPowerControlSpec::OpenLoop {
            p0_nominal_pusch_dbm: p0,
            p0_ue_pusch_db: 0,
            alpha,
            p_cmax_dbm: 23.0,
            p_srs_offset: DEFAULT_P_SRS_OFFSET,
        };
        UlPower::new(&spec, 10.0)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn pusch_power_follows_the_formula_below_p_cmax() {
        // P = 10 log10 M + P0 + alpha PL with P0 = -106 dBm (a typical P_O_NOMINAL_PUSCH):
        // M = 1, PL = 100, alpha = 0.8: 0 - 106 + 80 = -26 dBm.
        assert!(close(open(-106, 0.8).pusch_dbm(100.0, 1), -26.0));
        // M = 1, PL = 130, alpha = 0.8: -106 + 104 = -2 dBm.
        assert!(close(open(-106, 0.8).pusch_dbm(130.0, 1), -2.0));
        // M = 50, PL = 100, alpha = 1: 16.9897 - 106 + 100 = 10.9897 dBm.
        assert!(close(open(-106, 1.0).pusch_dbm(100.0, 50), 10.0 * 50f64.log10() - 6.0));
        // Per PRB the grant size cancels while uncapped: -106 + 100 = -6 dBm per PRB.
        assert!(close(open(-106, 1.0).pusch_per_prb_dbm(100.0, 50), -6.0));
        assert!(close(open(-106, 1.0).pusch_per_prb_dbm(100.0, 1), -6.0));
    }

    #[test]
    fn pusch_power_is_capped_at_p_cmax() {
        // M = 50, PL = 130, alpha = 1: 16.99 - 106 + 130 = 40.99 dBm > 23: P = 23, 23 - 16.99 per PRB.
        let p = open(-106, 1.0);
        assert!(close(p.pusch_dbm(130.0, 50), 23.0));
        assert!(close(p.pusch_per_prb_dbm(130.0, 50), 23.0 - 10.0 * 50f64.log10()));
        // M = 1, PL = 130, alpha = 1: 24 dBm > 23, capped too.
        assert!(close(p.pusch_dbm(130.0, 1), 23.0));
        // LENA's defaults (P0 = -80, alpha = 1): M = 1 at PL = 100 wants 20 dBm, M = 50 is capped.
        let lena = UlPower::new(&UlPowerControlSpec::default(), 10.0);
        assert!(close(lena.pusch_dbm(100.0, 1), 20.0));
        assert!(close(lena.pusch_dbm(100.0, 50), 23.0));
    }

    #[test]
    fn power_never_falls_below_the_minimum_output_power() {
        // P0 = -126, alpha = 0, M = 1: -126 dBm wanted, -40 sent (TS 36.101 §6.3.2).
        assert!(close(open(-126, 0.0).pusch_dbm(100.0, 1), MIN_OUTPUT_POWER_DBM));
    }

    #[test]
    fn srs_adds_its_offset_and_spans_its_band() {
        // pSRS-Offset 7 -> -10.5 + 10.5 = 0 dB: SRS over 25 PRBs at PL 90, alpha 1, P0 -106:
        // 13.98 - 106 + 90 = -2.02 dBm, i.e. -16 dBm per PRB like the PUSCH.
        let p = open(-106, 1.0);
        assert!(close(p.srs_dbm(90.0, 25), 10.0 * 25f64.log10() - 16.0));
        assert!(close(p.srs_per_prb_dbm(90.0, 25), p.pusch_per_prb_dbm(90.0, 3)));
        let spec = UlPowerControlSpec::OpenLoop {
            p0_nominal_pusch_dbm: -106,
            p0_ue_pusch_db: 0,
            alpha: 1.0,
            p_cmax_dbm: 23.0,
            p_srs_offset: 0,
        };
        // pSRS-Offset 0 -> -10.5 dB.
        assert!(close(UlPower::new(&spec, 10.0).srs_per_prb_dbm(90.0, 25), -26.5));
    }

    #[test]
    fn fixed_power_spreads_over_the_grant() {
        // 10 dBm over 1 PRB: 10 dBm per PRB; over 10 PRBs: 0 dBm per PRB.
        let p = UlPower::new(&UlPowerControlSpec::Fixed, 10.0);
        assert!(close(p.pusch_per_prb_dbm(120.0, 1), 10.0));
        assert!(close(p.pusch_per_prb_dbm(120.0, 10), 0.0));
        assert!(close(p.srs_per_prb_dbm(120.0, 10), 0.0));
    }

    #[test]
    fn bad_parameters_name_field_value_and_range() {
        let bad = |alpha: f64, p0: i32, ue: i32, cmax: f64, srs: u8| {
            UlPowerControlSpec::OpenLoop {
                p0_nominal_pusch_dbm: p0,
                p0_ue_pusch_db: ue,
                alpha,
                p_cmax_dbm: cmax,
                p_srs_offset: srs,
            }
            .validate("cells[0].channel.ul_power_control")
            .unwrap_err()
            .to_string()
        };
        let e = bad(0.3, -80, 0, 23.0, 7);
        assert!(e.contains("ul_power_control.alpha") && e.contains("0.3") && e.contains("0.4"), "{e}");
        assert!(bad(1.0, -127, 0, 23.0, 7).contains("p0_nominal_pusch_dbm"));
        assert!(bad(1.0, -80, 8, 23.0, 7).contains("p0_ue_pusch_db"));
        assert!(bad(1.0, -80, 0, f64::NAN, 7).contains("p_cmax_dbm"));
        assert!(bad(1.0, -80, 0, 23.0, 16).contains("p_srs_offset"));
        assert!(UlPowerControlSpec::default().validate("x").is_ok());
        for a in ALPHAS {
            assert!(UlPowerControlSpec::OpenLoop {
                p0_nominal_pusch_dbm: -80,
                p0_ue_pusch_db: 0,
                alpha: a,
                p_cmax_dbm: 23.0,
                p_srs_offset: 7
            }
            .validate("x")
            .is_ok());
        }
    }

    proptest::proptest! {
        /// Whatever the parameters: the total never exceeds P_CMAX nor falls below -40 dBm, a larger
        /// grant never gets more power per PRB, and with the 0 dB SRS offset a grant within the band
        /// gets at least the SRS's power per PRB.
        #[test]
        fn power_is_bounded_and_per_prb_falls_with_the_grant(
            p0 in -126i32..=24, ue in -8i32..=7, a in 0usize..8, cmax in -40.0f64..33.0,
            pl_db in 40.0f64..180.0, m in 1u32..100, n_rb in 1u32..=100,
        ) {
            let spec = UlPowerControlSpec::OpenLoop {
                p0_nominal_pusch_dbm: p0, p0_ue_pusch_db: ue, alpha: ALPHAS[a], p_cmax_dbm: cmax,
                p_srs_offset: DEFAULT_P_SRS_OFFSET,
            };
            let p = UlPower::new(&spec, 10.0);
            let total = p.pusch_dbm(pl_db, m);
            proptest::prop_assert!(total <= cmax.max(MIN_OUTPUT_POWER_DBM) + 1e-9 && total >= MIN_OUTPUT_POWER_DBM);
            proptest::prop_assert!(p.pusch_per_prb_dbm(pl_db, m + 1) <= p.pusch_per_prb_dbm(pl_db, m) + 1e-9);
            if m <= n_rb {
                proptest::prop_assert!(p.pusch_per_prb_dbm(pl_db, m) >= p.srs_per_prb_dbm(pl_db, n_rb) - 1e-9);
            }
        }
    }

    #[test]
    fn a_fixed_power_under_power_control_is_refused_not_ignored() {
        use super::super::spec::ChannelSpec;
        let spec = |pc: UlPowerControlSpec| ChannelSpec {
            ue_tx_power_dbm: Some(23.0),
            ul_power_control: pc,
            ..ChannelSpec::default()
        };
        let e = spec(UlPowerControlSpec::default()).validate("cells[0].channel").unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str()), ("cells[0].channel.ue_tx_power_dbm", "23"));
        assert!(e.allowed.contains("p_cmax_dbm") && e.allowed.contains("fixed"), "{e}");
        assert!(spec(UlPowerControlSpec::Fixed).validate("c").is_ok());
    }

    #[test]
    fn the_scenario_forms_parse() {
        let fixed: UlPowerControlSpec = serde_json::from_str(r#"{"kind": "fixed"}"#).unwrap();
        assert_eq!(fixed, UlPowerControlSpec::Fixed);
        let pc: UlPowerControlSpec = serde_json::from_str(r#"{"kind": "open_loop", "alpha": 0.8}"#).unwrap();
        let UlPowerControlSpec::OpenLoop { alpha, p0_nominal_pusch_dbm, .. } = pc else { panic!("{pc:?}") };
        assert_eq!((alpha, p0_nominal_pusch_dbm), (0.8, -80));
    }
}
