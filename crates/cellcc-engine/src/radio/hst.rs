//! High-speed-train channel: TS 36.101 / TS 36.104 Annex B.3. One non-fading line-of-sight
//! path whose Doppler *shift* follows the train past a row of eNBs beside the track:
//!
//! ```text
//!  f_s(t) = f_d cos theta(t)                                                     (B.3.1)
//!  cos theta(t) = (Ds/2 - v t)    / sqrt(Dmin^2 + (Ds/2 - v t)^2),     0 <= t <= Ds/v     (B.3.2)
//!  cos theta(t) = (-1.5 Ds + v t) / sqrt(Dmin^2 + (-1.5 Ds + v t)^2),  Ds/v < t <= 2 Ds/v  (B.3.3)
//!  cos theta(t) = cos theta(t mod (2 Ds/v)),                           t > 2 Ds/v         (B.3.4)
//! ```
//! Ds: distance between eNBs along the track (the train starts Ds/2 before one), Dmin: eNB to
//! track, v: train speed. The shift sits near +f_d, swings to -f_d as the train passes an eNB
//! (within ~Dmin / v), and back half a period later.
//!
//! A per-RB SINR model sees this shift through the receiver: its frequency tracking removes the
//! shift it has estimated, and the residual offset leaks power into the neighbouring subcarriers
//! ([`super::ici`]). [`FrequencyTracking::Lagged`] (default `lag_ms` = 1): the receiver corrects
//! the shift it measured `lag_ms` earlier (LTE sends cell-specific reference signals in every
//! 1 ms subframe, TS 36.211 §6.10.1, so a receiver can re-estimate the offset once per
//! subframe); the residual is `f_s(t) - f_s(t - lag)`. [`FrequencyTracking::None`]: the whole
//! shift is residual (a receiver locked to the nominal carrier).
//! Evaluated once per TTI at the TTI's start, as the multipath fading. The trajectory is B.3's own
//! train kinematics, independent of the UE's `mobility` (which drives path loss and shadowing).

use super::fading::FADING_STEP_NS;
use super::ici::offset_kept_share;
use super::mobility::MPS_PER_KMH;
use super::pathloss::SPEED_OF_LIGHT_MPS;
use serde::{Deserialize, Serialize};

/// One row of the B.3 parameter tables.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HstScenario {
    pub number: u8,
    pub ds_m: f64,
    pub dmin_m: f64,
    pub speed_kmh: f64,
    /// f_d seen by the UE (downlink).
    pub dl_doppler_hz: f64,
    /// f_d seen by the eNB (uplink): the UE transmits on the frequency it locked to the shifted
    /// downlink, so the eNB sees both shifts, v (f_DL + f_UL) / c (band 1's top edges, 2170 + 1980
    /// MHz, reproduce the table's 1340 and 1150 Hz).
    pub ul_doppler_hz: f64,
}

// Scenario 1, open space: Ds, Dmin, v and the uplink f_d from TS 36.104 Table B.3-1 (= TS 36.141
// Table B.3-1); the downlink f_d is TS 36.101 Table B.3A-1's 872 Hz (the same 350 km/h, band 7).
pub const SCENARIO_1: HstScenario = HstScenario {
    number: 1,
    ds_m: 1000.0,
    dmin_m: 50.0,
    speed_kmh: 350.0,
    dl_doppler_hz: 872.0,
    ul_doppler_hz: 1340.0,
};
// Scenario 3, tunnel for multi-antennas: TS 36.104 Table B.3-1 (uplink f_d 1150 Hz); TS 36.101
// Table B.3-1 is the same geometry with the UE's f_d, 750 Hz (derived from band 7).
pub const SCENARIO_3: HstScenario =
    HstScenario { number: 3, ds_m: 300.0, dmin_m: 2.0, speed_kmh: 300.0, dl_doppler_hz: 750.0, ul_doppler_hz: 1150.0 };

/// The scenario numbered `n` (1 or 3; TS 36.104 has no non-fading scenario 2).
pub fn scenario(n: u8) -> Option<HstScenario> {
    match n {
        1 => Some(SCENARIO_1),
        3 => Some(SCENARIO_3),
        _ => None,
    }
}

/// The scenario TS 36.101 (the UE's own tests) defines, and the default.
pub const DEFAULT_SCENARIO: u8 = 3;

/// One 1 ms subframe: the receiver re-estimates the offset from each subframe's reference signals.
pub const DEFAULT_TRACKING_LAG_MS: f64 = 1.0;

/// How much of the Doppler shift the receiver's frequency tracking removes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FrequencyTracking {
    /// No tracking: the whole shift is a frequency offset.
    None,
    /// The receiver removes the shift it measured `lag_ms` ago, ms in [0, 1000]. Default 1.
    Lagged {
        #[serde(default = "d_lag")]
        lag_ms: f64,
    },
}

fn d_lag() -> f64 {
    DEFAULT_TRACKING_LAG_MS
}

impl Default for FrequencyTracking {
    fn default() -> Self {
        FrequencyTracking::Lagged { lag_ms: DEFAULT_TRACKING_LAG_MS }
    }
}

/// One link's B.3 Doppler trajectory and the share of the signal its residual offset leaves.
#[derive(Clone, Debug)]
pub struct HstProcess {
    doppler_hz: f64,
    ds_m: f64,
    dmin_m: f64,
    speed_mps: f64,
    /// Tracking lag, s; `None` = no tracking.
    lag_s: Option<f64>,
    /// sinc^2 of the residual offset during TTI `kept_at`.
    kept: f64,
    kept_at: Option<u64>,
}

impl HstProcess {
    /// `speed_kmh` replaces the scenario's v (and so its period); `doppler_hz` is the f_d to use.
    pub fn new(sc: &HstScenario, speed_kmh: f64, doppler_hz: f64, tracking: FrequencyTracking) -> Self {
        let lag_s = match tracking {
            FrequencyTracking::None => None,
            FrequencyTracking::Lagged { lag_ms } => Some(lag_ms * 1e-3),
        };
        HstProcess {
            doppler_hz,
            ds_m: sc.ds_m,
            dmin_m: sc.dmin_m,
            speed_mps: speed_kmh * MPS_PER_KMH,
            lag_s,
            kept: 1.0,
            kept_at: None,
        }
    }

    /// The trajectory's period 2 Ds / v, s.
    pub fn period_s(&self) -> f64 {
        2.0 * self.ds_m / self.speed_mps
    }

    /// cos theta(t), eqs. B.3.2-B.3.4 (negative t by the same periodic extension).
    fn cos_theta(&self, t_s: f64) -> f64 {
        let t = t_s.rem_euclid(self.period_s());
        let x = if t <= self.ds_m / self.speed_mps {
            self.ds_m / 2.0 - self.speed_mps * t
        } else {
            -1.5 * self.ds_m + self.speed_mps * t
        };
        x / self.dmin_m.hypot(x)
    }

    /// Doppler shift f_s(t), Hz (B.3.1).
    pub fn shift_hz(&self, t_s: f64) -> f64 {
        self.doppler_hz * self.cos_theta(t_s)
    }

    /// The offset left after the receiver's tracking at `t_s`, Hz.
    pub fn residual_hz(&self, t_s: f64) -> f64 {
        match self.lag_s {
            None => self.shift_hz(t_s),
            Some(lag) => self.shift_hz(t_s) - self.shift_hz(t_s - lag),
        }
    }

    /// Share of the wanted power kept on its subcarrier during the TTI containing `now_ns`
    /// (sinc^2 of the residual offset at the TTI's start); cached per TTI.
    pub fn kept_share(&mut self, now_ns: u64) -> f64 {
        let k = now_ns / FADING_STEP_NS;
        if self.kept_at != Some(k) {
            let t_s = (k * FADING_STEP_NS) as f64 * 1e-9;
            self.kept = offset_kept_share(self.residual_hz(t_s));
            self.kept_at = Some(k);
        }
        self.kept
    }
}

/// f_d for a speed given by the user: v f_DL / c on the downlink, v (f_DL + f_UL) / c on the uplink
/// (the derivation behind TS 36.104 Table B.3-1, see [`HstScenario::ul_doppler_hz`]).
pub fn doppler_from_speed_hz(speed_kmh: f64, dl_carrier_mhz: f64, ul_carrier_mhz: Option<f64>) -> f64 {
    let carrier_mhz = dl_carrier_mhz + ul_carrier_mhz.unwrap_or(0.0);
    speed_kmh * MPS_PER_KMH * carrier_mhz * 1e6 / SPEED_OF_LIGHT_MPS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::NS_PER_MS;

    fn s3(tracking: FrequencyTracking) -> HstProcess {
        HstProcess::new(&SCENARIO_3, SCENARIO_3.speed_kmh, SCENARIO_3.dl_doppler_hz, tracking)
    }

    #[test]
    fn scenario_3_trajectory_worked_by_hand() {
        // v = 300 / 3.6 = 83.333 m/s; Ds / v = 3.6 s; period 2 Ds / v = 7.2 s.
        let p = s3(FrequencyTracking::None);
        assert!((p.period_s() - 7.2).abs() < 1e-12);
        // t = 0: cos = 150 / sqrt(2^2 + 150^2) = 150 / 150.013333 = 0.99991113 -> 749.9333 Hz.
        assert!((p.shift_hz(0.0) - 749.9333).abs() < 1e-3, "{}", p.shift_hz(0.0));
        // t = Ds / (2v) = 1.8 s: the train abreast of the eNB, no shift.
        assert!(p.shift_hz(1.8).abs() < 1e-9);
        // 24 ms later the train is Dmin = 2 m past it: cos = -2 / sqrt(8) = -0.707107 -> -530.330 Hz.
        assert!((p.shift_hz(1.824) - -530.330).abs() < 1e-2, "{}", p.shift_hz(1.824));
        // t = Ds / v = 3.6 s: -749.9333 Hz (both branches agree there); t = 1.5 Ds / v = 5.4 s: 0 again.
        assert!((p.shift_hz(3.6) + 749.9333).abs() < 1e-3);
        assert!((p.shift_hz(3.6 + 1e-9) + 749.9333).abs() < 1e-3);
        assert!(p.shift_hz(5.4).abs() < 1e-9);
        // Periodic (B.3.4).
        for t in [0.5, 1.9, 4.0, 6.9] {
            assert!((p.shift_hz(t + 7.2) - p.shift_hz(t)).abs() < 1e-6, "t = {t}");
        }
    }

    #[test]
    fn scenario_1_is_slower_and_smoother() {
        // v = 97.2222 m/s: period 2000 / 97.2222 = 20.5714 s; f_s(0) = 872 * 500 / sqrt(50^2 + 500^2)
        // = 872 * 0.995037 = 867.672 Hz.
        let p = HstProcess::new(&SCENARIO_1, 350.0, SCENARIO_1.dl_doppler_hz, FrequencyTracking::None);
        assert!((p.period_s() - 20.5714).abs() < 1e-4);
        assert!((p.shift_hz(0.0) - 867.672).abs() < 1e-3);
    }

    #[test]
    fn a_lagged_tracker_leaves_the_change_over_its_lag() {
        // Steepest point, t = 1.8 s, lag 1 ms: 1 ms earlier the train was 0.083333 m short of the eNB,
        // f_s = 750 * 0.083333 / sqrt(4 + 0.0069444) = 750 * 0.0416305 = 31.2229 Hz; now 0: residual -31.2229 Hz.
        let p = s3(FrequencyTracking::default());
        assert!((p.residual_hz(1.8) + 31.2229).abs() < 1e-3, "{}", p.residual_hz(1.8));
        // Far from the eNB the shift hardly moves: at t = 0.5 s the residual is under 0.01 Hz.
        assert!(p.residual_hz(0.5).abs() < 0.01);
    }

    #[test]
    fn kept_share_is_sinc_squared_of_the_residual_and_cached_per_tti() {
        // No tracking at t = 0: eps = 749.9333 / 15000 = 0.0499956, sinc^2 = 0.991803.
        let mut p = s3(FrequencyTracking::None);
        assert!((p.kept_share(0) - 0.991803).abs() < 1e-5);
        // Anywhere inside TTI 1800 (t = 1.8 s) the value is the TTI start's: no shift, nothing lost.
        assert_eq!(p.kept_share(1800 * NS_PER_MS + 999_999), 1.0);
    }

    #[test]
    fn doppler_from_speed_matches_the_tables() {
        // 300 km/h at band 7's 2690 MHz: 83.333 * 2.69e9 / 299792458 = 747.7 Hz (TS 36.101: 750 Hz).
        assert!((doppler_from_speed_hz(300.0, 2690.0, None) - 747.7).abs() < 0.1);
        // 350 km/h, band 1's top edges 2170 + 1980 MHz: 97.222 * 4.15e9 / 299792458 = 1345.8 Hz (TS 36.104: 1340 Hz).
        assert!((doppler_from_speed_hz(350.0, 2170.0, Some(1980.0)) - 1345.8).abs() < 0.1);
    }
}
