//! HyStart (hybrid slow start): Ha & Rhee, "Taming the elephants: New TCP slow start", Computer Networks 2011; Linux net/ipv4/tcp_cubic.c (hystart_update).
//!
//! Slow start doubles cwnd each round until a loss, often overshooting the
//! path by a whole window. HyStart ends it earlier, setting ssthresh = cwnd,
//! on either of two signs that the pipe is full, checked once cwnd reaches
//! `low_window`:
//!
//! ```text
//!  ACK train: ACKs of one round arrive closely spaced (each within ack_delta
//!             of the last) for longer than delay_min / 2  -> cwnd ~ BDP
//!  Delay:     the smallest RTT of the round's first 8 samples exceeds
//!             delay_min + eta, eta = clamp(delay_min / 8, 4 ms, 16 ms) -> a queue builds
//! ```
//!
//! A round starts when `snd_una` passes the `snd_nxt` recorded at the start
//! of the previous one (one RTT of data). Rounds are tracked below
//! `low_window` too, as the kernel does since 2025 (commit 25c1a9ca53db):
//! the detectors then measure from the true start of the round in which cwnd
//! reaches `low_window`, not from the first ACK at that cwnd.
//!
//! Differences from Linux: times are `conn.now` and RTTs in ns rather than
//! the µs clock (`tcp_mstamp`), so thresholds are exact rather than rounded
//! to µs. The ACK-train threshold has no TSO/GRO cushion
//! (`hystart_ack_delay`, which is `min(1 ms, 4 x GSO size / pacing rate)`),
//! since the simulator sends neither TSO nor GRO aggregates, and is halved as
//! Linux does when the flow is not paced (`SK_PACING_NONE`, CUBIC's case).

use super::ConnView;
use crate::sim::{SimDuration, SimTime};

/// Linux `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
const MIN_SAMPLES: u8 = 8;
/// Linux `HYSTART_DELAY_MIN`: eta is at least 4 ms.
const DELAY_THRESH_MIN: SimDuration = SimDuration::from_ms(4);
/// Linux `HYSTART_DELAY_MAX`: eta is at most 16 ms.
const DELAY_THRESH_MAX: SimDuration = SimDuration::from_ms(16);
/// Linux `HYSTART_DELAY_THRESH(delay_min >> 3)`: eta = delay_min / 8 before clamping.
const DELAY_THRESH_SHIFT: u32 = 3;

/// Which detectors run and when (tcp_cubic module parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Linux `hystart_detect & HYSTART_ACK_TRAIN`.
    pub ack_train: bool,
    /// Linux `hystart_detect & HYSTART_DELAY`.
    pub delay: bool,
    /// Linux `hystart_low_window`: no detection below this cwnd (segments).
    pub low_window: u32,
    /// Linux `hystart_ack_delta_us`: largest ACK spacing that continues a train.
    pub ack_delta: SimDuration,
}

/// What ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

/// One round of the search (Linux `round_start`, `end_seq`, `last_ack`, `curr_rtt`, `sample_cnt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Round {
    start: SimTime,
    /// The round ends when `snd_una` passes this byte.
    end_seq: u64,
    /// Arrival of the last ACK of the current train.
    last_ack: SimTime,
    /// Smallest RTT seen this round.
    curr_rtt: Option<SimDuration>,
    samples: u8,
}

impl Round {
    fn begin(now: SimTime, snd_nxt: u64) -> Self {
        Round { start: now, end_seq: snd_nxt, last_ack: now, curr_rtt: None, samples: 0 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Searching(Round),
    /// Linux `found`: slow start has been ended; nothing more until a timeout restarts the search.
    Found(Exit),
}

#[derive(Clone, Debug)]
pub struct HyStart {
    params: Params,
    phase: Phase,
}

impl HyStart {
    /// A search whose first round ends at the first ACK of data (Linux `cubictcp_init`
    /// with `snd_nxt` at the ISN).
    pub fn new(params: Params) -> Self {
        HyStart { params, phase: Phase::Searching(Round::begin(SimTime::ZERO, 0)) }
    }

    /// Linux `bictcp_hystart_reset` with `found = 0`: search again from a round starting now.
    pub fn restart(&mut self, conn: &ConnView) {
        self.phase = Phase::Searching(Round::begin(conn.now, conn.snd_nxt));
    }

    /// What ended slow start, if HyStart did.
    pub fn exit(&self) -> Option<Exit> {
        match self.phase {
            Phase::Found(e) => Some(e),
            Phase::Searching(_) => None,
        }
    }

    /// Linux `hystart_update` behind `cubictcp_acked`'s guard: one RTT sample
    /// `delay` with the path's `delay_min`. Returns the exit when slow start
    /// should end now; the caller then sets ssthresh = cwnd.
    pub fn on_ack(&mut self, conn: &ConnView, cwnd: u32, delay: SimDuration, delay_min: SimDuration) -> Option<Exit> {
        let Phase::Searching(round) = &mut self.phase else {
            return None;
        };
        // Linux commit 25c1a9ca53db ("tcp_cubic: fix incorrect HyStart round start
        // detection", 2025): rounds are tracked at every cwnd, the low-window check comes after.
        if conn.snd_una > round.end_seq {
            *round = Round::begin(conn.now, conn.snd_nxt);
        }
        if cwnd < self.params.low_window {
            return None;
        }
        let mut exit = None;
        if self.params.ack_train && Self::ack_train_too_long(round, conn.now, self.params.ack_delta, delay_min) {
            exit = Some(Exit::AckTrain);
        }
        if self.params.delay && Self::round_delay_increased(round, delay, delay_min) {
            exit = exit.or(Some(Exit::Delay));
        }
        if let Some(e) = exit {
            self.phase = Phase::Found(e);
        }
        exit
    }

    /// Does the train of closely spaced ACKs this round span more than delay_min / 2?
    fn ack_train_too_long(round: &mut Round, now: SimTime, ack_delta: SimDuration, delay_min: SimDuration) -> bool {
        if now.saturating_since(round.last_ack) > ack_delta {
            return false;
        }
        round.last_ack = now;
        let threshold = SimDuration::from_ns(delay_min.as_ns() >> 1);
        now.saturating_since(round.start) > threshold
    }

    /// Has the round's minimum RTT (after MIN_SAMPLES samples) risen above delay_min + eta?
    fn round_delay_increased(round: &mut Round, delay: SimDuration, delay_min: SimDuration) -> bool {
        let curr = round.curr_rtt.map_or(delay, |c| c.min(delay));
        round.curr_rtt = Some(curr);
        if round.samples < MIN_SAMPLES {
            round.samples += 1;
            return false;
        }
        let eta =
            SimDuration::from_ns(delay_min.as_ns() >> DELAY_THRESH_SHIFT).clamp(DELAY_THRESH_MIN, DELAY_THRESH_MAX);
        curr > delay_min + eta
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{conn, MSS};
    use super::*;

    fn params() -> Params {
        Params { ack_train: true, delay: true, low_window: 16, ack_delta: SimDuration::from_us(2000) }
    }

    /// The k-th ACK of a round that started with snd_nxt far ahead, at `now_us`.
    fn view(now_us: u64, k: u64) -> ConnView {
        let mut c = conn(0, 100);
        c.now = SimTime(now_us * 1000);
        c.snd_una = k * MSS as u64;
        c.snd_nxt = 1_000_000 * MSS as u64;
        c
    }

    #[test]
    fn eta_is_an_eighth_of_delay_min_clamped_to_4_and_16_ms() {
        // delay_min 100 ms: eta = 12.5 ms -> threshold 112.5 ms.
        // delay_min 20 ms: 2.5 ms -> 4 ms; 200 ms: 25 ms -> 16 ms.
        for (min_ms, eta_us) in [(100, 12_500), (20, 4_000), (200, 16_000)] {
            let min = SimDuration::from_ms(min_ms);
            let over = |extra_us: u64| {
                let mut h = HyStart::new(Params { ack_train: false, ..params() });
                let rtt = min + SimDuration::from_us(extra_us);
                (1..=9).map(|k| h.on_ack(&view(k * 5000, k), 16, rtt, min)).last().flatten()
            };
            assert_eq!(over(eta_us), None, "delay_min {min_ms} ms at eta");
            assert_eq!(over(eta_us + 1), Some(Exit::Delay), "delay_min {min_ms} ms above eta");
        }
    }

    #[test]
    fn delay_test_waits_for_eight_samples() {
        let mut h = HyStart::new(Params { ack_train: false, ..params() });
        let min = SimDuration::from_ms(100);
        let high = SimDuration::from_ms(120);
        for k in 1..=8 {
            assert_eq!(h.on_ack(&view(k * 5000, k), 16, high, min), None, "sample {k}");
        }
        assert_eq!(h.on_ack(&view(45_000, 9), 16, high, min), Some(Exit::Delay));
        assert_eq!(h.exit(), Some(Exit::Delay));
    }

    #[test]
    fn ack_train_longer_than_half_delay_min_ends_slow_start() {
        // ACKs every 1 ms (< 2 ms): the train passes delay_min / 2 = 50 ms at the ACK 51 ms after
        // the round started.
        let mut h = HyStart::new(Params { delay: false, ..params() });
        let min = SimDuration::from_ms(100);
        for k in 0..=50 {
            assert_eq!(h.on_ack(&view(1_000_000 + k * 1000, k + 1), 16, min, min), None, "ACK {k}");
        }
        assert_eq!(h.on_ack(&view(1_051_000, 52), 16, min, min), Some(Exit::AckTrain));
    }

    #[test]
    fn widely_spaced_acks_are_no_train() {
        let mut h = HyStart::new(Params { delay: false, ..params() });
        let min = SimDuration::from_ms(100);
        for k in 0..100 {
            assert_eq!(h.on_ack(&view(1_000_000 + k * 2001, k + 1), 16, min, min), None);
        }
    }

    #[test]
    fn nothing_happens_below_low_window() {
        let mut h = HyStart::new(params());
        let (min, high) = (SimDuration::from_ms(100), SimDuration::from_ms(200));
        for k in 1..=20 {
            assert_eq!(h.on_ack(&view(k * 5000, k), 15, high, min), None);
        }
    }

    #[test]
    fn a_round_that_began_below_low_window_is_not_restarted_when_cwnd_reaches_it() {
        // ACKs 1 ms apart in one round; cwnd 10 for the first ten, 16 after. delay_min
        // 20 ms: the train must span 10 ms from the round start. The round started at the
        // first ACK (t = 0); ACKs below low_window do not extend the train, so at t = 10 ms
        // the gap since it is 10 ms > ack_delta 2 ms: no train this round. (The old order
        // restarted the round at t = 10 ms and exited at t = 21 ms.)
        let mut h = HyStart::new(Params { delay: false, ..params() });
        let min = SimDuration::from_ms(20);
        for k in 0..60 {
            let cwnd = if k < 10 { 10 } else { 16 };
            assert_eq!(h.on_ack(&view(k * 1000, k + 1), cwnd, min, min), None, "ACK at {k} ms");
        }
    }

    #[test]
    fn a_new_round_forgets_the_previous_rounds_samples() {
        // Eight high samples, then snd_una passes end_seq: the ninth sample opens a new round
        // and counts as its first.
        let mut h = HyStart::new(Params { ack_train: false, ..params() });
        let (min, high) = (SimDuration::from_ms(100), SimDuration::from_ms(120));
        for k in 1..=8 {
            h.on_ack(&view(k * 5000, k), 16, high, min);
        }
        let mut next_round = view(45_000, 2_000_000);
        next_round.snd_nxt = 3_000_000 * MSS as u64;
        assert_eq!(h.on_ack(&next_round, 16, high, min), None);
    }
}
