//! IPv4 fragmentation end to end: seed 000 sends 3000 B segments over 1500 B MTU links.

mod common;

use common::{path, pcap_records, run};

#[test]
fn segments_larger_than_the_mtu_travel_as_fragments_and_arrive_whole() {
    let mut v = path(10.0, 20.0, 100, 5.0);
    v["tcp"] = serde_json::json!({"mss_bytes": 3000});
    v["output"] = serde_json::json!({"pcap": ["bottleneck:forward"]});
    let out = run(&v, 1);
    let (_, pcap) = out.pcaps.iter().find(|(n, _)| n == "bottleneck-forward").expect("capture");
    let (mut frags_mf, mut frags_last, mut whole) = (0i64, 0i64, 0i64);
    for (_, ip) in pcap_records(pcap) {
        let frag = u16::from_be_bytes([ip[6], ip[7]]);
        let (mf, offset) = (frag & 0x2000 != 0, frag & 0x1fff);
        match (mf, offset) {
            (true, _) => frags_mf += 1,
            (false, o) if o > 0 => frags_last += 1,
            _ => whole += 1,
        }
    }
    // A 3032 B datagram (3000 + 32 TCP header) splits into 1480 + 1480 + 72 B of data.
    assert!(frags_mf > 1000 && frags_last > 500, "fragments seen: MF {frags_mf}, last {frags_last}, whole {whole}");
    // Two MF fragments per datagram -- more when the queue dropped a datagram's tail.
    assert!(frags_mf >= 2 * frags_last, "MF {frags_mf} vs last {frags_last}");
    assert_eq!(whole, 1, "only the SYN travels unfragmented");
    let delivered = out.flows.u64s("app_bytes_delivered")[0];
    assert!(delivered > 5_000_000, "reassembled data reaches the application: {delivered}");
}

#[test]
fn one_lost_fragment_costs_the_whole_segment() {
    // 1% loss per packet on the wire. With three fragments per segment a segment
    // survives with probability 0.99^3, so segment loss is 1 - 0.99^3 = 2.97 % --
    // about three times the per-packet rate -- and each costs a full retransmission.
    let mut big = path(10.0, 20.0, 1000, 30.0);
    big["tcp"] = serde_json::json!({"mss_bytes": 3000});
    big["links"][1]["forward"] = serde_json::json!({"loss": {"kind": "bernoulli", "p": 0.01}});
    let out = run(&big, 3);
    let (tx, lost) = (out.flows.u64s("tx_packets")[0] as f64, out.flows.u64s("lost_packets")[0] as f64);
    let seg_loss = lost / tx;
    assert!((0.022..0.038).contains(&seg_loss), "segment loss {seg_loss:.4}, expected about 0.0297");
    let retx = out.flows.u64s("retransmits")[0] as f64;
    assert!(retx >= 0.9 * lost, "every lost segment is retransmitted whole: {retx} retransmits for {lost} losses");
}
