//! Typed errors at the engine's boundary.
//!
//! A user mistake is a [`ScenarioError`]: the field path (`flows[2].cca`),
//! the value given, and what is allowed. Internal invariants are asserts.

use std::fmt;

/// A scenario the engine cannot run, and exactly why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Dotted path of the offending field, e.g. `links[0].queue.limit_packets`.
    pub path: String,
    /// The value given, rendered as text (empty when the field is missing).
    pub value: String,
    /// What would have been accepted.
    pub allowed: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, value: impl fmt::Display, allowed: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), value: value.to_string(), allowed: allowed.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}: {}", self.path, self.allowed)
        } else {
            write!(f, "{}: got {}; allowed: {}", self.path, self.value, self.allowed)
        }
    }
}

impl std::error::Error for ScenarioError {}
