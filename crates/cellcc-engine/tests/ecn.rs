//! ECN end to end: step marking in the queue (RFC 8257 §3.1), classic RFC 3168
//! reaction, and DCTCP's proportional one.

mod common;

use cellcc_engine::output::RunOutput;
use common::{mean_throughput, path, run};
use serde_json::json;

const K_PACKETS: u32 = 20;

/// 100 Mbit/s, 10 ms RTT (BDP 84 packets), a deep 1000-packet buffer that marks at K.
fn marked_path(cca: &str) -> serde_json::Value {
    let mut v = path(100.0, 10.0, 1000, 10.0);
    v["links"][1]["forward"] =
        json!({"queue": {"kind": "drop_tail", "limit_packets": 1000, "ecn_threshold_packets": K_PACKETS}});
    v["tcp"] = json!({"ecn": true});
    v["flows"][0]["cca"] = json!(cca);
    v
}

fn mean_queue_packets(out: &RunOutput, link: &str, from_s: f64) -> f64 {
    let links = out.queues.strs("link");
    let (t, pkts) = (out.queues.f64s("t_s"), out.queues.u64s("packets"));
    let sel: Vec<f64> = (0..t.len()).filter(|&i| links[i] == link && t[i] >= from_s).map(|i| pkts[i] as f64).collect();
    sel.iter().sum::<f64>() / sel.len() as f64
}

#[test]
fn dctcp_holds_the_queue_near_the_marking_threshold_at_full_rate() {
    let out = run(&marked_path("dctcp"), 1);
    let payload_rate = 100e6 * 1448.0 / 1500.0;
    assert!(mean_throughput(&out, "flow0", 2.0, 10.0) >= 0.95 * payload_rate);
    assert!(out.flows.u64s("ecn_marked_packets")[0] > 100, "the queue marks");
    assert_eq!(out.flows.u64s("lost_packets")[0], 0, "marks replace drops");
    let q = mean_queue_packets(&out, "bottleneck:forward", 2.0);
    assert!(q < 2.0 * K_PACKETS as f64, "standing queue {q:.1} packets, K = {K_PACKETS}");
}

#[test]
fn rfc3168_newreno_halves_on_echo_without_losing_packets() {
    let out = run(&marked_path("newreno"), 1);
    assert_eq!(out.flows.u64s("lost_packets")[0], 0);
    assert!(out.flows.u64s("ecn_reductions")[0] > 5, "one reduction per marked window");
    assert_eq!(out.flows.u64s("retransmits")[0], 0);
    // Halving at K = 20 < BDP (84) drains the queue and idles the link part of
    // each cycle: the utilisation loss DCTCP was designed to remove (Alizadeh et al. §2).
    let reno = mean_throughput(&out, "flow0", 2.0, 10.0);
    let dctcp = mean_throughput(&run(&marked_path("dctcp"), 1), "flow0", 2.0, 10.0);
    assert!(reno < dctcp, "newreno+ECN {reno:.0} vs dctcp {dctcp:.0}");
}

#[test]
fn without_ecn_the_same_queue_neither_marks_nor_reduces() {
    let mut v = marked_path("newreno");
    v["tcp"] = json!({"ecn": false});
    let out = run(&v, 1);
    assert_eq!(out.flows.u64s("ecn_marked_packets")[0], 0);
    assert_eq!(out.flows.u64s("ecn_reductions")[0], 0);
}
