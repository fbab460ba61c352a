//! H-TCP: Leith & Shorten, "H-TCP: TCP for high-speed and long-distance networks", PFLDnet 2004; Linux net/ipv4/tcp_htcp.c.
//!
//! The increase depends on the time Δ since the last congestion event: for
//! Δ <= Δ_L = 1 s it is Reno's 1 segment per RTT; after that
//! α(Δ) = 1 + 10(Δ - Δ_L) + ((Δ - Δ_L)/2)^2 (paper eq. 2), scaled by
//! 2(1 - β) so that the average rate matches Reno's at any β, and
//! (RTT scaling) by RTT_min / 100 ms, clamped to [0.5, 10]. The decrease β is
//! adaptive: RTT_min / RTT_max clamped to [0.5, 0.8] (paper §3.2), except that
//! a change of more than 20% in the achieved throughput between congestion
//! events (the "bandwidth switch") resets it to 0.5.
//!
//! Differences from Linux: the clock is `conn.now` in 1 ms jiffies
//! (CONFIG_HZ=1000) and RTT samples are rounded up to jiffies as Linux's
//! `usecs_to_jiffies` does. The α arithmetic is done in 64 bits, so
//! `(diff/2)^2` does not wrap after 131 s without a loss as Linux's 32-bit
//! version does. The ACKed-segment count of `pkts_acked` is `cum_acked_bytes`
//! rounded up to segments. As in Linux, the ACK that adds a segment does not
//! itself count towards the next one, so the increase is α per RTT only to
//! within one ACK in every α/cwnd.

use super::common::{cum_acked_segs, jiffies, slow_start, LINUX_HZ};
use super::{AckSample, CaState, CongestionControl, ConnView, Window};
use crate::sim::SimDuration;
use serde::{Deserialize, Serialize};

/// Fixed-point shift of α and β (Linux: "<< 7").
const FIX_SHIFT: u32 = 7;
/// Linux `ALPHA_BASE`: α = 1.0.
const ALPHA_BASE: u32 = 1 << FIX_SHIFT;
/// Linux `BETA_MIN`: β = 0.5 (paper §3.2 lower bound).
const BETA_MIN: u32 = 1 << (FIX_SHIFT - 1);
/// Linux `BETA_MAX`: β = 0.8 (102/128; paper §3.2 upper bound).
const BETA_MAX: u32 = 102;
/// Paper Δ_L = 1 s: the low-speed period after a loss, in jiffies.
const DELTA_L_JIFFIES: u64 = LINUX_HZ;
/// RTT scaling reference: 100 ms, as `(HZ << 3) / (10 * minRTT)` encodes it (scale in 1/8ths).
const RTT_SCALE_SHIFT: u32 = 3;
/// RTT scaling is clamped to [0.5, 10] in 1/8ths (Linux).
const RTT_SCALE_MIN: u64 = 1 << 2;
const RTT_SCALE_MAX: u64 = 10 << 3;
/// Linux: β adapts only when RTT_min exceeds 10 ms (below it queueing cannot be told apart).
const ADAPTIVE_BETA_MIN_RTT_JIFFIES: u64 = 10 * LINUX_HZ / 1000;
/// Linux `measure_rtt`: RTT_max follows samples at most 20 ms above it (filters spikes).
const MAX_RTT_STEP_JIFFIES: u64 = 20 * LINUX_HZ / 1000;
/// Linux: RTT_max fades 5% towards RTT_min at each congestion event (routing changes).
const MAX_RTT_KEEP_PERCENT: u64 = 95;
/// Linux `htcp_ccount() <= 3`: within 3 RTTs of a backoff the throughput estimate restarts.
const FRESH_BACKOFF_RTTS: u64 = 3;
/// Smallest ssthresh Linux returns after a loss.
const MIN_SSTHRESH: u32 = 2;

/// H-TCP parameters: the Linux `tcp_htcp` module parameters and their defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// "turn on/off RTT scaling": scale α by RTT_min / 100 ms (clamped to
    /// [0.5, 10]) so flows with different RTTs share fairly. Default true (Linux `use_rtt_scaling=1`).
    pub use_rtt_scaling: bool,
    /// "turn on/off bandwidth switcher": reset β to 0.5 when the throughput
    /// between congestion events changes by more than 20%. Default true (Linux `use_bandwidth_switch=1`).
    pub use_bandwidth_switch: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { use_rtt_scaling: true, use_bandwidth_switch: true }
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "htcp",
    family: super::Family::Loss,
    source: "Leith & Shorten, PFLDnet 2004; Linux net/ipv4/tcp_htcp.c",
    summary: "Increase grows with the time since the last loss (Reno for 1 s, then quadratic); adaptive beta = RTTmin/RTTmax in [0.5, 0.8].",
    description: "The increase depends on the time D since the last congestion event: one segment per RTT (Reno) for \
        the first second, then alpha = 1 + 10 (D - 1) + ((D - 1)/2)^2 segments per RTT, scaled by 2 (1 - \
        beta) and by RTTmin / 100 ms clamped to [0.5, 10]. The decrease beta = RTTmin / RTTmax, within [0.5, \
        0.8], follows the queue the flow sees, and a throughput change of more than 20% between congestion \
        events resets it to 0.5. Losses trigger every reduction; delay only sets how deep the cut is.",
    params: &[
        ("use_rtt_scaling", "bool: scale alpha by RTTmin/100 ms within [0.5, 10] (default true; Linux use_rtt_scaling)"),
        ("use_bandwidth_switch", "bool: beta back to 0.5 when throughput changes > 20% (default true; Linux use_bandwidth_switch)"),
    ],
};

/// What `undo_cwnd` restores when a reduction proves spurious (Linux `undo_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Undo {
    last_cong: u64,
    max_rtt: u64,
    old_max_b: u32,
}

/// Achieved-throughput estimate in segments per second (Linux `minB`, `maxB`, `old_maxB`, `Bi`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Throughput {
    min_b: u32,
    max_b: u32,
    old_max_b: u32,
    bi: u32,
    /// Segments ACKed since `since` (Linux `packetcount`, `lasttime` in jiffies).
    count: u32,
    since: u64,
}

pub struct Htcp {
    cfg: Config,
    w: Window,
    /// α << 7: segments per RTT.
    alpha: u32,
    /// β << 7: fraction of cwnd kept after a loss.
    beta: u32,
    /// Linux `modeswitch`: adaptive β only after one congestion event with stable throughput.
    modeswitch: bool,
    /// Linux `pkts_acked`: segments the next congestion-avoidance ACK counts.
    pkts_acked: u32,
    /// RTT_min and RTT_max in jiffies (0 = no sample yet).
    min_rtt: u64,
    max_rtt: u64,
    /// Jiffies at the last congestion event (Linux `last_cong`).
    last_cong: u64,
    undo: Option<Undo>,
    tput: Throughput,
}

impl Htcp {
    pub fn new(cfg: &Config, w: Window) -> Self {
        Htcp {
            cfg: cfg.clone(),
            w,
            alpha: ALPHA_BASE,
            beta: BETA_MIN,
            modeswitch: false,
            pkts_acked: 1,
            min_rtt: 0,
            max_rtt: 0,
            last_cong: 0,
            undo: None,
            tput: Throughput::default(),
        }
    }

    /// Linux `htcp_cong_time`: jiffies since the last congestion event (Δ).
    fn cong_time(&self, now: u64) -> u64 {
        now.saturating_sub(self.last_cong)
    }

    /// Linux `htcp_reset`: a congestion event starts now (remembering what undo restores).
    fn reset(&mut self, now: u64) {
        self.undo = Some(Undo { last_cong: self.last_cong, max_rtt: self.max_rtt, old_max_b: self.tput.old_max_b });
        self.last_cong = now;
    }

    /// Linux `measure_rtt`, with the sample in jiffies.
    fn measure_rtt(&mut self, rtt: u64, state: CaState) {
        if self.min_rtt == 0 || rtt < self.min_rtt {
            self.min_rtt = rtt;
        }
        if state == CaState::Open {
            self.max_rtt = self.max_rtt.max(self.min_rtt);
            if rtt > self.max_rtt && rtt <= self.max_rtt + MAX_RTT_STEP_JIFFIES {
                self.max_rtt = rtt;
            }
        }
    }

    /// Linux `measure_achieved_throughput` (the bandwidth part).
    fn measure_throughput(&mut self, now: u64, segs: u32, state: CaState) {
        if !matches!(state, CaState::Open | CaState::Disorder) {
            self.tput.count = 0;
            self.tput.since = now;
            return;
        }
        self.tput.count = self.tput.count.saturating_add(segs);
        let elapsed = now.saturating_sub(self.tput.since);
        // Linux computes cwnd - max(alpha, 1) in u32: a negative threshold wraps and never passes.
        let threshold = self.w.cwnd.checked_sub((self.alpha >> FIX_SHIFT).max(1));
        let full_window = threshold.is_some_and(|t| self.tput.count >= t);
        if !(full_window && elapsed >= self.min_rtt && self.min_rtt > 0) {
            return;
        }
        let cur_bi = (self.tput.count as u64 * LINUX_HZ / elapsed) as u32;
        let fresh_backoff = self.cong_time(now) / self.min_rtt <= FRESH_BACKOFF_RTTS;
        let t = &mut self.tput;
        if fresh_backoff {
            (t.min_b, t.max_b, t.bi) = (cur_bi, cur_bi, cur_bi);
        } else {
            t.bi = (3 * t.bi + cur_bi) / 4;
            t.max_b = t.max_b.max(t.bi);
            t.min_b = t.min_b.min(t.max_b);
        }
        t.count = 0;
        t.since = now;
    }

    /// Linux `htcp_beta_update`: β = RTT_min/RTT_max in [0.5, 0.8] once the mode allows it.
    fn beta_update(&mut self) {
        if self.cfg.use_bandwidth_switch {
            let (max_b, old_max_b) = (self.tput.max_b as u64, self.tput.old_max_b as u64);
            self.tput.old_max_b = self.tput.max_b;
            // Throughput moved by more than 20% since the last event: back to 0.5.
            if !(4 * old_max_b <= 5 * max_b && 5 * max_b <= 6 * old_max_b) {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.min_rtt > ADAPTIVE_BETA_MIN_RTT_JIFFIES && self.max_rtt > 0 {
            let beta = (self.min_rtt << FIX_SHIFT) / self.max_rtt;
            self.beta = (beta as u32).clamp(BETA_MIN, BETA_MAX);
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
    }

    /// Linux `htcp_alpha_update`: α(Δ) of paper eq. 2, RTT-scaled, times 2(1 - β).
    fn alpha_update(&mut self, now: u64) {
        let mut factor: u64 = 1;
        let diff = self.cong_time(now);
        if diff > DELTA_L_JIFFIES {
            let d = diff - DELTA_L_JIFFIES;
            factor = 1 + (10 * d + ((d / 2) * (d / 2) / LINUX_HZ)) / LINUX_HZ;
        }
        if self.cfg.use_rtt_scaling && self.min_rtt > 0 {
            let scale = ((LINUX_HZ << RTT_SCALE_SHIFT) / (10 * self.min_rtt)).clamp(RTT_SCALE_MIN, RTT_SCALE_MAX);
            factor = ((factor << RTT_SCALE_SHIFT) / scale).max(1);
        }
        let alpha = 2 * factor * ((1 << FIX_SHIFT) - self.beta) as u64;
        self.alpha = if alpha == 0 { ALPHA_BASE } else { alpha.min(u32::MAX as u64) as u32 };
    }

    /// Linux `htcp_param_update`: at a congestion event, new β and α, and RTT_max fades.
    fn param_update(&mut self, now: u64) {
        self.beta_update();
        self.alpha_update(now);
        if self.min_rtt > 0 && self.max_rtt > self.min_rtt {
            self.max_rtt = self.min_rtt + (self.max_rtt - self.min_rtt) * MAX_RTT_KEEP_PERCENT / 100;
        }
    }
}

/// Linux `usecs_to_jiffies`: rounds up.
fn rtt_jiffies(rtt: SimDuration) -> u64 {
    rtt.as_ns().div_ceil(crate::sim::time::NS_PER_S / LINUX_HZ)
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Linux `htcp_init`: the clock since the last congestion event starts now.
    fn init(&mut self, conn: &ConnView) {
        self.last_cong = jiffies(conn.now);
    }

    /// Linux `htcp_recalc_ssthresh`: cwnd x β.
    fn ssthresh(&mut self, conn: &ConnView) -> u32 {
        self.param_update(jiffies(conn.now));
        (((self.w.cwnd as u64 * self.beta as u64) >> FIX_SHIFT) as u32).max(MIN_SSTHRESH)
    }

    /// Linux `htcp_cong_avoid`: cwnd += α/cwnd per ACK.
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        if !conn.is_cwnd_limited {
            return;
        }
        if self.w.in_slow_start() {
            slow_start(&mut self.w, ack.acked_segs);
            return;
        }
        if (self.w.cwnd_cnt as u64 * self.alpha as u64) >> FIX_SHIFT >= self.w.cwnd as u64 {
            if self.w.cwnd < self.w.cwnd_clamp {
                self.w.cwnd += 1;
            }
            self.w.cwnd_cnt = 0;
            self.alpha_update(jiffies(conn.now));
        } else {
            self.w.cwnd_cnt += self.pkts_acked;
        }
        self.pkts_acked = 1;
    }

    /// Linux `measure_achieved_throughput`.
    fn pkts_acked(&mut self, conn: &ConnView, ack: &AckSample) {
        let segs = cum_acked_segs(conn, ack);
        if conn.ca_state == CaState::Open {
            self.pkts_acked = segs;
        }
        if let Some(rtt) = ack.rtt.filter(|r| r.as_ns() > 0) {
            self.measure_rtt(rtt_jiffies(rtt), conn.ca_state);
        }
        if self.cfg.use_bandwidth_switch {
            self.measure_throughput(jiffies(conn.now), segs, conn.ca_state);
        }
    }

    /// Linux `htcp_state`.
    fn set_state(&mut self, conn: &ConnView, new_state: CaState) {
        let now = jiffies(conn.now);
        match new_state {
            CaState::Open => {
                if self.undo.take().is_some() {
                    self.last_cong = now;
                }
            }
            CaState::Cwr | CaState::Recovery | CaState::Loss => self.reset(now),
            CaState::Disorder => {}
        }
    }

    /// Linux `htcp_cwnd_undo`: the congestion event did not happen after all.
    fn undo_cwnd(&mut self, _conn: &ConnView, prior_cwnd: u32) -> u32 {
        if let Some(u) = self.undo.take() {
            self.last_cong = u.last_cong;
            self.max_rtt = u.max_rtt;
            self.tput.old_max_b = u.old_max_b;
        }
        self.w.cwnd.max(prior_cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    fn htcp(cfg: Config, cwnd: u32) -> Htcp {
        let mut h = Htcp::new(&cfg, Window { ssthresh: cwnd, ..Window::new(cwnd) });
        h.init(&conn(0, 100));
        h
    }

    /// Feed RTT samples (ms) in the Open state.
    fn rtt_samples(h: &mut Htcp, now_ms: u64, rtts_ms: &[u64]) {
        for &r in rtts_ms {
            h.pkts_acked(&conn(now_ms, r), &ack(1, r));
        }
    }

    /// The sender's entry into recovery: set_state, then ssthresh.
    fn loss_at(h: &mut Htcp, now_ms: u64) -> u32 {
        h.set_state(&conn(now_ms, 100), CaState::Recovery);
        h.ssthresh(&conn(now_ms, 100))
    }

    #[test]
    fn alpha_is_one_for_the_first_second_then_follows_eq_2() {
        // RTT_min 100 ms: RTT scale = (1000 << 3) / (10 x 100) = 8 = 1.0, β = 0.5: α = 2 x 0.5 x α(Δ).
        let mut h = htcp(Config::default(), 100);
        rtt_samples(&mut h, 0, &[100]);
        h.alpha_update(500);
        assert_eq!(h.alpha, 128); // Δ = 0.5 s <= Δ_L: α = 1.
                                  // Δ = 3 s: α = 1 + 10 x 2 + (2/2)^2 = 22 -> 22 << 7 = 2816.
        h.alpha_update(3000);
        assert_eq!(h.alpha, 22 << 7);
        // Δ = 5 s: 1 + 10 x 4 + (4/2)^2 = 45.
        h.alpha_update(5000);
        assert_eq!(h.alpha, 45 << 7);
        // Δ = 1.5 s: 1 + 10 x 0.5 + 0.25^2 = 6.06 -> integer 6 (Linux: 1 + (5000 + 62)/1000).
        h.alpha_update(1500);
        assert_eq!(h.alpha, 6 << 7);
    }

    #[test]
    fn alpha_scales_with_rtt_min_over_100_ms_within_half_and_ten() {
        // Δ = 3 s (α(Δ) = 22). RTT 50 ms: scale 8000/500 = 16 -> 22 x 8 / 16 = 11.
        let cases = [(50, 11), (20, 4), (400, 44)];
        // 20 ms: scale 8000/200 = 40 -> 176/40 = 4 (4.4); 400 ms: 8000/4000 = 2 -> clamped to 4 -> 44.
        for (rtt_ms, alpha) in cases {
            let mut h = htcp(Config::default(), 100);
            rtt_samples(&mut h, 0, &[rtt_ms]);
            h.alpha_update(3000);
            assert_eq!(h.alpha >> FIX_SHIFT, alpha, "RTT {rtt_ms} ms");
        }
        let mut h = htcp(Config { use_rtt_scaling: false, ..Config::default() }, 100);
        rtt_samples(&mut h, 0, &[50]);
        h.alpha_update(3000);
        assert_eq!(h.alpha >> FIX_SHIFT, 22);
    }

    #[test]
    fn beta_adapts_to_rtt_min_over_rtt_max_from_the_second_loss() {
        let cfg = Config { use_bandwidth_switch: false, ..Config::default() };
        let mut h = htcp(cfg, 100);
        // RTT_max climbs in steps of <= 20 ms: 100 -> 160.
        rtt_samples(&mut h, 0, &[100, 120, 140, 160]);
        assert_eq!((h.min_rtt, h.max_rtt), (100, 160));
        // First loss: mode switch not armed yet -> β = 0.5: ssthresh 50.
        assert_eq!(loss_at(&mut h, 1000), 50);
        // RTT_max fades: 100 + 60 x 95 / 100 = 157. Back in Open a 160 ms sample lifts it to 160.
        assert_eq!(h.max_rtt, 157);
        h.set_state(&conn(1100, 100), CaState::Open);
        rtt_samples(&mut h, 1100, &[160]);
        // Second loss: β = (100 << 7) / 160 = 80 (0.625): ssthresh = 100 x 80 >> 7 = 62.
        assert_eq!(loss_at(&mut h, 2000), 62);
        assert_eq!(h.beta, 80);
    }

    #[test]
    fn beta_is_clamped_to_point_eight() {
        let cfg = Config { use_bandwidth_switch: false, ..Config::default() };
        let mut h = htcp(cfg, 100);
        rtt_samples(&mut h, 0, &[100, 110]);
        loss_at(&mut h, 1000);
        // (100 << 7) / 109 (110 faded: 100 + 10 x 0.95 = 109) = 117 -> clamped to 102.
        assert_eq!(loss_at(&mut h, 2000), 79); // 100 x 102 >> 7 = 10200 / 128 = 79.7
        assert_eq!(h.beta, BETA_MAX);
    }

    #[test]
    fn unsteady_throughput_sends_beta_back_to_half() {
        let mut h = htcp(Config::default(), 100);
        rtt_samples(&mut h, 0, &[100, 120, 140, 160]);
        // One sample window: 100 segments over 100 ms from t = 5 s (Δ = 5 s, 50 RTTs >> 3).
        (h.tput.since, h.tput.count) = (5000, 0);
        for ms in 1..=100 {
            h.pkts_acked(&conn(5000 + ms, 100), &ack(1, 100));
        }
        // cur_B = 100 x 1000 / 100 = 1000 segments/s; B_i = (3 x 0 + 1000) / 4 = 250 = max_B.
        assert_eq!((h.tput.bi, h.tput.max_b), (250, 250));
        // First loss: old max_B 0 vs 250 -> outside [0.8, 1.2] -> β = 0.5, no mode switch.
        assert_eq!(loss_at(&mut h, 5200), 50);
        assert!(!h.modeswitch);
        // Second loss with max_B unchanged (250 vs old 250) -> mode switch armed, β still 0.5.
        loss_at(&mut h, 6000);
        assert!(h.modeswitch);
        // Third loss, throughput still 250: adaptive β = (100 << 7) / RTT_max.
        loss_at(&mut h, 7000);
        assert!(h.beta > BETA_MIN);
    }

    #[test]
    fn avoidance_adds_one_segment_each_time_alpha_times_acks_reaches_cwnd() {
        // α = 22 (Δ = 3 s, RTT 100 ms), cwnd 100: (cnt x 2816) >> 7 = 22 cnt >= 100 at cnt = 5;
        // the ACK that sees it adds the segment instead of counting: 6 ACKs per segment.
        let mut h = htcp(Config::default(), 100);
        rtt_samples(&mut h, 0, &[100]);
        h.alpha_update(3000);
        for _ in 0..6 {
            h.cong_avoid(&conn(3000, 100), &ack(1, 100));
        }
        assert_eq!(h.window().cwnd, 101);
        assert_eq!(h.alpha, 22 << 7); // recomputed on the increase, same Δ
    }

    #[test]
    fn in_the_first_second_it_is_reno() {
        // α = 1: cnt >= cwnd = 10 takes 10 counted ACKs plus the one that adds: 11 ACKs.
        let mut h = htcp(Config::default(), 10);
        for _ in 0..10 {
            h.cong_avoid(&conn(100, 100), &ack(1, 100));
        }
        assert_eq!(h.window().cwnd, 10);
        h.cong_avoid(&conn(100, 100), &ack(1, 100));
        assert_eq!(h.window().cwnd, 11);
    }

    #[test]
    fn undo_restores_the_time_of_the_previous_congestion_event() {
        let mut h = htcp(Config::default(), 100);
        loss_at(&mut h, 4000);
        assert_eq!(h.last_cong, 4000);
        assert_eq!(h.undo_cwnd(&conn(4100, 100), 120), 120);
        assert_eq!(h.last_cong, 0);
    }

    #[test]
    fn timeout_restarts_the_clock() {
        let mut h = htcp(Config::default(), 100);
        h.set_state(&conn(7000, 100), CaState::Loss);
        h.alpha_update(7500);
        assert_eq!(h.alpha, 128);
    }
}
