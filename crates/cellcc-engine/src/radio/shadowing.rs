//! Log-normal shadowing correlated along the UE's track.
//!
//! Gudmundson, "Correlation model for shadow fading in mobile radio systems",
//! Electronics Letters 27(23), 1991: the shadowing S (dB) seen by a moving UE is a
//! Gauss-Markov process in the distance travelled with autocorrelation
//! `sigma^2 exp(-|dx| / d_corr)`. Sampled at points of the track, each step is
//! `S' = rho S + sqrt(1 - rho^2) sigma N(0, 1)` with `rho = exp(-step / d_corr)`,
//! which reproduces that correlation exactly whatever the step lengths: one step over
//! D is the same process as many over pieces of D, read at fewer points.
//! The caller steps it at the path sampler's epochs (`radio::track`, every 0.5 m
//! travelled) by the path length since the last, so the value at a time does not
//! depend on when the PHY asked.

use crate::sim::RngStream;
use rand_distr::{Distribution, StandardNormal};

/// One link's shadowing process.
pub struct Shadowing {
    sigma_db: f64,
    decorrelation_m: f64,
    value_db: f64,
    rng: RngStream,
}

impl Shadowing {
    /// Draw the initial value (at the UE's start position) from N(0, sigma^2).
    pub fn new(sigma_db: f64, decorrelation_m: f64, mut rng: RngStream) -> Self {
        let z: f64 = StandardNormal.sample(rng.inner());
        Shadowing { sigma_db, decorrelation_m, value_db: sigma_db * z, rng }
    }

    /// One Gauss-Markov step over `moved_m` metres (no draw when the UE stood still: rho = 1).
    pub fn advance(&mut self, moved_m: f64) {
        Shadowing::advance_all(std::slice::from_mut(self), moved_m);
    }

    /// [`Shadowing::advance`] of every process in `all` by the same `moved_m` (a UE's links):
    /// the correlation `rho` and the innovation's scale are computed once per decorrelation
    /// distance instead of once per link; the same arithmetic, so the same values.
    pub fn advance_all(all: &mut [Shadowing], moved_m: f64) {
        if moved_m <= 0.0 {
            return;
        }
        let mut memo: Option<(f64, f64, f64)> = None;
        for s in all {
            let (rho, scale) = match memo {
                Some((dc, rho, scale)) if dc == s.decorrelation_m => (rho, scale),
                _ => {
                    let rho = (-moved_m / s.decorrelation_m).exp();
                    let scale = (1.0 - rho * rho).sqrt();
                    memo = Some((s.decorrelation_m, rho, scale));
                    (rho, scale)
                }
            };
            let z: f64 = StandardNormal.sample(s.rng.inner());
            s.value_db = rho * s.value_db + scale * s.sigma_db * z;
        }
    }

    pub fn value_db(&self) -> f64 {
        self.value_db
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Many independent tracks, each sampled at 0 and after moving `d` in small steps.
    fn pairs(d_m: f64, n: usize) -> Vec<(f64, f64)> {
        (0..n)
            .map(|i| {
                let mut s = Shadowing::new(8.0, 50.0, RngStream::new(7, &format!("sh{i}")));
                let first = s.value_db();
                for _ in 0..10 {
                    s.advance(d_m / 10.0);
                }
                (first, s.value_db())
            })
            .collect()
    }

    #[test]
    fn shadowing_has_the_configured_sigma_and_exponential_correlation() {
        let n = 4000;
        for d in [10.0, 50.0, 100.0] {
            let p = pairs(d, n);
            let var0 = p.iter().map(|(a, _)| a * a).sum::<f64>() / n as f64;
            let var1 = p.iter().map(|(_, b)| b * b).sum::<f64>() / n as f64;
            let corr = p.iter().map(|(a, b)| a * b).sum::<f64>() / n as f64 / (var0 * var1).sqrt();
            // Gudmundson: rho(d) = exp(-d / 50): 0.8187, 0.3679, 0.1353. The standard error of a
            // correlation from 4000 pairs is about (1 - rho^2)/sqrt(n) <= 0.016; allow 0.05.
            let want = (-d / 50.0_f64).exp();
            assert!((corr - want).abs() < 0.05, "d = {d}: corr {corr} vs {want}");
            // sigma 8 dB: variance 64 within 3 standard errors (64 sqrt(2/n) = 1.43).
            assert!((var1 - 64.0).abs() < 5.0, "variance {var1}");
        }
    }

    #[test]
    fn a_static_ue_keeps_its_shadowing() {
        let mut s = Shadowing::new(8.0, 50.0, RngStream::new(1, "x"));
        let v = s.value_db();
        s.advance(0.0);
        assert_eq!(s.value_db(), v);
    }

    #[test]
    fn the_same_seed_gives_the_same_track_and_another_label_another() {
        let track = |label: &str| {
            let mut s = Shadowing::new(8.0, 50.0, RngStream::new(3, label));
            (0..50)
                .map(|_| {
                    s.advance(0.5);
                    s.value_db()
                })
                .collect::<Vec<f64>>()
        };
        assert_eq!(track("a"), track("a"));
        assert_ne!(track("a"), track("b"));
    }
}
