//! BBRv3: Linux net/ipv4/tcp_bbr.c of Google's BBR v3 branch (github.com/google/bbr, `BBR_VERSION 3`); draft-ietf-ccwg-bbr.
//!
//! BBRv3 keeps v1's model (max bandwidth, min RTT, pacing at gain x bw) and
//! adds bounds learned from loss:
//!
//! ```text
//!   bw      = min(max(bw_hi[0], bw_hi[1]), bw_lo)       bw_hi: max over the last 1-2 probe cycles
//!   cwnd   <= inflight_hi (long-term, cut when a probe loses > 2%), inflight_lo (short-term, x0.7 per lossy round)
//!   Startup (pacing 2.77, cwnd 2) -> Drain (0.35) -> ProbeBW, a wall-clock cycle:
//!     DOWN (0.91) -> CRUISE (1.0, 15% headroom below inflight_hi) -> [2-3 s or Reno-scale rounds]
//!     -> REFILL (1.0, one round, bounds reset) -> UP (1.25, inflight_hi grows exponentially) -> DOWN
//!   ProbeRTT every 5 s: cwnd = BDP/2 for 200 ms and a round
//! ```
//!
//! The ProbeBW phases are in probe_bw.rs, loss/delivery signals and the
//! lower bounds in signals.rs, Startup/Drain in startup.rs, the min-RTT
//! filters and ProbeRTT in probe_rtt.rs, pacing in pacing.rs and the cwnd
//! targets and caps in cwnd.rs. Fixed point as Linux (bw: packets/µs
//! << 24, gains: 1/256).
//!
//! What differs from Linux (v3 branch):
//! - ECN: Linux uses ECN only on routes marked as shallow-threshold ECN
//!   (`TCP_ECN_LOW`); no such routes exist here, so, as Linux by default, the
//!   ECN paths (ecn_alpha, ECN bounds, ECN Startup exit, PLB) are not active
//!   and not ported.
//! - `skb_marked_lost`: Linux re-checks the loss rate at each lost packet and
//!   places inflight_hi at the packet where it crossed 2%. The trait has no
//!   per-packet loss hook, so losses are noted on the ACK that marks them and
//!   "inflight too high" is judged on each ACK's rate sample (`rs.lost` over
//!   `rs.tx_in_flight`), Linux's other path; inflight_hi is then
//!   max(tx_in_flight, 0.7 x target) as in `bbr_handle_inflight_too_high`.
//! - No TLP in the simulated sender, so no loss-probe recovery events.
//! - As in the v1 port: ns clock, `delivered_mstamp` = `conn.now`, zero EDT
//!   interval, init on the first hook, randomness from the flow's `RngStream`,
//!   and ProbeRTT's app-limited marking done inside BBR.

mod cwnd;
mod pacing;
mod probe_bw;
mod probe_rtt;
mod signals;
mod startup;
#[cfg(test)]
mod tests;

use super::bbr::app_limited::AppLimitedSpan;
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, CwndEvent, RateSample, Window};
use crate::sim::time::NS_PER_US;
use crate::sim::{RngStream, SimTime};
use crate::tcp::tso::GsoLimits;
use probe_bw::Phase;
use serde::{Deserialize, Serialize};

/// Linux's fixed point, as in v1: bandwidth in packets/µs << 24, gains << 8.
pub use super::bbr::BBR_UNIT;
// bbr_sndbuf_expand: v3 keeps v1's.
use super::bbr::{BBR_SCALE, BBR_SNDBUF_EXPAND, BW_SCALE, BW_UNIT};
/// Linux: `init_cwnd` is a 7-bit field.
const INIT_CWND_MAX: u32 = 0x7f;
/// Linux: "infinite" bounds (`~0U`).
const UNBOUNDED: u32 = u32::MAX;

/// Linux `enum bbr_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// BBRv3 parameters: the `static const`s of the v3 tcp_bbr.c, in its units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Startup pacing gain, 1/256. Default 710 = 256 x 277/100 + 1, 4 ln 2 (`bbr_startup_pacing_gain`).
    pub startup_pacing_gain: u32,
    /// Startup cwnd gain, 1/256. Default 512 (`bbr_startup_cwnd_gain`).
    pub startup_cwnd_gain: u32,
    /// Drain pacing gain, 1/256. Default 88 = 256 x 1000/2885 (`bbr_drain_gain`).
    pub drain_gain: u32,
    /// ProbeBW cwnd gain, 1/256. Default 512 (`bbr_cwnd_gain`).
    pub cwnd_gain: u32,
    /// Extra cwnd gain in PROBE_UP, in quarters (0..=3). Default 1 = +0.25 (`bbr_bw_probe_cwnd_gain`).
    pub bw_probe_cwnd_gain: u32,
    /// Loss rate above which a probe went too far, 1/256. Default 5 = 2% (`bbr_loss_thresh`).
    pub loss_thresh: u32,
    /// Multiplicative cut of the lower bounds per lossy round, 1/256. Default 76 = 30% (`bbr_beta`).
    pub beta: u32,
    /// Headroom left below inflight_hi when cruising, 1/256. Default 38 = 15% (`bbr_inflight_headroom`).
    pub inflight_headroom: u32,
    /// Loss events in a Startup recovery round that end Startup. Default 6 (`bbr_full_loss_cnt`).
    pub full_loss_cnt: u32,
    /// Max rounds between bandwidth probes (Reno coexistence). Default 63 (`bbr_bw_probe_max_rounds`).
    pub bw_probe_max_rounds: u32,
    /// Random extra rounds drawn below this. Default 2 (`bbr_bw_probe_rand_rounds`).
    pub bw_probe_rand_rounds: u32,
    /// Wall-clock wait before a bandwidth probe, µs. Default 2 000 000 (`bbr_bw_probe_base_us`).
    pub bw_probe_base_us: u32,
    /// Random extra wait drawn below this, µs. Default 1 000 000 (`bbr_bw_probe_rand_us`).
    pub bw_probe_rand_us: u32,
    /// Min-RTT filter window, s. Default 10 (`bbr_min_rtt_win_sec`).
    pub min_rtt_win_sec: u32,
    /// ProbeRTT interval (window of probe_rtt_min_us), ms. Default 5000 (`bbr_probe_rtt_win_ms`).
    pub probe_rtt_win_ms: u32,
    /// Time at the ProbeRTT cwnd, ms; 0 disables ProbeRTT. Default 200 (`bbr_probe_rtt_mode_ms`).
    pub probe_rtt_mode_ms: u32,
    /// ProbeRTT cwnd as a fraction of the BDP, 1/256. Default 128 = 0.5 (`bbr_probe_rtt_cwnd_gain`).
    pub probe_rtt_cwnd_gain: u32,
    /// Minimum cwnd, segments. Default 4 (`bbr_cwnd_min_target`).
    pub cwnd_min_target_segs: u32,
    /// Startup growth that counts as growing, 1/256. Default 320 = 1.25 (`bbr_full_bw_thresh`).
    pub full_bw_thresh: u32,
    /// Rounds without that growth before the pipe counts as full. Default 3 (`bbr_full_bw_cnt`).
    pub full_bw_cnt: u32,
    /// ACK-aggregation cwnd gain, 1/256; 0 = off. Default 256 (`bbr_extra_acked_gain`).
    pub extra_acked_gain: u32,
    /// Skip model updates on app-limited ACKs that change nothing. Default true (`bbr_fast_path`).
    pub fast_path: bool,
}

impl Config {
    /// Fractions of one that are subtracted from one, and the PROBE_UP gain's range.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            self.startup_pacing_gain >= 1,
            "startup_pacing_gain",
            self.startup_pacing_gain,
            "an integer >= 1",
        )?;
        ParamError::check(self.drain_gain >= 1, "drain_gain", self.drain_gain, "an integer >= 1")?;
        ParamError::check(
            self.bw_probe_rand_rounds >= 1,
            "bw_probe_rand_rounds",
            self.bw_probe_rand_rounds,
            "an integer >= 1",
        )?;
        ParamError::check(self.bw_probe_rand_us >= 1, "bw_probe_rand_us", self.bw_probe_rand_us, "an integer >= 1")?;
        ParamError::check(
            self.cwnd_min_target_segs >= 1,
            "cwnd_min_target_segs",
            self.cwnd_min_target_segs,
            "an integer >= 1",
        )?;
        ParamError::check(self.full_bw_cnt >= 1, "full_bw_cnt", self.full_bw_cnt, "an integer >= 1")?;
        ParamError::check(self.beta <= BBR_UNIT, "beta", self.beta, "0..=256 (1/256ths)")?;
        ParamError::check(self.loss_thresh <= BBR_UNIT, "loss_thresh", self.loss_thresh, "0..=256 (1/256ths)")?;
        ParamError::check(
            self.inflight_headroom <= BBR_UNIT,
            "inflight_headroom",
            self.inflight_headroom,
            "0..=256 (1/256ths)",
        )?;
        ParamError::check(self.bw_probe_cwnd_gain <= 3, "bw_probe_cwnd_gain", self.bw_probe_cwnd_gain, "0..=3 quarters")
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            startup_pacing_gain: BBR_UNIT * 277 / 100 + 1,
            startup_cwnd_gain: BBR_UNIT * 2,
            drain_gain: BBR_UNIT * 1000 / 2885,
            cwnd_gain: BBR_UNIT * 2,
            bw_probe_cwnd_gain: 1,
            loss_thresh: BBR_UNIT * 2 / 100,
            beta: BBR_UNIT * 30 / 100,
            inflight_headroom: BBR_UNIT * 15 / 100,
            full_loss_cnt: 6,
            bw_probe_max_rounds: 63,
            bw_probe_rand_rounds: 2,
            bw_probe_base_us: 2_000_000,
            bw_probe_rand_us: 1_000_000,
            min_rtt_win_sec: 10,
            probe_rtt_win_ms: 5000,
            probe_rtt_mode_ms: 200,
            probe_rtt_cwnd_gain: BBR_UNIT / 2,
            cwnd_min_target_segs: 4,
            full_bw_thresh: BBR_UNIT * 5 / 4,
            full_bw_cnt: 3,
            extra_acked_gain: BBR_UNIT,
            fast_path: true,
        }
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "bbr3",
    family: super::Family::Model,
    source: "Linux net/ipv4/tcp_bbr.c, Google BBR v3 branch; draft-ietf-ccwg-bbr",
    summary:
        "BBRv3: v1's model bounded by loss (inflight_hi/lo, bw_lo); ProbeBW DOWN/CRUISE/REFILL/UP on a 2-3 s clock.",
    description: "BBRv3 keeps v1's model (maximum bandwidth, minimum RTT, pacing at gain x bandwidth) and bounds it \
        with what losses show: inflight_hi, a long-term cap set when a bandwidth probe loses more than 2% of \
        its packets, and short-term bounds bw_lo and inflight_lo, cut by 30% per lossy round. ProbeBW runs \
        on a wall-clock cycle: DOWN (pacing 0.91), CRUISE with 15% headroom below inflight_hi for 2-3 s, \
        REFILL for one round, then UP (1.25, with inflight_hi growing exponentially). Startup paces at 2.77 \
        and also ends on persistent loss; ProbeRTT every 5 s holds cwnd at BDP/2 for 200 ms. ECN signals are \
        not ported.",
    params: &[
        ("startup_pacing_gain", "Startup pacing gain, 1/256 units; default 710 (2.77)"),
        ("startup_cwnd_gain", "Startup cwnd gain, 1/256 units; default 512"),
        ("drain_gain", "Drain pacing gain, 1/256 units; default 88"),
        ("cwnd_gain", "ProbeBW cwnd gain, 1/256 units; default 512"),
        ("bw_probe_cwnd_gain", "extra PROBE_UP cwnd gain, quarters; default 1"),
        ("loss_thresh", "probe loss-rate limit, 1/256 units; default 5 (2%)"),
        ("beta", "lower-bound cut per lossy round, 1/256 units; default 76 (30%)"),
        ("inflight_headroom", "cruise headroom below inflight_hi, 1/256 units; default 38 (15%)"),
        ("full_loss_cnt", "Startup loss events per round that end Startup; default 6"),
        ("bw_probe_max_rounds", "max rounds between probes; default 63"),
        ("bw_probe_rand_rounds", "random extra rounds bound; default 2"),
        ("bw_probe_base_us", "wall-clock wait before probing, us; default 2000000"),
        ("bw_probe_rand_us", "random extra wait bound, us; default 1000000"),
        ("min_rtt_win_sec", "min-RTT window, s; default 10"),
        ("probe_rtt_win_ms", "ProbeRTT interval, ms; default 5000"),
        ("probe_rtt_mode_ms", "ProbeRTT duration, ms, 0 = never; default 200"),
        ("probe_rtt_cwnd_gain", "ProbeRTT cwnd / BDP, 1/256 units; default 128"),
        ("cwnd_min_target_segs", "minimum cwnd, segments; default 4"),
        ("full_bw_thresh", "Startup growth threshold, 1/256 units; default 320"),
        ("full_bw_cnt", "flat rounds until full; default 3"),
        ("extra_acked_gain", "ACK-aggregation cwnd gain, 1/256 units; default 256"),
        ("fast_path", "skip no-op app-limited updates; default true"),
    ],
};

/// Linux `struct bbr` (v3) without the ECN/PLB fields, grouped by concern.
pub struct Bbr3 {
    cfg: Config,
    w: Window,
    rng: RngStream,
    started: bool,
    mss_bytes: u32,
    /// `tp->delivered_mstamp`, taken as the time of the latest hook call.
    now: SimTime,
    /// `tp->delivered` at the latest hook call.
    delivered_now: u64,
    mode: Mode,
    phase: Phase,
    /// Rounds.
    next_rtt_delivered: u64,
    round_start: bool,
    rounds_since_probe: u32,
    /// Min RTT (µs, `u32::MAX` = none) and the 5 s ProbeRTT filter.
    min_rtt_us: u32,
    min_rtt_stamp: SimTime,
    probe_rtt_min_us: u32,
    probe_rtt_min_stamp: SimTime,
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_round_done: bool,
    app_limited_span: AppLimitedSpan,
    idle_restart: bool,
    /// Gains in force.
    pacing_gain: u32,
    cwnd_gain: u32,
    /// Max bandwidth of the previous and current probe cycle.
    bw_hi: [u32; 2],
    /// Short-term bounds (`UNBOUNDED` = none).
    bw_lo: u32,
    inflight_lo: u32,
    /// Long-term inflight bound (`UNBOUNDED` = none).
    inflight_hi: u32,
    /// Latest round's delivery rate and volume.
    bw_latest: u32,
    inflight_latest: u32,
    /// Loss rounds.
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_in_cycle: bool,
    loss_events_in_round: u32,
    /// Full-pipe detection.
    full_bw_reached: bool,
    full_bw_now: bool,
    full_bw: u32,
    full_bw_cnt: u32,
    /// Probing state.
    cycle_stamp: SimTime,
    ack_phase: probe_bw::AckPhase,
    bw_probe_up_rounds: u32,
    bw_probe_up_cnt: u32,
    bw_probe_up_acks: u32,
    probe_wait_us: u32,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    try_fast_path: bool,
    /// Recovery.
    prev_ca_state: CaState,
    prior_cwnd: u32,
    init_cwnd: u32,
    undo_bw_lo: u32,
    undo_inflight_lo: u32,
    undo_inflight_hi: u32,
    /// ACK aggregation (as v1).
    ack_epoch_stamp: SimTime,
    ack_epoch_acked: u32,
    extra_acked: [u32; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    has_seen_rtt: bool,
    pacing_rate_bytes_ps: u64,
}

/// Linux `struct bbr_context`: the bandwidth sample of this ACK.
#[derive(Clone, Copy, Debug, Default)]
struct Ctx {
    sample_bw: u32,
}

impl Bbr3 {
    /// A BBRv3 sender with initial window `w`; `rng` draws the probe waits.
    pub fn new(cfg: &Config, w: Window, rng: RngStream) -> Self {
        Bbr3 {
            cfg: cfg.clone(),
            w,
            rng,
            started: false,
            mss_bytes: 0,
            now: SimTime::ZERO,
            delivered_now: 0,
            mode: Mode::Startup,
            phase: Phase::Up,
            next_rtt_delivered: 0,
            round_start: false,
            rounds_since_probe: 0,
            min_rtt_us: UNBOUNDED,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_min_us: UNBOUNDED,
            probe_rtt_min_stamp: SimTime::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            app_limited_span: AppLimitedSpan::default(),
            idle_restart: false,
            pacing_gain: cfg.startup_pacing_gain,
            cwnd_gain: cfg.startup_cwnd_gain,
            bw_hi: [0; 2],
            bw_lo: UNBOUNDED,
            inflight_lo: UNBOUNDED,
            inflight_hi: UNBOUNDED,
            bw_latest: 0,
            inflight_latest: 0,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_in_cycle: false,
            loss_events_in_round: 0,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: 0,
            full_bw_cnt: 0,
            cycle_stamp: SimTime::ZERO,
            ack_phase: probe_bw::AckPhase::Init,
            bw_probe_up_rounds: 0,
            bw_probe_up_cnt: UNBOUNDED,
            bw_probe_up_acks: 0,
            probe_wait_us: 0,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            try_fast_path: false,
            prev_ca_state: CaState::Open,
            prior_cwnd: 0,
            init_cwnd: w.cwnd.min(INIT_CWND_MAX),
            undo_bw_lo: 0,
            undo_inflight_lo: 0,
            undo_inflight_hi: 0,
            ack_epoch_stamp: SimTime::ZERO,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            has_seen_rtt: false,
            pacing_rate_bytes_ps: 0,
        }
    }

    pub fn current_mode(&self) -> Mode {
        self.mode
    }

    /// Linux `bbr_init`, on the first hook that sees the connection.
    fn start(&mut self, conn: &ConnView) {
        self.mss_bytes = conn.mss_bytes;
        self.now = conn.now;
        self.delivered_now = conn.delivered;
        if self.started {
            return;
        }
        self.started = true;
        self.init_cwnd = self.w.cwnd.min(INIT_CWND_MAX);
        self.w.ssthresh = super::INFINITE_SSTHRESH;
        self.next_rtt_delivered = conn.delivered;
        let min_rtt = conn.min_rtt.map_or(UNBOUNDED, |d| d.as_us().min(UNBOUNDED as u64) as u32);
        (self.probe_rtt_min_us, self.probe_rtt_min_stamp) = (min_rtt, conn.now);
        (self.min_rtt_us, self.min_rtt_stamp) = (min_rtt, conn.now);
        self.init_pacing_rate_from_rtt(conn);
        self.ack_epoch_stamp = conn.now;
        // Start sampling loss rounds after the first flight is ACKed.
        self.loss_round_delivered = conn.delivered + 1;
    }

    /// Linux `bbr_max_bw`: max of the two probe-cycle windows.
    fn max_bw(&self) -> u32 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// Linux `bbr_bw`: the max bandwidth, bounded by the short-term lower bound.
    fn bw(&self) -> u32 {
        self.max_bw().min(self.bw_lo)
    }

    /// Linux `bbr_save_cwnd`.
    fn save_cwnd(&mut self) {
        if !matches!(self.prev_ca_state, CaState::Recovery | CaState::Loss) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.w.cwnd);
        }
    }

    /// Linux `bbr_update_round_start`.
    fn update_round_start(&mut self, conn: &ConnView, rs: &RateSample) {
        self.round_start = false;
        if rs.interval.as_ns() / NS_PER_US > 0 && rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = conn.delivered;
            self.round_start = true;
        }
    }

    /// Linux `bbr_calculate_bw_sample`: delivered / interval, rounded up.
    fn bw_sample(rs: &RateSample) -> u32 {
        let interval_us = rs.interval.as_ns() / NS_PER_US;
        if interval_us == 0 {
            return 0;
        }
        (rs.delivered as u64 * BW_UNIT).div_ceil(interval_us).min(u32::MAX as u64) as u32
    }

    /// Linux `bbr_update_gains` (v3).
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.cfg.startup_pacing_gain, self.cfg.startup_cwnd_gain),
            Mode::Drain => (self.cfg.drain_gain, self.cfg.startup_cwnd_gain),
            Mode::ProbeBw => {
                let mut cwnd_gain = self.cfg.cwnd_gain;
                if self.phase == Phase::Up {
                    cwnd_gain += BBR_UNIT * self.cfg.bw_probe_cwnd_gain / 4;
                }
                (self.phase.pacing_gain(), cwnd_gain)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// Linux `bbr_update_model` (v3).
    fn update_model(&mut self, conn: &ConnView, rs: &RateSample, ctx: &Ctx) {
        self.update_congestion_signals(rs, ctx);
        self.update_ack_aggregation(conn, rs);
        self.check_loss_too_high_in_startup(conn, rs);
        self.check_full_bw_reached(rs, ctx);
        self.check_drain(conn);
        self.update_cycle_phase(conn, rs, ctx);
        self.update_min_rtt(conn, rs);
    }

    /// Linux `bbr_run_fast_path`: on app-limited ACKs with nothing new, skip the model.
    /// Returns (skip everything, update the model).
    fn run_fast_path(&mut self, conn: &ConnView, rs: &RateSample, ctx: &Ctx) -> (bool, bool) {
        if !(self.cfg.fast_path
            && self.try_fast_path
            && rs.is_app_limited
            && ctx.sample_bw < self.max_bw()
            && !self.loss_in_round)
        {
            return (false, true);
        }
        let (prev_mode, prev_min_rtt) = (self.mode, self.min_rtt_us);
        self.check_drain(conn);
        self.update_cycle_phase(conn, rs, ctx);
        self.update_min_rtt(conn, rs);
        if self.mode == prev_mode && self.min_rtt_us == prev_min_rtt && self.try_fast_path {
            return (true, false);
        }
        (false, false)
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Linux `bbr_ssthresh` (v3): save cwnd and the loss-adapted bounds for undo.
    fn ssthresh(&mut self, conn: &ConnView) -> u32 {
        self.start(conn);
        self.save_cwnd();
        (self.undo_bw_lo, self.undo_inflight_lo, self.undo_inflight_hi) =
            (self.bw_lo, self.inflight_lo, self.inflight_hi);
        self.w.ssthresh
    }

    fn cong_avoid(&mut self, _conn: &ConnView, _ack: &AckSample) {}

    /// Linux `bbr_set_state` (v3).
    fn set_state(&mut self, conn: &ConnView, new_state: CaState) {
        self.start(conn);
        if new_state == CaState::Loss {
            // Linux marks every outstanding packet lost (`skb_marked_lost` -> `bbr_note_loss`).
            self.note_loss(conn);
            self.prev_ca_state = CaState::Loss;
            self.reset_full_bw();
            if !self.is_probing_bandwidth() && self.inflight_lo == UNBOUNDED {
                self.inflight_lo = self.w.cwnd.max(self.prior_cwnd);
            }
        } else if self.prev_ca_state == CaState::Loss {
            // Linux `bbr_exit_loss_recovery`.
            self.w.set_cwnd(self.w.cwnd.max(self.prior_cwnd));
            self.try_fast_path = false;
        }
    }

    /// Linux `bbr_cwnd_event` (CA_EVENT_TX_START).
    fn cwnd_event(&mut self, conn: &ConnView, event: CwndEvent) {
        self.start(conn);
        if event != CwndEvent::TxStart || !conn.app_limited {
            return;
        }
        self.idle_restart = true;
        self.ack_epoch_stamp = conn.now;
        self.ack_epoch_acked = 0;
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(conn, self.bw(), BBR_UNIT),
            Mode::ProbeRtt => self.check_probe_rtt_done(conn),
            Mode::Startup | Mode::Drain => {}
        }
    }

    /// Linux `bbr_undo_cwnd` (v3): restore the bounds saved at `ssthresh`; cwnd = prior cwnd.
    fn undo_cwnd(&mut self, conn: &ConnView, _prior_cwnd: u32) -> u32 {
        self.start(conn);
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
        self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
        self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
        self.try_fast_path = false;
        self.prior_cwnd
    }

    /// Linux `bbr_main` (v3).
    fn cong_control(&mut self, conn: &ConnView, ack: &AckSample) -> bool {
        self.start(conn);
        let mut rs = ack.rate;
        if rs.rtt.is_none() {
            rs.rtt = ack.rtt;
        }
        rs.is_app_limited |= self.marks_app_limited(&rs);
        // Linux notes each packet marked lost (`bbr_skb_marked_lost`) before `cong_control`.
        if rs.losses > 0 {
            self.note_loss(conn);
        }
        self.update_round_start(conn, &rs);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(u8::MAX as u32);
        }
        let ctx = Ctx { sample_bw: Self::bw_sample(&rs) };
        self.update_latest_delivery_signals(conn, &rs, &ctx);
        let (skip_all, update_model) = self.run_fast_path(conn, &rs, &ctx);
        if !skip_all {
            if update_model {
                self.update_model(conn, &rs, &ctx);
            }
            self.update_gains();
            let bw = self.bw();
            self.set_pacing_rate(conn, bw, self.pacing_gain);
            self.set_cwnd(rs.acked_sacked, bw, self.cwnd_gain);
            self.bound_cwnd_for_inflight_model();
        }
        self.advance_latest_delivery_signals(&rs, &ctx);
        self.prev_ca_state = conn.ca_state;
        self.loss_in_cycle |= rs.lost > 0;
        true
    }

    fn owns_recovery(&self) -> bool {
        true
    }

    fn pacing_rate_bps(&self) -> Option<u64> {
        self.started.then_some(self.pacing_rate_bytes_ps * 8)
    }

    /// Linux `bbr_sndbuf_expand`: "Provision 3 * cwnd since BBR may slow-start even during recovery".
    fn sndbuf_expand(&self) -> u32 {
        BBR_SNDBUF_EXPAND
    }

    /// Linux `bbr_tso_segs` (v3): the generic goal against the socket's GSO size.
    fn tso_segs(&self, mss_bytes: u32, gso: &GsoLimits) -> Option<u32> {
        Some(self.tso_segs_generic(mss_bytes, gso.max_bytes, gso.min_tso_segs))
    }

    fn mode(&self) -> &'static str {
        match self.mode {
            Mode::Startup => "Startup",
            Mode::Drain => "Drain",
            Mode::ProbeBw => self.phase.as_str(),
            Mode::ProbeRtt => "ProbeRTT",
        }
    }
}
