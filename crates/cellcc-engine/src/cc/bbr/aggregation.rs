//! BBR ACK-aggregation allowance: Linux `bbr_update_ack_aggregation`, `bbr_ack_aggregation_cwnd` (net/ipv4/tcp_bbr.c).
//!
//! Wi-Fi and cellular links deliver ACKs in bursts. BBR measures how many
//! packets were ACKed beyond what the bandwidth estimate predicts over an
//! epoch, keeps the max over 5-10 rounds, and adds it to the cwnd target so
//! sending continues through the silences between bursts. Same as Linux.

use super::{Bbr, ConnView, RateSample, BBR_SCALE, BW_UNIT};
use crate::sim::SimTime;

/// Linux `bbr_extra_acked_win_rtts`: rounds per half of the two-slot max filter.
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// Linux: `extra_acked_win_rtts` is a 5-bit field.
const EXTRA_ACKED_WIN_RTTS_MAX: u32 = 0x1f;
/// Linux `bbr_ack_epoch_acked_reset_thresh`: restart an epoch this old.
const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
/// Linux: `ack_epoch_acked` is a 20-bit field.
const ACK_EPOCH_ACKED_MAX: u32 = 0xF_FFFF;
/// Linux `bbr_extra_acked_max_us`: the allowance is at most 100 ms of data.
const EXTRA_ACKED_MAX_US: u64 = 100 * 1000;

/// Linux `ack_epoch_mstamp`, `ack_epoch_acked`, `extra_acked[2]`, `extra_acked_win_*`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct AckAggregation {
    epoch_stamp: SimTime,
    epoch_acked: u32,
    extra_acked: [u32; 2],
    win_rtts: u32,
    win_idx: usize,
}

impl AckAggregation {
    /// Start a new sampling epoch now.
    pub(super) fn reset_epoch(&mut self, now: SimTime) {
        self.epoch_stamp = now;
        self.epoch_acked = 0;
    }
}

impl Bbr {
    /// Linux `bbr_update_ack_aggregation`.
    pub(super) fn update_ack_aggregation(&mut self, conn: &ConnView, rs: &RateSample) {
        if self.cfg.extra_acked_gain == 0 || rs.acked_sacked == 0 || rs.interval.as_us() == 0 {
            return;
        }
        let a = &mut self.aggr;
        if self.round_start {
            a.win_rtts = (a.win_rtts + 1).min(EXTRA_ACKED_WIN_RTTS_MAX);
            if a.win_rtts >= EXTRA_ACKED_WIN_RTTS {
                a.win_rtts = 0;
                a.win_idx ^= 1;
                a.extra_acked[a.win_idx] = 0;
            }
        }
        // Packets the bandwidth estimate expects to be delivered over this epoch.
        let epoch_us = conn.now.saturating_since(a.epoch_stamp).as_us();
        let bw = self.bw() as u64;
        let a = &mut self.aggr;
        let mut expected = (bw * epoch_us / BW_UNIT).min(u32::MAX as u64) as u32;
        // ACKs slower than expected, or a very old epoch: start over.
        if a.epoch_acked <= expected || a.epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH {
            a.reset_epoch(conn.now);
            expected = 0;
        }
        a.epoch_acked = (a.epoch_acked + rs.acked_sacked).min(ACK_EPOCH_ACKED_MAX);
        let extra = (a.epoch_acked - expected).min(self.w.cwnd);
        if extra > a.extra_acked[a.win_idx] {
            a.extra_acked[a.win_idx] = extra;
        }
    }

    /// Linux `bbr_ack_aggregation_cwnd`: extra cwnd for aggregation, once the pipe is full.
    pub(super) fn ack_aggregation_cwnd(&self) -> u32 {
        if self.cfg.extra_acked_gain == 0 || !self.full_bw.reached {
            return 0;
        }
        let max_aggr = (self.bw() as u64 * EXTRA_ACKED_MAX_US / BW_UNIT) as u32;
        let extra = self.aggr.extra_acked[0].max(self.aggr.extra_acked[1]);
        let aggr = ((self.cfg.extra_acked_gain as u64 * extra as u64) >> BBR_SCALE) as u32;
        aggr.min(max_aggr)
    }
}
