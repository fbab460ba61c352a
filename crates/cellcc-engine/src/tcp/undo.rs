//! Undo of spurious window reductions: DSACK-based (RFC 3708, Linux
//! `tcp_try_undo_dsack`) and timestamp-based Eifel detection (RFC 3522,
//! Linux `tcp_packet_delayed`), with the bookkeeping of net/ipv4/tcp_input.c
//! (`tcp_init_undo`, `undo_marker`, `undo_retrans`, `retrans_stamp`,
//! `prior_ssthresh`, `prior_cwnd`).
//!
//! ```text
//!  reduction (Recovery / RTO) ─► remember cwnd, ssthresh, snd_una; count retransmissions
//!  each DSACK of a retransmission ─► one fewer to account for
//!  all DSACKed, or an ACK echoing a timestamp older than the first retransmission
//!      ─► the reduction was spurious: cwnd = cc.undo_cwnd(prior_cwnd), ssthresh restored
//! ```
//!
//! What differs from Linux: timestamps are the simulator's nanosecond send
//! times rather than a 1 ms clock, so Eifel decides on finer ties.

use crate::sim::SimTime;

/// Undo bookkeeping for the current congestion episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Undo {
    /// `tp->undo_marker`: snd_una when the episode began; `None` = nothing to undo.
    marker: Option<u64>,
    /// `tp->undo_retrans`: retransmissions not yet shown spurious by a DSACK
    /// (`None` is Linux's -1: none sent yet).
    retrans: Option<u32>,
    /// `tp->prior_ssthresh`: ssthresh before the episode; 0 = the episode cannot be undone.
    pub prior_ssthresh: u32,
    /// `tp->prior_cwnd`.
    pub prior_cwnd: u32,
    /// `tp->retrans_stamp`: when the episode's first retransmission went out.
    retrans_stamp: Option<SimTime>,
}

impl Undo {
    /// Linux `tcp_init_undo`: start counting from `snd_una` with `retrans_out` already out.
    pub fn init(&mut self, snd_una: u64, retrans_out: u32, prior_ssthresh: u32, prior_cwnd: u32) {
        self.marker = Some(snd_una);
        self.retrans = (retrans_out > 0).then_some(retrans_out);
        self.prior_ssthresh = prior_ssthresh;
        self.prior_cwnd = prior_cwnd;
    }

    /// Linux `tcp_enter_cwr` / `tcp_enter_recovery` with ECE: this reduction cannot be undone.
    pub fn forbid(&mut self) {
        self.prior_ssthresh = 0;
    }

    pub fn clear_marker(&mut self) {
        self.marker = None;
    }

    pub fn active(&self) -> bool {
        self.marker.is_some()
    }

    /// Linux `__tcp_retransmit_skb`: one more retransmission to account for.
    pub fn on_retransmit(&mut self, now: SimTime) {
        self.retrans = Some(self.retrans.unwrap_or(0) + 1);
        self.retrans_stamp.get_or_insert(now);
    }

    /// Linux `tcp_try_to_open` / Open state: no retransmission outstanding any more.
    pub fn clear_retrans_stamp(&mut self) {
        self.retrans_stamp = None;
    }

    /// Linux `tcp_check_dsack` / `tcp_sacktag_one`: a DSACK for `dup_segs` segments
    /// ending at `end`, sent after the episode began, shows retransmissions spurious.
    pub fn on_dsack(&mut self, end: u64, dup_segs: u32) {
        if let (Some(marker), Some(n)) = (self.marker, self.retrans) {
            if n > 0 && end > marker {
                self.retrans = Some(n.saturating_sub(dup_segs));
            }
        }
    }

    /// Every retransmission of the episode was DSACKed (`undo_marker && !undo_retrans`).
    pub fn all_dsacked(&self) -> bool {
        self.marker.is_some() && self.retrans == Some(0)
    }

    /// Linux `tcp_packet_delayed` (RFC 3522 Eifel): the ACK echoes a timestamp sent
    /// before the first retransmission, so it was the original that arrived. An echo of 0 is
    /// no echo (`tcp_tsopt_ecr_before` asks for a non-zero `rcv_tsecr`).
    pub fn packet_delayed(&self, ts_ecr: Option<SimTime>) -> bool {
        matches!((self.retrans_stamp, ts_ecr), (Some(stamp), Some(ecr)) if ecr != SimTime::ZERO && ecr < stamp)
    }

    /// Linux `tcp_may_undo`.
    pub fn may_undo(&self, ts_ecr: Option<SimTime>) -> bool {
        self.marker.is_some() && (self.retrans == Some(0) || self.packet_delayed(ts_ecr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimDuration;

    #[test]
    fn two_retransmissions_need_two_dsacks() {
        let mut u = Undo::default();
        u.init(1000, 0, 20, 20);
        let t = SimTime::ZERO + SimDuration::from_ms(5);
        u.on_retransmit(t);
        u.on_retransmit(t);
        assert!(!u.may_undo(None));
        u.on_dsack(2000, 1);
        assert!(!u.all_dsacked());
        // A DSACK below the marker is from an earlier episode and does not count.
        u.on_dsack(900, 1);
        assert!(!u.all_dsacked());
        u.on_dsack(3000, 1);
        assert!(u.all_dsacked() && u.may_undo(None));
    }

    #[test]
    fn eifel_an_echo_older_than_the_first_retransmission_means_spurious() {
        let mut u = Undo::default();
        u.init(0, 0, 30, 30);
        let ms = |m| SimTime::ZERO + SimDuration::from_ms(m);
        u.on_retransmit(ms(100));
        assert!(u.may_undo(Some(ms(60))));
        assert!(!u.may_undo(Some(ms(100))));
        assert!(!u.may_undo(None));
        // An echo of 0 (what a SYN's timestamp carries here) says nothing.
        assert!(!u.may_undo(Some(SimTime::ZERO)));
    }
}
