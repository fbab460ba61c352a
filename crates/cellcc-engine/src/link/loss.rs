//! Random loss on a link direction: Bernoulli, or Gilbert-Elliott two-state
//! Markov loss (E. N. Gilbert, Bell Syst. Tech. J. 1960; E. O. Elliott, 1963).

use crate::scenario::LossSpec;
use crate::sim::RngStream;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeState {
    Good,
    Bad,
}

pub enum LossModel {
    None,
    Bernoulli { p: f64 },
    GilbertElliott { p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64, state: GeState },
}

impl LossModel {
    pub fn from_spec(spec: &LossSpec) -> Self {
        match *spec {
            LossSpec::None => LossModel::None,
            LossSpec::Bernoulli { p } => LossModel::Bernoulli { p },
            LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                LossModel::GilbertElliott {
                    p_gb: p_good_to_bad,
                    p_bg: p_bad_to_good,
                    loss_good,
                    loss_bad,
                    state: GeState::Good,
                }
            }
        }
    }

    /// Decide one packet's fate; true = lost. Steps the Markov chain once per packet.
    /// A lossless link (most of them) answers in its caller: no call and no draw per packet.
    #[inline(always)]
    pub fn lose(&mut self, rng: &mut RngStream) -> bool {
        match self {
            LossModel::None => false,
            random => random.draw(rng),
        }
    }

    /// The random models' draw: one Bernoulli trial, or one step of the Markov chain and a trial
    /// in its new state.
    fn draw(&mut self, rng: &mut RngStream) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => rng.bernoulli(*p),
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad, state } => {
                *state = match *state {
                    GeState::Good if rng.bernoulli(*p_gb) => GeState::Bad,
                    GeState::Bad if rng.bernoulli(*p_bg) => GeState::Good,
                    s => s,
                };
                rng.bernoulli(if *state == GeState::Good { *loss_good } else { *loss_bad })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lossless_link_loses_nothing_and_draws_nothing() {
        let (mut m, mut rng, mut fresh) = (LossModel::None, RngStream::new(3, "t"), RngStream::new(3, "t"));
        assert!((0..1000).all(|_| !m.lose(&mut rng)));
        assert_eq!(rng.uniform(), fresh.uniform(), "the stream moved");
    }

    #[test]
    fn bernoulli_rate_matches_p() {
        let mut m = LossModel::Bernoulli { p: 0.01 };
        let mut rng = RngStream::new(1, "t");
        let n = 200_000;
        let lost = (0..n).filter(|_| m.lose(&mut rng)).count() as f64;
        // Binomial sd = sqrt(n p (1-p)) = 44.5; allow 5 sd.
        assert!((lost - 2000.0).abs() < 5.0 * 44.5, "lost {lost}");
    }

    #[test]
    fn gilbert_elliott_stationary_loss_is_pi_bad() {
        // pi_bad = p_gb / (p_gb + p_bg) = 0.01 / 0.11; loss_bad = 1, loss_good = 0.
        let mut m = LossModel::from_spec(&LossSpec::GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.1,
            loss_good: 0.0,
            loss_bad: 1.0,
        });
        let mut rng = RngStream::new(2, "t");
        let n = 400_000;
        let rate = (0..n).filter(|_| m.lose(&mut rng)).count() as f64 / n as f64;
        assert!((rate - 0.01 / 0.11).abs() < 0.01, "rate {rate}");
    }
}
