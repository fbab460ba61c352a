//! When the receiver ACKs, as Linux decides it (net/ipv4/tcp_input.c
//! `tcp_incr_quickack`, `tcp_enter_quickack_mode`, `tcp_event_data_recv`,
//! `__tcp_ack_snd_check`; net/ipv4/tcp_output.c `tcp_send_delayed_ack`,
//! include/net/tcp.h `tcp_dec_quickack_mode`).
//!
//! ```text
//!  first data / a duplicate ─► quick-ACK mode: the next min(rwnd / 2 MSS, 16) ACKs go at once
//!  otherwise: ACK every second full segment (RFC 5681 §4.2), a lone one after `ato`
//!  ato: starts at 40 ms, follows the inter-arrival time (ato/2 + gap), capped by the RTT
//! ```
//!
//! What differs from Linux: no ping-pong (interactive) mode and no PSH
//! handling (a bulk receiver never sends data); SACK compression
//! (`tcp_comp_sack_*`) is not modelled.

use crate::sim::{SimDuration, SimTime};

/// Linux `TCP_MAX_QUICKACKS` (include/net/tcp.h): most ACKs sent at once in quick-ACK mode.
pub const MAX_QUICKACKS: u32 = 16;
/// Linux `tcp_incr_quickack`: the count when the window holds less than two segments.
const MIN_QUICKACKS: u32 = 2;
/// Linux `tcp_send_delayed_ack`: `max_ato = HZ / 2` outside ping-pong mode.
pub const MAX_ATO: SimDuration = SimDuration::from_ms(500);

/// The receiver's delayed-ACK engine (Linux `icsk->icsk_ack`).
#[derive(Clone, Copy, Debug)]
pub struct AckClock {
    /// `icsk_ack.quick`: ACKs still to send at once.
    quick: u32,
    /// `icsk_ack.ato`; `None` until the first data segment.
    ato: Option<SimDuration>,
    /// `icsk_ack.lrcvtime`: when the last in-order data arrived.
    last_rcv: SimTime,
    /// TCP_ATO_MIN = TCP_DELACK_MIN (the scenario's delayed-ACK timeout, 40 ms in Linux).
    ato_min: SimDuration,
}

impl AckClock {
    pub fn new(ato_min: SimDuration) -> Self {
        AckClock { quick: 0, ato: None, last_rcv: SimTime::ZERO, ato_min }
    }

    /// In quick-ACK mode (`tcp_in_quickack_mode`): ACK every segment now.
    pub fn quick(&self) -> bool {
        self.quick > 0
    }

    pub fn quick_left(&self) -> u32 {
        self.quick
    }

    /// Linux `tcp_incr_quickack`: window / (2 * MSS) ACKs, at least 2, at most `max`.
    pub fn incr_quickack(&mut self, rcv_wnd_bytes: u64, rcv_mss_bytes: u32, max: u32) {
        let n = (rcv_wnd_bytes / (2 * rcv_mss_bytes.max(1) as u64)).min(u32::MAX as u64) as u32;
        let n = if n == 0 { MIN_QUICKACKS } else { n }.min(max);
        self.quick = self.quick.max(n);
    }

    /// Linux `tcp_grow_window`: a segment that grew the window is ACKed at once
    /// (`icsk_ack.quick |= 1`).
    pub fn grant_one(&mut self) {
        self.quick |= 1;
    }

    /// Linux `__tcp_select_window`: less than half the buffer free ends quick-ACK mode
    /// (`icsk_ack.quick = 0`).
    pub fn leave_quickack(&mut self) {
        self.quick = 0;
    }

    /// Linux `tcp_enter_quickack_mode`: more quick ACKs and the minimum ato.
    pub fn enter_quickack_mode(&mut self, rcv_wnd_bytes: u64, rcv_mss_bytes: u32, max: u32) {
        self.incr_quickack(rcv_wnd_bytes, rcv_mss_bytes, max);
        self.ato = Some(self.ato_min);
    }

    /// Linux `tcp_event_data_recv`: in-order data arrived; adapt ato to the gap since
    /// the last one (the first data starts quick-ACK mode).
    pub fn on_data(&mut self, now: SimTime, rcv_wnd_bytes: u64, rcv_mss_bytes: u32, rto: SimDuration) {
        let half_min = SimDuration::from_ns(self.ato_min.as_ns() / 2);
        match self.ato {
            None => {
                self.incr_quickack(rcv_wnd_bytes, rcv_mss_bytes, MAX_QUICKACKS);
                self.ato = Some(self.ato_min);
            }
            Some(ato) => {
                let gap = now.saturating_since(self.last_rcv);
                let half = SimDuration::from_ns(ato.as_ns() / 2);
                if gap <= half_min {
                    self.ato = Some(half + half_min);
                } else if gap < ato {
                    let next = half + gap;
                    self.ato = Some(if next > rto { rto } else { next });
                } else if gap > rto {
                    // The sender sat idle longer than an RTO: ACK its restart quickly.
                    self.incr_quickack(rcv_wnd_bytes, rcv_mss_bytes, MAX_QUICKACKS);
                }
            }
        }
        self.last_rcv = now;
    }

    /// Linux `tcp_dec_quickack_mode`: one ACK went out.
    pub fn on_ack_sent(&mut self) {
        if self.quick > 1 {
            self.quick -= 1;
        } else if self.quick == 1 {
            // Leaving quick-ACK mode deflates ato.
            self.quick = 0;
            self.ato = Some(self.ato_min);
        }
    }

    /// Linux `tcp_send_delayed_ack`: the timer for a lone segment, ato bounded by
    /// 500 ms and by the connection's RTT estimate (at least TCP_DELACK_MIN).
    pub fn delay(&self, srtt: Option<SimDuration>) -> SimDuration {
        let ato = self.ato.unwrap_or(self.ato_min);
        if ato <= self.ato_min {
            return ato;
        }
        let mut max_ato = MAX_ATO;
        if let Some(rtt) = srtt {
            let rtt = if rtt < self.ato_min { self.ato_min } else { rtt };
            if rtt < max_ato {
                max_ato = rtt;
            }
        }
        if ato < max_ato {
            ato
        } else {
            max_ato
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> SimDuration = SimDuration::from_ms;

    #[test]
    fn quick_acks_are_half_the_window_in_segments_capped_at_16() {
        let mut c = AckClock::new(MS(40));
        // 64 KiB window, 1448-byte segments: 65536 / 2896 = 22 -> capped at 16.
        c.incr_quickack(65_536, 1448, MAX_QUICKACKS);
        assert_eq!(c.quick_left(), 16);
        let mut small = AckClock::new(MS(40));
        // 10 segments of window: 10 / 2 = 5.
        small.incr_quickack(14_480, 1448, MAX_QUICKACKS);
        assert_eq!(small.quick_left(), 5);
        // Less than two segments: at least 2.
        let mut tiny = AckClock::new(MS(40));
        tiny.incr_quickack(1000, 1448, MAX_QUICKACKS);
        assert_eq!(tiny.quick_left(), 2);
    }

    #[test]
    fn ato_follows_the_inter_arrival_gap_and_is_bounded_by_the_rtt() {
        let mut c = AckClock::new(MS(40));
        let t = |ms| SimTime::ZERO + SimDuration::from_ms(ms);
        c.on_data(t(0), 1 << 20, 1000, MS(1000));
        assert_eq!(c.delay(Some(MS(100))), MS(40));
        // A 30 ms gap (between ato_min/2 = 20 and ato = 40): ato = 40/2 + 30 = 50 ms.
        c.on_data(t(30), 1 << 20, 1000, MS(1000));
        assert_eq!(c.delay(Some(MS(100))), MS(50));
        // The RTT bounds it: min(50, max(RTT 45, 40)) = 45 ms.
        assert_eq!(c.delay(Some(MS(45))), MS(45));
        // Back-to-back data (gap <= 20 ms): ato = 50/2 + 20 = 45, then 42.5, ... towards 40.
        c.on_data(t(31), 1 << 20, 1000, MS(1000));
        assert_eq!(c.delay(Some(MS(100))), MS(45));
    }
}
