//! BBRv3 congestion signals and short-term lower bounds: Linux `bbr_update_congestion_signals`, `bbr_adapt_lower_bounds` (v3 tcp_bbr.c).
//!
//! Per ACK: feed the max-bandwidth window and note losses. Per loss round
//! (a round trip starting at the first loss), when not probing, cut the
//! short-term bounds bw_lo and inflight_lo by beta (30%), but never below
//! what the last round actually delivered (bw_latest, inflight_latest).
//! Same as Linux, without the ECN bound.

use super::{Bbr3, ConnView, Ctx, RateSample, BBR_SCALE, BBR_UNIT, UNBOUNDED};
use crate::sim::time::NS_PER_US;

impl Bbr3 {
    /// Linux `bbr_note_loss`: the loss round spans a round trip from the first loss.
    pub(super) fn note_loss(&mut self, conn: &ConnView) {
        if !self.loss_in_round {
            self.loss_round_delivered = conn.delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    /// Linux `bbr_update_latest_delivery_signals`.
    pub(super) fn update_latest_delivery_signals(&mut self, conn: &ConnView, rs: &RateSample, ctx: &Ctx) {
        self.loss_round_start = false;
        if rs.interval.as_ns() / NS_PER_US == 0 || rs.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(ctx.sample_bw);
        self.inflight_latest = self.inflight_latest.max(rs.delivered);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = conn.delivered;
            self.loss_round_start = true;
        }
    }

    /// Linux `bbr_advance_latest_delivery_signals`: once per loss round, restart the latest filters.
    pub(super) fn advance_latest_delivery_signals(&mut self, rs: &RateSample, ctx: &Ctx) {
        if self.loss_round_start {
            self.bw_latest = ctx.sample_bw;
            self.inflight_latest = rs.delivered;
        }
    }

    /// Linux `bbr_update_congestion_signals`.
    pub(super) fn update_congestion_signals(&mut self, rs: &RateSample, ctx: &Ctx) {
        if rs.interval.as_ns() / NS_PER_US == 0 || rs.acked_sacked == 0 {
            return;
        }
        if !rs.is_app_limited || ctx.sample_bw >= self.max_bw() {
            // Linux `bbr_take_max_bw_sample`.
            self.bw_hi[1] = self.bw_hi[1].max(ctx.sample_bw);
        }
        self.loss_in_round |= rs.losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds();
        self.loss_in_round = false;
    }

    /// Linux `bbr_adapt_lower_bounds` (loss response only): not while probing.
    fn adapt_lower_bounds(&mut self) {
        if self.is_probing_bandwidth() || !self.loss_in_round {
            return;
        }
        // Linux `bbr_init_lower_bounds(sk, true)`.
        if self.bw_lo == UNBOUNDED {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo == UNBOUNDED {
            self.inflight_lo = self.w.cwnd;
        }
        // Linux `bbr_loss_lower_bounds`: x (1 - beta), not below the latest round's delivery.
        let cut = (BBR_UNIT - self.cfg.beta) as u64;
        self.bw_lo = self.bw_latest.max(((self.bw_lo as u64 * cut) >> BBR_SCALE) as u32).max(1);
        self.inflight_lo = self.inflight_latest.max(((self.inflight_lo as u64 * cut) >> BBR_SCALE) as u32);
    }

    /// Linux `bbr_reset_lower_bounds`.
    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = UNBOUNDED;
        self.inflight_lo = UNBOUNDED;
    }

    /// Linux `bbr_reset_congestion_signals`.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.loss_in_cycle = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }
}
