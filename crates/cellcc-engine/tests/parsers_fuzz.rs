//! Fuzzing the two parsers that read user files: the scenario JSON parser
//! (`Scenario::from_json`) and the Mahimahi trace parser (`TraceSchedule::parse`).
//!
//! A proptest harness rather than cargo-fuzz: cargo-fuzz needs a nightly toolchain
//! and libFuzzer, which this project's stable-only build does not have, while proptest
//! is already a dev-dependency, runs in `cargo test` on stable, and shrinks a failure
//! to a small input. The properties hold for any input:
//!
//! - neither parser panics, on arbitrary text or on a valid document with fields
//!   replaced by hostile values (huge, tiny, negative, NaN-like, wrong types);
//! - a scenario the parser accepts is valid, round-trips through its canonical JSON,
//!   builds a world, and runs a slice of events without a panic or a stall;
//! - an accepted trace is a non-decreasing, looping schedule that `first_at_or_after` inverts.
//!
//! `make test` runs 256 cases of each (seed fixed); a longer run, with a new seed:
//! `CELLCC_FUZZ_SEED=$RANDOM PROPTEST_CASES=20000 cargo test --release -p cellcc-engine --test parsers_fuzz`.

mod common;

use cellcc_engine::link::trace::TraceSchedule;
use cellcc_engine::sim::SimTime;
use cellcc_engine::world::World;
use cellcc_engine::{RunError, Scenario};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::{json, Value};

/// Events a mutated scenario runs for: enough to start its flows and fill its queues.
const EVENTS_PER_CASE: u64 = 20_000;

fn config() -> ProptestConfig {
    let seed = std::env::var("CELLCC_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0xF022);
    ProptestConfig { rng_seed: RngSeed::Fixed(seed), ..ProptestConfig::default() }
}

/// A valid scenario using most of the schema: two links, a queue, loss, rate changes,
/// a rate-limited TCP flow, a CBR flow and TCP options.
fn base() -> Value {
    let mut v = common::path(20.0, 40.0, 100, 2.0);
    v["links"][1]["loss"] = json!({"kind": "gilbert_elliott", "p_good_to_bad": 0.01, "p_bad_to_good": 0.3});
    v["links"][1]["rate_changes"] = json!([{"at_s": 1.0, "rate_mbps": 10.0}]);
    v["tcp"] = json!({"mss_bytes": 1448, "min_rto_ms": 200.0, "initial_cwnd_segs": 10, "ecn": false});
    v["flows"] = json!([
        {"src": "server", "dst": "client", "cca": "cubic", "cca_params": {"beta": 717}, "app": {"kind": "bulk"}},
        {"src": "server", "dst": "client", "cca": "bbr", "start_s": 0.5,
         "app": {"kind": "rate_limited", "rate_mbps": 5.0, "write_bytes": 1000}},
        {"src": "client", "dst": "server", "transport": "udp", "app": {"kind": "cbr", "rate_mbps": 1.0}}
    ]);
    v["output"] = json!({"slot_ms": 100.0, "pcap": ["bottleneck"]});
    v
}

/// JSON-pointer paths of every value in `v` (objects and arrays too).
fn paths(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| paths(x, format!("{at}/{k}"), out)),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| paths(x, format!("{at}/{i}"), out)),
        _ => {}
    }
}

fn hostile_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop::sample::select(vec![0.0, -1.0, 1e-300, 1e-9, 1e-4, 0.5, 1.0, 3.0, 1e9, 1e300, -1e300, f64::MAX])
            .prop_map(|x| json!(x)),
        any::<f64>().prop_filter("JSON has no NaN/inf", |x| x.is_finite()).prop_map(|x| json!(x)),
        "[a-z_:]{0,12}".prop_map(Value::from),
        Just(json!([])),
        Just(json!({})),
        Just(json!({"kind": "bulk"})),
    ]
}

/// One change to a document.
#[derive(Clone, Debug)]
enum Edit {
    /// Remove the field or array element.
    Delete,
    /// Multiply a number by this (kept an integer if it was one): mostly still plausible.
    Scale(f64),
    /// Put a hostile value there.
    Replace(Value),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        2 => Just(Edit::Delete),
        5 => prop::sample::select(vec![0.0, 1e-3, 0.1, 0.5, 2.0, 10.0, 1e3, 1e6]).prop_map(Edit::Scale),
        3 => hostile_value().prop_map(Edit::Replace),
    ]
}

fn scaled(x: &Value, k: f64) -> Value {
    match (x.as_u64(), x.as_f64()) {
        (Some(n), _) => json!((n as f64 * k).round() as u64),
        (None, Some(f)) => json!(f * k),
        _ => x.clone(),
    }
}

/// Apply each edit at a chosen path (any value but the root).
fn mutate(mut v: Value, edits: &[(prop::sample::Index, Edit)]) -> Value {
    for (which, e) in edits {
        let mut all = Vec::new();
        paths(&v, String::new(), &mut all);
        let path = which.get(&all[1..]).clone();
        let (parent, key) = path.rsplit_once('/').expect("paths start with /");
        let Some(holder) = v.pointer_mut(parent) else { continue };
        let slot = match holder {
            Value::Object(m) if matches!(e, Edit::Delete) => {
                m.remove(key);
                continue;
            }
            Value::Array(a) if matches!(e, Edit::Delete) => {
                a.remove(key.parse::<usize>().expect("array index"));
                continue;
            }
            Value::Object(m) => m.get_mut(key),
            Value::Array(a) => a.get_mut(key.parse::<usize>().expect("array index")),
            _ => None,
        };
        if let Some(slot) = slot {
            *slot = match e {
                Edit::Scale(k) => scaled(slot, *k),
                Edit::Replace(x) => x.clone(),
                Edit::Delete => unreachable!("handled above"),
            };
        }
    }
    v
}

/// Everything the parser accepts must build and run a slice without panicking or stalling.
fn accepted_scenario_runs(text: &str) -> Result<(), TestCaseError> {
    let Ok(sc) = Scenario::from_json(text) else { return Ok(()) };
    prop_assert!(sc.validate().is_ok());
    let again = Scenario::from_json(&sc.to_canonical_json()).expect("canonical JSON parses");
    prop_assert_eq!(&again, &sc);
    let Ok(mut world) = World::new(&sc, 1) else { return Ok(()) };
    match world.run_events(EVENTS_PER_CASE) {
        Ok(_) => Ok(()),
        Err(RunError::Stalled(s)) => Err(TestCaseError::fail(format!("accepted scenario stalled: {s:?}\n{text}"))),
        Err(e) => Err(TestCaseError::fail(format!("accepted scenario failed: {e}\n{text}"))),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_scenario_parser_never_panics_on_arbitrary_text(text in ".{0,400}") {
        accepted_scenario_runs(&text)?;
    }

    #[test]
    fn a_mutated_valid_scenario_is_refused_or_runs(
        edits in prop::collection::vec((any::<prop::sample::Index>(), edit()), 1..4)
    ) {
        accepted_scenario_runs(&mutate(base(), &edits).to_string())?;
    }

    #[test]
    fn the_trace_parser_never_panics_and_accepts_only_looping_schedules(
        lines in prop::collection::vec(prop_oneof![
            (0u64..3000).prop_map(|t| t.to_string()),
            Just(String::new()),
            Just("86400001".to_string()),
            Just(u64::MAX.to_string()),
            "[ -~]{0,6}",
        ], 0..60)
    ) {
        let Ok(t) = TraceSchedule::parse(&lines.join("\n")) else { return Ok(()) };
        let n = t.per_period();
        prop_assert!(n >= 1 && t.period_ms() >= 1);
        for k in 0..3 * n {
            prop_assert!(t.time_of(k) <= t.time_of(k + 1), "schedule decreases at {k}");
            let first = t.first_at_or_after(t.time_of(k));
            prop_assert!(first <= k && t.time_of(first) == t.time_of(k));
        }
        let later = SimTime(t.time_of(2 * n).as_ns() + 1);
        prop_assert!(t.time_of(t.first_at_or_after(later)) >= later);
    }
}

/// The mutations start from a scenario that runs, so most mutants exercise the run, not only the parser.
#[test]
fn the_base_scenario_is_valid_and_runs() {
    let sc = Scenario::from_json(&base().to_string()).expect("base scenario is valid");
    let mut world = World::new(&sc, 1).expect("builds");
    world.run_events(EVENTS_PER_CASE).expect("runs");
}
