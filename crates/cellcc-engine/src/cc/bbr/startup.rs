//! BBR Startup: full-pipe detection, Linux `bbr_check_full_bw_reached` (net/ipv4/tcp_bbr.c).
//!
//! Startup paces at high_gain (2/ln 2) times the bandwidth estimate, so the
//! sending rate doubles every round, like slow start but smooth. The pipe is
//! estimated full once the bandwidth estimate has not grown by 25% for three
//! non-app-limited rounds (Linux: one round for receive-window autotuning to
//! grow, one to fill it, one to see the higher delivery rate). Same as Linux.

use super::{Bbr, RateSample, BBR_SCALE};

/// Full-pipe detector state: Linux `full_bw_reached`, `full_bw`, `full_bw_cnt`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct FullBw {
    /// Startup has filled the pipe.
    pub reached: bool,
    /// Bandwidth (packets/µs << 24) at the last round that grew by the threshold.
    pub bw: u32,
    /// Rounds since then without that growth.
    pub cnt: u32,
}

impl Bbr {
    /// Linux `bbr_check_full_bw_reached`: once per round, outside app-limited periods.
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw.reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw_thresh = ((self.full_bw.bw as u64 * self.cfg.full_bw_thresh as u64) >> BBR_SCALE) as u32;
        if self.max_bw() >= bw_thresh {
            self.full_bw.bw = self.max_bw();
            self.full_bw.cnt = 0;
            return;
        }
        self.full_bw.cnt += 1;
        self.full_bw.reached = self.full_bw.cnt >= self.cfg.full_bw_cnt;
    }
}
