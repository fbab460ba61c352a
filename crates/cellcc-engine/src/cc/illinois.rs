//! Illinois: Liu, Başar, Srikant, "TCP-Illinois", Performance Evaluation 65(6-7) 2008; Linux net/ipv4/tcp_illinois.c.
//!
//! AIMD whose increase alpha and decrease beta follow the average queueing
//! delay `da` of the last RTT, relative to the largest seen, `dm`
//! (both = RTT - baseRTT, us), once per RTT:
//!
//! ```text
//!   alpha:  da <= d1 = dm/100  -> alpha_max (10)    after theta (5) such RTTs if it was ever above
//!           else               -> k1 / (k2 + da)    falls to alpha_min (0.3) at da = dm
//!   beta:   da <= d2 = dm/10   -> beta_min (1/8)
//!           da >= d3 = 8dm/10  -> beta_max (1/2)
//!           between            -> linear in da
//!   cwnd < win_thresh (15): alpha = 1, beta = 1/2 (Reno)
//!   per ACK: cwnd += alpha / cwnd;  on loss: ssthresh = cwnd - beta x cwnd
//! ```
//!
//! Differences from Linux `tcp_illinois.c`: none in the algorithm; alpha and
//! beta keep Linux's fixed point (alpha in 1/128, beta in 1/64). alpha_min,
//! alpha_max, beta_min and beta_max are constants in Linux and parameters
//! here (converted to that fixed point, truncating as Linux's `3*128/10` does).
//! RTTs are microseconds from the simulator's nanosecond samples.

use super::common::slow_start;
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, Window};
use serde::{Deserialize, Serialize};

/// Linux `ALPHA_SHIFT`: alpha is kept in 1/128.
const ALPHA_SHIFT: u32 = 7;
const ALPHA_SCALE: f64 = (1u32 << ALPHA_SHIFT) as f64;
/// Linux `ALPHA_BASE`: Reno's increase, 1.0.
const ALPHA_BASE: u32 = 1 << ALPHA_SHIFT;
/// Linux `BETA_SHIFT`: beta is kept in 1/64.
const BETA_SHIFT: u32 = 6;
const BETA_SCALE: f64 = (1u32 << BETA_SHIFT) as f64;
/// Linux `BETA_BASE` = `BETA_MAX`: Reno's decrease, 1/2.
const BETA_BASE: u32 = 1 << (BETA_SHIFT - 1);
/// Linux `tcp_illinois_alpha`: d1 = dm / 100.
const D1_DIVISOR: u64 = 100;
/// Linux `tcp_illinois_beta`: d2 = dm / 10, d3 = 8 dm / 10.
const D2_DIVISOR: u64 = 10;
const D3_NUMERATOR: u64 = 8;
/// Linux `RTT_MAX` = U32_MAX / ALPHA_MAX (10.0 in 1/128): samples above ~3.3 s are clamped.
const RTT_MAX_US: u64 = u32::MAX as u64 / (10 << ALPHA_SHIFT);
/// Smallest ssthresh (Linux `tcp_illinois_ssthresh`).
const MIN_SSTHRESH_SEGS: u32 = 2;

/// Illinois parameters: Linux tcp_illinois.c module parameters and constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Smallest additive increase, at the largest queueing delay. Segments per
    /// RTT, in [1/128, alpha_max]. Default 0.3 (Linux `ALPHA_MIN`, the paper's value).
    pub alpha_min: f64,
    /// Largest additive increase, with no queueing delay. Segments per RTT.
    /// Default 10 (Linux `ALPHA_MAX`).
    pub alpha_max: f64,
    /// Smallest multiplicative decrease, at low delay. Fraction of cwnd, in
    /// [1/64, beta_max]. Default 0.125 (Linux `BETA_MIN`).
    pub beta_min: f64,
    /// Largest multiplicative decrease, at high delay. Fraction of cwnd, < 1.
    /// Default 0.5 (Linux `BETA_MAX`).
    pub beta_max: f64,
    /// Low-delay RTTs needed before alpha returns to alpha_max. RTTs.
    /// Default 5 (Linux module parameter `theta`).
    pub theta: u32,
    /// Below this cwnd Illinois is Reno (alpha 1, beta 1/2). Segments.
    /// Default 15 (Linux module parameter `win_thresh`).
    pub win_thresh: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { alpha_min: 0.3, alpha_max: 10.0, beta_min: 0.125, beta_max: 0.5, theta: 5, win_thresh: 15 }
    }
}

impl Config {
    /// Ranges that keep the fixed-point curves defined: alpha_min >= 1/128
    /// (it divides), ordered bounds, and beta < 1 (a decrease to nothing).
    pub fn validate(&self) -> Result<(), ParamError> {
        let (amin, amax, bmin, bmax) = (self.alpha_min, self.alpha_max, self.beta_min, self.beta_max);
        ParamError::check(
            amin.is_finite() && amin >= 1.0 / ALPHA_SCALE,
            "alpha_min",
            amin,
            "segments per RTT >= 1/128",
        )?;
        ParamError::check(
            amax.is_finite() && amax >= amin && amax <= u16::MAX as f64,
            "alpha_max",
            amax,
            "segments per RTT in [alpha_min, 65535]",
        )?;
        ParamError::check(
            bmin.is_finite() && bmin >= 1.0 / BETA_SCALE,
            "beta_min",
            bmin,
            "a fraction of cwnd >= 1/64",
        )?;
        ParamError::check(bmax >= bmin && bmax < 1.0, "beta_max", bmax, "a fraction of cwnd in [beta_min, 1)")
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "illinois",
    family: super::Family::LossDelay,
    source: "Liu, Basar & Srikant, Performance Evaluation 2008; Linux net/ipv4/tcp_illinois.c",
    summary: "AIMD with delay-driven alpha (10 at no queue .. 0.3 at max delay) and beta (1/8 .. 1/2).",
    description: "AIMD whose increase and decrease follow the average queueing delay da (RTT - baseRTT) of the last \
        RTT relative to the largest seen, dm: alpha is 10 segments per RTT while there is no queue (da <= \
        dm/100) and falls as k1/(k2 + da) to 0.3 at da = dm; beta is 1/8 at low delay (da <= dm/10), 1/2 \
        above 0.8 dm, and linear between. Below 15 segments it is Reno. Loss still triggers every reduction: \
        delay only sets how fast it grows (concave towards a full buffer) and how deep it cuts.",
    params: &[
        ("alpha_min", "increase at the largest queueing delay, segments/RTT (default 0.3, Linux ALPHA_MIN)"),
        ("alpha_max", "increase with no queueing delay, segments/RTT (default 10, Linux ALPHA_MAX)"),
        ("beta_min", "decrease at low delay, fraction of cwnd (default 0.125, Linux BETA_MIN)"),
        ("beta_max", "decrease at high delay, fraction of cwnd < 1 (default 0.5, Linux BETA_MAX)"),
        ("theta", "low-delay RTTs before alpha returns to alpha_max (default 5, Linux theta)"),
        ("win_thresh", "below this cwnd (segments) Illinois is Reno (default 15, Linux win_thresh)"),
    ],
};

pub struct Illinois {
    w: Window,
    theta: u32,
    win_thresh: u32,
    /// alpha_min / alpha_max in 1/128; beta_min / beta_max in 1/64.
    alpha_min: u32,
    alpha_max: u32,
    beta_min: u32,
    beta_max: u32,
    /// `sum_rtt`, `cnt_rtt`: this round's samples, us.
    sum_rtt_us: u64,
    cnt_rtt: u32,
    /// `base_rtt`, `max_rtt`: over the connection, us.
    base_rtt_us: u64,
    max_rtt_us: u64,
    /// `end_seq`: the round ends when an ACK passes it.
    end_seq: u64,
    /// `alpha` (1/128) and `beta` (1/64) in force.
    alpha: u32,
    beta: u32,
    /// `acked`: segments of the last ACK, for the AI counter.
    acked: u32,
    /// `rtt_above`: the average delay has been above d1 since alpha was last at max.
    rtt_above: bool,
    /// `rtt_low`: consecutive low-delay rounds while `rtt_above`.
    rtt_low: u32,
}

impl Illinois {
    pub fn new(cfg: &Config, w: Window) -> Self {
        let alpha_max = (cfg.alpha_max * ALPHA_SCALE) as u32;
        Illinois {
            w,
            theta: cfg.theta,
            win_thresh: cfg.win_thresh,
            alpha_min: (cfg.alpha_min * ALPHA_SCALE) as u32,
            alpha_max,
            beta_min: (cfg.beta_min * BETA_SCALE) as u32,
            beta_max: (cfg.beta_max * BETA_SCALE) as u32,
            sum_rtt_us: 0,
            cnt_rtt: 0,
            base_rtt_us: 0x7fff_ffff,
            max_rtt_us: 0,
            end_seq: 0,
            alpha: alpha_max,
            beta: BETA_BASE,
            acked: 0,
            rtt_above: false,
            rtt_low: 0,
        }
    }

    /// Linux `rtt_reset`: a new round starts at `snd_nxt`.
    fn rtt_reset(&mut self, conn: &ConnView) {
        self.end_seq = conn.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt_us = 0;
    }

    /// Linux `alpha()`: the increase for average delay `da` and maximum `dm` (us).
    fn alpha_for(&mut self, da: u64, dm: u64) -> u32 {
        let d1 = dm / D1_DIVISOR;
        if da <= d1 {
            // Never left the low-delay zone: full speed.
            if !self.rtt_above {
                return self.alpha_max;
            }
            // Wait theta good RTTs so one good RTT does not jump the window.
            self.rtt_low += 1;
            if self.rtt_low < self.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return self.alpha_max;
        }
        self.rtt_above = true;
        // alpha = k1 / (k2 + da), with k1, k2 chosen so alpha(d1) = alpha_max, alpha(dm) = alpha_min.
        let (dm, da) = (dm - d1, da - d1);
        let (amax, amin) = (self.alpha_max as u64, self.alpha_min as u64);
        ((dm * amax) / (dm + (da * (amax - amin)) / amin)) as u32
    }

    /// Linux `beta()`: the decrease for average delay `da` and maximum `dm` (us).
    fn beta_for(&self, da: u64, dm: u64) -> u32 {
        let d2 = dm / D2_DIVISOR;
        if da <= d2 {
            return self.beta_min;
        }
        let d3 = D3_NUMERATOR * dm / D2_DIVISOR;
        if da >= d3 || d3 <= d2 {
            return self.beta_max;
        }
        // Linear from (d2, beta_min) to (d3, beta_max).
        let (bmin, bmax) = (self.beta_min as u64, self.beta_max as u64);
        ((bmin * d3 - bmax * d2 + (bmax - bmin) * da) / (d3 - d2)) as u32
    }

    /// Linux `update_params`: once per RTT.
    fn update_params(&mut self, conn: &ConnView) {
        if self.w.cwnd < self.win_thresh {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
        } else if self.cnt_rtt > 0 {
            let dm = self.max_rtt_us - self.base_rtt_us;
            let da = self.sum_rtt_us / self.cnt_rtt as u64 - self.base_rtt_us;
            self.alpha = self.alpha_for(da, dm);
            self.beta = self.beta_for(da, dm);
        }
        self.rtt_reset(conn);
    }
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    /// Linux `tcp_illinois_ssthresh`: multiplicative decrease by beta.
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        let cwnd = self.w.cwnd;
        (cwnd - ((cwnd as u64 * self.beta as u64) >> BETA_SHIFT) as u32).max(MIN_SSTHRESH_SEGS)
    }
    /// Linux `tcp_illinois_cong_avoid`.
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        if conn.snd_una > self.end_seq {
            self.update_params(conn);
        }
        // RFC 2861: grow only while cwnd is what limits sending.
        if !conn.is_cwnd_limited {
            return;
        }
        if self.w.in_slow_start() {
            slow_start(&mut self.w, ack.acked_segs);
            return;
        }
        // cwnd += alpha / cwnd per segment, with the counter of segments since the last increase.
        let w = &mut self.w;
        w.cwnd_cnt += self.acked;
        self.acked = 1;
        let delta = ((w.cwnd_cnt as u64 * self.alpha as u64) >> ALPHA_SHIFT) as u32;
        if delta >= w.cwnd {
            w.cwnd = (w.cwnd + delta / w.cwnd).min(w.cwnd_clamp);
            w.cwnd_cnt = 0;
        }
    }
    /// Linux `tcp_illinois_acked`.
    fn pkts_acked(&mut self, _conn: &ConnView, ack: &AckSample) {
        self.acked = ack.acked_segs;
        let Some(rtt) = ack.rtt else { return };
        // Clamp bogus values, as Linux does to keep its 32-bit alpha arithmetic from wrapping.
        let rtt_us = rtt.as_us().min(RTT_MAX_US);
        self.base_rtt_us = self.base_rtt_us.min(rtt_us);
        self.max_rtt_us = self.max_rtt_us.max(rtt_us);
        self.cnt_rtt += 1;
        self.sum_rtt_us += rtt_us;
    }
    /// Linux `tcp_illinois_state`: after an RTO, back to Reno's alpha and beta.
    fn set_state(&mut self, conn: &ConnView, new_state: CaState) {
        if new_state == CaState::Loss {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.rtt_reset(conn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    const ROUND_BYTES: u64 = 1_000_000;

    /// Round `r`: feed the RTT samples (ms) as ACKs inside the round, then one ACK that
    /// passes `end_seq` (= r x ROUND_BYTES, set when round r-1 ended) and runs `update_params`.
    fn round(il: &mut Illinois, r: u64, samples_ms: &[u64]) {
        let mut c = conn(r, 100);
        c.snd_una = r * ROUND_BYTES;
        for &s in samples_ms {
            il.pkts_acked(&c, &ack(1, s));
        }
        c.snd_una = r * ROUND_BYTES + 1;
        c.snd_nxt = (r + 1) * ROUND_BYTES;
        il.cong_avoid(&c, &ack(1, 100));
    }

    /// Illinois in congestion avoidance at cwnd 100 that has seen baseRTT 100 ms and
    /// maxRTT 200 ms (dm = 100_000 us: d1 = 1000, d2 = 10_000, d3 = 80_000 us).
    fn illinois_with_dm_100ms() -> Illinois {
        let mut il = Illinois::new(&Config::default(), Window { ssthresh: 50, ..Window::new(100) });
        il.end_seq = ROUND_BYTES;
        round(&mut il, 1, &[100, 200]);
        assert_eq!((il.base_rtt_us, il.max_rtt_us), (100_000, 200_000));
        il
    }

    #[test]
    fn no_queueing_delay_gives_alpha_max_and_beta_min() {
        let mut il = illinois_with_dm_100ms();
        // Round 1 averaged 150 ms: da = 50_000 > d1, so rtt_above is set. Start fresh.
        il.rtt_above = false;
        // 100 samples at 100 ms: da = 0 <= d1 = 1000 and never above: alpha = alpha_max = 10 (1280/128);
        // da <= d2 = 10_000: beta = beta_min = 1/8 (8/64).
        round(&mut il, 2, &[100; 100]);
        assert_eq!((il.alpha, il.beta), (1280, 8));
        // ssthresh = 100 - (100 x 8 >> 6) = 100 - 12 = 88.
        assert_eq!(il.ssthresh(&conn(0, 100)), 88);
    }

    #[test]
    fn alpha_max_grows_ten_segments_per_rtt() {
        let mut il = illinois_with_dm_100ms();
        il.rtt_above = false;
        round(&mut il, 2, &[100; 100]);
        // alpha 1280: each 1-segment ACK adds 1 to cwnd_cnt and cwnd grows once
        // delta = cnt x 1280 >> 7 = 10 cnt reaches cwnd: from cnt 0, the 10th ACK
        // makes delta 100 >= cwnd 100 -> cwnd 101 (10 segments per RTT of 100 ACKs).
        il.w.cwnd_cnt = 0;
        let mut c = conn(0, 100);
        c.snd_una = 2 * ROUND_BYTES;
        for _ in 0..9 {
            il.cong_avoid(&c, &ack(1, 100));
        }
        assert_eq!(il.window().cwnd, 100);
        il.cong_avoid(&c, &ack(1, 100));
        assert_eq!(il.window().cwnd, 101);
    }

    #[test]
    fn delay_at_its_maximum_gives_alpha_min_and_beta_max() {
        let mut il = illinois_with_dm_100ms();
        // All samples 200 ms: da = 100_000 = dm.
        // alpha: dm' = da' = 100_000 - 1000 = 99_000;
        //   (99_000 x 1280) / (99_000 + 99_000 x (1280 - 38) / 38)
        //   = 126_720_000 / (99_000 + 3_235_736) = 126_720_000 / 3_334_736 = 38.00 -> 38 = alpha_min (0.3 x 128).
        // beta: da >= d3 = 80_000 -> beta_max = 32 (1/2).
        round(&mut il, 2, &[200, 200, 200]);
        assert_eq!((il.alpha, il.beta), (38, 32));
        // ssthresh = 100 - (100 x 32 >> 6) = 50.
        assert_eq!(il.ssthresh(&conn(0, 200)), 50);
    }

    #[test]
    fn beta_is_linear_between_d2_and_d3() {
        let mut il = illinois_with_dm_100ms();
        // Samples 140 and 150 ms: da = 145_000 - 100_000 = 45_000, between d2 = 10_000 and d3 = 80_000:
        // beta = (8 x 80_000 - 32 x 10_000 + 24 x 45_000) / 70_000 = 1_400_000 / 70_000 = 20.
        round(&mut il, 2, &[140, 150]);
        assert_eq!(il.beta, 20);
        // ssthresh = 100 - (100 x 20 >> 6) = 100 - 31 = 69.
        assert_eq!(il.ssthresh(&conn(0, 145)), 69);
    }

    #[test]
    fn alpha_returns_to_max_only_after_theta_low_delay_rounds() {
        let mut il = illinois_with_dm_100ms();
        // Round 1 had da = 50_000 > d1: rtt_above. Its alpha:
        // (99_000 x 1280) / (99_000 + 49_000 x 1242 / 38) = 126_720_000 / 1_700_526 = 74.
        assert!(il.rtt_above);
        assert_eq!(il.alpha, 74);
        // Low-delay rounds 2..5 (rtt_low 1..4 < theta 5) keep alpha at 74.
        for r in 2..=5 {
            round(&mut il, r, &[100, 100, 100]);
            assert_eq!(il.alpha, 74, "round {r}");
        }
        // The 5th low-delay round restores alpha_max.
        round(&mut il, 6, &[100, 100, 100]);
        assert_eq!(il.alpha, 1280);
    }

    #[test]
    fn alpha_and_beta_at_the_exact_delay_thresholds() {
        let mut il = Illinois::new(&Config::default(), Window::new(100));
        // dm = 100_000 us: d1 = 1000, d2 = 10_000, d3 = 80_000.
        let dm = 100_000;
        // da = d1, never above: alpha_max (1280). One microsecond above d1:
        // (99_000 x 1280) / (99_000 + 1 x 1242 / 38) = 126_720_000 / 99_032 = 1279.6 -> 1279.
        assert_eq!(il.alpha_for(1000, dm), 1280);
        assert_eq!(il.alpha_for(1001, dm), 1279);
        // da = dm: alpha_min (38, i.e. 0.3 x 128 truncated as Linux's 3 x 128 / 10).
        assert_eq!(il.alpha_for(dm, dm), 38);
        // beta_min (8/64) up to and at d2; beta_max (32/64) at and beyond d3.
        assert_eq!(il.beta_for(10_000, dm), 8);
        assert_eq!(il.beta_for(80_000, dm), 32);
        assert_eq!(il.beta_for(dm, dm), 32);
        // Just inside: (8 x 80_000 - 32 x 10_000 + 24 x 79_999) / 70_000 = 2_239_976 / 70_000 = 31.99 -> 31.
        assert_eq!(il.beta_for(79_999, dm), 31);
    }

    #[test]
    fn small_windows_are_reno() {
        let mut il = Illinois::new(&Config::default(), Window { ssthresh: 5, ..Window::new(10) });
        il.end_seq = ROUND_BYTES;
        round(&mut il, 1, &[100, 200]);
        // cwnd 10 < win_thresh 15: alpha 1 (128), beta 1/2 (32); ssthresh = 10 - 5 = 5.
        assert_eq!((il.alpha, il.beta), (128, 32));
        assert_eq!(il.ssthresh(&conn(0, 100)), 5);
    }

    #[test]
    fn rto_resets_alpha_and_beta_to_reno() {
        let mut il = illinois_with_dm_100ms();
        il.set_state(&conn(0, 100), CaState::Loss);
        assert_eq!((il.alpha, il.beta, il.rtt_above), (128, 32, false));
    }

    #[test]
    fn out_of_range_parameters_are_rejected() {
        let c = Config { alpha_min: 0.0, ..Config::default() };
        assert_eq!(c.validate().unwrap_err().field, "alpha_min");
        let c = Config { beta_max: 1.0, ..Config::default() };
        assert_eq!(c.validate().unwrap_err().field, "beta_max");
        let c = Config { alpha_max: 0.2, ..Config::default() };
        assert_eq!(c.validate().unwrap_err().field, "alpha_max");
    }
}
