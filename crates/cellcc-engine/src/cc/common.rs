//! Building blocks shared by the algorithms, ported from net/ipv4/tcp_cong.c.

use super::{AckSample, ConnView, Window};
use crate::scenario::Stack;
use crate::sim::time::NS_PER_S;
use crate::sim::SimTime;

/// Linux `HZ` as this port assumes it: CONFIG_HZ=1000, so one jiffy is 1 ms.
/// Algorithms that count in jiffies (BIC, CUBIC, H-TCP) keep Linux's rounding this way.
pub const LINUX_HZ: u64 = 1000;

/// Linux `jiffies` at `now`: whole jiffies since the simulation started (no 32-bit wrap).
pub fn jiffies(now: SimTime) -> u64 {
    now.as_ns() / (NS_PER_S / LINUX_HZ)
}

/// Linux `ack_sample.pkts_acked`: segments this ACK removed from the
/// retransmission queue, i.e. cumulatively ACKed (SACKed ones do not count).
pub fn cum_acked_segs(conn: &ConnView, ack: &AckSample) -> u32 {
    ack.cum_acked_bytes.div_ceil(conn.mss_bytes.max(1) as u64) as u32
}

/// Slow start for an ACK of `acked` segments, by the window's Reno rules. Returns the
/// ACKed segments left over for congestion avoidance once cwnd reaches ssthresh.
pub fn slow_start(w: &mut Window, acked: u32) -> u32 {
    match w.reno {
        Stack::Linux => slow_start_per_segment(w, acked),
        Stack::Ns3 => slow_start_per_ack(w, acked),
    }
}

/// Linux `tcp_slow_start` (tcp_cong.c): RFC 5681 slow start with appropriate
/// byte counting (RFC 3465, L = infinity as Linux).
fn slow_start_per_segment(w: &mut Window, acked: u32) -> u32 {
    let cwnd = w.cwnd.saturating_add(acked).min(w.ssthresh);
    let left = acked - (cwnd - w.cwnd.min(cwnd));
    w.cwnd = cwnd.min(w.cwnd_clamp);
    left
}

/// ns-3.44 `TcpNewReno::SlowStart` (tcp-congestion-ops.cc): one segment for an ACK that
/// delivers any, RFC 5681 §3.1 eq. 2 with N capped at SMSS; the rest of the ACK counts in
/// congestion avoidance only if this segment took cwnd to ssthresh (`IncreaseWindow`).
fn slow_start_per_ack(w: &mut Window, acked: u32) -> u32 {
    if acked == 0 {
        return 0;
    }
    w.cwnd = w.cwnd.saturating_add(1).min(w.cwnd_clamp);
    if w.in_slow_start() {
        0
    } else {
        acked - 1
    }
}

/// Linux `tcp_cong_avoid_ai` (tcp_cong.c): cwnd += 1 for every `wnd_cnt`
/// segments ACKed, with the counter carried across ACKs.
pub fn cong_avoid_ai(w: &mut Window, wnd_cnt: u32, acked: u32) {
    let wnd_cnt = wnd_cnt.max(1);
    // If credits accumulated at a higher w, apply them gently now.
    if w.cwnd_cnt >= wnd_cnt {
        w.cwnd_cnt = 0;
        w.cwnd += 1;
    }
    w.cwnd_cnt += acked;
    if w.cwnd_cnt >= wnd_cnt {
        let delta = w.cwnd_cnt / wnd_cnt;
        w.cwnd_cnt -= delta * wnd_cnt;
        w.cwnd += delta;
    }
    w.cwnd = w.cwnd.min(w.cwnd_clamp);
}

/// Reno's ssthresh after a loss, at least 2 segments: half the window (Linux
/// `tcp_reno_ssthresh`), or under ns-3's rules half the segments in flight, RFC 5681 eq. 4's
/// FlightSize (ns-3.44 `TcpNewReno::GetSsThresh(tcb, bytesInFlight)`).
pub fn reno_ssthresh(w: &Window, conn: &ConnView) -> u32 {
    let base = match w.reno {
        Stack::Linux => w.cwnd,
        Stack::Ns3 => conn.packets_in_flight,
    };
    (base >> 1).max(2)
}

/// Linux `tcp_reno_cong_avoid`: slow start below ssthresh, else +1 segment per RTT, a
/// window's worth of credits: one per segment acked, or under ns-3's rules one per ACK
/// (ns-3.44 `TcpNewReno::CongestionAvoidance` adds SMSS^2 / cwnd once per ACK).
pub fn reno_cong_avoid(w: &mut Window, conn: &ConnView, acked: u32) {
    if !conn.is_cwnd_limited {
        return;
    }
    let mut acked = acked;
    if w.in_slow_start() {
        acked = slow_start(w, acked);
        if acked == 0 {
            return;
        }
    }
    let credits = match w.reno {
        Stack::Linux => acked,
        Stack::Ns3 => acked.min(1),
    };
    cong_avoid_ai(w, w.cwnd, credits);
}

#[cfg(test)]
pub(crate) mod testing {
    //! A scripted view for conformance tests: send n / ack n / advance t.
    use super::super::{AckSample, CaState, ConnView, SkPacingRate};
    use crate::sim::{SimDuration, SimTime};

    pub const MSS: u32 = 1448;

    pub fn conn(now_ms: u64, srtt_ms: u64) -> ConnView {
        ConnView {
            now: SimTime(now_ms * 1_000_000),
            mss_bytes: MSS,
            snd_una: 0,
            snd_nxt: 0,
            packets_in_flight: 0,
            srtt: Some(SimDuration::from_ms(srtt_ms)),
            min_rtt: Some(SimDuration::from_ms(srtt_ms)),
            delivered: 0,
            lost: 0,
            is_cwnd_limited: true,
            app_limited: false,
            ca_state: CaState::Open,
            pacing_rate: SkPacingRate::Known(0),
            paced: false,
        }
    }

    pub fn ack(segs: u32, rtt_ms: u64) -> AckSample {
        AckSample {
            acked_segs: segs,
            acked_bytes: segs as u64 * MSS as u64,
            cum_acked_bytes: segs as u64 * MSS as u64,
            rtt: Some(SimDuration::from_ms(rtt_ms)),
            ..AckSample::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::conn;
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_leftover() {
        let mut w = Window { ssthresh: 12, ..Window::new(10) };
        assert_eq!(slow_start(&mut w, 5), 3);
        assert_eq!(w.cwnd, 12);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window_of_acks() {
        let mut w = Window { ssthresh: 10, ..Window::new(10) };
        for _ in 0..10 {
            reno_cong_avoid(&mut w, &conn(0, 40), 1);
        }
        assert_eq!(w.cwnd, 11);
        assert_eq!(w.cwnd_cnt, 0);
    }

    #[test]
    fn not_cwnd_limited_does_not_grow() {
        let mut w = Window::new(10);
        let mut c = conn(0, 40);
        c.is_cwnd_limited = false;
        reno_cong_avoid(&mut w, &c, 10);
        assert_eq!(w.cwnd, 10);
    }

    /// One round trip of a 10-segment window ACKed by delayed ACKs of two segments each.
    fn one_round_of_delayed_acks(rules: Stack) -> u32 {
        let mut w = Window::new(10).with_reno_rules(rules);
        for _ in 0..5 {
            reno_cong_avoid(&mut w, &conn(0, 40), 2);
        }
        w.cwnd
    }

    #[test]
    fn slow_start_per_ack_adds_one_segment_per_ack_where_linux_adds_the_segments_acked() {
        // Linux tcp_slow_start: cwnd + acked = 10 + 5 x 2 = 20 (doubling per round trip).
        assert_eq!(one_round_of_delayed_acks(Stack::Linux), 20);
        // ns-3 TcpNewReno::SlowStart: + SMSS per ACK = 10 + 5 = 15 (x1.5 per round trip).
        assert_eq!(one_round_of_delayed_acks(Stack::Ns3), 15);
        // After k ACKs of 2 segments from cwnd w0: w0 + k, whatever k (no cap below ssthresh).
        let mut w = Window::new(10).with_reno_rules(Stack::Ns3);
        (0..37).for_each(|_| {
            slow_start(&mut w, 2);
        });
        assert_eq!(w.cwnd, 47);
    }

    #[test]
    fn per_ack_slow_start_hands_the_rest_of_the_ack_on_only_at_ssthresh() {
        let mut w = Window { ssthresh: 12, ..Window::new(10) }.with_reno_rules(Stack::Ns3);
        assert_eq!(slow_start(&mut w, 3), 0);
        assert_eq!(w.cwnd, 11);
        // This ACK's segment takes cwnd to ssthresh: its other two count in avoidance.
        assert_eq!(slow_start(&mut w, 3), 2);
        assert_eq!(w.cwnd, 12);
    }

    #[test]
    fn per_ack_congestion_avoidance_needs_a_window_of_acks_not_of_segments() {
        // cwnd 20 in avoidance, ACKs of 2 segments: Linux credits 2 per ACK and adds a segment
        // after 10 ACKs; ns-3's SMSS^2 / cwnd per ACK adds one after 20 ACKs.
        for (rules, acks_for_one_more) in [(Stack::Linux, 10), (Stack::Ns3, 20)] {
            let mut w = Window { ssthresh: 20, ..Window::new(20) }.with_reno_rules(rules);
            for k in 1..=acks_for_one_more {
                reno_cong_avoid(&mut w, &conn(0, 40), 2);
                assert_eq!(w.cwnd, if k < acks_for_one_more { 20 } else { 21 }, "{rules:?} ACK {k}");
            }
        }
    }

    #[test]
    fn reno_ssthresh_halves_with_floor_of_two() {
        let c = conn(0, 40);
        assert_eq!(reno_ssthresh(&Window::new(20), &c), 10);
        assert_eq!(reno_ssthresh(&Window::new(3), &c), 2);
    }

    #[test]
    fn ns3_reno_ssthresh_halves_the_flight_not_cwnd() {
        // cwnd 120 grown past a receive window of 90 segments, 86 in flight at the loss:
        // Linux halves cwnd (60), ns-3's TcpNewReno::GetSsThresh the bytes in flight (43).
        let c = ConnView { packets_in_flight: 86, ..conn(0, 40) };
        assert_eq!(reno_ssthresh(&Window::new(120), &c), 60);
        assert_eq!(reno_ssthresh(&Window::new(120).with_reno_rules(Stack::Ns3), &c), 43);
    }
}
