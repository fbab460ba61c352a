//! A link's path loss prepared once per (site, UE height, carrier), for the 10 ms large-scale
//! step (docs/performance.md): the models that are `intercept + slope log10(distance)` with
//! everything else fixed (TR 36.814 UMa and UMi NLOS, Friis) keep only their intercept and slope,
//! so a step evaluates one logarithm (libm-free, [`db::lin_to_db`] of the squared distance) instead
//! of the ~7 `log10` of [`loss_db`]. The same model: the result differs from [`loss_db`] by
//! floating-point rounding alone (tested within 1e-9 dB). The other models are evaluated in full.

use super::db;
use super::pathloss::{link_loss_db, LinkGeometry, MEDIAN_LOS_DRAW, MIN_DISTANCE_M, SPEED_OF_LIGHT_MPS};
use super::spec::{LosCondition, PathLossSpec};

/// A link's path loss with what does not depend on the UE's position evaluated once.
#[derive(Clone, Debug, PartialEq)]
pub enum PreparedLoss {
    /// `intercept_db + slope_db * log10(d)`, d the 2-D distance (`on_3d` false) or the 3-D one.
    LogDistance { intercept_db: f64, slope_db: f64, on_3d: bool, height_gap_m: f64 },
    /// Any other model, evaluated in full by [`loss_db`] each time.
    /// `los_u`: the link's LOS draw (a `tr38901` model with a drawn state; [`PreparedLoss::with_los_draw`]).
    Full { model: PathLossSpec, enb_height_m: f64, ue_height_m: f64, f_mhz: f64, los_u: f64 },
}

/// TR 36.814 Table B.1.2.1-1 UMa NLOS: street width W and average building height h, m (as pathloss.rs).
const UMA_STREET_WIDTH_M: f64 = 20.0;
const UMA_BUILDING_HEIGHT_M: f64 = 20.0;
/// log10 of a squared distance in dB (10 log10 d^2) to log10 d: / 20.
const DB_OF_SQUARE_TO_LOG10: f64 = 1.0 / 20.0;

impl PreparedLoss {
    /// The loss of a link from an eNB at `enb_height_m` to a UE at `ue_height_m` on `f_mhz`.
    pub fn new(model: &PathLossSpec, enb_height_m: f64, ue_height_m: f64, f_mhz: f64) -> Self {
        let height_gap_m = enb_height_m - ue_height_m;
        let log = |intercept_db: f64, slope_db: f64, on_3d: bool| PreparedLoss::LogDistance {
            intercept_db,
            slope_db,
            on_3d,
            height_gap_m,
        };
        let fc_ghz = f_mhz / 1000.0;
        match *model {
            // TR 36.814 Table B.1.2.1-1 UMa NLOS (pathloss.rs `tr36814_uma_db`), split at log10 d:
            // (43.42 - 3.1 log10 h_BS)(log10 d - 3) + the terms without d.
            PathLossSpec::Tr36814Uma { condition: LosCondition::Nlos } => {
                let (w, h, h_bs, h_ut) = (UMA_STREET_WIDTH_M, UMA_BUILDING_HEIGHT_M, enb_height_m, ue_height_m);
                let slope = 43.42 - 3.1 * h_bs.log10();
                let fixed = 161.04 - 7.1 * w.log10() + 7.5 * h.log10()
                    - (24.37 - 3.7 * (h / h_bs).powi(2)) * h_bs.log10()
                    + 20.0 * fc_ghz.log10()
                    - (3.2 * (11.75 * h_ut).log10().powi(2) - 4.97);
                log(fixed - 3.0 * slope, slope, false)
            }
            // TR 36.814 Table B.1.2.1-1 UMi NLOS: 36.7 log10 d + 22.7 + 26 log10 fc.
            PathLossSpec::Tr36814Umi { condition: LosCondition::Nlos } => {
                log(22.7 + 26.0 * fc_ghz.log10(), 36.7, false)
            }
            // Friis: 20 log10(4 pi d / lambda) = 20 log10 d + 20 log10(4 pi / lambda), d 3-D.
            PathLossSpec::Friis => {
                let lambda_m = SPEED_OF_LIGHT_MPS / (f_mhz * 1e6);
                log(20.0 * (4.0 * std::f64::consts::PI / lambda_m).log10(), 20.0, true)
            }
            _ => PreparedLoss::Full { model: model.clone(), enb_height_m, ue_height_m, f_mhz, los_u: MEDIAN_LOS_DRAW },
        }
    }

    /// The same link with its own LOS draw `los_u`, uniform in [0, 1) (without one, a `tr38901`
    /// link with a drawn state takes the likelier state, as `pathloss::loss_db`).
    pub fn with_los_draw(mut self, u: f64) -> Self {
        if let PreparedLoss::Full { ref mut los_u, .. } = self {
            *los_u = u;
        }
        self
    }

    /// The loss, dB (never negative), for a UE at `ue_minus_enb_m` (x, y) from the eNB.
    #[inline]
    pub fn loss_db(&self, ue_minus_enb_m: [f64; 2]) -> f64 {
        self.loss_from_db(db::lin_to_db(self.log_argument(ue_minus_enb_m)), ue_minus_enb_m)
    }

    /// The one value whose dB the loss needs (the squared distance, clamped as [`LinkGeometry`]
    /// clamps it; 1 for a model evaluated in full), so that many links' logarithms can be taken
    /// together ([`db::slice_to_db`]) before [`PreparedLoss::loss_from_db`].
    #[inline]
    pub fn log_argument(&self, ue_minus_enb_m: [f64; 2]) -> f64 {
        let [dx, dy] = ue_minus_enb_m;
        match *self {
            PreparedLoss::LogDistance { on_3d, height_gap_m, .. } => {
                let d2_sq = dx * dx + dy * dy;
                let d_sq = if on_3d { d2_sq + height_gap_m * height_gap_m } else { d2_sq };
                // LinkGeometry clamps either distance at MIN_DISTANCE_M; MIN_DISTANCE_M^2 = 1 likewise.
                d_sq.max(MIN_DISTANCE_M * MIN_DISTANCE_M)
            }
            PreparedLoss::Full { .. } => 1.0,
        }
    }

    /// Whether `other`'s [`PreparedLoss::log_argument`] is this one's at every position (so a
    /// step can take the logarithm once for both).
    pub fn same_log_argument(&self, other: &PreparedLoss) -> bool {
        match (self, other) {
            (
                PreparedLoss::LogDistance { on_3d: a3, height_gap_m: ga, .. },
                PreparedLoss::LogDistance { on_3d: b3, height_gap_m: gb, .. },
            ) => a3 == b3 && (!a3 || ga.to_bits() == gb.to_bits()),
            (PreparedLoss::Full { .. }, PreparedLoss::Full { .. }) => true,
            _ => false,
        }
    }

    /// The loss, dB (never negative), given `argument_db` = 10 log10 of [`PreparedLoss::log_argument`].
    #[inline]
    pub fn loss_from_db(&self, argument_db: f64, ue_minus_enb_m: [f64; 2]) -> f64 {
        match *self {
            PreparedLoss::LogDistance { intercept_db, slope_db, .. } => {
                (intercept_db + slope_db * (argument_db * DB_OF_SQUARE_TO_LOG10)).max(0.0)
            }
            PreparedLoss::Full { ref model, enb_height_m, ue_height_m, f_mhz, los_u } => {
                // hypot is symmetric in the sign of its arguments: the same geometry as eNB - UE.
                let g = LinkGeometry::new([0.0, 0.0], enb_height_m, ue_minus_enb_m, ue_height_m);
                link_loss_db(model, &g, f_mhz, los_u)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::pathloss::loss_db;
    use crate::radio::spec::{Tr38901Condition, Tr38901Scenario};
    use crate::sim::RngStream;

    #[test]
    fn a_drawn_tr38901_link_takes_its_own_draw() {
        // UMi at 100 m: Pr_LOS = 0.2310. A draw below it is LOS, above NLOS; undrawn, the median
        // (0.5) gives the likelier state, NLOS.
        let m = PathLossSpec::Tr38901 { scenario: Tr38901Scenario::Umi, condition: Tr38901Condition::Drawn };
        let at = |p: PreparedLoss| p.loss_db([100.0, 0.0]);
        let g = LinkGeometry::new([0.0, 0.0], 10.0, [100.0, 0.0], 1.5);
        let (los, nlos) = (
            crate::radio::tr38901::loss_db(Tr38901Scenario::Umi, true, &g, 3.5),
            crate::radio::tr38901::loss_db(Tr38901Scenario::Umi, false, &g, 3.5),
        );
        assert!(nlos > los + 10.0);
        assert_eq!(at(PreparedLoss::new(&m, 10.0, 1.5, 3500.0).with_los_draw(0.2)), los);
        assert_eq!(at(PreparedLoss::new(&m, 10.0, 1.5, 3500.0).with_los_draw(0.3)), nlos);
        assert_eq!(at(PreparedLoss::new(&m, 10.0, 1.5, 3500.0)), nlos);
    }

    #[test]
    fn prepared_losses_match_the_full_formulas_to_rounding() {
        // Each model against pathloss.rs's loss_db over random geometry (10 m .. 5 km, eNB 10..50 m,
        // UE 1..10 m, 700..3500 MHz): the split moves only rounding, so 1e-9 dB is generous.
        let models = [
            PathLossSpec::Tr36814Uma { condition: LosCondition::Nlos },
            PathLossSpec::Tr36814Umi { condition: LosCondition::Nlos },
            PathLossSpec::Friis,
            PathLossSpec::Tr36814Uma { condition: LosCondition::Los },
        ];
        let mut rng = RngStream::new(5, "link_loss:test");
        for m in &models {
            for _ in 0..5000 {
                let (enb_h, ue_h, f) =
                    (10.0 + 40.0 * rng.uniform(), 1.0 + 9.0 * rng.uniform(), 700.0 + 2800.0 * rng.uniform());
                let r = 10f64.powf(1.0 + 2.7 * rng.uniform());
                let a = std::f64::consts::TAU * rng.uniform();
                let d = [r * a.cos(), r * a.sin()];
                let p = PreparedLoss::new(m, enb_h, ue_h, f);
                let want = loss_db(m, &LinkGeometry::new([3.0, -2.0], enb_h, [3.0 + d[0], -2.0 + d[1]], ue_h), f);
                assert!((p.loss_db(d) - want).abs() < 1e-9, "{m:?}: {} vs {want}", p.loss_db(d));
            }
        }
    }

    #[test]
    fn distance_below_a_metre_is_clamped_as_link_geometry_does() {
        // A UE on top of its eNB: both sides use d = 1 m (log10 d = 0): the intercept alone.
        let m = PathLossSpec::Tr36814Umi { condition: LosCondition::Nlos };
        let p = PreparedLoss::new(&m, 25.0, 1.5, 2000.0);
        let want = loss_db(&m, &LinkGeometry::new([0.0, 0.0], 25.0, [0.1, 0.0], 1.5), 2000.0);
        // 22.7 + 26 log10(2) = 30.526 dB (TR 36.814 UMi NLOS at d = 1 m, fc = 2 GHz).
        assert!((p.loss_db([0.1, 0.0]) - want).abs() < 1e-12);
        assert!((want - (22.7 + 26.0 * 2f64.log10())).abs() < 1e-12);
    }
}
