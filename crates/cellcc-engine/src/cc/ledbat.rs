//! LEDBAT: RFC 6817 (Low Extra Delay Background Transport), §2.4.2 sender pseudo-code; ns-3 `TcpLedbat` for the TCP mapping.
//!
//! A scavenger: it estimates the queuing delay it causes as the current delay
//! minus the base (minimum) delay, and steers the window so that queuing delay
//! sits at TARGET (100 ms). Below target it grows by at most one segment per
//! RTT (GAIN = 1); above target it shrinks in proportion to the excess, so it
//! backs off before a loss-based flow, which only reacts to loss:
//!
//! ```text
//!   queuing_delay = min(last CURRENT_FILTER delays) - min(per-minute minima of last BASE_HISTORY minutes)
//!   off_target    = (TARGET - queuing_delay) / TARGET
//!   cwnd         += GAIN * off_target * acked / cwnd            (segments)
//!   cwnd          = clamp(cwnd, MIN_CWND, flight + ALLOWED_INCREASE)
//! ```
//!
//! What differs from the RFC:
//! - One-way delay: the RFC measures the forward one-way delay with receiver
//!   timestamps. TCP gives the sender only RTT samples here, so this is an
//!   RTT-based approximation: queuing on the ACK path counts as forward queuing
//!   (ns-3's TcpLedbat uses TCP timestamps the same way, tsval - tsecr).
//! - The initial window is the sender's (scenario `initial_cwnd`), not INIT_CWND = 2.
//! - Slow start: the RFC pseudo-code has none (the default); `slow_start: true`
//!   slow-starts while cwnd <= ssthresh, as ns-3 TcpLedbat's `SSParam`.
//! - Loss: ssthresh = max(cwnd/2, MIN_CWND), once per loss event as the
//!   sender's recovery does it (RFC: at most once per RTT); RTO: cwnd = 1 (sender).
//! - cwnd is kept as a fraction of segments between ACKs (the RFC counts bytes).
//!
//! Behaviour to expect (tests/e2e_model_ccas.rs): alone, LEDBAT fills a path
//! whose buffer holds less than TARGET of queue. It yields to a loss-based flow
//! only when that flow's queue exceeds TARGET: against NewReno on 10 Mbit/s,
//! 40 ms it got 0.7% with a 300-packet (360 ms) buffer but 42% with a
//! 150-packet one, where NewReno's sawtooth drains the queue below 100 ms.

use super::common::slow_start;
use super::ParamError;
use super::{AckSample, CongestionControl, ConnView, Window};
use crate::sim::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// RFC 6817 §2.4.2: the base delay is kept as one minimum per minute.
const BASE_ROLLOVER: SimDuration = SimDuration::from_secs(60);

/// LEDBAT parameters (RFC 6817 §2.4.2 and §3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// TARGET queuing delay, ms. Default 100 (RFC 6817 §2.4.2: TARGET MUST be <= 100 ms).
    pub target_ms: u32,
    /// GAIN, cwnd growth per RTT at zero queuing delay, in segments. Default 1.0 (RFC 6817: MUST be <= 1).
    pub gain: f64,
    /// BASE_HISTORY, minutes of per-minute delay minima for the base delay. Default 10 (RFC 6817 §3.4.1).
    pub base_history_min: u32,
    /// CURRENT_FILTER, delay samples the current delay is the minimum of. Default 4 (RFC 6817 §3.4.2, ns-3 NoiseFilterLen).
    pub current_filter: u32,
    /// ALLOWED_INCREASE, segments cwnd may exceed the flight size by. Default 1 (RFC 6817 §2.4.2: SHOULD be 1).
    pub allowed_increase_segs: u32,
    /// MIN_CWND, segments. Default 2 (RFC 6817 §2.4.2: SHOULD be 2).
    pub min_cwnd_segs: u32,
    /// Slow start while cwnd <= ssthresh before the delay rule takes over. Default false (RFC pseudo-code).
    pub slow_start: bool,
}

impl Config {
    /// GAIN must be a positive number (RFC 6817 also requires <= 1 for conformance; larger is allowed for study).
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.target_ms >= 1, "target_ms", self.target_ms, "an integer >= 1")?;
        ParamError::check(self.base_history_min >= 1, "base_history_min", self.base_history_min, "an integer >= 1")?;
        ParamError::check(self.current_filter >= 1, "current_filter", self.current_filter, "an integer >= 1")?;
        ParamError::check(
            self.allowed_increase_segs >= 1,
            "allowed_increase_segs",
            self.allowed_increase_segs,
            "an integer >= 1",
        )?;
        ParamError::check(self.min_cwnd_segs >= 1, "min_cwnd_segs", self.min_cwnd_segs, "an integer >= 1")?;
        ParamError::check(self.gain > 0.0 && self.gain.is_finite(), "gain", self.gain, "a number > 0")
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            target_ms: 100,
            gain: 1.0,
            base_history_min: 10,
            current_filter: 4,
            allowed_increase_segs: 1,
            min_cwnd_segs: 2,
            slow_start: false,
        }
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "ledbat",
    family: super::Family::LowerThanBestEffort,
    source: "RFC 6817 §2.4.2; ns-3 TcpLedbat (RTT-based delay)",
    summary: "Scavenger: holds queuing delay (RTT - min RTT of 10 min) at 100 ms, yields to loss-based flows.",
    description: "A scavenger (RFC 6817): it estimates the queuing delay it causes as the current delay (minimum of \
        the last 4 RTT samples; there are no one-way timestamps here) minus the base delay (minimum over the \
        last 10 minutes), and changes cwnd by GAIN x (TARGET - queuing delay) / TARGET segments per RTT: at \
        most one segment per RTT below the 100 ms target, shrinking in proportion above it. There is no slow \
        start by default, and a loss halves the window as Reno. Alone on a path whose buffer holds less than \
        100 ms of queue it keeps growing until the buffer overflows, so it fills the path; it yields only to \
        flows that build more than 100 ms of queue.",
    params: &[
        ("target_ms", "TARGET queuing delay, ms; default 100 (RFC 6817)"),
        ("gain", "GAIN, segments per RTT at zero queuing delay; default 1.0 (RFC 6817)"),
        ("base_history_min", "BASE_HISTORY, minutes of base-delay minima; default 10 (RFC 6817)"),
        ("current_filter", "CURRENT_FILTER, samples in the current-delay min filter; default 4 (RFC 6817, ns-3)"),
        ("allowed_increase_segs", "ALLOWED_INCREASE over the flight size, segments; default 1 (RFC 6817)"),
        ("min_cwnd_segs", "MIN_CWND, segments; default 2 (RFC 6817)"),
        ("slow_start", "slow start below ssthresh first; default false (RFC pseudo-code; ns-3 uses true)"),
    ],
};

/// RFC 6817 §2.4.2 `update_base_delay`: one minimum per minute, the last BASE_HISTORY minutes.
#[derive(Clone, Debug, Default)]
struct BaseDelay {
    minima: VecDeque<SimDuration>,
    /// Minute index (since t = 0) of the newest entry.
    last_rollover_min: Option<u64>,
}

impl BaseDelay {
    fn update(&mut self, now: SimTime, delay: SimDuration, history: usize) {
        let minute = now.as_ns() / BASE_ROLLOVER.as_ns();
        if self.last_rollover_min != Some(minute) {
            self.last_rollover_min = Some(minute);
            if self.minima.len() == history {
                self.minima.pop_front();
            }
            self.minima.push_back(delay);
        } else if let Some(tail) = self.minima.back_mut() {
            *tail = (*tail).min(delay);
        }
    }

    fn get(&self) -> Option<SimDuration> {
        self.minima.iter().min().copied()
    }
}

pub struct Ledbat {
    cfg: Config,
    w: Window,
    /// cwnd in segments with its fraction (the RFC's byte-granular cwnd / MSS).
    cwnd_segs: f64,
    base: BaseDelay,
    /// RFC 6817 `current_delays`: the last CURRENT_FILTER samples.
    current: VecDeque<SimDuration>,
}

impl Ledbat {
    pub fn new(cfg: &Config, w: Window) -> Self {
        Ledbat { cfg: cfg.clone(), cwnd_segs: w.cwnd as f64, w, base: BaseDelay::default(), current: VecDeque::new() }
    }

    /// RFC 6817 `update_current_delay`.
    fn update_current_delay(&mut self, delay: SimDuration) {
        if self.current.len() == self.cfg.current_filter as usize {
            self.current.pop_front();
        }
        self.current.push_back(delay);
    }

    /// `FILTER(current_delays) - MIN(base_delays)`, with FILTER = MIN (RFC 6817 §3.4.2).
    fn queuing_delay(&self) -> Option<SimDuration> {
        let current = self.current.iter().min()?;
        Some(*current - self.base.get()?)
    }

    /// Re-sync the fractional window after the sender changed cwnd (recovery, RTO).
    fn sync_cwnd(&mut self) {
        if self.cwnd_segs.floor() as u32 != self.w.cwnd {
            self.cwnd_segs = self.w.cwnd as f64;
        }
    }
}

impl CongestionControl for Ledbat {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// RFC 6817 §2.4.2 on loss: cwnd = max(cwnd/2, MIN_CWND).
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        (self.w.cwnd / 2).max(self.cfg.min_cwnd_segs)
    }

    /// RFC 6817 §2.4.2 "for each delay sample in the acknowledgement".
    fn pkts_acked(&mut self, conn: &ConnView, ack: &AckSample) {
        if let Some(delay) = ack.rtt {
            self.base.update(conn.now, delay, self.cfg.base_history_min as usize);
            self.update_current_delay(delay);
        }
    }

    /// RFC 6817 §2.4.2 on acknowledgement: move cwnd towards the delay target.
    fn cong_avoid(&mut self, _conn: &ConnView, ack: &AckSample) {
        self.sync_cwnd();
        let mut acked = ack.acked_segs;
        if self.cfg.slow_start && self.w.in_slow_start() {
            acked = slow_start(&mut self.w, acked);
            self.cwnd_segs = self.w.cwnd as f64;
            if acked == 0 {
                return;
            }
        }
        let Some(queuing) = self.queuing_delay() else { return };
        let target_ns = SimDuration::from_ms(self.cfg.target_ms as u64).as_ns() as f64;
        let off_target = (target_ns - queuing.as_ns() as f64) / target_ns;
        self.cwnd_segs += self.cfg.gain * off_target * acked as f64 / self.cwnd_segs;
        let max_allowed = (ack.prior_in_flight + self.cfg.allowed_increase_segs) as f64;
        self.cwnd_segs = self.cwnd_segs.min(max_allowed).max(self.cfg.min_cwnd_segs as f64);
        self.w.set_cwnd(self.cwnd_segs.floor() as u32);
        // As ns-3 TcpLedbat: a delay-driven decrease ends slow start.
        if self.w.cwnd <= self.w.ssthresh && self.cfg.slow_start {
            self.w.ssthresh = self.w.cwnd.saturating_sub(1).max(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    /// A LEDBAT at cwnd 20 whose base delay is 40 ms.
    fn at_base_40ms() -> (Ledbat, ConnView) {
        let mut l = Ledbat::new(&Config::default(), Window::new(20));
        let c = conn(0, 40);
        l.pkts_acked(&c, &ack(1, 40));
        (l, c)
    }

    fn ack_in_flight(segs: u32, rtt_ms: u64, in_flight: u32) -> AckSample {
        AckSample { prior_in_flight: in_flight, ..ack(segs, rtt_ms) }
    }

    #[test]
    fn grows_one_segment_per_rtt_at_zero_queuing_delay() {
        let (mut l, c) = at_base_40ms();
        // off_target = (100 - 0)/100 = 1: 20 ACKs of 1 segment add 20 x 1/cwnd ~ 1 segment.
        for _ in 0..20 {
            let a = ack_in_flight(1, 40, 40);
            l.pkts_acked(&c, &a);
            l.cong_avoid(&c, &a);
        }
        // sum_{k=0}^{19} 1/(20 + k/20 ...) ~ 0.976: cwnd 20.976 -> 20 segments, 0.976 carried.
        assert_eq!(l.window().cwnd, 20);
        assert!((l.cwnd_segs - 20.976).abs() < 0.01, "{}", l.cwnd_segs);
    }

    #[test]
    fn at_target_delay_the_window_holds() {
        let (mut l, c) = at_base_40ms();
        // RTT 140 ms = base 40 + TARGET 100: off_target = 0.
        for _ in 0..4 {
            l.pkts_acked(&c, &ack(1, 140));
        }
        l.cong_avoid(&c, &ack_in_flight(1, 140, 40));
        assert_eq!(l.cwnd_segs, 20.0);
    }

    #[test]
    fn above_target_it_shrinks_in_proportion() {
        let (mut l, c) = at_base_40ms();
        // Queuing 200 ms: off_target = (100 - 200)/100 = -1; 10 segments ACKed: cwnd -= 10/20 = 0.5.
        for _ in 0..4 {
            l.pkts_acked(&c, &ack(1, 240));
        }
        l.cong_avoid(&c, &ack_in_flight(10, 240, 40));
        assert_eq!(l.cwnd_segs, 19.5);
        assert_eq!(l.window().cwnd, 19);
    }

    #[test]
    fn current_delay_is_the_min_of_the_last_four_samples() {
        let (mut l, c) = at_base_40ms();
        for rtt in [90, 60, 70, 80] {
            l.pkts_acked(&c, &ack(1, rtt));
        }
        assert_eq!(l.queuing_delay(), Some(SimDuration::from_ms(20)));
        // The 60 ms sample leaves the 4-sample filter after two more samples.
        l.pkts_acked(&c, &ack(1, 90));
        l.pkts_acked(&c, &ack(1, 90));
        assert_eq!(l.queuing_delay(), Some(SimDuration::from_ms(30)));
    }

    #[test]
    fn base_delay_forgets_minima_older_than_ten_minutes() {
        let (mut l, _) = at_base_40ms();
        // One 60 ms sample per minute for minutes 1..=9: the 40 ms minute-0 minimum is still in the history.
        for minute in 1..=9 {
            l.pkts_acked(&conn(minute * 60_000, 60), &ack(1, 60));
        }
        assert_eq!(l.base.get(), Some(SimDuration::from_ms(40)));
        // Minute 10 pushes minute 0 out of the 10-entry history.
        l.pkts_acked(&conn(600_000, 60), &ack(1, 60));
        assert_eq!(l.base.get(), Some(SimDuration::from_ms(60)));
    }

    #[test]
    fn cwnd_is_capped_by_flight_plus_allowed_increase_and_floored_at_min_cwnd() {
        let (mut l, c) = at_base_40ms();
        l.cong_avoid(&c, &ack_in_flight(1, 40, 5));
        assert_eq!(l.window().cwnd, 6, "flight 5 + ALLOWED_INCREASE 1");
        for _ in 0..4 {
            l.pkts_acked(&c, &ack(1, 2000));
        }
        l.cong_avoid(&c, &ack_in_flight(100, 2000, 40));
        assert_eq!(l.window().cwnd, 2, "MIN_CWND");
    }

    #[test]
    fn loss_halves_with_min_cwnd_floor() {
        let (mut l, c) = at_base_40ms();
        assert_eq!(l.ssthresh(&c), 10);
        l.window_mut().cwnd = 3;
        assert_eq!(l.ssthresh(&c), 2);
    }
}
