//! TCP-NV (New Vegas): Linux net/ipv4/tcp_nv.c (Lawrence Brakmo, 2016).
//!
//! A Vegas successor for data centres. Once per RTT, NV computes the
//! congestion window the measured rate would need at the minimum RTT,
//! `cwnd_by_slope = max_rate x min_rtt / MSS`, and compares cwnd with
//! `max_win = cwnd_by_slope + pad` (pad = 10 packets of allowed queue):
//! above it, after enough samples, it cuts cwnd by 30% of the excess and
//! sets ssthresh = max_win; comfortably below it, growth (Reno by default)
//! is allowed. The min RTT is re-learned every 3.75..6.25 s. Loss: cwnd x 0.8.
//!
//! What differs from Linux:
//! - `jiffies` are the ns simulation clock; the random reset period is drawn
//!   from the flow's `RngStream` (Linux `get_random_bytes`).
//! - The ACK sample's `in_flight` is Linux's `mss x (delivered - rs.prior_delivered)`
//!   (tcp_input.c), taken from the ACK's rate sample.
//! - `nv_catchup` is never set in Linux (only cleared), so it is left out.
//! - `base_rtt_us` stands for the value a BPF sock_ops program may supply
//!   (`BPF_SOCK_OPS_BASE_RTT`); 0, the default, means none, as without BPF.

use super::common::{cong_avoid_ai, slow_start};
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, Window, INFINITE_SSTHRESH};
use crate::sim::{RngStream, SimDuration, SimTime};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Linux `NV_INIT_RTT`: no min RTT yet.
const NV_INIT_RTT: u32 = u32::MAX;
/// Linux `NV_MIN_CWND`: initial and floor of the adaptive `ca->nv_min_cwnd`.
const NV_MIN_CWND: u32 = 4;
/// Linux `NV_MIN_CWND_GROW`.
const NV_MIN_CWND_GROW: u32 = 2;
/// Linux `NV_TSO_CWND_BOUND`.
const NV_TSO_CWND_BOUND: u32 = 80;
/// Linux: rates are in 100 bit/s: bytes x 8 x 10^6 / 100 per µs of RTT.
const RATE_SCALE: u64 = 80_000;
/// Linux `tcpnv_init`: the first min-RTT reset comes after 2 s.
const FIRST_RESET: SimDuration = SimDuration::from_secs(2);
/// Linux: the reset period is `period x (384 + rand8) / 512`, i.e. 0.75..1.25 x period.
const RESET_JITTER_BASE: u64 = 384;
const RESET_JITTER_SHIFT: u32 = 9;
/// Linux `(base_rtt * 205) >> 8`: the lower RTT bound is 80% of base_rtt.
const LOWER_BOUND_MULT: u64 = 205;
/// Linux: the cwnd growth factor stays within -8..
const MIN_GROWTH_FACTOR: i32 = -8;
/// Linux `tcp_cong_avoid_ai` minimum count with a positive growth factor.
const MIN_AI_CNT: u32 = 4;

/// NV parameters: Linux tcp_nv.c's `nv_*` (module parameters and static tunables).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Packets of queue allowed in the network. Default 10 (`nv_pad`).
    pub pad: u32,
    /// Do not grow cwnd within this many packets of the pad. Default 2 (`nv_pad_buffer`).
    pub pad_buffer: u32,
    /// Min-RTT reset period, s (randomised 0.75..1.25x). Default 5 (`nv_reset_period`).
    pub reset_period_s: u32,
    /// NV does not decrease cwnd below this without losses, segments. Default 2 (`nv_min_cwnd`).
    pub min_cwnd: u32,
    /// Cut cwnd by this share of the excess on congestion, in 1/128. Default 38 = 30% (`nv_cong_dec_mult`).
    pub cong_dec_mult: u32,
    /// ssthresh on congestion = this x max_win / 8. Default 8 (`nv_ssthresh_factor`).
    pub ssthresh_factor: u32,
    /// Weight of a new RTT sample in the average, in 1/256. Default 128 (`nv_rtt_factor`).
    pub rtt_factor: u32,
    /// cwnd after a loss, in 1/1024. Default 819 = 80% (`nv_loss_dec_factor`).
    pub loss_dec_factor: u32,
    /// Non-congested RTTs before the growth factor doubles back after losses. Default 8 (`nv_cwnd_growth_rate_neg`).
    pub cwnd_growth_rate_neg: u32,
    /// Same when growth is at least Reno's; 0 keeps Reno growth. Default 0 (`nv_cwnd_growth_rate_pos`).
    pub cwnd_growth_rate_pos: u32,
    /// RTT samples before a decrease. Default 60 (`nv_dec_eval_min_calls`).
    pub dec_eval_min_calls: u32,
    /// RTT samples before an increase. Default 20 (`nv_inc_eval_min_calls`).
    pub inc_eval_min_calls: u32,
    /// RTT samples before leaving slow start on congestion. Default 30 (`nv_ssthresh_eval_min_calls`).
    pub ssthresh_eval_min_calls: u32,
    /// Only grow for this many RTTs without a decision. Default 10 (`nv_stop_rtt_cnt`).
    pub stop_rtt_cnt: u32,
    /// RTTs before a congestion decision. Default 2 (`nv_rtt_min_cnt`).
    pub rtt_min_cnt: u32,
    /// Known base RTT, µs, from a BPF program in Linux; 0 = none. Default 0.
    pub base_rtt_us: u32,
}

impl Config {
    /// Shares that must stay within their unit so cuts never exceed what they cut.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.cong_dec_mult <= 128, "cong_dec_mult", self.cong_dec_mult, "0..=128 (1/128ths)")?;
        ParamError::check(self.rtt_factor <= 256, "rtt_factor", self.rtt_factor, "0..=256 (1/256ths)")?;
        ParamError::check(self.loss_dec_factor <= 1024, "loss_dec_factor", self.loss_dec_factor, "0..=1024 (1/1024ths)")
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            pad: 10,
            pad_buffer: 2,
            reset_period_s: 5,
            min_cwnd: 2,
            cong_dec_mult: 30 * 128 / 100,
            ssthresh_factor: 8,
            rtt_factor: 128,
            loss_dec_factor: 819,
            cwnd_growth_rate_neg: 8,
            cwnd_growth_rate_pos: 0,
            dec_eval_min_calls: 60,
            inc_eval_min_calls: 20,
            ssthresh_eval_min_calls: 30,
            stop_rtt_cnt: 10,
            rtt_min_cnt: 2,
            base_rtt_us: 0,
        }
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "nv",
    family: super::Family::Delay,
    source: "Linux net/ipv4/tcp_nv.c",
    summary: "New Vegas: once per RTT compares cwnd with rate x min RTT + 10 packets; cuts 30% of the excess.",
    description:
        "New Vegas, for data centres: once per RTT, after enough samples, it computes the window the measured \
        delivery rate needs at the minimum RTT, rate x minRTT / MSS, and allows pad (10) packets of queue \
        above it. When cwnd exceeds that it cuts 30% of the excess and sets ssthresh to the target; when \
        comfortably below it grows as Reno. The minimum RTT is re-learned every 3.75 to 6.25 s (drawn at \
        random), and a loss cuts cwnd to 80%.",
    params: &[
        ("pad", "allowed queue, packets; default 10 (nv_pad)"),
        ("pad_buffer", "no growth within this of the pad, packets; default 2"),
        ("reset_period_s", "min-RTT reset period, s; default 5 (nv_reset_period)"),
        ("min_cwnd", "no delay-driven cut below this, segments; default 2 (nv_min_cwnd)"),
        ("cong_dec_mult", "share of the excess cut, 1/128 units; default 38 (30%)"),
        ("ssthresh_factor", "ssthresh = factor x max_win / 8; default 8"),
        ("rtt_factor", "new-sample weight in the RTT average, 1/256 units; default 128"),
        ("loss_dec_factor", "cwnd after loss, 1/1024 units; default 819 (80%)"),
        ("cwnd_growth_rate_neg", "quiet RTTs to restore growth after losses; default 8"),
        ("cwnd_growth_rate_pos", "quiet RTTs to speed growth past Reno, 0 = never; default 0"),
        ("dec_eval_min_calls", "samples before a decrease; default 60"),
        ("inc_eval_min_calls", "samples before an increase; default 20"),
        ("ssthresh_eval_min_calls", "samples before ending slow start; default 30"),
        ("stop_rtt_cnt", "RTTs of growth without a decision; default 10"),
        ("rtt_min_cnt", "RTTs before a congestion decision; default 2"),
        ("base_rtt_us", "known base RTT, µs (Linux: from BPF), 0 = none; default 0"),
    ],
};

pub struct Nv {
    cfg: Config,
    w: Window,
    rng: RngStream,
    started: bool,
    /// When `min_rtt` is replaced by `min_rtt_new`.
    min_rtt_reset_at: SimTime,
    /// Current growth factor; < 0: less than 1 packet per RTT.
    cwnd_growth_factor: i32,
    allow_cwnd_growth: bool,
    /// Reset the counters when the CA state returns to Open.
    reset_pending: bool,
    eval_call_cnt: u32,
    /// Adaptive floor for making decisions (TSO/LRO coalescing), segments.
    nv_min_cwnd: u32,
    rtt_cnt: u32,
    /// Averaged RTT, µs.
    last_rtt: u32,
    min_rtt: u32,
    min_rtt_new: u32,
    base_rtt: u32,
    lower_bound_rtt: u32,
    /// Max rate this RTT, in 100 bit/s.
    rtt_max_rate: u32,
    /// The RTT ends when `snd_una` passes this.
    rtt_start_seq: u64,
    last_snd_una: u64,
    no_cong_cnt: u32,
}

impl Nv {
    pub fn new(cfg: &Config, w: Window, rng: RngStream) -> Self {
        let base_rtt = cfg.base_rtt_us;
        Nv {
            cfg: cfg.clone(),
            w,
            rng,
            started: false,
            min_rtt_reset_at: SimTime::ZERO,
            cwnd_growth_factor: 0,
            allow_cwnd_growth: true,
            reset_pending: false,
            eval_call_cnt: 0,
            nv_min_cwnd: NV_MIN_CWND,
            rtt_cnt: 0,
            last_rtt: 0,
            min_rtt: NV_INIT_RTT,
            min_rtt_new: NV_INIT_RTT,
            base_rtt,
            lower_bound_rtt: ((base_rtt as u64 * LOWER_BOUND_MULT) >> 8) as u32,
            rtt_max_rate: 0,
            rtt_start_seq: 0,
            last_snd_una: 0,
            no_cong_cnt: 0,
        }
    }

    /// Linux `tcpnv_init`, on the first hook that sees the connection.
    fn start(&mut self, conn: &ConnView) {
        if !self.started {
            self.started = true;
            self.reset(conn);
            self.min_rtt_reset_at = conn.now + FIRST_RESET;
        }
    }

    /// Linux `tcpnv_reset`.
    fn reset(&mut self, conn: &ConnView) {
        self.reset_pending = false;
        self.no_cong_cnt = 0;
        self.rtt_cnt = 0;
        self.last_rtt = 0;
        self.rtt_max_rate = 0;
        self.rtt_start_seq = conn.snd_una;
        self.eval_call_cnt = 0;
        self.last_snd_una = conn.snd_una;
    }

    /// Linux `nv_get_bounded_rtt`.
    fn bounded_rtt(&self, v: u32) -> u32 {
        if self.lower_bound_rtt > 0 && v < self.lower_bound_rtt {
            self.lower_bound_rtt
        } else if self.base_rtt > 0 && v > self.base_rtt {
            self.base_rtt
        } else {
            v
        }
    }

    /// Linux: `nv_min_rtt` becomes the min of the last period; the next period is randomised.
    fn maybe_reset_min_rtt(&mut self, now: SimTime) {
        if now < self.min_rtt_reset_at {
            return;
        }
        self.min_rtt = self.min_rtt_new;
        self.min_rtt_new = NV_INIT_RTT;
        let rand8 = self.rng.inner().random::<u8>() as u64;
        let period_ns = SimDuration::from_secs(self.cfg.reset_period_s as u64).as_ns();
        self.min_rtt_reset_at =
            now + SimDuration::from_ns((period_ns * (RESET_JITTER_BASE + rand8)) >> RESET_JITTER_SHIFT);
        self.nv_min_cwnd = (self.nv_min_cwnd / 2).max(NV_MIN_CWND);
    }

    /// The once-per-RTT decision of Linux `tcpnv_acked`; `bytes_acked` since the previous call.
    fn evaluate(&mut self, conn: &ConnView, bytes_acked: u64) {
        self.rtt_start_seq = conn.snd_nxt;
        self.rtt_cnt = (self.rtt_cnt + 1).min(u8::MAX as u32);
        let mss = conn.mss_bytes as u64;
        // Called only once this RTT: cwnd is probably too small to measure (TSO, LRO, coalescing).
        if self.eval_call_cnt == 1
            && bytes_acked >= (self.nv_min_cwnd as u64 - 1) * mss
            && self.nv_min_cwnd < NV_TSO_CWND_BOUND + 1
        {
            self.nv_min_cwnd = (self.nv_min_cwnd + NV_MIN_CWND_GROW).min(NV_TSO_CWND_BOUND + 1);
            self.rtt_start_seq = conn.snd_nxt + self.nv_min_cwnd as u64 * mss;
            self.eval_call_cnt = 0;
            self.allow_cwnd_growth = true;
            return;
        }
        // The cwnd the max rate needs at the min RTT: slope = 80000 x mss / min_rtt.
        let cwnd_by_slope = (self.rtt_max_rate as u64 * self.min_rtt as u64 / (RATE_SCALE * mss)) as u32;
        let max_win = cwnd_by_slope + self.cfg.pad;
        let cwnd = self.w.cwnd;
        if cwnd > max_win {
            // Congestion: decide only with enough RTTs and samples.
            if self.rtt_cnt < self.cfg.rtt_min_cnt {
                return;
            } else if self.w.ssthresh == INFINITE_SSTHRESH {
                if self.eval_call_cnt < self.cfg.ssthresh_eval_min_calls {
                    return;
                }
            } else if self.eval_call_cnt < self.cfg.dec_eval_min_calls {
                if self.allow_cwnd_growth && self.rtt_cnt > self.cfg.stop_rtt_cnt {
                    self.allow_cwnd_growth = false;
                }
                return;
            }
            self.allow_cwnd_growth = false;
            self.w.ssthresh = (self.cfg.ssthresh_factor * max_win) >> 3;
            if cwnd - max_win > 2 {
                // A large gap: cut a share of it (exponential decrease).
                let dec = (((cwnd - max_win) * self.cfg.cong_dec_mult) >> 7).max(2);
                self.w.set_cwnd(cwnd - dec);
            } else if self.cfg.cong_dec_mult > 0 {
                self.w.set_cwnd(max_win);
            }
            self.cwnd_growth_factor = self.cwnd_growth_factor.min(0);
            self.no_cong_cnt = 0;
        } else if cwnd + self.cfg.pad_buffer <= max_win {
            // No congestion: allow growth, and restore the growth rate over time.
            if self.eval_call_cnt < self.cfg.inc_eval_min_calls {
                return;
            }
            self.allow_cwnd_growth = true;
            self.no_cong_cnt += 1;
            // Below Reno growth (after losses) use the _neg rate, else the _pos one.
            let rate =
                if self.cwnd_growth_factor < 0 { self.cfg.cwnd_growth_rate_neg } else { self.cfg.cwnd_growth_rate_pos };
            if rate > 0 && self.no_cong_cnt > rate {
                self.cwnd_growth_factor += 1;
                self.no_cong_cnt = 0;
            }
        } else {
            return;
        }
        self.eval_call_cnt = 0;
        self.rtt_cnt = 0;
        self.rtt_max_rate = 0;
        if self.w.cwnd < self.cfg.min_cwnd {
            self.w.set_cwnd(self.cfg.min_cwnd);
        }
    }
}

impl CongestionControl for Nv {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Linux `tcpnv_recalc_ssthresh`: 80% of cwnd.
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        (((self.w.cwnd as u64 * self.cfg.loss_dec_factor as u64) >> 10) as u32).max(2)
    }

    /// Linux `tcpnv_cong_avoid`: Reno-like growth at 2^growth_factor, when NV allows it.
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        if !conn.is_cwnd_limited || !self.allow_cwnd_growth {
            return;
        }
        let mut acked = ack.acked_segs;
        if self.w.in_slow_start() {
            acked = slow_start(&mut self.w, acked);
            if acked == 0 {
                return;
            }
        }
        let cnt = if self.cwnd_growth_factor < 0 {
            self.w.cwnd << (-self.cwnd_growth_factor) as u32
        } else {
            (self.w.cwnd >> self.cwnd_growth_factor as u32).max(MIN_AI_CNT)
        };
        cong_avoid_ai(&mut self.w, cnt, acked);
    }

    /// Linux `tcpnv_state`.
    fn set_state(&mut self, conn: &ConnView, new_state: CaState) {
        self.start(conn);
        match new_state {
            CaState::Open if self.reset_pending => self.reset(conn),
            CaState::Loss | CaState::Cwr | CaState::Recovery => {
                self.reset_pending = true;
                self.allow_cwnd_growth = false;
                if new_state == CaState::Loss {
                    // Back to Reno growth, then halve the growth rate.
                    self.cwnd_growth_factor = self.cwnd_growth_factor.min(0);
                    if self.cfg.cwnd_growth_rate_neg > 0 && self.cwnd_growth_factor > MIN_GROWTH_FACTOR {
                        self.cwnd_growth_factor -= 1;
                    }
                }
            }
            _ => {}
        }
    }

    /// Linux `tcpnv_acked`.
    fn pkts_acked(&mut self, conn: &ConnView, ack: &AckSample) {
        self.start(conn);
        let Some(rtt) = ack.rtt else { return };
        if !matches!(conn.ca_state, CaState::Open | CaState::Disorder) {
            return;
        }
        let rtt_us = rtt.as_us().min(u32::MAX as u64) as u32;
        let bytes_acked = conn.snd_una - self.last_snd_una;
        self.last_snd_una = conn.snd_una;
        let in_flight = conn.mss_bytes as u64 * conn.delivered.saturating_sub(ack.rate.prior_delivered);
        if in_flight == 0 {
            return;
        }
        // Moving average of the RTT; the first sample also seeds min_rtt at 2x.
        let avg_rtt = if self.cfg.rtt_factor > 0 {
            let avg = if self.last_rtt > 0 {
                let f = self.cfg.rtt_factor as u64;
                ((rtt_us as u64 * f + self.last_rtt as u64 * (256 - f.min(256))) >> 8) as u32
            } else {
                self.min_rtt = rtt_us.saturating_mul(2);
                rtt_us
            };
            self.last_rtt = avg;
            avg
        } else {
            rtt_us
        };
        let rate = (in_flight * RATE_SCALE / avg_rtt.max(1) as u64).min(u32::MAX as u64) as u32;
        self.rtt_max_rate = self.rtt_max_rate.max(rate);
        self.eval_call_cnt = (self.eval_call_cnt + 1).min(u8::MAX as u32);
        let bounded = self.bounded_rtt(avg_rtt);
        self.min_rtt = self.min_rtt.min(bounded);
        self.min_rtt_new = self.min_rtt_new.min(bounded);
        self.maybe_reset_min_rtt(conn.now);
        if self.rtt_start_seq < conn.snd_una {
            self.evaluate(conn, bytes_acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn, MSS};
    use super::*;

    /// NV with cwnd 100, ssthresh 50 (out of slow start), min RTT 10 ms, in mid-RTT.
    fn nv() -> (Nv, ConnView) {
        let c = conn(0, 10);
        let mut nv = Nv::new(&Config::default(), Window { ssthresh: 50, ..Window::new(100) }, RngStream::new(1, "t"));
        nv.start(&c);
        nv.min_rtt = 10_000;
        (nv, c)
    }

    /// A max rate of `segs` segments per 10 ms, in 100 bit/s: segs x 1448 x 80000 / 10000.
    fn rate_of(segs: u64) -> u32 {
        (segs * MSS as u64 * RATE_SCALE / 10_000) as u32
    }

    #[test]
    fn congestion_cuts_thirty_percent_of_the_excess() {
        let (mut nv, c) = nv();
        // Rate 50 segments per min RTT: cwnd_by_slope = 50, max_win = 60; cwnd 100 > 60.
        nv.rtt_max_rate = rate_of(50);
        nv.rtt_cnt = 5;
        nv.eval_call_cnt = 60;
        nv.evaluate(&c, 0);
        // ssthresh = 8 x 60 >> 3 = 60; dec = (100 - 60) x 38 >> 7 = 11; cwnd 89.
        assert_eq!((nv.w.ssthresh, nv.w.cwnd), (60, 89));
        assert!(!nv.allow_cwnd_growth);
    }

    #[test]
    fn a_small_excess_snaps_to_max_win() {
        let (mut nv, c) = nv();
        nv.rtt_max_rate = rate_of(88);
        nv.rtt_cnt = 5;
        nv.eval_call_cnt = 60;
        nv.evaluate(&c, 0);
        // cwnd_by_slope = 88 (integer division of the exact product), max_win 98; gap 2: cwnd = 98.
        assert_eq!(nv.w.cwnd, 98);
    }

    #[test]
    fn no_decision_without_enough_samples() {
        let (mut nv, c) = nv();
        nv.rtt_max_rate = rate_of(50);
        nv.rtt_cnt = 5;
        nv.eval_call_cnt = 59; // < nv_dec_eval_min_calls = 60
        nv.evaluate(&c, 0);
        assert_eq!(nv.w.cwnd, 100);
    }

    #[test]
    fn below_max_win_minus_buffer_allows_growth() {
        let (mut nv, c) = nv();
        nv.allow_cwnd_growth = false;
        // Rate 100 per min RTT: max_win 110 >= cwnd 100 + pad_buffer 2.
        nv.rtt_max_rate = rate_of(100);
        nv.eval_call_cnt = 20;
        nv.evaluate(&c, 0);
        assert!(nv.allow_cwnd_growth);
        // Reno growth: +1 per cwnd ACKed (cnt = max(4, cwnd >> 0)).
        for _ in 0..100 {
            nv.cong_avoid(&c, &ack(1, 10));
        }
        assert_eq!(nv.w.cwnd, 101);
    }

    #[test]
    fn loss_keeps_eighty_percent_and_slows_growth() {
        let (mut nv, c) = nv();
        // 100 x 819 >> 10 = 79.
        assert_eq!(nv.ssthresh(&c), 79);
        nv.set_state(&c, CaState::Loss);
        assert_eq!(nv.cwnd_growth_factor, -1);
        assert!(!nv.allow_cwnd_growth);
    }

    #[test]
    fn queueing_seen_through_acks_leads_to_a_cut() {
        let (mut nv, mut c) = nv();
        // 100 segments in flight throughout: 300 ACKs at RTT 10 ms (rate = 100 per min RTT,
        // no congestion), then the RTT doubles to 20 ms: the rate is 50 per min RTT,
        // max_win = 50 + 10 = 60 < cwnd 100, a cut once 2 RTTs and 60 samples have passed.
        for i in 1..=700u64 {
            let rtt_ms = if i <= 300 { 10 } else { 20 };
            c.snd_una = i * MSS as u64;
            c.snd_nxt = c.snd_una + 100 * MSS as u64;
            c.delivered = i;
            c.now = SimTime(i * 200_000);
            let rate = crate::cc::RateSample { prior_delivered: i.saturating_sub(100), ..Default::default() };
            nv.pkts_acked(&c, &AckSample { rate, ..ack(1, rtt_ms) });
        }
        assert_eq!(nv.min_rtt, 10_000);
        assert!(nv.w.cwnd < 100, "cwnd {}", nv.w.cwnd);
        assert!(nv.w.ssthresh <= 61, "ssthresh {}", nv.w.ssthresh);
    }
}
