//! TCP profiles: the one place where a profile name becomes a set of `[tcp]` choices.
//!
//! A profile is not a fork of the TCP: every mechanism lives once (`tcp/`, `cc/common.rs`),
//! and a `[tcp]` field picks its variant. A profile only fills the fields a scenario leaves
//! unset, so `cellcc validate --json` shows every choice it made, and a field set by hand
//! still wins (`TcpSpec::resolve_for`).
//!
//! ```text
//!  flow's [tcp] ─over─► scenario's [tcp] ─over─► defaults(profile, cca) ─over─► Linux (resolve)
//! ```
//!
//! - `linux` (the default) chooses nothing: every field keeps the Linux default of
//!   `TcpSpec::resolve`.
//! - `ns3` is ns-3.44's TCP as `TcpSocketBase` runs it with every attribute at its default
//!   (the sources are cited value by value below; docs/tcp.md, "The ns-3 profile").
//!
//! The MSS is not part of either: ns-3's `SegmentSize` default (536, tcp-socket.cc line 62)
//! is RFC 879's fallback for a peer that announced none, and ns-3 neither announces an MSS
//! nor derives it from the device MTU, so every ns-3 study sets `SegmentSize` itself. The
//! profile keeps the engine's MSS from the path MTU, and the ns-3 backend passes that MSS
//! as `SegmentSize` (python/cellcc/backends/ns3/plan.py), so both sides send the same segments.

use super::tcp::{CcRtt, RtoEstimator, Stack, TcpProfile, TcpSpec};

/// The engine's algorithms whose ns-3.44 class grows cwnd by `TcpNewReno::SlowStart` (one
/// segment per ACK, tcp-congestion-ops.cc line 152; `TcpBic::IncreaseWindow` does the same
/// itself), so the ns3 profile gives them `reno_rules = "ns3"`: ns-3's slow start, and where the
/// engine's algorithm uses the Reno building blocks for them, its per-ACK additive increase and
/// its ssthresh of half the flight (`TcpNewReno::CongestionAvoidance`, `GetSsThresh`, lines
/// 177 and 233). The others keep Linux's rules: ns-3's `TcpCubic` (tcp-cubic.cc
/// `IncreaseWindow`) and `TcpLinuxReno` (reno, and `TcpDctcp` built on it) count the segments
/// acked and halve cwnd, `TcpBbr` sets cwnd itself, `TcpHybla` has its own slow start, and
/// ns-3.44 has no Westwood, Compound, CDG, NV, BBRv3 or Copa to copy.
pub const NS3_NEWRENO_RULES_CCAS: &[&str] = &[
    "newreno",
    "bic",
    "highspeed",
    "htcp",
    "scalable",
    "vegas",
    "veno",
    "westwoodplus",
    "illinois",
    "yeah",
    "ledbat",
    "lp",
];

/// ns-3.44 tcp-socket.cc `SndBufSize` and `RcvBufSize` (lines 50, 56): 131072 bytes ("128k").
pub const NS3_SOCKET_BUFFER_BYTES: u64 = 131_072;
/// ns-3.44 tcp-socket-base.cc `MinRto` (line 143): 1 s, RFC 6298 §2.4's floor.
pub const NS3_MIN_RTO_MS: f64 = 1000.0;
/// ns-3.44 tcp-socket.cc `ConnTimeout` (line 79): 3 s, the SYN's timer (its data RTO comes
/// from the handshake's RTT sample, as the engine's).
pub const NS3_CONN_TIMEOUT_MS: f64 = 3000.0;
/// ns-3.44 tcp-socket-base.cc `ReTxTimeout` (line 3951): the doubled RTO is capped at 60 s.
pub const NS3_MAX_RTO_MS: f64 = 60_000.0;
/// ns-3.44 tcp-socket.cc `DelAckTimeout` (line 98): 200 ms.
pub const NS3_DELACK_TIMEOUT_MS: f64 = 200.0;
/// ns-3.44 tcp-socket.cc `InitialCwnd` (line 74): 10 segments.
pub const NS3_INITIAL_CWND_SEGS: u32 = 10;
/// ns-3.44 tcp-socket.cc `DelAckCount` (line 104): 2 segments.
pub const NS3_DELACK_COUNT: u32 = 2;
/// ns-3.44 tcp-socket.cc `ConnCount` (line 85): 6 SYN retransmissions.
pub const NS3_CONN_COUNT: u32 = 6;
/// ns-3.44 tcp-socket-base.cc `ReTxThreshold` (line 177): 3 duplicate ACKs.
pub const NS3_RETX_THRESHOLD: u32 = 3;

/// What `profile` chooses for a flow running `cca` (its registry name): the values the
/// unset fields take before Linux's defaults fill the rest.
pub fn defaults(profile: TcpProfile, cca: &str) -> TcpSpec {
    match profile {
        TcpProfile::Linux => TcpSpec { profile: Some(TcpProfile::Linux), ..TcpSpec::default() },
        TcpProfile::Ns3 => ns3(cca),
    }
}

/// ns-3.44's TCP, attribute by attribute and mechanism by mechanism.
fn ns3(cca: &str) -> TcpSpec {
    let reno_rules = if NS3_NEWRENO_RULES_CCAS.contains(&cca) { Stack::Ns3 } else { Stack::Linux };
    TcpSpec {
        profile: Some(TcpProfile::Ns3),
        // tcp-socket-base.cc `Sack` and `Timestamp` (lines 132, 137): both on, as Linux.
        sack: Some(true),
        timestamps: Some(true),
        // tcp-l4-protocol.cc `RttEstimatorType` (line 67): `RttMeanDeviation`, RFC 6298 §2 with
        // alpha 1/8, beta 1/4 (rtt-estimator.cc lines 126, 131) and `ClockGranularity` 1 ms
        // (tcp-socket-base.cc line 150): `rto_estimator = "rfc6298"` (tcp/rtt.rs, G = 1 ms).
        rto_estimator: Some(RtoEstimator::Rfc6298),
        min_rto_ms: Some(NS3_MIN_RTO_MS),
        initial_rto_ms: Some(NS3_CONN_TIMEOUT_MS),
        max_rto_ms: Some(NS3_MAX_RTO_MS),
        delayed_ack_count: Some(NS3_DELACK_COUNT),
        delayed_ack_timeout_ms: Some(NS3_DELACK_TIMEOUT_MS),
        initial_cwnd_segs: Some(NS3_INITIAL_CWND_SEGS),
        rcv_buf_bytes: Some(NS3_SOCKET_BUFFER_BYTES),
        // ns-3 has no receive-buffer autotuning: `RcvBufSize` is the buffer for good.
        tcp_moderate_rcvbuf: Some(false),
        snd_buf_bytes: Some(NS3_SOCKET_BUFFER_BYTES),
        dupack_threshold: Some(NS3_RETX_THRESHOLD),
        syn_retries: Some(NS3_CONN_COUNT),
        // tcp-socket-state.cc `EnablePacing` (line 21) off; `TcpBbr::Init` turns it on for BBR:
        // the engine's "auto".
        pacing: Some(crate::scenario::Pacing::Auto),
        // tcp-socket-base.cc `UseEcn` (line 187): Off.
        ecn: Some(false),
        // ns-3.44 has no RACK, no Tail Loss Probe and no F-RTO: `TcpSocketBase::DupAck` (line
        // 1737) enters recovery on the ReTxThreshold-th duplicate ACK or RFC 6675 IsLost, and
        // an RTO is recovered by retransmission only (`ReTxTimeout`, line 3860).
        recovery: Some(0),
        early_retrans: Some(0),
        frto: Some(0),
        // `TcpRxBuffer` reports no duplicate as D-SACK, and the sender undoes no reduction.
        dsack: Some(false),
        undo: Some(false),
        // `TcpSocketBase::ReceivedData` (line 3619) sends an ACK for every out-of-order segment.
        comp_sack_nr: Some(0),
        // `TcpSocketBase::SendDataPacket` (line 3187) paces each segment on its own timer.
        gso_max_segs: Some(1),
        reno_rules: Some(reno_rules),
        // tcp-l4-protocol.cc `RecoveryType` (line 77): `TcpPrrRecovery`; and `ProcessAck`'s
        // retransmission on each partial ACK (line 2101).
        fast_recovery: Some(Stack::Ns3),
        rto_timer: Some(Stack::Ns3),
        rtt_sampling: Some(Stack::Ns3),
        // `ProcessAck` hands the algorithm the smoothed RTT (line 2136 and the four after it).
        cc_rtt: Some(CcRtt::Srtt),
        // `TcpSocketBase` samples delivery with `TcpRateLinux` (tcp-rate-ops.cc).
        rate_sample: Some(Stack::Ns3),
        ack_policy: Some(Stack::Ns3),
        receive_window: Some(Stack::Ns3),
        send_buffer: Some(Stack::Ns3),
        ..TcpSpec::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::REGISTRY;
    use crate::scenario::Pacing;
    use crate::sim::SimDuration;

    #[test]
    fn the_linux_profile_chooses_nothing() {
        let linux = TcpSpec::default().resolve_for("cubic");
        assert_eq!(linux, TcpSpec::default().resolve());
        assert_eq!(linux.profile, TcpProfile::Linux);
    }

    #[test]
    fn the_ns3_profile_takes_ns3_attribute_defaults_for_every_unset_field() {
        let spec = TcpSpec { profile: Some(TcpProfile::Ns3), ..TcpSpec::default() };
        let p = spec.resolve_for("newreno");
        // tcp-socket.cc SndBufSize / RcvBufSize 131072; tcp-socket-base.cc MinRto 1 s.
        assert_eq!((p.snd_buf_bytes, p.rcv_buf_bytes), (131_072, 131_072));
        assert_eq!(p.min_rto, SimDuration::from_secs(1));
        assert_eq!(p.initial_rto, SimDuration::from_secs(3));
        assert_eq!(p.max_rto, SimDuration::from_secs(60));
        assert_eq!(p.delayed_ack_timeout, SimDuration::from_ms(200));
        assert_eq!((p.delayed_ack_count, p.initial_cwnd_segs, p.dupack_threshold), (2, 10, 3));
        assert_eq!(p.rto_estimator, RtoEstimator::Rfc6298);
        assert_eq!((p.recovery, p.early_retrans, p.frto, p.dsack, p.undo), (0, 0, 0, false, false));
        assert_eq!((p.comp_sack_nr, p.gso_max_segs, p.pacing), (0, 1, Pacing::Auto));
        assert!(!p.tcp_moderate_rcvbuf);
        assert_eq!(p.reno_rules, Stack::Ns3);
        let ns3 = Stack::Ns3;
        assert_eq!(
            [
                p.fast_recovery,
                p.rto_timer,
                p.rtt_sampling,
                p.rate_sample,
                p.ack_policy,
                p.receive_window,
                p.send_buffer
            ],
            [ns3; 7]
        );
        assert_eq!(p.cc_rtt, CcRtt::Srtt);
        // ns-3's TcpCubic and TcpLinuxReno count segments in slow start and halve cwnd.
        for cca in ["cubic", "reno", "dctcp", "bbr"] {
            assert_eq!(spec.resolve_for(cca).reno_rules, Stack::Linux, "{cca}");
        }
    }

    #[test]
    fn a_field_set_by_hand_wins_over_the_profile() {
        let spec = TcpSpec {
            profile: Some(TcpProfile::Ns3),
            min_rto_ms: Some(200.0),
            reno_rules: Some(Stack::Linux),
            tcp_rmem: Some([4096, 87_380, 6_291_456]),
            ..TcpSpec::default()
        };
        let p = spec.resolve_for("newreno");
        assert_eq!((p.min_rto, p.reno_rules), (SimDuration::from_ms(200), Stack::Linux));
        // The triple set by hand keeps its max: the profile's 131072 is for its other name.
        assert_eq!((p.tcp_rmem, p.rcv_buf_bytes), ([4096, 87_380, 6_291_456], 6_291_456));
        // The rest is still ns-3's.
        assert_eq!((p.snd_buf_bytes, p.receive_window), (131_072, Stack::Ns3));
    }

    #[test]
    fn every_newreno_rules_algorithm_is_in_the_registry() {
        for cca in NS3_NEWRENO_RULES_CCAS {
            assert!(REGISTRY.iter().any(|d| d.name == *cca), "{cca}");
        }
    }
}
