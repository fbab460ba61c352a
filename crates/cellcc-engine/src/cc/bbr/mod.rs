//! BBR v1: Linux net/ipv4/tcp_bbr.c (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016).
//!
//! On every ACK BBR updates a model of the path and derives pacing and cwnd
//! from it (Linux `bbr_main`):
//!
//! ```text
//!   btl_bw  = windowed max(delivered / interval, 10 rounds)     filters.rs
//!   min_rtt = windowed min(rtt, 10 s)                           filters.rs
//!   pacing  = pacing_gain * btl_bw * (1 - 1%)                   rate_bytes_per_sec
//!   cwnd    = cwnd_gain * btl_bw * min_rtt + quantization       target_cwnd
//!
//!      ┌──► Startup ──full bw──► Drain ──inflight<=BDP──► ProbeBW ◄─┐
//!      │       │                   │                       │  gain  │
//!      │       └──────── min_rtt expired (10 s) ───────────┴─cycle──┘
//!      └── !full bw ── ProbeRTT (cwnd 4, >=200 ms and 1 round) ──full bw──► ProbeBW
//! ```
//!
//! Per-mode logic lives in startup.rs, drain.rs, probe_bw.rs and probe_rtt.rs;
//! the long-term (policer) estimator in lt_bw.rs, ACK-aggregation provisioning
//! in aggregation.rs. Arithmetic is Linux's fixed point: bandwidth in
//! packets/µs << 24 (`BW_SCALE`), gains in 1/256 (`BBR_SCALE`), RTT in µs.
//!
//! What differs from Linux:
//! - Clock: the simulation's ns clock; `tcp_jiffies32` stamps (min-RTT stamp,
//!   ProbeRTT end) are ns here, not 1-4 ms jiffies. `tp->delivered_mstamp` is
//!   taken as `conn.now`, the time of the ACK being processed.
//! - Departure-time pacing: the simulated sender transmits when a packet
//!   leaves, with no packets queued ahead with a future departure time, so
//!   `bbr_packets_in_net_at_edt` sees a zero EDT interval.
//! - TSO: the sender lets `tcp_tso_segs` segments leave back to back per
//!   pacing release (`tcp/tso.rs`, with this algorithm's `min_tso_segs`), as
//!   Linux's GSO skbs do; `tcp_tso_should_defer`'s waiting for a fuller burst
//!   when cwnd is the limit is not modelled.
//! - ProbeRTT marks the connection app-limited in Linux (`tp->app_limited =
//!   delivered + inflight`); a hook cannot write the connection, so BBR itself
//!   treats the samples of packets sent while that mark would be set as
//!   app-limited (same effect on the filters, see `probe_rtt.rs`).
//! - `rs->is_ack_delayed` is not modelled (always false); `sk_max_pacing_rate`
//!   is unlimited.
//! - `bbr_init` runs on the first hook call (at the flow's first transmission
//!   or ACK) instead of at connection set-up, because it needs the
//!   connection's clock, MSS and RTT; until then no pacing rate is set.
//! - The RTT sample is `rs->rtt_us`; if the sender left it empty, the ACK's
//!   RTT sample (`sample->rtt_us`, the same value in Linux's `tcp_ack`) is used.

mod aggregation;
pub mod app_limited;
mod drain;
pub mod filters;
mod lt_bw;
mod probe_bw;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;

use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, CwndEvent, RateSample, Window};
use crate::sim::time::NS_PER_US;
use crate::sim::{RngStream, SimDuration, SimTime};
use crate::tcp::tso;
use aggregation::AckAggregation;
use filters::{MinRtt, WindowedMax};
use lt_bw::LtBw;
use serde::{Deserialize, Serialize};
use startup::FullBw;

/// Linux `BW_SCALE`: bandwidth is packets per µs scaled by 2^24.
pub(crate) const BW_SCALE: u32 = 24;
pub(crate) const BW_UNIT: u64 = 1 << BW_SCALE;
/// Linux `BBR_SCALE`: gains and fractions are scaled by 2^8.
pub(crate) const BBR_SCALE: u32 = 8;
/// Linux `BBR_UNIT`: a gain of 1.0.
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// Linux `USEC_PER_SEC`.
const US_PER_S: u64 = 1_000_000;
/// Linux `TCP_INIT_CWND` (include/net/tcp.h): cwnd cap before any RTT sample.
const TCP_INIT_CWND: u32 = 10;
/// Linux `USEC_PER_MSEC`: the nominal RTT `bbr_init_pacing_rate_from_rtt` uses before any sample.
const NOMINAL_RTT_US: u64 = 1_000;
/// Linux `bbr_min_tso_rate` (bit/s): below it a TSO burst is 1 segment, else 2.
const MIN_TSO_RATE_BPS: u64 = 1_200_000;
/// Linux `bbr_sndbuf_expand` (tcp_bbr.c): windows the send buffer provisions for.
pub(crate) const BBR_SNDBUF_EXPAND: u32 = 3;
/// Linux `bbr_tso_segs_goal`'s cap, `GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER`: the device's
/// own `gso_max_size` ignored.
const TSO_BURST_MAX_BYTES: u64 = tso::GSO_LEGACY_MAX_BYTES - 1 - tso::MAX_TCP_HEADER_BYTES;

/// Linux `enum bbr_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ramp up the sending rate rapidly to fill the pipe.
    Startup,
    /// Drain the queue created in Startup.
    Drain,
    /// Discover and share bandwidth: pace around the estimate with a gain cycle.
    ProbeBw,
    /// Cut inflight to a minimum to re-measure the path's min RTT.
    ProbeRtt,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Startup => "Startup",
            Mode::Drain => "Drain",
            Mode::ProbeBw => "ProbeBW",
            Mode::ProbeRtt => "ProbeRTT",
        }
    }
}

/// BBR v1 parameters. Linux hard-codes these as `static const`s in
/// tcp_bbr.c; the defaults are those values, in Linux's own units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Startup pacing and cwnd gain, in 1/256 (`BBR_UNIT`). Default 739 =
    /// 256 * 2885/1000 + 1, i.e. 2/ln 2 (tcp_bbr.c `bbr_high_gain`).
    pub high_gain: u32,
    /// Drain pacing gain, in 1/256. Default 88 = 256 * 1000/2885, i.e. 1/high_gain (`bbr_drain_gain`).
    pub drain_gain: u32,
    /// ProbeBW cwnd gain, in 1/256. Default 512 = 2.0 (`bbr_cwnd_gain`).
    pub cwnd_gain: u32,
    /// Window of the max-bandwidth filter, in packet-timed round trips. Default 10 = CYCLE_LEN + 2 (`bbr_bw_rtts`).
    pub bw_filter_rounds: u32,
    /// Window of the min-RTT filter, in seconds. Default 10 (`bbr_min_rtt_win_sec`).
    pub min_rtt_window_s: u32,
    /// Minimum time at the minimum cwnd in ProbeRTT, in ms; 0 disables ProbeRTT. Default 200 (`bbr_probe_rtt_mode_ms`).
    pub probe_rtt_mode_ms: u32,
    /// Minimum cwnd target and the ProbeRTT cwnd, in segments. Default 4 (`bbr_cwnd_min_target`).
    pub cwnd_min_target_segs: u32,
    /// Pace this many percent below the estimated bandwidth, 0..=99. Default 1 (`bbr_pacing_margin_percent`).
    pub pacing_margin_percent: u32,
    /// Bandwidth growth per round that counts as "still growing" in Startup, in 1/256.
    /// Default 320 = 1.25 (`bbr_full_bw_thresh`).
    pub full_bw_thresh: u32,
    /// Rounds without that growth before the pipe counts as full. Default 3 (`bbr_full_bw_cnt`).
    pub full_bw_cnt: u32,
    /// Gain on the ACK-aggregation cwnd allowance, in 1/256; 0 disables it. Default 256 (`bbr_extra_acked_gain`).
    pub extra_acked_gain: u32,
    /// Loss ratio (lost/delivered, in 1/256) above which a long-term interval counts as policed.
    /// Default 50 (about 20%, `bbr_lt_loss_thresh`).
    pub lt_loss_thresh: u32,
    /// Rounds to keep using a detected policer rate before probing again. Default 48 (`bbr_lt_bw_max_rtts`).
    pub lt_bw_max_rtts: u32,
}

impl Config {
    /// Ranges the types cannot express.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.high_gain >= 1, "high_gain", self.high_gain, "an integer >= 1")?;
        ParamError::check(self.drain_gain >= 1, "drain_gain", self.drain_gain, "an integer >= 1")?;
        ParamError::check(
            self.cwnd_min_target_segs >= 1,
            "cwnd_min_target_segs",
            self.cwnd_min_target_segs,
            "an integer >= 1",
        )?;
        ParamError::check(self.full_bw_cnt >= 1, "full_bw_cnt", self.full_bw_cnt, "an integer >= 1")?;
        ParamError::check(
            self.pacing_margin_percent < 100,
            "pacing_margin_percent",
            self.pacing_margin_percent,
            "0..=99",
        )
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            high_gain: BBR_UNIT * 2885 / 1000 + 1,
            drain_gain: BBR_UNIT * 1000 / 2885,
            cwnd_gain: BBR_UNIT * 2,
            bw_filter_rounds: probe_bw::CYCLE_LEN as u32 + 2,
            min_rtt_window_s: 10,
            probe_rtt_mode_ms: 200,
            cwnd_min_target_segs: 4,
            pacing_margin_percent: 1,
            full_bw_thresh: BBR_UNIT * 5 / 4,
            full_bw_cnt: 3,
            extra_acked_gain: BBR_UNIT,
            lt_loss_thresh: 50,
            lt_bw_max_rtts: 48,
        }
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "bbr",
    family: super::Family::Model,
    source: "Linux net/ipv4/tcp_bbr.c (BBR v1); Cardwell et al., ACM Queue 2016",
    summary: "Paces at the windowed-max delivery rate, cwnd = 2 BDP; Startup/Drain/ProbeBW gain cycle/ProbeRTT.",
    description: "BBR builds a model of the path from every ACK: the bottleneck bandwidth as the windowed maximum \
        delivery rate over 10 rounds and the minimum RTT over 10 s. It paces at pacing_gain x bandwidth and \
        caps cwnd at cwnd_gain x BDP (2 BDP in ProbeBW). Startup (gain 2/ln 2) lasts until the bandwidth \
        stops growing by 25% for 3 rounds, Drain empties the queue, ProbeBW cycles the pacing gain through \
        1.25, 0.75 and six phases of 1, and ProbeRTT drops cwnd to 4 segments for 200 ms when the min RTT is \
        10 s old. Loss does not change the model (cwnd is only held to packet conservation during recovery), \
        so on a buffer smaller than 1 BDP it keeps losing, and after a capacity drop the max filter holds \
        the old rate for up to 10 rounds.",
    params: &[
        ("high_gain", "Startup pacing+cwnd gain, 1/256 units; default 739 (2/ln2, bbr_high_gain)"),
        ("drain_gain", "Drain pacing gain, 1/256 units; default 88 (1/high_gain, bbr_drain_gain)"),
        ("cwnd_gain", "ProbeBW cwnd gain, 1/256 units; default 512 (bbr_cwnd_gain)"),
        ("bw_filter_rounds", "max-bandwidth filter window, round trips; default 10 (bbr_bw_rtts)"),
        ("min_rtt_window_s", "min-RTT filter window, s; default 10 (bbr_min_rtt_win_sec)"),
        ("probe_rtt_mode_ms", "time at min cwnd in ProbeRTT, ms, 0 = never; default 200 (bbr_probe_rtt_mode_ms)"),
        ("cwnd_min_target_segs", "minimum / ProbeRTT cwnd, segments; default 4 (bbr_cwnd_min_target)"),
        ("pacing_margin_percent", "pace this % below the bandwidth estimate; default 1 (bbr_pacing_margin_percent)"),
        (
            "full_bw_thresh",
            "Startup growth that counts as growing, 1/256 units; default 320 (1.25, bbr_full_bw_thresh)",
        ),
        ("full_bw_cnt", "rounds without growth until the pipe is full; default 3 (bbr_full_bw_cnt)"),
        ("extra_acked_gain", "ACK-aggregation cwnd gain, 1/256 units, 0 = off; default 256 (bbr_extra_acked_gain)"),
        ("lt_loss_thresh", "policer loss ratio, 1/256 units; default 50 (~20%, bbr_lt_loss_thresh)"),
        ("lt_bw_max_rtts", "rounds to use a policer estimate; default 48 (bbr_lt_bw_max_rtts)"),
    ],
};

/// Linux `struct bbr`, with the model state grouped by the module that owns it.
pub struct Bbr {
    cfg: Config,
    w: Window,
    rng: RngStream,
    /// `bbr_init` has run (on the first hook, see the header).
    started: bool,
    /// `tp->mss_cache`, refreshed on every hook.
    mss_bytes: u32,
    /// `tp->delivered_mstamp`, taken as the time of the latest hook call.
    delivered_stamp: SimTime,
    mode: Mode,
    /// Max recent delivery rate, packets/µs << 24, windowed in rounds.
    bw: WindowedMax,
    min_rtt: MinRtt,
    /// Packet-timed rounds elapsed (`rtt_cnt`).
    rtt_cnt: u32,
    /// `tp->delivered` at the end of the current round.
    next_rtt_delivered: u64,
    /// This ACK starts a new packet-timed round.
    round_start: bool,
    /// CA state on the previous ACK.
    prev_ca_state: CaState,
    /// First round of recovery: send one packet per packet ACKed.
    packet_conservation: bool,
    /// cwnd before loss recovery or ProbeRTT, to restore after.
    prior_cwnd: u32,
    /// Restarting after idle.
    idle_restart: bool,
    probe_rtt: probe_rtt::ProbeRtt,
    pacing_gain: u32,
    cwnd_gain: u32,
    full_bw: FullBw,
    /// Index into the ProbeBW pacing-gain cycle.
    cycle_idx: usize,
    /// When the current gain-cycle phase started.
    cycle_stamp: SimTime,
    lt: LtBw,
    aggr: AckAggregation,
    has_seen_rtt: bool,
    /// `sk_pacing_rate`, bytes per second.
    pacing_rate_bytes_ps: u64,
}

impl Bbr {
    /// A BBR sender with initial window `w`; `rng` draws the ProbeBW start phase.
    pub fn new(cfg: &Config, w: Window, rng: RngStream) -> Self {
        Bbr {
            cfg: cfg.clone(),
            w,
            rng,
            started: false,
            mss_bytes: 0,
            delivered_stamp: SimTime::ZERO,
            mode: Mode::Startup,
            bw: WindowedMax::default(),
            min_rtt: MinRtt::new(None, SimTime::ZERO),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            prior_cwnd: 0,
            idle_restart: false,
            probe_rtt: probe_rtt::ProbeRtt::default(),
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            full_bw: FullBw::default(),
            cycle_idx: 0,
            cycle_stamp: SimTime::ZERO,
            lt: LtBw::default(),
            aggr: AckAggregation::default(),
            has_seen_rtt: false,
            pacing_rate_bytes_ps: 0,
        }
    }

    /// The current mode.
    pub fn current_mode(&self) -> Mode {
        self.mode
    }

    /// Linux `bbr_init`, run once the connection can be seen (see the header).
    fn start(&mut self, conn: &ConnView) {
        self.mss_bytes = conn.mss_bytes;
        self.delivered_stamp = conn.now;
        if self.started {
            return;
        }
        self.started = true;
        self.w.ssthresh = super::INFINITE_SSTHRESH;
        self.next_rtt_delivered = conn.delivered;
        self.min_rtt = MinRtt::new(conn.min_rtt, conn.now);
        self.bw.reset(self.rtt_cnt, 0);
        self.init_pacing_rate_from_rtt(conn);
        self.lt.reset(conn);
        self.mode = Mode::Startup;
        self.aggr.reset_epoch(conn.now);
    }

    /// Linux `bbr_max_bw`: windowed max delivery rate, packets/µs << 24.
    fn max_bw(&self) -> u32 {
        self.bw.get()
    }

    /// Linux `bbr_bw`: the bandwidth the model uses (the policer rate when one is detected).
    fn bw(&self) -> u32 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.max_bw()
        }
    }

    /// Linux `bbr_rate_bytes_per_sec`: `rate` (packets/µs << 24) times `gain`
    /// (1/256) in bytes per second, less the pacing margin. Linux orders the
    /// operations to fit u64; u128 gives the same result without the bound.
    fn rate_bytes_per_sec(&self, rate: u64, gain: u32) -> u64 {
        let margin_scale = US_PER_S / 100 * (100 - self.cfg.pacing_margin_percent as u64);
        let r = (rate as u128 * self.mss_bytes as u128 * gain as u128) >> BBR_SCALE;
        ((r * margin_scale as u128) >> BW_SCALE) as u64
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: high_gain * cwnd / SRTT (1 ms before any RTT sample).
    fn init_pacing_rate_from_rtt(&mut self, conn: &ConnView) {
        let rtt_us = match conn.srtt {
            Some(srtt) => {
                self.has_seen_rtt = true;
                srtt.as_us().max(1)
            }
            None => NOMINAL_RTT_US,
        };
        let bw = self.w.cwnd as u64 * BW_UNIT / rtt_us;
        self.pacing_rate_bytes_ps = self.rate_bytes_per_sec(bw, self.cfg.high_gain);
    }

    /// Linux `bbr_set_pacing_rate`: never lower the rate before the pipe is full.
    fn set_pacing_rate(&mut self, conn: &ConnView, bw: u32, gain: u32) {
        let rate = self.rate_bytes_per_sec(bw as u64, gain);
        if !self.has_seen_rtt && conn.srtt.is_some() {
            self.init_pacing_rate_from_rtt(conn);
        }
        if self.full_bw.reached || rate > self.pacing_rate_bytes_ps {
            self.pacing_rate_bytes_ps = rate;
        }
    }

    /// Linux `bbr_min_tso_segs`: one segment per burst below `bbr_min_tso_rate`, else two.
    fn bbr_min_tso_segs(&self) -> u32 {
        if self.pacing_rate_bytes_ps < MIN_TSO_RATE_BPS >> 3 {
            1
        } else {
            2
        }
    }

    /// Linux `bbr_tso_segs_goal`: segments per TSO burst, ~1 ms of data at the pacing rate.
    fn tso_segs_goal(&self) -> u32 {
        let bytes = (self.pacing_rate_bytes_ps >> tso::PACING_SHIFT).min(TSO_BURST_MAX_BYTES);
        ((bytes / self.mss_bytes.max(1) as u64) as u32).max(self.bbr_min_tso_segs())
    }

    /// Linux `bbr_bdp`: ceil(bw * min_rtt * gain), in packets.
    fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if !self.min_rtt.is_valid() {
            return TCP_INIT_CWND;
        }
        let w = bw as u128 * self.min_rtt.min_rtt_us as u128;
        ((w * gain as u128) >> BBR_SCALE).div_ceil(BW_UNIT as u128) as u32
    }

    /// Linux `bbr_quantization_budget`: room for TSO bursts at both hosts, an
    /// even cwnd for delayed ACKs, and +2 in the probing phase so small BDPs probe too.
    fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal();
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// Linux `bbr_inflight`: the in-flight target for `bw` and `gain`.
    fn inflight(&self, bw: u32, gain: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// Linux `bbr_packets_in_net_at_edt` with a zero EDT interval (see the header):
    /// when raising inflight, count the burst about to leave.
    fn packets_in_net_at_edt(&self, inflight_now: u32) -> u32 {
        if self.pacing_gain > BBR_UNIT {
            inflight_now + self.tso_segs_goal()
        } else {
            inflight_now
        }
    }

    /// Linux `bbr_save_cwnd`: remember the last good cwnd before recovery or ProbeRTT.
    fn save_cwnd(&mut self) {
        if !in_recovery_or_loss(self.prev_ca_state) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.w.cwnd);
        }
    }

    /// Linux `bbr_reset_mode`: after ProbeRTT, Startup if the pipe was never filled.
    fn reset_mode(&mut self) {
        if self.full_bw.reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: packet conservation in the
    /// first round of recovery, the saved cwnd back when recovery ends.
    /// Returns the new cwnd and whether packet conservation decided it.
    fn recover_or_restore(&mut self, conn: &ConnView, rs: &RateSample, acked: u32) -> (u32, bool) {
        let state = conn.ca_state;
        let mut cwnd = self.w.cwnd;
        // An ACK for P packets releases at most 2P: first deduct the losses.
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        if state == CaState::Recovery && self.prev_ca_state != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = conn.delivered;
            cwnd = conn.packets_in_flight + acked;
        } else if in_recovery_or_loss(self.prev_ca_state) && !in_recovery_or_loss(state) {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            (cwnd.max(conn.packets_in_flight + acked), true)
        } else {
            (cwnd, false)
        }
    }

    /// Linux `bbr_set_cwnd`: slow-start toward the target cwnd, or snap down to
    /// it once the pipe is full; ProbeRTT caps it at the minimum target.
    fn set_cwnd(&mut self, conn: &ConnView, rs: &RateSample, acked: u32, bw: u32, gain: u32) {
        let mut cwnd = self.w.cwnd;
        if acked > 0 {
            let (c, conserving) = self.recover_or_restore(conn, rs, acked);
            cwnd = c;
            if !conserving {
                let target = self.quantization_budget(self.bdp(bw, gain) + self.ack_aggregation_cwnd());
                if self.full_bw.reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || conn.delivered < TCP_INIT_CWND as u64 {
                    cwnd += acked;
                }
                cwnd = cwnd.max(self.cfg.cwnd_min_target_segs);
            }
        }
        self.w.set_cwnd(cwnd);
        if self.mode == Mode::ProbeRtt {
            self.w.set_cwnd(self.w.cwnd.min(self.cfg.cwnd_min_target_segs));
        }
    }

    /// Linux `bbr_update_bw`: count rounds, feed the long-term sampler and the max filter.
    fn update_bw(&mut self, conn: &ConnView, rs: &RateSample) {
        self.round_start = false;
        let interval_us = rs.interval.as_ns() / NS_PER_US;
        if interval_us == 0 {
            return; // not a valid sample
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = conn.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(conn, rs);
        let bw = (rs.delivered as u64 * BW_UNIT / interval_us).min(u32::MAX as u64) as u32;
        // App-limited samples only count when they show at least the current max.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(self.cfg.bw_filter_rounds, self.rtt_cnt, bw);
        }
    }

    /// Linux `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (self.cfg.drain_gain, self.cfg.high_gain),
            Mode::ProbeBw => {
                let pacing = if self.lt.use_bw { BBR_UNIT } else { probe_bw::PACING_GAIN[self.cycle_idx] };
                (pacing, self.cfg.cwnd_gain)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// Linux `bbr_update_model`.
    fn update_model(&mut self, conn: &ConnView, rs: &RateSample) {
        self.update_bw(conn, rs);
        self.update_ack_aggregation(conn, rs);
        self.update_cycle_phase(conn, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(conn);
        self.update_min_rtt(conn, rs);
        self.update_gains();
    }

    fn min_rtt_window(&self) -> SimDuration {
        SimDuration::from_secs(self.cfg.min_rtt_window_s as u64)
    }
}

/// Linux `state >= TCP_CA_Recovery`.
fn in_recovery_or_loss(s: CaState) -> bool {
    matches!(s, CaState::Recovery | CaState::Loss)
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Linux `bbr_ssthresh`: save cwnd for after recovery; ssthresh itself is
    /// not reduced (it only changes when Drain starts).
    fn ssthresh(&mut self, conn: &ConnView) -> u32 {
        self.start(conn);
        self.save_cwnd();
        self.w.ssthresh
    }

    /// BBR sets cwnd in `cong_control`; Linux never calls `cong_avoid` for it.
    fn cong_avoid(&mut self, _conn: &ConnView, _ack: &AckSample) {}

    /// Linux `bbr_set_state`: an RTO ends the round and counts as a loss for the policer sampler.
    fn set_state(&mut self, conn: &ConnView, new_state: CaState) {
        self.start(conn);
        if new_state == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw.bw = 0;
            self.round_start = true;
            let rs = RateSample { losses: 1, ..RateSample::default() };
            self.lt_bw_sampling(conn, &rs);
        }
    }

    /// Linux `bbr_cwnd_event` (CA_EVENT_TX_START): restarting from idle.
    fn cwnd_event(&mut self, conn: &ConnView, event: CwndEvent) {
        self.start(conn);
        if event != CwndEvent::TxStart || !conn.app_limited {
            return;
        }
        self.idle_restart = true;
        self.aggr.reset_epoch(conn.now);
        // Pace at the estimate, not above it, when restarting app-limited.
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(conn, self.bw(), BBR_UNIT),
            Mode::ProbeRtt => self.check_probe_rtt_done(conn),
            Mode::Startup | Mode::Drain => {}
        }
    }

    /// Linux `bbr_undo_cwnd`: a spurious slow-down restarts full-pipe detection; cwnd unchanged.
    fn undo_cwnd(&mut self, conn: &ConnView, _prior_cwnd: u32) -> u32 {
        self.start(conn);
        self.full_bw.bw = 0;
        self.full_bw.cnt = 0;
        self.lt.reset(conn);
        self.w.cwnd
    }

    /// Linux `bbr_main`.
    fn cong_control(&mut self, conn: &ConnView, ack: &AckSample) -> bool {
        self.start(conn);
        let mut rs = ack.rate;
        if rs.rtt.is_none() {
            rs.rtt = ack.rtt;
        }
        rs.is_app_limited |= self.probe_rtt.marks_app_limited(&rs);
        self.update_model(conn, &rs);
        let bw = self.bw();
        self.set_pacing_rate(conn, bw, self.pacing_gain);
        self.set_cwnd(conn, &rs, rs.acked_sacked, bw, self.cwnd_gain);
        true
    }

    fn owns_recovery(&self) -> bool {
        true
    }

    fn pacing_rate_bps(&self) -> Option<u64> {
        self.started.then_some(self.pacing_rate_bytes_ps * 8)
    }

    fn min_tso_segs(&self) -> Option<u32> {
        Some(self.bbr_min_tso_segs())
    }

    /// Linux `bbr_sndbuf_expand`: "Provision 3 * cwnd since BBR may slow-start even during recovery".
    fn sndbuf_expand(&self) -> u32 {
        BBR_SNDBUF_EXPAND
    }

    fn mode(&self) -> &'static str {
        self.mode.as_str()
    }
}
