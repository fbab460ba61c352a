//! Reno: RFC 5681 slow start, congestion avoidance and classic fast recovery; Linux `tcp_reno_*` (net/ipv4/tcp_cong.c).
//!
//! Window growth and ssthresh are Linux's `tcp_reno_cong_avoid` and
//! `tcp_reno_ssthresh`. What makes this "Reno" rather than "NewReno" is the
//! recovery: without SACK, fast recovery ends at the first ACK that advances
//! `snd_una` (RFC 5681 §3.2 step 6), so several losses in one window cost
//! several halvings. With SACK on (the default), RFC 6675 recovery applies and
//! the two behave alike, as in Linux where "reno" is the only one of the two.

use super::common::{reno_cong_avoid, reno_ssthresh};
use super::{AckSample, CongestionControl, ConnView, Window};
use serde::{Deserialize, Serialize};

/// Reno has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "reno",
    family: super::Family::Loss,
    source: "RFC 5681; Linux net/ipv4/tcp_cong.c (tcp_reno_cong_avoid, tcp_reno_ssthresh)",
    summary:
        "AIMD: +1 segment per RTT, halve on loss; classic fast recovery (exits on the first partial ACK without SACK).",
    description:
        "Slow start doubles cwnd every RTT up to ssthresh; congestion avoidance then adds one segment per RTT \
        (Linux tcp_reno_cong_avoid). Three duplicate ACKs set ssthresh and cwnd to half the window \
        (tcp_reno_ssthresh, at least 2 segments); an RTO restarts from one segment. It reacts to loss only, \
        so on a drop-tail bottleneck it fills the buffer and saw-tooths between about half and all of BDP + \
        buffer. Without SACK its fast recovery ends at the first partial ACK, so several losses in one \
        window cost several halvings; with SACK (the default) it recovers as NewReno does.",
    params: &[],
};

pub struct Reno {
    w: Window,
}

impl Reno {
    pub fn new(_cfg: &Config, w: Window) -> Self {
        Reno { w }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    fn ssthresh(&mut self, conn: &ConnView) -> u32 {
        reno_ssthresh(&self.w, conn)
    }
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
    }
    fn exits_recovery_on_partial_ack(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    #[test]
    fn slow_start_doubles_per_rtt_then_halves_on_loss() {
        let mut r = Reno::new(&Config::default(), Window::new(10));
        // One RTT of ACKs for 10 segments: cwnd 10 -> 20 (RFC 5681 eq. 2 with ABC).
        for _ in 0..10 {
            r.cong_avoid(&conn(0, 40), &ack(1, 40));
        }
        assert_eq!(r.window().cwnd, 20);
        assert_eq!(r.ssthresh(&conn(0, 40)), 10);
    }
}
