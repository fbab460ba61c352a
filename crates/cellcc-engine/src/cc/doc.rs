//! What every algorithm declares about itself: its documentation entry
//! ([`CcDoc`], [`Family`]) and the error its `Config::validate` returns
//! ([`ParamError`]). These live beside the trait, not in the registry, so an
//! algorithm never imports the module that imports every algorithm.

use serde::Serialize;

/// Family of an algorithm, as the seeds group them (seed 000 §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Reacts to packet loss.
    Loss,
    /// Reacts to queueing delay.
    Delay,
    /// Uses both loss and delay.
    LossDelay,
    /// Builds a model of the path (bottleneck rate, min RTT).
    Model,
    /// Yields to other traffic (scavenger).
    LowerThanBestEffort,
    /// Reacts to ECN marks.
    Ecn,
}

/// One registry entry: what `cellcc ccas` prints.
#[derive(Clone, Copy, Debug)]
pub struct CcDoc {
    pub name: &'static str,
    pub family: Family,
    /// RFC / kernel file / paper the implementation follows.
    pub source: &'static str,
    /// One line: what the algorithm does.
    pub summary: &'static str,
    /// A paragraph (2-4 sentences): mechanism, what it reacts to, behaviour
    /// to expect; `docs/ccas.md` and `cellcc ccas --verbose` print it.
    pub description: &'static str,
    /// (parameter, meaning with unit and source of the default).
    pub params: &'static [(&'static str, &'static str)],
}

/// A parameter outside the range its algorithm's math needs: `field` of
/// `cca_params`, the value given, and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub field: &'static str,
    pub value: String,
    pub allowed: &'static str,
}

impl ParamError {
    /// `Err` naming `field` unless `ok`.
    pub fn check(
        ok: bool,
        field: &'static str,
        value: impl std::fmt::Display,
        allowed: &'static str,
    ) -> Result<(), Self> {
        if ok {
            Ok(())
        } else {
            Err(ParamError { field, value: value.to_string(), allowed })
        }
    }
}
