//! `cellcc._core`: the PyO3 bindings of the cellcc engine. Conversion only:
//! every decision (schema, validation, simulation) is the engine's. Errors map
//! to Python exceptions in `errors.rs`; panics are caught at this boundary.
//!
//! A run releases the GIL and advances the world in slices of
//! [`EVENTS_PER_SLICE`] events; every [`INTERRUPT_CHECK_EVERY`] of wall time it
//! looks for Ctrl-C / SIGTERM (Python's signal handlers, on the main thread) and
//! for [`interrupt`] (any thread), and stops without a result if either fired.
//! A run given a `progress` callable calls it with the simulated time every
//! [`PROGRESS_EVERY`] of wall time (the CLI's progress bar for one long run).

mod convert;
mod errors;

use cellcc_engine::cc::REGISTRY;
use cellcc_engine::lte::channel::spec::{AntennaSpec, ChannelSpec, UePlacement};
use cellcc_engine::lte::channel::{
    downlink_fading_trace_db, interfering_cells as engine_interfering_cells, wideband_dl_sinr_db as engine_wideband,
};
use cellcc_engine::radio::interference::InterfererLoad;
use cellcc_engine::scenario::SCHEMA_VERSION;
use cellcc_engine::world::{resolved, World};
use cellcc_engine::{Scenario, ENGINE_VERSION};
use errors::{guarded, guarded_py, EngineError, Failure, ScenarioError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Events a run processes between looks at the wall clock: ~1.6 ms of work at the
/// engine's ~6 x 10^6 events per CPU second (BENCHMARKS.md), so a look (one clock read)
/// costs nothing measurable and an interrupt is seen within a few ms.
const EVENTS_PER_SLICE: u64 = 10_000;
/// How often a run looks for an interrupt, wall time.
const INTERRUPT_CHECK_EVERY: Duration = Duration::from_millis(2);
/// How often a run reports its simulated time to a `progress` callable, wall time: a
/// terminal bar redraws ~10 times a second, so more often would only cost GIL round trips.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);
/// Set by [`interrupt`]: every run in this process stops at its next look.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Validate a scenario given as JSON text; return its canonical JSON. A `resolved` table
/// (read back from a run's scenario.json) must equal the engine's resolution.
#[pyfunction]
fn validate(py: Python<'_>, json: &str) -> PyResult<String> {
    guarded(|| {
        let sc = Scenario::from_json(json)?;
        resolved::check(&sc)?;
        Ok(sc.to_canonical_json())
    })
    .map_err(|f| f.into_pyerr(py))
}

/// Every default a run of the scenario (JSON text) uses, as JSON text (`world::resolved`).
#[pyfunction]
fn resolve(py: Python<'_>, json: &str) -> PyResult<String> {
    guarded(|| {
        let sc = Scenario::from_json(json)?;
        Ok(resolved::resolve_json(&sc)?.to_string())
    })
    .map_err(|f| f.into_pyerr(py))
}

/// Run a scenario (JSON text) with `seed`, without holding the GIL.
/// Returns `{summary, flows, timeseries, queues, cwnd, rtt, lte, wifi, nr, handovers, pcaps}`.
/// Raises `KeyboardInterrupt` (or what a signal handler raised) when interrupted.
/// `progress`, if given, is called as `progress(now_ns)` every [`PROGRESS_EVERY`] of wall
/// time; an exception it raises stops the run and propagates.
#[pyfunction]
#[pyo3(signature = (json, seed, progress=None))]
fn run<'py>(py: Python<'py>, json: &str, seed: u64, progress: Option<Py<PyAny>>) -> PyResult<Bound<'py, PyDict>> {
    let text = json.to_owned();
    let out = py.detach(move || {
        guarded(|| {
            let scenario = Scenario::from_json(&text)?;
            let mut world = World::new(&scenario, seed)?;
            run_interruptibly(&mut world, progress.as_ref())?;
            Ok(world.into_output()?)
        })
    });
    let out = out.map_err(|f| f.into_pyerr(py))?;
    guarded_py(|| convert::run_output_to_py(py, &out))
}

/// Advance `world` to its end in slices, looking for interrupts between them and
/// reporting the simulated time to `progress`.
fn run_interruptibly(world: &mut World, progress: Option<&Py<PyAny>>) -> Result<(), Failure> {
    let mut last_look = Instant::now();
    let mut last_report = Instant::now();
    while !world.run_events(EVENTS_PER_SLICE)? {
        if last_look.elapsed() >= INTERRUPT_CHECK_EVERY {
            look_for_interrupt()?;
            last_look = Instant::now();
        }
        if let Some(callback) = progress {
            if last_report.elapsed() >= PROGRESS_EVERY {
                report_progress(callback, world.now().as_ns())?;
                last_report = Instant::now();
            }
        }
    }
    Ok(())
}

/// Call `progress(now_ns)` with the GIL held.
fn report_progress(callback: &Py<PyAny>, now_ns: u64) -> Result<(), Failure> {
    Python::attach(|py| callback.call1(py, (now_ns,)).map(|_| ())).map_err(Failure::Python)
}

/// `Err` if [`interrupt`] was called or a Python signal handler raised.
/// Python runs handlers only on the main thread: elsewhere only the flag counts.
fn look_for_interrupt() -> Result<(), Failure> {
    if INTERRUPTED.load(Ordering::Relaxed) {
        return Err(Failure::Interrupted);
    }
    Python::attach(|py| py.check_signals()).map_err(Failure::Python)
}

/// Stop every run in this process at its next look (within a few ms), from any
/// thread: the CLI's SIGINT/SIGTERM handler calls it, so runs on worker threads stop too.
#[pyfunction]
fn interrupt() {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Let runs proceed again after [`interrupt`].
#[pyfunction]
fn clear_interrupt() {
    INTERRUPTED.store(false, Ordering::Relaxed);
}

/// The congestion-control registry, in the engine's order.
#[pyfunction]
fn ccas(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    guarded_py(|| {
        let list = PyList::empty(py);
        for doc in REGISTRY {
            list.append(convert::cca_to_py(py, doc)?)?;
        }
        Ok(list)
    })
}

/// The engine's downlink fast fading of UE `ue` of cell `cell_id` (its channel spec as JSON),
/// per RB in dB, one row per RB over `n_steps` TTIs: the ns-3 backend writes it as a LENA
/// fading trace (`cellcc_engine::lte::channel::downlink_fading_trace_db`). Empty without fading.
#[pyfunction]
fn fading_trace_db(
    py: Python<'_>,
    channel_json: &str,
    seed: u64,
    cell_id: &str,
    ue: usize,
    n_rb: usize,
    n_steps: u64,
) -> PyResult<Vec<Vec<f64>>> {
    guarded(|| {
        let spec = parse_channel(channel_json)?;
        let label = format!("cell:{cell_id}");
        Ok(downlink_fading_trace_db(&spec, seed, &label, ue, n_rb, n_steps).unwrap_or_default())
    })
    .map_err(|f| f.into_pyerr(py))
}

/// The channel's interfering cells as the engine resolves them (listed interferers, then the
/// hexagonal layout's cells), one dict each: `x_m`, `y_m`, `height_m`, `tx_power_dbm`, `antenna`
/// (`"isotropic"` or `"parabolic"`, with `orientation_deg`, `beamwidth_deg`, `max_attenuation_db`),
/// `load` (`"full_buffer"`, `"idle"` or `"fraction"`, with `load_fraction`), `uplink_load` (the same
/// kinds for the cell's uplink UE, with `uplink_load_fraction`). The ns-3 backend places one
/// LENA eNB per cell from this list (`cellcc_engine::lte::channel::interfering_cells`).
#[pyfunction]
fn interfering_cells<'py>(py: Python<'py>, channel_json: &str) -> PyResult<Bound<'py, PyList>> {
    let spec = guarded(|| parse_channel(channel_json)).map_err(|f| f.into_pyerr(py))?;
    let list = PyList::empty(py);
    for c in engine_interfering_cells(&spec) {
        let d = PyDict::new(py);
        d.set_item("x_m", c.xy_m[0])?;
        d.set_item("y_m", c.xy_m[1])?;
        d.set_item("height_m", c.height_m)?;
        d.set_item("tx_power_dbm", c.tx_power_dbm)?;
        match c.antenna {
            AntennaSpec::Isotropic => d.set_item("antenna", "isotropic")?,
            AntennaSpec::Parabolic { orientation_deg, beamwidth_deg, max_attenuation_db } => {
                d.set_item("antenna", "parabolic")?;
                d.set_item("orientation_deg", orientation_deg)?;
                d.set_item("beamwidth_deg", beamwidth_deg)?;
                d.set_item("max_attenuation_db", max_attenuation_db)?;
            }
        }
        for (key, load) in [("load", c.load), ("uplink_load", c.uplink_load)] {
            match load {
                InterfererLoad::FullBuffer => d.set_item(key, "full_buffer")?,
                InterfererLoad::Idle => d.set_item(key, "idle")?,
                InterfererLoad::Fraction { fraction } => {
                    d.set_item(key, "fraction")?;
                    d.set_item(format!("{key}_fraction"), fraction)?;
                }
            }
        }
        list.append(d)?;
    }
    Ok(list)
}

/// The engine's wideband downlink SINR, dB, of one UE (`placement_json`: a UE placement) of cell
/// `cell_id` at t = 0 over `n_rb` RBs: (data region, control region)
/// (`cellcc_engine::lte::channel::wideband_dl_sinr_db`).
#[pyfunction]
fn wideband_dl_sinr_db(
    py: Python<'_>,
    channel_json: &str,
    placement_json: &str,
    seed: u64,
    cell_id: &str,
    n_rb: usize,
) -> PyResult<(f64, f64)> {
    guarded(|| {
        let spec = parse_channel(channel_json)?;
        let placement: UePlacement = serde_json::from_str(placement_json)
            .map_err(|e| cellcc_engine::ScenarioError::new("placement", e.to_string(), "a UE placement"))?;
        Ok(engine_wideband(&spec, &placement, seed, &format!("cell:{cell_id}"), n_rb)?)
    })
    .map_err(|f| f.into_pyerr(py))
}

fn parse_channel(json: &str) -> Result<ChannelSpec, Failure> {
    let spec: ChannelSpec = serde_json::from_str(json)
        .map_err(|e| cellcc_engine::ScenarioError::new("channel", e.to_string(), "a cell's channel spec"))?;
    Ok(spec)
}

/// The engine crate's version.
#[pyfunction]
fn engine_version() -> &'static str {
    ENGINE_VERSION
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(ccas, m)?)?;
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    m.add_function(wrap_pyfunction!(fading_trace_db, m)?)?;
    m.add_function(wrap_pyfunction!(interfering_cells, m)?)?;
    m.add_function(wrap_pyfunction!(wideband_dl_sinr_db, m)?)?;
    m.add_function(wrap_pyfunction!(interrupt, m)?)?;
    m.add_function(wrap_pyfunction!(clear_interrupt, m)?)?;
    m.add("SCHEMA_VERSION", SCHEMA_VERSION)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    Ok(())
}
