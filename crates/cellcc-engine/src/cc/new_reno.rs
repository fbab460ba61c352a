//! NewReno: RFC 5681 window growth with RFC 6582 fast recovery; ns-3 `TcpNewReno`, Linux `tcp_reno_*` (tcp_cong.c).
//!
//! The window algorithm is Reno's. The difference lives in the sender's loss
//! recovery: a partial ACK retransmits the next hole and stays in fast
//! recovery until everything outstanding at its start is ACKed (RFC 6582 §3.2).

use super::common::{reno_cong_avoid, reno_ssthresh};
use super::{AckSample, CongestionControl, ConnView, Window};
use serde::{Deserialize, Serialize};

/// NewReno has no parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "newreno",
    family: super::Family::Loss,
    source: "RFC 6582 (recovery), RFC 5681 (growth); ns-3 TcpNewReno; Linux tcp_cong.c",
    summary: "Reno's AIMD with NewReno recovery: partial ACKs retransmit the next hole without leaving fast recovery.",
    description: "Reno's window rules: slow start to ssthresh, one segment per RTT in congestion avoidance, half the \
        window on loss. The difference is recovery without SACK: a partial ACK retransmits the next hole and \
        fast recovery lasts until everything outstanding at its start is acknowledged (RFC 6582), so a burst \
        of losses in one window costs one halving. With SACK (the default) both use RFC 6675 recovery and \
        behave alike. It reacts to loss only: on a drop-tail bottleneck it fills the buffer and saw-tooths.",
    params: &[],
};

pub struct NewReno {
    w: Window,
}

impl NewReno {
    pub fn new(_cfg: &Config, w: Window) -> Self {
        NewReno { w }
    }
}

impl CongestionControl for NewReno {
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
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    #[test]
    fn congestion_avoidance_grows_one_segment_per_rtt() {
        let mut n = NewReno::new(&Config::default(), Window { ssthresh: 20, ..Window::new(20) });
        for _ in 0..20 {
            n.cong_avoid(&conn(0, 40), &ack(1, 40));
        }
        assert_eq!(n.window().cwnd, 21);
        assert!(!n.exits_recovery_on_partial_ack());
    }
}
