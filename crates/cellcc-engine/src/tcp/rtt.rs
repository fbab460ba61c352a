//! Retransmission timer: SRTT/RTTVAR smoothing, Karn's algorithm (RFC 6298 §3:
//! callers never feed samples from retransmitted segments), exponential
//! back-off (§5.5) and the bounds. Two estimators:
//!
//! - [`RtoEstimator::Linux`] (default), Linux `tcp_rtt_estimator` + `tcp_set_rto`
//!   (net/ipv4/tcp_input.c): RTO = SRTT + RTTVAR where RTTVAR (4 x mean
//!   deviation) is held at least at `min_rto` and decays towards the largest
//!   deviation seen once per round trip, so RTO >= SRTT + min_rto. A falling RTT
//!   moves the deviation 8x more slowly than a rising one.
//! - [`RtoEstimator::Rfc6298`], ns-3's: RTO = max(SRTT + max(G, 4 RTTVAR), min_rto)
//!   per RFC 6298 §2, updated on every sample.
//!
//! The difference matters with deep queues: at 200 ms of queueing delay the RFC
//! timer runs barely longer than one RTT and expires during recovery, where
//! Linux's never does (docs/crosscheck.md).

pub use crate::scenario::RtoEstimator;
use crate::sim::{SimDuration, SimTime};

/// Linux TCP_TS_HZ (include/net/tcp.h): the TSval clock ticks once per millisecond.
const NS_PER_TS_TICK: u64 = 1_000_000;

/// Linux `tcp_rtt_tsopt_us` (net/ipv4/tcp_input.c): the time since an echoed timestamp in
/// whole ticks of the millisecond TSval clock (`tcp_time_stamp_ts`), `min_ticks` when no tick
/// has passed (the sender asks for one, the receiver's autotuning for none).
pub fn tsopt_rtt(now: SimTime, ts_ecr: SimTime, min_ticks: u64) -> SimDuration {
    let ticks = (now.as_ns() / NS_PER_TS_TICK).saturating_sub(ts_ecr.as_ns() / NS_PER_TS_TICK);
    SimDuration::from_ns(if ticks == 0 { min_ticks } else { ticks } * NS_PER_TS_TICK)
}

/// ns-3.44 `TcpOptionTS::ElapsedTimeFromTsValue` (tcp-option-ts.cc): the time since an echoed
/// timestamp in whole milliseconds of ns-3's TSval clock (`NowToTsValue`), and 1 µs when no
/// millisecond has passed (`TcpSocketBase::CalculateRttSample`: "approximating to 1us").
pub fn ns3_tsopt_rtt(now: SimTime, ts_ecr: SimTime) -> SimDuration {
    let ticks = (now.as_ns() / NS_PER_TS_TICK).saturating_sub(ts_ecr.as_ns() / NS_PER_TS_TICK);
    if ticks == 0 {
        SimDuration::from_us(1)
    } else {
        SimDuration::from_ns(ticks * NS_PER_TS_TICK)
    }
}

/// RFC 6298 §2.3: alpha = 1/8.
const ALPHA_SHIFT: u32 = 3;
/// RFC 6298 §2.3: beta = 1/4.
const BETA_SHIFT: u32 = 2;
/// RFC 6298 §2: K = 4.
const K: u64 = 4;
/// RFC 6298 §2 clock granularity G: the simulator's clock is exact, but
/// Linux's is a jiffy-ish 1 ms floor on the variance term; we follow RFC with G = 1 ms.
const CLOCK_GRANULARITY: SimDuration = SimDuration::from_ms(1);

/// Linux's estimator state, in ns, with Linux's scaling: `srtt8` = 8 x SRTT,
/// `mdev4`, `mdev_max4`, `rttvar4` = 4 x deviation (`tcp_sock` fields).
#[derive(Clone, Copy, Debug, Default)]
struct LinuxState {
    srtt8: i64,
    mdev4: i64,
    mdev_max4: i64,
    rttvar4: i64,
    /// `rtt_seq`: the deviation decays once `snd_una` passes it (once per RTT).
    rtt_seq: u64,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    kind: RtoEstimator,
    linux: LinuxState,
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    min_rtt: Option<SimDuration>,
    /// The least SRTT so far: ns-3's `m_tcb->m_minRtt` (`TcpSocketBase::EstimateRtt` takes the
    /// minimum of the smoothed RTT, not of the samples).
    min_srtt: Option<SimDuration>,
    latest: Option<SimDuration>,
    /// Number of consecutive back-offs applied since the last valid sample.
    backoffs: u32,
    /// The RTO with its back-off, set when a sample or a back-off changes it (Linux keeps
    /// `icsk_rto`, set by `tcp_set_rto` and the timer's back-off): read several times per ACK.
    rto: SimDuration,
    min_rto: SimDuration,
    max_rto: SimDuration,
    initial_rto: SimDuration,
}

impl RttEstimator {
    pub fn new(kind: RtoEstimator, initial_rto: SimDuration, min_rto: SimDuration, max_rto: SimDuration) -> Self {
        let mut e = RttEstimator {
            kind,
            linux: LinuxState::default(),
            srtt: None,
            rttvar: SimDuration::ZERO,
            min_rtt: None,
            min_srtt: None,
            latest: None,
            backoffs: 0,
            rto: initial_rto,
            min_rto,
            max_rto,
            initial_rto,
        };
        e.set_rto();
        e
    }

    /// Linux `tcp_update_rtt_min` takes the ACK's `ca_rtt_us` (its newest segment), which
    /// can be lower than the sample `on_sample` smooths (its oldest).
    pub fn note_min_rtt(&mut self, ca_rtt: SimDuration) {
        self.min_rtt = Some(self.min_rtt.map_or(ca_rtt, |m| m.min(ca_rtt)));
    }

    /// Feed one valid (Karn-safe) sample taken when the sender had `snd_una`
    /// acknowledged and `snd_nxt` sent. Clears the back-off (Karn, RFC 6298 §5.7).
    pub fn on_sample(&mut self, r: SimDuration, snd_una: u64, snd_nxt: u64) {
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.backoffs = 0;
        match self.kind {
            RtoEstimator::Linux => self.linux_sample(r.as_ns() as i64, snd_una, snd_nxt),
            RtoEstimator::Rfc6298 => self.rfc_sample(r),
        }
        self.min_srtt = self.srtt.map(|s| self.min_srtt.map_or(s, |m| m.min(s)));
        self.set_rto();
    }

    /// Linux `tcp_rtt_estimator` (Jacobson's algorithm with Linux's changes).
    fn linux_sample(&mut self, mut m: i64, snd_una: u64, snd_nxt: u64) {
        let rto_min = self.min_rto.as_ns() as i64;
        let l = &mut self.linux;
        if self.srtt.is_none() {
            l.srtt8 = m << 3;
            l.mdev4 = m << 1;
            l.rttvar4 = l.mdev4.max(rto_min);
            l.mdev_max4 = l.rttvar4;
            l.rtt_seq = snd_nxt;
        } else {
            m -= l.srtt8 >> 3;
            l.srtt8 += m;
            if m < 0 {
                // A falling RTT: damp its effect on the deviation by 8.
                m = -m - (l.mdev4 >> 2);
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= l.mdev4 >> 2;
            }
            l.mdev4 += m;
            if l.mdev4 > l.mdev_max4 {
                l.mdev_max4 = l.mdev4;
                l.rttvar4 = l.rttvar4.max(l.mdev_max4);
            }
            if snd_una > l.rtt_seq {
                if l.mdev_max4 < l.rttvar4 {
                    l.rttvar4 -= (l.rttvar4 - l.mdev_max4) >> 2;
                }
                l.rtt_seq = snd_nxt;
                l.mdev_max4 = rto_min;
            }
        }
        self.srtt = Some(SimDuration((l.srtt8 >> 3).max(1) as u64));
        self.rttvar = SimDuration((l.rttvar4 >> 2) as u64);
    }

    /// RFC 6298 §2.2-2.3.
    fn rfc_sample(&mut self, r: SimDuration) {
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
    }

    /// RTO without back-off: Linux `__tcp_set_rto` (SRTT + RTTVAR), or RFC 6298
    /// §2.2-2.4 (SRTT + max(G, K*RTTVAR), at least `min_rto`); at most `max_rto`.
    pub fn base_rto(&self) -> SimDuration {
        let Some(srtt) = self.srtt else { return self.initial_rto };
        let rto = match self.kind {
            RtoEstimator::Linux => SimDuration(((self.linux.srtt8 >> 3) + self.linux.rttvar4) as u64),
            RtoEstimator::Rfc6298 => {
                let var = (self.rttvar.0 * K).max(CLOCK_GRANULARITY.0);
                SimDuration(srtt.0 + var).max(self.min_rto)
            }
        };
        rto.min(self.max_rto)
    }

    /// Current RTO including back-off (§5.5: doubled per expiry, capped at max).
    #[inline]
    pub fn rto(&self) -> SimDuration {
        self.rto
    }

    /// The RTO from the estimator's state: `base_rto` doubled per back-off, at most `max_rto`.
    fn backed_off_rto(&self) -> SimDuration {
        let base = self.base_rto().0;
        SimDuration(base.saturating_mul(1u64 << self.backoffs.min(32))).min(self.max_rto)
    }

    /// Every change to the SRTT, the deviation or the back-off ends here.
    fn set_rto(&mut self) {
        self.rto = self.backed_off_rto();
    }

    /// §5.5: the timer expired; the next RTO is twice as long.
    pub fn back_off(&mut self) {
        self.backoffs += 1;
        self.set_rto();
    }

    /// The back-off ends without a sample: ns-3.44 `TcpSocketBase::NewAck` recomputes the RTO
    /// from SRTT and RTTVAR on every ACK that restarts the timer.
    pub fn clear_backoff(&mut self) {
        self.backoffs = 0;
        self.set_rto();
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
    pub fn min_srtt(&self) -> Option<SimDuration> {
        self.min_srtt
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
        RttEstimator::new(
            RtoEstimator::Rfc6298,
            SimDuration::from_secs(1),
            SimDuration::from_ms(200),
            SimDuration::from_secs(120),
        )
    }

    fn linux() -> RttEstimator {
        RttEstimator::new(
            RtoEstimator::Linux,
            SimDuration::from_secs(1),
            SimDuration::from_ms(200),
            SimDuration::from_secs(120),
        )
    }

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_ms(x)
    }

    #[test]
    fn the_rto_kept_is_the_one_the_state_gives_after_every_change() {
        for mut e in [linux(), est()] {
            assert_eq!(e.rto(), SimDuration::from_secs(1));
            let steps: [&dyn Fn(&mut RttEstimator); 8] = [
                &|e| e.on_sample(ms(100), 0, 10),
                &|e| e.on_sample(ms(300), 10, 20),
                &|e| e.back_off(),
                &|e| e.back_off(),
                &|e| e.clear_backoff(),
                &|e| e.note_min_rtt(ms(50)),
                &|e| e.on_sample(ms(40), 30, 40),
                &|e| (0..40).for_each(|_| e.back_off()),
            ];
            for step in steps {
                step(&mut e);
                assert_eq!(e.rto(), e.backed_off_rto());
            }
            // 40 back-offs: capped at max_rto.
            assert_eq!(e.rto(), SimDuration::from_secs(120));
        }
    }

    #[test]
    fn linux_first_sample_gives_srtt_plus_max_of_two_rtt_and_rto_min() {
        let mut e = linux();
        e.on_sample(ms(100), 0, 10);
        // srtt 100; rttvar = max(2 x 100, 200) = 200 -> RTO 300 ms.
        assert_eq!(e.rto(), ms(300));
        let mut small = linux();
        small.on_sample(ms(10), 0, 10);
        // rttvar = max(20, 200) = 200 -> RTO 210 ms: the floor is on the variance, not the RTO.
        assert_eq!(small.rto(), ms(210));
    }

    #[test]
    fn linux_rto_tracks_a_queue_that_builds_up_with_rto_min_of_headroom() {
        // RTT rising 40 -> 240 ms in 10 ms steps, one sample per round trip (snd_una
        // passes rtt_seq each time). RFC 6298 ends near SRTT + 4 x RTTVAR with small
        // deviations; Linux keeps RTTVAR >= rto_min, so RTO >= SRTT + 200 ms throughout.
        let (mut l, mut r) = (linux(), est());
        for (i, rtt) in (40..=240).step_by(10).enumerate() {
            let seq = i as u64 * 10;
            l.on_sample(ms(rtt), seq + 1, seq + 10);
            r.on_sample(ms(rtt), seq + 1, seq + 10);
            let srtt = l.srtt().unwrap();
            assert!(l.rto() >= srtt + ms(200), "at rtt {rtt}: rto {} srtt {}", l.rto(), srtt);
        }
        assert!(l.rto() > r.rto(), "linux {} vs rfc {}", l.rto(), r.rto());
    }

    #[test]
    fn linux_deviation_falls_slowly_when_rtt_drops() {
        let mut e = linux();
        e.on_sample(ms(400), 0, 10);
        let before = e.rto();
        e.on_sample(ms(100), 0, 20);
        // srtt: 400 + (100 - 400)/8 = 362.5; the falling sample barely moves rttvar (held at 800).
        assert_eq!(e.srtt(), Some(SimDuration::from_us(362_500)));
        assert!(e.rto() < before && e.rto() > ms(1000));
    }

    #[test]
    fn initial_rto_is_one_second() {
        assert_eq!(est().rto(), SimDuration::from_secs(1));
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        e.on_sample(SimDuration::from_ms(100), 0, 0);
        // RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(e.rto(), SimDuration::from_ms(300));
    }

    #[test]
    fn second_sample_smooths_with_one_eighth_and_one_quarter() {
        let mut e = est();
        e.on_sample(SimDuration::from_ms(100), 0, 0);
        e.on_sample(SimDuration::from_ms(200), 0, 0);
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5; RTO = 112.5 + 250 = 362.5 ms.
        assert_eq!(e.srtt(), Some(SimDuration::from_us(112_500)));
        assert_eq!(e.rto(), SimDuration::from_us(362_500));
    }

    #[test]
    fn min_rto_floors_small_rtts() {
        let mut e = est();
        e.on_sample(SimDuration::from_ms(10), 0, 0);
        assert_eq!(e.rto(), SimDuration::from_ms(200));
    }

    #[test]
    fn ns3_timestamp_samples_are_whole_milliseconds_or_one_microsecond() {
        let t = |us: u64| SimTime::ZERO + SimDuration::from_us(us);
        // Sent at 10.9 ms, ACKed at 51.2 ms: ns-3's clocks read 10 and 51: 41 ms (Linux: 41 too).
        assert_eq!(ns3_tsopt_rtt(t(51_200), t(10_900)), ms(41));
        // Within one millisecond: 1 µs, where Linux's sender takes one tick.
        assert_eq!(ns3_tsopt_rtt(t(10_950), t(10_900)), SimDuration::from_us(1));
        assert_eq!(tsopt_rtt(t(10_950), t(10_900), 1), ms(1));
    }

    #[test]
    fn min_srtt_is_the_least_smoothed_value_not_the_least_sample() {
        let mut e = est();
        e.on_sample(ms(100), 0, 0);
        e.on_sample(ms(20), 0, 0);
        // SRTT 100 then 90: ns-3's m_minRtt is 90 where the least sample is 20.
        assert_eq!((e.min_srtt(), e.min_rtt()), (Some(ms(90)), Some(ms(20))));
    }

    #[test]
    fn back_off_doubles_until_max_and_a_sample_resets_it() {
        let mut e = est();
        e.on_sample(SimDuration::from_ms(100), 0, 0);
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
        e.on_sample(SimDuration::from_ms(100), 0, 0);
        assert_eq!(e.backoffs(), 0);
    }
}
