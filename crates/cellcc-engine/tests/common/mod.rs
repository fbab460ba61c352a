//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

use cellcc_engine::output::RunOutput;
use cellcc_engine::Scenario;
use serde_json::{json, Value};

/// A dumbbell-free path: server -- router -- client, the router-client link
/// being the bottleneck (`rate_mbps`, one-way `delay_ms`), the access link fast.
pub fn path(rate_mbps: f64, rtt_ms: f64, queue_packets: u32, duration_s: f64) -> Value {
    json!({
        "version": 1,
        "duration_s": duration_s,
        "nodes": [
            {"id": "server", "kind": "host"},
            {"id": "router", "kind": "router"},
            {"id": "client", "kind": "host"}
        ],
        "links": [
            {"id": "access", "a": "server", "b": "router", "rate_mbps": 1000.0, "delay_ms": 1.0,
             "queue": {"kind": "drop_tail", "limit_packets": 10000}},
            {"id": "bottleneck", "a": "router", "b": "client", "rate_mbps": rate_mbps,
             "delay_ms": rtt_ms / 2.0 - 1.0,
             "queue": {"kind": "drop_tail", "limit_packets": queue_packets}}
        ],
        "flows": [
            {"src": "server", "dst": "client", "cca": "newreno", "app": {"kind": "bulk"}}
        ]
    })
}

/// Bandwidth-delay product in full-size (1500 B) packets.
pub fn bdp_packets(rate_mbps: f64, rtt_ms: f64) -> u32 {
    (rate_mbps * 1e6 * rtt_ms / 1e3 / 8.0 / 1500.0).ceil() as u32
}

pub fn run(v: &Value, seed: u64) -> RunOutput {
    let sc = Scenario::from_json(&v.to_string()).expect("valid scenario");
    cellcc_engine::run(&sc, seed).expect("run")
}

/// Mean throughput of flow `i` over the time-series slots in [from_s, to_s), bit/s.
pub fn mean_throughput(out: &RunOutput, flow: &str, from_s: f64, to_s: f64) -> f64 {
    let ids = out.timeseries.strs("flow_id");
    let t = out.timeseries.f64s("t_s");
    let thr = out.timeseries.f64s("goodput_bps");
    let sel: Vec<f64> =
        (0..t.len()).filter(|&i| ids[i] == flow && t[i] >= from_s && t[i] < to_s).map(|i| thr[i]).collect();
    sel.iter().sum::<f64>() / sel.len() as f64
}

/// pcap global header bytes.
const PCAP_GLOBAL_HEADER_BYTES: usize = 24;
/// pcap record header bytes (ts_sec, ts_nsec, incl_len, orig_len), little-endian as written.
const PCAP_RECORD_HEADER_BYTES: usize = 16;
/// The magic number of a pcap file with nanosecond timestamps (pcap-savefile(5)), the engine's.
const PCAP_NANOSECOND_MAGIC: u32 = 0xa1b2_3c4d;

/// (time s, IP packet) of every record of one of the engine's pcap captures.
pub fn pcap_records(pcap: &[u8]) -> Vec<(f64, &[u8])> {
    assert_eq!(u32::from_le_bytes(pcap[0..4].try_into().unwrap()), PCAP_NANOSECOND_MAGIC);
    let mut out = Vec::new();
    let mut off = PCAP_GLOBAL_HEADER_BYTES;
    while off + PCAP_RECORD_HEADER_BYTES <= pcap.len() {
        let word = |i: usize| u32::from_le_bytes(pcap[off + i..off + i + 4].try_into().unwrap());
        let (sec, nsec, incl) = (word(0), word(4), word(8) as usize);
        let start = off + PCAP_RECORD_HEADER_BYTES;
        out.push((sec as f64 + nsec as f64 * 1e-9, &pcap[start..start + incl]));
        off = start + incl;
    }
    out
}
