//! Building blocks shared by the algorithms, ported from net/ipv4/tcp_cong.c.

use super::{AckSample, ConnView, Window};
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

/// Linux `tcp_slow_start` (tcp_cong.c): RFC 5681 slow start with appropriate
/// byte counting (RFC 3465, L = infinity as Linux). Returns the ACKed segments
/// left over once cwnd reaches ssthresh.
pub fn slow_start(w: &mut Window, acked: u32) -> u32 {
    let cwnd = w.cwnd.saturating_add(acked).min(w.ssthresh);
    let left = acked - (cwnd - w.cwnd.min(cwnd));
    w.cwnd = cwnd.min(w.cwnd_clamp);
    left
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

/// Linux `tcp_reno_ssthresh`: half the window, at least 2 segments (RFC 5681 eq. 4).
pub fn reno_ssthresh(w: &Window) -> u32 {
    (w.cwnd >> 1).max(2)
}

/// Linux `tcp_reno_cong_avoid`: slow start below ssthresh, else +1 segment per RTT.
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
    cong_avoid_ai(w, w.cwnd, acked);
}

#[cfg(test)]
pub(crate) mod testing {
    //! A scripted view for conformance tests: send n / ack n / advance t.
    use super::super::{AckSample, CaState, ConnView};
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
            pacing_rate_bps: 0,
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

    #[test]
    fn reno_ssthresh_halves_with_floor_of_two() {
        assert_eq!(reno_ssthresh(&Window::new(20)), 10);
        assert_eq!(reno_ssthresh(&Window::new(3)), 2);
    }
}
