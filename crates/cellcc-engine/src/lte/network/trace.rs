//! A measurement trace: the UEs' layer 1 RSRP samples read from a file instead of the channel,
//! so a run can take the very samples another simulator's UEs took (ns-3
//! `LteUePhy::ReportUeMeasurements`) and its A3 decisions can be compared sample for sample.
//!
//! ```text
//!  t_s,ue,cell,rsrp_dbm        one row per sample: UE `ue` (node id) measured cell `cell` (cell id)
//!  0.2,ue0,c0,-71.5            rows of one time are one measurement occasion of that UE;
//!  0.2,ue0,c1,-84.0            times never decrease
//! ```

use crate::link::trace::MAX_TRACE_BYTES;
use crate::sim::SimTime;

/// One sample of the trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub at: SimTime,
    pub ue: usize,
    pub cell: usize,
    pub rsrp_dbm: f64,
}

/// The samples in time order, consumed as the run passes them.
#[derive(Clone, Debug)]
pub struct MeasurementTrace {
    samples: Vec<Sample>,
    cursor: usize,
}

const HEADER: &str = "t_s,ue,cell,rsrp_dbm";

impl MeasurementTrace {
    /// Read `file`; UEs and cells are named by `ue_names` and `cell_names`.
    pub fn read(file: &str, ue_names: &[String], cell_names: &[String]) -> Result<MeasurementTrace, String> {
        use std::io::Read;
        let f = std::fs::File::open(file).map_err(|e| format!("a readable measurement CSV file ({e})"))?;
        let mut text = String::new();
        f.take(MAX_TRACE_BYTES + 1).read_to_string(&mut text).map_err(|e| format!("a UTF-8 CSV file ({e})"))?;
        if text.len() as u64 > MAX_TRACE_BYTES {
            return Err(format!("a measurement CSV of at most {} MiB", MAX_TRACE_BYTES >> 20));
        }
        Self::parse(&text, ue_names, cell_names)
    }

    /// Parse CSV `text` (header `t_s,ue,cell,rsrp_dbm`).
    pub fn parse(text: &str, ue_names: &[String], cell_names: &[String]) -> Result<MeasurementTrace, String> {
        let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        let (_, header) = lines.next().ok_or(format!("a measurement CSV with the header `{HEADER}` (empty file)"))?;
        let cols: Vec<&str> = header.split(',').map(str::trim).collect();
        if cols.join(",") != HEADER {
            return Err(format!("a measurement CSV with the header `{HEADER}` (found {header:?})"));
        }
        let index = |names: &[String], name: &str, what: &str| {
            names.iter().position(|n| n == name).ok_or(format!("{what} {name:?} is not in the network"))
        };
        let mut samples: Vec<Sample> = Vec::new();
        for (n, line) in lines {
            let row = || -> Result<Sample, String> {
                let f: Vec<&str> = line.split(',').map(str::trim).collect();
                if f.len() != 4 {
                    return Err(format!("{} fields, expected 4", f.len()));
                }
                let num =
                    |s: &str| s.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or(format!("{s:?} is not a number"));
                let t_s = num(f[0])?;
                if t_s < 0.0 {
                    return Err(format!("time {t_s} s is negative"));
                }
                let at = SimTime::from_secs_f64(t_s);
                if samples.last().is_some_and(|s| at < s.at) {
                    return Err(format!("time {t_s} s: times must not decrease"));
                }
                let ue = index(ue_names, f[1], "UE")?;
                let cell = index(cell_names, f[2], "cell")?;
                Ok(Sample { at, ue, cell, rsrp_dbm: num(f[3])? })
            };
            samples.push(row().map_err(|e| format!("a measurement CSV (line {}: {e})", n + 1))?);
        }
        if samples.is_empty() {
            return Err("a measurement CSV with at least one sample after the header".into());
        }
        Ok(MeasurementTrace { samples, cursor: 0 })
    }

    /// When the next samples are due, if any remain.
    pub fn next_at(&self) -> Option<SimTime> {
        self.samples.get(self.cursor).map(|s| s.at)
    }

    /// The samples due by `now` (each handed out once).
    pub fn take_due(&mut self, now: SimTime) -> &[Sample] {
        let start = self.cursor;
        while self.samples.get(self.cursor).is_some_and(|s| s.at <= now) {
            self.cursor += 1;
        }
        &self.samples[start..self.cursor]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::NS_PER_MS;

    fn names(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn samples_come_out_once_by_their_time() {
        let text = "t_s,ue,cell,rsrp_dbm\n0.2,u,c0,-70\n0.2,u,c1,-80.5\n0.4,u,c1,-60\n";
        let mut t = MeasurementTrace::parse(text, &names(&["u"]), &names(&["c0", "c1"])).unwrap();
        assert_eq!(t.next_at(), Some(SimTime(200 * NS_PER_MS)));
        assert!(t.take_due(SimTime(199 * NS_PER_MS)).is_empty());
        let due = t.take_due(SimTime(300 * NS_PER_MS));
        assert_eq!(due.len(), 2);
        assert_eq!((due[1].ue, due[1].cell, due[1].rsrp_dbm), (0, 1, -80.5));
        assert!(t.take_due(SimTime(300 * NS_PER_MS)).is_empty());
        assert_eq!(t.take_due(SimTime(400 * NS_PER_MS)).len(), 1);
        assert_eq!(t.next_at(), None);
    }

    #[test]
    fn bad_traces_are_refused_with_the_line() {
        let ues = names(&["u"]);
        let cells = names(&["c0"]);
        for (text, says) in [
            ("", "empty file"),
            ("t,ue,cell,rsrp\n", "header"),
            ("t_s,ue,cell,rsrp_dbm\n", "at least one sample"),
            ("t_s,ue,cell,rsrp_dbm\n0.2,u,c0\n", "line 2: 3 fields"),
            ("t_s,ue,cell,rsrp_dbm\n0.2,v,c0,-70\n", "UE \"v\""),
            ("t_s,ue,cell,rsrp_dbm\n0.2,u,c9,-70\n", "cell \"c9\""),
            ("t_s,ue,cell,rsrp_dbm\n0.2,u,c0,x\n", "\"x\" is not a number"),
            ("t_s,ue,cell,rsrp_dbm\n0.4,u,c0,-70\n0.2,u,c0,-70\n", "line 3: time 0.2 s"),
        ] {
            let e = MeasurementTrace::parse(text, &ues, &cells).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
