//! A loss-based algorithm's parameters, as a scenario gives them: defaults, overrides,
//! and out-of-range values reported with their field path.

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
fn every_loss_based_algorithm_is_accepted_by_name_with_default_parameters() {
    for name in ["bic", "cubic", "highspeed", "htcp", "hybla", "scalable"] {
        let sc = Scenario::from_json(&scenario(name, "{}")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sc.flow_cca(0).unwrap().name(), name);
    }
}

#[test]
fn a_parameter_override_reaches_the_config() {
    let sc = Scenario::from_json(&scenario("cubic", r#"{"beta": 819, "hystart": false}"#)).unwrap();
    let CcConfig::Cubic(c) = sc.flow_cca(0).unwrap() else { panic!("not cubic") };
    assert_eq!((c.beta, c.hystart, c.bic_scale), (819, false, 41));
}

#[test]
fn an_out_of_range_parameter_names_its_path_value_and_range() {
    let cases = [
        ("cubic", r#"{"beta": 1024}"#, "flows[0].cca_params.beta", "1024"),
        ("cubic", r#"{"hystart_detect": 7}"#, "flows[0].cca_params.hystart_detect", "7"),
        ("bic", r#"{"max_increment": 0}"#, "flows[0].cca_params.max_increment", "0"),
        ("hybla", r#"{"rtt0_ms": 0}"#, "flows[0].cca_params.rtt0_ms", "0"),
    ];
    for (cca, params, path, value) in cases {
        let e = Scenario::from_json(&scenario(cca, params)).unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str()), (path, value), "{cca} {params}: {e}");
        assert!(!e.allowed.is_empty());
    }
}

#[test]
fn an_unknown_parameter_is_rejected_with_the_known_ones_listed() {
    let e = Scenario::from_json(&scenario("htcp", r#"{"alpha": 2}"#)).unwrap_err();
    assert!(e.path.starts_with("flows[0].cca_params"), "{e}");
    assert!(e.allowed.contains("use_rtt_scaling"), "{e}");
}
