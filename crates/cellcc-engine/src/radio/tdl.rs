//! TR 38.901 (V17.0.0) §7.7.2 tapped delay line models TDL-A..E, for the fading of any medium
//! (fading.rs runs them as it runs TS 36.104's EPA/EVA/ETU).
//!
//! The tables give delays normalised to an RMS delay spread of 1; §7.7.3 scales them by the
//! wanted delay spread DS (tau = tau_model x DS, eq. 7.7-1), which `FadingSpec::delay_spread_ns`
//! sets (default 100 ns, Table 7.7.3-1's "nominal"). TDL-A..C are NLOS (Rayleigh taps); in TDL-D
//! and TDL-E the first tap is a LOS ray plus a Rayleigh tap at the same delay, here one tap with
//! the summed power and the table's K-factor (13.3 dB, 22 dB), the form fading.rs gives a Rician
//! tap. Each tap fades with the classical (Jakes) Doppler spectrum, as §7.7.2 specifies.
//! Cross-checked against the same tables in Sionna (NVlabs/sionna
//! `sionna/channel/tr38901/models/TDL-*.json`, commit 7b45c07158cf57fd9b4d190241a1db7dc4c6acb6).

use super::fading::TapProfile;

/// Table 7.7.3-1: "nominal" delay spread, ns (its range runs from 10 ns "very short" to 1000 ns "very long").
pub const NOMINAL_DELAY_SPREAD_NS: f64 = 100.0;

// Table 7.7.2-1, TDL-A: normalised delay, power (dB); 23 Rayleigh taps.
pub const TDL_A: TapProfile = TapProfile {
    name: "TDL-A",
    delays_ns: &[
        0.0, 0.3819, 0.4025, 0.5868, 0.4610, 0.5375, 0.6708, 0.5750, 0.7618, 1.5375, 1.8978, 2.2242, 2.1718, 2.4942,
        2.5119, 3.0582, 4.0810, 4.4579, 4.5695, 4.7966, 5.0066, 5.3043, 9.6586,
    ],
    powers_db: &[
        -13.4, 0.0, -2.2, -4.0, -6.0, -8.2, -9.9, -10.5, -7.5, -15.9, -6.6, -16.7, -12.4, -15.2, -10.8, -11.3, -12.7,
        -16.2, -18.3, -18.9, -16.6, -19.9, -29.7,
    ],
    usual_doppler_hz: None,
    delay_scale: NOMINAL_DELAY_SPREAD_NS,
    k_factor_db: None,
};

// Table 7.7.2-2, TDL-B: 23 Rayleigh taps.
pub const TDL_B: TapProfile = TapProfile {
    name: "TDL-B",
    delays_ns: &[
        0.0, 0.1072, 0.2155, 0.2095, 0.2870, 0.2986, 0.3752, 0.5055, 0.3681, 0.3697, 0.5700, 0.5283, 1.1021, 1.2756,
        1.5474, 1.7842, 2.0169, 2.8294, 3.0219, 3.6187, 4.1067, 4.2790, 4.7834,
    ],
    powers_db: &[
        0.0, -2.2, -4.0, -3.2, -9.8, -1.2, -3.4, -5.2, -7.6, -3.0, -8.9, -9.0, -4.8, -5.7, -7.5, -1.9, -7.6, -12.2,
        -9.8, -11.4, -14.9, -9.2, -11.3,
    ],
    usual_doppler_hz: None,
    delay_scale: NOMINAL_DELAY_SPREAD_NS,
    k_factor_db: None,
};

// Table 7.7.2-3, TDL-C: 24 Rayleigh taps (its 0.6366 is the table's delay, not 2/pi).
#[allow(clippy::approx_constant)]
pub const TDL_C: TapProfile = TapProfile {
    name: "TDL-C",
    delays_ns: &[
        0.0, 0.2099, 0.2219, 0.2329, 0.2176, 0.6366, 0.6448, 0.6560, 0.6584, 0.7935, 0.8213, 0.9336, 1.2285, 1.3083,
        2.1704, 2.7105, 4.2589, 4.6003, 5.4902, 5.6077, 6.3065, 6.6374, 7.0427, 8.6523,
    ],
    powers_db: &[
        -4.4, -1.2, -3.5, -5.2, -2.5, 0.0, -2.2, -3.9, -7.4, -7.1, -10.7, -11.1, -5.1, -6.8, -8.7, -13.2, -13.9, -13.9,
        -15.8, -17.1, -16.0, -15.7, -21.6, -22.8,
    ],
    usual_doppler_hz: None,
    delay_scale: NOMINAL_DELAY_SPREAD_NS,
    k_factor_db: None,
};

// Table 7.7.2-4, TDL-D: the LOS ray (-0.2 dB) and the Rayleigh tap (-13.5 dB) at delay 0 summed into
// one Rician tap of 10 log10(10^-0.02 + 10^-1.35) = -0.0015 dB with K = 13.3 dB; 12 more Rayleigh taps.
pub const TDL_D: TapProfile = TapProfile {
    name: "TDL-D",
    delays_ns: &[0.0, 0.035, 0.612, 1.363, 1.405, 1.804, 2.596, 1.775, 4.042, 7.937, 9.424, 9.708, 12.525],
    powers_db: &[-0.0015, -18.8, -21.0, -22.8, -17.9, -20.1, -21.9, -22.9, -27.8, -23.6, -24.8, -30.0, -27.7],
    usual_doppler_hz: None,
    delay_scale: NOMINAL_DELAY_SPREAD_NS,
    k_factor_db: Some(13.3),
};

// Table 7.7.2-5, TDL-E: LOS -0.03 dB and Rayleigh -22.03 dB at delay 0, one Rician tap of
// 10 log10(10^-0.003 + 10^-2.203) = -0.0027 dB with K = 22 dB; 13 more Rayleigh taps.
pub const TDL_E: TapProfile = TapProfile {
    name: "TDL-E",
    delays_ns: &[
        0.0, 0.5133, 0.5440, 0.5630, 0.5440, 0.7112, 1.9092, 1.9293, 1.9589, 2.6426, 3.7136, 5.4524, 12.0034, 20.6519,
    ],
    powers_db: &[-0.0027, -15.8, -18.1, -19.8, -22.9, -22.4, -18.6, -20.8, -22.6, -22.3, -25.6, -20.2, -29.8, -29.2],
    usual_doppler_hz: None,
    delay_scale: NOMINAL_DELAY_SPREAD_NS,
    k_factor_db: Some(22.0),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::fading::{rb_centre_offset_hz, FadingProcess, RbSteering, FADING_STEP_NS};
    use crate::radio::spec::{FadingProfile, FadingSpec};
    use crate::sim::RngStream;
    use std::f64::consts::TAU;

    #[test]
    fn the_delay_spread_scales_every_tap() {
        // Eq. 7.7-1: tau = tau_model x DS. TDL-A's last tap at DS 300 ns: 9.6586 x 300 = 2897.58 ns,
        // and the per-RB phase of that tap on a 30 kHz PRB (360 kHz) grid follows it.
        let p = TDL_A.with_delay_spread_ns(300.0);
        assert!((p.delay_ns(22) - 2897.58).abs() < 1e-9);
        let steer = RbSteering::new(&p, 10, 360e3);
        let (s, c) = (-TAU * rb_centre_offset_hz(0, 10, 360e3) * 2897.58e-9).sin_cos();
        let (re, im) = steer.at(0, 22);
        assert!((re - c).abs() < 1e-6 && (im - s).abs() < 1e-6, "{re} {im} vs {c} {s}");
    }

    /// Share of steps in which tap 0's power is 10 dB or more below its mean.
    fn deep_fade_share(p: &TapProfile, k_factor_db: Option<f64>) -> f64 {
        let mut f = FadingProcess::new(p, 50.0, k_factor_db, RngStream::new(3, "tdl:test"));
        let p0 = 10f64.powf(p.powers_db[0] / 10.0) / p.powers_db.iter().map(|x| 10f64.powf(x / 10.0)).sum::<f64>();
        let steps = 20_000u64;
        let deep = (0..steps)
            .filter(|k| {
                let (re, im) = f.taps(k * FADING_STEP_NS);
                (re[0] * re[0] + im[0] * im[0]) < 0.1 * p0
            })
            .count();
        deep as f64 / steps as f64
    }

    #[test]
    fn the_los_tap_of_tdl_d_hardly_fades() {
        // Rayleigh: P(|h|^2 < 0.1 mean) = 1 - e^-0.1 = 9.5 %; Rician with K = 13.3 dB (21.4): ~1e-8.
        let rayleigh = deep_fade_share(&TDL_D, None);
        let rician = deep_fade_share(&TDL_D, TDL_D.k_factor_db);
        assert!((0.06..0.13).contains(&rayleigh), "Rayleigh deep fades {rayleigh}");
        assert!(rician < 1e-3, "Rician deep fades {rician}");
    }

    #[test]
    fn a_tdl_needs_a_doppler_and_only_a_tdl_takes_a_delay_spread() {
        let tdl = FadingSpec { profile: FadingProfile::TdlC, ..FadingSpec::default() };
        assert_eq!(tdl.validate("f").unwrap_err().path, "f.doppler_hz");
        let ok = FadingSpec { speed_kmh: Some(3.0), delay_spread_ns: Some(300.0), ..tdl };
        assert!(ok.validate("f").is_ok());
        let too_long = FadingSpec { delay_spread_ns: Some(6000.0), ..ok };
        assert_eq!(too_long.validate("f").unwrap_err().path, "f.delay_spread_ns");
        let eva = FadingSpec { profile: FadingProfile::Eva, delay_spread_ns: Some(300.0), ..FadingSpec::default() };
        assert_eq!(eva.validate("f").unwrap_err().path, "f.delay_spread_ns");
    }

    /// The RMS delay spread of a profile's normalised delays (power-weighted, the LOS ray included).
    fn rms_delay_spread(p: &TapProfile) -> f64 {
        let w: Vec<f64> = p.powers_db.iter().map(|x| 10f64.powf(x / 10.0)).collect();
        let total: f64 = w.iter().sum();
        let mean: f64 = w.iter().zip(p.delays_ns).map(|(w, t)| w * t).sum::<f64>() / total;
        (w.iter().zip(p.delays_ns).map(|(w, t)| w * (t - mean).powi(2)).sum::<f64>() / total).sqrt()
    }

    #[test]
    fn each_table_is_normalised_to_a_unit_delay_spread() {
        // §7.7.2: the tables' delays are scaled so that the RMS delay spread is 1 (to the table's
        // 4-digit rounding: within 2 %).
        for p in [TDL_A, TDL_B, TDL_C, TDL_D, TDL_E] {
            assert_eq!(p.delays_ns.len(), p.powers_db.len(), "{}", p.name);
            let ds = rms_delay_spread(&p);
            assert!((ds - 1.0).abs() < 0.02, "{}: DS {ds}", p.name);
        }
    }
}
