//! BBRv3 cwnd: BDP targets, quantization, ACK aggregation and the inflight bounds, Linux `bbr_set_cwnd`, `bbr_bound_cwnd_for_inflight_model` (v3 tcp_bbr.c).
//!
//! cwnd slow-starts toward gain x BDP + ACK-aggregation allowance (snapping
//! down to it once the pipe is full), then is capped by the loss-learned
//! bounds: inflight_hi while probing, inflight_hi less 15% headroom when
//! cruising or in ProbeRTT, and inflight_lo always. Same as Linux.

use super::probe_bw::Phase;
use super::{Bbr3, ConnView, Mode, RateSample, BBR_SCALE, BBR_UNIT, BW_UNIT, UNBOUNDED};
use crate::sim::time::NS_PER_US;

impl Bbr3 {
    /// Linux `bbr_bdp`.
    pub(super) fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == UNBOUNDED {
            return self.init_cwnd;
        }
        let w = bw as u128 * self.min_rtt_us as u128;
        ((w * gain as u128) >> BBR_SCALE).div_ceil(BW_UNIT as u128).min(u32::MAX as u128) as u32
    }

    /// Linux `bbr_quantization_budget` (v3).
    pub(super) fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.max(3 * self.tso_segs_goal()).max(self.cfg.cwnd_min_target_segs);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd += 2;
        }
        cwnd
    }

    /// Linux `bbr_inflight`.
    pub(super) fn inflight(&self, bw: u32, gain: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// Linux `bbr_packets_in_net_at_edt` with a zero EDT interval.
    pub(super) fn packets_in_net_at_edt(&self, inflight_now: u32) -> u32 {
        if self.pacing_gain > BBR_UNIT {
            inflight_now + self.tso_segs_goal()
        } else {
            inflight_now
        }
    }

    /// Linux `bbr_target_inflight`: our BDP, unless congestion cut cwnd.
    pub(super) fn target_inflight(&self) -> u32 {
        self.inflight(self.bw(), BBR_UNIT).min(self.w.cwnd)
    }

    /// Linux `bbr_update_ack_aggregation` (v3: a 1-round window before the pipe is full).
    pub(super) fn update_ack_aggregation(&mut self, conn: &ConnView, rs: &RateSample) {
        if self.cfg.extra_acked_gain == 0 || rs.acked_sacked == 0 || rs.interval.as_ns() / NS_PER_US == 0 {
            return;
        }
        const WIN_RTTS: u32 = 5;
        const WIN_RTTS_MAX: u32 = 0x1f;
        const RESET_THRESH: u32 = 1 << 20;
        const ACKED_MAX: u32 = 0xF_FFFF;
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(WIN_RTTS_MAX);
            let thresh = if self.full_bw_reached { WIN_RTTS } else { 1 };
            if self.extra_acked_win_rtts >= thresh {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = conn.now.saturating_since(self.ack_epoch_stamp).as_us();
        let mut expected = (self.bw() as u64 * epoch_us / BW_UNIT).min(u32::MAX as u64) as u32;
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + rs.acked_sacked >= RESET_THRESH {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = conn.now;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(ACKED_MAX);
        let extra = (self.ack_epoch_acked - expected).min(self.w.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    /// Linux `bbr_ack_aggregation_cwnd` (v3: also before the pipe is full).
    pub(super) fn ack_aggregation_cwnd(&self) -> u32 {
        const EXTRA_ACKED_MAX_US: u64 = 100_000;
        if self.cfg.extra_acked_gain == 0 {
            return 0;
        }
        let max_aggr = (self.bw() as u64 * EXTRA_ACKED_MAX_US / BW_UNIT) as u32;
        let extra = self.extra_acked[0].max(self.extra_acked[1]) as u64;
        (((self.cfg.extra_acked_gain as u64 * extra) >> BBR_SCALE) as u32).min(max_aggr)
    }

    /// Linux `bbr_probe_rtt_cwnd`: half the BDP, at least the minimum.
    pub(super) fn probe_rtt_cwnd(&self) -> u32 {
        self.bdp(self.bw(), self.cfg.probe_rtt_cwnd_gain).max(self.cfg.cwnd_min_target_segs)
    }

    /// Linux `bbr_set_cwnd` (v3): slow-start toward the target, snap down once full.
    pub(super) fn set_cwnd(&mut self, acked: u32, bw: u32, gain: u32) {
        let mut cwnd = self.w.cwnd;
        if acked > 0 {
            let target = self.quantization_budget(self.bdp(bw, gain) + self.ack_aggregation_cwnd());
            self.try_fast_path = false;
            if self.full_bw_reached {
                cwnd += acked;
                if cwnd >= target {
                    cwnd = target;
                    self.try_fast_path = true;
                }
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd += acked;
            } else {
                self.try_fast_path = true;
            }
            cwnd = cwnd.max(self.cfg.cwnd_min_target_segs);
        }
        self.w.set_cwnd(cwnd);
        if self.mode == Mode::ProbeRtt {
            self.w.set_cwnd(self.w.cwnd.min(self.probe_rtt_cwnd()));
        }
    }

    /// Linux `bbr_bound_cwnd_for_inflight_model`.
    pub(super) fn bound_cwnd_for_inflight_model(&mut self) {
        let mut cap = UNBOUNDED;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt || (self.mode == Mode::ProbeBw && self.phase == Phase::Cruise) {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(self.cfg.cwnd_min_target_segs);
        self.w.set_cwnd(self.w.cwnd.min(cap));
    }
}
