//! `cellcc._core`: the PyO3 bindings of the cellcc engine. Conversion only:
//! every decision (schema, validation, simulation) is the engine's. Errors map
//! to Python exceptions in `errors.rs`; panics are caught at this boundary.

mod convert;
mod errors;

use cellcc_engine::cc::REGISTRY;
use cellcc_engine::scenario::SCHEMA_VERSION;
use cellcc_engine::{Scenario, ENGINE_VERSION};
use errors::{guarded, EngineError, Failure, ScenarioError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Validate a scenario given as JSON text; return its canonical JSON.
#[pyfunction]
fn validate(py: Python<'_>, json: &str) -> PyResult<String> {
    guarded(|| Ok(Scenario::from_json(json)?.to_canonical_json())).map_err(|f| f.into_pyerr(py))
}

/// Run a scenario (JSON text) with `seed`, without holding the GIL.
/// Returns `{summary, flows, timeseries, queues, cwnd, rtt, lte, pcaps}`.
#[pyfunction]
fn run<'py>(py: Python<'py>, json: &str, seed: u64) -> PyResult<Bound<'py, PyDict>> {
    let text = json.to_owned();
    let out = py.detach(move || {
        guarded(|| {
            let scenario = Scenario::from_json(&text)?;
            cellcc_engine::run(&scenario, seed).map_err(Failure::from)
        })
    });
    let out = out.map_err(|f| f.into_pyerr(py))?;
    convert::run_output_to_py(py, &out)
}

/// The congestion-control registry, in the engine's order.
#[pyfunction]
fn ccas(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for doc in REGISTRY {
        list.append(convert::cca_to_py(py, doc)?)?;
    }
    Ok(list)
}

/// The engine crate's version.
#[pyfunction]
fn engine_version() -> &'static str {
    ENGINE_VERSION
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(ccas, m)?)?;
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    m.add("SCHEMA_VERSION", SCHEMA_VERSION)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    Ok(())
}
