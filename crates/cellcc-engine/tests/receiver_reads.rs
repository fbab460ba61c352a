//! The receiving application reads once the segments of an instant are all in: a trace link
//! that delivers four segments at one millisecond gets one ACK for them (Linux: the softirq
//! takes in the burst, `__tcp_ack_snd_check` finds the window memory-bound and leaves the ACK
//! to the read, `__tcp_cleanup_rbuf`), where a segment-by-segment reader would send two.

mod common;

use common::{pcap_records, run};
use serde_json::json;

#[test]
fn a_burst_delivered_in_one_instant_is_acked_once() {
    // Four opportunities every 4 ms (12 Mbit/s of 1500 B packets), looping.
    let text: String = (1..=250u64).flat_map(|b| std::iter::repeat_n(b * 4, 4)).map(|m| format!("{m}\n")).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("burst.down");
    std::fs::write(&path, &text).unwrap();
    // A fixed 128 KiB receive buffer: the window is bound by memory (80480 B, 55 segments), so
    // the sender keeps the queue fed and every opportunity carries a segment.
    let v = json!({
        "version": 1, "duration_s": 3.0,
        "tcp": {"tcp_rmem": [4096, 131072, 131072], "tcp_moderate_rcvbuf": false},
        "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
        "links": [{"id": "cell", "a": "a", "b": "b", "delay_ms": 10.0,
                   "queue": {"kind": "drop_tail", "limit_packets": 1000},
                   "forward": {"trace": path.to_str().unwrap()}, "reverse": {"rate_mbps": 100.0}}],
        "flows": [{"src": "a", "dst": "b", "cca": "cubic", "app": {"kind": "bulk"}}],
        "output": {"pcap": ["cell:reverse"]}
    });
    let out = run(&v, 1);
    let (_, pcap) = out.pcaps.iter().find(|(n, _)| n == "cell-reverse").expect("capture");
    // From 1 s on (quick ACKs and window growth over): 2 s of bursts, one every 4 ms.
    let acks = pcap_records(pcap).iter().filter(|(t, _)| *t >= 1.0).count();
    let bursts = 2000 / 4;
    assert!((bursts - 2..=bursts + 2).contains(&acks), "{acks} ACKs for {bursts} bursts of four segments");
}
