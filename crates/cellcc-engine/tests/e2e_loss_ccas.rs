//! End-to-end behaviour of the loss-based algorithms (issue 3, "Conformance"):
//! each fills a 1-BDP-buffered path without random loss, and two flows of the
//! same algorithm share a bottleneck fairly.

mod common;

use common::{bdp_packets, mean_throughput, path, run};
use serde_json::json;

const ALGORITHMS: [&str; 6] = ["bic", "cubic", "highspeed", "htcp", "hybla", "scalable"];
/// The standard path of docs/ccas.md: 20 Mbit/s, 40 ms RTT.
const RATE_MBPS: f64 = 20.0;
const RTT_MS: f64 = 40.0;
/// Payload share of a 1500 B packet (1448 B of TCP payload with timestamps).
const PAYLOAD_SHARE: f64 = 1448.0 / 1500.0;

fn with_cca(mut v: serde_json::Value, cca: &str) -> serde_json::Value {
    for f in v["flows"].as_array_mut().unwrap() {
        f["cca"] = json!(cca);
    }
    v
}

#[test]
fn every_loss_based_algorithm_fills_a_lossless_one_bdp_path_to_90_percent() {
    // Buffer = 1 BDP (67 packets): losses come only from the queue overflowing.
    // After slow start (first 2 s) goodput must be >= 90% of the payload rate: a
    // decrease by beta >= 0.5 from 2 BDP leaves >= 1 BDP, so none may idle the link
    // for long (Scalable, BIC, CUBIC, H-TCP keep more than half).
    for cca in ALGORITHMS {
        let v = with_cca(path(RATE_MBPS, RTT_MS, bdp_packets(RATE_MBPS, RTT_MS), 12.0), cca);
        let out = run(&v, 1);
        let goodput = mean_throughput(&out, "flow0", 2.0, 12.0);
        let capacity = RATE_MBPS * 1e6 * PAYLOAD_SHARE;
        assert!(goodput >= 0.9 * capacity, "{cca}: goodput {goodput:.0} bit/s < 90% of {capacity:.0}");
    }
}

/// Jain's fairness index (Jain, Chiu, Hawe 1984): (sum x)^2 / (n sum x^2).
fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    sum * sum / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

#[test]
fn two_flows_of_the_same_algorithm_share_fairly_within_30_s() {
    // The second flow starts 2 s after the first, into a full pipe; over the
    // last 10 of 30 s their mean goodputs must give Jain >= 0.9.
    for cca in ALGORITHMS {
        let mut v = with_cca(path(RATE_MBPS, RTT_MS, bdp_packets(RATE_MBPS, RTT_MS), 30.0), cca);
        let second = json!({"src": "server", "dst": "client", "cca": cca, "start_s": 2.0, "app": {"kind": "bulk"}});
        v["flows"].as_array_mut().unwrap().push(second);
        let out = run(&v, 1);
        let x = [mean_throughput(&out, "flow0", 20.0, 30.0), mean_throughput(&out, "flow1", 20.0, 30.0)];
        let j = jain(&x);
        assert!(j >= 0.9, "{cca}: Jain {j:.3} from goodputs {:.0} / {:.0} bit/s", x[0], x[1]);
    }
}
