//! TCP settings: `TcpSpec` as written (every field optional, so a flow can
//! override a few), and `TcpParams` resolved: the fields set, then the flow's profile's
//! choices (`tcp_profile.rs`: none for "linux", ns-3.44's for "ns3"), then Linux's defaults.

use super::tcp_profile;
use crate::sim::SimDuration;
use crate::tcp::comp_sack::LINUX_TCP_COMP_SACK_NR;
use crate::tcp::tso::{LINUX_GSO_MAX_SEGS, LINUX_TCP_MIN_TSO_SEGS};
use serde::{Deserialize, Serialize};

/// Linux default of `net.ipv4.tcp_recovery` (ip-sysctl.rst): RACK loss detection on.
pub const LINUX_TCP_RECOVERY: u32 = 1;
/// Largest valid `tcp_recovery` value: the three defined bits.
pub const MAX_TCP_RECOVERY: u32 = 7;
/// Linux default of `net.ipv4.tcp_early_retrans` (ip-sysctl.rst): TLP on.
pub const LINUX_TCP_EARLY_RETRANS: u32 = 3;
/// Largest valid `tcp_early_retrans` value (ip-sysctl.rst lists 0..4).
pub const MAX_TCP_EARLY_RETRANS: u32 = 4;

/// Linux default of `net.ipv4.tcp_frto` (ip-sysctl.rst): F-RTO on.
pub const LINUX_TCP_FRTO: u32 = 2;
/// Largest valid `tcp_frto` value.
pub const MAX_TCP_FRTO: u32 = 2;

/// Largest valid `tcp_min_tso_segs` (a u8 sysctl, net/ipv4/sysctl_net_ipv4.c).
pub const MAX_TCP_MIN_TSO_SEGS: u32 = 255;

/// Linux default of `net.ipv4.tcp_rmem` (net/ipv4/tcp.c `tcp_init`: one page, 131072, and
/// max(131072, min(6 MiB, free memory / 128)), i.e. 6 MiB on any host with 768 MiB or more).
pub const LINUX_TCP_RMEM: [u64; 3] = [4096, 131_072, 6_291_456];

/// Linux default of `net.ipv4.tcp_wmem` (net/ipv4/tcp.c `tcp_init`: one page, 16384, and
/// max(65536, min(4 MiB, free memory / 128)), i.e. 4 MiB on any host with 512 MiB or more).
pub const LINUX_TCP_WMEM: [u64; 3] = [4096, 16_384, 4_194_304];

/// A Linux `[min, default, max]` buffer sysctl as written, else `linux`'s with `max` (the field
/// that is another name for the third) as its max, min and default no larger than it.
fn socket_buffer(written: Option<[u64; 3]>, max: Option<u64>, linux: [u64; 3]) -> [u64; 3] {
    match (written, max) {
        (Some(b), _) => b,
        (None, Some(max)) => [linux[0].min(max), linux[1].min(max), max],
        (None, None) => linux,
    }
}

/// When the sender paces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pacing {
    /// Pace only when the algorithm asks (BBR), like Linux without the fq qdisc.
    #[default]
    Auto,
    /// Always pace, at Linux's `tcp_update_pacing_rate` rate when the algorithm sets none.
    On,
    /// Never pace.
    Off,
}

/// Which RTO computation a sender uses (see `tcp/rtt.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimator {
    /// Linux `tcp_rtt_estimator` / `tcp_set_rto`: RTO >= SRTT + min_rto.
    #[default]
    Linux,
    /// RFC 6298 §2, as ns-3: RTO = max(SRTT + 4 RTTVAR, min_rto).
    Rfc6298,
}

/// Which TCP a flow's unset `[tcp]` fields follow: a named set of choices
/// (`scenario/tcp_profile.rs`), never a fork of the mechanisms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpProfile {
    /// Linux's defaults and mechanisms (the engine's default).
    #[default]
    Linux,
    /// ns-3.44's `TcpSocketBase` defaults and its variant of every mechanism the engine models.
    Ns3,
}

/// Whose variant of a mechanism runs, where the engine models both Linux's and ns-3's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stack {
    #[default]
    Linux,
    Ns3,
}

/// Which RTT the congestion control is handed with each ACK (`AckSample::rtt`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcRtt {
    /// The ACK's own sample (Linux `tcp_ack_update_rtt`'s `ca_rtt_us`).
    #[default]
    Sample,
    /// The smoothed RTT (ns-3.44 `TcpSocketBase::ProcessAck` calls `PktsAcked(tcb, segs, m_srtt)`).
    Srtt,
}

/// TCP options as written in a scenario; `None` means "inherit / default".
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Payload bytes per segment. Default: path MTU - 40 - options (1448 with timestamps).
    /// Larger than the MTU allows, segments are IP-fragmented (seed 000's 3000 B packets).
    pub mss_bytes: Option<u32>,
    /// Selective ACK (RFC 2018) with RFC 6675 recovery. Default true, as Linux.
    pub sack: Option<bool>,
    /// Timestamps option (RFC 7323): 12 bytes of header. Default true, as Linux.
    pub timestamps: Option<bool>,
    /// RTO computation: "linux" (default; RTO >= SRTT + min_rto) or "rfc6298" (RTO >= min_rto).
    pub rto_estimator: Option<RtoEstimator>,
    /// Lower bound of the RTO's variance term (linux) or of the RTO (rfc6298), ms.
    /// Default 200 (Linux TCP_RTO_MIN); RFC 6298 says 1000.
    pub min_rto_ms: Option<f64>,
    /// RTO before any RTT sample, ms. Default 1000 (RFC 6298 §2.1, Linux TCP_TIMEOUT_INIT).
    pub initial_rto_ms: Option<f64>,
    /// Upper bound on RTO, ms. Default 120000 (Linux TCP_RTO_MAX).
    pub max_rto_ms: Option<f64>,
    /// ACK every N-th full segment. Default 2 (RFC 5681 §4.2, RFC 1122). 1 disables delayed ACK.
    pub delayed_ack_count: Option<u32>,
    /// Delayed-ACK timer, ms. Default 40 (Linux TCP_DELACK_MIN).
    pub delayed_ack_timeout_ms: Option<f64>,
    /// Initial window, segments. Default 10 (RFC 6928, Linux TCP_INIT_CWND).
    pub initial_cwnd_segs: Option<u32>,
    /// The largest receive buffer, bytes: another name for `tcp_rmem[2]` (set one, or both
    /// equal). Default 6291456 (Linux's tcp_rmem max).
    pub rcv_buf_bytes: Option<u64>,
    /// Linux `net.ipv4.tcp_rmem`: [min, default, max] receive-buffer bytes. The first window
    /// offered is the default's share (`tcp_select_initial_window`), autotuning grows the buffer
    /// up to max. Default [4096, 131072, 6291456] (Linux's, net/ipv4/tcp.c `tcp_init`; the Linux
    /// backend sets the same in its namespaces).
    pub tcp_rmem: Option<[u64; 3]>,
    /// Linux `net.ipv4.tcp_moderate_rcvbuf`: receive-buffer autotuning (DRS,
    /// `tcp_rcv_space_adjust`). Off, the buffer stays at `tcp_rmem[1]`. Default true.
    pub tcp_moderate_rcvbuf: Option<bool>,
    /// The largest send buffer, bytes: another name for `tcp_wmem[2]` (set one, or both equal).
    /// Default 4194304 (Linux's tcp_wmem max).
    pub snd_buf_bytes: Option<u64>,
    /// Linux `net.ipv4.tcp_wmem`: [min, default, max] send-buffer bytes. The buffer starts at the
    /// default, is sized for two windows at set-up and grows when the application finds it full,
    /// up to max (`tcp/sndbuf.rs`). Default [4096, 16384, 4194304] (Linux's, net/ipv4/tcp.c
    /// `tcp_init`; the Linux backend sets the same in its namespaces).
    pub tcp_wmem: Option<[u64; 3]>,
    /// Duplicate-ACK threshold for fast retransmit. Default 3 (RFC 5681).
    pub dupack_threshold: Option<u32>,
    /// SYN retransmissions before giving up. Default 6 (Linux tcp_syn_retries).
    pub syn_retries: Option<u32>,
    pub pacing: Option<Pacing>,
    /// ECN (RFC 3168): data is sent ECT(0), CE marks are echoed, and the sender
    /// reduces its window once per round trip (CWR). With `cca = "dctcp"` the
    /// receiver echoes each mark exactly (RFC 8257 §3.2). Default false.
    pub ecn: Option<bool>,
    /// Linux `net.ipv4.tcp_recovery` bitmask (ip-sysctl.rst): 0x1 RACK loss detection
    /// (RFC 8985) instead of the dupthresh rules, 0x2 static reordering window, 0x4 no
    /// dupthresh shortcut in RACK. Range 0..=7, default 1 (Linux's default).
    pub recovery: Option<u32>,
    /// Linux `net.ipv4.tcp_early_retrans`: 3 or 4 enable the Tail Loss Probe (RFC 8985 §7),
    /// 0..=2 disable it. Range 0..=4, default 3 (Linux's default).
    pub early_retrans: Option<u32>,
    /// Linux `net.ipv4.tcp_dsack`: the receiver reports duplicates with D-SACK (RFC 2883),
    /// which the sender uses to undo spurious reductions (RFC 3708). Default true.
    pub dsack: Option<bool>,
    /// Linux `net.ipv4.tcp_frto`: F-RTO (RFC 5682) detection of spurious RTOs; 0 off,
    /// 1 or 2 on (the kernel runs the SACK-enhanced variant for either). Default 2 (Linux).
    pub frto: Option<u32>,
    /// Linux `net.ipv4.tcp_min_tso_segs`: the least segments a paced sender lets leave back to
    /// back per pacing release (one GSO skb; BBR sets its own floor). Range 1..=255, default 2.
    pub min_tso_segs: Option<u32>,
    /// Linux device attribute `gso_max_segs` (`ip link set DEV gso_max_segs N`): the most
    /// segments per GSO skb, so per pacing release. 1 paces every segment on its own, as ns-3.
    /// Range 1..=65535, default 65535 (`GSO_MAX_SEGS`).
    pub gso_max_segs: Option<u32>,
    /// Linux `net.ipv4.tcp_comp_sack_nr`: while out-of-order data waits, after three duplicate
    /// ACKs for one `rcv_nxt` up to this many more are held for a timer (5 % of the RTT, at
    /// most 1 ms) and sent as one. 0 sends every one. Range 0..=255, default 44 (Linux's).
    pub comp_sack_nr: Option<u32>,
    /// Which TCP the fields left unset follow: "linux" (default) or "ns3" (ns-3.44's
    /// defaults and mechanisms, `scenario/tcp_profile.rs`). Fields set still win.
    pub profile: Option<TcpProfile>,
    /// The Reno building blocks (`cc/common.rs`: slow start, additive increase, ssthresh) the
    /// algorithms that use them run: "linux" (`tcp_slow_start`, `tcp_cong_avoid_ai`,
    /// `tcp_reno_ssthresh`: the segments acked, half the cwnd) or "ns3" (ns-3.44's `TcpNewReno`,
    /// RFC 5681 eq. 2-4 read per ACK: one segment per ACK, SMSS^2/cwnd per ACK, half the flight).
    /// Default linux.
    pub reno_rules: Option<Stack>,
    /// Fast recovery's sending: "linux" (`tcp_cwnd_reduction`'s PRR) or "ns3" (`TcpPrrRecovery`,
    /// `tcp/recovery.rs`, plus one segment beyond cwnd on each partial ACK, `ProcessAck`'s
    /// `DoRetransmit`). Default linux.
    pub fast_recovery: Option<Stack>,
    /// Undo of spurious reductions (RFC 3522 Eifel, RFC 3708 D-SACK, F-RTO), as Linux; ns-3.44
    /// undoes none. Default true.
    pub undo: Option<bool>,
    /// When the retransmission timer restarts and its back-off ends: "linux" (`tcp_rearm_rto`,
    /// back-off until a valid RTT sample) or "ns3" (`TcpSocketBase::NewAck`). Default linux.
    pub rto_timer: Option<Stack>,
    /// Which ACKs give RTT samples: "linux" (`tcp_clean_rtx_queue`) or "ns3"
    /// (`TcpSocketBase::EstimateRtt`: none from data sent before an RTO). Default linux.
    pub rtt_sampling: Option<Stack>,
    /// The RTT handed to the congestion control: "sample" (Linux) or "srtt" (ns-3). Default sample.
    pub cc_rtt: Option<CcRtt>,
    /// The delivery-rate sampler: "linux" (`tcp_rate.c`) or "ns3" (`TcpRateLinux`, which keeps
    /// its sample across ACKs). Default linux.
    pub rate_sample: Option<Stack>,
    /// When the receiver ACKs: "linux" (`tcp/delack.rs`: quick-ACK, adaptive timer, window test,
    /// the read) or "ns3" (every `delayed_ack_count` in-order segments, a fixed timer;
    /// `TcpSocketBase::ReceivedData`). Default linux.
    pub ack_policy: Option<Stack>,
    /// The window the receiver offers: "linux" (`tcp/rwnd.rs`) or "ns3" (the free space of a
    /// fixed `rcv_buf_bytes` buffer, `TcpRxBuffer`). Default linux.
    pub receive_window: Option<Stack>,
    /// The send buffer: "linux" (`tcp/sndbuf.rs`) or "ns3" (a fixed `snd_buf_bytes` of payload,
    /// `TcpTxBuffer`). Default linux.
    pub send_buffer: Option<Stack>,
}

/// Resolved TCP parameters of one flow.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    pub mss_bytes: Option<u32>,
    pub sack: bool,
    pub timestamps: bool,
    pub rto_estimator: RtoEstimator,
    pub min_rto: SimDuration,
    pub initial_rto: SimDuration,
    pub max_rto: SimDuration,
    pub delayed_ack_count: u32,
    pub delayed_ack_timeout: SimDuration,
    pub initial_cwnd_segs: u32,
    /// The largest receive buffer, `tcp_rmem[2]`.
    pub rcv_buf_bytes: u64,
    pub tcp_rmem: [u64; 3],
    pub tcp_moderate_rcvbuf: bool,
    /// The largest send buffer, `tcp_wmem[2]`.
    pub snd_buf_bytes: u64,
    pub tcp_wmem: [u64; 3],
    pub dupack_threshold: u32,
    pub syn_retries: u32,
    pub pacing: Pacing,
    pub ecn: bool,
    pub recovery: u32,
    pub early_retrans: u32,
    pub dsack: bool,
    pub frto: u32,
    pub min_tso_segs: u32,
    pub gso_max_segs: u32,
    pub comp_sack_nr: u32,
    pub profile: TcpProfile,
    pub reno_rules: Stack,
    pub fast_recovery: Stack,
    pub undo: bool,
    pub rto_timer: Stack,
    pub rtt_sampling: Stack,
    pub cc_rtt: CcRtt,
    pub rate_sample: Stack,
    pub ack_policy: Stack,
    pub receive_window: Stack,
    pub send_buffer: Stack,
}

impl TcpParams {
    /// These parameters as a `[tcp]` table with every field set, `mss_bytes` the one the flow
    /// uses (for the resolved view of a scenario; durations back in ms, as written).
    pub fn to_spec(&self, mss_bytes: u32) -> TcpSpec {
        TcpSpec {
            mss_bytes: Some(mss_bytes),
            sack: Some(self.sack),
            timestamps: Some(self.timestamps),
            rto_estimator: Some(self.rto_estimator),
            min_rto_ms: Some(self.min_rto.as_ms_f64()),
            initial_rto_ms: Some(self.initial_rto.as_ms_f64()),
            max_rto_ms: Some(self.max_rto.as_ms_f64()),
            delayed_ack_count: Some(self.delayed_ack_count),
            delayed_ack_timeout_ms: Some(self.delayed_ack_timeout.as_ms_f64()),
            initial_cwnd_segs: Some(self.initial_cwnd_segs),
            rcv_buf_bytes: Some(self.rcv_buf_bytes),
            tcp_rmem: Some(self.tcp_rmem),
            tcp_moderate_rcvbuf: Some(self.tcp_moderate_rcvbuf),
            snd_buf_bytes: Some(self.snd_buf_bytes),
            tcp_wmem: Some(self.tcp_wmem),
            dupack_threshold: Some(self.dupack_threshold),
            syn_retries: Some(self.syn_retries),
            pacing: Some(self.pacing),
            ecn: Some(self.ecn),
            recovery: Some(self.recovery),
            early_retrans: Some(self.early_retrans),
            dsack: Some(self.dsack),
            frto: Some(self.frto),
            min_tso_segs: Some(self.min_tso_segs),
            gso_max_segs: Some(self.gso_max_segs),
            comp_sack_nr: Some(self.comp_sack_nr),
            profile: Some(self.profile),
            reno_rules: Some(self.reno_rules),
            fast_recovery: Some(self.fast_recovery),
            undo: Some(self.undo),
            rto_timer: Some(self.rto_timer),
            rtt_sampling: Some(self.rtt_sampling),
            cc_rtt: Some(self.cc_rtt),
            rate_sample: Some(self.rate_sample),
            ack_policy: Some(self.ack_policy),
            receive_window: Some(self.receive_window),
            send_buffer: Some(self.send_buffer),
        }
    }
}

impl TcpSpec {
    /// `self` with every unset field taken from `base`.
    pub fn over(&self, base: &TcpSpec) -> TcpSpec {
        macro_rules! pick {
            ($($f:ident),*) => { TcpSpec { $($f: self.$f.clone().or_else(|| base.$f.clone())),* } };
        }
        pick!(
            mss_bytes,
            sack,
            timestamps,
            rto_estimator,
            min_rto_ms,
            initial_rto_ms,
            max_rto_ms,
            delayed_ack_count,
            delayed_ack_timeout_ms,
            initial_cwnd_segs,
            rcv_buf_bytes,
            tcp_rmem,
            tcp_moderate_rcvbuf,
            snd_buf_bytes,
            tcp_wmem,
            dupack_threshold,
            syn_retries,
            pacing,
            ecn,
            recovery,
            early_retrans,
            dsack,
            frto,
            min_tso_segs,
            gso_max_segs,
            comp_sack_nr,
            profile,
            reno_rules,
            fast_recovery,
            undo,
            rto_timer,
            rtt_sampling,
            cc_rtt,
            rate_sample,
            ack_policy,
            receive_window,
            send_buffer
        )
    }

    /// `tcp_rmem` with `rcv_buf_bytes` as its max when only that is given (the default,
    /// 131072, then no larger than the max, as the first buffer cannot exceed the largest).
    pub fn rmem(&self) -> [u64; 3] {
        socket_buffer(self.tcp_rmem, self.rcv_buf_bytes, LINUX_TCP_RMEM)
    }

    /// `tcp_wmem` with `snd_buf_bytes` as its max when only that is given (min and default no
    /// larger than the max).
    pub fn wmem(&self) -> [u64; 3] {
        socket_buffer(self.tcp_wmem, self.snd_buf_bytes, LINUX_TCP_WMEM)
    }

    /// The parameters of a flow running `cca`: the fields set here, then what its profile
    /// chooses for that algorithm (`tcp_profile::defaults`), then Linux's defaults (`resolve`).
    pub fn resolve_for(&self, cca: &str) -> TcpParams {
        let mut merged = self.over(&tcp_profile::defaults(self.profile.unwrap_or_default(), cca));
        // A buffer given as its sysctl triple keeps the triple's max: the profile's size is
        // for the other name of that max, which would contradict it.
        if self.tcp_rmem.is_some() {
            merged.rcv_buf_bytes = self.rcv_buf_bytes;
        }
        if self.tcp_wmem.is_some() {
            merged.snd_buf_bytes = self.snd_buf_bytes;
        }
        merged.resolve()
    }

    /// Fill every unset field with Linux's default (values are validated before this is called).
    pub fn resolve(&self) -> TcpParams {
        TcpParams {
            mss_bytes: self.mss_bytes,
            sack: self.sack.unwrap_or(true),
            timestamps: self.timestamps.unwrap_or(true),
            rto_estimator: self.rto_estimator.unwrap_or_default(),
            min_rto: SimDuration::from_ms_f64(self.min_rto_ms.unwrap_or(200.0)),
            initial_rto: SimDuration::from_ms_f64(self.initial_rto_ms.unwrap_or(1000.0)),
            max_rto: SimDuration::from_ms_f64(self.max_rto_ms.unwrap_or(120_000.0)),
            delayed_ack_count: self.delayed_ack_count.unwrap_or(2),
            delayed_ack_timeout: SimDuration::from_ms_f64(self.delayed_ack_timeout_ms.unwrap_or(40.0)),
            initial_cwnd_segs: self.initial_cwnd_segs.unwrap_or(10),
            rcv_buf_bytes: self.rmem()[2],
            tcp_rmem: self.rmem(),
            tcp_moderate_rcvbuf: self.tcp_moderate_rcvbuf.unwrap_or(true),
            snd_buf_bytes: self.wmem()[2],
            tcp_wmem: self.wmem(),
            dupack_threshold: self.dupack_threshold.unwrap_or(3),
            syn_retries: self.syn_retries.unwrap_or(6),
            pacing: self.pacing.unwrap_or_default(),
            ecn: self.ecn.unwrap_or(false),
            recovery: self.recovery.unwrap_or(LINUX_TCP_RECOVERY),
            early_retrans: self.early_retrans.unwrap_or(LINUX_TCP_EARLY_RETRANS),
            dsack: self.dsack.unwrap_or(true),
            frto: self.frto.unwrap_or(LINUX_TCP_FRTO),
            min_tso_segs: self.min_tso_segs.unwrap_or(LINUX_TCP_MIN_TSO_SEGS),
            gso_max_segs: self.gso_max_segs.unwrap_or(LINUX_GSO_MAX_SEGS),
            comp_sack_nr: self.comp_sack_nr.unwrap_or(LINUX_TCP_COMP_SACK_NR),
            profile: self.profile.unwrap_or_default(),
            reno_rules: self.reno_rules.unwrap_or_default(),
            fast_recovery: self.fast_recovery.unwrap_or_default(),
            undo: self.undo.unwrap_or(true),
            rto_timer: self.rto_timer.unwrap_or_default(),
            rtt_sampling: self.rtt_sampling.unwrap_or_default(),
            cc_rtt: self.cc_rtt.unwrap_or_default(),
            rate_sample: self.rate_sample.unwrap_or_default(),
            ack_policy: self.ack_policy.unwrap_or_default(),
            receive_window: self.receive_window.unwrap_or_default(),
            send_buffer: self.send_buffer.unwrap_or_default(),
        }
    }
}
