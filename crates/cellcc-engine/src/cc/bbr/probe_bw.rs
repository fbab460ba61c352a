//! BBR ProbeBW: the pacing-gain cycle, Linux `bbr_update_cycle_phase` and friends (net/ipv4/tcp_bbr.c).
//!
//! Eight phases of about one min_rtt each: pace at 5/4 of the estimate to
//! probe for more bandwidth, at 3/4 to drain the queue that probe made, then
//! six at 1.0 to cruise. The 5/4 phase lasts until in-flight reaches 5/4 BDP
//! (or a loss); the 3/4 phase ends early once in-flight is down to 1 BDP.
//! Each flow starts at a random phase other than 3/4, so flows desynchronise.
//! Same as Linux; the random draw comes from the flow's `RngStream`.

use super::{Bbr, ConnView, Mode, RateSample, BBR_UNIT};
use rand::Rng;

/// Linux `CYCLE_LEN`: phases in the gain cycle.
pub(super) const CYCLE_LEN: usize = 8;

/// Linux `bbr_pacing_gain[]`, in 1/256: 5/4, 3/4, then six phases of 1.
pub(super) const PACING_GAIN: [u32; CYCLE_LEN] =
    [BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT];

/// Linux `bbr_cycle_rand`: the start phase is drawn over this many phases.
const CYCLE_RAND: usize = 7;

impl Bbr {
    /// Linux `bbr_is_next_cycle_phase`: end the phase when it is time and/or in-flight hit its target.
    fn is_next_cycle_phase(&self, conn: &ConnView, rs: &RateSample) -> bool {
        let elapsed_us = conn.now.saturating_since(self.cycle_stamp).as_us();
        let is_full_length = elapsed_us > self.min_rtt.min_rtt_us as u64;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            // Probing: persist until in-flight reaches gain x BDP, unless packets are lost.
            return is_full_length && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        // Draining: stop as soon as in-flight is down to 1 BDP.
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    /// Linux `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, now: crate::sim::SimTime) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = now;
    }

    /// Linux `bbr_update_cycle_phase`.
    pub(super) fn update_cycle_phase(&mut self, conn: &ConnView, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(conn, rs) {
            self.advance_cycle_phase(conn.now);
        }
    }

    /// Linux `bbr_reset_probe_bw_mode`: enter ProbeBW at a random phase, never the 3/4 one.
    pub(super) fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.rng.inner().random_range(0..CYCLE_RAND);
        // `cycle_mstamp` = `tp->delivered_mstamp`: the time of the last delivery.
        self.advance_cycle_phase(self.delivered_stamp);
    }
}
