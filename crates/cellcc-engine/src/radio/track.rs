//! The path sampler: where along its path a UE's large-scale channel (path loss, antenna gains,
//! shadowing, the interference sums built from them) is evaluated.
//!
//! The large-scale channel is a function of position, not of time (TR 38.901 §7.6.3 spatial
//! consistency; shadowing decorrelates over tens of metres, TR 38.901 Table 7.5-6), so it is
//! sampled by distance travelled:
//!
//! ```text
//!  grid step   0    1    2  ...  59   60   61  ...  119  120      (every GRID_STEP_NS = 10 ms)
//!  path (m)    0  .008 .017 ... .492 .500 .008 ...  .492 .500     (3 km/h: 8.3 mm a step)
//!  epoch       0    0    0  ...   0    1    1  ...    1    2      (a new one at >= LARGE_SCALE_STEP_M)
//! ```
//! Positions are looked at on a fixed time grid ([`GRID_STEP_NS`]), every step of it from 0 in
//! turn, so what holds at a grid step is a function of that step alone, whoever asks when. Each
//! grid step adds the straight-line length moved since the step before (the length the shadowing
//! was stepped by on the 10 ms grid before); when the length since the current epoch began reaches
//! [`LARGE_SCALE_STEP_M`], that grid step begins a new *epoch*: the caller advances the shadowing
//! by the accumulated length in one Gauss-Markov step (exact for any length, radio/shadowing.rs)
//! and evaluates the links at the epoch's position, which then hold until the next epoch. Step 0
//! begins epoch 0; a static UE stays in it; a UE moving more than [`LARGE_SCALE_STEP_M`] per grid
//! step (above 180 km/h) begins an epoch at every step.

use super::mobility::Mobility;
use crate::sim::NS_PER_MS;

/// The clock on which positions are looked at, ns (10 ms).
pub const GRID_STEP_NS: u64 = 10 * NS_PER_MS;

/// Path length between two evaluations of the large-scale channel, m. Well under the shortest
/// shadowing decorrelation distance of TR 38.901 Table 7.5-6 (6 m, InH NLOS; TR 36.814's and the
/// default 50 m), and TR 36.814 UMa NLOS's slope (43.42 - 3.1 log10 25 = 39.1 dB per decade at
/// 25 m, Table B.1.2.1-1) changes the path loss by at most 39.1 / ln 10 * 0.5 / 35 = 0.24 dB over
/// it beyond TR 36.814's 35 m minimum distance (Table A.2.1.1-2).
pub const LARGE_SCALE_STEP_M: f64 = 0.5;

/// A path length within this of [`LARGE_SCALE_STEP_M`] counts as reaching it, m: speeds of 3, 6,
/// 30 km/h move 0.5 m in exactly 60, 30, 6 grid steps, and the rounding of the summed lengths
/// (~1e-14 m) must not decide such a tie one way on one track and the other way on another.
const TIE_M: f64 = 1e-6;

/// Where a UE's path has been sampled to, and the epoch in force there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathSampler {
    /// The last grid step looked at, and the position then.
    step: u64,
    xy_m: [f64; 2],
    /// Path length since the current epoch began, m.
    since_m: f64,
    /// The current epoch: its number (0, 1, 2, ..), the grid step it began at, its position.
    epoch: u64,
    epoch_step: u64,
    epoch_xy_m: [f64; 2],
}

impl PathSampler {
    /// At grid step 0, the beginning of epoch 0.
    pub fn new(mobility: &mut Mobility) -> Self {
        let xy_m = mobility.position_m(0);
        PathSampler { step: 0, xy_m, since_m: 0.0, epoch: 0, epoch_step: 0, epoch_xy_m: xy_m }
    }

    /// The grid step containing `now_ns`.
    pub fn grid_step(now_ns: u64) -> u64 {
        now_ns / GRID_STEP_NS
    }

    /// The last grid step looked at.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The number of the epoch in force at [`Self::step`].
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The grid step the current epoch began at.
    pub fn epoch_step(&self) -> u64 {
        self.epoch_step
    }

    /// Where the current epoch began, m: where its large-scale channel is evaluated.
    pub fn epoch_xy_m(&self) -> [f64; 2] {
        self.epoch_xy_m
    }

    /// Look at the next grid step's position: `Some(path length since the last epoch began, m)`
    /// when it begins a new epoch, else `None`.
    pub fn next_step(&mut self, mobility: &mut Mobility) -> Option<f64> {
        self.step += 1;
        let xy = mobility.position_m(self.step * GRID_STEP_NS);
        self.since_m += (xy[0] - self.xy_m[0]).hypot(xy[1] - self.xy_m[1]);
        self.xy_m = xy;
        if self.since_m + TIE_M < LARGE_SCALE_STEP_M {
            return None;
        }
        let moved_m = self.since_m;
        self.since_m = 0.0;
        self.epoch += 1;
        self.epoch_step = self.step;
        self.epoch_xy_m = xy;
        Some(moved_m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::spec::MobilitySpec;
    use crate::sim::RngStream;

    /// The grid steps (1..=n) that begin an epoch on a straight line at `speed_kmh`.
    fn epoch_steps(speed_kmh: f64, heading_deg: f64, n: u64) -> Vec<u64> {
        let spec = MobilitySpec::ConstantVelocity { speed_kmh, heading_deg };
        let mut m = Mobility::new(&spec, [123.4, -56.7], RngStream::new(1, "m"));
        let mut s = PathSampler::new(&mut m);
        (1..=n).filter(|_| s.next_step(&mut m).is_some()).collect()
    }

    #[test]
    fn a_static_ue_stays_in_its_first_epoch() {
        let mut m = Mobility::new(&MobilitySpec::Static, [10.0, 20.0], RngStream::new(1, "m"));
        let mut s = PathSampler::new(&mut m);
        assert!((0..10_000).all(|_| s.next_step(&mut m).is_none()));
        assert_eq!((s.step(), s.epoch(), s.epoch_step(), s.epoch_xy_m()), (10_000, 0, 0, [10.0, 20.0]));
    }

    #[test]
    fn a_moving_ue_begins_an_epoch_every_ceil_step_over_its_grid_length() {
        // 1 m/s moves 1 cm a grid step: an epoch every 50 steps; 10 km/h (2.78 cm): every 18
        // (0.5 / 0.02778 = 18); 120 km/h (0.333 m): every 2; 300 km/h (0.833 m): every step.
        // 7 km/h (1.94 cm): ceil(25.7) = 26.
        for (kmh, every) in [(3.6, 50), (7.0, 26), (10.0, 18), (120.0, 2), (300.0, 1)] {
            let want: Vec<u64> = (1..=600 / every).map(|k| k * every).collect();
            assert_eq!(epoch_steps(kmh, 30.0, 600), want, "{kmh} km/h");
        }
    }

    #[test]
    fn a_tie_at_the_step_length_begins_the_epoch_whatever_the_rounding() {
        // 3, 6 and 30 km/h reach 0.5 m in exactly 60, 30 and 6 grid steps; the summed lengths
        // round to either side of 0.5 depending on the heading (the components' roundings): every
        // heading must decide the tie the same way, at the step that reaches it.
        for (kmh, every) in [(3.0, 60), (6.0, 30), (30.0, 6)] {
            let want: Vec<u64> = (1..=1200 / every).map(|k| k * every).collect();
            for heading_deg in [0.0, 17.0, 45.0, 90.0, 133.0, 200.0, 271.0] {
                assert_eq!(epoch_steps(kmh, heading_deg, 1200), want, "{kmh} km/h at {heading_deg} deg");
            }
        }
    }

    #[test]
    fn a_new_epoch_reports_the_path_since_the_last_and_its_position() {
        // 36 km/h east: 0.1 m a grid step, an epoch every 5 steps (0.5 m, a tie).
        let spec = MobilitySpec::ConstantVelocity { speed_kmh: 36.0, heading_deg: 0.0 };
        let mut m = Mobility::new(&spec, [0.0, 0.0], RngStream::new(1, "m"));
        let mut s = PathSampler::new(&mut m);
        let moved: Vec<Option<f64>> = (0..5).map(|_| s.next_step(&mut m)).collect();
        assert!(moved[..4].iter().all(Option::is_none));
        assert!((moved[4].expect("epoch 1") - 0.5).abs() < 1e-12);
        assert_eq!((s.epoch(), s.epoch_step()), (1, 5));
        assert!((s.epoch_xy_m()[0] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn shadowing_stepped_at_epochs_keeps_its_exponential_autocorrelation_over_distance() {
        // Gudmundson: corr(S(0), S(d)) = exp(-d / d_corr). 4000 independent tracks at 36 km/h
        // (0.1 m a grid step, an epoch every 5), 8 dB, d_corr 20 m, read at 5, 20 and 40 m.
        use crate::radio::shadowing::Shadowing;
        let (n, d_corr_m) = (4000, 20.0);
        let spec = MobilitySpec::ConstantVelocity { speed_kmh: 36.0, heading_deg: 60.0 };
        let reads = [50u64, 200, 400];
        let mut sums = [(0.0, 0.0, 0.0); 3];
        for i in 0..n {
            let mut m = Mobility::new(&spec, [0.0, 0.0], RngStream::new(11, "m"));
            let mut sh = Shadowing::new(8.0, d_corr_m, RngStream::new(11, &format!("sh{i}")));
            let mut s = PathSampler::new(&mut m);
            let first = sh.value_db();
            for (k, &at) in reads.iter().enumerate() {
                while s.step() < at {
                    if let Some(moved_m) = s.next_step(&mut m) {
                        sh.advance(moved_m);
                    }
                }
                let v = sh.value_db();
                sums[k] = (sums[k].0 + first * first, sums[k].1 + v * v, sums[k].2 + first * v);
            }
        }
        for (k, &at) in reads.iter().enumerate() {
            let (a2, b2, ab) = sums[k];
            let corr = ab / (a2 * b2).sqrt();
            let want = (-(at as f64) * 0.1 / d_corr_m).exp();
            // The standard error of a sample correlation is (1 - rho^2) / sqrt(n) (<= 0.016 here):
            // within 4 of them.
            let tol = 4.0 * (1.0 - want * want) / (n as f64).sqrt();
            assert!((corr - want).abs() < tol, "{} m: corr {corr}, want {want} +- {tol}", at as f64 * 0.1);
        }
    }
}
