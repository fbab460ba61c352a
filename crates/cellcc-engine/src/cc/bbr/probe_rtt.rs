//! BBR ProbeRTT and the min-RTT filter update: Linux `bbr_update_min_rtt`, `bbr_check_probe_rtt_done` (net/ipv4/tcp_bbr.c).
//!
//! If no RTT sample has matched or lowered min_rtt for 10 s, BBR caps cwnd at
//! 4 packets to drain the queue and re-measure the propagation delay. It stays
//! until in-flight has been at most 4 packets for 200 ms and one round trip,
//! then restores the saved cwnd and returns to ProbeBW (or Startup if the
//! pipe was never filled). Linux also sets `tp->app_limited` so the low
//! delivery rates of this period cannot pull the bandwidth estimate down; a
//! hook cannot write the connection, so [`ProbeRtt::marks_app_limited`] tags
//! those samples instead: a packet is app-limited in Linux if it was sent
//! while the mark was set, i.e. with `prior_delivered` between the
//! `tp->delivered` at the first marking ACK and the last mark value.

use super::app_limited::AppLimitedSpan;
use super::{Bbr, ConnView, Mode, RateSample};
use crate::sim::{SimDuration, SimTime};

/// ProbeRTT bookkeeping: Linux `probe_rtt_done_stamp`, `probe_rtt_round_done`, plus the app-limited span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct ProbeRtt {
    /// When ProbeRTT may end; set once in-flight is at the minimum.
    done_stamp: Option<SimTime>,
    /// A full round has elapsed at the minimum in-flight.
    round_done: bool,
    /// `prior_delivered` range of packets sent while Linux's `tp->app_limited` mark was set.
    app_limited_span: AppLimitedSpan,
}

impl ProbeRtt {
    /// Whether Linux would have tagged this sample's packet app-limited because of ProbeRTT.
    pub(super) fn marks_app_limited(&self, rs: &RateSample) -> bool {
        self.app_limited_span.covers(rs)
    }
}

impl Bbr {
    /// Linux `bbr_update_min_rtt`: refresh the min-RTT filter; enter, hold and leave ProbeRTT.
    pub(super) fn update_min_rtt(&mut self, conn: &ConnView, rs: &RateSample) {
        let expired = self.min_rtt.is_expired(conn.now, self.min_rtt_window());
        let rtt_us = rs.rtt.map(|d| d.as_us().min(u32::MAX as u64) as u32);
        self.min_rtt.update(rtt_us, expired, conn.now);

        if self.cfg.probe_rtt_mode_ms > 0 && expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt.done_stamp = None;
        }

        if self.mode == Mode::ProbeRtt {
            self.probe_rtt.app_limited_span.mark(conn);
            // Hold the minimum in-flight for max(probe_rtt_mode_ms, 1 round).
            if self.probe_rtt.done_stamp.is_none() && conn.packets_in_flight <= self.cfg.cwnd_min_target_segs {
                let hold = SimDuration::from_ms(self.cfg.probe_rtt_mode_ms as u64);
                self.probe_rtt.done_stamp = Some(conn.now + hold);
                self.probe_rtt.round_done = false;
                self.next_rtt_delivered = conn.delivered;
            } else if self.probe_rtt.done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt.round_done = true;
                }
                if self.probe_rtt.round_done {
                    self.check_probe_rtt_done(conn);
                }
            }
        }
        // Restart after idle ends only once a new ACK delivers data.
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// Linux `bbr_check_probe_rtt_done`: leave ProbeRTT once its time is up, restoring cwnd.
    pub(super) fn check_probe_rtt_done(&mut self, conn: &ConnView) {
        if self.probe_rtt.done_stamp.is_none_or(|done| conn.now <= done) {
            return;
        }
        // Wait a full window before the next ProbeRTT.
        self.min_rtt.stamp = conn.now;
        self.w.set_cwnd(self.w.cwnd.max(self.prior_cwnd));
        self.reset_mode();
    }
}
