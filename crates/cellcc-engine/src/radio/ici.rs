//! Inter-carrier interference (ICI) in OFDM: what a frequency offset or a Doppler spread
//! does to a per-RB SINR.
//!
//! Over one OFDM symbol of useful length `T_u = 1 / Δf`, a subcarrier whose phase turns
//! with the channel keeps only part of its power on its own FFT bin; the rest leaks onto
//! the other subcarriers. With every subcarrier at the same power (the flat-PSD downlink
//! this channel assumes) the leaked power a subcarrier receives from all the others equals
//! the power it loses (Parseval over the FFT), so with `a` the share kept:
//!
//! ```text
//!  SINR_eff = a S / (N + I + (1 - a) S) = a gamma / (1 + (1 - a) gamma),   gamma = S / (N + I)
//! ```
//! - A frequency offset `f` (normalised `eps = f / Δf`): `a = sinc^2(eps) = (sin(pi eps) / (pi eps))^2`
//!   (Moose, "A technique for orthogonal frequency division multiplexing frequency offset
//!   correction", IEEE Trans. Commun. 42(10), 1994: the attenuation of the wanted subcarrier;
//!   the large-N limit of its `sin(pi eps) / (N sin(pi eps / N))`). For small eps, 1 - a ~ (pi eps)^2 / 3.
//! - A Jakes (Clarke) Doppler spread of maximum Doppler `f_d`: the tap's autocorrelation is
//!   J0(2 pi f_d tau), so `a = 2 int_0^1 (1 - x) J0(2 pi f_d T_u x) dx` (Russell & Stüber,
//!   "Interchannel interference analysis of OFDM in a mobile environment", IEEE VTC 1995);
//!   for small f_d T_u, 1 - a ~ (2 pi f_d T_u)^2 / 24, half the upper bound (2 pi f_d T_u)^2 / 12 of
//!   Li & Cimini, "Bounds on the interchannel interference of OFDM in time-varying impairments",
//!   IEEE Trans. Commun. 49(3), 2001.
//!
//! Approximations: the leaked power a subcarrier receives is taken at its own RB's gain (the
//! neighbours that carry most of the leak lie within a few subcarriers, far inside the
//! coherence bandwidth of the TS 36.104 profiles), and the cyclic prefix is ignored.

use libm::j0;
use std::f64::consts::{PI, TAU};

/// LTE subcarrier spacing Δf, Hz (TS 36.211 §6.2.3, normal cyclic prefix): T_u = 1 / Δf = 66.7 us.
pub const SUBCARRIER_SPACING_HZ: f64 = 15_000.0;

/// Intervals of the Simpson rule for the Doppler-spread integral (even): the integrand is
/// smooth (J0 of an argument below 2 pi 0.13 over [0, 1]), so 64 intervals are exact to ~1e-12.
const SIMPSON_INTERVALS: usize = 64;

/// Share of a subcarrier's power kept on its own bin under a frequency offset of `offset_hz`:
/// sinc^2(offset / Δf) (Moose 1994).
pub fn offset_kept_share(offset_hz: f64) -> f64 {
    let x = PI * offset_hz / SUBCARRIER_SPACING_HZ;
    if x.abs() < 1e-12 {
        1.0
    } else {
        (x.sin() / x).powi(2)
    }
}

/// Share kept under a Jakes Doppler spread of maximum Doppler `doppler_hz`:
/// 2 int_0^1 (1 - x) J0(2 pi f_d T_u x) dx (Russell & Stüber 1995), by Simpson's rule.
pub fn doppler_spread_kept_share(doppler_hz: f64) -> f64 {
    let a = TAU * doppler_hz / SUBCARRIER_SPACING_HZ;
    let f = |x: f64| 2.0 * (1.0 - x) * j0(a * x);
    let n = SIMPSON_INTERVALS;
    let h = 1.0 / n as f64;
    let inner: f64 = (1..n).map(|i| f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 }).sum();
    (h / 3.0) * (f(0.0) + inner + f(1.0))
}

/// SINR (linear) once a share `kept` of the wanted power stays on its subcarrier and the rest
/// arrives as ICI: `kept gamma / (1 + (1 - kept) gamma)`, `gamma` the SINR without ICI.
pub fn with_ici(gamma_lin: f64, kept: f64) -> f64 {
    kept * gamma_lin / (1.0 + (1.0 - kept) * gamma_lin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// ICI only ever lowers the SINR, never below `kept` times it, and never above kept / (1 - kept).
        #[test]
        fn ici_lowers_the_sinr_within_its_bounds(gamma in 1e-3f64..1e7, offset_hz in 0.0f64..7500.0) {
            let kept = offset_kept_share(offset_hz);
            let s = with_ici(gamma, kept);
            prop_assert!(s <= gamma * (1.0 + 1e-12));
            prop_assert!(s <= kept / (1.0 - kept) * (1.0 + 1e-9) || kept == 1.0);
            prop_assert!(s >= kept * gamma / (1.0 + gamma) * (1.0 - 1e-12));
        }

        /// More Doppler spread, less power kept (the integrand falls with f_d while 2 pi f_d T_u x < 2.4).
        #[test]
        fn more_doppler_keeps_less(fd in 0.0f64..2000.0, more in 1.0f64..500.0) {
            prop_assert!(doppler_spread_kept_share(fd + more) < doppler_spread_kept_share(fd));
        }
    }

    #[test]
    fn an_offset_of_a_twentieth_subcarrier_keeps_sinc_squared() {
        // eps = 750 / 15000 = 0.05: pi eps = 0.15708, sin = 0.156434, ratio 0.995893, squared 0.991802.
        let a = offset_kept_share(750.0);
        assert!((a - 0.991802).abs() < 1e-6, "{a}");
        // Small-eps form (pi eps)^2 / 3 = 0.0082247 against the exact 1 - a = 0.008198.
        assert!(((1.0 - a) - (PI * 0.05f64).powi(2) / 3.0).abs() < 5e-5);
        // Half a subcarrier: sinc^2(0.5) = (2 / pi)^2 = 0.405285; a whole one: 0 (the orthogonal neighbour).
        assert!((offset_kept_share(7500.0) - 0.405285).abs() < 1e-6);
        assert!(offset_kept_share(15_000.0) < 1e-30);
        assert_eq!(offset_kept_share(0.0), 1.0);
        assert_eq!(offset_kept_share(-750.0), a, "symmetric in the sign of the offset");
    }

    #[test]
    fn doppler_spread_ici_is_the_small_argument_series_and_under_li_cimini_bound() {
        // EVA at 60 km/h, 2120 MHz: f_d = 16.667 m/s * 2.12e9 / 299792458 = 117.86 Hz; a = 2 pi f_d / Δf = 0.049369.
        // 1 - kept ~ a^2 / 24 - a^4 / 960 (J0 series to x^4 under 2 int (1 - x) ...) = 1.01556e-4.
        let fd = 117.86;
        let a = TAU * fd / SUBCARRIER_SPACING_HZ;
        let ici = 1.0 - doppler_spread_kept_share(fd);
        let series = a * a / 24.0 - a.powi(4) / 960.0;
        assert!((ici - series).abs() < 1e-9, "{ici} vs {series}");
        assert!(ici < a * a / 12.0, "Li & Cimini's bound");
        // No Doppler, no ICI.
        assert!((doppler_spread_kept_share(0.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn ici_caps_the_sinr_at_kept_over_leaked() {
        // gamma -> infinity: kept / (1 - kept). At eps = 0.05: 0.991802 / 0.008198 = 121.0 = 20.83 dB.
        let kept = offset_kept_share(750.0);
        let cap = with_ici(1e12, kept);
        assert!((10.0 * cap.log10() - 20.83).abs() < 0.01, "{cap}");
        // At gamma = 100 (20 dB): 99.18 / 1.8198 = 54.50 = 17.36 dB.
        assert!((10.0 * with_ici(100.0, kept).log10() - 17.364).abs() < 0.005);
        // Without ICI the SINR is unchanged.
        assert_eq!(with_ici(37.0, 1.0), 37.0);
    }
}
