//! Where the PHY gets its SINR: the seam between the radio channel and the RAN.
//!
//! The PHY asks lazily, only for the UEs and TTIs it needs (a CQI measurement,
//! a transport block's decoding, a PDCCH decision), so an idle cell computes nothing.
//! Simple sources (fixed, CSV time series, linear ramp) live here; the
//! geometric channel (path loss, shadowing, fading, interference) is
//! [`super::channel`] and implements the same trait.

use super::phy::mi::db_to_linear;
use super::sap::{LinkDir, RbMask, UeIndex};
use crate::radio::db::lin_to_db;
use crate::sim::SimTime;

/// An uplink transmission's size: the UE spreads its PUSCH power over `prbs` PRBs
/// (M_PUSCH of TS 36.213 §5.1.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PuschGrant {
    pub prbs: u32,
}

/// An SINR that holds, unchanged, from when it was asked until `until` (excluded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeldSinr {
    pub sinr_db: f64,
    pub until: SimTime,
}

/// Per-RB SINR for the UEs of one cell.
pub trait SinrSource {
    /// Fill `out[rb]` with the linear SINR (a power ratio) of RB `rb` for `ue` in `dir` during
    /// the TTI starting at `now`: what the PHY reads (its MIESM tables are indexed by linear
    /// SINR, so a channel that computes powers never converts to dB on the hot path).
    /// `out.len()` is the cell's number of RBs. Calls come in non-decreasing `now` per UE.
    /// The uplink row is the sounding reference signal's, sent over the whole band: what the
    /// eNB measures for link adaptation.
    fn per_rb_sinr_lin(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]);

    /// [`Self::per_rb_sinr_lin`] read on `rbs` only (a PUSCH's decode reads its grant's RBs):
    /// `out[rb]` for each `rb` in `rbs` holds the bits the full row would; the other RBs of
    /// `out` are left unspecified. The default computes the full row; a source that computes
    /// RB by RB may compute only the asked ones.
    fn per_rb_sinr_lin_on(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, _rbs: RbMask, out: &mut [f64]) {
        self.per_rb_sinr_lin(ue, dir, now, out);
    }

    /// [`Self::per_rb_sinr_lin`]'s row in dB, for outputs (SINR traces, reports). The default
    /// converts the linear row (`radio::db::lin_to_db`, within 1e-13 dB of `10 log10`).
    fn per_rb_sinr_db(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        self.per_rb_sinr_lin(ue, dir, now, out);
        out.iter_mut().for_each(|x| *x = lin_to_db(*x));
    }

    /// How far (dB) a PUSCH over `grant` sits above the SRS row on each of its PRBs: a source
    /// that models the UE's power control puts the PUSCH's power on the grant's PRBs, the SRS's
    /// on the band (TS 36.213 §5.1.1.1, §5.1.3.1). Default 0: a source given as SINR values has
    /// no power to spread.
    fn pusch_offset_db(&mut self, _ue: UeIndex, _now: SimTime, _grant: PuschGrant) -> f64 {
        0.0
    }

    /// [`Self::pusch_offset_db`] as the power ratio a PUSCH's decode scales the SRS row by.
    fn pusch_gain_lin(&mut self, ue: UeIndex, now: SimTime, grant: PuschGrant) -> f64 {
        db_to_linear(self.pusch_offset_db(ue, now, grant))
    }

    /// SINR of the downlink control region (PCFICH/PDCCH) for `ue` at `now`, dB.
    fn control_sinr_db(&mut self, ue: UeIndex, now: SimTime) -> f64;

    /// The SINR the eNB chooses `ue`'s PDCCH aggregation level for, dB, when it is not the one
    /// its CQI stands for: a network's control region sees each neighbour by what it sends there
    /// (reference signal, PCFICH, PHICH, its DCIs) and the data region by its PDSCH, so the eNB's
    /// PDCCH link adaptation (its outer loop on missed DCIs) settles on the control region's SINR,
    /// and the UE's DCI errors come from it. `None` (the default): the CQI's.
    /// It comes with the time it holds until, so the eNB asks again only then.
    fn pdcch_sinr_db(&mut self, _ue: UeIndex, _now: SimTime) -> Option<HeldSinr> {
        None
    }

    /// A name for the row [`Self::per_rb_sinr_lin`] would give now: two calls for the same UE and
    /// direction that return the same id return the same row, so the PHY may reuse what it
    /// derived from it. `None` (the default) when the source cannot tell cheaply.
    fn row_id(&mut self, _ue: UeIndex, _dir: LinkDir, _now: SimTime) -> Option<u64> {
        None
    }
}

/// A per-UE SINR time series: rows `(from, per-RB or wideband dB)`, each holding until the next.
#[derive(Clone, Debug, PartialEq)]
pub struct SinrSeries {
    times: Vec<SimTime>,
    /// Row-major: `width` values per row (1 = wideband).
    values_db: Vec<f64>,
    /// `values_db` as linear power ratios (converted once, when read).
    values_lin: Vec<f64>,
    width: usize,
    /// Index of the row in force at the last lookup (calls come in time order).
    cursor: usize,
}

impl SinrSeries {
    /// Parse `t_s,sinr_db` (wideband) or `t_s,rb0,rb1,…` (per RB) CSV text.
    /// Times must increase; every value must be a finite number.
    pub fn parse_csv(text: &str) -> Result<SinrSeries, String> {
        let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        let (_, header) = lines.next().ok_or("empty file: expected a header `t_s,sinr_db` or `t_s,rb0,rb1,…`")?;
        let cols: Vec<&str> = header.split(',').map(str::trim).collect();
        if cols.first() != Some(&"t_s") || cols.len() < 2 {
            return Err(format!("header {header:?}: expected `t_s,sinr_db` or `t_s,rb0,rb1,…`"));
        }
        let width = cols.len() - 1;
        let mut s = SinrSeries { times: Vec::new(), values_db: Vec::new(), values_lin: Vec::new(), width, cursor: 0 };
        for (n, line) in lines {
            s.push_row(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        }
        if s.times.is_empty() {
            return Err("no data rows after the header".into());
        }
        Ok(s)
    }

    fn push_row(&mut self, line: &str) -> Result<(), String> {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != self.width + 1 {
            return Err(format!("{} fields, expected {}", fields.len(), self.width + 1));
        }
        let num = |f: &str| f.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or(format!("{f:?} is not a number"));
        let t_s = num(fields[0])?;
        if t_s < 0.0 || self.times.last().is_some_and(|&last| SimTime::from_secs_f64(t_s) <= last) {
            return Err(format!("time {t_s} s: times must be >= 0 and increase"));
        }
        self.times.push(SimTime::from_secs_f64(t_s));
        for f in &fields[1..] {
            let db = num(f)?;
            self.values_db.push(db);
            self.values_lin.push(db_to_linear(db));
        }
        Ok(())
    }

    /// RB columns in the file (1 = wideband).
    pub fn width(&self) -> usize {
        self.width
    }

    /// The row in force at `now` (the first row before the first time).
    pub fn row_at(&mut self, now: SimTime) -> &[f64] {
        let i = self.row_index(now);
        &self.values_db[i * self.width..(i + 1) * self.width]
    }

    /// Index of the row in force at `now`.
    pub fn row_index(&mut self, now: SimTime) -> usize {
        if self.times[self.cursor] > now {
            self.cursor = 0;
        }
        while self.cursor + 1 < self.times.len() && self.times[self.cursor + 1] <= now {
            self.cursor += 1;
        }
        self.cursor
    }

    /// Fill `out` with the row in force at `now` (dB); a wideband row fills every RB.
    pub fn fill(&mut self, now: SimTime, out: &mut [f64]) {
        let i = self.row_index(now);
        fill_row(&self.values_db[i * self.width..(i + 1) * self.width], out);
    }

    /// [`Self::fill`] with linear power ratios.
    pub fn fill_lin(&mut self, now: SimTime, out: &mut [f64]) {
        let i = self.row_index(now);
        fill_row(&self.values_lin[i * self.width..(i + 1) * self.width], out);
    }
}

/// `row` into `out`: a one-value (wideband) row fills every RB.
fn fill_row(row: &[f64], out: &mut [f64]) {
    if row.len() == 1 {
        out.fill(row[0]);
    } else {
        out.copy_from_slice(&row[..out.len()]);
    }
}

/// One UE's SINR when no geometric channel is modelled.
pub enum UeSinr {
    Fixed {
        dl_db: f64,
        ul_db: f64,
    },
    Series(SinrSeries),
    /// A faded ramp (one UE's own [`super::channel::sweep::SweepSinr`], queried as its UE 0).
    Sweep(Box<super::channel::sweep::SweepSinr>),
    /// Linear from `from_db` at `start` to `to_db` at `end`, constant outside.
    Ramp {
        from_db: f64,
        to_db: f64,
        start: SimTime,
        end: SimTime,
    },
}

impl UeSinr {
    fn wideband_db(&self, now: SimTime) -> f64 {
        match *self {
            UeSinr::Fixed { dl_db, .. } => dl_db,
            UeSinr::Ramp { from_db, to_db, start, end } => {
                let span = (end - start).as_secs_f64();
                let x = ((now.as_ns().saturating_sub(start.as_ns())) as f64 / 1e9 / span).min(1.0);
                from_db + (to_db - from_db) * x
            }
            UeSinr::Series(_) | UeSinr::Sweep(_) => unreachable!("fills per RB"),
        }
    }
}

/// SINR sources given per UE (fixed, CSV series, ramp).
pub struct PerUeSinr {
    pub ues: Vec<UeSinr>,
}

impl SinrSource for PerUeSinr {
    fn per_rb_sinr_lin(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        match &mut self.ues[ue.index()] {
            UeSinr::Series(s) => s.fill_lin(now, out),
            UeSinr::Sweep(s) => s.per_rb_sinr_lin(UeIndex(0), dir, now, out),
            UeSinr::Fixed { ul_db, .. } if dir == LinkDir::Uplink => out.fill(db_to_linear(*ul_db)),
            other => out.fill(db_to_linear(other.wideband_db(now))),
        }
    }

    fn per_rb_sinr_db(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        match &mut self.ues[ue.index()] {
            UeSinr::Series(s) => s.fill(now, out),
            UeSinr::Sweep(s) => s.per_rb_sinr_db(UeIndex(0), dir, now, out),
            UeSinr::Fixed { ul_db, .. } if dir == LinkDir::Uplink => out.fill(*ul_db),
            other => out.fill(other.wideband_db(now)),
        }
    }

    fn row_id(&mut self, ue: UeIndex, _dir: LinkDir, now: SimTime) -> Option<u64> {
        Some(match &mut self.ues[ue.index()] {
            UeSinr::Sweep(_) => return None,
            UeSinr::Fixed { .. } => 0,
            UeSinr::Series(s) => s.row_index(now) as u64,
            // Constant before and after the ramp; a new row every nanosecond on it.
            UeSinr::Ramp { start, .. } if now <= *start => u64::MAX - 1,
            UeSinr::Ramp { end, .. } if now >= *end => u64::MAX,
            UeSinr::Ramp { .. } => now.as_ns(),
        })
    }

    fn control_sinr_db(&mut self, ue: UeIndex, now: SimTime) -> f64 {
        match &mut self.ues[ue.index()] {
            UeSinr::Sweep(s) => s.control_sinr_db(UeIndex(0), now),
            UeSinr::Series(s) => {
                // The control region spans the whole band: its mean SINR in linear terms.
                let row = s.row_at(now);
                let mean_lin = row.iter().map(|db| 10f64.powf(db / 10.0)).sum::<f64>() / row.len() as f64;
                10.0 * mean_lin.log10()
            }
            other => other.wideband_db(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wideband_series_holds_each_row_until_the_next() {
        let mut s = SinrSeries::parse_csv("t_s,sinr_db\n0,10\n0.5,-3\n").unwrap();
        let mut out = [0.0; 3];
        s.fill(SimTime(499 * crate::sim::NS_PER_MS), &mut out);
        assert_eq!(out, [10.0; 3]);
        s.fill(SimTime(500 * crate::sim::NS_PER_MS), &mut out);
        assert_eq!(out, [-3.0; 3]);
    }

    #[test]
    fn a_per_rb_series_fills_each_rb() {
        let mut s = SinrSeries::parse_csv("t_s,rb0,rb1\n0,1,2\n").unwrap();
        let mut out = [0.0; 2];
        s.fill(SimTime::ZERO, &mut out);
        assert_eq!(out, [1.0, 2.0]);
    }

    #[test]
    fn bad_series_name_the_line() {
        assert!(SinrSeries::parse_csv("t_s,sinr_db\n0,1\n0,2\n").unwrap_err().contains("line 3"));
        assert!(SinrSeries::parse_csv("t_s,sinr_db\n0,x\n").unwrap_err().contains("not a number"));
        assert!(SinrSeries::parse_csv("time,sinr\n").unwrap_err().contains("header"));
    }

    #[test]
    fn a_ramp_moves_linearly_then_holds() {
        let ramp = UeSinr::Ramp {
            from_db: 20.0,
            to_db: 5.0,
            start: SimTime::from_secs_f64(1.0),
            end: SimTime::from_secs_f64(4.0),
        };
        let mut src = PerUeSinr { ues: vec![ramp] };
        let mut out = [0.0; 1];
        for (t, want) in [(0.5, 20.0), (2.5, 12.5), (4.0, 5.0), (9.0, 5.0)] {
            src.per_rb_sinr_db(UeIndex(0), LinkDir::Downlink, SimTime::from_secs_f64(t), &mut out);
            assert!((out[0] - want).abs() < 1e-9, "t = {t}: {} vs {want}", out[0]);
        }
    }
}
