//! Compressed SACKs: Linux `__tcp_ack_snd_check` (net/ipv4/tcp_input.c, since 4.18). While
//! out-of-order data waits and no other rule asks for an ACK now, the first three duplicate
//! ACKs for one `rcv_nxt` go at once (what the sender's fast retransmit needs); later ones are
//! held for a timer of 5 % of the RTT, at most `tcp_comp_sack_delay_ns` (1 ms), and leave as
//! one ACK carrying the newest SACK blocks. At most `tcp_comp_sack_nr` are held; 0 turns the
//! compression off. Any ACK sent ends the holding; the receiver also sends the held ones before
//! its SACK list forgets a block (`tcp_sack_compress_send_ack`, in `tcp/receiver.rs`).
//!
//! ```text
//!  SACK due ─► rcv_nxt moved? reset count ─► count < 3: send ─► else hold, arm timer once
//!  timer fires ─► send one ACK            any ACK sent ─► held = 0, timer off
//! ```

use crate::sim::{SimDuration, SimTime};

/// Linux `TCP_FASTRETRANS_THRESH`: duplicate ACKs sent at once per `rcv_nxt`.
const DUP_ACKS_SENT_AT_ONCE: u32 = 3;
/// Linux `net.ipv4.tcp_comp_sack_delay_ns` default (ip-sysctl.rst): the longest hold.
const COMP_SACK_DELAY: SimDuration = SimDuration::from_ms(1);
/// `__tcp_ack_snd_check`: "compress ack timer : 5 % of rtt".
const RTT_DIVISOR: u64 = 20;
/// Linux `net.ipv4.tcp_comp_sack_nr` default (ip-sysctl.rst).
pub const LINUX_TCP_COMP_SACK_NR: u32 = 44;
/// Largest valid `tcp_comp_sack_nr` (a u8 sysctl, net/ipv4/sysctl_net_ipv4.c).
pub const MAX_TCP_COMP_SACK_NR: u32 = 255;

/// What to do with a SACK-carrying ACK that is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackAck {
    Now,
    Held,
}

/// Linux `tp->compressed_ack`, `compressed_ack_rcv_nxt`, `dup_ack_counter`, `compressed_ack_timer`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompSack {
    rcv_nxt: u64,
    dup_acks: u32,
    held: u32,
    timer_at: Option<SimTime>,
}

impl CompSack {
    /// A SACK is due at `now` with `rcv_nxt`; `rtt` is the receiver's estimate (the lower of
    /// its receive-side RTT and SRTT; none counts as zero, as in Linux); `max_held` is
    /// `tcp_comp_sack_nr`.
    pub fn on_sack_due(&mut self, now: SimTime, rcv_nxt: u64, rtt: Option<SimDuration>, max_held: u32) -> SackAck {
        if self.held >= max_held {
            return SackAck::Now;
        }
        if self.rcv_nxt != rcv_nxt {
            self.rcv_nxt = rcv_nxt;
            self.dup_acks = 0;
        }
        if self.dup_acks < DUP_ACKS_SENT_AT_ONCE {
            self.dup_acks += 1;
            return SackAck::Now;
        }
        self.held += 1;
        if self.timer_at.is_none() {
            let share = SimDuration::from_ns(rtt.unwrap_or(SimDuration::ZERO).as_ns() / RTT_DIVISOR);
            self.timer_at = Some(now + share.min(COMP_SACK_DELAY));
        }
        SackAck::Held
    }

    /// When the held SACKs must go, if any are held.
    pub fn timer(&self) -> Option<SimTime> {
        self.timer_at
    }

    /// The timer at `now`: true when the held SACKs are due (`tcp_compressed_ack_kick`).
    pub fn on_timeout(&mut self, now: SimTime) -> bool {
        let due = self.timer_at.is_some_and(|t| now >= t);
        if due {
            self.timer_at = None;
        }
        due && self.held > 0
    }

    /// Whether duplicate ACKs are being held (Linux `tp->compressed_ack` != 0).
    pub fn holds(&self) -> bool {
        self.held > 0
    }

    /// Any ACK went out: nothing is held any more.
    pub fn on_ack_sent(&mut self) {
        self.held = 0;
        self.timer_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_us(us: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_us(us)
    }

    #[test]
    fn three_duplicates_go_at_once_then_the_rest_wait_for_the_timer() {
        let mut c = CompSack::default();
        let rtt = Some(SimDuration::from_ms(10));
        for _ in 0..3 {
            assert_eq!(c.on_sack_due(at_us(0), 5000, rtt, LINUX_TCP_COMP_SACK_NR), SackAck::Now);
        }
        assert_eq!(c.on_sack_due(at_us(10), 5000, rtt, LINUX_TCP_COMP_SACK_NR), SackAck::Held);
        assert_eq!(c.on_sack_due(at_us(20), 5000, rtt, LINUX_TCP_COMP_SACK_NR), SackAck::Held);
        // 5 % of 10 ms = 500 us from the first held one, armed once.
        assert_eq!(c.timer(), Some(at_us(510)));
        assert!(!c.on_timeout(at_us(509)));
        assert!(c.on_timeout(at_us(510)));
        assert_eq!(c.timer(), None);
    }

    #[test]
    fn the_hold_is_at_most_a_millisecond_and_a_new_rcv_nxt_restarts_the_count() {
        let mut c = CompSack::default();
        let rtt = Some(SimDuration::from_ms(200));
        (0..3).for_each(|_| assert_eq!(c.on_sack_due(at_us(0), 1, rtt, 44), SackAck::Now));
        assert_eq!(c.on_sack_due(at_us(0), 1, rtt, 44), SackAck::Held);
        assert_eq!(c.timer(), Some(at_us(1_000)));
        c.on_ack_sent();
        assert_eq!(c.on_sack_due(at_us(5), 2, rtt, 44), SackAck::Now);
    }

    #[test]
    fn at_most_comp_sack_nr_are_held_and_zero_turns_it_off() {
        let mut c = CompSack::default();
        (0..3).for_each(|_| {
            c.on_sack_due(at_us(0), 1, None, 2);
        });
        assert_eq!(c.on_sack_due(at_us(0), 1, None, 2), SackAck::Held);
        assert_eq!(c.on_sack_due(at_us(0), 1, None, 2), SackAck::Held);
        assert_eq!(c.on_sack_due(at_us(0), 1, None, 2), SackAck::Now);
        assert_eq!(CompSack::default().on_sack_due(at_us(0), 1, None, 0), SackAck::Now);
    }
}
