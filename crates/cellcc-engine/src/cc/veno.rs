//! Veno: Fu & Liew, IEEE JSAC 21(2) 2003; Linux net/ipv4/tcp_veno.c.
//!
//! Veno uses Vegas' queue estimate only to tell losses apart. With
//! `N = cwnd * (RTT - baseRTT) / RTT` packets queued (kept doubled, Linux's
//! `V_PARAM_SHIFT`):
//!
//! ```text
//!   N <  beta (3 packets): "non-congestive" -> loss was random: ssthresh = cwnd * 4/5
//!                                              avoidance grows 1 segment per RTT (Reno)
//!   N >= beta:             "congestive"     -> ssthresh = cwnd / 2
//!                                              avoidance grows 1 segment every other RTT
//! ```
//!
//! Differences from Linux `tcp_veno.c`: none in the algorithm. RTTs are
//! microseconds from the simulator's nanosecond samples, with Linux's `+ 1`.
//! Like Linux, the queue is re-estimated on every ACK from the RTT samples
//! since the previous ACK, and the sample count that enables Veno is never reset.

use super::common::{cong_avoid_ai, reno_cong_avoid, slow_start};
use super::vegas::{MIN_SAMPLES_PER_ROUND, RTT_UNSET_US};
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, CwndEvent, Window};
use serde::{Deserialize, Serialize};

/// Linux `V_PARAM_SHIFT`: the queue estimate is kept in half packets.
const V_PARAM_SHIFT: u32 = 1;
/// Linux `tcp_veno_ssthresh`: a random (non-congestive) loss keeps 4/5 of cwnd.
const RANDOM_LOSS_KEEP_NUM: u32 = 4;
const RANDOM_LOSS_KEEP_DEN: u32 = 5;
/// Smallest cwnd and ssthresh Veno leaves (Linux `tcp_veno_cong_avoid`, `tcp_veno_ssthresh`).
const MIN_CWND_SEGS: u32 = 2;

/// Veno parameters. Linux has `beta` as a constant (`3 << V_PARAM_SHIFT`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Queued packets at and above which the path counts as congested: loss
    /// then halves cwnd and growth slows to 1 segment every other RTT. Packets,
    /// >= 1. Default 3 (Linux tcp_veno.c `beta`).
    pub beta: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { beta: 3 }
    }
}

impl Config {
    /// beta 0 would call every state congestive and turn Veno into Reno.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.beta >= 1, "beta", self.beta, "packets >= 1")
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "veno",
    family: super::Family::Delay,
    source: "Fu & Liew, IEEE JSAC 2003; Linux net/ipv4/tcp_veno.c",
    summary: "Reno that reads Vegas' queue estimate: loss with < beta packets queued is random (cwnd x 4/5), else congestive (cwnd / 2).",
    description: "Reno that uses Vegas' estimate of packets queued, N = cwnd (RTT - baseRTT) / RTT, to tell random \
        losses from congestive ones: a loss with fewer than beta (3) packets queued cuts the window to 4/5, \
        otherwise to 1/2. In congestion avoidance it grows one segment per RTT while N < beta and one every \
        other RTT once the queue builds. On a drop-tail bottleneck losses come with a full queue, so it \
        behaves as a Reno that grows at half speed near the top of the sawtooth.",
    params: &[(
        "beta",
        "queued packets at which the path counts as congested, packets >= 1 (default 3, Linux tcp_veno.c)",
    )],
};

pub struct Veno {
    w: Window,
    /// `beta << V_PARAM_SHIFT`.
    beta_shifted: u32,
    /// `doing_veno_now`: off outside the Open state.
    enabled: bool,
    /// `cntrtt`: RTT samples since (re)start.
    cnt_rtt: u32,
    /// `minrtt`: smallest sample since the previous ACK, us.
    min_rtt_us: u64,
    /// `basertt`: smallest sample ever, us.
    base_rtt_us: u64,
    /// `inc`: in the congestive state, grow on every other window of ACKs.
    inc: bool,
    /// `diff`: last queue estimate, in half packets.
    diff_shifted: u32,
}

impl Veno {
    pub fn new(cfg: &Config, w: Window) -> Self {
        Veno {
            w,
            beta_shifted: cfg.beta << V_PARAM_SHIFT,
            enabled: true,
            cnt_rtt: 0,
            min_rtt_us: RTT_UNSET_US,
            base_rtt_us: RTT_UNSET_US,
            inc: true,
            diff_shifted: 0,
        }
    }

    /// Linux `tcp_veno_init`.
    fn init(&mut self) {
        self.base_rtt_us = RTT_UNSET_US;
        self.inc = true;
        self.enable();
    }

    /// Linux `veno_enable`.
    fn enable(&mut self) {
        self.enabled = true;
        self.min_rtt_us = RTT_UNSET_US;
    }

    fn congestive(&self) -> bool {
        self.diff_shifted >= self.beta_shifted
    }

    /// The `cntrtt > 2` branch of Linux `tcp_veno_cong_avoid`.
    fn veno_avoid(&mut self, acked: u32) {
        let cwnd = self.w.cwnd as u64;
        let target_shifted = ((cwnd * self.base_rtt_us) << V_PARAM_SHIFT) / self.min_rtt_us;
        self.diff_shifted = ((cwnd << V_PARAM_SHIFT) as u32).saturating_sub(target_shifted as u32);
        let mut acked = acked;
        if self.w.in_slow_start() {
            acked = slow_start(&mut self.w, acked);
        }
        if acked > 0 {
            self.avoidance(acked);
        }
        self.w.cwnd = self.w.cwnd.clamp(MIN_CWND_SEGS, self.w.cwnd_clamp);
    }

    /// Congestion avoidance: Reno's rate if non-congestive, half of it if congestive.
    fn avoidance(&mut self, acked: u32) {
        let congestive = self.congestive();
        let w = &mut self.w;
        if !congestive {
            cong_avoid_ai(w, w.cwnd, acked);
        } else if w.cwnd_cnt >= w.cwnd {
            if self.inc && w.cwnd < w.cwnd_clamp {
                w.cwnd += 1;
                self.inc = false;
            } else {
                self.inc = true;
            }
            w.cwnd_cnt = 0;
        } else {
            w.cwnd_cnt += acked;
        }
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    /// Linux `tcp_veno_ssthresh`: the MD phase.
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        let kept = if self.congestive() {
            self.w.cwnd >> 1
        } else {
            self.w.cwnd * RANDOM_LOSS_KEEP_NUM / RANDOM_LOSS_KEEP_DEN
        };
        kept.max(MIN_CWND_SEGS)
    }
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        if !self.enabled {
            reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
            return;
        }
        if !conn.is_cwnd_limited {
            return;
        }
        if self.cnt_rtt <= MIN_SAMPLES_PER_ROUND {
            reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
        } else {
            self.veno_avoid(ack.acked_segs);
        }
        self.min_rtt_us = RTT_UNSET_US;
    }
    /// Linux `tcp_veno_pkts_acked`.
    fn pkts_acked(&mut self, _conn: &ConnView, ack: &AckSample) {
        let Some(rtt) = ack.rtt else { return };
        let vrtt_us = rtt.as_us() + 1;
        self.base_rtt_us = self.base_rtt_us.min(vrtt_us);
        self.min_rtt_us = self.min_rtt_us.min(vrtt_us);
        self.cnt_rtt += 1;
    }
    fn set_state(&mut self, _conn: &ConnView, new_state: CaState) {
        if new_state == CaState::Open {
            self.enable();
        } else {
            self.enabled = false;
        }
    }
    fn cwnd_event(&mut self, _conn: &ConnView, event: CwndEvent) {
        if matches!(event, CwndEvent::CwndRestart | CwndEvent::TxStart) {
            self.init();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    /// One ACK of one segment with an RTT sample, as the sender delivers it.
    fn on_ack(v: &mut Veno, rtt_ms: u64) {
        let c = conn(0, rtt_ms);
        v.pkts_acked(&c, &ack(1, rtt_ms));
        v.cong_avoid(&c, &ack(1, rtt_ms));
    }

    /// A Veno in congestion avoidance at `cwnd` that has learnt baseRTT = 100 ms
    /// (100_001 us) from 3 samples, with its AI counter cleared.
    fn veno_with_base_rtt(cwnd: u32) -> Veno {
        let mut v = Veno::new(&Config::default(), Window { ssthresh: cwnd / 2, ..Window::new(cwnd) });
        for _ in 0..3 {
            on_ack(&mut v, 100);
        }
        assert_eq!((v.window().cwnd, v.base_rtt_us, v.cnt_rtt), (cwnd, 100_001, 3));
        v.w.cwnd_cnt = 0;
        v
    }

    #[test]
    fn random_loss_with_a_small_queue_keeps_four_fifths() {
        let mut v = veno_with_base_rtt(50);
        // RTT 102 ms: target = (50 * 100_001 << 1) / 102_001 = 10_000_100 / 102_001 = 98.04 -> 98,
        // diff = (50 << 1) - 98 = 2 half-packets (1 packet) < beta 6: non-congestive.
        on_ack(&mut v, 102);
        assert_eq!(v.diff_shifted, 2);
        // ssthresh = 50 * 4 / 5 = 40.
        assert_eq!(v.ssthresh(&conn(0, 102)), 40);
    }

    #[test]
    fn congestive_loss_with_a_standing_queue_halves() {
        let mut v = veno_with_base_rtt(50);
        // RTT 150 ms: target = 10_000_100 / 150_001 = 66.67 -> 66,
        // diff = 100 - 66 = 34 half-packets (17 packets) >= beta 6: congestive.
        on_ack(&mut v, 150);
        assert_eq!(v.diff_shifted, 34);
        // ssthresh = 50 / 2 = 25.
        assert_eq!(v.ssthresh(&conn(0, 150)), 25);
    }

    #[test]
    fn congestive_state_grows_one_segment_every_other_rtt() {
        let mut v = veno_with_base_rtt(10);
        // Congestive (RTT 150 ms) from cwnd 10, cnt 0, inc = true:
        // ACKs 1-10 count cnt to 10; ACK 11 sees cnt >= 10 and inc: cwnd 11, inc = false.
        // ACKs 12-22 count to 11; ACK 23: inc false -> no growth, inc = true.
        // ACKs 24-34 count to 11; ACK 35: cwnd 12.
        for _ in 0..34 {
            on_ack(&mut v, 150);
        }
        assert_eq!(v.window().cwnd, 11);
        on_ack(&mut v, 150);
        assert_eq!(v.window().cwnd, 12);
    }

    #[test]
    fn non_congestive_state_grows_like_reno() {
        let mut v = veno_with_base_rtt(10);
        // No queue: tcp_cong_avoid_ai(cwnd): +1 after 10 ACKs at cwnd 10, +1 after 11 more.
        for _ in 0..21 {
            on_ack(&mut v, 100);
        }
        assert_eq!(v.window().cwnd, 12);
    }

    #[test]
    fn zero_beta_is_rejected() {
        assert_eq!(Config { beta: 0 }.validate().unwrap_err().field, "beta");
    }
}
