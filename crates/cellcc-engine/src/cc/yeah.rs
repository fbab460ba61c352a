//! YeAH: Baiocchi, Castellani, Vacirca, "YeAH-TCP: Yet Another Highspeed TCP", PFLDnet 2007; Linux net/ipv4/tcp_yeah.c.
//!
//! Two modes, switched once per RTT on Vegas' queue estimate
//! `Q = cwnd * (RTT - baseRTT) / RTT` (packets) and the queueing delay:
//!
//! ```text
//!            Q <= alpha (80) and RTT - baseRTT <= baseRTT / phy (8)
//!   Slow ────────────────────────────────────────────────────────────► Fast
//!   (Reno: +1/RTT)  ◄────────────────────────────────────────────────  (Scalable: +1 per min(cwnd, 100) ACKs)
//!            otherwise; and if Q > alpha: precautionary decongestion
//!            cwnd -= min(Q / gamma, cwnd / 2^epsilon), not below reno_count; ssthresh = cwnd
//!
//!   loss: in Fast or fewer than rho (16) Slow RTTs:  cwnd - clamp(Q, cwnd/2^delta, cwnd/2)
//!         after rho Slow RTTs (competing with Reno):  cwnd / 2
//! ```
//!
//! `reno_count` estimates what a competing Reno flow would hold, so that the
//! decongestion never takes YeAH below it; it is reset after zeta Fast RTTs.
//!
//! Differences from Linux `tcp_yeah.c`: none in the algorithm. The constants
//! (`TCP_YEAH_*`) are parameters here; RTTs are microseconds from the
//! simulator's nanosecond samples, with Vegas' `+ 1`.

use super::common::{cong_avoid_ai, slow_start};
use super::vegas::{VegasRtt, MIN_SAMPLES_PER_ROUND};
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, CwndEvent, Window};
use serde::{Deserialize, Serialize};

/// Linux `TCP_SCALABLE_AI_CNT`: Fast mode adds 1 segment per this many ACKs at most.
const SCALABLE_AI_CNT: u32 = 100;
/// Linux `tcp_yeah_init`: cwnd clamp that keeps the MD arithmetic in range.
const CWND_CLAMP_MAX: u32 = u32::MAX / 128;
/// Linux: `reno_count` and ssthresh never go below 2 segments.
const MIN_SEGS: u32 = 2;
/// Linux: `doing_reno_now` saturates at 0xffffff.
const MAX_SLOW_RTTS: u32 = 0xff_ffff;
/// Largest shift the `delta` / `epsilon` parameters may ask for.
const MAX_SHIFT: u32 = 31;

/// YeAH parameters: Linux tcp_yeah.c `TCP_YEAH_*` constants (the paper's symbols).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Queue above which YeAH is in Slow mode and decongests. Packets.
    /// Default 80 (Linux `TCP_YEAH_ALPHA`).
    pub alpha: u32,
    /// Precautionary decongestion removes Q / gamma packets. Divisor >= 1.
    /// Default 1 (Linux `TCP_YEAH_GAMMA`).
    pub gamma: u32,
    /// log2 of the smallest fraction of cwnd a loss removes. Shift in [0, 31].
    /// Default 3, i.e. cwnd/8 (Linux `TCP_YEAH_DELTA`).
    pub delta: u32,
    /// log2 of the largest fraction of cwnd a decongestion removes. Shift in
    /// [0, 31]. Default 1, i.e. cwnd/2 (Linux `TCP_YEAH_EPSILON`).
    pub epsilon: u32,
    /// Slow mode when the queueing delay exceeds baseRTT / phy. Divisor >= 1.
    /// Default 8 (Linux `TCP_YEAH_PHY`).
    pub phy: u32,
    /// Slow RTTs in a row after which a loss halves cwnd like Reno. RTTs.
    /// Default 16 (Linux `TCP_YEAH_RHO`).
    pub rho: u32,
    /// Fast RTTs after which `reno_count` is reset to 2. RTTs.
    /// Default 50 (Linux `TCP_YEAH_ZETA`).
    pub zeta: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { alpha: 80, gamma: 1, delta: 3, epsilon: 1, phy: 8, rho: 16, zeta: 50 }
    }
}

impl Config {
    /// gamma and phy divide; delta and epsilon are shifts of a 32-bit cwnd.
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, v) in [("gamma", self.gamma), ("phy", self.phy)] {
            ParamError::check(v >= 1, name, v, "an integer divisor >= 1")?;
        }
        for (name, v) in [("delta", self.delta), ("epsilon", self.epsilon)] {
            ParamError::check(v <= MAX_SHIFT, name, v, "a shift in [0, 31]")?;
        }
        Ok(())
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "yeah",
    family: super::Family::LossDelay,
    source: "Baiocchi, Castellani & Vacirca, PFLDnet 2007; Linux net/ipv4/tcp_yeah.c",
    summary:
        "Scalable growth while the queue is small (Fast), Reno when it grows (Slow); drains the queue before loss.",
    description: "Two modes switched once per RTT on Vegas' queue estimate Q and the queueing delay: Fast (Scalable \
        growth, one segment per min(cwnd, 100) ACKs) while Q <= alpha (80 packets) and the queueing delay is \
        at most baseRTT/8, Slow (Reno) otherwise. In Slow mode with Q > alpha it drains the queue before any \
        loss, removing Q/gamma packets but never going below an estimate of a competing Reno flow's window. \
        A loss removes Q packets clamped to [cwnd/8, cwnd/2], or halves the window after rho (16) Slow RTTs, \
        when it is assumed to compete with Reno.",
    params: &[
        ("alpha", "queue above which YeAH slows down and decongests, packets (default 80, TCP_YEAH_ALPHA)"),
        ("gamma", "decongestion removes queue/gamma packets, divisor >= 1 (default 1, TCP_YEAH_GAMMA)"),
        ("delta", "loss removes at least cwnd/2^delta, shift (default 3, TCP_YEAH_DELTA)"),
        ("epsilon", "decongestion removes at most cwnd/2^epsilon, shift (default 1, TCP_YEAH_EPSILON)"),
        ("phy", "Slow mode when queueing delay > baseRTT/phy, divisor >= 1 (default 8, TCP_YEAH_PHY)"),
        ("rho", "Slow RTTs after which loss halves like Reno, RTTs (default 16, TCP_YEAH_RHO)"),
        ("zeta", "Fast RTTs after which reno_count resets, RTTs (default 50, TCP_YEAH_ZETA)"),
    ],
};

/// YeAH's mode (Linux `doing_reno_now`: 0 = Fast, n > 0 = n Slow RTTs in a row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Scalable growth: the queue is small.
    Fast,
    /// Reno growth for `rtts` RTTs in a row: the queue or its delay is large.
    Slow { rtts: u32 },
}

impl Mode {
    fn slow_rtts(self) -> u32 {
        match self {
            Mode::Fast => 0,
            Mode::Slow { rtts } => rtts,
        }
    }
}

pub struct Yeah {
    cfg: Config,
    w: Window,
    rtt: VegasRtt,
    mode: Mode,
    /// `lastQ`: the queue estimate of the last round, packets.
    last_queue: u32,
    /// `reno_count`: estimate of a competing Reno flow's cwnd, segments.
    reno_count: u32,
    /// `fast_count`: Fast rounds since the last reset.
    fast_count: u32,
}

impl Yeah {
    pub fn new(cfg: &Config, mut w: Window) -> Self {
        w.cwnd_clamp = w.cwnd_clamp.min(CWND_CLAMP_MAX);
        Yeah {
            cfg: cfg.clone(),
            w,
            rtt: VegasRtt::new(),
            mode: Mode::Fast,
            last_queue: 0,
            reno_count: MIN_SEGS,
            fast_count: 0,
        }
    }

    /// The once-per-RTT mode decision (Linux `tcp_yeah_cong_avoid`, `cntRTT > 2` branch).
    fn end_of_round(&mut self) {
        let rtt = self.rtt.min_rtt_us;
        let base = self.rtt.base_rtt_us;
        let queue = self.rtt.queued_packets(self.w.cwnd);
        if queue > self.cfg.alpha || rtt - base > base / self.cfg.phy as u64 {
            if queue > self.cfg.alpha && self.w.cwnd > self.reno_count {
                self.decongest(queue);
            }
            self.reno_count =
                if self.reno_count <= MIN_SEGS { (self.w.cwnd >> 1).max(MIN_SEGS) } else { self.reno_count + 1 };
            self.mode = Mode::Slow { rtts: (self.mode.slow_rtts() + 1).min(MAX_SLOW_RTTS) };
        } else {
            self.fast_count += 1;
            if self.fast_count > self.cfg.zeta {
                self.reno_count = MIN_SEGS;
                self.fast_count = 0;
            }
            self.mode = Mode::Fast;
        }
        self.last_queue = queue;
    }

    /// Precautionary decongestion: remove the queue before the buffer overflows.
    fn decongest(&mut self, queue: u32) {
        let reduction = (queue / self.cfg.gamma).min(self.w.cwnd >> self.cfg.epsilon);
        self.w.cwnd = (self.w.cwnd - reduction).max(self.reno_count);
        self.w.ssthresh = self.w.cwnd;
    }
}

impl CongestionControl for Yeah {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    /// Linux `tcp_yeah_ssthresh`.
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        let cwnd = self.w.cwnd;
        let half = (cwnd >> 1).max(MIN_SEGS);
        let reduction = if self.mode.slow_rtts() < self.cfg.rho {
            // Not competing with Reno: remove the queue, within [cwnd/2^delta, cwnd/2].
            self.last_queue.min(half).max(cwnd >> self.cfg.delta)
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(MIN_SEGS);
        cwnd.saturating_sub(reduction).max(MIN_SEGS)
    }
    /// Linux `tcp_yeah_cong_avoid`.
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        if !conn.is_cwnd_limited {
            return;
        }
        let mut acked = ack.acked_segs;
        if self.w.in_slow_start() {
            acked = slow_start(&mut self.w, acked);
        }
        if acked > 0 {
            let wnd_cnt = match self.mode {
                Mode::Fast => self.w.cwnd.min(SCALABLE_AI_CNT),
                Mode::Slow { .. } => self.w.cwnd,
            };
            cong_avoid_ai(&mut self.w, wnd_cnt, acked);
        }
        if self.rtt.round_ended(conn) {
            if self.rtt.cnt_rtt > MIN_SAMPLES_PER_ROUND {
                self.end_of_round();
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
        self.rtt.on_cwnd_event(conn, event);
    }
    fn mode(&self) -> &'static str {
        match self.mode {
            Mode::Fast => "Fast",
            Mode::Slow { .. } => "Slow",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::super::vegas::tests::{round, round_conn, start};
    use super::*;

    /// YeAH in congestion avoidance at cwnd 200 with baseRTT 100 ms (100_001 us), learnt
    /// in round 1 (a Fast round: no queue). AI counter cleared.
    fn yeah_in_avoidance() -> Yeah {
        let mut y = Yeah::new(&Config::default(), Window { ssthresh: 100, ..Window::new(200) });
        start(&mut y);
        round(&mut y, 1, 100);
        assert_eq!((y.rtt.base_rtt_us, y.mode, y.window().cwnd), (100_001, Mode::Fast, 200));
        y.w.cwnd_cnt = 0;
        y
    }

    #[test]
    fn small_queue_and_delay_stay_fast_and_grow_like_scalable() {
        let mut y = yeah_in_avoidance();
        // RTT 105 ms: Q = 200 x 5_000 / 105_001 = 9.5 -> 9 <= 80, and
        // RTT - base = 5_000 <= base / 8 = 12_500: Fast.
        round(&mut y, 2, 105);
        assert_eq!((y.mode, y.last_queue), (Mode::Fast, 9));
        // Scalable: +1 segment per min(cwnd, 100) = 100 ACKs (Reno would need 200).
        y.w.cwnd_cnt = 0;
        let c = round_conn(3, 1, 105);
        for _ in 0..99 {
            y.cong_avoid(&c, &ack(1, 105));
        }
        assert_eq!(y.window().cwnd, 200);
        y.cong_avoid(&c, &ack(1, 105));
        assert_eq!(y.window().cwnd, 201);
    }

    #[test]
    fn queueing_delay_above_base_over_phy_switches_to_slow_without_decongesting() {
        let mut y = yeah_in_avoidance();
        // RTT 120 ms: Q = 200 x 20_000 / 120_001 = 33 <= 80, but RTT - base = 20_000 > 12_500: Slow.
        // No decongestion (Q <= alpha); reno_count 2 -> max(200 / 2, 2) = 100.
        round(&mut y, 2, 120);
        assert_eq!(y.mode, Mode::Slow { rtts: 1 });
        assert_eq!((y.window().cwnd, y.reno_count, y.last_queue), (200, 100, 33));
    }

    #[test]
    fn queue_above_alpha_triggers_precautionary_decongestion() {
        let mut y = yeah_in_avoidance();
        // RTT 200 ms: Q = 200 x 100_000 / 200_001 = 99 > 80 and cwnd 200 > reno_count 2:
        // reduction = min(99 / 1, 200 >> 1) = 99: cwnd = max(200 - 99, 2) = 101 = ssthresh.
        // reno_count (<= 2) = max(101 >> 1, 2) = 50.
        round(&mut y, 2, 200);
        assert_eq!(y.mode, Mode::Slow { rtts: 1 });
        assert_eq!((y.window().cwnd, y.window().ssthresh, y.reno_count), (101, 101, 50));
        // Loss now (Slow for 1 < rho RTTs): reduction = max(min(Q 99, 101 / 2 = 50), 101 >> 3 = 12) = 50:
        // ssthresh = 101 - 50 = 51; reno_count = max(50 >> 1, 2) = 25.
        assert_eq!(y.ssthresh(&conn(0, 200)), 51);
        assert_eq!(y.reno_count, 25);
    }

    #[test]
    fn a_large_queue_alone_switches_to_slow_and_a_drained_one_back_to_fast() {
        let mut y = yeah_in_avoidance();
        y.w.cwnd = 1000;
        // RTT 112 ms: RTT - base = 12_000 <= base / 8 = 12_500, but
        // Q = 1000 x 12_000 / 112_001 = 107.1 -> 107 > alpha 80: Slow, and decongest
        // by min(107, 1000 >> 1) = 107: cwnd 893.
        round(&mut y, 2, 112);
        assert_eq!((y.mode, y.window().cwnd), (Mode::Slow { rtts: 1 }, 893));
        // Queue gone (RTT = base): Q = 0, no delay: back to Fast.
        round(&mut y, 3, 100);
        assert_eq!(y.mode, Mode::Fast);
        assert_eq!(y.mode(), "Fast");
    }

    #[test]
    fn loss_in_fast_mode_removes_the_queue_but_at_least_an_eighth() {
        let mut y = yeah_in_avoidance();
        round(&mut y, 2, 105);
        // Q = 9: reduction = max(min(9, 100), 200 >> 3 = 25) = 25: ssthresh = 175.
        assert_eq!(y.ssthresh(&conn(0, 105)), 175);
    }

    #[test]
    fn after_rho_slow_rtts_loss_halves_like_reno() {
        let mut y = yeah_in_avoidance();
        // 16 Slow rounds at 120 ms (Q = 33, no decongestion; 48 ACKs grow Reno's counter only).
        for r in 2..18 {
            round(&mut y, r, 120);
        }
        assert_eq!((y.mode, y.window().cwnd), (Mode::Slow { rtts: 16 }, 200));
        // doing_reno_now 16 >= rho 16: reduction = max(200 / 2, 2) = 100.
        assert_eq!(y.ssthresh(&conn(0, 120)), 100);
    }

    #[test]
    fn zero_divisors_are_rejected() {
        assert_eq!(Config { gamma: 0, ..Config::default() }.validate().unwrap_err().field, "gamma");
        assert_eq!(Config { phy: 0, ..Config::default() }.validate().unwrap_err().field, "phy");
        assert_eq!(Config { delta: 32, ..Config::default() }.validate().unwrap_err().field, "delta");
    }
}
