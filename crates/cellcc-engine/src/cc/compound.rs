//! Compound TCP: Tan, Song, Zhang, Sridharan, IEEE INFOCOM 2006; draft-sridharan-tcpm-ctcp-02 (control laws).
//!
//! The window is the sum of a loss-based part (Reno's cwnd) and a
//! delay-based part dwnd; `win = cwnd + dwnd` is what the sender may have in
//! flight (the simulator's `Window::cwnd`). Once per RTT, with the Vegas
//! estimate of packets queued `diff = win * (RTT - baseRTT) / RTT`:
//!
//! ```text
//!   cwnd (loss part):  +1/win per ACK (Reno's +1 per RTT); loss: cwnd / 2
//!   dwnd (delay part): diff <  gamma:  dwnd + max(alpha * win^k - 1, 0)   scalable increase
//!                      diff >= gamma:  max(dwnd - zeta * diff, 0)        early congestion: drain the queue
//!                      loss:           max(win * (1 - beta) - cwnd / 2, 0)
//! ```
//!
//! So on loss win falls to `win * (1 - beta)`, and dwnd shrinks to nothing
//! as the queue builds, leaving Reno's cwnd to compete fairly.
//!
//! Differences from the draft:
//! - The delay part is off during slow start (dwnd stays 0, as the draft and
//!   the paper describe) and is updated on the ACK that ends the round,
//!   like Vegas (`snd_nxt` at the round's start marks it), with Vegas' rule of
//!   more than 2 RTT samples per round. diff, alpha * win^k and zeta * diff are
//!   truncated to whole segments.
//! - `win` is the window the sender holds, not the data actually sent in the last RTT.
//! - Windows' gamma auto-tuning (TUBE) is not modelled: gamma is fixed (the paper's 30).
//! - On an RTO dwnd is cleared and the loss part restarts from 1 segment, as the draft's timeout rule.
//! - RTTs are microseconds from the simulator's nanosecond samples, with Vegas' `+ 1`.

use super::common::{cong_avoid_ai, slow_start};
use super::vegas::{VegasRtt, MIN_SAMPLES_PER_ROUND};
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, CwndEvent, Window};
use serde::{Deserialize, Serialize};

/// Smallest ssthresh after a loss (Reno's floor, RFC 5681 eq. 4).
const MIN_SSTHRESH_SEGS: u32 = 2;

/// Compound parameters: draft-sridharan-tcpm-ctcp-02 and INFOCOM 2006.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Scale of the delay part's increase, alpha in `alpha * win^k`. Segments,
    /// > 0. Default 0.125 (draft and paper).
    pub alpha: f64,
    /// Multiplicative decrease of the whole window on loss. Fraction in (0, 1).
    /// Default 0.5 (draft and paper).
    pub beta: f64,
    /// Exponent k of the increase `alpha * win^k`. In (0, 1]. Default 0.75
    /// (draft and paper: HighSpeed-like scalability).
    pub k: f64,
    /// Packets queued at which the delay part starts to shrink. Packets >= 1.
    /// Default 30 (paper; the draft's gamma).
    pub gamma: u32,
    /// How much of the estimated queue the delay part gives back per RTT
    /// (zeta, the draft's eta). Fraction >= 0. Default 1 (draft and paper).
    pub zeta: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config { alpha: 0.125, beta: 0.5, k: 0.75, gamma: 30, zeta: 1.0 }
    }
}

impl Config {
    /// Ranges in which the window laws are defined and decrease on loss.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.alpha.is_finite() && self.alpha > 0.0, "alpha", self.alpha, "segments > 0")?;
        ParamError::check(self.beta > 0.0 && self.beta < 1.0, "beta", self.beta, "a fraction in (0, 1)")?;
        ParamError::check(self.k > 0.0 && self.k <= 1.0, "k", self.k, "an exponent in (0, 1]")?;
        ParamError::check(self.gamma >= 1, "gamma", self.gamma, "packets >= 1")?;
        ParamError::check(self.zeta.is_finite() && self.zeta >= 0.0, "zeta", self.zeta, "a fraction >= 0")
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "compound",
    family: super::Family::LossDelay,
    source: "Tan, Song, Zhang & Sridharan, INFOCOM 2006; draft-sridharan-tcpm-ctcp-02 (Windows CTCP)",
    summary: "Reno cwnd plus a delay window dwnd that grows as alpha*win^k while < gamma packets are queued and drains the queue beyond.",
    description: "The window is the sum of a loss-based part (Reno's cwnd) and a delay-based part dwnd. Once per RTT, \
        with diff the Vegas estimate of packets queued, dwnd grows by alpha win^k - 1 segments (alpha 1/8, k \
        3/4: a scalable increase) while diff < gamma (30 packets) and gives back zeta x diff once the queue \
        exceeds gamma; a loss cuts the total window to win (1 - beta) = win/2. dwnd is zero in slow start. \
        So it ramps up fast on an empty pipe and falls back to Reno once a standing queue of gamma packets \
        builds.",
    params: &[
        ("alpha", "delay window increase scale in alpha*win^k, segments > 0 (default 0.125, draft)"),
        ("beta", "window decrease on loss, fraction in (0, 1) (default 0.5, draft)"),
        ("k", "delay window increase exponent, in (0, 1] (default 0.75, draft)"),
        ("gamma", "queued packets at which dwnd shrinks, packets >= 1 (default 30, paper)"),
        ("zeta", "fraction of the queue dwnd gives back per RTT, >= 0 (default 1, draft)"),
    ],
};

pub struct Compound {
    cfg: Config,
    /// `win = cwnd + dwnd`: the window the sender uses.
    w: Window,
    /// The delay part, segments; the loss part is `w.cwnd - dwnd`.
    dwnd: u32,
    rtt: VegasRtt,
    /// dwnd when the last loss was detected, for undo.
    prior_dwnd: u32,
}

impl Compound {
    pub fn new(cfg: &Config, w: Window) -> Self {
        Compound { cfg: cfg.clone(), w, dwnd: 0, rtt: VegasRtt::new(), prior_dwnd: 0 }
    }

    /// The loss-based part, segments.
    pub fn loss_window(&self) -> u32 {
        self.w.cwnd.saturating_sub(self.dwnd)
    }

    /// The delay-based part, segments.
    pub fn delay_window(&self) -> u32 {
        self.dwnd
    }

    /// The sender reduces `win` during recovery and on RTO; keep dwnd within it
    /// (the loss part keeps at least one segment).
    fn reconcile(&mut self) {
        self.dwnd = self.dwnd.min(self.w.cwnd.saturating_sub(1));
    }

    /// The draft's once-per-RTT dwnd update from the round's queue estimate.
    fn update_dwnd(&mut self) {
        let win = self.w.cwnd;
        let diff = self.rtt.queued_packets(win);
        let dwnd = if diff < self.cfg.gamma {
            let increase = (self.cfg.alpha * (win as f64).powf(self.cfg.k) - 1.0).max(0.0);
            self.dwnd.saturating_add(increase as u32)
        } else {
            self.dwnd.saturating_sub((self.cfg.zeta * diff as f64) as u32)
        };
        let loss_part = self.loss_window();
        self.dwnd = dwnd.min(self.w.cwnd_clamp.saturating_sub(loss_part));
        self.w.cwnd = loss_part + self.dwnd;
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    /// The draft on loss: cwnd = cwnd / 2, dwnd = max(win (1 - beta) - cwnd / 2, 0);
    /// the new window (and ssthresh) is their sum.
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        self.reconcile();
        let win = self.w.cwnd;
        let loss_part = self.loss_window();
        self.prior_dwnd = self.dwnd;
        let new_loss_part = loss_part / 2;
        let target_win = (win as f64 * (1.0 - self.cfg.beta)) as u32;
        self.dwnd = target_win.saturating_sub(new_loss_part);
        (new_loss_part + self.dwnd).max(MIN_SSTHRESH_SEGS)
    }
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        self.reconcile();
        if !conn.is_cwnd_limited {
            return;
        }
        if self.w.in_slow_start() {
            // Standard slow start, no delay part (draft, paper).
            self.dwnd = 0;
            slow_start(&mut self.w, ack.acked_segs);
        } else {
            // Loss part: +1/win per ACK, i.e. +1 segment per window of ACKs.
            let win = self.w.cwnd;
            cong_avoid_ai(&mut self.w, win, ack.acked_segs);
        }
        if self.rtt.round_ended(conn) {
            if self.rtt.cnt_rtt > MIN_SAMPLES_PER_ROUND && !self.w.in_slow_start() {
                self.update_dwnd();
            }
            self.rtt.beg_snd_nxt = conn.snd_nxt;
            self.rtt.reset_round();
        }
    }
    fn pkts_acked(&mut self, _conn: &ConnView, ack: &AckSample) {
        self.rtt.on_rtt_sample(ack.rtt);
    }
    fn set_state(&mut self, conn: &ConnView, new_state: CaState) {
        self.rtt.on_state(conn, new_state);
    }
    fn cwnd_event(&mut self, conn: &ConnView, event: CwndEvent) {
        match event {
            // The draft: a timeout resets the delay part; the loss part restarts from 1.
            CwndEvent::Loss => self.dwnd = 0,
            // Like the Linux CTCP port: restart the round but keep baseRTT.
            CwndEvent::TxStart | CwndEvent::CwndRestart => {
                let base = self.rtt.base_rtt_us;
                self.rtt.on_cwnd_event(conn, event);
                self.rtt.base_rtt_us = base;
            }
            CwndEvent::CompleteCwr | CwndEvent::EcnNoCe | CwndEvent::EcnIsCe => {}
        }
    }
    /// A spurious loss: restore the delay part as it was; the window as Linux's
    /// `tcp_reno_undo_cwnd` (the loss part gets the rest).
    fn undo_cwnd(&mut self, _conn: &ConnView, prior_cwnd: u32) -> u32 {
        self.dwnd = self.prior_dwnd;
        self.w.cwnd.max(prior_cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::conn;
    use super::super::vegas::tests::{round, start};
    use super::*;

    /// Compound in congestion avoidance with loss part `loss` and delay part `dwnd`,
    /// baseRTT 100 ms (100_001 us) learnt in round 1 (its dwnd step undone).
    fn compound(loss: u32, dwnd: u32) -> Compound {
        let mut c = Compound::new(&Config::default(), Window { ssthresh: loss, ..Window::new(loss) });
        start(&mut c);
        round(&mut c, 1, 100);
        assert_eq!(c.rtt.base_rtt_us, 100_001);
        c.dwnd = dwnd;
        c.w.cwnd = loss + dwnd;
        c.w.cwnd_cnt = 0;
        c
    }

    #[test]
    fn dwnd_grows_by_alpha_win_to_the_k_when_the_queue_is_small() {
        let mut c = compound(200, 56);
        // RTT 101 ms: diff = 256 x 1_000 / 101_001 = 2.5 -> 2 < gamma 30.
        // dwnd += alpha x win^k - 1 = 256^0.75 / 8 - 1 = 64 / 8 - 1 = 7: dwnd 63, win 263.
        round(&mut c, 2, 101);
        assert_eq!((c.loss_window(), c.delay_window(), c.window().cwnd), (200, 63, 263));
    }

    #[test]
    fn small_windows_get_no_delay_increase() {
        let mut c = compound(16, 0);
        // win 16: alpha x 16^0.75 - 1 = 8 / 8 - 1 = 0: only Reno's part can grow.
        round(&mut c, 2, 100);
        assert_eq!(c.delay_window(), 0);
    }

    #[test]
    fn early_congestion_drains_dwnd_by_the_estimated_queue() {
        let mut c = compound(100, 100);
        // RTT 125 ms: diff = 200 x 25_000 / 125_001 = 39.99 -> 39 >= gamma 30:
        // dwnd = max(100 - 1 x 39, 0) = 61; win = 161.
        round(&mut c, 2, 125);
        assert_eq!((c.loss_window(), c.delay_window(), c.window().cwnd), (100, 61, 161));
        // RTT 250 ms: diff = 161 x 150_000 / 250_001 = 96 >= 30: dwnd = max(61 - 96, 0) = 0.
        round(&mut c, 3, 250);
        assert_eq!((c.loss_window(), c.delay_window()), (100, 0));
    }

    #[test]
    fn loss_halves_cwnd_and_shrinks_win_by_beta() {
        let mut c = compound(80, 120);
        // win 200: cwnd = 80 / 2 = 40; dwnd = max(200 x (1 - 0.5) - 40, 0) = 60; ssthresh = 100.
        assert_eq!(c.ssthresh(&conn(0, 100)), 100);
        assert_eq!(c.delay_window(), 60);
        // The sender brings win down to ssthresh during recovery: the parts are 40 + 60.
        c.w.cwnd = 100;
        c.w.ssthresh = 100;
        c.reconcile();
        assert_eq!((c.loss_window(), c.delay_window()), (40, 60));
    }

    #[test]
    fn rto_clears_the_delay_window() {
        let mut c = compound(80, 120);
        let v = conn(0, 100);
        c.w.ssthresh = c.ssthresh(&v);
        c.w.cwnd = 1;
        c.cwnd_event(&v, CwndEvent::Loss);
        c.reconcile();
        assert_eq!((c.loss_window(), c.delay_window(), c.window().ssthresh), (1, 0, 100));
    }

    #[test]
    fn bad_parameters_are_rejected() {
        assert_eq!(Config { beta: 1.0, ..Config::default() }.validate().unwrap_err().field, "beta");
        assert_eq!(Config { k: 0.0, ..Config::default() }.validate().unwrap_err().field, "k");
        assert_eq!(Config { gamma: 0, ..Config::default() }.validate().unwrap_err().field, "gamma");
        assert_eq!(Config { alpha: -1.0, ..Config::default() }.validate().unwrap_err().field, "alpha");
    }
}
