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
