//! Westwood+: Grieco & Mascolo, ACM CCR 34(2) 2004; Linux net/ipv4/tcp_westwood.c (registered there as "westwood").
//!
//! Westwood+ fixes the original's over-estimate under ACK compression by
//! taking one bandwidth sample per RTT instead of one per ACK:
//!
//! ```text
//!   every ACK:     bk += bytes delivered
//!   window ends    (now - start > max(RTT, 50 ms)):
//!                  sample = bk / (now - start);  bk = 0
//!                  bw_ns = (7 bw_ns + sample) / 8;  bw = (7 bw + bw_ns) / 8   (first sample fills both)
//!   loss:          ssthresh = max(bw x RTTmin / MSS, 2)
//!   recovery end:  cwnd = ssthresh = max(bw x RTTmin / MSS, 2)   (CA_EVENT_COMPLETE_CWR)
//!   RTO:           ssthresh = max(bw x RTTmin / MSS, 2), RTTmin restarts at the next sample
//! ```
//!
//! Differences from Linux `tcp_westwood.c`:
//! - `ssthresh()` returns `BWE x RTTmin` at once (the paper's rule), so the
//!   sender's recovery reduction aims there; Linux returns Reno's cwnd/2 and
//!   applies `BWE x RTTmin` when recovery completes. Both end recovery with
//!   cwnd = ssthresh = `BWE x RTTmin`; `CompleteCwr` is handled as in Linux.
//! - bk counts the bytes each ACK delivered, SACKed ones included, as the
//!   simulator knows them; Linux infers them from `snd_una` and counts a
//!   duplicate ACK as one MSS (`westwood_acked_count`).
//! - Time is nanoseconds, not jiffies, and bandwidth is bytes/s, not bytes per
//!   jiffy. The first window starts at the first ACK (Linux: at connection init).
//! - This ACK's RTT sample is used for the window test and RTTmin at once
//!   (Linux's `in_ack_event` runs before `pkts_acked` and sees the previous one).

use super::common::reno_cong_avoid;
use super::westwood::bw_rtt_min_segs;
use super::{AckSample, CongestionControl, ConnView, CwndEvent, Window};
use crate::sim::time::NS_PER_S;
use crate::sim::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Linux `TCP_WESTWOOD_RTT_MIN`: a bandwidth window lasts at least 50 ms.
const MIN_WINDOW: SimDuration = SimDuration::from_ms(50);
/// Linux `westwood_do_filter`: new = (7 old + sample) / 8.
const FILTER_OLD_WEIGHT: u64 = 7;
const FILTER_SHIFT: u32 = 3;

/// Westwood+ has no parameters (Linux tcp_westwood.c has no module parameters).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "westwoodplus",
    family: super::Family::Delay,
    source: "Grieco & Mascolo, ACM CCR 2004; Linux net/ipv4/tcp_westwood.c",
    summary: "Reno growth; after loss cwnd = ssthresh = BWE x RTTmin, BWE sampled once per RTT and filtered 7/8.",
    description: "Westwood+ as in Linux tcp_westwood.c: Reno growth, but the bandwidth estimate takes one sample per \
        RTT (bytes delivered over at least max(RTT, 50 ms)) and smooths it with two 7/8 EWMAs, which avoids \
        the original's over-estimate under ACK compression. After a loss ssthresh = BWE x RTTmin / MSS (at \
        least 2 segments) and recovery ends with cwnd = ssthresh, so a loss on a full pipe removes the \
        standing queue rather than half the window.",
    params: &[],
};

fn low_pass(old: u64, sample: u64) -> u64 {
    (FILTER_OLD_WEIGHT * old + sample) >> FILTER_SHIFT
}

pub struct WestwoodPlus {
    w: Window,
    /// `bw_ns_est`: first filter stage, bytes/s.
    bw_ns_est: u64,
    /// `bw_est`: the bandwidth estimate, bytes/s.
    bw_est: u64,
    /// `rtt_win_sx`: start of the current sampling window (None before the first ACK).
    window_start: Option<SimTime>,
    /// `bk`: bytes delivered in the current window.
    bk_bytes: u64,
    /// `rtt`: the latest RTT sample.
    rtt: SimDuration,
    /// `rtt_min`.
    rtt_min: Option<SimDuration>,
    /// `reset_rtt_min`: the next sample replaces RTTmin (after an RTO).
    reset_rtt_min: bool,
}

impl WestwoodPlus {
    pub fn new(_cfg: &Config, w: Window) -> Self {
        WestwoodPlus {
            w,
            bw_ns_est: 0,
            bw_est: 0,
            window_start: None,
            bk_bytes: 0,
            rtt: SimDuration::ZERO,
            rtt_min: None,
            reset_rtt_min: true,
        }
    }

    /// The bandwidth estimate, bytes/s.
    pub fn bandwidth_estimate(&self) -> u64 {
        self.bw_est
    }

    /// Linux `westwood_filter`: the first sample fills the empty filter.
    fn filter(&mut self, sample: u64) {
        if self.bw_ns_est == 0 && self.bw_est == 0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = low_pass(self.bw_ns_est, sample);
            self.bw_est = low_pass(self.bw_est, self.bw_ns_est);
        }
    }

    /// Linux `westwood_update_window`: close the window once it spans an RTT (>= 50 ms).
    fn update_window(&mut self, now: SimTime) {
        let start = *self.window_start.get_or_insert(now);
        let delta = now.saturating_since(start);
        if self.rtt > SimDuration::ZERO && delta > self.rtt.max(MIN_WINDOW) {
            let sample = (self.bk_bytes as u128 * NS_PER_S as u128 / delta.as_ns() as u128) as u64;
            self.filter(sample);
            self.bk_bytes = 0;
            self.window_start = Some(now);
        }
    }

    /// Linux `update_rtt_min`.
    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = Some(self.rtt);
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.map(|m| m.min(self.rtt));
        }
    }

    /// Linux `tcp_westwood_bw_rttmin`.
    fn bw_rtt_min(&self, mss_bytes: u32) -> u32 {
        let rtt_min = self.rtt_min.filter(|r| *r > SimDuration::ZERO);
        bw_rtt_min_segs(self.bw_est, rtt_min, mss_bytes)
    }
}

impl CongestionControl for WestwoodPlus {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    fn ssthresh(&mut self, conn: &ConnView) -> u32 {
        self.bw_rtt_min(conn.mss_bytes)
    }
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
    }
    /// Linux `tcp_westwood_pkts_acked` + `tcp_westwood_ack`.
    fn pkts_acked(&mut self, conn: &ConnView, ack: &AckSample) {
        if let Some(rtt) = ack.rtt.filter(|r| *r > SimDuration::ZERO) {
            self.rtt = rtt;
        }
        self.update_window(conn.now);
        self.bk_bytes += ack.acked_bytes;
        if self.rtt > SimDuration::ZERO {
            self.update_rtt_min();
        }
    }
    /// Linux `tcp_westwood_event`.
    fn cwnd_event(&mut self, conn: &ConnView, event: CwndEvent) {
        match event {
            CwndEvent::CompleteCwr => {
                self.w.ssthresh = self.bw_rtt_min(conn.mss_bytes);
                self.w.set_cwnd(self.w.ssthresh);
            }
            CwndEvent::Loss => {
                self.w.ssthresh = self.bw_rtt_min(conn.mss_bytes);
                self.reset_rtt_min = true;
            }
            CwndEvent::TxStart | CwndEvent::CwndRestart | CwndEvent::EcnNoCe | CwndEvent::EcnIsCe => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    fn ack_at(ww: &mut WestwoodPlus, t_ms: u64, segs: u32) {
        ww.pkts_acked(&conn(t_ms, 100), &ack(segs, 100));
    }

    /// ACKs of 10 segments (14_480 B) every 10 ms from t = 0 to 110 ms, RTT 100 ms.
    fn one_window_at_1448_kbyte_per_s() -> WestwoodPlus {
        let mut ww = WestwoodPlus::new(&Config::default(), Window { ssthresh: 50, ..Window::new(200) });
        for t in (0..=110).step_by(10) {
            ack_at(&mut ww, t, 10);
        }
        ww
    }

    #[test]
    fn first_window_fills_the_filter_and_loss_sets_ssthresh_to_bwe_times_rtt_min() {
        let mut ww = one_window_at_1448_kbyte_per_s();
        // The window starts at t = 0; at t = 110 ms, 110 > max(RTT 100, 50): it closes with the
        // 11 ACKs of t = 0..100: bk = 11 x 14_480 = 159_280 B over 110 ms = 1_448_000 B/s.
        assert_eq!(ww.bandwidth_estimate(), 1_448_000);
        // ssthresh = 1_448_000 B/s x 0.1 s / 1448 B = 100 segments (Reno would say 200 / 2).
        assert_eq!(ww.ssthresh(&conn(110, 100)), 100);
        // Recovery completes: cwnd = ssthresh = 100.
        ww.cwnd_event(&conn(200, 100), CwndEvent::CompleteCwr);
        assert_eq!((ww.window().cwnd, ww.window().ssthresh), (100, 100));
    }

    #[test]
    fn later_windows_are_filtered_seven_eighths() {
        let mut ww = one_window_at_1448_kbyte_per_s();
        // Window 2 starts at 110 ms with that ACK's 14_480 B; ACKs of 5 segments (7240 B)
        // at 120..210 ms add 72_400 B; at 220 ms (110 ms > 100) it closes:
        //   sample = 86_880 B / 0.11 s = 789_818 B/s
        //   bw_ns = (7 x 1_448_000 + 789_818) / 8 = 1_365_727
        //   bw    = (7 x 1_448_000 + 1_365_727) / 8 = 1_437_715
        for t in (120..=210).step_by(10) {
            ack_at(&mut ww, t, 5);
        }
        ack_at(&mut ww, 220, 5);
        assert_eq!(ww.bw_ns_est, 1_365_727);
        assert_eq!(ww.bandwidth_estimate(), 1_437_715);
        // ssthresh = 1_437_715 x 0.1 / 1448 = 99.29 -> 99.
        assert_eq!(ww.ssthresh(&conn(220, 100)), 99);
    }

    #[test]
    fn rto_sets_ssthresh_and_restarts_rtt_min() {
        let mut ww = one_window_at_1448_kbyte_per_s();
        let c = conn(300, 100);
        ww.w.ssthresh = ww.ssthresh(&c);
        ww.w.cwnd = 1;
        ww.cwnd_event(&c, CwndEvent::Loss);
        assert_eq!(ww.window().ssthresh, 100);
        // The next sample (200 ms) becomes RTTmin even though it is larger.
        ww.pkts_acked(&conn(400, 200), &ack(1, 200));
        assert_eq!(ww.rtt_min, Some(SimDuration::from_ms(200)));
    }
}
