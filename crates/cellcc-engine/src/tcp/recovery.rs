//! Proportional Rate Reduction (RFC 6937): during fast recovery cwnd falls smoothly from
//! its prior value to ssthresh, sending in proportion to what is delivered. Two variants
//! (`tcp.fast_recovery`):
//!
//! - Linux `tcp_cwnd_reduction` (net/ipv4/tcp_input.c): RecoverFS is the cwnd before the
//!   episode (`tp->prior_cwnd`); each ACK credits what it newly delivered, once.
//! - ns-3.44 `TcpPrrRecovery` (src/internet/model/tcp-prr-recovery.cc): RecoverFS is the
//!   pipe when recovery begins (`EnterRecovery`); `DoRecovery` credits a whole extra segment
//!   for a duplicate ACK while `prr_delivered` < RecoverFS, and runs twice on a partial ACK
//!   that also brings new SACK blocks (`TcpSocketBase::ProcessAck` calls `DupAck` and then
//!   the partial-ACK branch), so an ACK can be credited twice; its slow-start bound adds a
//!   segment when the ACK covered a retransmission (`safeACK = m_isRetransDataAcked`).
//!
//! ```text
//!  pipe > ssthresh:  sndcnt = ceil(prr_delivered * ssthresh / RecoverFS) - prr_out
//!  else:             sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out, delivered) [+1])
//!  cwnd = pipe + max(sndcnt, 1 if nothing sent yet else 0)
//! ```

use crate::scenario::Stack;

/// PRR state for one recovery episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    pub rule: Stack,
    /// RFC 6937 RecoverFS: Linux's cwnd before recovery, ns-3's pipe at its start.
    pub recover_fs: u32,
    /// Segments delivered since recovery began (`prr_delivered`).
    pub delivered: u32,
    /// Segments sent since recovery began (`prr_out`).
    pub out: u32,
}

/// What one ACK tells PRR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrrAck {
    pub ssthresh: u32,
    /// Segments in flight (RFC 6675 pipe) after the ACK.
    pub in_flight: u32,
    /// Segments the ACK newly delivered, cumulatively or selectively.
    pub newly_acked: u32,
    pub una_advanced: bool,
    /// The ACK marked segments lost (Linux: no slow-start bonus then).
    pub newly_lost: bool,
    /// ns-3's `isDupAck`: the ACK brought new SACK information (without SACK: a duplicate ACK).
    pub dupack: bool,
    /// ns-3's `safeACK`: a retransmitted segment was cumulatively acknowledged.
    pub retrans_acked: bool,
    /// In fast recovery rather than CWR (ns-3 counts duplicate ACKs only in recovery).
    pub in_recovery: bool,
}

impl Prr {
    /// An episode that starts with cwnd `prior_cwnd` and `in_flight` segments in the pipe.
    pub fn new(rule: Stack, prior_cwnd: u32, in_flight: u32) -> Self {
        let recover_fs = match rule {
            Stack::Linux => prior_cwnd,
            Stack::Ns3 => in_flight,
        };
        Prr { rule, recover_fs: recover_fs.max(1), delivered: 0, out: 0 }
    }

    /// The new cwnd after an ACK (`None` when it changes nothing).
    pub fn on_ack(&mut self, a: &PrrAck) -> Option<u32> {
        match self.rule {
            Stack::Linux => self.linux(a),
            Stack::Ns3 => {
                // TcpSocketBase::ProcessAck: `DupAck` (in recovery) and then, for an ACK that
                // moved snd_una, the partial-ACK branch; each calls `DoRecovery`.
                let dup = (a.dupack && a.in_recovery).then(|| self.ns3_step(a, true)).flatten();
                let partial = (a.una_advanced && a.newly_acked > 0).then(|| self.ns3_step(a, false)).flatten();
                partial.or(dup)
            }
        }
    }

    /// Linux `tcp_cwnd_reduction`.
    fn linux(&mut self, a: &PrrAck) -> Option<u32> {
        if a.newly_acked == 0 {
            return None;
        }
        self.delivered += a.newly_acked;
        let sndcnt = if a.in_flight > a.ssthresh {
            self.proportional(a.ssthresh)
        } else {
            // Slow-start reduction bound (PRR-SSRB), with Linux's +1 on an advancing ACK.
            let mut n = (self.delivered as i64 - self.out as i64).max(a.newly_acked as i64);
            if a.una_advanced && !a.newly_lost {
                n += 1;
            }
            n.min((a.ssthresh - a.in_flight) as i64)
        };
        Some(self.cwnd(a.in_flight, sndcnt))
    }

    /// ns-3.44 `TcpPrrRecovery::DoRecovery(tcb, deliveredBytes, isDupAck)`, in segments.
    fn ns3_step(&mut self, a: &PrrAck, is_dupack: bool) -> Option<u32> {
        let mut delivered = a.newly_acked;
        if is_dupack && self.delivered < self.recover_fs {
            delivered += 1;
        }
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let sndcnt = if a.in_flight > a.ssthresh {
            self.proportional(a.ssthresh)
        } else {
            // "PRR-CRB by default", "PRR-SSRB when recovery makes good progress" (safeACK).
            let mut limit = (self.delivered as i64 - self.out as i64).max(delivered as i64);
            if a.retrans_acked {
                limit += 1;
            }
            limit.min(a.ssthresh as i64 - a.in_flight as i64)
        };
        Some(self.cwnd(a.in_flight, sndcnt))
    }

    /// RFC 6937 §3: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
    fn proportional(&self, ssthresh: u32) -> i64 {
        let target = (ssthresh as u64 * self.delivered as u64).div_ceil(self.recover_fs as u64) as i64;
        target - self.out as i64
    }

    /// cwnd = pipe + sndcnt, with the fast retransmit forced on entering recovery (both stacks).
    fn cwnd(&self, in_flight: u32, sndcnt: i64) -> u32 {
        let sndcnt = sndcnt.max(if self.out == 0 { 1 } else { 0 });
        in_flight + sndcnt.max(0) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(ssthresh: u32, in_flight: u32, newly_acked: u32) -> PrrAck {
        PrrAck { ssthresh, in_flight, newly_acked, in_recovery: true, ..PrrAck::default() }
    }

    #[test]
    fn above_ssthresh_sends_half_as_much_as_delivered_for_beta_one_half() {
        // prior_cwnd 20, ssthresh 10: each delivered segment releases 10/20 of a send.
        let mut p = Prr::new(Stack::Linux, 20, 19);
        assert_eq!(p.on_ack(&ack(10, 19, 1)), Some(19 + 1)); // ceil(1*10/20)=1 - 0 = 1
        p.out += 1;
        assert_eq!(p.on_ack(&ack(10, 19, 1)), Some(19)); // ceil(2*10/20)=1 - 1 = 0
    }

    #[test]
    fn at_or_below_ssthresh_grows_back_towards_it() {
        let mut p = Prr { rule: Stack::Linux, recover_fs: 20, delivered: 10, out: 5 };
        // delivered 12, out 5 -> 7, capped by ssthresh - pipe = 10 - 6 = 4.
        let a = PrrAck { una_advanced: true, ..ack(10, 6, 2) };
        assert_eq!(p.on_ack(&a), Some(10));
    }

    #[test]
    fn ns3_credits_a_whole_segment_per_duplicate_ack_and_counts_a_sacking_partial_ack_twice() {
        // RecoverFS = pipe at entry, 40; ssthresh 20. A SACK of one segment: DoRecovery with
        // 1 + 1 (isDupAck) = 2 delivered: ceil(2 x 20 / 40) - 0 = 1. Linux credits the one.
        let mut ns3 = Prr::new(Stack::Ns3, 44, 40);
        let mut linux = Prr::new(Stack::Linux, 44, 40);
        let sack = PrrAck { dupack: true, ..ack(20, 39, 1) };
        assert_eq!((ns3.on_ack(&sack), ns3.delivered), (Some(40), 2));
        assert_eq!((linux.on_ack(&sack), linux.delivered), (Some(40), 1));
        ns3.out = 1;
        linux.out = 1;
        // A partial ACK of 3 segments that also SACKs new data: ns-3 runs DoRecovery twice,
        // 3 + 1 and then 3 more: delivered 2 + 4 + 3 = 9, ceil(9 x 20 / 40) - 1 = 4 -> 36 + 4.
        let partial = PrrAck { una_advanced: true, dupack: true, ..ack(20, 36, 3) };
        assert_eq!((ns3.on_ack(&partial), ns3.delivered), (Some(40), 9));
        // Linux: 1 + 3 = 4, ceil(4 x 20 / 44) - 1 = 1 -> 37.
        assert_eq!((linux.on_ack(&partial), linux.delivered), (Some(37), 4));
    }

    #[test]
    fn ns3_slow_start_bound_adds_a_segment_only_when_a_retransmission_was_acked() {
        let base = Prr { rule: Stack::Ns3, recover_fs: 40, delivered: 30, out: 28 };
        // pipe 10 <= ssthresh 20: limit = max(32 - 28, 2) = 4, capped by 20 - 10.
        let a = PrrAck { una_advanced: true, ..ack(20, 10, 2) };
        let mut plain = base;
        assert_eq!(plain.on_ack(&a), Some(14));
        let mut safe = base;
        assert_eq!(safe.on_ack(&PrrAck { retrans_acked: true, ..a }), Some(15));
    }
}
