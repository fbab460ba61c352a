//! BIC-TCP: Xu, Harfoush, Rhee, "Binary Increase Congestion Control for Fast, Long Distance Networks", INFOCOM 2004; Linux net/ipv4/tcp_bic.c.
//!
//! After a loss BIC binary-searches between the window it reduced to and the
//! window where the loss happened (W_max): each RTT it moves a fraction of the
//! remaining distance, never more than `max_increment` segments ("additive
//! increase" when far) and slows to `smooth_part` RTTs for the last few
//! segments. Past W_max it probes symmetrically ("max probing"): slowly, then
//! faster, up to `max_increment` per RTT. Below `low_window` it is Reno.
//!
//! ```text
//!  cwnd                                  ...... max probing (linear)
//!   ^                 W_max  ___.....---'
//!   |        __..--'''''''''
//!   |    _.-'  binary search (step <= max_increment)
//!   |  /  additive increase
//!   +-------------------------------------------> time
//! ```
//!
//! Differences from Linux: the clock is `conn.now` in 1 ms jiffies
//! (CONFIG_HZ=1000); the ACKed-segment count of `pkts_acked` is
//! `cum_acked_bytes` rounded up to segments. Everything
//! else (including the delayed-ACK ratio that starts at 2 and, with one
//! segment per ACK, settles at 31/16 rather than 1) follows Linux exactly.

use super::common::{cong_avoid_ai, cum_acked_segs, jiffies, slow_start, LINUX_HZ};
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, Window};
use serde::{Deserialize, Serialize};

/// Linux `BICTCP_BETA_SCALE`: beta is in 1/1024ths.
const BETA_SCALE: u32 = 1024;
/// Linux `BICTCP_B`: binary search moves to (max + min) / B; also the probing step width.
const SEARCH_DIVISOR: u32 = 4;
/// Linux `ACK_RATIO_SHIFT`: the packets-per-ACK ratio is kept in 1/16ths.
const ACK_RATIO_SHIFT: u32 = 4;
/// Linux `bictcp_reset`: assume delayed ACKs (2 segments per ACK) until measured.
const INITIAL_ACK_RATIO: u32 = 2 << ACK_RATIO_SHIFT;
/// Linux: with no W_max yet, grow at least 5% per RTT (cnt capped at 20).
const NO_WMAX_MAX_CNT: u32 = 20;
/// Linux: `cnt` is recomputed when cwnd changed or after HZ/32 jiffies.
const RECALC_JIFFIES: u64 = LINUX_HZ / 32;
/// Smallest ssthresh Linux returns after a loss.
const MIN_SSTHRESH: u32 = 2;

/// BIC parameters: Linux `tcp_bic` module parameters and their defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// "turn on/off fast convergence": after a loss below the previous W_max,
    /// remember W_max x (1 + beta)/2 instead. Default true (Linux `fast_convergence=1`).
    pub fast_convergence: bool,
    /// "Limit on increment allowed during binary search", segments per RTT.
    /// Default 16 (Linux `max_increment`). At least 1.
    pub max_increment: u32,
    /// "lower bound on congestion window (for TCP friendliness)": at or below
    /// it BIC behaves as Reno, segments. Default 14 (Linux `low_window`).
    pub low_window: u32,
    /// "beta for multiplicative increase" (really the decrease factor), in
    /// 1/1024: cwnd x beta/1024 after a loss. Default 819 = 0.8 (Linux `beta`). 1..=1023.
    pub beta: u32,
    /// "initial value of slow start threshold", segments; 0 keeps the stack's
    /// (infinite) one. Default 0 (Linux `initial_ssthresh`).
    pub initial_ssthresh: u32,
    /// "log(B/(B*Smin))/log(B/(B-1))+B, # of RTT from Wmax-B to Wmax": RTTs
    /// spent on the last B segments below W_max. Default 20 (Linux `smooth_part`). At least 1.
    pub smooth_part: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            fast_convergence: true,
            max_increment: 16,
            low_window: 14,
            beta: 819,
            initial_ssthresh: 0,
            smooth_part: 20,
        }
    }
}

impl Config {
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.max_increment >= 1, "max_increment", self.max_increment, "segments >= 1")?;
        ParamError::check(
            (1..BETA_SCALE).contains(&self.beta),
            "beta",
            self.beta,
            "an integer in [1, 1023] (1/1024ths)",
        )?;
        ParamError::check(self.smooth_part >= 1, "smooth_part", self.smooth_part, "RTTs >= 1")
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "bic",
    family: super::Family::Loss,
    source: "Xu, Harfoush, Rhee, INFOCOM 2004; Linux net/ipv4/tcp_bic.c",
    summary: "Binary search for the window of the last loss, capped at max_increment per RTT, then max probing beyond it; beta = 0.8.",
    description: "After a loss BIC keeps beta = 0.8 of the window and binary-searches back towards W_max, the window \
        at which the loss happened: each RTT it moves half the remaining distance, at most max_increment \
        (16) segments, and spends smooth_part RTTs on the last few segments. Past W_max it probes slowly, \
        then faster (max probing); at or below low_window (14 segments) it is Reno. With fast convergence a \
        loss below the previous W_max lowers the remembered W_max to W x (1 + beta)/2, releasing bandwidth \
        to newer flows. It reacts to loss only.",
    params: &[
        ("fast_convergence", "bool: after a loss below the previous W_max, remember W_max x (1+beta)/2 (default true; Linux fast_convergence)"),
        ("max_increment", "segments per RTT: largest binary-search step (default 16; Linux max_increment)"),
        ("low_window", "segments: at or below it BIC is Reno (default 14; Linux low_window)"),
        ("beta", "1/1024: window kept after a loss (default 819 = 0.8; Linux beta)"),
        ("initial_ssthresh", "segments: initial slow-start threshold, 0 = none (default 0; Linux initial_ssthresh)"),
        ("smooth_part", "RTTs to cover the last B = 4 segments below W_max (default 20; Linux smooth_part)"),
    ],
};

pub struct Bic {
    cfg: Config,
    w: Window,
    /// Linux `cnt`: segments ACKed per +1 of cwnd.
    cnt: u32,
    /// Linux `last_max_cwnd`: W_max, the window at the last loss (0 = none yet).
    last_max_cwnd: u32,
    /// Linux `last_cwnd` / `last_time`: cwnd and jiffies when `cnt` was last computed.
    last_cwnd: u32,
    last_time: u64,
    /// Linux `delayed_ack`: segments per ACK, << ACK_RATIO_SHIFT.
    delayed_ack: u32,
}

impl Bic {
    pub fn new(cfg: &Config, w: Window) -> Self {
        let mut w = w;
        if cfg.initial_ssthresh > 0 {
            w.ssthresh = cfg.initial_ssthresh;
        }
        let mut b = Bic { cfg: cfg.clone(), w, cnt: 0, last_max_cwnd: 0, last_cwnd: 0, last_time: 0, delayed_ack: 0 };
        b.reset();
        b
    }

    /// Linux `bictcp_reset`: forget W_max and the ACK ratio.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.delayed_ack = INITIAL_ACK_RATIO;
    }

    /// Linux `bictcp_update`: segments per +1 for `cwnd` now.
    fn update(&mut self, now_jiffies: u64, cwnd: u32) {
        if self.last_cwnd == cwnd && now_jiffies.saturating_sub(self.last_time) <= RECALC_JIFFIES {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now_jiffies;
        if cwnd <= self.cfg.low_window {
            self.cnt = cwnd;
            return;
        }
        let mut cnt = self.search_cnt(cwnd);
        if self.last_max_cwnd == 0 {
            cnt = cnt.min(NO_WMAX_MAX_CNT as u64);
        }
        let scaled = (cnt << ACK_RATIO_SHIFT) / self.delayed_ack as u64;
        self.cnt = scaled.clamp(1, u32::MAX as u64) as u32;
    }

    /// Segments per +1 from where cwnd sits relative to W_max (before the ACK-ratio scaling),
    /// in 64 bits so extreme parameters cannot overflow.
    fn search_cnt(&self, cwnd: u32) -> u64 {
        let (cwnd, wmax) = (cwnd as u64, self.last_max_cwnd as u64);
        let (max_inc, smooth) = (self.cfg.max_increment as u64, self.cfg.smooth_part as u64);
        let b = SEARCH_DIVISOR as u64;
        if cwnd < wmax {
            // Below W_max: binary search towards it, in steps of dist per RTT.
            let dist = (wmax - cwnd) / b;
            if dist > max_inc {
                cwnd / max_inc
            } else if dist <= 1 {
                cwnd * smooth / b
            } else {
                cwnd / dist
            }
        } else if cwnd < wmax + b {
            // Just past W_max: as slow as the last steps below it.
            cwnd * smooth / b
        } else if cwnd < wmax + max_inc * (b - 1) {
            // Max probing: the step grows with the distance past W_max.
            cwnd * (b - 1) / (cwnd - wmax)
        } else {
            cwnd / max_inc
        }
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Linux `bictcp_recalc_ssthresh`: remember W_max (with fast convergence), keep beta.
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        let cwnd = self.w.cwnd;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.cfg.fast_convergence {
            ((cwnd as u64 * (BETA_SCALE + self.cfg.beta) as u64) / (2 * BETA_SCALE) as u64) as u32
        } else {
            cwnd
        };
        let kept = if cwnd <= self.cfg.low_window {
            cwnd >> 1
        } else {
            ((cwnd as u64 * self.cfg.beta as u64) / BETA_SCALE as u64) as u32
        };
        kept.max(MIN_SSTHRESH)
    }

    /// Linux `bictcp_cong_avoid`.
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        if !conn.is_cwnd_limited {
            return;
        }
        let mut acked = ack.acked_segs;
        if self.w.in_slow_start() {
            acked = slow_start(&mut self.w, acked);
            if acked == 0 {
                return;
            }
        }
        self.update(jiffies(conn.now), self.w.cwnd);
        cong_avoid_ai(&mut self.w, self.cnt, acked);
    }

    /// Linux `bictcp_state`: a timeout forgets everything.
    fn set_state(&mut self, _conn: &ConnView, new_state: CaState) {
        if new_state == CaState::Loss {
            self.reset();
        }
    }

    /// Linux `bictcp_acked`: ratio = (15 ratio + segments ACKed) / 16, in Open only.
    fn pkts_acked(&mut self, conn: &ConnView, ack: &AckSample) {
        if conn.ca_state == CaState::Open {
            self.delayed_ack = self.delayed_ack + cum_acked_segs(conn, ack) - (self.delayed_ack >> ACK_RATIO_SHIFT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    /// BIC after a loss at `wmax` (cwnd now `cwnd`, in congestion avoidance).
    fn after_loss(wmax: u32, cwnd: u32) -> Bic {
        let mut b = Bic::new(&Config::default(), Window::new(wmax));
        let ss = b.ssthresh(&conn(0, 100));
        b.w.ssthresh = ss;
        b.w.set_cwnd(cwnd);
        b
    }

    /// One ACK of one segment at `ms`, and `cnt` as it is after it.
    fn ack_at(b: &mut Bic, ms: u64) -> u32 {
        b.cong_avoid(&conn(ms, 100), &ack(1, 100));
        b.cnt
    }

    #[test]
    fn loss_keeps_819_of_1024_above_low_window_and_half_below() {
        // 200 x 819 / 1024 = 163800 / 1024 = 159 (159.96); 14 <= low_window: 14 >> 1 = 7.
        assert_eq!(Bic::new(&Config::default(), Window::new(200)).ssthresh(&conn(0, 100)), 159);
        assert_eq!(Bic::new(&Config::default(), Window::new(14)).ssthresh(&conn(0, 100)), 7);
        assert_eq!(Bic::new(&Config::default(), Window::new(3)).ssthresh(&conn(0, 100)), 2);
    }

    #[test]
    fn far_below_wmax_the_step_is_capped_at_max_increment() {
        // W_max 1000, cwnd 799: dist = (1000 - 799) / 4 = 50 > 16, so cnt = 799 / 16 = 49
        // (16 segments per RTT of ACKs), then x 16 / delayed_ack (32) = 24.
        let mut b = after_loss(1000, 799);
        assert_eq!(ack_at(&mut b, 0), 24);
        // 24 ACKs of one segment: cwnd_cnt reaches 24 -> cwnd 800.
        for _ in 1..24 {
            ack_at(&mut b, 0);
        }
        assert_eq!(b.window().cwnd, 800);
    }

    #[test]
    fn binary_search_step_is_a_quarter_of_the_distance_to_wmax() {
        // W_max 200, cwnd 159: dist = (200 - 159) / 4 = 10 in (1, 16]: cnt = 159 / 10 = 15,
        // i.e. +10 segments per RTT, then x 16 / 32 = 7.
        let mut b = after_loss(200, 159);
        assert_eq!(ack_at(&mut b, 0), 7);
        // At 190: dist = 10 / 4 = 2: cnt = 190 / 2 = 95 -> 47.
        let mut b = after_loss(200, 190);
        assert_eq!(ack_at(&mut b, 0), 47);
    }

    #[test]
    fn within_b_of_wmax_growth_slows_to_smooth_part() {
        // W_max 200, cwnd 197: dist = 3 / 4 = 0 <= 1: cnt = 197 x 20 / 4 = 985 -> x 16 / 32 = 492.
        let mut b = after_loss(200, 197);
        assert_eq!(ack_at(&mut b, 0), 492);
    }

    #[test]
    fn past_wmax_max_probing_speeds_up_then_goes_linear() {
        // W_max 200. cwnd 202 < 200 + 4: cnt = 202 x 20 / 4 = 1010 -> 505.
        let mut b = after_loss(200, 202);
        assert_eq!(ack_at(&mut b, 0), 505);
        // cwnd 220 < 200 + 16 x 3: cnt = 220 x 3 / 20 = 33 -> 16.
        let mut b = after_loss(200, 220);
        assert_eq!(ack_at(&mut b, 0), 16);
        // cwnd 300 >= 248: linear, cnt = 300 / 16 = 18 -> 9.
        let mut b = after_loss(200, 300);
        assert_eq!(ack_at(&mut b, 0), 9);
    }

    #[test]
    fn fast_convergence_lowers_wmax_when_losses_come_earlier() {
        // Loss at 200 -> W_max 200; next loss at 150 < 200 -> W_max = 150 x 1843 / 2048 = 134.
        let mut b = after_loss(200, 150);
        assert_eq!(b.ssthresh(&conn(0, 100)), 119); // 150 x 819 / 1024 = 119.97
        assert_eq!(b.last_max_cwnd, 134);
        let mut plain = Bic::new(&Config { fast_convergence: false, ..Config::default() }, Window::new(200));
        plain.ssthresh(&conn(0, 100));
        plain.w.set_cwnd(150);
        plain.ssthresh(&conn(0, 100));
        assert_eq!(plain.last_max_cwnd, 150);
    }

    #[test]
    fn at_or_below_low_window_it_is_reno() {
        let mut b = after_loss(200, 14);
        b.w.ssthresh = 14;
        assert_eq!(ack_at(&mut b, 0), 14);
    }

    #[test]
    fn delayed_ack_ratio_tracks_segments_per_ack_in_open() {
        // 32 + 1 - (32 >> 4) = 31, then 31 + 1 - 1 = 31: one segment per ACK settles at 31/16.
        let mut b = Bic::new(&Config::default(), Window::new(10));
        b.pkts_acked(&conn(0, 100), &ack(1, 100));
        b.pkts_acked(&conn(0, 100), &ack(1, 100));
        assert_eq!(b.delayed_ack, 31);
        // Outside Open it is left alone.
        let mut c = conn(0, 100);
        c.ca_state = CaState::Recovery;
        b.pkts_acked(&c, &ack(5, 100));
        assert_eq!(b.delayed_ack, 31);
    }

    #[test]
    fn cnt_is_recomputed_only_on_a_new_cwnd_or_after_hz_over_32() {
        // W_max 1000, cwnd 799 -> cnt 24 at t=0. Force a different W_max: same cwnd within
        // 31 ms keeps the old cnt, at 32 ms it is recomputed (dist 1 -> cnt 799 x 5 / 2 = 1997).
        let mut b = after_loss(1000, 799);
        ack_at(&mut b, 0);
        b.last_max_cwnd = 803;
        assert_eq!(ack_at(&mut b, 31), 24);
        assert_eq!(ack_at(&mut b, 32), 1997);
    }

    #[test]
    fn timeout_forgets_wmax() {
        let mut b = after_loss(200, 150);
        b.set_state(&conn(0, 100), CaState::Loss);
        assert_eq!((b.last_max_cwnd, b.delayed_ack), (0, INITIAL_ACK_RATIO));
    }

    #[test]
    fn out_of_range_parameters_are_rejected() {
        assert_eq!(Config::default().validate(), Ok(()));
        assert_eq!(Config { max_increment: 0, ..Config::default() }.validate().unwrap_err().field, "max_increment");
        assert_eq!(Config { beta: 1024, ..Config::default() }.validate().unwrap_err().field, "beta");
    }
}
