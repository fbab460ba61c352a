//! 3GPP TR 38.901 (V17.0.0) large-scale models for 0.5-100 GHz, the channel model 5G NR is
//! evaluated on and any medium can use: the path loss of Table 7.4.1-1 for UMa, UMi-Street Canyon,
//! RMa and InH-Office, LOS or NLOS, and the LOS probability of Table 7.4.2-1.
//!
//! A link's LOS state (`condition = "drawn"`) is one uniform draw `u` per link, fixed for the run:
//! the link is LOS while `u < Pr_LOS(d_2D)`. As the UE moves the state changes where the
//! probability crosses `u`, so a link is LOS near its site and NLOS beyond one distance, and the
//! share of LOS links at each distance is Table 7.4.2-1's. (§7.6.3.3's spatially consistent LOS
//! state would also let it flip back and forth along the way; one threshold per link is the
//! simplification.) Shadowing is the medium's log-normal process (shadowing.rs); Table 7.4.1-1
//! gives its sigma per scenario and state, docs/channel.md lists them.
//!
//! Effective environment height h_E (UMa, UMi): 1 m, the value for every UE below 13 m (§7.4.1,
//! note 1 of Table 7.4.1-1); a UE higher than that takes 1 m too (the likelier draw).

use super::pathloss::{LinkGeometry, SPEED_OF_LIGHT_MPS};
use serde::{Deserialize, Serialize};

/// The deployment scenarios of TR 38.901 §7.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Tr38901Scenario {
    /// Urban macro: BS 25 m, UE 1.5-22.5 m, d_2D 10 m - 5 km.
    #[default]
    Uma,
    /// Urban micro, street canyon: BS 10 m.
    Umi,
    /// Rural macro: BS 10-150 m (35 m typical), UE 1-10 m, d_2D 10 m - 10 km (LOS) / 5 km (NLOS).
    Rma,
    /// Indoor office, mixed office (LOS probability of Table 7.4.2-1's "InH-Mixed office").
    InhMixed,
    /// Indoor office, open office.
    InhOpen,
}

/// Which state the link is in: given, or drawn from the LOS probability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Tr38901Condition {
    Los,
    Nlos,
    /// LOS while the link's uniform draw is below Pr_LOS(d_2D) (module doc).
    #[default]
    Drawn,
}

/// Table 7.4.1-1 UMa/UMi note 1: effective environment height, m.
const EFFECTIVE_ENV_HEIGHT_M: f64 = 1.0;
/// Table 7.4.1-1 RMa note: average building height h and street width W, m (the table's defaults).
const RMA_BUILDING_HEIGHT_M: f64 = 5.0;
const RMA_STREET_WIDTH_M: f64 = 20.0;

/// Path loss of `scenario` in state `los` for the geometry `g` at `fc_ghz`, dB (Table 7.4.1-1).
/// Outside a model's distance range the formula is extrapolated (pathloss.rs's rule).
pub fn loss_db(scenario: Tr38901Scenario, los: bool, g: &LinkGeometry, fc_ghz: f64) -> f64 {
    let los_db = match scenario {
        Tr38901Scenario::Uma => uma_los_db(g, fc_ghz),
        Tr38901Scenario::Umi => umi_los_db(g, fc_ghz),
        Tr38901Scenario::Rma => rma_los_db(g, fc_ghz),
        Tr38901Scenario::InhMixed | Tr38901Scenario::InhOpen => 32.4 + 17.3 * g.d3_m.log10() + 20.0 * fc_ghz.log10(),
    };
    if los {
        return los_db;
    }
    // Every NLOS model is max(PL_LOS, PL'_NLOS): NLOS never loses less than LOS would.
    let (d3, lf, h_ut) = (g.d3_m.log10(), fc_ghz.log10(), g.ue_height_m);
    let nlos_db = match scenario {
        Tr38901Scenario::Uma => 13.54 + 39.08 * d3 + 20.0 * lf - 0.6 * (h_ut - 1.5),
        Tr38901Scenario::Umi => 35.3 * d3 + 22.4 + 21.3 * lf - 0.3 * (h_ut - 1.5),
        Tr38901Scenario::Rma => rma_nlos_db(g, fc_ghz),
        Tr38901Scenario::InhMixed | Tr38901Scenario::InhOpen => 38.3 * d3 + 17.30 + 24.9 * lf,
    };
    los_db.max(nlos_db)
}

/// Breakpoint distance d'_BP = 4 h'_BS h'_UT f_c / c (Table 7.4.1-1 note 1), m.
fn breakpoint_prime_m(g: &LinkGeometry, fc_ghz: f64) -> f64 {
    4.0 * (g.enb_height_m - EFFECTIVE_ENV_HEIGHT_M) * (g.ue_height_m - EFFECTIVE_ENV_HEIGHT_M) * fc_ghz * 1e9
        / SPEED_OF_LIGHT_MPS
}

// Table 7.4.1-1 UMa LOS: PL1 = 28 + 22 log10 d3D + 20 log10 fc up to d'BP, then
// PL2 = 28 + 40 log10 d3D + 20 log10 fc - 9 log10(d'BP^2 + (hBS - hUT)^2).
fn uma_los_db(g: &LinkGeometry, fc_ghz: f64) -> f64 {
    let d_bp = breakpoint_prime_m(g, fc_ghz);
    let lf = 20.0 * fc_ghz.log10();
    if g.d2_m <= d_bp {
        28.0 + 22.0 * g.d3_m.log10() + lf
    } else {
        28.0 + 40.0 * g.d3_m.log10() + lf - 9.0 * (d_bp * d_bp + (g.enb_height_m - g.ue_height_m).powi(2)).log10()
    }
}

// Table 7.4.1-1 UMi-Street Canyon LOS: PL1 = 32.4 + 21 log10 d3D + 20 log10 fc, then
// PL2 = 32.4 + 40 log10 d3D + 20 log10 fc - 9.5 log10(d'BP^2 + (hBS - hUT)^2).
fn umi_los_db(g: &LinkGeometry, fc_ghz: f64) -> f64 {
    let d_bp = breakpoint_prime_m(g, fc_ghz);
    let lf = 20.0 * fc_ghz.log10();
    if g.d2_m <= d_bp {
        32.4 + 21.0 * g.d3_m.log10() + lf
    } else {
        32.4 + 40.0 * g.d3_m.log10() + lf - 9.5 * (d_bp * d_bp + (g.enb_height_m - g.ue_height_m).powi(2)).log10()
    }
}

// Table 7.4.1-1 RMa LOS: d_BP = 2 pi hBS hUT fc / c;
// PL1(d) = 20 log10(40 pi d fc / 3) + min(0.03 h^1.72, 10) log10 d - min(0.044 h^1.72, 14.77) + 0.002 log10(h) d;
// PL2 = PL1(d_BP) + 40 log10(d3D / d_BP) beyond the breakpoint.
fn rma_los_db(g: &LinkGeometry, fc_ghz: f64) -> f64 {
    let d_bp = 2.0 * std::f64::consts::PI * g.enb_height_m * g.ue_height_m * fc_ghz * 1e9 / SPEED_OF_LIGHT_MPS;
    let h = RMA_BUILDING_HEIGHT_M;
    let pl1 = |d: f64| {
        20.0 * (40.0 * std::f64::consts::PI * d * fc_ghz / 3.0).log10() + (0.03 * h.powf(1.72)).min(10.0) * d.log10()
            - (0.044 * h.powf(1.72)).min(14.77)
            + 0.002 * h.log10() * d
    };
    if g.d2_m <= d_bp {
        pl1(g.d3_m)
    } else {
        pl1(d_bp) + 40.0 * (g.d3_m / d_bp).log10()
    }
}

// Table 7.4.1-1 RMa NLOS: PL' = 161.04 - 7.1 log10 W + 7.5 log10 h - (24.37 - 3.7 (h/hBS)^2) log10 hBS
// + (43.42 - 3.1 log10 hBS)(log10 d3D - 3) + 20 log10 fc - (3.2 (log10(11.75 hUT))^2 - 4.97).
fn rma_nlos_db(g: &LinkGeometry, fc_ghz: f64) -> f64 {
    let (w, h, h_bs) = (RMA_STREET_WIDTH_M, RMA_BUILDING_HEIGHT_M, g.enb_height_m);
    161.04 - 7.1 * w.log10() + 7.5 * h.log10() - (24.37 - 3.7 * (h / h_bs).powi(2)) * h_bs.log10()
        + (43.42 - 3.1 * h_bs.log10()) * (g.d3_m.log10() - 3.0)
        + 20.0 * fc_ghz.log10()
        - (3.2 * (11.75 * g.ue_height_m).log10().powi(2) - 4.97)
}

/// Table 7.4.2-1: the probability that a link at outdoor distance `d2_m` to a UE at `h_ut_m` is LOS.
pub fn los_probability(scenario: Tr38901Scenario, d2_m: f64, h_ut_m: f64) -> f64 {
    match scenario {
        Tr38901Scenario::Rma if d2_m <= 10.0 => 1.0,
        Tr38901Scenario::Rma => (-(d2_m - 10.0) / 1000.0).exp(),
        Tr38901Scenario::Umi if d2_m <= 18.0 => 1.0,
        Tr38901Scenario::Umi => 18.0 / d2_m + (-d2_m / 36.0).exp() * (1.0 - 18.0 / d2_m),
        Tr38901Scenario::Uma if d2_m <= 18.0 => 1.0,
        Tr38901Scenario::Uma => {
            // C'(hUT) = 0 up to 13 m, ((hUT - 13) / 10)^1.5 above (the table's range ends at 23 m).
            let c = if h_ut_m <= 13.0 { 0.0 } else { ((h_ut_m - 13.0) / 10.0).powf(1.5) };
            (18.0 / d2_m + (-d2_m / 63.0).exp() * (1.0 - 18.0 / d2_m))
                * (1.0 + c * 1.25 * (d2_m / 100.0).powi(3) * (-d2_m / 150.0).exp())
        }
        Tr38901Scenario::InhMixed if d2_m <= 1.2 => 1.0,
        Tr38901Scenario::InhMixed if d2_m < 6.5 => (-(d2_m - 1.2) / 4.7).exp(),
        Tr38901Scenario::InhMixed => (-(d2_m - 6.5) / 32.6).exp() * 0.32,
        Tr38901Scenario::InhOpen if d2_m <= 5.0 => 1.0,
        Tr38901Scenario::InhOpen if d2_m <= 49.0 => (-(d2_m - 5.0) / 70.8).exp(),
        Tr38901Scenario::InhOpen => (-(d2_m - 49.0) / 211.7).exp() * 0.54,
    }
}

/// The link's state under `condition`, `los_u` its uniform draw in [0, 1).
pub fn is_los(scenario: Tr38901Scenario, condition: Tr38901Condition, g: &LinkGeometry, los_u: f64) -> bool {
    match condition {
        Tr38901Condition::Los => true,
        Tr38901Condition::Nlos => false,
        Tr38901Condition::Drawn => los_u < los_probability(scenario, g.d2_m, g.ue_height_m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geom(d2_m: f64, h_bs: f64, h_ut: f64) -> LinkGeometry {
        LinkGeometry::new([0.0, 0.0], h_bs, [d2_m, 0.0], h_ut)
    }

    /// ns-3's worked values (src/propagation/test/three-gpp-propagation-loss-model-test-suite.cc,
    /// formulas of Table 7.4.1-1 at 5 GHz, UE 1.5 m, 0 dBm sent): received power = -loss.
    #[test]
    fn path_loss_matches_the_ns3_test_vectors() {
        use Tr38901Scenario::*;
        // (scenario, BS height m, [(d_2D m, LOS, loss dB)]).
        type Case = (Tr38901Scenario, f64, &'static [(f64, bool, f64)]);
        let cases: [Case; 4] = [
            (
                Uma,
                25.0,
                &[
                    (10.0, true, 72.9380),
                    (100.0, true, 86.2362),
                    (1000.0, true, 109.7252),
                    (5000.0, true, 137.6794),
                    (10.0, false, 82.5131),
                    (100.0, false, 106.1356),
                    (1000.0, false, 144.7641),
                    (5000.0, false, 172.0753),
                ],
            ),
            (
                Umi,
                10.0,
                &[
                    (10.0, true, 69.8591),
                    (100.0, true, 88.4122),
                    (1000.0, true, 119.3114),
                    (5000.0, true, 147.2696),
                    (10.0, false, 76.7563),
                    (100.0, false, 107.9432),
                    (1000.0, false, 143.1886),
                    (5000.0, false, 167.8617),
                ],
            ),
            (
                Rma,
                35.0,
                &[
                    (10.0, true, 77.3784),
                    (100.0, true, 87.2965),
                    (1000.0, true, 108.5577),
                    (10000.0, true, 140.3896),
                    (10.0, false, 77.3784),
                    (100.0, false, 95.7718),
                    (1000.0, false, 133.5223),
                    (5000.0, false, 160.5169),
                ],
            ),
            (
                InhMixed,
                3.0,
                &[
                    (1.0, true, 50.8072),
                    (10.0, true, 63.7630),
                    (50.0, true, 75.7750),
                    (100.0, true, 80.9802),
                    (1.0, false, 50.8072),
                    (10.0, false, 73.1894),
                    (50.0, false, 99.7824),
                    (100.0, false, 111.3062),
                ],
            ),
        ];
        for (scenario, h_bs, rows) in cases {
            for &(d, los, want) in rows {
                let got = loss_db(scenario, los, &geom(d, h_bs, 1.5), 5.0);
                // ns-3 checks within 0.05 dB; its values take c = 3e8 m/s, which moves a breakpoint
                // (UMa at 5 GHz: 800.0 m instead of 800.55 m) and PL2 by 0.0054 dB.
                assert!((got - want).abs() < 0.01, "{scenario:?} d {d} los {los}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn uma_los_breakpoint_by_hand() {
        // fc 3.5 GHz, hBS 25, hUT 1.5: d'BP = 4 * 24 * 0.5 * 3.5e9 / c = 560.39 m.
        let d_bp = 4.0 * 24.0 * 0.5 * 3.5e9 / SPEED_OF_LIGHT_MPS;
        assert!((d_bp - 560.39).abs() < 0.01);
        // At 300 m: d3D = hypot(300, 23.5) = 300.919; 28 + 22 log10 300.919 + 20 log10 3.5
        // = 28 + 54.5259 + 10.8814 = 93.4073 dB.
        let got = loss_db(Tr38901Scenario::Uma, true, &geom(300.0, 25.0, 1.5), 3.5);
        assert!((got - 93.4073).abs() < 1e-3, "{got}");
        // Continuous at the breakpoint (PL2 is built to meet PL1 there, up to the 3-D distance).
        let below = loss_db(Tr38901Scenario::Uma, true, &geom(d_bp - 1e-6, 25.0, 1.5), 3.5);
        let above = loss_db(Tr38901Scenario::Uma, true, &geom(d_bp + 1e-6, 25.0, 1.5), 3.5);
        assert!((below - above).abs() < 0.05, "{below} vs {above}");
    }

    #[test]
    fn los_probability_follows_table_7_4_2_1() {
        use Tr38901Scenario::*;
        // UMi at 100 m: 0.18 + exp(-100/36) * 0.82 = 0.18 + 0.062176 * 0.82 = 0.230984.
        assert!((los_probability(Umi, 100.0, 1.5) - 0.230984).abs() < 1e-6);
        // UMa at 100 m, hUT 1.5 m: 0.18 + exp(-100/63) * 0.82 = 0.18 + 0.204477 * 0.82 = 0.347671.
        assert!((los_probability(Uma, 100.0, 1.5) - 0.347671).abs() < 1e-6);
        // UMa at 100 m, hUT 23 m: times 1 + 1 * 1.25 * 1 * exp(-100/150) = 1.641771.
        assert!((los_probability(Uma, 100.0, 23.0) - 0.347671 * 1.641771).abs() < 1e-5);
        // RMa: exp(-(1010 - 10) / 1000) = e^-1.
        assert!((los_probability(Rma, 1010.0, 1.5) - (-1.0f64).exp()).abs() < 1e-12);
        // InH: each piece at its boundary.
        assert_eq!(los_probability(InhMixed, 1.2, 1.0), 1.0);
        assert!((los_probability(InhMixed, 6.5, 1.0) - 0.32).abs() < 1e-12);
        assert!((los_probability(InhOpen, 49.0, 1.0) - (-44.0f64 / 70.8).exp()).abs() < 1e-12);
        assert!((los_probability(InhOpen, 49.0 + 1e-9, 1.0) - 0.54).abs() < 1e-6);
        for sc in [Uma, Umi, Rma, InhMixed, InhOpen] {
            assert_eq!(los_probability(sc, 1.0, 1.5), 1.0, "{sc:?} at 1 m");
            let mut last = 1.0;
            for d in [20.0, 50.0, 100.0, 300.0, 1000.0, 3000.0] {
                let p = los_probability(sc, d, 1.5);
                assert!((0.0..=last).contains(&p), "{sc:?} at {d} m: {p}");
                last = p;
            }
        }
    }

    #[test]
    fn out_of_range_carriers_and_heights_name_their_field() {
        use crate::radio::pathloss::LossContext;
        use crate::radio::spec::PathLossSpec;
        let spec = |scenario| PathLossSpec::Tr38901 { scenario, condition: Tr38901Condition::Drawn };
        let ctx = |f_mhz: f64, h_bs: f64| LossContext {
            carriers_mhz: vec![("c.dl_carrier_mhz".into(), f_mhz)],
            serving_height_m: ("c.enb.height_m".into(), h_bs),
            other_heights_m: vec![],
        };
        assert!(spec(Tr38901Scenario::Uma).validate("c", &ctx(3500.0, 25.0)).is_ok());
        assert_eq!(spec(Tr38901Scenario::Uma).validate("c", &ctx(450.0, 25.0)).unwrap_err().path, "c.dl_carrier_mhz");
        assert_eq!(spec(Tr38901Scenario::Umi).validate("c", &ctx(3500.0, 1.0)).unwrap_err().path, "c.enb.height_m");
        assert_eq!(spec(Tr38901Scenario::Rma).validate("c", &ctx(3500.0, 5.0)).unwrap_err().path, "c.enb.height_m");
        assert!(spec(Tr38901Scenario::Uma).validate_ue_height(30.0, "u.height_m").is_err());
        assert!(spec(Tr38901Scenario::Rma).validate_ue_height(12.0, "u.height_m").is_err());
        assert!(spec(Tr38901Scenario::InhOpen).validate_ue_height(12.0, "u.height_m").is_ok());
    }

    #[test]
    fn a_drawn_link_is_los_up_to_one_distance() {
        let u = 0.3;
        let at = |d: f64| is_los(Tr38901Scenario::Umi, Tr38901Condition::Drawn, &geom(d, 10.0, 1.5), u);
        // UMi: Pr_LOS falls through 0.3 between 80 m (0.225 + e^-2.222 0.775 = 0.3090) and 90 m (0.2657).
        assert!(at(20.0) && at(50.0) && at(80.0));
        assert!(!at(90.0) && !at(200.0));
        assert!(is_los(Tr38901Scenario::Umi, Tr38901Condition::Los, &geom(500.0, 10.0, 1.5), 0.99));
        assert!(!is_los(Tr38901Scenario::Umi, Tr38901Condition::Nlos, &geom(5.0, 10.0, 1.5), 0.0));
    }
}
