//! CUBIC: RFC 9438; Linux net/ipv4/tcp_cubic.c (defaults, fixed-point arithmetic, HyStart in hystart.rs).
//!
//! After a loss at window W_max, cwnd follows W_cubic(t) = C (t - K)^3 + W_max
//! (RFC 9438 §4.2, eq. 1) with K = cbrt(W_max (1 - β) / C) (eq. 2), t the time
//! since the congestion-avoidance epoch began: concave up to W_max, flat
//! around it, convex beyond. Each ACK aims at W_cubic one RTT ahead (§4.2,
//! target = W_cubic(t + RTT)). In the Reno-friendly region (§4.3) cwnd is
//! never below W_est, an estimate of what Reno with the same β would have.
//! Fast convergence (§4.7) lowers W_max when losses come earlier than the
//! last one. Slow start uses HyStart ([`super::hystart`]).
//!
//! Linux's fixed point, kept here so windows match the kernel's:
//! ```text
//!   time      in 1/1024 s (BICTCP_HZ = 10)
//!   C         = bic_scale x 10 / 1024 = 410/1024 = 0.4004 (RFC: 0.4)
//!   β         = beta / 1024 = 717/1024 = 0.7002 (RFC: 0.7)
//!   K         = cbrt(2^40 / (bic_scale x 10) x (W_max - cwnd))  [1/1024 s]
//!   W_est     + 1 per cwnd x beta_scale / 8 ACKed segments,
//!             beta_scale = 8 (1024 + beta) / 3 / (1024 - beta) = 15: α = 8/15 = 0.533
//!             (RFC: α_cubic = 3 (1 - β)/(1 + β) = 0.529)
//! ```
//!
//! Differences from Linux: (1) the clock is `conn.now`: the epoch time t is
//! taken in ns (Linux: jiffies), and the once-per-jiffy and HZ/32
//! recomputation limits use 1 ms jiffies (CONFIG_HZ=1000); RTTs are ns, not µs.
//! (2) K uses an exact integer cube root; Linux's table-plus-one-Newton-step
//! `cubic_root` is within about 0.2% of it. (3) The idle-restart correction on
//! `CwndEvent::TxStart` shifts the epoch by the time since the last ACK,
//! where Linux uses the time since the last send (`lsndtime`), which the
//! trait does not expose: the shift is about one RTT shorter. (4) The cubic
//! term is computed in 128 bits (Linux: 64, overflowing beyond ~1M segments),
//! and the W_est loop guards against a zero step for tiny `beta` values.

use super::common::{cong_avoid_ai, jiffies, slow_start, LINUX_HZ};
use super::hystart::{self, HyStart};
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, CwndEvent, Window};
use crate::sim::time::NS_PER_S;
use crate::sim::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Linux `BICTCP_BETA_SCALE`: beta is in 1/1024ths.
const BETA_SCALE: u32 = 1024;
/// Linux `BICTCP_HZ`: CUBIC time is in 2^-10 s.
const CUBIC_HZ_SHIFT: u32 = 10;
/// Linux: `(cube_rtt_scale x offs^3) >> (10 + 3 x BICTCP_HZ)`; C is bic_scale x 10 in 1/1024.
const CUBE_SHIFT: u32 = 10 + 3 * CUBIC_HZ_SHIFT;
/// Linux `cube_rtt_scale = bic_scale * 10`: bic_scale is C x 1024 / 10 (41 -> C = 0.4).
const BIC_SCALE_TO_C_1024: u32 = 10;
/// Linux: `cnt` is recomputed when cwnd changed or after HZ/32 jiffies.
const RECALC_JIFFIES: u64 = LINUX_HZ / 32;
/// Linux: with no W_max yet, grow at least 5% per RTT (cnt capped at 20).
const NO_WMAX_MAX_CNT: u32 = 20;
/// Linux: at or above the target, a "very small increment" of 1/(100 cwnd) per ACK.
const FLAT_CNT_PER_CWND: u32 = 100;
/// Linux: at most 1 segment per 2 ACKed (cwnd x 1.5 per RTT), RFC 9438 §4.2's upper bound on the target.
const MIN_CNT: u32 = 2;
/// Linux `cubictcp_acked`: ignore RTT samples in the first second of an epoch (just after recovery).
const DELAY_SAMPLE_HOLDOFF: SimDuration = SimDuration::from_secs(1);
/// Linux `cubictcp_acked`: a zero RTT sample counts as 1 µs.
const MIN_DELAY: SimDuration = SimDuration::from_us(1);
/// Smallest ssthresh Linux returns after a loss.
const MIN_SSTHRESH: u32 = 2;
/// Linux `HYSTART_ACK_TRAIN` and `HYSTART_DELAY` bits of `hystart_detect`.
const DETECT_ACK_TRAIN: u8 = 0x1;
const DETECT_DELAY: u8 = 0x2;

/// CUBIC parameters: the Linux `tcp_cubic` module parameters and their defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// "turn on/off fast convergence" (RFC 9438 §4.7): after a loss below the
    /// previous W_max, remember W_max x (1 + β)/2. Default true (Linux `fast_convergence=1`).
    pub fast_convergence: bool,
    /// "beta for multiplicative increase" (the decrease factor β, RFC 9438 §4.6),
    /// in 1/1024: cwnd x beta/1024 after a loss. Default 717 = 0.7 (Linux `beta`). 1..=1023.
    pub beta: u32,
    /// "initial value of slow start threshold", segments; 0 keeps the stack's
    /// (infinite) one; ignored while HyStart is on, as in Linux. Default 0 (Linux `initial_ssthresh`).
    pub initial_ssthresh: u32,
    /// "scale (scaled by 1024) value for bic function (bic_scale/1024)": C x 1024 / 10,
    /// so 41 gives C = 0.4 segments/s^3 (RFC 9438 §5.1). Default 41 (Linux `bic_scale`). At least 1.
    pub bic_scale: u32,
    /// "turn on/off tcp friendliness" (RFC 9438 §4.3 Reno-friendly region). Default true (Linux `tcp_friendliness=1`).
    pub tcp_friendliness: bool,
    /// "turn on/off hybrid slow start algorithm". Default true (Linux `hystart=1`).
    pub hystart: bool,
    /// "hybrid slow start detection mechanisms 1: packet-train 2: delay 3: both
    /// packet-train and delay". Default 3 (Linux `hystart_detect`). 0..=3.
    pub hystart_detect: u8,
    /// "lower bound cwnd for hybrid slow start", segments. Default 16 (Linux `hystart_low_window`).
    pub hystart_low_window: u32,
    /// "spacing between ack's indicating train (usecs)", µs. Default 2000 (Linux `hystart_ack_delta_us`).
    pub hystart_ack_delta_us: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            fast_convergence: true,
            beta: 717,
            initial_ssthresh: 0,
            bic_scale: 41,
            tcp_friendliness: true,
            hystart: true,
            hystart_detect: DETECT_ACK_TRAIN | DETECT_DELAY,
            hystart_low_window: 16,
            hystart_ack_delta_us: 2000,
        }
    }
}

impl Config {
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            (1..BETA_SCALE).contains(&self.beta),
            "beta",
            self.beta,
            "an integer in [1, 1023] (1/1024ths)",
        )?;
        ParamError::check(self.bic_scale >= 1, "bic_scale", self.bic_scale, "an integer >= 1 (C x 1024 / 10)")?;
        ParamError::check(
            self.hystart_detect <= (DETECT_ACK_TRAIN | DETECT_DELAY),
            "hystart_detect",
            self.hystart_detect,
            "0..=3 (1: ACK train, 2: delay, 3: both)",
        )
    }

    fn hystart_params(&self) -> hystart::Params {
        hystart::Params {
            ack_train: self.hystart_detect & DETECT_ACK_TRAIN != 0,
            delay: self.hystart_detect & DETECT_DELAY != 0,
            low_window: self.hystart_low_window,
            ack_delta: SimDuration::from_us(self.hystart_ack_delta_us as u64),
        }
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "cubic",
    family: super::Family::Loss,
    source: "RFC 9438; Linux net/ipv4/tcp_cubic.c; HyStart: Ha & Rhee 2011",
    summary: "Window a cubic function of time since the last loss, plateau at W_max; beta 0.7, Reno-friendly region, fast convergence, HyStart.",
    description: "After a loss at window W_max, cwnd follows W(t) = C (t - K)^3 + W_max in the time t since the loss \
        (RFC 9438, C = 0.4, K the time to regain W_max): concave growth up to W_max, a plateau around it, \
        convex probing beyond, so growth depends on elapsed time rather than on the RTT. A loss keeps beta = \
        0.7 of the window; in the Reno-friendly region cwnd never falls below what Reno with the same beta \
        would have, and fast convergence lowers W_max when losses come earlier than the last one. HyStart \
        ends slow start early on ACK-train length or a rise in delay. It reacts to loss only.",
    params: &[
        ("fast_convergence", "bool: lower W_max when losses come earlier (default true; Linux fast_convergence)"),
        ("beta", "1/1024: window kept after a loss (default 717 = 0.7; Linux beta)"),
        ("initial_ssthresh", "segments: initial slow-start threshold without HyStart, 0 = none (default 0; Linux initial_ssthresh)"),
        ("bic_scale", "C x 1024 / 10 (default 41, C = 0.4; Linux bic_scale)"),
        ("tcp_friendliness", "bool: Reno-friendly region, RFC 9438 4.3 (default true; Linux tcp_friendliness)"),
        ("hystart", "bool: hybrid slow start (default true; Linux hystart)"),
        ("hystart_detect", "bitmask 1 ACK train, 2 delay (default 3; Linux hystart_detect)"),
        ("hystart_low_window", "segments: HyStart acts from this cwnd (default 16; Linux hystart_low_window)"),
        ("hystart_ack_delta_us", "us: largest ACK spacing within a train (default 2000; Linux hystart_ack_delta_us)"),
    ],
};

/// The current congestion-avoidance epoch (Linux `epoch_start`, `bic_K`, `bic_origin_point`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Epoch {
    start: SimTime,
    /// K in 1/1024 s: when W_cubic reaches the origin.
    k: u64,
    /// W_max of the curve (or cwnd at the epoch start when already above W_max).
    origin: u32,
}

pub struct Cubic {
    cfg: Config,
    w: Window,
    /// Linux `beta_scale`: 8 x ACKs per W_est segment, per segment of cwnd.
    beta_scale: u32,
    /// Linux `cube_rtt_scale`: C in 1/1024.
    cube_rtt_scale: u32,
    /// Linux `cube_factor`: 2^40 / cube_rtt_scale, so K^3 = cube_factor x (W_max - cwnd).
    cube_factor: u64,
    /// Linux `cnt`: segments ACKed per +1 of cwnd.
    cnt: u32,
    /// Linux `last_max_cwnd`: W_max (0 = no loss yet).
    last_max_cwnd: u32,
    /// Linux `last_cwnd` / `last_time`: cwnd and jiffies when `cnt` was last computed.
    last_cwnd: u32,
    last_time: u64,
    epoch: Option<Epoch>,
    /// Linux `delay_min`: smallest RTT seen (outside the post-recovery hold-off).
    delay_min: Option<SimDuration>,
    /// Linux `ack_cnt` / `tcp_cwnd`: ACKed segments not yet credited to W_est, and W_est.
    ack_cnt: u32,
    tcp_cwnd: u32,
    hystart: Option<HyStart>,
    /// Arrival of the last ACK: the start of an idle period for `TxStart`.
    last_ack_at: SimTime,
}

impl Cubic {
    pub fn new(cfg: &Config, w: Window) -> Self {
        let mut w = w;
        if !cfg.hystart && cfg.initial_ssthresh > 0 {
            w.ssthresh = cfg.initial_ssthresh;
        }
        let beta = cfg.beta;
        let cube_rtt_scale = cfg.bic_scale * BIC_SCALE_TO_C_1024;
        Cubic {
            cfg: cfg.clone(),
            w,
            beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
            cube_rtt_scale,
            cube_factor: (1u64 << CUBE_SHIFT) / cube_rtt_scale as u64,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            epoch: None,
            delay_min: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            hystart: cfg.hystart.then(|| HyStart::new(cfg.hystart_params())),
            last_ack_at: SimTime::ZERO,
        }
    }

    /// Linux `bictcp_reset`: forget W_max, the epoch and delay_min.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.epoch = None;
        self.delay_min = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
    }

    /// Linux `bictcp_update`: `cnt` for `cwnd` at `now`.
    fn update(&mut self, now: SimTime, cwnd: u32, acked: u32) {
        // Linux's u32 counter; it only grows without bound when tcp_friendliness is off and unused.
        self.ack_cnt = self.ack_cnt.wrapping_add(acked);
        let now_jiffies = jiffies(now);
        if self.last_cwnd == cwnd && now_jiffies.saturating_sub(self.last_time) <= RECALC_JIFFIES {
            return;
        }
        // The cubic part is recomputed at most once per jiffy; a new epoch always computes it.
        if self.epoch.is_none() || now_jiffies != self.last_time {
            self.last_cwnd = cwnd;
            self.last_time = now_jiffies;
            let epoch = match self.epoch {
                Some(e) => e,
                None => self.begin_epoch(now, cwnd, acked),
            };
            self.cnt = self.cubic_cnt(now, &epoch, cwnd);
        }
        if self.cfg.tcp_friendliness {
            if let Some(max_cnt) = self.reno_friendly_cnt(cwnd) {
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        self.cnt = self.cnt.max(MIN_CNT);
    }

    /// RFC 9438 §4.2 eq. 2 / §4.8: K and the origin for an epoch starting now.
    fn begin_epoch(&mut self, now: SimTime, cwnd: u32, acked: u32) -> Epoch {
        self.ack_cnt = acked;
        self.tcp_cwnd = cwnd;
        let epoch = if self.last_max_cwnd <= cwnd {
            Epoch { start: now, k: 0, origin: cwnd }
        } else {
            let k3 = self.cube_factor as u128 * (self.last_max_cwnd - cwnd) as u128;
            let k = cube_root(k3.min(u64::MAX as u128) as u64);
            Epoch { start: now, k, origin: self.last_max_cwnd }
        };
        self.epoch = Some(epoch);
        epoch
    }

    /// RFC 9438 §4.2: segments per +1 that bring cwnd to W_cubic(t + RTT) within an RTT.
    fn cubic_cnt(&self, now: SimTime, epoch: &Epoch, cwnd: u32) -> u32 {
        let rtt = self.delay_min.unwrap_or(SimDuration::ZERO);
        let t = to_cubic_time(now.saturating_since(epoch.start) + rtt);
        let offs = t.abs_diff(epoch.k) as u128;
        let delta = ((self.cube_rtt_scale as u128 * offs * offs * offs) >> CUBE_SHIFT).min(u32::MAX as u128) as u32;
        let target = if t < epoch.k { epoch.origin.saturating_sub(delta) } else { epoch.origin.saturating_add(delta) };
        let cnt = if target > cwnd { cwnd / (target - cwnd) } else { FLAT_CNT_PER_CWND.saturating_mul(cwnd) };
        if self.last_max_cwnd == 0 {
            cnt.min(NO_WMAX_MAX_CNT)
        } else {
            cnt
        }
    }

    /// RFC 9438 §4.3: advance W_est by the ACKed segments; the cnt that keeps cwnd up with it, if behind.
    fn reno_friendly_cnt(&mut self, cwnd: u32) -> Option<u32> {
        // Linux loops while ack_cnt > delta; a zero delta (tiny beta) would never end.
        let delta = ((cwnd as u64 * self.beta_scale as u64) >> 3).clamp(1, u32::MAX as u64) as u32;
        if self.ack_cnt > delta {
            let steps = (self.ack_cnt - 1) / delta;
            self.ack_cnt -= steps * delta;
            self.tcp_cwnd += steps;
        }
        (self.tcp_cwnd > cwnd).then(|| cwnd / (self.tcp_cwnd - cwnd))
    }
}

/// Time in CUBIC's unit, 1/1024 s (Linux `t <<= BICTCP_HZ; do_div(t, HZ)`).
fn to_cubic_time(d: SimDuration) -> u64 {
    (((d.as_ns() as u128) << CUBIC_HZ_SHIFT) / NS_PER_S as u128) as u64
}

/// floor(cbrt(a)), exactly (Linux `cubic_root` approximates it within ~0.2%).
fn cube_root(a: u64) -> u64 {
    let cube = |x: u64| (x as u128).pow(3);
    let mut x = (a as f64).cbrt() as u64;
    while x > 0 && cube(x) > a as u128 {
        x -= 1;
    }
    while cube(x + 1) <= a as u128 {
        x += 1;
    }
    x
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Linux `cubictcp_init`: the first HyStart round starts now.
    fn init(&mut self, conn: &ConnView) {
        if let Some(h) = &mut self.hystart {
            h.restart(conn);
        }
    }

    /// Linux `cubictcp_recalc_ssthresh`: RFC 9438 §4.6 (β) and §4.7 (fast convergence).
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        let cwnd = self.w.cwnd as u64;
        let beta = self.cfg.beta as u64;
        let scale = BETA_SCALE as u64;
        self.epoch = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd as u64 && self.cfg.fast_convergence {
            (cwnd * (scale + beta) / (2 * scale)) as u32
        } else {
            cwnd as u32
        };
        ((cwnd * beta / scale) as u32).max(MIN_SSTHRESH)
    }

    /// Linux `cubictcp_cong_avoid`.
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
        self.update(conn.now, self.w.cwnd, acked);
        cong_avoid_ai(&mut self.w, self.cnt, acked);
    }

    /// Linux `cubictcp_acked`: track delay_min and run HyStart.
    fn pkts_acked(&mut self, conn: &ConnView, ack: &AckSample) {
        self.last_ack_at = conn.now;
        let Some(rtt) = ack.rtt else { return };
        if self.epoch.is_some_and(|e| conn.now.saturating_since(e.start) < DELAY_SAMPLE_HOLDOFF) {
            return;
        }
        let delay = rtt.max(MIN_DELAY);
        let delay_min = *self.delay_min.insert(self.delay_min.map_or(delay, |m| m.min(delay)));
        if let Some(h) = &mut self.hystart {
            if self.w.in_slow_start() && h.on_ack(conn, self.w.cwnd, delay, delay_min).is_some() {
                self.w.ssthresh = self.w.cwnd;
            }
        }
    }

    /// Linux `cubictcp_state`: a timeout starts over, HyStart included.
    fn set_state(&mut self, conn: &ConnView, new_state: CaState) {
        if new_state == CaState::Loss {
            self.reset();
            if let Some(h) = &mut self.hystart {
                h.restart(conn);
            }
        }
    }

    /// Linux `cubictcp_cwnd_event(CA_EVENT_TX_START)`: after idle, shift the
    /// epoch so the idle time does not count as growth time (RFC 9438 §5.8).
    fn cwnd_event(&mut self, conn: &ConnView, event: CwndEvent) {
        if event != CwndEvent::TxStart {
            return;
        }
        if let Some(e) = &mut self.epoch {
            let idle = conn.now.saturating_since(self.last_ack_at);
            e.start = (e.start + idle).min(conn.now);
        }
    }

    fn mode(&self) -> &'static str {
        match (self.w.in_slow_start(), self.hystart.as_ref().and_then(HyStart::exit)) {
            (true, _) => "SlowStart",
            (false, Some(hystart::Exit::AckTrain)) => "CongAvoid(HyStart ACK train)",
            (false, Some(hystart::Exit::Delay)) => "CongAvoid(HyStart delay)",
            (false, None) => "CongAvoid",
        }
    }
}

#[cfg(test)]
mod tests;
