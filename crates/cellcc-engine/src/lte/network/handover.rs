//! Handover decisions: what a UE measures, when event A3 reports a better neighbour, and the
//! settings of the X2 handover that follows (TS 36.300 §10.1.2.1).
//!
//! ```text
//!  every measurement_period_ms: L1 RSRP of every cell ─► L3 filter F = (1 - a) F + a M    (TS 36.331 §5.5.3.2)
//!        per neighbour n: entering  Mn - Hys > Ms + Off   (Ms: the serving cell; §5.5.4.4)
//!                         held at every sample for time_to_trigger ─► measurement report
//!  report ─(preparation_ms)─► HO command: the UE leaves the source ─(interruption_ms)─► attached at the target
//! ```
//! The event's cell and frequency offsets (Ofn, Ocn, Ofp, Ocp) are 0: one carrier, no
//! cell-individual offsets. The report names the neighbour with the best filtered RSRP among
//! those whose time to trigger elapsed, and the source hands over to it (ns-3
//! `A3RsrpHandoverAlgorithm::DoReportUeMeas`: the best neighbour of the report).

use serde::{Deserialize, Serialize};

use crate::error::ScenarioError;
use crate::sim::{SimDuration, SimTime};

/// What the source eNB forwards to the target over X2-U when the UE leaves (TS 36.300
/// §10.1.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Forwarding {
    /// TS 36.300 §10.1.2.3.1 (RLC AM): every downlink PDCP SDU the UE has not acknowledged, in
    /// order, then the fresh data that still arrives over S1; §10.1.2.3.2 (RLC UM): the SDUs not
    /// yet transmitted, then the fresh data. Uplink SDUs the source received out of order go on
    /// to the core; the UE sends again what the source did not acknowledge (TS 36.323 §5.2.1.1).
    Lossless,
    /// ns-3 LENA ("seamless handover", lte-design.rst "X2"; lte-enb-rrc.cc
    /// `UeManager::SendData` in HANDOVER_LEAVING): only the fresh data arriving over S1 after
    /// the UE left is forwarded; what the source held is lost.
    Seamless,
    /// Nothing is forwarded: what the source held, and what still arrives there, is lost.
    None,
}

/// Where the UEs' layer 1 RSRP samples come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MeasurementSource {
    /// The network's channel: each cell's reference-signal power at the UE (path loss,
    /// shadowing, antenna), fast fading averaged out over the period.
    Channel,
    /// A trace, columns `t_s,ue,cell,rsrp_dbm` (ns-3's `ReportUeMeasurements`): each row is the
    /// UE's sample of that cell at that time.
    Csv { file: String },
}

/// Handover as it runs (`scenario::HandoverSpec` resolved with the profile's defaults): its
/// settings, and where its measurements come from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HandoverConfig {
    #[serde(flatten)]
    pub settings: HandoverSettings,
    pub measurements: MeasurementSource,
}

/// A handover's settings: a profile's defaults (`lte::profile`), or a scenario's values over them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HandoverSettings {
    pub enabled: bool,
    pub a3_offset_db: f64,
    pub hysteresis_db: f64,
    pub time_to_trigger_ms: u32,
    pub filter_coefficient: u8,
    pub measurement_period_ms: u32,
    pub preparation_ms: f64,
    pub interruption_ms: f64,
    pub forwarding: Forwarding,
    pub x2_delay_ms: f64,
}

/// TS 36.331 §6.3.5 TimeToTrigger, ms.
pub const TIME_TO_TRIGGER_MS: [u32; 16] =
    [0, 40, 64, 80, 100, 128, 160, 256, 320, 480, 512, 640, 1024, 1280, 2560, 5120];
/// TS 36.331 §6.3.5 FilterCoefficient: fc0..fc9, fc11, fc13, fc15, fc17, fc19.
pub const FILTER_COEFFICIENTS: [u8; 15] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 15, 17, 19];
/// TS 36.331 §5.5.3.2: the filter coefficient k assumes a sample every 200 ms.
pub const FILTER_REFERENCE_PERIOD_MS: f64 = 200.0;
/// Longest delay a setting takes, ms.
const MAX_DELAY_MS: f64 = 1000.0;

impl HandoverConfig {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        self.settings.validate(path)?;
        if let MeasurementSource::Csv { file } = &self.measurements {
            if file.is_empty() {
                return Err(ScenarioError::new(format!("{path}.measurements.file"), "\"\"", "a path to a CSV file"));
            }
        }
        Ok(())
    }
}

impl HandoverSettings {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let p = |f: &str| format!("{path}.{f}");
        let half_db = |x: f64, lo: f64, hi: f64, f: &str| {
            let ok = x.is_finite() && (lo..=hi).contains(&x) && (2.0 * x).fract() == 0.0;
            ok.then_some(())
                .ok_or_else(|| ScenarioError::new(p(f), x, format!("dB in [{lo}, {hi}] in steps of 0.5 (TS 36.331)")))
        };
        half_db(self.a3_offset_db, -15.0, 15.0, "a3_offset_db")?;
        half_db(self.hysteresis_db, 0.0, 15.0, "hysteresis_db")?;
        if !TIME_TO_TRIGGER_MS.contains(&self.time_to_trigger_ms) {
            let allowed =
                "one of 0, 40, 64, 80, 100, 128, 160, 256, 320, 480, 512, 640, 1024, 1280, 2560, 5120 ms (TS 36.331)";
            return Err(ScenarioError::new(p("time_to_trigger_ms"), self.time_to_trigger_ms, allowed));
        }
        if !FILTER_COEFFICIENTS.contains(&self.filter_coefficient) {
            let allowed = "one of 0-9, 11, 13, 15, 17, 19 (TS 36.331 filterCoefficient)";
            return Err(ScenarioError::new(p("filter_coefficient"), self.filter_coefficient, allowed));
        }
        if !(1..=1000).contains(&self.measurement_period_ms) {
            return Err(ScenarioError::new(p("measurement_period_ms"), self.measurement_period_ms, "ms in [1, 1000]"));
        }
        for (f, x) in [
            ("preparation_ms", self.preparation_ms),
            ("interruption_ms", self.interruption_ms),
            ("x2_delay_ms", self.x2_delay_ms),
        ] {
            if !(x.is_finite() && (0.0..=MAX_DELAY_MS).contains(&x)) {
                return Err(ScenarioError::new(p(f), x, "ms in [0, 1000]"));
            }
        }
        Ok(())
    }

    pub fn time_to_trigger(&self) -> SimDuration {
        SimDuration::from_ms(u64::from(self.time_to_trigger_ms))
    }

    /// The L3 filter's weight of a new sample: a = 1 / 2^(k/4), adapted to the measurement
    /// period so the filter keeps its time constant (TS 36.331 §5.5.3.2 and its note: k assumes
    /// a 200 ms sample rate): a' = 1 - (1 - a)^(period / 200 ms).
    pub fn filter_weight(&self) -> f64 {
        let a = 0.5f64.powf(f64::from(self.filter_coefficient) / 4.0);
        1.0 - (1.0 - a).powf(f64::from(self.measurement_period_ms) / FILTER_REFERENCE_PERIOD_MS)
    }
}

/// One UE's measurements and event A3's state.
#[derive(Clone, Debug)]
pub struct A3Tracker {
    /// Per cell, the L3-filtered RSRP, dBm (None before its first sample).
    filtered_dbm: Vec<Option<f64>>,
    /// Per cell, since when its entering condition has held at every sample (its time to
    /// trigger runs).
    entered_at: Vec<Option<SimTime>>,
}

impl A3Tracker {
    pub fn new(n_cells: usize) -> Self {
        A3Tracker { filtered_dbm: vec![None; n_cells], entered_at: vec![None; n_cells] }
    }

    /// The filtered RSRP of `cell`, dBm.
    pub fn filtered_dbm(&self, cell: usize) -> Option<f64> {
        self.filtered_dbm[cell]
    }

    /// A layer 1 sample of `cell` at `now`, `rsrp_dbm`: filtered into the L3 value (the first
    /// sample is taken as it is, §5.5.3.2).
    pub fn sample(&mut self, cell: usize, rsrp_dbm: f64, weight: f64) {
        let f = &mut self.filtered_dbm[cell];
        *f = Some(f.map_or(rsrp_dbm, |prev| (1.0 - weight) * prev + weight * rsrp_dbm));
    }

    /// After the samples of `now`: each neighbour whose entering condition holds keeps (or
    /// starts) its time to trigger; one whose condition fails stops it (§5.5.4.1: the condition
    /// must hold for every sample during timeToTrigger).
    pub fn evaluate(&mut self, cfg: &HandoverSettings, serving: usize, now: SimTime) {
        let Some(ms) = self.filtered_dbm[serving] else {
            self.entered_at.fill(None);
            return;
        };
        for (n, (f, entered)) in self.filtered_dbm.iter().zip(self.entered_at.iter_mut()).enumerate() {
            let entering = n != serving && f.is_some_and(|mn| mn - cfg.hysteresis_db > ms + cfg.a3_offset_db);
            *entered = match (*entered, entering) {
                (_, false) => None,
                (None, true) => Some(now),
                (since, true) => since,
            };
        }
    }

    /// When the earliest running time to trigger elapses.
    pub fn report_due(&self, cfg: &HandoverSettings) -> Option<SimTime> {
        self.entered_at.iter().flatten().min().map(|&t| t + cfg.time_to_trigger())
    }

    /// The report at `now`: among the neighbours whose time to trigger has elapsed, the one with
    /// the best filtered RSRP (ties: the lowest index), if any.
    pub fn report(&self, cfg: &HandoverSettings, now: SimTime) -> Option<usize> {
        let ttt = cfg.time_to_trigger();
        let mut best: Option<(usize, f64)> = None;
        for (n, since) in self.entered_at.iter().enumerate() {
            let Some(since) = *since else { continue };
            let rsrp = self.filtered_dbm[n].expect("an entered cell was measured");
            if since + ttt <= now && best.is_none_or(|(_, b)| rsrp > b) {
                best = Some((n, rsrp));
            }
        }
        best.map(|(n, _)| n)
    }

    /// A handover began: every time to trigger starts over (the report was sent; the next one
    /// is evaluated against the new serving cell).
    pub fn reset_triggers(&mut self) {
        self.entered_at.fill(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::NS_PER_MS;

    fn cfg(hyst: f64, off: f64, ttt: u32, k: u8) -> HandoverSettings {
        HandoverSettings {
            enabled: true,
            a3_offset_db: off,
            hysteresis_db: hyst,
            time_to_trigger_ms: ttt,
            filter_coefficient: k,
            measurement_period_ms: 200,
            preparation_ms: 0.0,
            interruption_ms: 0.0,
            forwarding: Forwarding::Lossless,
            x2_delay_ms: 0.0,
        }
    }

    fn ms(x: u64) -> SimTime {
        SimTime(x * NS_PER_MS)
    }

    /// Serving at -80 dBm, a neighbour at -80 + `delta`; samples every 200 ms; the first time a
    /// report is due and the time it names the neighbour.
    fn run(c: &HandoverSettings, deltas: &[f64]) -> Option<SimTime> {
        let mut a = A3Tracker::new(2);
        for (i, d) in deltas.iter().enumerate() {
            let now = ms(200 * i as u64);
            if a.report_due(c).is_some_and(|t| t <= now) {
                return a.report_due(c);
            }
            a.sample(0, -80.0, c.filter_weight());
            a.sample(1, -80.0 + d, c.filter_weight());
            a.evaluate(c, 0, now);
        }
        a.report_due(c)
    }

    /// TS 36.331 §5.5.4.4 with Hys 3 dB, Off 0: a neighbour 3.5 dB better enters; the report
    /// comes TTT after the first sample that satisfied it, not before.
    #[test]
    fn a3_reports_after_time_to_trigger_and_not_before() {
        let c = cfg(3.0, 0.0, 256, 0);
        let mut a = A3Tracker::new(2);
        a.sample(0, -80.0, 1.0);
        a.sample(1, -76.5, 1.0);
        a.evaluate(&c, 0, ms(1000));
        assert_eq!(a.report_due(&c), Some(ms(1256)));
        assert_eq!(a.report(&c, ms(1255)), None, "1 ms before the time to trigger");
        assert_eq!(a.report(&c, ms(1256)), Some(1));
    }

    /// A neighbour within the hysteresis (Mn - Hys <= Ms + Off) never triggers, however long.
    #[test]
    fn a3_never_fires_within_the_hysteresis() {
        for (hyst, off, delta) in [(3.0, 0.0, 3.0), (3.0, 0.0, 2.5), (1.0, 2.0, 3.0), (0.0, 3.0, 3.0)] {
            let c = cfg(hyst, off, 0, 0);
            assert_eq!(run(&c, &[delta; 50]), None, "Hys {hyst}, Off {off}, neighbour +{delta} dB");
        }
        // Just past the boundary it does.
        let c = cfg(1.0, 2.0, 0, 0);
        assert_eq!(run(&c, &[3.01; 5]), Some(ms(0)));
    }

    /// A sample that fails the condition during the time to trigger stops it; it starts over.
    #[test]
    fn a_dip_during_time_to_trigger_restarts_it() {
        let c = cfg(3.0, 0.0, 320, 0);
        // Entering at 0 ms, out at 200 (before 320 ms elapsed), in again from 400 ms: due at 720.
        assert_eq!(run(&c, &[4.0, 1.0, 4.0, 4.0, 4.0, 4.0]), Some(ms(720)));
    }

    /// F_n = (1 - a) F_{n-1} + a M_n with a = 1/2^(k/4): k = 4 halves the step each sample.
    #[test]
    fn the_layer_3_filter_follows_ts_36_331() {
        let c = cfg(0.0, 0.0, 0, 4);
        assert!((c.filter_weight() - 0.5).abs() < 1e-12);
        let mut a = A3Tracker::new(1);
        for m in [-80.0, -70.0, -70.0] {
            a.sample(0, m, c.filter_weight());
        }
        assert!((a.filtered_dbm(0).unwrap() - -72.5).abs() < 1e-12, "-80, then -75, then -72.5");
        // The same time constant at a 100 ms period: two samples weigh as one at 200 ms.
        let fast = HandoverSettings { measurement_period_ms: 100, ..c };
        assert!(((1.0 - fast.filter_weight()).powi(2) - (1.0 - c.filter_weight())).abs() < 1e-12);
    }

    #[test]
    fn settings_are_checked_against_ts_36_331() {
        let ok = cfg(3.0, 0.0, 256, 4);
        assert_eq!(ok.validate("h"), Ok(()));
        let e = |c: HandoverSettings| c.validate("h").unwrap_err().path;
        assert_eq!(e(HandoverSettings { hysteresis_db: 0.3, ..ok }), "h.hysteresis_db");
        assert_eq!(e(HandoverSettings { a3_offset_db: 16.0, ..ok }), "h.a3_offset_db");
        assert_eq!(e(HandoverSettings { time_to_trigger_ms: 250, ..ok }), "h.time_to_trigger_ms");
        assert_eq!(e(HandoverSettings { filter_coefficient: 10, ..ok }), "h.filter_coefficient");
        assert_eq!(e(HandoverSettings { interruption_ms: -1.0, ..ok }), "h.interruption_ms");
    }
}
