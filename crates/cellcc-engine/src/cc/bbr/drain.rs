//! BBR Drain: Linux `bbr_check_drain` (net/ipv4/tcp_bbr.c).
//!
//! When Startup fills the pipe, BBR paces at 1/high_gain to drain the queue
//! Startup built (typically in one round), and sets ssthresh to the 1-BDP
//! in-flight target. It leaves for ProbeBW once the packets in the network
//! fall to that target. Same as Linux, with a zero EDT interval (see mod.rs).

use super::{Bbr, ConnView, Mode, BBR_UNIT};

impl Bbr {
    /// Linux `bbr_check_drain`: Startup -> Drain when the pipe is full, Drain -> ProbeBW when drained.
    pub(super) fn check_drain(&mut self, conn: &ConnView) {
        if self.mode == Mode::Startup && self.full_bw.reached {
            self.mode = Mode::Drain;
            self.w.ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
        }
        // Fall through: in-flight may already be small enough.
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(conn.packets_in_flight) <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode();
        }
    }
}
