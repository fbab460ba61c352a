//! The registry: every algorithm by canonical name, its documentation and its
//! parameters. `CcConfig` is the one place an algorithm is named; adding one
//! means a variant here, a `DOC` in its file and a line in `REGISTRY`.

use super::{
    bbr, bbr3, bic, cdg, compound, copa, cubic, dctcp, highspeed, htcp, hybla, illinois, ledbat, lp, new_reno, nv,
    reno, scalable, vegas, veno, westwood, westwood_plus, yeah, CcDoc, CongestionControl, ParamError, Window,
};
use crate::sim::RngStream;
use serde::{Deserialize, Serialize};

/// An algorithm and its parameters, tagged by canonical name:
/// `{"name": "cubic", "beta": 717}`. Missing parameters take their defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name")]
pub enum CcConfig {
    #[serde(rename = "reno")]
    Reno(reno::Config),
    #[serde(rename = "newreno")]
    NewReno(new_reno::Config),
    #[serde(rename = "bic")]
    Bic(bic::Config),
    #[serde(rename = "cubic")]
    Cubic(cubic::Config),
    #[serde(rename = "highspeed")]
    HighSpeed(highspeed::Config),
    #[serde(rename = "htcp")]
    Htcp(htcp::Config),
    #[serde(rename = "hybla")]
    Hybla(hybla::Config),
    #[serde(rename = "scalable")]
    Scalable(scalable::Config),
    #[serde(rename = "vegas")]
    Vegas(vegas::Config),
    #[serde(rename = "veno")]
    Veno(veno::Config),
    #[serde(rename = "westwood")]
    Westwood(westwood::Config),
    #[serde(rename = "westwoodplus")]
    WestwoodPlus(westwood_plus::Config),
    #[serde(rename = "illinois")]
    Illinois(illinois::Config),
    #[serde(rename = "yeah")]
    Yeah(yeah::Config),
    #[serde(rename = "compound")]
    Compound(compound::Config),
    #[serde(rename = "bbr")]
    Bbr(bbr::Config),
    #[serde(rename = "ledbat")]
    Ledbat(ledbat::Config),
    #[serde(rename = "lp")]
    Lp(lp::Config),
    #[serde(rename = "dctcp")]
    Dctcp(dctcp::Config),
    #[serde(rename = "cdg")]
    Cdg(cdg::Config),
    #[serde(rename = "nv")]
    Nv(nv::Config),
    #[serde(rename = "copa")]
    Copa(copa::Config),
    #[serde(rename = "bbr3")]
    Bbr3(bbr3::Config),
}

/// Every algorithm, in the order `cellcc ccas` lists them.
pub const REGISTRY: &[CcDoc] = &[
    reno::DOC,
    new_reno::DOC,
    bic::DOC,
    cubic::DOC,
    highspeed::DOC,
    htcp::DOC,
    hybla::DOC,
    scalable::DOC,
    vegas::DOC,
    veno::DOC,
    westwood::DOC,
    westwood_plus::DOC,
    illinois::DOC,
    yeah::DOC,
    compound::DOC,
    bbr::DOC,
    ledbat::DOC,
    lp::DOC,
    dctcp::DOC,
    cdg::DOC,
    nv::DOC,
    copa::DOC,
    bbr3::DOC,
];

impl CcConfig {
    /// Build the algorithm with its initial window. `rng` is the flow's own
    /// stream for algorithms that randomise (BBR's ProbeBW start phase).
    pub fn build(&self, w: Window, rng: RngStream) -> Box<dyn CongestionControl> {
        match self {
            CcConfig::Reno(c) => Box::new(reno::Reno::new(c, w)),
            CcConfig::NewReno(c) => Box::new(new_reno::NewReno::new(c, w)),
            CcConfig::Bic(c) => Box::new(bic::Bic::new(c, w)),
            CcConfig::Cubic(c) => Box::new(cubic::Cubic::new(c, w)),
            CcConfig::HighSpeed(c) => Box::new(highspeed::HighSpeed::new(c, w)),
            CcConfig::Htcp(c) => Box::new(htcp::Htcp::new(c, w)),
            CcConfig::Hybla(c) => Box::new(hybla::Hybla::new(c, w)),
            CcConfig::Scalable(c) => Box::new(scalable::Scalable::new(c, w)),
            CcConfig::Vegas(c) => Box::new(vegas::Vegas::new(c, w)),
            CcConfig::Veno(c) => Box::new(veno::Veno::new(c, w)),
            CcConfig::Westwood(c) => Box::new(westwood::Westwood::new(c, w)),
            CcConfig::WestwoodPlus(c) => Box::new(westwood_plus::WestwoodPlus::new(c, w)),
            CcConfig::Illinois(c) => Box::new(illinois::Illinois::new(c, w)),
            CcConfig::Yeah(c) => Box::new(yeah::Yeah::new(c, w)),
            CcConfig::Compound(c) => Box::new(compound::Compound::new(c, w)),
            CcConfig::Bbr(c) => Box::new(bbr::Bbr::new(c, w, rng)),
            CcConfig::Ledbat(c) => Box::new(ledbat::Ledbat::new(c, w)),
            CcConfig::Lp(c) => Box::new(lp::Lp::new(c, w)),
            CcConfig::Dctcp(c) => Box::new(dctcp::Dctcp::new(c, w)),
            CcConfig::Cdg(c) => Box::new(cdg::Cdg::new(c, w, rng)),
            CcConfig::Nv(c) => Box::new(nv::Nv::new(c, w, rng)),
            CcConfig::Copa(c) => Box::new(copa::Copa::new(c, w)),
            CcConfig::Bbr3(c) => Box::new(bbr3::Bbr3::new(c, w, rng)),
        }
    }

    /// Range checks the types cannot express (serde has checked the rest).
    /// Algorithms whose every value is safe have no arm.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            CcConfig::Bic(c) => c.validate(),
            CcConfig::Cubic(c) => c.validate(),
            CcConfig::Hybla(c) => c.validate(),
            CcConfig::Vegas(c) => c.validate(),
            CcConfig::Veno(c) => c.validate(),
            CcConfig::Westwood(c) => c.validate(),
            CcConfig::Illinois(c) => c.validate(),
            CcConfig::Yeah(c) => c.validate(),
            CcConfig::Compound(c) => c.validate(),
            CcConfig::Bbr(c) => c.validate(),
            CcConfig::Bbr3(c) => c.validate(),
            CcConfig::Cdg(c) => c.validate(),
            CcConfig::Copa(c) => c.validate(),
            CcConfig::Dctcp(c) => c.validate(),
            CcConfig::Ledbat(c) => c.validate(),
            CcConfig::Nv(c) => c.validate(),
            _ => Ok(()),
        }
    }

    /// The algorithm's canonical name.
    pub fn name(&self) -> &'static str {
        self.build(Window::new(1), RngStream::new(0, "cc:name")).name()
    }

    /// The registry entry for `name`, if any.
    pub fn doc(name: &str) -> Option<&'static CcDoc> {
        REGISTRY.iter().find(|d| d.name == name)
    }

    /// Default parameters of `name` as JSON (`{}` for none).
    pub fn default_params(name: &str) -> Option<serde_json::Value> {
        let cfg: CcConfig = serde_json::from_value(serde_json::json!({ "name": name })).ok()?;
        let mut v = serde_json::to_value(cfg).ok()?;
        v.as_object_mut()?.remove("name");
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_name_parses_and_builds_under_its_own_name() {
        for doc in REGISTRY {
            let cfg: CcConfig = serde_json::from_value(serde_json::json!({ "name": doc.name })).unwrap();
            assert_eq!(cfg.name(), doc.name);
            assert!(CcConfig::default_params(doc.name).is_some());
        }
    }

    #[test]
    fn every_entry_has_a_paragraph_of_two_to_four_sentences() {
        for doc in REGISTRY {
            let sentences = doc.description.split(". ").count();
            assert!((2..=4).contains(&sentences), "{}: {sentences} sentences", doc.name);
            assert!(doc.description.ends_with('.') && !doc.description.contains("  "), "{}", doc.name);
        }
    }

    #[test]
    fn every_default_config_is_valid() {
        for doc in REGISTRY {
            let cfg: CcConfig = serde_json::from_value(serde_json::json!({ "name": doc.name })).unwrap();
            assert_eq!(cfg.validate(), Ok(()), "{}", doc.name);
        }
    }

    #[test]
    fn out_of_range_parameter_names_its_field() {
        let cfg: CcConfig = serde_json::from_value(serde_json::json!({ "name": "cubic", "beta": 1024 })).unwrap();
        let e = cfg.validate().unwrap_err();
        assert_eq!((e.field, e.value.as_str()), ("beta", "1024"));
    }

    #[test]
    fn out_of_range_parameter_is_rejected_at_its_scenario_path() {
        let text = r#"{"version": 1, "duration_s": 1,
            "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
            "links": [{"id": "l", "a": "a", "b": "b", "rate_mbps": 10, "delay_ms": 10}],
            "flows": [{"src": "a", "dst": "b", "cca": "vegas", "cca_params": {"alpha": 5}, "app": {"kind": "bulk"}}]}"#;
        let e = crate::Scenario::from_json(text).unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str()), ("flows[0].cca_params.alpha", "5"));
        assert_eq!(e.allowed, "packets <= beta");
    }

    #[test]
    fn unknown_parameter_is_rejected() {
        let r: Result<CcConfig, _> = serde_json::from_value(serde_json::json!({ "name": "reno", "beta": 1 }));
        assert!(r.is_err());
    }
}
