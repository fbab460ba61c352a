//! The app-limited mark Linux's ProbeRTT sets (`tp->app_limited`, net/ipv4/tcp_bbr.c
//! `bbr_update_min_rtt`), kept by the algorithm because a hook cannot write the
//! connection. Shared by BBR v1 and v3, whose ProbeRTT both set it.

use crate::cc::{ConnView, RateSample};

/// The `prior_delivered` range of packets sent while Linux's mark was set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppLimitedSpan(Option<(u64, u64)>);

impl AppLimitedSpan {
    /// Linux `tp->app_limited = (tp->delivered + tcp_packets_in_flight(tp)) ? : 1`.
    pub fn mark(&mut self, conn: &ConnView) {
        let mark = (conn.delivered + conn.packets_in_flight as u64).max(1);
        let from = match self.0 {
            Some((from, to)) if conn.delivered <= to => from,
            _ => conn.delivered,
        };
        self.0 = Some((from, mark));
    }

    /// Whether Linux would have tagged this sample's packet app-limited.
    pub fn covers(&self, rs: &RateSample) -> bool {
        self.0.is_some_and(|(from, to)| (from..=to).contains(&rs.prior_delivered))
    }
}
