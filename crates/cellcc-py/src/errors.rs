//! The one place engine errors become Python exceptions.
//!
//! - [`ScenarioError`] (a `ValueError`): a user mistake, with attributes
//!   `path`, `value` and `allowed`; `str()` is the engine's own message.
//! - [`EngineError`] (a `RuntimeError`): anything else, including a run whose
//!   simulated time stopped advancing and a panic caught at the boundary (a bug
//!   in the engine or in its validation, never the user's fault).
//! - `KeyboardInterrupt`: a run stopped by `interrupt()`; an exception a Python
//!   signal handler raised during a run passes through unchanged.

use cellcc_engine::{RunError, ScenarioError as EngineScenarioError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

pyo3::create_exception!(
    cellcc._core,
    ScenarioError,
    PyValueError,
    "The scenario is invalid: `path` names the field, `value` what was given, `allowed` what is accepted."
);
pyo3::create_exception!(
    cellcc._core,
    EngineError,
    PyRuntimeError,
    "The engine failed for a reason other than bad input."
);

/// Why a call into the engine failed, before it becomes a Python exception.
#[derive(Debug)]
pub enum Failure {
    Scenario(EngineScenarioError),
    Engine(String),
    /// `interrupt()` was called while the run was going.
    Interrupted,
    /// A Python signal handler raised during the run (e.g. `KeyboardInterrupt`).
    Python(PyErr),
}

impl From<EngineScenarioError> for Failure {
    fn from(e: EngineScenarioError) -> Self {
        Failure::Scenario(e)
    }
}

impl From<RunError> for Failure {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Scenario(s) => Failure::Scenario(s),
            stalled @ RunError::Stalled(_) => Failure::Engine(stalled.to_string()),
        }
    }
}

impl Failure {
    /// The Python exception for this failure.
    pub fn into_pyerr(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Scenario(e) => scenario_error(py, &e),
            Failure::Engine(msg) => EngineError::new_err(msg),
            Failure::Interrupted => PyKeyboardInterrupt::new_err("run interrupted"),
            Failure::Python(err) => err,
        }
    }
}

/// A `ScenarioError` instance carrying the field path, value and what is allowed.
fn scenario_error(py: Python<'_>, e: &EngineScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let instance = err.value(py);
    let attrs = [("path", e.path.as_str()), ("value", e.value.as_str()), ("allowed", e.allowed.as_str())];
    for (name, text) in attrs {
        if let Err(set_failed) = instance.setattr(name, text) {
            return set_failed;
        }
    }
    err
}

/// Run `f`, turning a panic into [`Failure::Engine`]: no panic crosses into Python.
pub fn guarded<T>(f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(Failure::Engine(panic_message(&*payload))))
}

/// Run a conversion that builds Python objects, turning a panic into `EngineError`
/// (PyO3 would raise its `PanicException`, a `BaseException` no caller expects).
pub fn guarded_py<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(EngineError::new_err(panic_message(&*payload))))
}

/// The text a panic carried (`panic!("...")` payloads are `&str` or `String`).
fn panic_message(payload: &(dyn Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string());
    format!("internal engine error (please report it): {text}")
}
