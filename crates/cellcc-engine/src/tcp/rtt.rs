//! Retransmission timer per RFC 6298: SRTT/RTTVAR smoothing (§2), Karn's
//! algorithm (§3: callers never feed samples from retransmitted segments),
//! exponential back-off (§5.5) and the min/max bounds (§2.4, Linux TCP_RTO_MIN/MAX).

use crate::sim::SimDuration;

/// RFC 6298 §2.3: alpha = 1/8.
const ALPHA_SHIFT: u32 = 3;
/// RFC 6298 §2.3: beta = 1/4.
const BETA_SHIFT: u32 = 2;
/// RFC 6298 §2: K = 4.
const K: u64 = 4;
/// RFC 6298 §2 clock granularity G: the simulator's clock is exact, but
/// Linux's is a jiffy-ish 1 ms floor on the variance term; we follow RFC with G = 1 ms.
const CLOCK_GRANULARITY: SimDuration = SimDuration::from_ms(1);

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    min_rtt: Option<SimDuration>,
    latest: Option<SimDuration>,
    /// Number of consecutive back-offs applied since the last valid sample.
    backoffs: u32,
    min_rto: SimDuration,
    max_rto: SimDuration,
    initial_rto: SimDuration,
}

impl RttEstimator {
    pub fn new(initial_rto: SimDuration, min_rto: SimDuration, max_rto: SimDuration) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: SimDuration::ZERO,
            min_rtt: None,
            latest: None,
            backoffs: 0,
            min_rto,
            max_rto,
            initial_rto,
        }
    }

    /// Feed one valid (Karn-safe) sample. Clears the back-off (RFC 6298 §5.7 note on Karn).
    pub fn on_sample(&mut self, r: SimDuration) {
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        match self.srtt {
            // §2.2: first measurement.
            None => {
                self.srtt = Some(r);
                self.rttvar = SimDuration(r.0 / 2);
            }
            // §2.3: RTTVAR <- (1 - beta) RTTVAR + beta |SRTT - R'|; SRTT <- (1 - alpha) SRTT + alpha R'.
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = SimDuration(self.rttvar.0 - (self.rttvar.0 >> BETA_SHIFT) + (err >> BETA_SHIFT));
                self.srtt = Some(SimDuration(srtt.0 - (srtt.0 >> ALPHA_SHIFT) + (r.0 >> ALPHA_SHIFT)));
            }
        }
        self.backoffs = 0;
    }

    /// RTO without back-off: SRTT + max(G, K*RTTVAR), clamped (§2.2-2.4).
    pub fn base_rto(&self) -> SimDuration {
        match self.srtt {
            None => self.initial_rto,
            Some(srtt) => {
                let var = (self.rttvar.0 * K).max(CLOCK_GRANULARITY.0);
                SimDuration(srtt.0 + var).max(self.min_rto).min(self.max_rto)
            }
        }
    }

    /// Current RTO including back-off (§5.5: doubled per expiry, capped at max).
    pub fn rto(&self) -> SimDuration {
        let base = self.base_rto().0;
        SimDuration(base.saturating_mul(1u64 << self.backoffs.min(32))).min(self.max_rto)
    }

    /// §5.5: the timer expired; the next RTO is twice as long.
    pub fn back_off(&mut self) {
        self.backoffs += 1;
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt
    }
    pub fn rttvar(&self) -> SimDuration {
        self.rttvar
    }
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt
    }
    pub fn latest(&self) -> Option<SimDuration> {
        self.latest
    }
    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(SimDuration::from_secs(1), SimDuration::from_ms(200), SimDuration::from_secs(120))
    }

    #[test]
    fn initial_rto_is_one_second() {
        assert_eq!(est().rto(), SimDuration::from_secs(1));
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        e.on_sample(SimDuration::from_ms(100));
        // RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(e.rto(), SimDuration::from_ms(300));
    }

    #[test]
    fn second_sample_smooths_with_one_eighth_and_one_quarter() {
        let mut e = est();
        e.on_sample(SimDuration::from_ms(100));
        e.on_sample(SimDuration::from_ms(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5; RTO = 112.5 + 250 = 362.5 ms.
        assert_eq!(e.srtt(), Some(SimDuration::from_us(112_500)));
        assert_eq!(e.rto(), SimDuration::from_us(362_500));
    }

    #[test]
    fn min_rto_floors_small_rtts() {
        let mut e = est();
        e.on_sample(SimDuration::from_ms(10));
        assert_eq!(e.rto(), SimDuration::from_ms(200));
    }

    #[test]
    fn back_off_doubles_until_max_and_a_sample_resets_it() {
        let mut e = est();
        e.on_sample(SimDuration::from_ms(100));
        let seq: Vec<u64> = (0..4)
            .map(|_| {
                let r = e.rto().0 / 1_000_000;
                e.back_off();
                r
            })
            .collect();
        assert_eq!(seq, vec![300, 600, 1200, 2400]);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(120));
        e.on_sample(SimDuration::from_ms(100));
        assert_eq!(e.backoffs(), 0);
    }
}
