//! How many segments a paced sender lets leave back to back: Linux builds one TSO/GSO skb of
//! up to `tcp_tso_segs` segments per pacing release and paces the whole skb's length
//! (net/ipv4/tcp_output.c `tcp_write_xmit`, `tcp_tso_segs`, `tcp_tso_autosize`,
//! `tcp_update_skb_after_send`). TCP always uses GSO (`sk_setup_caps` sets NETIF_F_GSO for TCP
//! sockets), so software segmentation turns the skb into MSS packets that leave together even
//! on a device without TSO, such as the Linux backend's TUN links.
//!
//! ```text
//!  pacing release ─► burst of tso_segs segments (cwnd and data permitting) ─► wait for
//!                    their whole length at the pacing rate ─► next release
//! ```

use crate::sim::{SimDuration, SimTime};

/// Linux `sk_pacing_shift` default (net/core/sock.c `sock_init_data`): a burst holds about
/// 2^-10 s of data at the pacing rate.
pub const PACING_SHIFT: u32 = 10;
/// Linux `net.ipv4.tcp_tso_rtt_log` default (ip-sysctl.rst): the min-RTT allowance halves per
/// 2^9 us of min RTT.
const TSO_RTT_LOG: u32 = 9;
/// Linux `GSO_LEGACY_MAX_SIZE` (include/linux/netdevice.h): a device's default `gso_max_size`.
pub const GSO_LEGACY_MAX_BYTES: u64 = 65_536;
/// Linux `MAX_TCP_HEADER` (include/net/tcp.h, `L1_CACHE_ALIGN(128 + MAX_HEADER)`): the header
/// room of an skb. 256 on the Linux backend's kernel (6.18 x86-64, a small config), where its
/// `sk_sndbuf` of 46,080 B at set-up (`tcp_sndbuf_expand`'s 2 x 10 x 2,304) and 832 B of truesize
/// per payload-less skb, both read with SO_MEMINFO, fix it; distribution configs have 320.
pub const MAX_TCP_HEADER_BYTES: u64 = 256;
/// Linux `sk_gso_max_size` on a device with the default `gso_max_size`: `sk_setup_caps` takes
/// `MAX_TCP_HEADER + 1` off it.
pub const SK_GSO_MAX_BYTES: u64 = GSO_LEGACY_MAX_BYTES - MAX_TCP_HEADER_BYTES - 1;
/// Linux `net.ipv4.tcp_min_tso_segs` default (ip-sysctl.rst).
pub const LINUX_TCP_MIN_TSO_SEGS: u32 = 2;
/// Linux `GSO_MAX_SEGS`: a device's default `gso_max_segs` (include/linux/netdevice.h).
pub const LINUX_GSO_MAX_SEGS: u32 = 65_535;

/// What bounds a burst beyond the pacing rate: the sysctl floor and the device's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GsoLimits {
    /// `net.ipv4.tcp_min_tso_segs` (an algorithm's `min_tso_segs` replaces it).
    pub min_tso_segs: u32,
    /// The device's `gso_max_segs`: 1 sends every segment on its own pacing release.
    pub max_segs: u32,
    /// `sk_gso_max_size`.
    pub max_bytes: u64,
}

/// Linux `tcp_tso_autosize`: about 1 ms of data at the pacing rate, plus an allowance of
/// `max_bytes >> (min_rtt / 512 us)` for close peers, in whole segments, at least `min_segs`.
pub fn autosize(
    pacing_rate_bytes_ps: u64,
    min_rtt: Option<SimDuration>,
    mss_bytes: u32,
    min_segs: u32,
    gso: &GsoLimits,
) -> u32 {
    let mut bytes = pacing_rate_bytes_ps >> PACING_SHIFT;
    // Linux tcp_min_rtt is ~0U before a sample: no allowance.
    if let Some(rtt) = min_rtt {
        let r = rtt.as_us() >> TSO_RTT_LOG;
        if r < u32::BITS as u64 {
            bytes += gso.max_bytes >> r;
        }
    }
    let segs = bytes.min(gso.max_bytes) / mss_bytes.max(1) as u64;
    (segs.min(u32::MAX as u64) as u32).max(min_segs)
}

/// The burst now leaving: Linux sizes one skb per `tcp_write_xmit` pass, so a burst lives
/// for one send loop at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TsoBurst {
    at: SimTime,
    segs_left: u32,
    /// Idle time beyond the pacing schedule not yet credited (`tcp_update_skb_after_send`
    /// credits at most half of the skb's pacing gap).
    credit: SimDuration,
}

impl TsoBurst {
    /// Whether one more segment may leave at `now` without waiting for the pacing clock.
    pub fn continues(&self, now: SimTime) -> bool {
        self.segs_left > 0 && self.at == now
    }

    /// The send loop ended: the skb is complete.
    pub fn end(&mut self) {
        self.segs_left = 0;
    }

    /// Account one paced segment of `payload_bytes` and return the next departure time.
    /// `segs` (the burst size) is asked for only when the segment starts a burst; without
    /// `gap_counts` (the connection's first segments, as fq's first 10) it adds no gap.
    pub fn on_sent(
        &mut self,
        now: SimTime,
        next_send_at: SimTime,
        payload_bytes: u32,
        rate_bps: u64,
        gap_counts: bool,
        segs: impl FnOnce() -> u32,
    ) -> SimTime {
        let start = if self.continues(now) {
            self.segs_left -= 1;
            next_send_at
        } else {
            let start = next_send_at.max(now);
            *self = TsoBurst { at: now, segs_left: segs().max(1) - 1, credit: start - next_send_at };
            start
        };
        if !gap_counts {
            return start;
        }
        let gap = SimDuration::transmission(payload_bytes as u64, rate_bps);
        let half = SimDuration::from_ns(gap.as_ns() / 2);
        let used = if self.credit < half { self.credit } else { half };
        self.credit = self.credit - used;
        start + (gap - used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;
    const TUN: GsoLimits =
        GsoLimits { min_tso_segs: LINUX_TCP_MIN_TSO_SEGS, max_segs: LINUX_GSO_MAX_SEGS, max_bytes: SK_GSO_MAX_BYTES };

    fn ms(v: u64) -> Option<SimDuration> {
        Some(SimDuration::from_ms(v))
    }

    #[test]
    fn a_10_mbit_flow_sends_the_floor_of_two_segments() {
        // 12.5 Mbit/s = 1,562,500 B/s; >> 10 = 1,525 B = 1 segment, raised to the floor 2.
        assert_eq!(autosize(1_562_500, ms(40), MSS, 2, &TUN), 2);
        assert_eq!(autosize(1_562_500, ms(40), MSS, 1, &TUN), 1);
    }

    #[test]
    fn a_100_mbit_flow_sends_about_a_millisecond_of_data() {
        // 12,500,000 B/s >> 10 = 12,207 B = 8 segments of 1448 B.
        assert_eq!(autosize(12_500_000, ms(20), MSS, 2, &TUN), 8);
    }

    #[test]
    fn close_peers_get_the_min_rtt_allowance() {
        // min RTT 1,024 us: r = 2, allowance 65,215 >> 2 = 16,303 B; with 1,525 B from the
        // rate, 17,828 B = 12 segments. At 16.4 ms (r = 32) the allowance is gone.
        assert_eq!(autosize(1_562_500, Some(SimDuration::from_us(1_024)), MSS, 2, &TUN), 12);
        assert_eq!(autosize(1_562_500, Some(SimDuration::from_us(16_384)), MSS, 2, &TUN), 2);
        assert_eq!(autosize(1_562_500, None, MSS, 2, &TUN), 2);
    }

    #[test]
    fn the_burst_is_capped_by_the_gso_size() {
        // 1 GB/s >> 10 = 976,562 B, capped at 65,215 B = 45 segments.
        assert_eq!(autosize(1_000_000_000, ms(50), MSS, 2, &TUN), 45);
    }

    #[test]
    fn a_burst_leaves_together_and_waits_for_its_whole_length() {
        // Two 1448-B segments at 11.584 Mbit/s: 1 ms each; the pair leaves at t, the next at t + 2 ms.
        let rate = 11_584_000;
        let t = SimTime::ZERO + SimDuration::from_ms(100);
        let mut b = TsoBurst::default();
        let after_first = b.on_sent(t, t, MSS, rate, true, || 2);
        assert!(b.continues(t));
        let after_second = b.on_sent(t, after_first, MSS, rate, true, || unreachable!());
        assert!(!b.continues(t));
        assert_eq!(after_second, t + SimDuration::from_ms(2));
    }

    #[test]
    fn idle_time_is_credited_up_to_half_the_bursts_gap() {
        // The clock said t; the sender comes 5 ms late: each segment's 1 ms gap is halved.
        let rate = 11_584_000;
        let t = SimTime::ZERO + SimDuration::from_ms(100);
        let late = t + SimDuration::from_ms(5);
        let mut b = TsoBurst::default();
        let n1 = b.on_sent(late, t, MSS, rate, true, || 2);
        let n2 = b.on_sent(late, n1, MSS, rate, true, || unreachable!());
        assert_eq!(n2, late + SimDuration::from_ms(1));
    }

    #[test]
    fn the_first_segments_leave_unpaced_and_a_late_sender_gets_credit() {
        let rate = 11_584_000;
        let t = |us| SimTime::ZERO + SimDuration::from_us(us);
        let mut b = TsoBurst::default();
        assert_eq!(b.on_sent(t(0), t(0), MSS, rate, false, || 1), t(0));
        // 300 us behind schedule: the 1 ms gap shrinks by 300 us.
        assert_eq!(b.on_sent(t(1300), t(1000), MSS, rate, true, || 1), t(2000));
    }

    #[test]
    fn a_burst_ends_with_its_send_loop_and_at_another_instant() {
        let t = SimTime::ZERO + SimDuration::from_ms(1);
        let mut b = TsoBurst::default();
        b.on_sent(t, t, MSS, 10_000_000, true, || 3);
        assert!(b.continues(t) && !b.continues(t + SimDuration::from_ns(1)));
        b.end();
        assert!(!b.continues(t));
    }
}
