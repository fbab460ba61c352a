//! Seed 003's channel emulator: a baseline SINR that a controller moves linearly
//! between two values (forward 20 -> 5 dB, backward 5 -> 20 dB), with a multipath
//! fading profile on top (EVA at 60 km/h, ...).
//!
//! Atxutegi, Fajardo & Liberal (seed 003, §4.2): "the external SINR traces that
//! periodically command the baseline SINR" plus "a selected fading pattern". Here
//! `SINR_k(t) = baseline(t) + 10 log10 |H_k(t)|^2`, with |H_k|^2 from [`super::fading`]
//! (mean 1, so the baseline is the mean SINR). UL gets the same baseline and its own,
//! independent fading; the control region sees the linear mean over the band.

use super::fading::{FadingProcess, RbSteering, TapProfile};
use super::noise::to_db;
use super::spec::{FadingSpec, DEFAULT_DL_CARRIER_MHZ};
use crate::error::ScenarioError;
use crate::lte::sap::{LinkDir, UeIndex};
use crate::lte::sinr::SinrSource;
use crate::sim::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// A baseline ramp with fading on top.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Baseline at and before `start_s`, dB in [-50, 60].
    pub from_db: f64,
    /// Baseline at and after `start_s + duration_s`, dB in [-50, 60].
    pub to_db: f64,
    /// s >= 0. Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// s > 0 (seed 003: the 60 km/h run takes five times as long as the 300 km/h one).
    pub duration_s: f64,
    /// The fading on top; `profile = "none"` leaves the bare ramp.
    #[serde(default)]
    pub fading: FadingSpec,
    /// Carrier for a Doppler given as a speed, MHz in [400, 6000]. Default 2120.
    #[serde(default = "d_carrier")]
    pub carrier_mhz: f64,
}

fn d_carrier() -> f64 {
    DEFAULT_DL_CARRIER_MHZ
}

/// SINR range accepted for a baseline, dB (as `scenario::lte`'s fixed SINR).
const SINR_RANGE_DB: (f64, f64) = (-50.0, 60.0);

impl SweepSpec {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let p = |f: &str| format!("{path}.{f}");
        let bad = |f: &str, v: f64, allowed: &str| Err(ScenarioError::new(p(f), v, allowed));
        let (lo, hi) = SINR_RANGE_DB;
        for (f, v) in [("from_db", self.from_db), ("to_db", self.to_db)] {
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return bad(f, v, "dB in [-50, 60]");
            }
        }
        if !(self.start_s.is_finite() && self.start_s >= 0.0) {
            return bad("start_s", self.start_s, "seconds >= 0");
        }
        if !(self.duration_s.is_finite() && self.duration_s > 0.0) {
            return bad("duration_s", self.duration_s, "seconds > 0");
        }
        if !(self.carrier_mhz.is_finite() && (400.0..=6000.0).contains(&self.carrier_mhz)) {
            return bad("carrier_mhz", self.carrier_mhz, "MHz in [400, 6000]");
        }
        let probe = super::spec::ChannelSpec { fading: self.fading, ..Default::default() };
        probe.validate(path)
    }
}

/// Seed 003's swept, faded SINR for a cell's UEs.
pub struct SweepSinr {
    spec: SweepSpec,
    profile: Option<TapProfile>,
    steering: Option<RbSteering>,
    /// Per UE, per direction (DL, UL).
    fading: Vec<[Option<FadingProcess>; 2]>,
}

impl SweepSinr {
    pub fn new(spec: &SweepSpec, n_ues: usize, seed: u64, label: &str) -> Result<Self, ScenarioError> {
        spec.validate(label)?;
        let profile = super::tap_profile(spec.fading.profile);
        let fading = (0..n_ues)
            .map(|i| {
                let make = |dir: &str| {
                    profile.map(|p| {
                        let fd = super::doppler_hz(&spec.fading, &p, spec.carrier_mhz);
                        let rng = RngStream::new(seed, &format!("{label}:sweep:ue{i}:fading:{dir}"));
                        FadingProcess::new(&p, fd, spec.fading.k_factor_db, rng)
                    })
                };
                [make("dl"), make("ul")]
            })
            .collect();
        Ok(SweepSinr { spec: spec.clone(), profile, steering: None, fading })
    }

    /// The baseline at `now`, dB.
    pub fn baseline_db(&self, now: SimTime) -> f64 {
        let s = &self.spec;
        let x = ((now.as_secs_f64() - s.start_s) / s.duration_s).clamp(0.0, 1.0);
        s.from_db + (s.to_db - s.from_db) * x
    }
}

impl SinrSource for SweepSinr {
    fn per_rb_sinr_db(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        let base = self.baseline_db(now);
        if self.steering.as_ref().is_none_or(|s| s.n_rb() != out.len()) {
            self.steering = self.profile.as_ref().map(|p| RbSteering::new(p, out.len()));
        }
        let d = usize::from(dir == LinkDir::Uplink);
        match (&mut self.fading[ue.index()][d], &self.steering) {
            (Some(f), Some(steer)) => {
                for (o, g) in out.iter_mut().zip(f.rb_gains(now.as_ns(), steer)) {
                    *o = base + to_db(*g);
                }
            }
            _ => out.fill(base),
        }
    }

    fn control_sinr_db(&mut self, ue: UeIndex, now: SimTime) -> f64 {
        let base = self.baseline_db(now);
        match (&mut self.fading[ue.index()][0], &self.steering) {
            (Some(f), Some(steer)) => {
                let g = f.rb_gains(now.as_ns(), steer);
                base + to_db(g.iter().sum::<f64>() / g.len() as f64)
            }
            _ => base,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::spec::FadingProfile;
    use super::*;
    use crate::sim::NS_PER_MS;

    fn forward(profile: FadingProfile) -> SweepSpec {
        // Seed 003 forward movement: 20 dB down to 5 dB.
        SweepSpec {
            from_db: 20.0,
            to_db: 5.0,
            start_s: 1.0,
            duration_s: 10.0,
            fading: FadingSpec { profile, doppler_hz: None, speed_kmh: Some(60.0), k_factor_db: None },
            carrier_mhz: 2120.0,
        }
    }

    #[test]
    fn without_fading_the_sweep_is_the_ramp() {
        let mut s = SweepSinr::new(&forward(FadingProfile::None), 1, 1, "c").unwrap();
        let mut out = [0.0; 4];
        // 20 + (5 - 20) * (6 - 1) / 10 = 12.5 dB at 6 s; 20 before the start, 5 after the end.
        for (t, want) in [(0.5, 20.0), (6.0, 12.5), (11.0, 5.0), (30.0, 5.0)] {
            s.per_rb_sinr_db(UeIndex(0), LinkDir::Downlink, SimTime::from_secs_f64(t), &mut out);
            assert!(out.iter().all(|&x| (x - want).abs() < 1e-9), "t = {t}: {out:?}");
        }
    }

    #[test]
    fn fading_rides_on_the_baseline_with_its_mean() {
        // EVA at 60 km/h: over 2 s at 20 dB the linear mean of the per-RB SINR stays near 20 dB.
        let mut s = SweepSinr::new(&forward(FadingProfile::Eva), 1, 3, "c").unwrap();
        let mut out = [0.0; 50];
        let (mut sum, mut n, mut spread) = (0.0, 0.0, 0.0f64);
        for t in 0..1000u64 {
            s.per_rb_sinr_db(UeIndex(0), LinkDir::Downlink, SimTime(t * NS_PER_MS), &mut out);
            sum += out.iter().map(|x| 10f64.powf(x / 10.0)).sum::<f64>();
            n += out.len() as f64;
            spread =
                spread.max(out.iter().cloned().fold(f64::MIN, f64::max) - out.iter().cloned().fold(f64::MAX, f64::min));
        }
        let mean_db = 10.0 * (sum / n).log10();
        // 1 s at f_d = 118 Hz is ~118 fade cycles: the mean gain is within ~1 dB of 0 dB.
        assert!((mean_db - 20.0).abs() < 1.0, "mean {mean_db} dB");
        assert!(spread > 5.0, "EVA over 9 MHz is frequency-selective: spread {spread} dB");
    }

    #[test]
    fn a_bad_sweep_names_its_field() {
        let mut spec = forward(FadingProfile::Eva);
        spec.duration_s = 0.0;
        let Err(e) = SweepSinr::new(&spec, 1, 1, "cells[0].ues[0].sinr") else { panic!("zero duration accepted") };
        assert_eq!(e.path, "cells[0].ues[0].sinr.duration_s");
    }
}
