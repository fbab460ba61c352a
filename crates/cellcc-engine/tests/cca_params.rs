//! Every algorithm's parameters as a scenario gives them: accepted by name with
//! defaults, overrides reaching the config, and out-of-range or unknown values
//! reported with their field path, value and what is allowed.

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
fn every_registered_algorithm_is_accepted_by_name_with_default_parameters() {
    let names = cellcc_engine::cc::REGISTRY.iter().map(|d| d.name);
    for name in names {
        let sc = Scenario::from_json(&scenario(name, "{}")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sc.flow_cca(0).unwrap().name(), name);
    }
}

#[test]
fn a_parameter_override_reaches_the_config() {
    let sc = Scenario::from_json(&scenario("cubic", r#"{"beta": 819, "hystart": false}"#)).unwrap();
    let CcConfig::Cubic(c) = sc.flow_cca(0).unwrap() else { panic!("not cubic") };
    assert_eq!((c.beta, c.hystart, c.bic_scale), (819, false, 41));

    let sc = Scenario::from_json(&scenario("vegas", r#"{"alpha": 1, "beta": 3}"#)).unwrap();
    assert_eq!(sc.flow_cca(0).unwrap(), CcConfig::Vegas(vegas::Config { alpha: 1, beta: 3, gamma: 1 }));

    let sc = Scenario::from_json(&scenario("bbr", r#"{"cwnd_gain": 640, "probe_rtt_mode_ms": 0}"#)).unwrap();
    let CcConfig::Bbr(c) = sc.flow_cca(0).unwrap() else { panic!("not bbr") };
    assert_eq!((c.cwnd_gain, c.probe_rtt_mode_ms, c.high_gain), (640, 0, 739));
}

#[test]
fn an_out_of_range_parameter_names_its_path_value_and_range() {
    let cases = [
        ("cubic", r#"{"beta": 1024}"#, "beta", "1024"),
        ("cubic", r#"{"hystart_detect": 7}"#, "hystart_detect", "7"),
        ("bic", r#"{"max_increment": 0}"#, "max_increment", "0"),
        ("hybla", r#"{"rtt0_ms": 0}"#, "rtt0_ms", "0"),
        ("vegas", r#"{"alpha": 5}"#, "alpha", "5"),
        ("veno", r#"{"beta": 0}"#, "beta", "0"),
        ("westwood", r#"{"tau_ms": 0}"#, "tau_ms", "0"),
        ("westwood", r#"{"null_sample_divisor": 1}"#, "null_sample_divisor", "1"),
        ("illinois", r#"{"beta_max": 1.0}"#, "beta_max", "1"),
        ("illinois", r#"{"alpha_min": 20}"#, "alpha_max", "10"),
        ("yeah", r#"{"phy": 0}"#, "phy", "0"),
        ("compound", r#"{"k": 1.5}"#, "k", "1.5"),
        ("bbr", r#"{"pacing_margin_percent": 100}"#, "pacing_margin_percent", "100"),
        ("bbr3", r#"{"beta": 300}"#, "beta", "300"),
        ("cdg", r#"{"window": 6}"#, "window", "6"),
        ("copa", r#"{"delta": 0}"#, "delta", "0"),
        ("dctcp", r#"{"shift_g": 11}"#, "shift_g", "11"),
        ("ledbat", r#"{"gain": -1}"#, "gain", "-1"),
        ("nv", r#"{"cong_dec_mult": 200}"#, "cong_dec_mult", "200"),
    ];
    for (cca, params, field, value) in cases {
        let e = Scenario::from_json(&scenario(cca, params)).unwrap_err();
        assert_eq!(e.path, format!("flows[0].cca_params.{field}"), "{cca} {params}: {e}");
        assert_eq!(e.value, value, "{cca} {params}: {e}");
        assert!(!e.allowed.is_empty());
    }
}

#[test]
fn a_zero_where_a_positive_count_is_needed_is_rejected_at_its_path() {
    let e = Scenario::from_json(&scenario("bbr", r#"{"high_gain": 0}"#)).unwrap_err();
    assert_eq!(e.path, "flows[0].cca_params.high_gain", "{e}");
}

#[test]
fn an_unknown_parameter_is_rejected_with_the_known_ones_listed() {
    let e = Scenario::from_json(&scenario("htcp", r#"{"alpha": 2}"#)).unwrap_err();
    assert!(e.path.starts_with("flows[0].cca_params"), "{e}");
    assert!(e.allowed.contains("use_rtt_scaling"), "{e}");
}

#[test]
fn westwoodplus_takes_no_parameters() {
    let e = Scenario::from_json(&scenario("westwoodplus", r#"{"tau_ms": 100}"#)).unwrap_err();
    assert_eq!(e.path, "flows[0].cca_params");
    assert!(e.allowed.contains("tau_ms"), "{}", e.allowed);
}
