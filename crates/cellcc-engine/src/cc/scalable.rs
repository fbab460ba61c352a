//! Scalable TCP: Kelly, "Scalable TCP: improving performance in highspeed wide area networks", CCR 2003; Linux net/ipv4/tcp_scalable.c.
//!
//! Multiplicative increase, multiplicative decrease: in congestion avoidance
//! cwnd grows by a = 0.01 segment per ACKed segment (so by 1% per RTT) and a
//! loss cuts it by b = 1/8. Linux expresses the increase as one segment per
//! `min(cwnd, 100)` ACKed segments (`tcp_cong_avoid_ai`), which makes windows
//! below 100 segments grow like Reno (Kelly's "legacy window"), and the
//! decrease as `cwnd - (cwnd >> 3)`.
//!
//! Differences from Linux: none in the window arithmetic. Linux has no module
//! parameters for Scalable, so neither does this port.

use super::common::{cong_avoid_ai, slow_start};
use super::{AckSample, CongestionControl, ConnView, Window};
use serde::{Deserialize, Serialize};

/// Linux `TCP_SCALABLE_AI_CNT`: segments ACKed per +1 segment, so a = 1/100 (Kelly 2003 §2).
const AI_CNT: u32 = 100;
/// Linux `TCP_SCALABLE_MD_SCALE`: the decrease is cwnd >> 3, so b = 1/8 (Kelly 2003 §2).
const MD_SHIFT: u32 = 3;
/// Smallest ssthresh Linux returns after a loss (as `tcp_reno_ssthresh`).
const MIN_SSTHRESH: u32 = 2;

/// Scalable has no parameters: Linux `tcp_scalable.c` exposes none.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "scalable",
    family: super::Family::Loss,
    source: "Kelly, CCR 2003; Linux net/ipv4/tcp_scalable.c",
    summary: "MIMD: +0.01 segment per ACKed segment (Reno-like below 100 segments), cwnd x 7/8 on loss.",
    description:
        "Multiplicative increase, multiplicative decrease: in congestion avoidance cwnd grows by 0.01 segment \
        per ACKed segment (1% per RTT), implemented as one segment per min(cwnd, 100) ACKed segments, so \
        below 100 segments it grows like Reno. A loss cuts the window by only 1/8, so on a drop-tail \
        bottleneck it keeps the buffer nearly full and loses often. It reacts to loss only.",
    params: &[],
};

pub struct Scalable {
    w: Window,
}

impl Scalable {
    pub fn new(_cfg: &Config, w: Window) -> Self {
        Scalable { w }
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Linux `tcp_scalable_ssthresh`: cwnd - cwnd/8, at least 2.
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        (self.w.cwnd - (self.w.cwnd >> MD_SHIFT)).max(MIN_SSTHRESH)
    }

    /// Linux `tcp_scalable_cong_avoid`.
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        if !conn.is_cwnd_limited {
            return;
        }
        let mut acked = ack.acked_segs;
        if self.w.in_slow_start() {
            acked = slow_start(&mut self.w, acked);
            if acked == 0 {
                return;
            }
        }
        let wnd_cnt = self.w.cwnd.min(AI_CNT);
        cong_avoid_ai(&mut self.w, wnd_cnt, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    fn in_avoidance(cwnd: u32) -> Scalable {
        Scalable::new(&Config::default(), Window { ssthresh: cwnd, ..Window::new(cwnd) })
    }

    #[test]
    fn large_window_grows_one_hundredth_of_a_segment_per_acked_segment() {
        // cwnd = 1000 > 100: one segment per 100 ACKed -> 1000 ACKs add 1000 x 0.01 = 10.
        let mut s = in_avoidance(1000);
        for _ in 0..1000 {
            s.cong_avoid(&conn(0, 100), &ack(1, 100));
        }
        assert_eq!(s.window().cwnd, 1010);
    }

    #[test]
    fn growth_is_one_percent_per_rtt_not_one_segment() {
        // cwnd = 2000: one RTT = 2000 ACKed segments -> +20 (1%), where Reno would add 1.
        let mut s = in_avoidance(2000);
        s.cong_avoid(&conn(0, 100), &ack(2000, 100));
        assert_eq!(s.window().cwnd, 2020);
    }

    #[test]
    fn small_window_grows_like_reno() {
        // cwnd = 50 < 100: tcp_cong_avoid_ai(min(50, 100)) = +1 per 50 ACKed segments.
        let mut s = in_avoidance(50);
        for _ in 0..50 {
            s.cong_avoid(&conn(0, 100), &ack(1, 100));
        }
        assert_eq!(s.window().cwnd, 51);
    }

    #[test]
    fn loss_keeps_seven_eighths_of_the_window() {
        // 1000 - (1000 >> 3) = 1000 - 125 = 875; 13 - (13 >> 3) = 13 - 1 = 12; floor of 2.
        assert_eq!(in_avoidance(1000).ssthresh(&conn(0, 100)), 875);
        assert_eq!(in_avoidance(13).ssthresh(&conn(0, 100)), 12);
        assert_eq!(in_avoidance(2).ssthresh(&conn(0, 100)), 2);
    }

    #[test]
    fn slow_start_then_scalable_increase_with_the_leftover() {
        // ssthresh 200, cwnd 190: 20 ACKed -> 10 fill slow start, 10 go to avoidance
        // with cnt = min(200, 100) = 100: cwnd_cnt = 10, no increase yet.
        let mut s = Scalable::new(&Config::default(), Window { ssthresh: 200, ..Window::new(190) });
        s.cong_avoid(&conn(0, 100), &ack(20, 100));
        assert_eq!((s.window().cwnd, s.window().cwnd_cnt), (200, 10));
    }
}
