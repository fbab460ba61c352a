//! HighSpeed TCP: RFC 3649 (Floyd 2003); Linux net/ipv4/tcp_highspeed.c.
//!
//! Above Low_Window = 38 segments the AIMD parameters depend on the window:
//! cwnd grows by a(w) segments per RTT and a loss cuts it by the fraction
//! b(w), from a(38) = 1, b(38) = 0.5 (Reno) to a(83000) = 72, b(83000) = 0.1
//! (RFC 3649 §5). Like Linux, a(w) and b(w) come from the RFC's Appendix B
//! table rather than the closed-form formulas: the table index `ai` gives
//! a(w) = ai + 1, and b(w) is stored as `md` = b x 256.
//!
//! Differences from Linux: none in the window arithmetic. As in Linux, `ai`
//! is only re-indexed on ACKs in congestion avoidance, so a loss straight out
//! of slow start still uses b = 0.5 (the index starts at 0). Linux has no
//! module parameters for HighSpeed (Low_Window, High_Window, High_P and
//! High_Decrease are baked into the table), so neither does this port.

use super::common::slow_start;
use super::{AckSample, CongestionControl, ConnView, Window};
use serde::{Deserialize, Serialize};

/// One row of RFC 3649 Appendix B as Linux `hstcp_aimd_vals` stores it.
#[derive(Clone, Copy, Debug)]
struct AimdRow {
    /// Upper window (segments) of the row: the row covers (previous cwnd, cwnd].
    cwnd: u32,
    /// b(w) x 256 (Linux `md`, fixed point << 8).
    md: u32,
}

/// Fixed-point shift of [`AimdRow::md`] (Linux: "MD scaled <<8").
const MD_SHIFT: u32 = 8;
/// Smallest ssthresh Linux returns after a loss.
const MIN_SSTHRESH: u32 = 2;
/// Linux `hstcp_init` clamps cwnd to 0xffffffff/128 so `cwnd * md` cannot overflow 32 bits.
const CWND_CLAMP: u32 = u32::MAX / 128;

const fn row(cwnd: u32, md: u32) -> AimdRow {
    AimdRow { cwnd, md }
}

/// RFC 3649 Appendix B (w, a(w), b(w)) in Linux `hstcp_aimd_vals` form
/// (net/ipv4/tcp_highspeed.c, unchanged since 2.6.13): row i holds a(w) = i + 1.
const AIMD: [AimdRow; 72] = [
    row(38, 128),
    row(118, 112),
    row(221, 104),
    row(347, 98),
    row(495, 93),
    row(663, 89),
    row(851, 86),
    row(1058, 83),
    row(1284, 81),
    row(1529, 78),
    row(1793, 76),
    row(2076, 74),
    row(2378, 72),
    row(2699, 71),
    row(3039, 69),
    row(3399, 68),
    row(3778, 66),
    row(4177, 65),
    row(4596, 64),
    row(5036, 62),
    row(5497, 61),
    row(5979, 60),
    row(6483, 59),
    row(7009, 58),
    row(7558, 57),
    row(8130, 56),
    row(8726, 55),
    row(9346, 54),
    row(9991, 53),
    row(10661, 52),
    row(11358, 52),
    row(12082, 51),
    row(12834, 50),
    row(13614, 49),
    row(14424, 48),
    row(15265, 48),
    row(16137, 47),
    row(17042, 46),
    row(17981, 45),
    row(18955, 45),
    row(19965, 44),
    row(21013, 43),
    row(22101, 43),
    row(23230, 42),
    row(24402, 41),
    row(25618, 41),
    row(26881, 40),
    row(28193, 39),
    row(29557, 39),
    row(30975, 38),
    row(32450, 38),
    row(33986, 37),
    row(35586, 36),
    row(37253, 36),
    row(38992, 35),
    row(40808, 35),
    row(42707, 34),
    row(44694, 33),
    row(46776, 33),
    row(48961, 32),
    row(51258, 32),
    row(53677, 31),
    row(56230, 30),
    row(58932, 30),
    row(61799, 29),
    row(64851, 28),
    row(68113, 28),
    row(71617, 27),
    row(75401, 26),
    row(79517, 26),
    row(84035, 25),
    row(89053, 24),
];

/// HighSpeed has no parameters: Linux `tcp_highspeed.c` exposes none.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "highspeed",
    family: super::Family::Loss,
    source: "RFC 3649; Linux net/ipv4/tcp_highspeed.c",
    summary: "AIMD whose increase a(w) grows and decrease b(w) shrinks with the window (RFC 3649 Appendix B table); Reno below 38 segments.",
    description: "Reno up to 38 segments; above, the additive increase a(w) grows and the multiplicative decrease b(w) \
        shrinks with the window, read from RFC 3649's Appendix B table as Linux does (from a = 1, b = 0.5 at \
        38 segments to a = 72, b = 0.1 at 83 000). The table index moves only on ACKs in congestion \
        avoidance, so a loss straight out of slow start still halves. At the windows of a 20 Mbit/s, 40 ms \
        path (under 221 segments) it adds 2-3 segments per RTT and cuts by about 0.41-0.44. It reacts to \
        loss only.",
    params: &[],
};

pub struct HighSpeed {
    w: Window,
    /// Linux `ca->ai`: the table row of the current window; a(w) = ai + 1.
    ai: usize,
}

impl HighSpeed {
    pub fn new(_cfg: &Config, w: Window) -> Self {
        let w = Window { cwnd_clamp: w.cwnd_clamp.min(CWND_CLAMP), ..w };
        HighSpeed { w, ai: 0 }
    }

    /// Keep `AIMD[ai-1].cwnd < cwnd <= AIMD[ai].cwnd` (the last row caps it).
    fn reindex(&mut self) {
        let cwnd = self.w.cwnd;
        while cwnd > AIMD[self.ai].cwnd && self.ai < AIMD.len() - 1 {
            self.ai += 1;
        }
        while self.ai > 0 && cwnd <= AIMD[self.ai - 1].cwnd {
            self.ai -= 1;
        }
    }

    /// a(w) in segments per RTT for the current row.
    fn increase_segs(&self) -> u32 {
        self.ai as u32 + 1
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// RFC 3649 §5: w <- (1 - b(w)) w; Linux `hstcp_ssthresh`.
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        let cwnd = self.w.cwnd;
        (cwnd - ((cwnd * AIMD[self.ai].md) >> MD_SHIFT)).max(MIN_SSTHRESH)
    }

    /// RFC 3649 §5: w <- w + a(w)/w per ACK; Linux `hstcp_cong_avoid`, which
    /// credits a(w) per ACK whatever the ACK covers (not per ACKed segment).
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        if !conn.is_cwnd_limited {
            return;
        }
        if self.w.in_slow_start() {
            slow_start(&mut self.w, ack.acked_segs);
            return;
        }
        self.reindex();
        if self.w.cwnd < self.w.cwnd_clamp {
            self.w.cwnd_cnt += self.increase_segs();
            if self.w.cwnd_cnt >= self.w.cwnd {
                self.w.cwnd_cnt -= self.w.cwnd;
                self.w.cwnd += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    /// A HighSpeed sender in congestion avoidance at `cwnd` after one ACK there
    /// (the ACK re-indexes the table, as in Linux).
    fn settled_at(cwnd: u32) -> HighSpeed {
        let mut h = HighSpeed::new(&Config::default(), Window { ssthresh: cwnd, ..Window::new(cwnd) });
        h.cong_avoid(&conn(0, 100), &ack(1, 100));
        h
    }

    /// (a(w), b(w)) at `cwnd`, b as ssthresh reveals it: b = 1 - ssthresh/cwnd.
    fn aimd_at(cwnd: u32) -> (u32, u32) {
        let mut h = settled_at(cwnd);
        let cwnd_now = h.window().cwnd;
        (h.increase_segs(), cwnd_now - h.ssthresh(&conn(0, 100)))
    }

    #[test]
    fn at_low_window_38_it_is_reno_a_1_b_half() {
        // RFC 3649 Appendix B first row: w = 38, a = 1, b = 0.50. Linux md = 128/256.
        // ssthresh = 38 - (38 x 128 >> 8) = 38 - 19 = 19.
        assert_eq!(aimd_at(38), (1, 19));
    }

    #[test]
    fn at_high_window_83000_b_is_about_a_tenth_and_a_reaches_72_at_the_last_row() {
        // 79517 < 83000 <= 84035 is row 70: a = 71, md = 25 (b = 25/256 = 0.098 ~ RFC's 0.10).
        // Reduction = 83000 x 25 >> 8 = 2075000 / 256 = 8105 (floor of 8105.47).
        // The RFC's closed form gives a(83000) = 72 only with p = High_P = 1e-7 exactly;
        // its Appendix B table (and Linux) reach a = 72 in the last row, (84035, 89053].
        let (a, reduction) = aimd_at(83000);
        assert_eq!((a, reduction), (71, 8105));
        let mut h = settled_at(83000);
        assert_eq!(h.ssthresh(&conn(0, 100)), 83000 - 8105);
        // 89053 x 24 >> 8 = 2137272 / 256 = 8348 (floor of 8348.7).
        assert_eq!(aimd_at(89053), (72, 8348));
        // Beyond the table the last row holds.
        assert_eq!(aimd_at(200_000).0, 72);
    }

    #[test]
    fn table_rows_follow_the_rfc_3649_formulas() {
        // RFC 3649 §5: b(w) = (0.1 - 0.5)(log w - log 38)/(log 83000 - log 38) + 0.5,
        // p(w) = 0.078 / w^1.2, a(w) = w^2 p(w) 2 b(w) / (2 - b(w)).
        // Each row's upper window w has a(w) within one of the row's a (the RFC's table
        // steps a by one), and b(w) within 1/256 + 0.01 of md/256 (the table's rounding).
        for (i, r) in AIMD.iter().enumerate() {
            let w = r.cwnd as f64;
            let b = (0.1 - 0.5) * (w.ln() - 38f64.ln()) / (83000f64.ln() - 38f64.ln()) + 0.5;
            let p = 0.078 / w.powf(1.2);
            let a = w * w * p * 2.0 * b / (2.0 - b);
            assert!((a - (i + 1) as f64).abs() <= 1.0, "row {i}: w {w} a(w) {a:.2} vs {}", i + 1);
            let md = r.md as f64 / 256.0;
            assert!((b - md).abs() <= 0.01 + 1.0 / 256.0, "row {i}: w {w} b(w) {b:.3} vs {md:.3}");
        }
    }

    #[test]
    fn window_of_1000_grows_eight_segments_per_rtt() {
        // 851 < 1000 <= 1058 is row 7: a = 8. One RTT = 1000 ACKs, each adding 8 to
        // cwnd_cnt: 8000 credits; cwnd +1 each time the counter passes cwnd (1000, 1001, ...),
        // so 7 increments (7 x ~1003 = 7021 used, 979 left) and the 8th is 21 ACKs away.
        let mut h = HighSpeed::new(&Config::default(), Window { ssthresh: 1000, ..Window::new(1000) });
        for _ in 0..1000 {
            h.cong_avoid(&conn(0, 100), &ack(1, 100));
        }
        assert_eq!(h.window().cwnd, 1007);
        for _ in 0..21 {
            h.cong_avoid(&conn(0, 100), &ack(1, 100));
        }
        assert_eq!(h.window().cwnd, 1008);
    }

    #[test]
    fn below_38_segments_it_is_reno() {
        // Row 0: +1 per cwnd ACKs, halve on loss.
        let mut h = HighSpeed::new(&Config::default(), Window { ssthresh: 20, ..Window::new(20) });
        for _ in 0..20 {
            h.cong_avoid(&conn(0, 100), &ack(1, 100));
        }
        assert_eq!(h.window().cwnd, 21);
        assert_eq!(h.ssthresh(&conn(0, 100)), 11);
    }

    #[test]
    fn index_follows_the_window_down_after_a_loss() {
        // At 5000 (row 19, a = 20); after the cut to 4000 one ACK re-indexes to row 17
        // (3778 < 4000 <= 4177, a = 18).
        let mut h = settled_at(5000);
        assert_eq!(h.increase_segs(), 20);
        h.window_mut().ssthresh = 4000;
        h.window_mut().set_cwnd(4000);
        h.cong_avoid(&conn(0, 100), &ack(1, 100));
        assert_eq!(h.increase_segs(), 18);
    }
}
