//! The receiving application reads once the segments of an instant are all in: a trace link
//! that delivers four segments at one millisecond gets one ACK for them (Linux: the softirq
//! takes in the burst, `__tcp_ack_snd_check` finds the window memory-bound and leaves the ACK
//! to the read, `__tcp_cleanup_rbuf`), where a segment-by-segment reader would send two.

use cellcc_engine::Scenario;
use serde_json::json;

/// pcap record header bytes (ts_sec, ts_nsec, incl_len, orig_len), little-endian as written.
const PCAP_RECORD_HEADER_BYTES: usize = 16;
/// pcap global header bytes.
const PCAP_GLOBAL_HEADER_BYTES: usize = 24;
/// The magic number of a pcap file with nanosecond timestamps (pcap-savefile(5)).
const PCAP_NANOSECOND_MAGIC: u32 = 0xa1b2_3c4d;

/// (time s, IP packet) of every record of a nanosecond pcap file.
fn records(pcap: &[u8]) -> Vec<(f64, &[u8])> {
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

#[test]
fn a_burst_delivered_in_one_instant_is_acked_once() {
    // Four opportunities every 4 ms (12 Mbit/s of 1500 B packets), looping.
    let text: String = (1..=250u64).flat_map(|b| std::iter::repeat_n(b * 4, 4)).map(|m| format!("{m}\n")).collect();
    let path = std::env::temp_dir().join(format!("cellcc-burst-{}.down", std::process::id()));
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
    let out = cellcc_engine::run(&Scenario::from_json(&v.to_string()).unwrap(), 1).unwrap();
    std::fs::remove_file(&path).ok();
    let (_, pcap) = out.pcaps.iter().find(|(n, _)| n == "cell-reverse").expect("capture");
    // From 1 s on (quick ACKs and window growth over): 2 s of bursts, one every 4 ms.
    let acks = records(pcap).iter().filter(|(t, _)| *t >= 1.0).count();
    let bursts = 2000 / 4;
    assert!((bursts - 2..=bursts + 2).contains(&acks), "{acks} ACKs for {bursts} bursts of four segments");
}
