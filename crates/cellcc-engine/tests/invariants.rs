//! Property tests: invariants that hold for any scenario, checked mid-run.

mod common;

use cellcc_engine::sim::SimTime;
use cellcc_engine::world::World;
use cellcc_engine::Scenario;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::json;

/// The knobs the property test varies.
#[derive(Clone, Copy)]
struct Knobs {
    rate: f64,
    rtt: f64,
    queue: u32,
    loss: f64,
    mss: u32,
    flows: usize,
    sack: bool,
    cca: &'static str,
}

fn scenario(k: &Knobs) -> Scenario {
    let Knobs { rate, rtt, queue, loss, mss, flows, sack, cca } = *k;
    let mut v = common::path(rate, rtt, queue, 3.0);
    v["tcp"] = json!({"mss_bytes": mss, "sack": sack});
    v["links"][1]["loss"] = json!({"kind": "bernoulli", "p": loss});
    v["flows"] = (0..flows)
        .map(|i| json!({"src": "server", "dst": "client", "cca": cca, "start_s": i as f64 * 0.1, "app": {"kind": "bulk"}}))
        .collect();
    Scenario::from_json(&v.to_string()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, rng_seed: RngSeed::Fixed(0xCE11CC), ..ProptestConfig::default() })]

    /// IP bytes sent = delivered + dropped + in flight, at any instant; cwnd >= 1 MSS always.
    #[test]
    fn bytes_are_conserved_and_cwnd_never_falls_below_one_segment(
        rate in 1.0f64..50.0,
        rtt in 2.0f64..100.0,
        queue in 2u32..200,
        loss in 0.0f64..0.05,
        mss in prop::sample::select(vec![536u32, 1448, 3000]),
        flows in 1usize..4,
        sack in any::<bool>(),
        cca in prop::sample::select(vec!["reno", "newreno"]),
        seed in 0u64..1000,
    ) {
        let sc = scenario(&Knobs { rate, rtt, queue, loss, mss, flows, sack, cca });
        let mut w = World::new(&sc, seed).unwrap();
        for step in 1..=30u64 {
            let done = w.run_until(SimTime(step * 100_000_000)).unwrap();
            let c = w.conservation();
            prop_assert_eq!(c.sent_bytes, c.delivered_bytes + c.dropped_bytes + c.in_flight_bytes, "at {}", w.now());
            if done { break; }
        }
        let out = w.into_output().unwrap();
        let cwnd = out.cwnd.u64s("cwnd_bytes");
        prop_assert!(cwnd.iter().all(|&c| c >= mss as u64), "cwnd below one MSS");
    }
}

#[test]
fn same_scenario_and_seed_give_identical_output_and_seeds_differ() {
    let sc = scenario(&Knobs {
        rate: 10.0,
        rtt: 40.0,
        queue: 50,
        loss: 0.01,
        mss: 1448,
        flows: 2,
        sack: true,
        cca: "newreno",
    });
    let a = format!("{:?}", cellcc_engine::run(&sc, 5).unwrap());
    let b = format!("{:?}", cellcc_engine::run(&sc, 5).unwrap());
    let c = format!("{:?}", cellcc_engine::run(&sc, 6).unwrap());
    assert_eq!(a, b);
    assert_ne!(a, c);
}
