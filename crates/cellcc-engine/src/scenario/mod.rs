//! THE scenario schema: the only definition of what a scenario file may say.
//!
//! Python passes a parsed TOML/JSON document through as JSON; nothing else
//! declares these fields. Unknown fields are errors. `Scenario::from_json`
//! parses and then [`validate`](Scenario::validate)s, so every error names a
//! field path, the value and what is allowed.
//!
//! ```toml
//! version = 1
//! duration_s = 30
//! [[nodes]]  id = "server"  kind = "host"
//! [[links]]  id = "bottleneck"  a = "server"  b = "client"  rate_mbps = 20  delay_ms = 20
//! [[flows]]  src = "server"  dst = "client"  cca = "cubic"  app = { kind = "bulk" }
//! ```

mod lte;
mod network;
mod nr;
mod tcp;
mod tcp_profile;
mod validate;
mod wifi;

pub use lte::{
    n_rbs_of, CellSpec, CqiSpec, DlCqiMode, HarqSpec, LinkAdaptationSpec, MacSpec, OllaSpec, PdcchSpec, SinrSpec,
    UeSpec, UplinkSpec, BANDWIDTHS_MHZ_RBS, DEFAULT_CQI_DELAY_MS,
};
pub use network::{HandoverSpec, NetworkSpec, SiteSpec, MAX_NETWORK_CELLS};
pub use nr::{CsiSpec, DuplexSpec, NrCellSpec, NrHarqSpec, NrLinkAdaptationSpec, NrUeSpec, NrUplinkSpec, PdschSpec};
pub use tcp::{CcRtt, Pacing, RtoEstimator, Stack, TcpParams, TcpProfile, TcpSpec};
pub use tcp_profile::NS3_NEWRENO_RULES_CCAS;
pub use wifi::{ApRadio, Band, BssSpec, EdcaSpec, FecSpec, Standard, StationSpec, WifiProfile};

use crate::error::ScenarioError;
use serde::{Deserialize, Serialize};

/// Schema version this engine reads.
pub const SCHEMA_VERSION: u32 = 1;

/// A complete simulation scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Schema version; must be [`SCHEMA_VERSION`].
    pub version: u32,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Simulated time limit in seconds; a run also ends when every flow is done.
    pub duration_s: f64,
    /// Default seed (the CLI's `--seed` overrides it).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Which backend runs it: the simulator, or real Linux TCP.
    #[serde(default)]
    pub backend: Backend,
    /// TCP settings for every flow; a flow's own `tcp` table overrides them.
    #[serde(default)]
    pub tcp: TcpSpec,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    /// LTE cells: each joins an eNB node to its UE nodes over the radio.
    #[serde(default)]
    pub cells: Vec<CellSpec>,
    /// The cells as one network on a shared channel, with handover (`scenario::network`).
    /// Absent: each cell is on its own (its `channel` or per-UE SINR sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkSpec>,
    /// Wi-Fi BSSes: each joins an AP node to its station nodes over the air.
    #[serde(default)]
    pub bsses: Vec<BssSpec>,
    /// 5G NR cells: each joins a gNB node to its UE nodes over the radio (docs/nr.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nr_cells: Vec<NrCellSpec>,
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub output: OutputSpec,
    /// Output only: every default the engine resolved (`world::resolved`), written beside the
    /// scenario by `cellcc validate --json` and in each run's `scenario.json`. Never
    /// serialized back into the canonical JSON, so it takes no part in the scenario hash;
    /// read back, it must equal the engine's own resolution (`world::resolved::check`).
    #[serde(default, skip_serializing)]
    pub resolved: Option<serde_json::Value>,
}

fn default_seed() -> u64 {
    1
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    #[default]
    Engine,
    Linux,
    /// ns-3 3.44 (and its LENA LTE module), through cellcc's C++ driver (python/cellcc/backends/ns3).
    Ns3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// An end system: sources and sinks flows.
    Host,
    /// Forwards packets by static route.
    Router,
    /// An LTE base station: forwards between its cell and its links.
    Enb,
    /// A user equipment: an end system attached to one LTE or NR cell.
    Ue,
    /// A Wi-Fi access point: forwards between its BSS and its links.
    Ap,
    /// A Wi-Fi station: an end system associated with one BSS.
    Sta,
    /// A 5G NR base station: forwards between its NR cell and its links.
    Gnb,
}

impl NodeKind {
    /// Whether flows may start or end here.
    pub fn is_end_system(self) -> bool {
        matches!(self, NodeKind::Host | NodeKind::Ue | NodeKind::Sta)
    }
}

/// Encapsulation a link adds to every packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tunnel {
    /// GTP-U over UDP over IPv4, as on the EPC's S1-U (TS 29.281 §5.1: 8-byte GTP-U header;
    /// + 8 UDP + 20 IPv4 = 36 bytes per packet, as ns-3's `EpcSgwPgwApplication`).
    Gtpu,
}

/// GTP-U (8) + UDP (8) + IPv4 (20) header bytes.
pub const GTPU_OVERHEAD_BYTES: u32 = 36;

impl Tunnel {
    pub fn overhead_bytes(self) -> u32 {
        match self {
            Tunnel::Gtpu => GTPU_OVERHEAD_BYTES,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub id: String,
    pub kind: NodeKind,
}

/// Queue discipline of one link direction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueSpec {
    /// FIFO that drops arrivals when full. Give exactly one limit.
    DropTail {
        #[serde(default)]
        limit_packets: Option<u32>,
        #[serde(default)]
        limit_bytes: Option<u64>,
        /// CE-mark an ECN-capable packet that arrives to at least this many queued
        /// packets (DCTCP's step marking threshold K, RFC 8257 §3.1). Off by default.
        #[serde(default)]
        ecn_threshold_packets: Option<u32>,
    },
}

/// ns-3's `DropTailQueue` default, "100p" (src/network/utils/queue.cc MaxSize).
pub const DEFAULT_QUEUE_LIMIT_PACKETS: u32 = 100;

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::DropTail {
            limit_packets: Some(DEFAULT_QUEUE_LIMIT_PACKETS),
            limit_bytes: None,
            ecn_threshold_packets: None,
        }
    }
}

/// Random loss applied to packets crossing one link direction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossSpec {
    #[default]
    None,
    /// Each packet lost independently with probability `p`.
    Bernoulli { p: f64 },
    /// Two-state Markov loss (Gilbert 1960, Elliott 1963), stepped once per packet.
    GilbertElliott {
        /// P(good -> bad) per packet.
        p_good_to_bad: f64,
        /// P(bad -> good) per packet.
        p_bad_to_good: f64,
        /// Loss probability in the good state.
        #[serde(default)]
        loss_good: f64,
        /// Loss probability in the bad state.
        #[serde(default = "one")]
        loss_bad: f64,
    },
}

fn one() -> f64 {
    1.0
}

/// A step change of a rate link's capacity.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateChange {
    /// When the new rate takes effect, seconds from the start.
    pub at_s: f64,
    pub rate_mbps: f64,
}

/// Settings one direction of a link may override.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionSpec {
    pub rate_mbps: Option<f64>,
    /// Step changes of `rate_mbps` over time, in increasing `at_s`.
    pub rate_changes: Option<Vec<RateChange>>,
    pub delay_ms: Option<f64>,
    pub queue: Option<QueueSpec>,
    pub loss: Option<LossSpec>,
    /// Mahimahi trace file (one line per 1-MTU delivery opportunity, in ms); replaces `rate_mbps`.
    pub trace: Option<String>,
}

/// A full-duplex link between nodes `a` and `b`. The top-level settings apply
/// to both directions; `forward` (a -> b) and `reverse` (b -> a) override them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub id: String,
    pub a: String,
    pub b: String,
    /// Largest IP datagram the link carries, bytes.
    #[serde(default = "default_mtu")]
    pub mtu_bytes: u32,
    pub rate_mbps: Option<f64>,
    /// Step changes of `rate_mbps` over time (both directions unless overridden).
    pub rate_changes: Option<Vec<RateChange>>,
    /// One-way propagation delay, ms.
    pub delay_ms: Option<f64>,
    pub queue: Option<QueueSpec>,
    pub loss: Option<LossSpec>,
    pub trace: Option<String>,
    /// Encapsulation on this link (`"gtpu"` for an EPC S1-U); its bytes count against `mtu_bytes`.
    #[serde(default)]
    pub tunnel: Option<Tunnel>,
    #[serde(default)]
    pub forward: DirectionSpec,
    #[serde(default)]
    pub reverse: DirectionSpec,
}

/// Ethernet MTU (RFC 894).
pub const ETHERNET_MTU_BYTES: u32 = 1500;
fn default_mtu() -> u32 {
    ETHERNET_MTU_BYTES
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    #[default]
    Tcp,
    Udp,
}

/// What the application at the source does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppSpec {
    /// Always has data to send (ns-3 BulkSendApplication, iperf).
    Bulk,
    /// Sends `bytes` then closes; reports completion time.
    Finite { bytes: u64 },
    /// Writes at `rate_mbps` in `write_bytes` chunks (seed 000's 1 Mbit/s sources).
    RateLimited {
        rate_mbps: f64,
        #[serde(default)]
        write_bytes: Option<u32>,
    },
    /// UDP constant bit rate of `packet_bytes` payloads (ns-3 UdpClient / OnOff).
    Cbr {
        rate_mbps: f64,
        #[serde(default = "default_cbr_payload")]
        packet_bytes: u32,
    },
}

/// ns-3 UdpClient's default PacketSize, 1024 B.
fn default_cbr_payload() -> u32 {
    1024
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Defaults to `flow<N>`.
    #[serde(default)]
    pub id: Option<String>,
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub transport: Transport,
    /// Congestion control by registry name (`cellcc ccas`). Default: ns-3's, "newreno".
    #[serde(default)]
    pub cca: Option<String>,
    /// The algorithm's parameters; names and defaults in `cellcc ccas`.
    #[serde(default)]
    pub cca_params: Option<serde_json::Map<String, serde_json::Value>>,
    pub app: AppSpec,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Overrides of the scenario's `tcp` table.
    #[serde(default)]
    pub tcp: Option<TcpSpec>,
    /// The Wi-Fi access category its packets (both directions) are sent in over a BSS: "be"
    /// (default, best effort), "bk", "vi" or "vo" (IEEE 802.11-2020 §10.2.3.2, EDCA). Only for
    /// a flow that crosses a BSS.
    #[serde(default)]
    pub access_category: Option<crate::wifi::mac::edca::Ac>,
}

/// What the run records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Width of the time-series slots, ms (the seeds use 100 ms).
    #[serde(default = "default_slot_ms")]
    pub slot_ms: f64,
    /// Record cwnd/ssthresh/pacing rate at every change. Default (unset): on for runs of
    /// at most [`LONG_RUN_S`], off for longer ones (a per-sample trace is opt-in there).
    #[serde(default)]
    pub cwnd_trace: Option<bool>,
    /// Record every RTT sample. Default as `cwnd_trace`.
    #[serde(default)]
    pub rtt_trace: Option<bool>,
    /// Link ids to capture as pcap, both directions (`"id"`) or one (`"id:forward"`, `"id:reverse"`).
    #[serde(default)]
    pub pcap: Vec<String>,
}

fn default_slot_ms() -> f64 {
    100.0
}

/// Longest run whose per-sample traces are on by default, simulated seconds: a minute of a
/// 100 Mbit/s flow is ~0.5 M trace rows (the decimation cap of `world/report.rs`).
pub const LONG_RUN_S: f64 = 60.0;

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec { slot_ms: default_slot_ms(), cwnd_trace: None, rtt_trace: None, pcap: Vec::new() }
    }
}

impl OutputSpec {
    /// Whether the cwnd and RTT traces are recorded in a run of `duration_s`: as set, else
    /// only for a run of at most [`LONG_RUN_S`].
    pub fn traces_on(&self, duration_s: f64) -> (bool, bool) {
        let short = duration_s <= LONG_RUN_S;
        (self.cwnd_trace.unwrap_or(short), self.rtt_trace.unwrap_or(short))
    }
}

/// ns-3's default TCP congestion control (TcpL4Protocol SocketType), used by seeds 001 and 004.
pub const DEFAULT_CCA: &str = "newreno";

impl Scenario {
    /// Parse a JSON document and validate it; every error names its field.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let sc: Scenario = serde_path_to_error::deserialize(de)
            .map_err(|e| type_error(&e.path().to_string(), &e.inner().to_string()))?;
        sc.validate()?;
        Ok(sc)
    }

    /// Canonical JSON of the scenario (stable key order): what the scenario hash is taken over.
    pub fn to_canonical_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The id of flow `i`, defaulted.
    pub fn flow_id(&self, i: usize) -> String {
        self.flows[i].id.clone().unwrap_or_else(|| format!("flow{i}"))
    }
}

/// A deserialization error as a [`ScenarioError`]: a missing field is named by its own path
/// (`links[0].id`, not `links[0]`), and serde_json's "at line ..." suffix is dropped.
fn type_error(path: &str, msg: &str) -> ScenarioError {
    let msg = msg.split(" at line ").next().unwrap_or(msg);
    let parent = if path == "." { "" } else { path };
    let missing = msg.strip_prefix("missing field `").and_then(|rest| rest.strip_suffix('`'));
    match missing {
        Some(field) if parent.is_empty() => ScenarioError::new(field, "", "missing: this field is required"),
        Some(field) => ScenarioError::new(format!("{parent}.{field}"), "", "missing: this field is required"),
        None => ScenarioError::new(if parent.is_empty() { "scenario" } else { parent }, "", msg),
    }
}

#[cfg(test)]
mod tests {
    use super::Scenario;

    #[test]
    fn a_missing_field_is_named_by_its_own_path() {
        let e = Scenario::from_json(r#"{"duration_s": 1, "nodes": [], "links": [], "flows": []}"#).unwrap_err();
        assert_eq!((e.path.as_str(), e.allowed.as_str()), ("version", "missing: this field is required"));
        let doc = r#"{"version": 1, "duration_s": 1, "nodes": [{"id": "a"}], "links": [], "flows": []}"#;
        assert_eq!(Scenario::from_json(doc).unwrap_err().path, "nodes[0].kind");
        // Anything else keeps serde's message, at the field it names.
        let e = Scenario::from_json(r#"{"version": "one"}"#).unwrap_err();
        assert!(e.path == "version" && e.allowed.starts_with("invalid type"), "{e}");
    }
}
