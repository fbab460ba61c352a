//! BBRv3 Startup and Drain: Linux `bbr_check_full_bw_reached`, `bbr_check_loss_too_high_in_startup`, `bbr_check_drain` (v3 tcp_bbr.c).
//!
//! Startup ends when the bandwidth sample has not grown 25% for three rounds
//! (v3 compares each sample, not the windowed max), or when a recovery round
//! in Startup saw at least 6 loss events and more than 2% loss: then
//! inflight_hi is set to max(BDP, what the last round delivered). Drain then
//! paces at 0.35 until in-flight is down to the BDP, and ProbeBW starts in
//! DOWN. Same as Linux, without the ECN exit.

use super::{Bbr3, CaState, ConnView, Ctx, Mode, RateSample, BBR_SCALE, BBR_UNIT};

/// Linux: `loss_events_in_round` is a 4-bit saturating counter.
const LOSS_EVENTS_MAX: u32 = 0xf;

impl Bbr3 {
    /// Linux `bbr_reset_full_bw`.
    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    /// Linux `bbr_check_full_bw_reached` (v3).
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample, ctx: &Ctx) {
        if self.full_bw_now || rs.is_app_limited {
            return;
        }
        let bw_thresh = ((self.full_bw as u64 * self.cfg.full_bw_thresh as u64) >> BBR_SCALE) as u32;
        if ctx.sample_bw >= bw_thresh {
            self.reset_full_bw();
            self.full_bw = ctx.sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= self.cfg.full_bw_cnt;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// Linux `bbr_handle_queue_too_high_in_startup`.
    fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        let bdp = self.inflight(self.max_bw(), BBR_UNIT);
        self.inflight_hi = bdp.max(self.inflight_latest);
    }

    /// Linux `bbr_check_loss_too_high_in_startup`: judged at the end of each recovery round.
    pub(super) fn check_loss_too_high_in_startup(&mut self, conn: &ConnView, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 && self.loss_events_in_round < LOSS_EVENTS_MAX {
            self.loss_events_in_round += 1;
        }
        if self.cfg.full_loss_cnt > 0
            && self.loss_round_start
            && conn.ca_state == CaState::Recovery
            && self.loss_events_in_round >= self.cfg.full_loss_cnt
            && self.is_inflight_too_high(rs)
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// Linux `bbr_check_drain` (v3): Startup -> Drain -> ProbeBW DOWN.
    pub(super) fn check_drain(&mut self, conn: &ConnView) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            // For monitoring only: ssthresh leaves "infinite" when Startup ends.
            self.w.ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(conn.packets_in_flight) <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down();
        }
    }
}
