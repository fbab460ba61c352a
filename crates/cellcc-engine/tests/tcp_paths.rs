//! End-to-end TCP behaviour on simple wired paths (issue: engine foundation).

mod common;

use common::{bdp_packets, mean_throughput, path, run};

#[test]
fn newreno_fills_a_lossless_10mbps_20ms_path_with_a_1bdp_buffer() {
    // BDP = 10 Mbit/s * 20 ms = 25 000 B = 17 packets. After slow start
    // (first ~1 s) NewReno keeps the pipe full: 1 BDP of buffer absorbs the
    // sawtooth (cwnd halves from 2 BDP to 1 BDP), so goodput stays >= 95 % of
    // the 10 Mbit/s link minus header overhead (1448/1500).
    let v = path(10.0, 20.0, bdp_packets(10.0, 20.0), 20.0);
    let out = run(&v, 1);
    let goodput = mean_throughput(&out, "flow0", 2.0, 20.0);
    let payload_rate = 10e6 * 1448.0 / 1500.0;
    assert!(goodput >= 0.95 * payload_rate, "goodput {goodput:.0} bit/s < 95% of {payload_rate:.0}");
}

/// Mathis et al., "The Macroscopic Behavior of the TCP Congestion Avoidance
/// Algorithm", CCR 1997, eq. 3: BW = (MSS / RTT) * C / sqrt(p), C = sqrt(3/2).
fn mathis_bps(mss_bytes: f64, rtt_s: f64, p: f64) -> f64 {
    mss_bytes * 8.0 / rtt_s * (1.5f64).sqrt() / p.sqrt()
}

#[test]
fn newreno_under_random_loss_stays_in_the_mathis_band() {
    // A 100 Mbit/s, 40 ms path whose capacity never binds (cwnd stays far below
    // the 333-packet BDP), so loss alone sets the rate. Tolerance: the model
    // assumes one loss per congestion event and periodic losses; with Bernoulli
    // loss and SACK recovery several losses can fall in one event, which raises
    // throughput, and timeouts lower it. Padhye et al. (SIGCOMM 1998) put such
    // deviations within tens of percent at these loss rates, so we accept
    // 0.7x .. 1.5x of the Mathis prediction, computed with the measured mean RTT.
    for (p, duration_s) in [(0.001, 120.0), (0.01, 60.0)] {
        let mut v = path(100.0, 40.0, 2000, duration_s);
        v["links"][1]["forward"] = serde_json::json!({"loss": {"kind": "bernoulli", "p": p}});
        let out = run(&v, 7);
        let goodput = mean_throughput(&out, "flow0", 5.0, duration_s);
        let rtt_s = out.flows.f64s("rtt_mean_ms")[0] / 1e3;
        let predicted = mathis_bps(1448.0, rtt_s, p);
        let ratio = goodput / predicted;
        assert!(
            (0.7..=1.5).contains(&ratio),
            "p={p}: goodput {goodput:.0} vs Mathis {predicted:.0} (ratio {ratio:.2})"
        );
    }
}

#[test]
fn a_blackout_longer_than_the_rto_causes_backed_off_timeouts_and_the_flow_recovers() {
    // A trace link that delivers a packet every ms, then nothing from 2 s to 6 s.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("blackout.trace");
    let lines: Vec<String> = (1..=2000).chain(6000..=8000).map(|ms| ms.to_string()).collect();
    std::fs::write(&trace, lines.join("\n")).unwrap();
    let mut v = path(100.0, 40.0, 100, 7.9);
    v["links"][1]["forward"] = serde_json::json!({"trace": trace.to_str().unwrap()});
    let out = run(&v, 1);
    // RTO ~ 200-300 ms at the blackout's start; doubling gives expiries at about
    // +0.3, +0.9, +2.1 s (cumulative) within the 4 s gap: at least three timeouts.
    let timeouts = out.flows.u64s("timeouts")[0];
    assert!(timeouts >= 3, "timeouts {timeouts}");
    let after = mean_throughput(&out, "flow0", 6.5, 7.9);
    assert!(after > 5e6, "the flow resumes after the blackout: {after:.0} bit/s");
}

#[test]
fn throughput_follows_a_step_change_in_capacity() {
    // 20 Mbit/s, dropping to 5 Mbit/s at 8 s and back at 16 s.
    let mut v = path(20.0, 40.0, bdp_packets(20.0, 40.0), 24.0);
    v["links"][1]["rate_changes"] =
        serde_json::json!([{"at_s": 8.0, "rate_mbps": 5.0}, {"at_s": 16.0, "rate_mbps": 20.0}]);
    let out = run(&v, 1);
    let payload = 1448.0 / 1500.0;
    let low = mean_throughput(&out, "flow0", 10.0, 16.0);
    let high = mean_throughput(&out, "flow0", 19.0, 24.0);
    assert!(low <= 5e6 * payload * 1.01 && low >= 0.9 * 5e6 * payload, "after the step down: {low:.0}");
    assert!(high >= 0.8 * 20e6 * payload, "after the step up: {high:.0}");
}
