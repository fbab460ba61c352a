//! Vegas: Brakmo & Peterson, IEEE JSAC 13(8) 1995; Linux net/ipv4/tcp_vegas.c (alpha 2, beta 4, gamma 1).
//!
//! Once per RTT Vegas compares the window it has with the window the path
//! would carry without a queue, and steers the difference, the packets it
//! keeps queued at the bottleneck, into [alpha, beta]:
//!
//! ```text
//!   diff = cwnd * (RTT - baseRTT) / baseRTT   (Linux's Diff: packets queued, x RTT / baseRTT)
//!   slow start:  diff > gamma  -> cwnd = min(cwnd, target + 1), leave slow start
//!   avoidance:   diff < alpha  -> cwnd + 1
//!                diff > beta   -> cwnd - 1
//!                otherwise     -> hold
//! ```
//!
//! RTT is the minimum sample of the last RTT (filters delayed ACKs), baseRTT
//! the minimum ever; the round ends when an ACK passes `snd_nxt` as it was at
//! the start of the round (Linux `beg_snd_nxt`).
//!
//! `diff` divides by baseRTT, as `tcp_vegas_cong_avoid` does (`Diff * RTT` in the paper's
//! terms): for a queue of Q packets it counts Q x RTT / baseRTT, a little more than the paper's
//! `(Expected - Actual) * BaseRTT` = Q, so Linux holds a slightly smaller queue than the paper.
//! (YeAH and Compound divide by RTT, as `tcp_yeah.c` does: [`VegasRtt::queued_packets`].)
//! RTTs are microseconds from the simulator's nanosecond samples (Linux: `rtt_us`), with
//! Linux's `+ 1` so that no RTT is zero.
//!
//! Everything else (Reno behaviour for rounds with fewer than 3 samples,
//! `tcp_current_ssthresh` after each adjustment, restart on `TxStart` /
//! `CwndRestart`, Vegas off outside the Open state) follows Linux.

use super::common::{reno_cong_avoid, reno_ssthresh, slow_start};
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, CwndEvent, Window};
use crate::sim::SimDuration;
use serde::{Deserialize, Serialize};

/// Linux's "no RTT sample yet" value for `baseRTT` / `minRTT` (0x7fffffff us).
pub(super) const RTT_UNSET_US: u64 = 0x7fff_ffff;
/// Linux `tcp_vegas_cong_avoid`: a round needs more than 2 RTT samples, or
/// its ACKs were probably all delayed ACKs.
pub(super) const MIN_SAMPLES_PER_ROUND: u32 = 2;
/// Smallest cwnd Vegas leaves after an adjustment (Linux `tcp_vegas_cong_avoid`).
const MIN_CWND_SEGS: u32 = 2;

/// Vegas parameters: Linux `tcp_vegas.c` module parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Lower bound of packets kept queued in the network; below it cwnd grows
    /// by 1 per RTT. Packets. Default 2 (Linux module parameter `alpha`).
    pub alpha: u32,
    /// Upper bound of packets kept queued; above it cwnd shrinks by 1 per RTT.
    /// Packets, >= alpha. Default 4 (Linux module parameter `beta`).
    pub beta: u32,
    /// Queued packets that end slow start. Packets. Default 1 (Linux module
    /// parameter `gamma`).
    pub gamma: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { alpha: 2, beta: 4, gamma: 1 }
    }
}

impl Config {
    /// alpha > beta would make "grow" and "shrink" overlap.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.alpha <= self.beta, "alpha", self.alpha, "packets <= beta")
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "vegas",
    family: super::Family::Delay,
    source: "Brakmo & Peterson, IEEE JSAC 1995; Linux net/ipv4/tcp_vegas.c",
    summary: "Keeps alpha..beta packets queued: once per RTT, +1 if fewer, -1 if more; leaves slow start at gamma.",
    description: "Once per RTT Vegas estimates the packets it keeps queued at the bottleneck, diff = cwnd (RTT - \
        baseRTT) / baseRTT (Linux's form), with RTT the minimum sample of the last round and baseRTT the minimum ever, and \
        steers diff into [alpha, beta] = [2, 4] packets by adding or removing one segment per RTT. Slow \
        start ends as soon as diff exceeds gamma (1 packet). It reacts to delay before the buffer fills, so \
        alone it holds a few packets of queue and, once out of slow start, sees no loss; loss is handled as \
        Reno. baseRTT never increases, so a path whose base delay grows reads as queueing.",
    params: &[
        ("alpha", "lower bound of queued packets, packets (default 2, Linux tcp_vegas.c)"),
        ("beta", "upper bound of queued packets, packets, >= alpha (default 4, Linux tcp_vegas.c)"),
        ("gamma", "queued packets that end slow start, packets (default 1, Linux tcp_vegas.c)"),
    ],
};

/// Linux `struct vegas`: the per-RTT sampling state Vegas and YeAH share.
#[derive(Clone, Debug)]
pub(super) struct VegasRtt {
    /// `doing_vegas_now`: off outside the Open state.
    pub enabled: bool,
    /// `beg_snd_nxt`: the round ends when an ACK passes this byte.
    pub beg_snd_nxt: u64,
    /// `cntRTT`: RTT samples this round.
    pub cnt_rtt: u32,
    /// `minRTT`: smallest sample this round, us.
    pub min_rtt_us: u64,
    /// `baseRTT`: smallest sample ever, us.
    pub base_rtt_us: u64,
}

impl VegasRtt {
    pub fn new() -> Self {
        VegasRtt { enabled: true, beg_snd_nxt: 0, cnt_rtt: 0, min_rtt_us: RTT_UNSET_US, base_rtt_us: RTT_UNSET_US }
    }

    /// Linux `tcp_vegas_init`: forget everything, baseRTT included.
    fn init(&mut self, conn: &ConnView) {
        self.base_rtt_us = RTT_UNSET_US;
        self.enable(conn);
    }

    /// Linux `vegas_enable`: start a fresh round at `snd_nxt`.
    fn enable(&mut self, conn: &ConnView) {
        self.enabled = true;
        self.beg_snd_nxt = conn.snd_nxt;
        self.reset_round();
    }

    /// Wipe the slate for the next round.
    pub fn reset_round(&mut self) {
        self.cnt_rtt = 0;
        self.min_rtt_us = RTT_UNSET_US;
    }

    /// Linux `tcp_vegas_pkts_acked`.
    pub fn on_rtt_sample(&mut self, rtt: Option<SimDuration>) {
        let Some(rtt) = rtt else { return };
        // Never allow a zero RTT or baseRTT.
        let vrtt_us = rtt.as_us() + 1;
        self.base_rtt_us = self.base_rtt_us.min(vrtt_us);
        self.min_rtt_us = self.min_rtt_us.min(vrtt_us);
        self.cnt_rtt += 1;
    }

    /// Linux `tcp_vegas_state`.
    pub fn on_state(&mut self, conn: &ConnView, new_state: CaState) {
        if new_state == CaState::Open {
            self.enable(conn);
        } else {
            self.enabled = false;
        }
    }

    /// Linux `tcp_vegas_cwnd_event`: after idle the old samples are stale.
    pub fn on_cwnd_event(&mut self, conn: &ConnView, event: CwndEvent) {
        if matches!(event, CwndEvent::CwndRestart | CwndEvent::TxStart) {
            self.init(conn);
        }
    }

    /// Linux `after(ack, beg_snd_nxt)`: has this ACK ended the round?
    pub fn round_ended(&self, conn: &ConnView) -> bool {
        conn.snd_una > self.beg_snd_nxt
    }

    /// Packets queued at the bottleneck this round: cwnd * (RTT - baseRTT) / RTT (Linux `tcp_yeah.c`).
    pub fn queued_packets(&self, cwnd: u32) -> u32 {
        let rtt = self.min_rtt_us;
        (cwnd as u64 * rtt.saturating_sub(self.base_rtt_us) / rtt) as u32
    }

    /// Linux `tcp_vegas_cong_avoid`'s `diff`: cwnd * (RTT - baseRTT) / baseRTT, truncated.
    pub fn vegas_diff(&self, cwnd: u32) -> u32 {
        let base = self.base_rtt_us;
        (cwnd as u64 * self.min_rtt_us.saturating_sub(base) / base) as u32
    }
}

/// Linux `tcp_current_ssthresh` (include/net/tcp.h): outside a reduction, at
/// least 3/4 of cwnd, so an adjustment never leaves ssthresh far below cwnd.
pub(super) fn current_ssthresh(w: &Window, state: CaState) -> u32 {
    match state {
        CaState::Cwr | CaState::Recovery => w.ssthresh,
        _ => w.ssthresh.max((w.cwnd >> 1) + (w.cwnd >> 2)),
    }
}

pub struct Vegas {
    cfg: Config,
    w: Window,
    rtt: VegasRtt,
}

impl Vegas {
    pub fn new(cfg: &Config, w: Window) -> Self {
        Vegas { cfg: cfg.clone(), w, rtt: VegasRtt::new() }
    }

    /// The once-per-RTT Vegas decision (the `cntRTT > 2` branch of Linux `tcp_vegas_cong_avoid`).
    fn adjust(&mut self, conn: &ConnView, acked: u32) {
        let w = &mut self.w;
        let diff = self.rtt.vegas_diff(w.cwnd);
        if diff > self.cfg.gamma && w.in_slow_start() {
            // Too fast: set cwnd to the actual rate times baseRTT (+1 for the
            // truncation) and switch to congestion avoidance.
            let target = w.cwnd as u64 * self.rtt.base_rtt_us / self.rtt.min_rtt_us;
            w.cwnd = w.cwnd.min(target as u32 + 1);
            w.ssthresh = w.ssthresh.min(w.cwnd);
        } else if w.in_slow_start() {
            slow_start(w, acked);
        } else if diff > self.cfg.beta {
            w.cwnd = w.cwnd.saturating_sub(1);
            w.ssthresh = w.ssthresh.min(w.cwnd);
        } else if diff < self.cfg.alpha {
            w.cwnd += 1;
        }
        w.cwnd = w.cwnd.clamp(MIN_CWND_SEGS, w.cwnd_clamp);
        w.ssthresh = current_ssthresh(w, conn.ca_state);
    }
}

impl CongestionControl for Vegas {
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
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        if !self.rtt.enabled {
            reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
            return;
        }
        if self.rtt.round_ended(conn) {
            self.rtt.beg_snd_nxt = conn.snd_nxt;
            if self.rtt.cnt_rtt <= MIN_SAMPLES_PER_ROUND {
                reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
            } else {
                self.adjust(conn, ack.acked_segs);
            }
            self.rtt.reset_round();
        } else if self.w.in_slow_start() {
            slow_start(&mut self.w, ack.acked_segs);
        }
    }
    fn pkts_acked(&mut self, _conn: &ConnView, ack: &AckSample) {
        self.rtt.on_rtt_sample(ack.rtt);
    }
    fn set_state(&mut self, conn: &ConnView, new_state: CaState) {
        self.rtt.on_state(conn, new_state);
    }
    fn cwnd_event(&mut self, conn: &ConnView, event: CwndEvent) {
        self.rtt.on_cwnd_event(conn, event);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    /// Sequence space the scripted rounds advance by (bytes).
    pub const ROUND_BYTES: u64 = 1_000_000;

    /// The view for ACK `k` of 3 in round `r`: ACKs 1 and 2 stay at or below
    /// `beg_snd_nxt` (= r * ROUND_BYTES, set when round r-1 ended), ACK 3 passes it.
    pub fn round_conn(r: u64, k: u64, rtt_ms: u64) -> ConnView {
        let mut c = conn(r * 1000 + k, rtt_ms);
        c.snd_una = if k < 3 { r * ROUND_BYTES - (2 - k) } else { r * ROUND_BYTES + 1 };
        c.snd_nxt = (r + 1) * ROUND_BYTES;
        c
    }

    /// Start the connection as the sender does: first transmission at snd_nxt = ROUND_BYTES.
    pub fn start(cc: &mut dyn CongestionControl) {
        let mut c = conn(0, 100);
        c.snd_nxt = ROUND_BYTES;
        cc.cwnd_event(&c, CwndEvent::TxStart);
    }

    /// One RTT of three 1-segment ACKs whose RTT samples are all `rtt_ms`.
    pub fn round(cc: &mut dyn CongestionControl, r: u64, rtt_ms: u64) {
        for k in 1..=3 {
            let c = round_conn(r, k, rtt_ms);
            cc.pkts_acked(&c, &ack(1, rtt_ms));
            cc.cong_avoid(&c, &ack(1, rtt_ms));
        }
    }

    /// A Vegas in congestion avoidance at cwnd 20 whose baseRTT is 100 ms
    /// (100_001 us with Linux's +1), learnt in round 1.
    fn vegas_in_avoidance() -> Vegas {
        let mut v = Vegas::new(&Config::default(), Window { ssthresh: 10, ..Window::new(20) });
        start(&mut v);
        round(&mut v, 1, 100);
        // Round 1 saw no queue (diff 0 < alpha): cwnd 21 and tcp_current_ssthresh
        // raised ssthresh to 21/2 + 21/4 = 15. Put both back.
        assert_eq!(v.rtt.base_rtt_us, 100_001);
        assert_eq!((v.w.cwnd, v.w.ssthresh), (21, 15));
        v.w.cwnd = 20;
        v.w.ssthresh = 10;
        v
    }

    #[test]
    fn holds_cwnd_when_queue_is_between_alpha_and_beta() {
        let mut v = vegas_in_avoidance();
        // RTT 115 ms: diff = 20 * (115_001 - 100_001) / 100_001 = 300_000 / 100_001 = 2.99 -> 2,
        // in [alpha 2, beta 4]: hold.
        round(&mut v, 2, 115);
        assert_eq!(v.window().cwnd, 20);
        // RTT 124 ms: diff = 20 * 24_000 / 100_001 = 4.8 -> 4, still <= beta: hold.
        round(&mut v, 3, 124);
        assert_eq!(v.window().cwnd, 20);
    }

    #[test]
    fn diff_divides_by_base_rtt_as_linux_does() {
        let mut v = vegas_in_avoidance();
        // RTT 130 ms: Linux's diff = 20 * 30_000 / 100_001 = 5.99 -> 5 > beta 4: shrink to 19.
        // (Dividing by the round's RTT, 20 * 30_000 / 130_001 = 4.6 -> 4, would hold.)
        round(&mut v, 2, 130);
        assert_eq!(v.window().cwnd, 19);
    }

    #[test]
    fn grows_one_segment_when_queue_is_below_alpha() {
        let mut v = vegas_in_avoidance();
        // RTT 105 ms: diff = 20 * 5_000 / 100_001 = 0.99 -> 0 < alpha 2: cwnd 20 -> 21.
        round(&mut v, 2, 105);
        assert_eq!(v.window().cwnd, 21);
    }

    #[test]
    fn shrinks_one_segment_when_queue_is_above_beta_and_keeps_ssthresh_at_three_quarters() {
        let mut v = vegas_in_avoidance();
        // RTT 150 ms: diff = 20 * 50_000 / 100_001 = 9.99 -> 9 > beta 4: cwnd 20 -> 19.
        // ssthresh = min(10, 19) = 10, then tcp_current_ssthresh = max(10, 19/2 + 19/4 = 9 + 4) = 13.
        round(&mut v, 2, 150);
        assert_eq!(v.window().cwnd, 19);
        assert_eq!(v.window().ssthresh, 13);
    }

    #[test]
    fn leaves_slow_start_at_the_actual_rate_when_queue_exceeds_gamma() {
        let mut v = Vegas::new(&Config::default(), Window::new(20));
        start(&mut v);
        round(&mut v, 1, 100);
        // Round 1 in slow start: diff 0, slow start on ACK 3 only (ACKs 1-2 also
        // slow-start as non-round-ending ACKs): 20 + 3 = 23.
        assert_eq!(v.window().cwnd, 23);
        v.w.cwnd = 20;
        // RTT 150 ms. ACKs 1-2 slow-start first: cwnd 22. On ACK 3,
        // diff = 22 * 50_000 / 100_001 = 10.99 -> 10 > gamma 1, so
        // target = 22 * 100_001 / 150_001 = 14.67 -> 14,
        // cwnd = min(22, 14 + 1) = 15, ssthresh = min(inf, 15) = 15, current_ssthresh = max(15, 7 + 3) = 15.
        round(&mut v, 2, 150);
        assert_eq!(v.window().cwnd, 15);
        assert_eq!(v.window().ssthresh, 15);
        assert!(!v.window().in_slow_start());
    }

    #[test]
    fn behaves_like_reno_outside_the_open_state() {
        let mut v = vegas_in_avoidance();
        v.set_state(&conn(0, 100), CaState::Recovery);
        // Queue of 6 packets would shrink cwnd, but Vegas is off: Reno's AI counts the ACKs.
        round(&mut v, 2, 150);
        assert_eq!(v.window().cwnd, 20);
        assert_eq!(v.window().cwnd_cnt, 3);
        assert_eq!(v.ssthresh(&conn(0, 100)), 10);
    }

    #[test]
    fn alpha_above_beta_is_rejected() {
        let e = Config { alpha: 5, beta: 4, gamma: 1 }.validate().unwrap_err();
        assert_eq!(e.field, "alpha");
        assert!(Config::default().validate().is_ok());
    }
}
