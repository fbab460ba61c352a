//! Pacing release times, as Linux net/ipv4/tcp_output.c (`tcp_update_skb_after_send`,
//! `tcp_pacing_check`, `tcp_write_xmit`).
//!
//! Linux paces socket buffers, not segments: each pacing release sends one skb of up to
//! `tso_segs` segments back to back (the congestion control's `tso_segs`, e.g. BBR's
//! `bbr_tso_segs`, 2 segments at 10 Mbit/s), and the next release comes the skb's payload
//! time later. The engine sends MSS-sized packets, so a burst of `tso_segs` packets at one
//! instant stands for the skb; the release time is computed on the burst's bytes so far,
//! which after its last segment is Linux's time for the whole skb.
//!
//! ```text
//!  release at t ─► seg 1, seg 2 (same t, one "skb") ─► next release t + (bytes / rate - credit)
//! ```

use crate::sim::{SimDuration, SimTime};

/// Linux `tcp_update_skb_after_send`: "Original sch_fq does not pace first 10 MSS".
pub(super) const UNPACED_SEGMENTS: u64 = 10;

/// The skb being sent at one pacing release.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Burst {
    /// The instant of the release.
    at: SimTime,
    /// `tp->tcp_wstamp_ns` before the release (`prior_wstamp`).
    prior: SimTime,
    /// Payload bytes in the burst so far.
    bytes: u64,
    /// Segments the burst may still take.
    segs_left: u32,
}

impl Burst {
    /// Another segment may join the burst released at `now`, past the pacing gate.
    pub(super) fn open(&self, now: SimTime) -> bool {
        self.segs_left > 0 && self.at == now
    }

    /// No further segment joins this burst (the sender had nothing more it could send).
    pub(super) fn close(&mut self) {
        self.segs_left = 0;
    }

    /// A paced segment of `payload_bytes` left at `now`; `next_send_at` is the release time
    /// in force, `tso_segs` the burst size, `segs_sent` data segments sent, this one included.
    /// Returns the next release time.
    pub(super) fn on_sent(
        &mut self,
        next_send_at: SimTime,
        now: SimTime,
        payload_bytes: u32,
        rate_bps: u64,
        tso_segs: u32,
        segs_sent: u64,
    ) -> SimTime {
        if self.open(now) {
            self.segs_left -= 1;
            self.bytes += payload_bytes as u64;
        } else {
            *self = Burst { at: now, prior: next_send_at, bytes: payload_bytes as u64, segs_left: tso_segs.max(1) - 1 };
        }
        next_departure(self.prior, now, self.bytes, rate_bps, segs_sent)
    }
}

/// Linux `tcp_update_skb_after_send`: the earliest departure after an skb of `payload_bytes`
/// (the write-queue skb has no headers) at the pacing rate; the first `UNPACED_SEGMENTS` go
/// unpaced, and time the sender spent idle beyond its schedule (`prior`) is credited against
/// up to half of the gap.
fn next_departure(prior: SimTime, now: SimTime, payload_bytes: u64, rate_bps: u64, segs_sent: u64) -> SimTime {
    let start = prior.max(now);
    if segs_sent < UNPACED_SEGMENTS {
        return start;
    }
    let gap = SimDuration::transmission(payload_bytes, rate_bps);
    let credit = start - prior;
    let half = SimDuration::from_ns(gap.as_ns() / 2);
    start + (gap - if credit < half { credit } else { half })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(us: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_us(us)
    }

    #[test]
    fn pacing_spaces_payload_bytes_after_ten_segments_with_idle_credit() {
        // 1448 payload bytes at 11.584 Mbit/s = 1 ms; the first 10 segments are not paced.
        assert_eq!(next_departure(t(0), t(0), 1448, 11_584_000, 9), t(0));
        assert_eq!(next_departure(t(0), t(0), 1448, 11_584_000, 10), t(1000));
        // Sending 300 us behind schedule: a 300 us credit shortens the gap to 700 us.
        assert_eq!(next_departure(t(1000), t(1300), 1448, 11_584_000, 11), t(2000));
        // Idle for long: the credit is capped at half the gap.
        assert_eq!(next_departure(t(1000), t(9000), 1448, 11_584_000, 12), t(9500));
    }

    #[test]
    fn a_two_segment_burst_is_paced_as_one_skb() {
        // 1448 B at 11.584 Mbit/s = 1 ms per segment. Release due at 1000 us, sent at 1300 us:
        // the skb of 2 x 1448 B takes 2 ms, less the 300 us credit (under half of 2 ms) -> 3000 us.
        let mut b = Burst::default();
        let first = b.on_sent(t(1000), t(1300), 1448, 11_584_000, 2, 11);
        assert_eq!(first, t(2000), "after one segment: 1 ms less 300 us credit");
        assert!(b.open(t(1300)), "the second segment joins at the same instant");
        let second = b.on_sent(first, t(1300), 1448, 11_584_000, 2, 12);
        assert_eq!(second, t(3000));
        assert!(!b.open(t(1300)), "two segments fill the burst");
        // The next release starts a new burst from the skb's release time, no credit (sent on time).
        assert_eq!(b.on_sent(second, t(3000), 1448, 11_584_000, 2, 13), t(4000));
    }

    #[test]
    fn a_closed_or_later_burst_takes_no_more_segments() {
        let mut b = Burst::default();
        b.on_sent(t(0), t(0), 1448, 11_584_000, 3, 20);
        assert!(b.open(t(0)));
        assert!(!b.open(t(1)), "a later instant is a new release");
        b.close();
        assert!(!b.open(t(0)));
    }

    #[test]
    fn a_burst_of_one_is_per_segment_pacing() {
        let mut b = Burst::default();
        assert_eq!(b.on_sent(t(0), t(0), 1448, 11_584_000, 1, 20), t(1000));
        assert!(!b.open(t(0)));
    }
}
