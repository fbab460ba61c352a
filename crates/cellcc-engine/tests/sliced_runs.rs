//! A run advanced in slices of events (what the Python binding does to look for
//! Ctrl-C between slices, `crates/cellcc-py/src/lib.rs`) gives exactly the output of
//! one uninterrupted run: slicing must not change the results.

mod common;

use cellcc_engine::world::World;
use cellcc_engine::Scenario;
use serde_json::json;

#[test]
fn slicing_a_run_changes_nothing_in_its_output() {
    // Two CCAs sharing a lossy, rate-changing bottleneck with a pcap: most of the world's state.
    let mut v = common::path(20.0, 40.0, 50, 3.0);
    v["links"][1]["loss"] = json!({"kind": "bernoulli", "p": 0.01});
    v["links"][1]["rate_changes"] = json!([{"at_s": 1.5, "rate_mbps": 5.0}]);
    v["flows"] = json!([
        {"src": "server", "dst": "client", "cca": "cubic", "app": {"kind": "bulk"}},
        {"src": "server", "dst": "client", "cca": "bbr", "start_s": 0.5, "app": {"kind": "bulk"}}
    ]);
    v["output"] = json!({"pcap": ["bottleneck:forward"]});
    let whole = common::run(&v, 7);
    let sc = Scenario::from_json(&v.to_string()).expect("valid");
    // A budget prime to every period in the model, so slices end at arbitrary points.
    let mut world = World::new(&sc, 7).expect("builds");
    let mut slices = 0u64;
    while !world.run_events(97).expect("runs") {
        slices += 1;
    }
    assert!(slices > 50, "the run was cut into many slices ({slices})");
    // Compared as text: the tables hold NaN (no sample), which `==` never equals.
    assert_eq!(format!("{:?}", world.into_output().expect("runs")), format!("{whole:?}"));
}
