//! The Mahimahi trace link delivers exactly the trace's opportunities.

use cellcc_engine::link::trace::TraceSchedule;
use cellcc_engine::Scenario;
use serde_json::json;

#[test]
fn a_saturated_trace_link_delivers_one_mtu_packet_per_opportunity() {
    // A bursty trace: 0..3 opportunities per ms, looping after 997 ms.
    let lines: Vec<String> =
        (1..=997u64).flat_map(|ms| std::iter::repeat_n(ms, (ms * 7 % 4) as usize)).map(|m| m.to_string()).collect();
    let text = lines.join("\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bursty.down");
    std::fs::write(&path, &text).unwrap();
    let duration_s = 2.5;
    // UDP at 100 Mbit/s of 1472 B payloads = 1500 B datagrams, far above the
    // trace's ~18 Mbit/s, into a queue that never empties.
    let v = json!({
        "version": 1, "duration_s": duration_s,
        "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
        "links": [{"id": "cell", "a": "a", "b": "b", "delay_ms": 0.0, "trace": path.to_str().unwrap(),
                   "queue": {"kind": "drop_tail", "limit_packets": 1000000}}],
        "flows": [{"src": "a", "dst": "b", "transport": "udp", "app": {"kind": "cbr", "rate_mbps": 100.0, "packet_bytes": 1472}}]
    });
    let out = cellcc_engine::run(&Scenario::from_json(&v.to_string()).unwrap(), 1).unwrap();
    let schedule = TraceSchedule::parse(&text).unwrap();
    let end_ns = (duration_s * 1e9) as u64;
    let opportunities = (0..).take_while(|&k| schedule.time_of(k).as_ns() <= end_ns).count() as u64;
    assert_eq!(out.flows.u64s("rx_packets")[0], opportunities);
}
