//! Linear power ratio to dB without libm: the channel converts 100 RBs per row every TTI, and
//! libm's `log10` was a fifth of a run (docs/performance.md). Built from basic IEEE 754 operations
//! only (bit extraction, +, -, x, /, all correctly rounded), so the result is the same on every
//! platform, which libm's `log10` does not promise.
//!
//! ```text
//!  x = 2^e m,  m in [sqrt(1/2), sqrt(2))            (exponent and mantissa from the bits)
//!  ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...),  s = (m - 1) / (m + 1),  |s| <= 0.1716
//!  10 log10 x = 10 log10(2) e + 10 log10(e) ln m
//! ```
//! The series (Abramowitz & Stegun, Handbook of Mathematical Functions, 4.1.27) is cut
//! after s^21: the first term left out is below 2 s^23 / 23 < 2.2e-19 (s^2 <= 0.02944), far below
//! one ulp of the result, so the error is rounding alone: tested within 1e-13 dB + 4e-16 |result|
//! of `10 f64::log10` from 1e-300 to 1e300 (measured worst: 5.7e-14 dB over +-300 dB, one ulp of
//! 300; 4.5e-13 dB over +-3000 dB). Zero, negative, NaN and infinite inputs give what
//! `10 * x.log10()` gives (-inf, NaN, NaN, +inf); subnormals are scaled into the normal range first.
//!
//! [`row_to_db`], the channel's per-RB rows (100 values per row, every TTI), cuts the series
//! after s^9 instead: the terms left out sum to at most 2 s^11 / (11 (1 - s^2)) = 7.1e-10 neper
//! = 3.1e-9 dB, far below anything the PHY resolves (its MIESM and CQI tables step in 0.1 dB and
//! more), for six fewer multiply-adds per value; tested within 3.2e-9 dB + 4e-16 |result|.

use std::f64::consts::{LN_10, LOG10_2, SQRT_2};

/// 10 log10(2) and 10 log10(e) = 10 / ln 10: dB per octave and per neper.
const DB_PER_OCTAVE: f64 = 10.0 * LOG10_2;
const DB_PER_NEPER: f64 = 10.0 / LN_10;
/// 1/(2k+1) for k = 1..=10: the atanh series' coefficients after the leading s.
const ATANH_COEFFS: [f64; 10] = [
    1.0 / 3.0,
    1.0 / 5.0,
    1.0 / 7.0,
    1.0 / 9.0,
    1.0 / 11.0,
    1.0 / 13.0,
    1.0 / 15.0,
    1.0 / 17.0,
    1.0 / 19.0,
    1.0 / 21.0,
];
/// How many of [`ATANH_COEFFS`] the rows use (through 1/9, i.e. the series through s^9).
const ROW_TERMS: usize = 4;
/// IEEE 754 binary64: 52 mantissa bits, exponent bias 1023.
const MANTISSA_BITS: u32 = 52;
const MANTISSA_MASK: u64 = (1 << MANTISSA_BITS) - 1;
const EXPONENT_BIAS: u64 = 1023;
/// The bits of 2^52: OR-ing a biased exponent (< 2^11) into its mantissa and subtracting
/// 2^52 + bias gives the unbiased exponent as an f64 exactly, with integer and f64 ops only
/// (SSE2 has no packed i64 -> f64 conversion, so this keeps the row loop vectorised).
const TWO_POW_52_BITS: u64 = 0x4330_0000_0000_0000;
const TWO_POW_52_PLUS_BIAS: f64 = (1u64 << MANTISSA_BITS) as f64 + EXPONENT_BIAS as f64;
/// Subnormals are multiplied by 2^54 before the split.
const SUBNORMAL_SCALE_BITS: i32 = 54;

/// Whether `x` is positive, normal and finite: the one range [`normal_to_db`] handles.
#[inline]
fn is_positive_normal(x: f64) -> bool {
    let (lo, hi) = (f64::MIN_POSITIVE.to_bits(), f64::INFINITY.to_bits());
    x.to_bits().wrapping_sub(lo) < hi - lo
}

/// `10 log10(x)`: a linear power ratio in dB (see the module doc for accuracy and special values).
#[inline]
pub fn lin_to_db(x: f64) -> f64 {
    if is_positive_normal(x) {
        normal_to_db(x, &ATANH_COEFFS)
    } else if x > 0.0 && x.is_finite() {
        let scaled = x * 2f64.powi(SUBNORMAL_SCALE_BITS);
        normal_to_db(scaled, &ATANH_COEFFS) - DB_PER_OCTAVE * f64::from(SUBNORMAL_SCALE_BITS)
    } else {
        // 0 -> -inf, negative or NaN -> NaN, +inf -> +inf, as 10 log10 does.
        10.0 * x.log10()
    }
}

/// [`lin_to_db`] of every element of `lin` into `db` (same length), with the shorter series (module
/// doc): a branch-free pass the compiler vectorises, then the rare values outside the normal range
/// redone one by one.
pub fn row_to_db(lin: &[f64], db: &mut [f64]) {
    let coeffs = &ATANH_COEFFS[..ROW_TERMS];
    for (d, &x) in db.iter_mut().zip(lin) {
        *d = normal_to_db(x, coeffs);
    }
    for (d, &x) in db.iter_mut().zip(lin) {
        if !is_positive_normal(x) {
            *d = lin_to_db(x);
        }
    }
}

/// [`lin_to_db`] of every element of `values`, in place, with the full series: the same values
/// as one call per element, but independent of each other, so the compiler runs them side by
/// side (the 10 ms step's links) instead of one latency-bound series after another.
pub fn slice_to_db(values: &mut [f64]) {
    if values.iter().all(|&x| is_positive_normal(x)) {
        values.iter_mut().for_each(|x| *x = normal_to_db(*x, &ATANH_COEFFS));
    } else {
        values.iter_mut().for_each(|x| *x = lin_to_db(*x));
    }
}

/// 10 log10 of a positive normal `x` (any other input gives a meaningless number), the atanh
/// series through the last of `coeffs` (a prefix of [`ATANH_COEFFS`]).
#[inline(always)]
fn normal_to_db(x: f64, coeffs: &[f64]) -> f64 {
    let bits = x.to_bits();
    let e = f64::from_bits(TWO_POW_52_BITS | (bits >> MANTISSA_BITS)) - TWO_POW_52_PLUS_BIAS;
    let m = f64::from_bits((bits & MANTISSA_MASK) | (EXPONENT_BIAS << MANTISSA_BITS));
    // m in [1, 2): fold (sqrt 2, 2) onto (sqrt(1/2), 1) so that |s| <= 0.1716.
    let high = m > SQRT_2;
    let m = if high { m * 0.5 } else { m };
    let e = if high { e + 1.0 } else { e };
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let series = coeffs.iter().rev().fold(0.0, |acc, c| acc * z + c);
    let ln_m = 2.0 * (s + s * z * series);
    DB_PER_OCTAVE * e + DB_PER_NEPER * ln_m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::RngStream;

    /// |lin_to_db(x) - 10 log10(x)| this module promises: 1e-13 dB plus 4e-16 (~2 ulp) of the result.
    const BOUND_DB: f64 = 1e-13;
    const BOUND_RELATIVE: f64 = 4e-16;

    /// The error of `x` in units of the bound (< 1 passes).
    fn err(x: f64) -> f64 {
        let want = 10.0 * x.log10();
        (lin_to_db(x) - want).abs() / (BOUND_DB + BOUND_RELATIVE * want.abs())
    }

    #[test]
    fn exact_powers_of_ten_and_two() {
        // 10 log10(10^k) = 10 k; 10 log10(2) = 3.0103 (per octave).
        for k in -30..=30 {
            assert!((lin_to_db(10f64.powi(k)) - 10.0 * k as f64).abs() < BOUND_DB + BOUND_RELATIVE * 300.0, "10^{k}");
        }
        assert_eq!(lin_to_db(1.0), 0.0);
        assert!((lin_to_db(2.0) - 3.010_299_956_639_812).abs() < BOUND_DB);
    }

    #[test]
    fn error_bound_against_log10_over_600_decades() {
        // 200000 log-uniform draws in [1e-300, 1e300], plus both sides of every mantissa split
        // (sqrt 2) and of 1, where s is largest or the result is near zero.
        let mut rng = RngStream::new(1, "db:test");
        let mut worst: f64 = 0.0;
        for _ in 0..200_000 {
            let x = 10f64.powf(-300.0 + 600.0 * rng.uniform());
            worst = worst.max(err(x));
        }
        for e in -1000..1000 {
            let p = 2f64.powi(e);
            for m in [SQRT_2, 1.0, 2.0 - f64::EPSILON] {
                for x in [m * p, f64::from_bits((m * p).to_bits() + 1), f64::from_bits((m * p).to_bits() - 1)] {
                    worst = worst.max(err(x));
                }
            }
        }
        assert!(worst < 1.0, "worst error {worst} x the bound");
    }

    #[test]
    fn special_values_behave_as_log10() {
        assert_eq!(lin_to_db(0.0), f64::NEG_INFINITY);
        assert_eq!(lin_to_db(-0.0), f64::NEG_INFINITY);
        assert!(lin_to_db(-1.0).is_nan());
        assert!(lin_to_db(f64::NAN).is_nan());
        assert_eq!(lin_to_db(f64::INFINITY), f64::INFINITY);
        // Subnormals: the smallest (2^-1074 = -3233.98 dB) and one near the normal boundary.
        for x in [f64::from_bits(1), f64::MIN_POSITIVE / 3.0, f64::MIN_POSITIVE * 0.999] {
            assert!(!x.is_normal() && err(x) < 1.0, "{x:e}: {}", err(x));
        }
        assert!(err(f64::MIN_POSITIVE) < 1.0 && err(f64::MAX) < 1.0);
    }

    #[test]
    fn rows_are_within_their_bound_of_log10() {
        // The row series' bound (module doc): 2 s^11 / (11 (1 - s^2)) neper at s = (sqrt 2 - 1) / (sqrt 2 + 1)
        // is 3.08e-9 dB; checked over 1e-30..1e30 (SINRs and gains) and at the fold points.
        let s = (SQRT_2 - 1.0) / (SQRT_2 + 1.0);
        let tail_db = DB_PER_NEPER * 2.0 * s.powi(11) / (11.0 * (1.0 - s * s));
        assert!(tail_db < 3.1e-9, "{tail_db}");
        let mut rng = RngStream::new(2, "db:rows");
        let mut lin: Vec<f64> = (0..100_000).map(|_| 10f64.powf(-30.0 + 60.0 * rng.uniform())).collect();
        lin.extend([SQRT_2, f64::from_bits(SQRT_2.to_bits() - 1), 2.0 * SQRT_2, 1.0 / SQRT_2, 1.0]);
        let mut db = vec![0.0; lin.len()];
        row_to_db(&lin, &mut db);
        let mut worst: f64 = 0.0;
        for (&x, &d) in lin.iter().zip(&db) {
            let want = 10.0 * x.log10();
            worst = worst.max((d - want).abs() / (3.2e-9 + BOUND_RELATIVE * want.abs()));
        }
        assert!(worst < 1.0 && worst > 0.1, "worst error {worst} x the bound (the cut must show)");
    }

    #[test]
    fn a_slice_converts_in_place_to_the_same_bits() {
        let mut rng = RngStream::new(4, "db:slice");
        let normal: Vec<f64> = (0..1000).map(|_| 10f64.powf(-8.0 + 16.0 * rng.uniform())).collect();
        for lin in [normal.clone(), [normal.as_slice(), &[0.0, f64::from_bits(1), f64::INFINITY]].concat()] {
            let mut db = lin.clone();
            slice_to_db(&mut db);
            for (x, d) in lin.iter().zip(&db) {
                assert_eq!(d.to_bits(), lin_to_db(*x).to_bits(), "{x:e}");
            }
        }
    }

    #[test]
    fn a_row_converts_element_by_element() {
        let lin = [1.0, 100.0, 0.5, 0.0];
        let mut db = [9.0; 4];
        row_to_db(&lin, &mut db);
        for (d, x) in db[..3].iter().zip([1.0, 100.0, 0.5]) {
            assert!((d - lin_to_db(x)).abs() < 3.2e-9, "{x}");
        }
        assert_eq!(db[3], f64::NEG_INFINITY);
    }
}
