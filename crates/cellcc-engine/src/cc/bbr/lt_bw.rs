//! BBR long-term ("policer") bandwidth estimator: Linux `bbr_lt_bw_sampling` (net/ipv4/tcp_bbr.c).
//!
//! Token-bucket policers drop everything above their rate. BBR samples the
//! average delivery rate over intervals of 4..16 rounds that start and end
//! with a loss; two consecutive lossy (>= 20%) intervals with consistent rates
//! (within 1/8 or 4 kbit/s) mean "policed": BBR then paces at their average
//! (pacing gain 1) for 48 rounds before probing again. Same as Linux, with
//! `tp->delivered_mstamp` taken as the hook's `conn.now`.

use super::{Bbr, ConnView, Mode, RateSample, BBR_SCALE, BBR_UNIT, BW_UNIT};

/// Linux `bbr_lt_intvl_min_rtts`: minimum rounds in a sampling interval.
const LT_INTVL_MIN_RTTS: u32 = 4;
/// Linux: an interval longer than 4x the minimum is abandoned.
const LT_INTVL_MAX_RTTS: u32 = 4 * LT_INTVL_MIN_RTTS;
/// Linux `bbr_lt_bw_ratio`: two rates within 1/8 (in 1/256) are consistent.
const LT_BW_RATIO: u64 = BBR_UNIT as u64 / 8;
/// Linux `bbr_lt_bw_diff`: two rates within 4 kbit/s (500 bytes/s) are consistent.
const LT_BW_DIFF_BYTES_PS: u64 = 4000 / 8;
/// Linux `USEC_PER_MSEC`: interval stamps are kept in ms.
const US_PER_MS: u64 = 1_000;

/// Linux `lt_is_sampling`, `lt_rtt_cnt`, `lt_use_bw`, `lt_bw`, `lt_last_*`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct LtBw {
    is_sampling: bool,
    rtt_cnt: u32,
    /// The policer estimate replaces the max filter.
    pub use_bw: bool,
    /// Policed rate (packets/µs << 24), or the previous interval's rate.
    pub bw: u32,
    last_delivered: u64,
    last_stamp_ms: u64,
    last_lost: u64,
}

impl LtBw {
    /// Linux `bbr_reset_lt_bw_sampling_interval`.
    fn reset_interval(&mut self, conn: &ConnView) {
        self.last_stamp_ms = conn.now.as_ns() / crate::sim::time::NS_PER_MS;
        self.last_delivered = conn.delivered;
        self.last_lost = conn.lost;
        self.rtt_cnt = 0;
    }

    /// Linux `bbr_reset_lt_bw_sampling`.
    pub(super) fn reset(&mut self, conn: &ConnView) {
        self.bw = 0;
        self.use_bw = false;
        self.is_sampling = false;
        self.reset_interval(conn);
    }
}

impl Bbr {
    /// Linux `bbr_lt_bw_sampling`.
    pub(super) fn lt_bw_sampling(&mut self, conn: &ConnView, rs: &RateSample) {
        if self.lt.use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt.rtt_cnt += 1;
                if self.lt.rtt_cnt >= self.cfg.lt_bw_max_rtts {
                    self.lt.reset(conn);
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // Start sampling at the first loss, once the policer's tokens are spent.
        if !self.lt.is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.lt.reset_interval(conn);
            self.lt.is_sampling = true;
        }
        if rs.is_app_limited {
            self.lt.reset(conn);
            return;
        }
        if self.round_start {
            self.lt.rtt_cnt += 1;
        }
        if self.lt.rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt.rtt_cnt > LT_INTVL_MAX_RTTS {
            self.lt.reset(conn);
            return;
        }
        // End the interval at a loss, when the tokens are exhausted again.
        if rs.losses == 0 {
            return;
        }
        let lost = conn.lost - self.lt.last_lost;
        let delivered = conn.delivered - self.lt.last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < self.cfg.lt_loss_thresh as u64 * delivered {
            return;
        }
        let t_ms = (conn.now.as_ns() / crate::sim::time::NS_PER_MS).saturating_sub(self.lt.last_stamp_ms);
        if t_ms < 1 {
            return;
        }
        let bw = (delivered * BW_UNIT / (t_ms * US_PER_MS)).min(u32::MAX as u64) as u32;
        self.lt_bw_interval_done(conn, bw);
    }

    /// Linux `bbr_lt_bw_interval_done`: two consistent lossy intervals mean a policer.
    fn lt_bw_interval_done(&mut self, conn: &ConnView, bw: u32) {
        if self.lt.bw > 0 {
            let diff = bw.abs_diff(self.lt.bw) as u64;
            let close_ratio = diff * BBR_UNIT as u64 <= LT_BW_RATIO * self.lt.bw as u64;
            if close_ratio || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF_BYTES_PS {
                self.lt.bw = ((bw as u64 + self.lt.bw as u64) >> 1) as u32;
                self.lt.use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt.rtt_cnt = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.lt.reset_interval(conn);
    }
}
