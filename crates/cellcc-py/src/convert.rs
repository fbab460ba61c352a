//! Engine values -> Python objects. Tables become `dict[column, list]` in the
//! engine's column order; JSON values go through Python's own `json` module,
//! so numbers and nesting arrive exactly as the engine wrote them.

use cellcc_engine::cc::{CcConfig, CcDoc};
use cellcc_engine::output::{Column, Table};
use cellcc_engine::RunOutput;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

/// A JSON document as the equivalent Python object.
pub fn json_to_py<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (value.to_string(),))
}

/// Bytes of one `f64` (`array.array("d")`'s item size).
const F64_BYTES: usize = std::mem::size_of::<f64>();

fn column_to_py<'py>(py: Python<'py>, column: &Column) -> PyResult<Bound<'py, PyAny>> {
    match column {
        // A float column as one `array.array("d")` filled from its bytes (a copy), not a list of
        // Python floats: a 10 s flow's RTT trace is 41 k rows x 3 float columns, and making a
        // float object per value was ~10% of the whole `run` (issue 34, docs/performance.md).
        // Both are sequences of the same floats to pandas, numpy and the store's Arrow writer.
        // An empty column stays a list (pandas types an empty array float64, an empty list object).
        // The bytes are written straight into the `bytes` object the array copies from: collected
        // into a `Vec<u8>` first, a byte at a time, they were a third copy of the column.
        Column::F64(v) if !v.is_empty() => {
            let bytes = PyBytes::new_with(py, v.len() * F64_BYTES, |buf| {
                for (dst, x) in buf.chunks_exact_mut(F64_BYTES).zip(v) {
                    dst.copy_from_slice(&x.to_ne_bytes());
                }
                Ok(())
            })?;
            py.import("array")?.getattr("array")?.call1(("d", bytes))
        }
        Column::F64(v) => Ok(PyList::new(py, v)?.into_any()),
        Column::U64(v) => Ok(PyList::new(py, v)?.into_any()),
        Column::Str(v) => Ok(PyList::new(py, v)?.into_any()),
        // One label (one flow's RTT trace: 41 k rows of the same id): `[label] * rows`, made in
        // one call, not an increment and a store through the C API per row.
        Column::Cat { codes, labels } if labels.len() == 1 => {
            let one = PyList::new(py, [PyString::new(py, &labels[0])])?;
            Ok(one.as_sequence().repeat(codes.len())?.into_any())
        }
        // One Python string per label, referenced from every row.
        Column::Cat { codes, labels } => {
            let labels: Vec<Bound<'py, PyString>> = labels.iter().map(|l| PyString::new(py, l)).collect();
            Ok(PyList::new(py, codes.iter().map(|&c| &labels[c as usize]))?.into_any())
        }
    }
}

/// `{column: list}` preserving the engine's column order (dicts keep insertion order).
pub fn table_to_py<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, column) in &table.columns {
        dict.set_item(*name, column_to_py(py, column)?)?;
    }
    Ok(dict)
}

/// `{summary, flows, timeseries, queues, cwnd, rtt, lte, wifi, nr, handovers, pcaps}`.
pub fn run_output_to_py<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("summary", json_to_py(py, &out.summary)?)?;
    let tables = [
        ("flows", &out.flows),
        ("timeseries", &out.timeseries),
        ("queues", &out.queues),
        ("cwnd", &out.cwnd),
        ("rtt", &out.rtt),
        ("lte", &out.lte),
        ("wifi", &out.wifi),
        ("nr", &out.nr),
        ("handovers", &out.handovers),
    ];
    for (name, table) in tables {
        dict.set_item(name, table_to_py(py, table)?)?;
    }
    let pcaps = PyDict::new(py);
    for (name, bytes) in &out.pcaps {
        pcaps.set_item(name, PyBytes::new(py, bytes))?;
    }
    dict.set_item("pcaps", pcaps)?;
    Ok(dict)
}

/// One registry entry: `{name, family, source, summary, description, params: [{name, doc, default}]}`.
/// Parameters are listed in the documentation's order; a default the docs do not
/// mention is still listed, so nothing the algorithm accepts is hidden.
pub fn cca_to_py<'py>(py: Python<'py>, doc: &CcDoc) -> PyResult<Bound<'py, PyDict>> {
    let defaults = CcConfig::default_params(doc.name).unwrap_or_else(|| serde_json::json!({}));
    let defaults = defaults.as_object().cloned().unwrap_or_default();
    let params = PyList::empty(py);
    for (name, text) in doc.params {
        params.append(param_to_py(py, name, text, defaults.get(*name))?)?;
    }
    for (name, default) in defaults.iter().filter(|(k, _)| !doc.params.iter().any(|(p, _)| p == k)) {
        params.append(param_to_py(py, name, "", Some(default))?)?;
    }
    let family = serde_json::to_value(doc.family).unwrap_or(serde_json::Value::Null);
    let dict = PyDict::new(py);
    dict.set_item("name", doc.name)?;
    dict.set_item("family", json_to_py(py, &family)?)?;
    dict.set_item("source", doc.source)?;
    dict.set_item("summary", doc.summary)?;
    dict.set_item("description", doc.description)?;
    dict.set_item("params", params)?;
    Ok(dict)
}

fn param_to_py<'py>(
    py: Python<'py>,
    name: &str,
    doc: &str,
    default: Option<&serde_json::Value>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("name", name)?;
    dict.set_item("doc", doc)?;
    dict.set_item("default", json_to_py(py, default.unwrap_or(&serde_json::Value::Null))?)?;
    Ok(dict)
}
