//! BBRv3 min-RTT filters and ProbeRTT: Linux `bbr_update_min_rtt`, `bbr_check_probe_rtt_done`, `bbr_exit_probe_rtt` (v3 tcp_bbr.c).
//!
//! v3 keeps two filters: `probe_rtt_min` over 5 s, which schedules ProbeRTT,
//! and `min_rtt` over 10 s, used for the BDP. ProbeRTT caps cwnd at half
//! the BDP (not 4 packets as v1) for 200 ms and a round, then resumes ProbeBW
//! in CRUISE with the lower bounds reset (or Startup if the pipe was never
//! full). As in the v1 port, ProbeRTT's `tp->app_limited` mark is applied to
//! the samples here.

use super::probe_bw::AckPhase;
use super::{Bbr3, ConnView, Mode, RateSample};
use crate::sim::SimDuration;

impl Bbr3 {
    /// Whether Linux would have tagged this sample's packet app-limited because of ProbeRTT.
    pub(super) fn marks_app_limited(&self, rs: &RateSample) -> bool {
        self.app_limited_span.covers(rs)
    }

    /// Linux `bbr_update_min_rtt` (v3).
    pub(super) fn update_min_rtt(&mut self, conn: &ConnView, rs: &RateSample) {
        let now = conn.now;
        let rtt_us = rs.rtt.map(|d| d.as_us().min(u32::MAX as u64) as u32);
        let probe_rtt_win = SimDuration::from_ms(self.cfg.probe_rtt_win_ms as u64);
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + probe_rtt_win;
        if let Some(rtt) = rtt_us {
            if rtt < self.probe_rtt_min_us || probe_rtt_expired {
                self.probe_rtt_min_us = rtt;
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + SimDuration::from_secs(self.cfg.min_rtt_win_sec as u64);
        if self.probe_rtt_min_us <= self.min_rtt_us || min_rtt_expired {
            self.min_rtt_us = self.probe_rtt_min_us;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        if self.cfg.probe_rtt_mode_ms > 0 && probe_rtt_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = conn.delivered;
        }
        if self.mode == Mode::ProbeRtt {
            self.app_limited_span.mark(conn);
            if self.probe_rtt_done_stamp.is_none() && conn.packets_in_flight <= self.probe_rtt_cwnd() {
                self.probe_rtt_done_stamp = Some(now + SimDuration::from_ms(self.cfg.probe_rtt_mode_ms as u64));
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = conn.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(conn);
                }
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// Linux `bbr_check_probe_rtt_done` (v3).
    pub(super) fn check_probe_rtt_done(&mut self, conn: &ConnView) {
        if self.probe_rtt_done_stamp.is_none_or(|done| conn.now <= done) {
            return;
        }
        self.probe_rtt_min_stamp = conn.now; // schedule the next ProbeRTT
        self.w.set_cwnd(self.w.cwnd.max(self.prior_cwnd));
        self.exit_probe_rtt();
    }

    /// Linux `bbr_exit_probe_rtt`: back to ProbeBW (cruising) or Startup.
    fn exit_probe_rtt(&mut self) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down();
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }
}
