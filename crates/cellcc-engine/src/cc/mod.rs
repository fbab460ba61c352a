//! Congestion control: one trait, one file per algorithm, one registry.
//!
//! The trait follows Linux's `struct tcp_congestion_ops` (include/net/tcp.h)
//! hook for hook, so an algorithm ported from `net/ipv4/tcp_*.c` keeps its
//! shape. Like Linux, windows are counted in segments (`snd_cwnd`), with the
//! fractional-growth counter `snd_cwnd_cnt`.
//!
//! ```text
//!   TcpSender ──ACK──► pkts_acked(conn, ack)          every ACK that delivers data
//!       │              cong_control(conn, ack)?      model-based (BBR): owns cwnd+pacing
//!       │              cong_avoid(conn, ack)         otherwise, outside recovery
//!       ├──3 dupACKs / SACK loss──► ssthresh(conn)   new ssthresh; the sender then
//!       │                                            reduces cwnd during recovery
//!       ├──RTO──► ssthresh(conn), cwnd = 1           as Linux tcp_enter_loss()
//!       └──state changes──► set_state(), cwnd_event()
//! ```
//!
//! Who writes what: the algorithm owns its [`Window`] and changes it in its
//! hooks. The sender changes it only where Linux's stack does, through
//! [`Window`]'s named methods: entering loss recovery (`ssthresh`), the cwnd
//! reduction during recovery and its end (RFC 6937 PRR, as `tcp_cwnd_reduction`),
//! and the RTO (`tcp_enter_loss`). An algorithm with `cong_control` opts out of
//! the recovery reduction, as BBR does in Linux.
//!
//! Required hooks: `name`, `window`, `window_mut`, `ssthresh`, `cong_avoid`.
//! Every other hook defaults to Linux's behaviour when the op is NULL.

pub mod common;
mod doc;
pub mod registry;

pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod cdg;
pub mod compound;
pub mod copa;
pub mod cubic;
pub mod dctcp;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod hystart;
pub mod illinois;
pub mod ledbat;
pub mod lp;
pub mod new_reno;
pub mod nv;
pub mod reno;
pub mod scalable;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod westwood_plus;
pub mod yeah;

pub use doc::{CcDoc, Family, ParamError};
pub use registry::{CcConfig, REGISTRY};

use crate::scenario::Stack;
use crate::sim::{SimDuration, SimTime, NS_PER_S};
use crate::tcp::tso::GsoLimits;

/// Linux `TCP_INFINITE_SSTHRESH` (include/net/tcp.h): ssthresh before any loss.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// Congestion window state, in segments, as Linux's `tcp_sock` holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// `snd_cwnd`: segments allowed in flight.
    pub cwnd: u32,
    /// `snd_cwnd_cnt`: ACKed segments counted towards the next +1 in congestion avoidance.
    pub cwnd_cnt: u32,
    /// `snd_ssthresh`: slow-start threshold.
    pub ssthresh: u32,
    /// `snd_cwnd_clamp`: upper bound on cwnd.
    pub cwnd_clamp: u32,
    /// Whose Reno building blocks (`common.rs`) run on this window (`tcp.reno_rules`): the
    /// stack's rule, which the algorithm does not choose.
    pub reno: Stack,
}

impl Window {
    pub fn new(initial_cwnd: u32) -> Self {
        Window {
            cwnd: initial_cwnd.max(1),
            cwnd_cnt: 0,
            ssthresh: INFINITE_SSTHRESH,
            cwnd_clamp: u32::MAX / 2,
            reno: Stack::Linux,
        }
    }

    /// This window under `reno`'s Reno building blocks.
    pub fn with_reno_rules(self, reno: Stack) -> Self {
        Window { reno, ..self }
    }

    /// Linux `tcp_in_slow_start`.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Set cwnd, kept within [1, clamp]: the "cwnd >= 1 MSS" invariant lives here.
    pub fn set_cwnd(&mut self, cwnd: u32) {
        self.cwnd = cwnd.clamp(1, self.cwnd_clamp);
    }
}

/// Linux `enum tcp_ca_state` (include/uapi/linux/tcp.h), ordered as Linux numbers
/// them (the stack compares states, e.g. `icsk_ca_state < TCP_CA_CWR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    /// Nothing bad has been observed.
    Open,
    /// Duplicate ACKs or SACKs seen, no loss declared yet.
    Disorder,
    /// cwnd reduced for ECN or local congestion.
    Cwr,
    /// Fast retransmit / fast recovery in progress.
    Recovery,
    /// Retransmission timeout recovery.
    Loss,
}

impl CaState {
    pub fn as_str(self) -> &'static str {
        match self {
            CaState::Open => "Open",
            CaState::Disorder => "Disorder",
            CaState::Cwr => "CWR",
            CaState::Recovery => "Recovery",
            CaState::Loss => "Loss",
        }
    }
}

/// Linux `enum tcp_ca_event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    /// First transmission when no packet was in flight.
    TxStart,
    /// Congestion window restart after idle.
    CwndRestart,
    /// End of a CWR reduction.
    CompleteCwr,
    /// Retransmission timeout.
    Loss,
    /// ECT ACK without CE mark.
    EcnNoCe,
    /// Received CE-marked data.
    EcnIsCe,
}

/// Delivery-rate sample, as Linux `struct rate_sample` (net/ipv4/tcp_rate.c).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// `prior_delivered`: `tp->delivered` when the sampled segment was sent.
    pub prior_delivered: u64,
    /// Segments delivered over `interval`.
    pub delivered: u32,
    /// Interval the sample spans: max(send interval, ACK interval). Zero = invalid sample.
    pub interval: SimDuration,
    /// RTT of the most recently sent segment this ACK delivered.
    pub rtt: Option<SimDuration>,
    /// Segments newly marked lost by this ACK.
    pub losses: u32,
    /// `rs->tx_in_flight`: packets in flight when the sampled segment was sent, itself included.
    pub tx_in_flight: u32,
    /// `rs->lost`: segments marked lost between the sampled segment's send and this ACK.
    pub lost: u32,
    /// Segments newly delivered (cumulatively or selectively) by this ACK.
    pub acked_sacked: u32,
    /// Segments in flight before this ACK.
    pub prior_in_flight: u32,
    /// The sample was taken while the application did not keep the pipe full.
    pub is_app_limited: bool,
    /// The sampled segment was a retransmission.
    pub is_retrans: bool,
}

impl RateSample {
    /// Delivery rate in bit/s, `None` for an invalid sample.
    pub fn delivery_rate_bps(&self, mss_bytes: u32) -> Option<u64> {
        let ns = self.interval.as_ns();
        (ns > 0 && self.delivered > 0)
            .then(|| (self.delivered as u128 * mss_bytes as u128 * 8 * 1_000_000_000 / ns as u128) as u64)
    }
}

/// What one ACK did: the input of `pkts_acked`, `cong_avoid` and `cong_control`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AckSample {
    /// Segments newly delivered by this ACK (Linux `acked_sacked`, the `acked` of `cong_avoid`).
    pub acked_segs: u32,
    /// Payload bytes newly delivered by this ACK.
    pub acked_bytes: u64,
    /// Bytes newly acknowledged cumulatively (`snd_una` advance).
    pub cum_acked_bytes: u64,
    /// RTT sample (Karn-safe: never from a retransmitted segment), Linux `sample->rtt_us`.
    pub rtt: Option<SimDuration>,
    /// Segments in flight before this ACK.
    pub prior_in_flight: u32,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    /// The delivery-rate sample this ACK produced.
    pub rate: RateSample,
    /// The ACK's TCP timestamps (RFC 7323), when the connection uses them.
    pub ts: Option<AckTimestamps>,
}

/// Linux `tp->rx_opt.rcv_tsval` / `rcv_tsecr` of the ACK (RFC 7323 §3): the receiver's clock
/// when it sent the ACK, and the sender's own TSval it echoes. Both hosts run the simulation
/// clock with no per-connection offset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckTimestamps {
    pub ts_val: SimTime,
    pub ts_ecr: SimTime,
}

/// Read-only view of the connection a hook may consult (what Linux CCAs read from `tcp_sock`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConnView {
    pub now: SimTime,
    /// Sender MSS in payload bytes (`mss_cache`).
    pub mss_bytes: u32,
    /// Oldest unacknowledged byte (`snd_una`).
    pub snd_una: u64,
    /// Next byte to send (`snd_nxt`).
    pub snd_nxt: u64,
    /// Linux `tcp_packets_in_flight()`: segments believed in the network.
    pub packets_in_flight: u32,
    /// Smoothed RTT (RFC 6298 SRTT).
    pub srtt: Option<SimDuration>,
    /// Minimum RTT seen on the connection (Linux `tcp_min_rtt`).
    pub min_rtt: Option<SimDuration>,
    /// Total segments delivered (`tp->delivered`).
    pub delivered: u64,
    /// Total segments marked lost (`tp->lost`).
    pub lost: u64,
    /// Linux `tcp_is_cwnd_limited()`: is cwnd what limits sending?
    pub is_cwnd_limited: bool,
    /// The application left the pipe under-full recently (`tp->app_limited`).
    pub app_limited: bool,
    pub ca_state: CaState,
    /// Linux `sk_pacing_rate` (read it with [`ConnView::pacing_rate_bps`]).
    pub pacing_rate: SkPacingRate,
    /// Linux `sk_pacing_status != SK_PACING_NONE`: departures are paced (fq or the algorithm).
    pub paced: bool,
}

impl ConnView {
    /// Linux `sk_pacing_rate` as bits/s: the algorithm's own rate, else `tcp_update_pacing_rate`'s,
    /// which Linux keeps whether or not anything enforces it. 0 = no RTT sample yet.
    pub fn pacing_rate_bps(&self) -> u64 {
        self.pacing_rate.bps()
    }
}

/// `sk_pacing_rate` as a view carries it. The view is built on every ACK and its only reader is
/// HyStart in slow start, so the default rate's division is left until a hook asks for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SkPacingRate {
    /// The algorithm's own rate, or 0 before an RTT sample.
    Known(u64),
    /// `tcp_update_pacing_rate`'s, from the connection as it was when the view was built.
    Default(DefaultPacing),
}

impl SkPacingRate {
    pub fn bps(&self) -> u64 {
        match self {
            SkPacingRate::Known(bps) => *bps,
            SkPacingRate::Default(d) => d.rate_bps(),
        }
    }
}

/// What Linux `tcp_update_pacing_rate` reads: cwnd, ssthresh, packets out, MSS and SRTT.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DefaultPacing {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub packets_out: u32,
    pub mss_bytes: u32,
    pub srtt_ns: u64,
}

/// Linux `tcp_update_pacing_rate` ratios (sysctl tcp_pacing_ss_ratio / ca_ratio), percent.
const PACING_SS_RATIO_PCT: u64 = 200;
const PACING_CA_RATIO_PCT: u64 = 120;

impl DefaultPacing {
    /// Linux `tcp_update_pacing_rate`: cwnd * mss / srtt at 200% in slow start, 120% after.
    pub fn rate_bps(&self) -> u64 {
        let ratio = if self.cwnd < self.ssthresh / 2 { PACING_SS_RATIO_PCT } else { PACING_CA_RATIO_PCT };
        let srtt_ns = self.srtt_ns.max(1);
        let segs = self.cwnd.max(self.packets_out) as u64;
        let mss = self.mss_bytes as u64;
        // u64 arithmetic while the product fits (every realistic window), u128 beyond: same value.
        let bytes_per_s = match mss.checked_mul(segs).and_then(|b| b.checked_mul(NS_PER_S)) {
            Some(b_ns) => (b_ns / srtt_ns) as u128,
            None => mss as u128 * segs as u128 * NS_PER_S as u128 / srtt_ns as u128,
        };
        // The percentage in u64 too while it fits (a u128 division is a libcall).
        match u64::try_from(bytes_per_s).ok().and_then(|b| b.checked_mul(8 * ratio)) {
            Some(bits_pct) => bits_pct / 100,
            None => (bytes_per_s * 8 * ratio as u128 / 100).min(u64::MAX as u128) as u64,
        }
    }
}

/// A congestion-control algorithm (Linux `struct tcp_congestion_ops`).
pub trait CongestionControl: Send {
    /// Canonical registry name, as `cellcc ccas` lists it.
    fn name(&self) -> &'static str;
    fn window(&self) -> &Window;
    fn window_mut(&mut self) -> &mut Window;

    /// Required, Linux `ssthresh`: the slow-start threshold after a congestion event.
    fn ssthresh(&mut self, conn: &ConnView) -> u32;

    /// Required, Linux `cong_avoid`: grow cwnd on an ACK while not in recovery.
    /// Like Linux, an algorithm checks `conn.is_cwnd_limited` itself.
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample);

    /// Optional, Linux `init`: once, when the connection is established, after
    /// the handshake's RTT sample and the initial cwnd are in place (Linux calls
    /// it from `tcp_init_transfer`). Algorithms that size their first window
    /// from the RTT (Hybla) or start a clock (H-TCP) do it here.
    fn init(&mut self, _conn: &ConnView) {}

    /// Optional, Linux `pkts_acked`: every ACK that delivers data, with its RTT sample.
    fn pkts_acked(&mut self, _conn: &ConnView, _ack: &AckSample) {}

    /// Optional, Linux `set_state`: called before the connection's CA state changes.
    fn set_state(&mut self, _conn: &ConnView, _new_state: CaState) {}

    /// Optional, Linux `cwnd_event`.
    fn cwnd_event(&mut self, _conn: &ConnView, _event: CwndEvent) {}

    /// Optional, Linux `undo_cwnd`: cwnd to restore when a reduction proves spurious.
    /// Linux's NULL default is `tcp_reno_undo_cwnd`: max(cwnd, prior cwnd).
    fn undo_cwnd(&mut self, _conn: &ConnView, prior_cwnd: u32) -> u32 {
        self.window().cwnd.max(prior_cwnd)
    }

    /// Optional, Linux `cong_control`: a model-based algorithm sets cwnd and
    /// pacing from the rate sample itself. Returns true when it did, in which
    /// case `cong_avoid` and the sender's PRR reduction are skipped.
    fn cong_control(&mut self, _conn: &ConnView, _ack: &AckSample) -> bool {
        false
    }

    /// Whether this algorithm owns cwnd during recovery (true for `cong_control` users).
    fn owns_recovery(&self) -> bool {
        false
    }

    /// Optional: the pacing rate the algorithm asks for (Linux `sk_pacing_rate`).
    fn pacing_rate_bps(&self) -> Option<u64> {
        None
    }

    /// Optional, Linux `min_tso_segs`: the least segments per TSO burst, in place of
    /// `net.ipv4.tcp_min_tso_segs` (BBR: 1 below 1.2 Mbit/s, else 2).
    fn min_tso_segs(&self) -> Option<u32> {
        None
    }

    /// Linux `sndbuf_expand`: how many windows of worst-case skbs the send buffer provisions
    /// for (net/ipv4/tcp_input.c `tcp_sndbuf_expand`: 2 unless the algorithm says; BBR 3).
    fn sndbuf_expand(&self) -> u32 {
        2
    }

    /// Optional, Linux `tso_segs` (BBRv3): segments per TSO burst, in place of `tcp_tso_autosize`.
    fn tso_segs(&self, _mss_bytes: u32, _gso: &GsoLimits) -> Option<u32> {
        None
    }

    /// Optional: the algorithm's own mode, for traces (e.g. BBR's "ProbeBW").
    fn mode(&self) -> &'static str {
        ""
    }

    /// Optional, RFC 5681 classic Reno: end fast recovery on the first ACK
    /// that advances `snd_una`, even a partial one (no SACK case only).
    fn exits_recovery_on_partial_ack(&self) -> bool {
        false
    }
}
