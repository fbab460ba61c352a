//! The delay and loss-delay algorithms' parameters, as a scenario gives them:
//! defaults, overrides, and out-of-range values reported with their field path.

use cellcc_engine::cc::{vegas, CcConfig};
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
fn every_delay_algorithm_is_accepted_by_name_with_default_parameters() {
    for name in ["vegas", "veno", "westwood", "westwoodplus", "illinois", "yeah", "compound"] {
        let sc = Scenario::from_json(&scenario(name, "{}")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sc.flow_cca(0).unwrap().name(), name);
    }
}

#[test]
fn a_parameter_override_reaches_the_config() {
    let sc = Scenario::from_json(&scenario("vegas", r#"{"alpha": 1, "beta": 3}"#)).unwrap();
    assert_eq!(sc.flow_cca(0).unwrap(), CcConfig::Vegas(vegas::Config { alpha: 1, beta: 3, gamma: 1 }));
}

#[test]
fn an_out_of_range_parameter_names_its_path_value_and_range() {
    let cases = [
        ("vegas", r#"{"alpha": 5}"#, "alpha", "5"),
        ("veno", r#"{"beta": 0}"#, "beta", "0"),
        ("westwood", r#"{"tau_ms": 0}"#, "tau_ms", "0"),
        ("westwood", r#"{"null_sample_divisor": 1}"#, "null_sample_divisor", "1"),
        ("illinois", r#"{"beta_max": 1.0}"#, "beta_max", "1"),
        ("illinois", r#"{"alpha_min": 20}"#, "alpha_max", "10"),
        ("yeah", r#"{"phy": 0}"#, "phy", "0"),
        ("compound", r#"{"k": 1.5}"#, "k", "1.5"),
    ];
    for (cca, params, field, value) in cases {
        let e = Scenario::from_json(&scenario(cca, params)).unwrap_err();
        assert_eq!(e.path, format!("flows[0].cca_params.{field}"), "{cca} {params}");
        assert_eq!(e.value, value, "{cca} {params}");
        assert!(!e.allowed.is_empty());
    }
}

#[test]
fn westwoodplus_takes_no_parameters() {
    let e = Scenario::from_json(&scenario("westwoodplus", r#"{"tau_ms": 100}"#)).unwrap_err();
    assert_eq!(e.path, "flows[0].cca_params");
    assert!(e.allowed.contains("tau_ms"), "{}", e.allowed);
}
