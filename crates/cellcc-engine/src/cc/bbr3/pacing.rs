//! BBRv3 pacing rate and TSO burst size: Linux `bbr_set_pacing_rate`, `bbr_tso_segs_generic` (v3 tcp_bbr.c).
//!
//! pacing = gain x bw x (1 - 1%), never lowered before the pipe is full;
//! the initial rate is startup_pacing_gain x cwnd / SRTT. The TSO goal (~1 ms
//! of data plus an allowance that halves per 512 µs of min RTT) feeds the
//! cwnd quantization budget and, against the socket's GSO limits, sizes the
//! sender's bursts (`tso_segs`, in place of `tcp_tso_autosize`).

use super::{Bbr3, ConnView, BBR_SCALE, BW_SCALE, BW_UNIT};
use crate::tcp::tso::{GSO_LEGACY_MAX_BYTES, LINUX_TCP_MIN_TSO_SEGS, MAX_TCP_HEADER_BYTES, PACING_SHIFT};

/// Linux `bbr_tso_rtt_shift`: halve the RTT-based TSO allowance per 2^9 µs of min RTT.
const TSO_RTT_SHIFT: u32 = 9;
/// Linux `USEC_PER_SEC`.
const US_PER_S: u64 = 1_000_000;
/// Linux: the nominal RTT before any sample, µs.
const NOMINAL_RTT_US: u64 = 1_000;

impl Bbr3 {
    /// Linux `bbr_rate_bytes_per_sec` (at least 1 byte/s).
    pub(super) fn rate_bytes_per_sec(&self, rate: u64, gain: u32, margin_pct: u64) -> u64 {
        let r = (rate as u128 * self.mss_bytes as u128 * gain as u128) >> BBR_SCALE;
        let r = (r * (US_PER_S / 100 * (100 - margin_pct)) as u128) >> BW_SCALE;
        (r as u64).max(1)
    }

    /// Linux `bbr_bw_to_pacing_rate`, 1% below the bandwidth (`bbr_pacing_margin_percent`).
    pub(super) fn pacing_rate_for(&self, bw: u32, gain: u32) -> u64 {
        const PACING_MARGIN_PCT: u64 = 1;
        self.rate_bytes_per_sec(bw as u64, gain, PACING_MARGIN_PCT)
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`.
    pub(super) fn init_pacing_rate_from_rtt(&mut self, conn: &ConnView) {
        let rtt_us = match conn.srtt {
            Some(srtt) => {
                self.has_seen_rtt = true;
                srtt.as_us().max(1)
            }
            None => NOMINAL_RTT_US,
        };
        let bw = self.w.cwnd as u64 * BW_UNIT / rtt_us;
        self.pacing_rate_bytes_ps = self.pacing_rate_for(bw.min(u32::MAX as u64) as u32, self.cfg.startup_pacing_gain);
    }

    /// Linux `bbr_set_pacing_rate`.
    pub(super) fn set_pacing_rate(&mut self, conn: &ConnView, bw: u32, gain: u32) {
        let rate = self.pacing_rate_for(bw, gain);
        if !self.has_seen_rtt && conn.srtt.is_some() {
            self.init_pacing_rate_from_rtt(conn);
        }
        if self.full_bw_reached || rate > self.pacing_rate_bytes_ps {
            self.pacing_rate_bytes_ps = rate;
        }
    }

    /// Linux `bbr_tso_segs_goal` (v3): the cwnd budget's burst, against the legacy GSO size.
    pub(super) fn tso_segs_goal(&self) -> u32 {
        self.tso_segs_generic(self.mss_bytes, GSO_LEGACY_MAX_BYTES, LINUX_TCP_MIN_TSO_SEGS)
    }

    /// Linux `bbr_tso_segs_generic` (v3): ~1 ms at the pacing rate plus an allowance that halves
    /// per 512 µs of min RTT, at most `gso_max_bytes` less the header reserve.
    pub(super) fn tso_segs_generic(&self, mss_bytes: u32, gso_max_bytes: u64, min_tso_segs: u32) -> u32 {
        let mut bytes = self.pacing_rate_bytes_ps >> PACING_SHIFT;
        let r = self.min_rtt_us >> TSO_RTT_SHIFT;
        if r < u32::BITS {
            bytes += GSO_LEGACY_MAX_BYTES >> r;
        }
        let bytes = bytes.min(gso_max_bytes - 1 - MAX_TCP_HEADER_BYTES);
        ((bytes / mss_bytes.max(1) as u64) as u32).max(min_tso_segs)
    }
}
