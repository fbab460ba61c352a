//! Parameters of the model-based, delay-based and scavenger algorithms as a scenario gives
//! them: every one accepted by name with defaults, overrides reaching the config, and
//! out-of-range values reported with their field path, value and range.

use cellcc_engine::cc::CcConfig;
use cellcc_engine::scenario::Scenario;

fn scenario(cca: &str, params: &str) -> String {
    format!(
        r#"{{"version": 1, "duration_s": 5,
            "nodes": [{{"id": "server", "kind": "host"}}, {{"id": "client", "kind": "host"}}],
            "links": [{{"id": "path", "a": "server", "b": "client", "rate_mbps": 20, "delay_ms": 20}}],
            "flows": [{{"src": "server", "dst": "client", "cca": "{cca}", "cca_params": {params}, "app": {{"kind": "bulk"}}}}]}}"#
    )
}

#[test]
fn every_algorithm_is_accepted_by_name_with_default_parameters() {
    for name in ["bbr", "bbr3", "cdg", "copa", "dctcp", "ledbat", "lp", "nv"] {
        let sc = Scenario::from_json(&scenario(name, "{}")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sc.flow_cca(0).unwrap().name(), name);
    }
}

#[test]
fn a_parameter_override_reaches_the_config() {
    let sc = Scenario::from_json(&scenario("bbr", r#"{"cwnd_gain": 640, "probe_rtt_mode_ms": 0}"#)).unwrap();
    let CcConfig::Bbr(c) = sc.flow_cca(0).unwrap() else { panic!("not bbr") };
    assert_eq!((c.cwnd_gain, c.probe_rtt_mode_ms, c.high_gain), (640, 0, 739));
}

#[test]
fn an_out_of_range_parameter_names_its_path_value_and_range() {
    let cases = [
        ("bbr", r#"{"pacing_margin_percent": 100}"#, "flows[0].cca_params.pacing_margin_percent", "100"),
        ("bbr3", r#"{"beta": 300}"#, "flows[0].cca_params.beta", "300"),
        ("cdg", r#"{"window": 6}"#, "flows[0].cca_params.window", "6"),
        ("copa", r#"{"delta": 0}"#, "flows[0].cca_params.delta", "0"),
        ("dctcp", r#"{"shift_g": 11}"#, "flows[0].cca_params.shift_g", "11"),
        ("ledbat", r#"{"gain": -1}"#, "flows[0].cca_params.gain", "-1"),
        ("nv", r#"{"cong_dec_mult": 200}"#, "flows[0].cca_params.cong_dec_mult", "200"),
    ];
    for (cca, params, path, value) in cases {
        let e = Scenario::from_json(&scenario(cca, params)).unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str()), (path, value), "{cca} {params}: {e}");
        assert!(!e.allowed.is_empty());
    }
}

#[test]
fn a_zero_where_a_positive_count_is_needed_is_rejected_at_its_path() {
    let e = Scenario::from_json(&scenario("bbr", r#"{"high_gain": 0}"#)).unwrap_err();
    assert_eq!(e.path, "flows[0].cca_params.high_gain", "{e}");
}
