//! BBRv3 ProbeBW: the DOWN / CRUISE / REFILL / UP cycle and the upper bounds, Linux `bbr_update_cycle_phase`, `bbr_adapt_upper_bounds` (v3 tcp_bbr.c).
//!
//! After a probe, DOWN (pacing 0.91) drains the queue, then CRUISE paces at
//! the estimate leaving 15% headroom below inflight_hi. Probing waits 2-3 s
//! of wall clock, or fewer rounds when a Reno flow of our BDP would probe
//! sooner (at most 63). REFILL sends at the estimate for one round with the
//! lower bounds reset, then UP paces at 1.25 and raises inflight_hi by
//! 1, 2, 4, ... packets per round until the bandwidth plateaus, inflight_hi
//! is reached after a previous too-high probe, or losses exceed 2% of the
//! data in flight (then inflight_hi is cut). Same as Linux, without ECN.

use super::{Bbr3, ConnView, Ctx, Mode, RateSample, BBR_SCALE, BBR_UNIT, UNBOUNDED};
use rand::Rng;

/// Linux `enum bbr_pacing_gain_phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Push inflight up to probe for bandwidth.
    Up,
    /// Drain the excess the probe queued.
    Down,
    /// Use the pipe with headroom.
    Cruise,
    /// Refill the pipe to 100% before probing.
    Refill,
}

impl Phase {
    /// Linux `bbr_pacing_gain[]` (v3), in 1/256: 5/4, 0.91, 1, 1.
    pub fn pacing_gain(self) -> u32 {
        match self {
            Phase::Up => BBR_UNIT * 5 / 4,
            Phase::Down => BBR_UNIT * 91 / 100,
            Phase::Cruise | Phase::Refill => BBR_UNIT,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Up => "ProbeBW_UP",
            Phase::Down => "ProbeBW_DOWN",
            Phase::Cruise => "ProbeBW_CRUISE",
            Phase::Refill => "ProbeBW_REFILL",
        }
    }
}

/// Linux `enum bbr_ack_phase`: what the incoming ACKs say about our probing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckPhase {
    /// Not probing; not getting probe feedback.
    Init,
    /// Sending at the estimate to fill the pipe.
    Refilling,
    /// Inflight rising to probe.
    ProbeStarting,
    /// Getting feedback from the probe.
    ProbeFeedback,
    /// Stopped probing; still getting feedback.
    ProbeStopping,
}

/// Linux: `bw_probe_up_rounds` is a 5-bit field capped at 30.
const MAX_PROBE_UP_ROUNDS: u32 = 30;

impl Bbr3 {
    /// Linux `bbr_is_probing_bandwidth`.
    pub(super) fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    /// Linux `bbr_has_elapsed_in_phase`.
    fn has_elapsed_in_phase(&self, interval_us: u32) -> bool {
        self.now.saturating_since(self.cycle_stamp).as_us() > interval_us as u64
    }

    /// Linux `bbr_advance_max_bw_filter`: each cycle, the current window becomes the old one.
    fn advance_max_bw_filter(&mut self) {
        if self.bw_hi[1] == 0 {
            return; // no samples in this window; remember the old one
        }
        self.bw_hi = [self.bw_hi[1], 0];
    }

    /// Linux `bbr_inflight_with_headroom`: leave 15% of inflight_hi unused.
    pub(super) fn inflight_with_headroom(&self) -> u32 {
        if self.inflight_hi == UNBOUNDED {
            return UNBOUNDED;
        }
        let headroom = (((self.inflight_hi as u64 * self.cfg.inflight_headroom as u64) >> BBR_SCALE) as u32).max(1);
        self.inflight_hi.saturating_sub(headroom).max(self.cfg.cwnd_min_target_segs)
    }

    /// Linux `bbr_raise_inflight_hi_slope`: each UP round doubles the growth of inflight_hi.
    fn raise_inflight_hi_slope(&mut self) {
        let growth_this_round = 1u32 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(MAX_PROBE_UP_ROUNDS);
        self.bw_probe_up_cnt = (self.w.cwnd / growth_this_round).max(1);
    }

    /// Linux `bbr_probe_inflight_hi_upward`: +1 inflight_hi per `bw_probe_up_cnt` packets ACKed.
    fn probe_inflight_hi_upward(&mut self, conn: &ConnView, rs: &RateSample) {
        if !conn.is_cwnd_limited || self.w.cwnd < self.inflight_hi {
            return; // not fully using inflight_hi, so don't grow it
        }
        self.bw_probe_up_acks += rs.acked_sacked;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi = self.inflight_hi.saturating_add(delta);
            self.try_fast_path = false;
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    /// Linux `bbr_is_inflight_too_high`: lost more than loss_thresh of what was in flight.
    pub(super) fn is_inflight_too_high(&self, rs: &RateSample) -> bool {
        if rs.lost > 0 && rs.tx_in_flight > 0 {
            let loss_thresh = (rs.tx_in_flight as u64 * self.cfg.loss_thresh as u64) >> BBR_SCALE;
            return rs.lost as u64 > loss_thresh;
        }
        false
    }

    /// Linux `bbr_handle_inflight_too_high`: cut inflight_hi once per probe, stop probing.
    pub(super) fn handle_inflight_too_high(&mut self, rs: &RateSample) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false; // only react once per probe
        if !rs.is_app_limited {
            let floor = (self.target_inflight() as u64 * (BBR_UNIT - self.cfg.beta) as u64) >> BBR_SCALE;
            self.inflight_hi = rs.tx_in_flight.max(floor as u32);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_bw_probe_down();
        }
    }

    /// Linux `bbr_pick_probe_wait`: random rounds (0..2) and wall clock (2..3 s) until the next probe.
    fn pick_probe_wait(&mut self) {
        let rng = self.rng.inner();
        self.rounds_since_probe = rng.random_range(0..self.cfg.bw_probe_rand_rounds);
        self.probe_wait_us = self.cfg.bw_probe_base_us + rng.random_range(0..self.cfg.bw_probe_rand_us);
    }

    /// Linux `bbr_set_cycle_idx`.
    fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
        self.try_fast_path = false;
    }

    /// Linux `bbr_start_bw_probe_refill`.
    fn start_bw_probe_refill(&mut self, conn: &ConnView, bw_probe_up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = bw_probe_up_rounds;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = conn.delivered;
        self.set_phase(Phase::Refill);
    }

    /// Linux `bbr_start_bw_probe_up`.
    fn start_bw_probe_up(&mut self, conn: &ConnView, ctx: &Ctx) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = conn.delivered;
        self.cycle_stamp = self.now;
        self.reset_full_bw();
        self.full_bw = ctx.sample_bw;
        self.set_phase(Phase::Up);
        self.raise_inflight_hi_slope();
    }

    /// Linux `bbr_start_bw_probe_down`: start the wall clock to the next probe.
    pub(super) fn start_bw_probe_down(&mut self) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = UNBOUNDED;
        self.pick_probe_wait();
        self.cycle_stamp = self.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = self.delivered_now;
        self.set_phase(Phase::Down);
    }

    /// Linux `bbr_start_bw_probe_cruise`.
    pub(super) fn start_bw_probe_cruise(&mut self) {
        if self.inflight_lo != UNBOUNDED {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.set_phase(Phase::Cruise);
    }

    /// Linux `bbr_adapt_upper_bounds`. Returns true when it decided a phase change.
    fn adapt_upper_bounds(&mut self, conn: &ConnView, rs: &RateSample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The probe's samples are over: forget the previous cycle's bandwidth.
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.is_app_limited {
                self.advance_max_bw_filter();
            }
            // A probe that reached inflight_hi without losses: probe again, beyond it.
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_bw_probe_refill(conn, 0);
                return true;
            }
        }
        if self.is_inflight_too_high(rs) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(rs);
            }
        } else {
            if self.inflight_hi == UNBOUNDED {
                return false;
            }
            // Robust to random loss: raise inflight_hi whenever a higher level proved safe.
            if rs.tx_in_flight > self.inflight_hi {
                self.inflight_hi = rs.tx_in_flight;
            }
            if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
                self.probe_inflight_hi_upward(conn, rs);
            }
        }
        false
    }

    /// Linux `bbr_is_reno_coexistence_probe_time`: a Reno flow of our BDP would probe every BDP rounds.
    fn is_reno_coexistence_probe_time(&self) -> bool {
        let rounds = self.cfg.bw_probe_max_rounds.min(self.target_inflight());
        self.rounds_since_probe >= rounds
    }

    /// Linux `bbr_check_time_to_probe_bw` (without the ECN re-probe).
    fn check_time_to_probe_bw(&mut self, conn: &ConnView) -> bool {
        if self.has_elapsed_in_phase(self.probe_wait_us) || self.is_reno_coexistence_probe_time() {
            self.start_bw_probe_refill(conn, 0);
            return true;
        }
        false
    }

    /// Linux `bbr_check_time_to_cruise`: inflight is down to the headroom and the BDP.
    fn check_time_to_cruise(&self, inflight: u32, bw: u32) -> bool {
        inflight <= self.inflight_with_headroom() && inflight <= self.inflight(bw, BBR_UNIT)
    }

    /// Linux `bbr_update_cycle_phase` (v3).
    pub(super) fn update_cycle_phase(&mut self, conn: &ConnView, rs: &RateSample, ctx: &Ctx) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_upper_bounds(conn, rs) || self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight);
        let bw = self.max_bw();
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(conn);
            }
            Phase::Refill => {
                // One round of refilling done: its samples may now show too much in flight.
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_bw_probe_up(conn, ctx);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if conn.is_cwnd_limited && self.w.cwnd >= self.inflight_hi {
                    // inflight_hi is what limits growth: restart plateau detection.
                    self.reset_full_bw();
                    self.full_bw = ctx.sample_bw;
                } else if self.full_bw_now {
                    done = true; // bandwidth plateau: the pipe looks full
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_bw_probe_down();
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(conn) {
                    return;
                }
                if self.check_time_to_cruise(inflight, bw) {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }
}
