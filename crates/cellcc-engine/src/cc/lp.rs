//! TCP-LP (Low Priority): Linux net/ipv4/tcp_lp.c; Kuzmanovic & Knightly, "TCP-LP: A Distributed Algorithm for Low Priority Data Transfer", INFOCOM 2003.
//!
//! A scavenger on top of Reno. It measures the one-way delay from the ACK's
//! TCP timestamps (TSval - TSecr, in 1 ms timestamp ticks), smooths it (7/8
//! EWMA) and declares "early congestion" when the smoothed delay is not below
//! the minimum plus 15% of the range from the minimum to the maximum delay
//! seen. On early congestion it halves cwnd and starts an inference timeout of
//! 3 x (now - TSecr); a second early congestion inside that timeout drops cwnd
//! to 1, and no Reno growth happens while it runs. Loss reactions are Reno's.
//!
//! As tcp_lp.c, in its units (ms timestamp ticks, `LP_RESOL` = `TCP_TS_HZ`):
//! the OWD is the receiver's TSval minus the echoed TSecr, so it includes the
//! time the receiver held a delayed ACK; without timestamps there is no OWD
//! sample and LP is Reno. Differences from Linux:
//! - Remote clock rate: both simulated hosts tick at 1 kHz, so the remote-HZ
//!   estimate (`tcp_lp_remote_hz_estimator`) is taken as exactly `TCP_TS_HZ`
//!   once it would be valid (two RTT-sampled ACKs whose TSval and TSecr both
//!   differ). Linux's estimate is a 1/64 EWMA of 1000 x dTSval / dTSecr between
//!   consecutive ACKs, and its OWD uses the integer `LP_RESOL / remote_hz`,
//!   which is 0 whenever the estimate drifts above 1000; that artefact is not
//!   modelled.
//! - Clock offset: Linux randomises each connection's TSval offset (since
//!   4.10), which makes its OWD |offset + delay|; here, as in ns-3, the
//!   offset is zero, the paper's intent.
//!
//! Behaviour to expect (tests/e2e_model_ccas.rs, docs/ns3.md): LP yields to a
//! NewReno flow. Alone on a drop-tail path it also reacts to the queue it
//! builds itself and to the delayed-ACK hold time, so it uses only a small
//! share of the path: on the re-centred range the threshold is 15% of the
//! current smoothed OWD, 3 ms on a 20 ms one-way path.

use super::common::{reno_cong_avoid, reno_ssthresh};
use super::{AckSample, AckTimestamps, CongestionControl, ConnView, Window};
use crate::sim::{SimTime, NS_PER_MS};
use serde::{Deserialize, Serialize};

/// Linux tcp_lp.c: the early-congestion threshold, percent of (max - min) above min.
const THRESHOLD_PERCENT: u64 = 15;
/// Linux tcp_lp.c `tcp_lp_pkts_acked`: the inference timeout is 3 x (now - TSecr).
const INFERENCE_RTTS: u64 = 3;
/// Linux tcp_lp.c: `sowd` is the smoothed delay << 3 (EWMA weight 1/8).
const SOWD_SHIFT: u32 = 3;
/// Linux tcp_lp.c `LP_RESOL` = `TCP_TS_HZ` (include/net/tcp.h): 1 ms timestamp ticks.
const TS_TICK_NS: u64 = NS_PER_MS;

/// TCP-LP has no module parameters in Linux.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "lp",
    family: super::Family::LowerThanBestEffort,
    source: "Linux net/ipv4/tcp_lp.c; Kuzmanovic & Knightly, INFOCOM 2003",
    summary: "Scavenger over Reno: halves (then resets) cwnd when smoothed one-way delay passes 15% of its range.",
    description: "A low-priority scavenger over Reno (TCP-LP): it measures the one-way delay from TCP \
        timestamps (TSval - TSecr, ms), smooths it (7/8 EWMA) and declares early congestion when the \
        smoothed delay is not below its minimum plus 15% of its range. The first early congestion halves \
        cwnd and starts an inference timeout of 3 x (now - TSecr); another inside it drops cwnd to 1 \
        segment, and cwnd does not grow while the timeout runs. Losses are Reno's; without timestamps it \
        is Reno. Alone on a drop-tail path it reacts to its own queue and to delayed ACKs, so by design it \
        uses only a small share of the path.",
    params: &[],
};

/// Linux `tcp_lp_remote_hz_estimator`'s validity (`LP_VALID_RHZ`): it needs a reference
/// pair of timestamps, then an ACK whose TSval and TSecr both differ from it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum RemoteHz {
    NoReference,
    Reference { ts_val_ms: u64, ts_ecr_ms: u64 },
    Valid,
}

pub struct Lp {
    w: Window,
    /// Smoothed one-way delay << 3, ms (`sowd`).
    sowd: u64,
    /// Min one-way delay, ms (`owd_min`; `u64::MAX` before any sample).
    owd_min: u64,
    /// Max one-way delay, ms (`owd_max`).
    owd_max: u64,
    /// Reserved max, so that a single outlier max is forgotten (`owd_max_rsv`).
    owd_max_rsv: u64,
    remote_hz: RemoteHz,
    /// Timestamp clock (ms) when cwnd was last cut for early congestion (`last_drop`).
    last_drop_ms: Option<u64>,
    /// Inference timeout, ms (`inference`).
    inference_ms: u64,
    /// Inside the inference timeout: no Reno growth (`LP_WITHIN_INF`).
    within_inference: bool,
}

/// A time on a host's TCP timestamp clock (Linux `tcp_time_stamp_ts`: ns / 1 ms, floored).
fn ts_ms(t: SimTime) -> u64 {
    t.as_ns() / TS_TICK_NS
}

impl Lp {
    pub fn new(_cfg: &Config, w: Window) -> Self {
        Lp {
            w,
            sowd: 0,
            owd_min: u64::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            remote_hz: RemoteHz::NoReference,
            last_drop_ms: None,
            inference_ms: 0,
            within_inference: false,
        }
    }

    /// Linux `tcp_lp_owd_calculator` (with `tcp_lp_remote_hz_estimator`'s validity): the
    /// one-way delay in ms, `None` while the remote clock is not estimated or the delay is 0.
    fn owd_ms(&mut self, ts: &AckTimestamps) -> Option<u64> {
        let (ts_val_ms, ts_ecr_ms) = (ts_ms(ts.ts_val), ts_ms(ts.ts_ecr));
        self.remote_hz = match self.remote_hz {
            RemoteHz::Reference { ts_val_ms: v, ts_ecr_ms: e } if v != ts_val_ms && e != ts_ecr_ms => RemoteHz::Valid,
            RemoteHz::Valid => RemoteHz::Valid,
            _ => RemoteHz::Reference { ts_val_ms, ts_ecr_ms },
        };
        // Remote HZ = TCP_TS_HZ, so `LP_RESOL / remote_hz` = 1: OWD = |TSval - TSecr|.
        let owd_ms = ts_val_ms.abs_diff(ts_ecr_ms);
        (self.remote_hz == RemoteHz::Valid && owd_ms > 0).then_some(owd_ms)
    }

    /// Linux `tcp_lp_rtt_sample`: min/max tracking (forgetting the max of the max) and the EWMA.
    fn owd_sample(&mut self, owd_ms: u64) {
        self.owd_min = self.owd_min.min(owd_ms);
        if owd_ms > self.owd_max {
            if owd_ms > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 { owd_ms } else { self.owd_max_rsv };
                self.owd_max_rsv = owd_ms;
            } else {
                self.owd_max = owd_ms;
            }
        }
        if self.sowd != 0 {
            // sowd = 7/8 sowd + 1/8 sample, in the << 3 representation.
            self.sowd = (self.sowd + owd_ms).saturating_sub(self.sowd >> SOWD_SHIFT);
        } else {
            self.sowd = owd_ms << SOWD_SHIFT;
        }
    }

    /// Linux `LP_WITHIN_THR`: smoothed delay below min + 15% of (max - min), integer ms.
    fn within_threshold(&self) -> bool {
        let range = self.owd_max.saturating_sub(self.owd_min);
        (self.sowd >> SOWD_SHIFT) < self.owd_min.saturating_add(THRESHOLD_PERCENT * range / 100)
    }
}

impl CongestionControl for Lp {
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
        reno_ssthresh(&self.w, conn)
    }

    /// Linux `tcp_lp_cong_avoid`: Reno, except inside the inference timeout.
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        if !self.within_inference {
            reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
        }
    }

    /// Linux `tcp_lp_pkts_acked`: early-congestion detection and reaction.
    fn pkts_acked(&mut self, conn: &ConnView, ack: &AckSample) {
        let now_ms = ts_ms(conn.now);
        if let Some(ts) = ack.ts {
            if ack.rtt.is_some_and(|r| r.as_ns() > 0) {
                if let Some(owd_ms) = self.owd_ms(&ts) {
                    self.owd_sample(owd_ms);
                }
            }
            let since_echo_ms = now_ms.saturating_sub(ts_ms(ts.ts_ecr));
            if since_echo_ms > 0 {
                self.inference_ms = INFERENCE_RTTS * since_echo_ms;
            }
        }
        self.within_inference = self.last_drop_ms.is_some_and(|t| now_ms - t < self.inference_ms);
        if self.within_threshold() {
            return;
        }
        // Re-centre min/max on the smoothed delay so the next test is meaningful.
        self.owd_min = self.sowd >> SOWD_SHIFT;
        self.owd_max = self.sowd >> (SOWD_SHIFT - 1);
        self.owd_max_rsv = self.owd_max;
        // Early congestion inside the inference timeout: cwnd 1; after it: halve.
        let cwnd = if self.within_inference { 1 } else { (self.w.cwnd >> 1).max(1) };
        self.w.set_cwnd(cwnd);
        self.last_drop_ms = Some(now_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    /// An ACK sent by the receiver at `ts_val_ms` echoing the sender's `ts_ecr_ms`, with an RTT sample.
    fn ts_ack(ts_val_ms: u64, ts_ecr_ms: u64) -> AckSample {
        let ts = AckTimestamps { ts_val: SimTime(ts_val_ms * NS_PER_MS), ts_ecr: SimTime(ts_ecr_ms * NS_PER_MS) };
        AckSample { ts: Some(ts), ..ack(1, 1) }
    }

    /// An LP flow past its start-up halving: OWD 20 ms, min 20, max 40 (all ms).
    fn settled() -> Lp {
        let mut lp = Lp::new(&Config::default(), Window::new(40));
        // tcp_lp_remote_hz_estimator: the first ACK only records the reference (no OWD sample).
        lp.pkts_acked(&conn(40, 40), &ts_ack(20, 0));
        assert_eq!((lp.sowd, lp.window().cwnd, lp.inference_ms), (0, 40, 120), "inference = 3 x (40 - 0)");
        // Second ACK: TSval and TSecr both moved, OWD = 22 - 2 = 20: min = max = 20, sowd >> 3 = 20,
        // and 20 < 20 + 0 fails: halve 40 -> 20; re-centre min = 20, max = max_rsv = 160 >> 2 = 40.
        lp.pkts_acked(&conn(42, 40), &ts_ack(22, 2));
        assert_eq!((lp.window().cwnd, lp.owd_min, lp.owd_max, lp.last_drop_ms), (20, 20, 40, Some(42)));
        lp
    }

    #[test]
    fn owd_needs_a_reference_whose_tsval_and_tsecr_both_moved() {
        let mut lp = Lp::new(&Config::default(), Window::new(10));
        lp.pkts_acked(&conn(40, 40), &ts_ack(20, 0));
        // Same TSval tick as the reference: the estimator has no difference to divide (`goto out`).
        lp.pkts_acked(&conn(41, 40), &ts_ack(20, 1));
        assert_eq!(lp.sowd, 0);
        // Now both moved (against the new reference 20/1): OWD = 21 - 2 = 19, sowd = 19 << 3.
        lp.pkts_acked(&conn(42, 40), &ts_ack(21, 2));
        assert_eq!(lp.sowd, 152);
    }

    #[test]
    fn delay_under_fifteen_percent_of_the_range_keeps_reno_growth() {
        let mut lp = settled();
        // Threshold = 20 + 15 x (40 - 20) / 100 = 23 ms. At 300 ms (inference over: 258 >= 120)
        // an OWD of 282 - 260 = 22: sowd = 160 + 22 - 20 = 162, 162 >> 3 = 20 < 23.
        let c = conn(300, 40);
        lp.pkts_acked(&c, &ts_ack(282, 260));
        assert_eq!((lp.sowd, lp.window().cwnd), (162, 20));
        lp.w.ssthresh = 10;
        for _ in 0..20 {
            lp.cong_avoid(&c, &ack(1, 40));
        }
        assert_eq!(lp.window().cwnd, 21, "Reno: +1 per window outside the inference timeout");
    }

    #[test]
    fn threshold_crossing_halves_then_resets_inside_inference_and_halves_after_it() {
        let mut lp = settled();
        // t = 300: OWD 280 - 220 = 60 > max 40 and > rsv 40: max = 40, rsv = 60;
        // sowd = 160 + 60 - 20 = 200, 25 >= 23: early congestion, 300 - 42 >= 120: halve 20 -> 10.
        // Re-centre: min 25, max = rsv = 50; inference = 3 x (300 - 220) = 240.
        lp.pkts_acked(&conn(300, 80), &ts_ack(280, 220));
        assert_eq!((lp.window().cwnd, lp.owd_min, lp.owd_max, lp.inference_ms), (10, 25, 50, 240));
        // t = 310: OWD 40; sowd = 200 + 40 - 25 = 215, 26 < 25 + 15 x 25 / 100 = 28: no reaction,
        // but inside the inference timeout (10 < 240), so no Reno growth.
        lp.pkts_acked(&conn(310, 80), &ts_ack(270, 230));
        assert!(lp.within_inference);
        lp.cong_avoid(&conn(310, 80), &ack(10, 80));
        assert_eq!(lp.window().cwnd, 10, "no Reno growth inside the inference timeout");
        // t = 320: OWD 60 > max 50 and > rsv 50: max 50, rsv 60; sowd = 215 + 60 - 26 = 249,
        // 31 >= 28 inside the inference timeout: cwnd = 1. Re-centre: min 31, max 62.
        lp.pkts_acked(&conn(320, 80), &ts_ack(300, 240));
        assert_eq!((lp.window().cwnd, lp.owd_min, lp.owd_max), (1, 31, 62));
        lp.w.set_cwnd(8);
        // t = 560 = 320 + 240: the timeout is over. OWD 70 > 62: max 62, rsv 70;
        // sowd = 249 + 70 - 31 = 288, 36 >= 31 + 15 x 31 / 100 = 35: halve 8 -> 4.
        lp.pkts_acked(&conn(560, 80), &ts_ack(550, 480));
        assert!(!lp.within_inference);
        assert_eq!(lp.window().cwnd, 4);
    }

    #[test]
    fn without_timestamps_there_is_no_delay_sample_and_lp_is_reno() {
        let mut lp = settled();
        let sowd = lp.sowd;
        lp.pkts_acked(&conn(1_000, 40), &ack(1, 500));
        assert_eq!((lp.sowd, lp.window().cwnd), (sowd, 20));
    }

    #[test]
    fn loss_is_reno() {
        let mut lp = settled();
        assert_eq!(lp.ssthresh(&conn(0, 40)), 10);
    }
}
