//! Seed 003's channel emulator: a baseline SINR that a controller moves linearly
//! between two values (forward 20 -> 5 dB, backward 5 -> 20 dB), with a multipath
//! fading profile on top (EVA at 60 km/h, ...).
//!
//! Atxutegi, Fajardo & Liberal (seed 003, §4.2): "the external SINR traces that
//! periodically command the baseline SINR" plus "a selected fading pattern". Here
//! `SINR_k(t) = baseline(t) + 10 log10 |H_k(t)|^2`, with |H_k|^2 from [`super::fading`]
//! (mean 1, so the baseline is the mean SINR), less the inter-carrier interference of the
//! Doppler ([`super::small_scale`]; with `profile = "hst"`, TS 36.101 Annex B.3's shifting
//! line-of-sight path). UL gets the same baseline and its own, independent fading; the
//! control region sees the linear mean over the band.

use super::rb::RB_BANDWIDTH_HZ;
use super::spec::{FadingSpec, DEFAULT_DL_CARRIER_MHZ};
use crate::error::ScenarioError;
use crate::lte::sap::{LinkDir, UeIndex};
use crate::lte::sinr::SinrSource;
use crate::radio::fading::{RbSteering, TapProfile};
use crate::radio::noise::to_db;
use crate::radio::small_scale::{tap_profile, LinkFading};
use crate::sim::simd::{self, Kernel};
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
    /// Carrier for a Doppler given as a speed, MHz in [400, 6000], both directions. Default 2120.
    #[serde(default = "d_carrier")]
    pub carrier_mhz: f64,
    /// The uplink's baseline, held fixed, dB in [-50, 60] (its own fading on top). Default: the
    /// uplink rides the downlink's ramp, as one emulator baseline for the link (seed 003 names one
    /// SINR); a ramp down to a few dB then starves TCP's ACKs too, so set it to sweep the downlink alone.
    #[serde(default)]
    pub ul_db: Option<f64>,
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
        for (f, v) in [("from_db", self.from_db), ("to_db", self.to_db), ("ul_db", self.ul_db.unwrap_or(lo))] {
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
    fading: Vec<[LinkFading; 2]>,
    /// Scratch: per-RB linear SINR (one RB until the band is known).
    sinr_lin: Vec<f64>,
    /// Width of one resource block, Hz: LTE's 180 kHz unless the medium says otherwise.
    rb_hz: f64,
}

impl SweepSinr {
    pub fn new(spec: &SweepSpec, n_ues: usize, seed: u64, label: &str) -> Result<Self, ScenarioError> {
        spec.validate(label)?;
        let fading = (0..n_ues)
            .map(|i| {
                let make = |dir: LinkDir, name: &str| {
                    let rng = RngStream::new(seed, &format!("{label}:sweep:ue{i}:fading:{name}"));
                    LinkFading::new(&spec.fading, dir, spec.carrier_mhz, spec.carrier_mhz, rng)
                };
                [make(LinkDir::Downlink, "dl"), make(LinkDir::Uplink, "ul")]
            })
            .collect();
        let profile = tap_profile(&spec.fading);
        Ok(SweepSinr {
            spec: spec.clone(),
            profile,
            steering: None,
            fading,
            sinr_lin: vec![1.0],
            rb_hz: RB_BANDWIDTH_HZ,
        })
    }

    /// The same sweep on resource blocks of `rb_hz` (an NR PRB: 12 subcarriers of its numerology).
    pub fn with_rb_hz(mut self, rb_hz: f64) -> Self {
        self.rb_hz = rb_hz;
        self.steering = None;
        self.sinr_lin = vec![1.0];
        self
    }

    /// The baseline at `now`, dB.
    pub fn baseline_db(&self, now: SimTime) -> f64 {
        let s = &self.spec;
        let x = ((now.as_secs_f64() - s.start_s) / s.duration_s).clamp(0.0, 1.0);
        s.from_db + (s.to_db - s.from_db) * x
    }

    /// Per-RB linear SINR of `ue` in `dir` at `now` into `self.sinr_lin`, at the widest vector
    /// width the CPU has ([`simd`]: the same bits at every width).
    fn sinr_lin(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime) {
        simd::run(SweepRow { sweep: self, ue, dir, now });
    }

    /// [`Self::sinr_lin`]'s body, inlined into each instantiation of [`SweepRow`].
    #[inline(always)]
    fn sinr_lin_inline(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime) {
        let base_db = match (dir, self.spec.ul_db) {
            (LinkDir::Uplink, Some(ul_db)) => ul_db,
            _ => self.baseline_db(now),
        };
        let base_lin = 10f64.powf(base_db / 10.0);
        self.sinr_lin.fill(base_lin);
        let d = usize::from(dir == LinkDir::Uplink);
        self.fading[ue.index()][d].apply(now.as_ns(), self.steering.as_ref(), &mut self.sinr_lin);
    }
}

/// [`SweepSinr::sinr_lin`] as a [`simd`] kernel (the link's fast fading with its ICI).
struct SweepRow<'a> {
    sweep: &'a mut SweepSinr,
    ue: UeIndex,
    dir: LinkDir,
    now: SimTime,
}

impl Kernel for SweepRow<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        self.sweep.sinr_lin_inline(self.ue, self.dir, self.now);
    }
}

impl SweepSinr {
    /// Size the scratch row and the RB steering for a band of `n_rb` RBs.
    fn fit(&mut self, n_rb: usize) {
        if self.sinr_lin.len() != n_rb {
            // Allocates only when the RB count changes: once per cell.
            self.sinr_lin = vec![1.0; n_rb];
            self.steering = self.profile.as_ref().map(|p| RbSteering::new(p, n_rb, self.rb_hz));
        }
    }
}

impl SinrSource for SweepSinr {
    fn per_rb_sinr_lin(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        self.fit(out.len());
        self.sinr_lin(ue, dir, now);
        out.copy_from_slice(&self.sinr_lin);
    }

    fn per_rb_sinr_db(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        self.fit(out.len());
        self.sinr_lin(ue, dir, now);
        for (o, s) in out.iter_mut().zip(&self.sinr_lin) {
            *o = to_db(*s);
        }
    }

    fn control_sinr_db(&mut self, ue: UeIndex, now: SimTime) -> f64 {
        self.sinr_lin(ue, LinkDir::Downlink, now);
        to_db(self.sinr_lin.iter().sum::<f64>() / self.sinr_lin.len() as f64)
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
            fading: FadingSpec { profile, doppler_hz: None, speed_kmh: Some(60.0), ..FadingSpec::default() },
            carrier_mhz: 2120.0,
            ul_db: None,
        }
    }

    #[test]
    fn the_uplink_rides_the_ramp_unless_ul_db_holds_it() {
        let mut s = SweepSinr::new(&forward(FadingProfile::None), 1, 1, "c").unwrap();
        let mut out = [0.0; 2];
        // At 6 s the ramp is at 12.5 dB (worked in the test below); the uplink follows it by default.
        s.per_rb_sinr_db(UeIndex(0), LinkDir::Uplink, SimTime::from_secs_f64(6.0), &mut out);
        assert!(out.iter().all(|&x| (x - 12.5).abs() < 1e-9), "{out:?}");
        let mut s =
            SweepSinr::new(&SweepSpec { ul_db: Some(15.0), ..forward(FadingProfile::None) }, 1, 1, "c").unwrap();
        s.per_rb_sinr_db(UeIndex(0), LinkDir::Uplink, SimTime::from_secs_f64(6.0), &mut out);
        assert!(out.iter().all(|&x| (x - 15.0).abs() < 1e-9), "{out:?}");
        let bad = SweepSpec { ul_db: Some(99.0), ..forward(FadingProfile::None) }.validate("u").unwrap_err();
        assert_eq!(bad.path, "u.ul_db");
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
    fn hst_rides_on_the_baseline_with_its_ici() {
        // TS 36.101 B.3 scenario 3 at 300 km/h without tracking, baseline 20 dB (before start_s). The speed
        // sets f_d at 2120 MHz: 83.333 * 2.12e9 / 299792458 = 589.30 Hz; at t = 0, cos theta = 0.999911, offset
        // 589.24 Hz, kept = sinc^2(0.039283) = 0.994934, so every RB sees 99.4934 / (1 + 0.5066) = 66.04 = 18.1978 dB;
        // at 1.8 s (no shift) the baseline, 20 dB. Uplink f_d = v (2120 + 2120) MHz / c = 1178.59 Hz: eps =
        // 0.078566, kept = 0.979857, 97.9857 / (1 + 2.0143) = 32.505 = 15.1198 dB.
        let mut spec = forward(FadingProfile::Hst);
        spec.fading.speed_kmh = Some(300.0);
        spec.fading.tracking = Some(crate::lte::channel::spec::FrequencyTracking::None);
        spec.start_s = 10.0;
        let mut s = SweepSinr::new(&spec, 1, 1, "c").unwrap();
        let mut out = [0.0; 25];
        s.per_rb_sinr_db(UeIndex(0), LinkDir::Downlink, SimTime::ZERO, &mut out);
        assert!(out.iter().all(|&x| (x - 18.1978).abs() < 1e-3), "{out:?}");
        assert!((s.control_sinr_db(UeIndex(0), SimTime::ZERO) - 18.1978).abs() < 1e-3);
        s.per_rb_sinr_db(UeIndex(0), LinkDir::Uplink, SimTime::ZERO, &mut out);
        assert!(out.iter().all(|&x| (x - 15.1198).abs() < 1e-3), "{out:?}");
        s.per_rb_sinr_db(UeIndex(0), LinkDir::Downlink, SimTime(1800 * NS_PER_MS), &mut out);
        assert!(out.iter().all(|&x| (x - 20.0).abs() < 1e-9), "{out:?}");
    }

    #[test]
    fn a_bad_sweep_names_its_field() {
        let mut spec = forward(FadingProfile::Eva);
        spec.duration_s = 0.0;
        let Err(e) = SweepSinr::new(&spec, 1, 1, "cells[0].ues[0].sinr") else { panic!("zero duration accepted") };
        assert_eq!(e.path, "cells[0].ues[0].sinr.duration_s");
    }
}
