//! CDG (CAIA Delay-Gradient): Linux net/ipv4/tcp_cdg.c; Hayes & Armitage, "Revisiting TCP congestion control using delay gradients", IFIP Networking 2011.
//!
//! Once per RTT, CDG takes the change of the round's minimum and maximum RTT
//! against the previous round (the delay gradients), sums them over a moving
//! window of 8 rounds, and backs off with probability 1 - exp(-grad/G) when
//! the gradient is positive: cwnd is cut to 0.7071 x cwnd (a CWR reduction).
//! Growth is Reno's. Two coexistence heuristics as Linux: a "shadow window"
//! that remembers the cwnd lost to delay backoffs so a loss does not cut
//! below it, and "ineffectual backoff" detection (after 5 backoffs that did
//! not shrink the RTT, stop backing off until one does). Slow start ends by
//! CDG's own HyStart variant (ACK train and delay increase).
//!
//! What differs from Linux:
//! - Backing off calls `tcp_enter_cwr` in Linux: ssthresh = 0.7071 cwnd, then
//!   PRR glides cwnd there over one RTT, and the end of CWR fires
//!   `CA_EVENT_COMPLETE_CWR`. A hook cannot put the sender into CWR, so CDG
//!   does it itself: cwnd = ssthresh at once, no growth until `snd_una`
//!   passes the `snd_nxt` of the backoff, then the COMPLETE_CWR handling. The
//!   same amount of data is sent in that RTT; it leaves as one burst, not
//!   spread out by PRR.
//! - The delayed-ACK filter applies when `tp->sacked_out == 0`; the connection
//!   view has no SACK count, so it applies while the CA state is Open (no
//!   SACKed holes implies Open, and the converse holds unless reordering).
//! - The backoff draw `get_random_u32()` comes from the flow's `RngStream`.

use super::common::reno_cong_avoid;
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, CwndEvent, Window};
use crate::sim::RngStream;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Linux `HYSTART_ACK_TRAIN` bit of `hystart_detect`.
const HYSTART_ACK_TRAIN: u32 = 1;
/// Linux `HYSTART_DELAY` bit of `hystart_detect`.
const HYSTART_DELAY: u32 = 2;
/// Linux tcp_cdg.c: ACKs closer than 3 ms form a train.
const ACK_TRAIN_SPACING_US: u64 = 3000;
/// Linux tcp_cdg.c: floor of the HyStart delay thresholds, µs.
const HYSTART_MIN_US: i32 = 125;
/// Linux tcp_cdg.c: RTT samples per round before the HyStart delay test.
const HYSTART_MIN_SAMPLES: u32 = 8;
/// Linux tcp_cdg.c: a gradient at or below -32 µs means the last backoff worked.
const EFFECTUAL_GRADIENT_US: i32 = -32;
/// Linux tcp_cdg.c: the delayed-ACK filter counts up to 5.
const DELACK_MAX: u32 = 5;
/// Linux tcp_cdg.c: the tolerance heuristic rounds gradients to units of 64 µs.
const TOLERANCE_UNIT_US: i32 = 64;
/// Linux: gains in 1/1024.
const BETA_SCALE: u32 = 10;
/// Linux `tcp_cdg_register`: the largest gradient window.
const MAX_WINDOW: u32 = 256;

/// CDG parameters: Linux module parameters of tcp_cdg.c.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Gradient moving-average window, rounds; a power of two <= 256. Default 8 (`window`).
    pub window: u32,
    /// Multiplicative decrease on a delay backoff, in 1/1024, <= 1024. Default 724 = 0.7071 (`backoff_beta`).
    pub backoff_beta: u32,
    /// Backoff probability scale, 1000 / (G x window) of the paper. Default 42 (`backoff_factor`).
    pub backoff_factor: u32,
    /// HyStart: 0 off, 1 ACK train, 2 delay, 3 both. Default 3 (`hystart_detect`).
    pub hystart_detect: u32,
    /// Ineffectual-backoff threshold, backoffs; 0 disables. Default 5 (`use_ineff`).
    pub use_ineff: u32,
    /// Shadow-window heuristic. Default true (`use_shadow`).
    pub use_shadow: bool,
    /// Non-congestion loss tolerance heuristic. Default false (`use_tolerance`).
    pub use_tolerance: bool,
}

impl Config {
    /// Linux `tcp_cdg_register`: -ERANGE / -EINVAL for these.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            self.window.is_power_of_two() && self.window <= MAX_WINDOW,
            "window",
            self.window,
            "a power of two in 1..=256",
        )?;
        ParamError::check(self.backoff_beta <= 1 << BETA_SCALE, "backoff_beta", self.backoff_beta, "0..=1024")
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            window: 8,
            backoff_beta: 724,
            backoff_factor: 42,
            hystart_detect: 3,
            use_ineff: 5,
            use_shadow: true,
            use_tolerance: false,
        }
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "cdg",
    family: super::Family::Delay,
    source: "Linux net/ipv4/tcp_cdg.c; Hayes & Armitage, IFIP Networking 2011",
    summary: "Reno growth; backs off (x0.7071) with probability 1-exp(-gradient) when RTT min/max gradients rise.",
    description:
        "Once per RTT CDG measures delay gradients, the change of the round's minimum and maximum RTT against \
        the previous round, averaged over a moving window of 8 rounds; when the gradient is positive it \
        backs off with probability 1 - exp(-gradient / G), cutting cwnd to 0.7071 of itself. Growth is \
        Reno's, and slow start ends by CDG's own HyStart (ACK train or delay increase). A shadow window \
        keeps a loss from cutting below half of what delay backoffs gave away, and after 5 backoffs that did \
        not lower the RTT it stops backing off until one does; otherwise a loss halves the window.",
    params: &[
        ("window", "gradient window, rounds, power of two <= 256; default 8"),
        ("backoff_beta", "delay-backoff factor, 1/1024 units; default 724 (0.7071)"),
        ("backoff_factor", "backoff probability scale; default 42"),
        ("hystart_detect", "0 off, 1 ACK train, 2 delay, 3 both; default 3"),
        ("use_ineff", "ineffectual backoffs before ignoring delay, 0 = off; default 5"),
        ("use_shadow", "shadow window against loss-based competition; default true"),
        ("use_tolerance", "tolerate non-congestion loss; default false"),
    ],
};

/// Linux `struct cdg_minmax`: a round's min and max RTT (µs), or gradients of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MinMax {
    min: i32,
    max: i32,
}

impl MinMax {
    /// Linux `v64 == 0`: no sample yet.
    fn is_empty(&self) -> bool {
        self.min == 0 && self.max == 0
    }
}

/// Linux `enum cdg_state`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Unknown,
    NonFull,
    Full,
    Backoff,
}

/// Linux `min_not_zero`.
fn min_not_zero(a: i32, b: i32) -> i32 {
    match (a, b) {
        (0, b) => b,
        (a, 0) => a,
        (a, b) => a.min(b),
    }
}

/// Linux `nexp_u32`: exp(-ux / 10^6) x U32_MAX, from a table of e^-(2^k x 256 µs).
fn nexp_u32(ux: u32) -> u32 {
    // exp(-x) * 65536 - 1 for x = 0, 0.000256, 0.000512, ... (doubling).
    const V: [u16; 17] = [
        65535, 65518, 65501, 65468, 65401, 65267, 65001, 64470, 63422, 61378, 57484, 50423, 38795, 22965, 8047, 987, 14,
    ];
    let mut msb = ux >> 8;
    // Cut off when ux >= 2^24 (the true result is <= 222 / U32_MAX).
    if msb > u16::MAX as u32 {
        return 0;
    }
    // The low eight bits linearly, then e^(a + b + ...) = e^a e^b ...
    let mut res = u32::MAX - (ux & 0xff) * (u32::MAX / 1_000_000);
    let mut i = 1;
    while msb != 0 {
        let y = if msb & 1 == 1 { V[i] as u64 + 1 } else { V[0] as u64 + 1 };
        res = ((res as u64 * y) >> 16) as u32;
        i += 1;
        msb >>= 1;
    }
    res
}

pub struct Cdg {
    cfg: Config,
    w: Window,
    rng: RngStream,
    started: bool,
    /// This round's RTT min and max, µs.
    rtt: MinMax,
    rtt_prev: MinMax,
    /// The last `window` gradients, and their sum.
    gradients: Vec<MinMax>,
    gsum: MinMax,
    gfilled: bool,
    tail: usize,
    state: State,
    /// Delayed-ACK filter counter.
    delack: u32,
    /// The round ends when the cumulative ACK passes this (`rtt_seq`).
    rtt_seq: u64,
    shadow_wnd: u32,
    backoff_cnt: u32,
    /// RTT samples this round (HyStart).
    sample_cnt: u32,
    /// Smallest RTT seen, µs (HyStart).
    delay_min: i32,
    /// HyStart ACK train: last ACK and train start, µs; `None` = Linux's 0.
    last_ack_us: Option<u64>,
    round_start_us: u64,
    /// The emulated CWR reduction lasts until `snd_una` reaches this (see header).
    cwr_until: Option<u64>,
}

impl Cdg {
    pub fn new(cfg: &Config, w: Window, rng: RngStream) -> Self {
        Cdg {
            cfg: cfg.clone(),
            shadow_wnd: w.cwnd,
            w,
            rng,
            started: false,
            rtt: MinMax::default(),
            rtt_prev: MinMax::default(),
            gradients: vec![MinMax::default(); cfg.window as usize],
            gsum: MinMax::default(),
            gfilled: false,
            tail: 0,
            state: State::Unknown,
            delack: 0,
            rtt_seq: 0,
            backoff_cnt: 0,
            sample_cnt: 0,
            delay_min: 0,
            last_ack_us: None,
            round_start_us: 0,
            cwr_until: None,
        }
    }

    /// Linux `tcp_cdg_init`, on the first hook that sees the connection.
    fn start(&mut self, conn: &ConnView) {
        if !self.started {
            self.started = true;
            self.rtt_seq = conn.snd_nxt;
            self.shadow_wnd = self.w.cwnd;
        }
    }

    /// Linux `CA_EVENT_CWND_RESTART`: forget all delay state (Linux zeroes `struct cdg`).
    fn restart(&mut self, conn: &ConnView) {
        self.rtt = MinMax::default();
        self.rtt_prev = MinMax::default();
        self.gradients.iter_mut().for_each(|g| *g = MinMax::default());
        self.gsum = MinMax::default();
        self.gfilled = false;
        self.tail = 0;
        self.state = State::Unknown;
        self.delack = 0;
        self.backoff_cnt = 0;
        self.sample_cnt = 0;
        self.delay_min = 0;
        self.last_ack_us = None;
        self.round_start_us = 0;
        self.cwr_until = None;
        self.rtt_seq = conn.snd_nxt;
        self.shadow_wnd = self.w.cwnd;
    }

    /// Linux `tcp_cdg_hystart_update`: end slow start on an ACK train or a delay increase.
    fn hystart_update(&mut self, conn: &ConnView) {
        self.delay_min = min_not_zero(self.delay_min, self.rtt.min);
        if self.delay_min == 0 {
            return;
        }
        if self.cfg.hystart_detect & HYSTART_ACK_TRAIN != 0 {
            let now_us = conn.now.as_ns() / 1_000;
            match self.last_ack_us {
                Some(last) if conn.is_cwnd_limited => {
                    // ACKs closer than 3 ms: the train has lasted longer than half the min RTT?
                    if now_us < last + ACK_TRAIN_SPACING_US {
                        let base_owd = (self.delay_min / 2).max(HYSTART_MIN_US) as u64;
                        self.last_ack_us = Some(now_us);
                        if now_us > self.round_start_us + base_owd {
                            self.w.ssthresh = self.w.cwnd;
                            return;
                        }
                    }
                }
                _ => {
                    self.last_ack_us = Some(now_us);
                    self.round_start_us = now_us;
                }
            }
        }
        if self.cfg.hystart_detect & HYSTART_DELAY != 0 {
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let thresh = (self.delay_min + self.delay_min / 8).max(HYSTART_MIN_US);
                if self.rtt.min > thresh {
                    self.w.ssthresh = self.w.cwnd;
                }
            }
        }
    }

    /// Linux `tcp_cdg_grad`: the windowed sum of min/max RTT gradients (µs), extrapolated until the window fills.
    fn grad(&mut self) -> i32 {
        let window = self.cfg.window as i32;
        let mut gmin = self.rtt.min - self.rtt_prev.min;
        let mut gmax = self.rtt.max - self.rtt_prev.max;
        let old = self.gradients[self.tail];
        self.gsum.min += gmin - old.min;
        self.gsum.max += gmax - old.max;
        self.gradients[self.tail] = MinMax { min: gmin, max: gmax };
        self.tail = (self.tail + 1) & (self.cfg.window as usize - 1);
        gmin = self.gsum.min;
        gmax = self.gsum.max;
        // The paper's smoothed gradient is (latest - oldest) / window; Linux drops the division.
        let mut grad = if gmin > 0 { gmin } else { gmax };
        if !self.gfilled {
            if self.tail == 0 {
                self.gfilled = true;
            } else {
                grad = grad * window / self.tail as i32;
            }
        }
        if gmin <= EFFECTUAL_GRADIENT_US || gmax <= EFFECTUAL_GRADIENT_US {
            self.backoff_cnt = 0;
        }
        if self.cfg.use_tolerance {
            let gmin = div_round_closest(gmin, TOLERANCE_UNIT_US);
            let gmax = div_round_closest(gmax, TOLERANCE_UNIT_US);
            if gmin > 0 && gmax <= 0 {
                self.state = State::Full;
            } else if (gmin > 0 && gmax > 0) || gmax < 0 {
                self.state = State::NonFull;
            }
        }
        grad
    }

    /// Linux `tcp_cdg_backoff`: back off with probability 1 - exp(-grad x factor / 10^6).
    fn backoff(&mut self, conn: &ConnView, grad: u32) -> bool {
        if self.rng.inner().random::<u32>() <= nexp_u32(grad.wrapping_mul(self.cfg.backoff_factor)) {
            return false;
        }
        if self.cfg.use_ineff > 0 {
            self.backoff_cnt += 1;
            if self.backoff_cnt > self.cfg.use_ineff {
                return false;
            }
        }
        self.shadow_wnd = self.shadow_wnd.max(self.w.cwnd);
        self.state = State::Backoff;
        self.enter_cwr(conn);
        true
    }

    /// Linux `tcp_enter_cwr`, emulated (see header): ssthresh from `ssthresh()`, cwnd cut to it.
    fn enter_cwr(&mut self, conn: &ConnView) {
        let ssthresh = self.ssthresh_value();
        self.w.ssthresh = ssthresh;
        self.w.set_cwnd(ssthresh);
        self.cwr_until = Some(conn.snd_nxt);
    }

    /// Linux `CA_EVENT_COMPLETE_CWR`: start a fresh round.
    fn complete_cwr(&mut self, conn: &ConnView) {
        self.cwr_until = None;
        self.state = State::Unknown;
        self.rtt_seq = conn.snd_nxt;
        self.rtt_prev = self.rtt;
        self.rtt = MinMax::default();
    }

    /// Linux `tcp_cdg_ssthresh`.
    fn ssthresh_value(&mut self) -> u32 {
        let cwnd = self.w.cwnd;
        if self.state == State::Backoff {
            return (((cwnd as u64 * self.cfg.backoff_beta as u64) >> BETA_SCALE) as u32).max(2);
        }
        if self.state == State::NonFull && self.cfg.use_tolerance {
            return cwnd;
        }
        self.shadow_wnd = (self.shadow_wnd >> 1).min(cwnd);
        if self.cfg.use_shadow {
            self.shadow_wnd.max(cwnd >> 1).max(2)
        } else {
            (cwnd >> 1).max(2)
        }
    }
}

/// Linux `DIV_ROUND_CLOSEST` for signed values.
fn div_round_closest(x: i32, d: i32) -> i32 {
    if x >= 0 {
        (x + d / 2) / d
    } else {
        (x - d / 2) / d
    }
}

impl CongestionControl for Cdg {
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
        self.start(conn);
        // Linux does not recompute ssthresh for a loss inside a CWR reduction.
        if self.cwr_until.take().is_some() {
            return self.w.ssthresh;
        }
        self.ssthresh_value()
    }

    /// Linux `tcp_cdg_cong_avoid` (never called in CWR or Recovery).
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        self.start(conn);
        if let Some(until) = self.cwr_until {
            if conn.snd_una < until {
                return;
            }
            self.complete_cwr(conn);
        }
        if self.w.in_slow_start() && self.cfg.hystart_detect != 0 {
            self.hystart_update(conn);
        }
        // A round ended: compute the gradient and maybe back off.
        if conn.snd_una > self.rtt_seq && !self.rtt.is_empty() {
            let grad = if self.rtt_prev.is_empty() { 0 } else { self.grad() };
            self.rtt_seq = conn.snd_nxt;
            self.rtt_prev = self.rtt;
            self.rtt = MinMax::default();
            self.last_ack_us = None;
            self.sample_cnt = 0;
            if grad > 0 && self.backoff(conn, grad as u32) {
                return;
            }
        }
        if !conn.is_cwnd_limited {
            self.shadow_wnd = self.shadow_wnd.min(self.w.cwnd);
            return;
        }
        let prior = self.w.cwnd;
        reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
        self.shadow_wnd = self.shadow_wnd.saturating_add(self.w.cwnd.saturating_sub(prior));
    }

    /// Linux `tcp_cdg_acked`: the round's RTT min/max, with Hayes' delayed-ACK filter.
    fn pkts_acked(&mut self, conn: &ConnView, ack: &AckSample) {
        self.start(conn);
        let Some(rtt) = ack.rtt.map(|r| r.as_us().min(i32::MAX as u64) as i32).filter(|r| *r > 0) else {
            return;
        };
        if conn.ca_state == CaState::Open {
            if ack.acked_segs == 1 && self.delack > 0 {
                // A delayed ACK only counts for the minimum if it is provably lower.
                self.rtt.min = self.rtt.min.min(rtt);
                self.delack -= 1;
                return;
            } else if ack.acked_segs > 1 && self.delack < DELACK_MAX {
                self.delack += 1;
            }
        }
        self.rtt.min = min_not_zero(self.rtt.min, rtt);
        self.rtt.max = self.rtt.max.max(rtt);
    }

    /// Linux `tcp_cdg_cwnd_event`: restart after idle forgets everything.
    fn cwnd_event(&mut self, conn: &ConnView, event: CwndEvent) {
        self.start(conn);
        match event {
            CwndEvent::CwndRestart => self.restart(conn),
            CwndEvent::CompleteCwr => self.complete_cwr(conn),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn, MSS};
    use super::*;

    fn cdg(seed: u64) -> (Cdg, ConnView) {
        let mut c = conn(0, 40);
        c.snd_nxt = 100 * MSS as u64;
        let mut cdg =
            Cdg::new(&Config::default(), Window { ssthresh: 10, ..Window::new(100) }, RngStream::new(seed, "t"));
        cdg.start(&c);
        (cdg, c)
    }

    /// One round with RTT samples `min_ms`..=`max_ms`, ended by an ACK past `rtt_seq`.
    fn round(cdg: &mut Cdg, c: &mut ConnView, min_ms: u64, max_ms: u64) {
        c.now += crate::sim::SimDuration::from_ms(max_ms);
        cdg.pkts_acked(c, &ack(2, min_ms));
        cdg.pkts_acked(c, &ack(2, max_ms));
        c.snd_una = c.snd_nxt + 1;
        c.snd_nxt += 100 * MSS as u64;
        cdg.cong_avoid(c, &ack(2, max_ms));
    }

    #[test]
    fn nexp_matches_exp() {
        assert_eq!(nexp_u32(0), u32::MAX);
        for ux in [1_000u32, 100_000, 1_000_000, 3_000_000] {
            let exact = (-(ux as f64) / 1e6).exp() * u32::MAX as f64;
            let rel = (nexp_u32(ux) as f64 - exact).abs() / exact;
            assert!(rel < 2e-3, "nexp({ux}) off by {rel}");
        }
        assert_eq!(nexp_u32(1 << 24), 0);
    }

    #[test]
    fn gradient_sums_the_window_and_extrapolates_until_full() {
        let (mut cdg, mut c) = cdg(1);
        cdg.cfg.backoff_factor = 0; // never back off: isolate the gradient
        round(&mut cdg, &mut c, 40, 50);
        // Rounds with min and max 1 ms higher each: gmin = 1000 µs per round.
        for k in 1..=3u64 {
            round(&mut cdg, &mut c, 40 + k, 50 + k);
            // k gradients of 1000 summed, extrapolated to the window of 8: 1000 k x 8 / k.
            assert_eq!(cdg.gsum.min, 1000 * k as i32);
        }
        let g = {
            cdg.rtt = MinMax { min: 44_000, max: 54_000 };
            cdg.grad()
        };
        assert_eq!(g, 4000 * 8 / 4);
    }

    #[test]
    fn backoff_probability_is_one_minus_exp_of_the_gradient() {
        let (mut cdg, c) = cdg(9);
        cdg.cfg.use_ineff = 0;
        // grad 10000 µs x factor 42 = 420000: P = 1 - e^-0.42 = 0.343.
        let trials = 4000;
        let mut backoffs = 0;
        for _ in 0..trials {
            cdg.w.cwnd = 100;
            cdg.state = State::Unknown;
            if cdg.backoff(&c, 10_000) {
                backoffs += 1;
            }
        }
        let p = backoffs as f64 / trials as f64;
        assert!((p - 0.343).abs() < 0.025, "p = {p}");
    }

    #[test]
    fn a_backoff_cuts_to_0_7071_and_holds_for_a_round() {
        let (mut cdg, mut c) = cdg(2);
        cdg.cfg.use_ineff = 0;
        while !cdg.backoff(&c, 1_000_000) {}
        // 100 x 724 >> 10 = 70.
        assert_eq!((cdg.w.cwnd, cdg.w.ssthresh), (70, 70));
        assert_eq!(cdg.shadow_wnd, 100);
        // No growth until the data outstanding at the backoff is ACKed.
        c.snd_una = c.snd_nxt - 1;
        cdg.cong_avoid(&c, &ack(10, 40));
        assert_eq!(cdg.w.cwnd, 70);
        assert_eq!(cdg.state, State::Backoff);
        c.snd_una = c.snd_nxt;
        cdg.cong_avoid(&c, &ack(10, 40));
        assert_eq!(cdg.state, State::Unknown);
    }

    #[test]
    fn loss_keeps_the_shadow_window() {
        let (mut cdg, c) = cdg(3);
        cdg.shadow_wnd = 160;
        // shadow = min(160 >> 1, 100) = 80; ssthresh = max(2, 80, 100 >> 1) = 80.
        assert_eq!(cdg.ssthresh(&c), 80);
        cdg.cfg.use_shadow = false;
        assert_eq!(cdg.ssthresh(&c), 50);
    }

    #[test]
    fn ineffectual_backoffs_stop_after_five() {
        let (mut cdg, c) = cdg(4);
        let mut done = 0;
        for _ in 0..50 {
            cdg.w.cwnd = 100;
            if cdg.backoff(&c, 1_000_000) {
                done += 1;
            }
        }
        assert_eq!(done, 5);
    }

    #[test]
    fn hystart_delay_ends_slow_start() {
        let (mut cdg, mut c) = cdg(5);
        cdg.w.ssthresh = u32::MAX / 2;
        cdg.cfg.hystart_detect = HYSTART_DELAY;
        // Round min 40 ms sets delay_min; threshold max(40 + 40/8, 0.125) = 45 ms after 8 samples.
        cdg.pkts_acked(&c, &ack(2, 40));
        for _ in 0..9 {
            cdg.cong_avoid(&c, &ack(1, 40));
        }
        assert!(cdg.w.in_slow_start());
        cdg.rtt.min = 46_000;
        c.now += crate::sim::SimDuration::from_ms(1);
        cdg.cong_avoid(&c, &ack(1, 46));
        assert_eq!(cdg.w.ssthresh, cdg.w.cwnd, "ssthresh = cwnd: slow start over");
    }

    #[test]
    fn window_must_be_a_power_of_two() {
        let c = Config { window: 6, ..Config::default() };
        assert_eq!(c.validate().unwrap_err().field, "window");
        assert!(Config::default().validate().is_ok());
    }
}
