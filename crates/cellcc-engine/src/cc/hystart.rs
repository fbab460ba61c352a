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
//! The ACK-train threshold is (delay_min + `hystart_ack_delay`) / 2, as Linux
//! since v5.7: the TSO/GRO cushion `min(1 ms, 4 x sk_gso_max_size / sk_pacing_rate)`
//! is added, and the sum is halved only when nothing paces the flow
//! (`SK_PACING_NONE`, CUBIC's case without fq). Linux adds the cushion whatever
//! aggregates are actually sent; its `sk_gso_max_size` is the device's (the
//! crosscheck's TUN, 65,279 B), so the cushion is the full 1 ms below ~2 Gbit/s.
//!
//! Differences from Linux: times are `conn.now` and RTTs in ns rather than
//! the µs clock (`tcp_mstamp`), so thresholds are exact rather than rounded
//! to µs; the pacing rate is the one of this ACK's view, where Linux reads the
//! rate `tcp_update_pacing_rate` left at the previous ACK (the same while the
//! 1-ms cap holds).

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
/// Linux `hystart_ack_delay` (tcp_cubic.c): the cushion is capped at `USEC_PER_MSEC`.
const ACK_DELAY_MAX: SimDuration = SimDuration::from_ms(1);
/// Linux `hystart_ack_delay`: time for 4 GSO packets at the pacing rate ("at least one TSO
/// packet being sent and received by GRO, and another one in qdisc layer", doubled).
const ACK_DELAY_GSO_PACKETS: u64 = 4;
/// Linux `sk_gso_max_size` of a TCP socket over a TUN device (net/core/sock.c
/// `sk_dst_gso_max_size`): the device's `gso_ipv4_max_size`, GSO_LEGACY_MAX_SIZE = 65536,
/// less `MAX_TCP_HEADER + 1` (`tcp::tso::SK_GSO_MAX_BYTES`).
const GSO_MAX_SIZE_BYTES: u64 = crate::tcp::tso::SK_GSO_MAX_BYTES;

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
        let train_threshold = ack_train_threshold(delay_min, conn.pacing_rate_bps(), conn.paced);
        if self.params.ack_train && Self::ack_train_too_long(round, conn.now, self.params.ack_delta, train_threshold) {
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

    /// Does the train of closely spaced ACKs this round span more than `threshold`?
    fn ack_train_too_long(round: &mut Round, now: SimTime, ack_delta: SimDuration, threshold: SimDuration) -> bool {
        if now.saturating_since(round.last_ack) > ack_delta {
            return false;
        }
        round.last_ack = now;
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

/// Linux `hystart_ack_delay`: min(1 ms, 4 x sk_gso_max_size / sk_pacing_rate); 0 while the
/// rate is unknown (`if (!rate) return 0`).
pub fn ack_delay(pacing_rate_bps: u64) -> SimDuration {
    if pacing_rate_bps == 0 {
        return SimDuration::ZERO;
    }
    let bits = GSO_MAX_SIZE_BYTES * ACK_DELAY_GSO_PACKETS * 8;
    let ns = bits as u128 * crate::sim::NS_PER_S as u128 / pacing_rate_bps as u128;
    SimDuration::from_ns(ns.min(ACK_DELAY_MAX.as_ns() as u128) as u64)
}

/// Linux `hystart_update`: the ACK train must outlast delay_min + hystart_ack_delay, halved
/// when the flow is not paced (`sk_pacing_status == SK_PACING_NONE`: "Pacing might have
/// delayed packets up to RTT/2 during slow start").
fn ack_train_threshold(delay_min: SimDuration, pacing_rate_bps: u64, paced: bool) -> SimDuration {
    let full = delay_min + ack_delay(pacing_rate_bps);
    if paced {
        full
    } else {
        SimDuration::from_ns(full.as_ns() >> 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{conn, MSS};
    use super::*;
    use crate::cc::SkPacingRate;

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
    fn ack_delay_is_four_gso_packets_at_the_pacing_rate_capped_at_1_ms() {
        // 4 x 65,279 B = 2,088,928 bits. At 4 Gbit/s: 2,088,928 / 4e9 s = 522.232 us. At
        // 2,088,928,000 bit/s exactly 1 ms; at 10 Mbit/s 208.9 ms, capped to 1 ms. Rate 0: none.
        assert_eq!(ack_delay(4_000_000_000), SimDuration::from_ns(522_232));
        assert_eq!(ack_delay(2_088_928_000), SimDuration::from_ms(1));
        assert_eq!(ack_delay(10_000_000), SimDuration::from_ms(1));
        assert_eq!(ack_delay(0), SimDuration::ZERO);
    }

    /// Exit time (us after the round start) of a train of ACKs every 500 us, delay_min 40 ms.
    fn train_exit_us(pacing_rate_bps: u64, paced: bool) -> Option<u64> {
        let mut h = HyStart::new(Params { delay: false, ..params() });
        let min = SimDuration::from_ms(40);
        (0..200u64).find_map(|k| {
            let mut v = view(1_000_000 + k * 500, k + 1);
            (v.pacing_rate, v.paced) = (SkPacingRate::Known(pacing_rate_bps), paced);
            h.on_ack(&v, 16, min, min).map(|_| k * 500)
        })
    }

    #[test]
    fn ack_train_threshold_adds_hystart_ack_delay_and_halves_unless_paced() {
        // Unpaced at 10 Mbit/s: (40 ms + 1 ms) / 2 = 20.5 ms; the ACK at 20.5 ms is not past it,
        // the one at 21.0 ms is. (Without the cushion, delay_min / 2 = 20 ms: exit at 20.5 ms.)
        assert_eq!(train_exit_us(10_000_000, false), Some(21_000));
        // Rate unknown: no cushion, 20 ms.
        assert_eq!(train_exit_us(0, false), Some(20_500));
        // At 4 Gbit/s: (40 ms + 521.72 us) / 2 = 20.26086 ms -> the ACK at 20.5 ms.
        assert_eq!(train_exit_us(4_000_000_000, false), Some(20_500));
        // Paced (fq): not halved, 41 ms -> the ACK at 41.5 ms.
        assert_eq!(train_exit_us(10_000_000, true), Some(41_500));
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
