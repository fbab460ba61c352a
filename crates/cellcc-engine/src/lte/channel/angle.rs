//! `atan2` without libm for the antenna pattern of the 10 ms large-scale step: glibc's `atan2`
//! cost ~140 instructions a call there, about 800000 calls per 20 s bench run
//! (docs/performance.md, sixth round). Built from basic IEEE 754 operations only (+, -, x, /,
//! `abs`, `copysign`, comparisons, all exact or correctly rounded), so the result is the same on
//! every platform, which libm's `atan2` does not promise.
//!
//! ```text
//!  a = atan(|y| / |x|) in [0, pi/2]:  k = the nearest multiple of pi/8 (k = 0..4, T = tan(k pi/8)),
//!  u = (|y| - T |x|) / (|x| + T |y|) = tan(a - k pi/8),  |u| <= tan(pi/16) = 0.1989
//!  atan u = u (1 - s/3 + s^2/5 - ...),  s = u^2 <= 0.03957
//!  atan2(y, x) = +-(k pi/8 + atan u), or +-(pi - that) for x < 0 (the sign of y)
//! ```
//! The series (Abramowitz & Stegun, Handbook of Mathematical Functions, 4.4.42) alternates with
//! falling terms, so cutting it after u s^10 leaves out less than |u| s^11 / 23 < 3.2e-18 rad, far
//! below one ulp of the result: the error is rounding alone. Tested within 4.5e-16 rad (one ulp
//! of pi) + 4e-16 |result| of `f64::atan2` over all four quadrants, the axes and both zeros' signs.
//! Zero over zero, NaN, infinite and huge (>= 1e300) inputs are handed to `f64::atan2`: the
//! antenna never meets them, and they keep libm's answer.

use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, FRAC_PI_8, PI};

/// tan(pi/16), tan(3 pi/16), tan(5 pi/16), tan(7 pi/16): where the nearest multiple of pi/8
/// changes (0.198912, 0.668179, 1.496606, 5.027339).
const SPLIT_TANS: [f64; 4] =
    [0.198_912_367_379_658, 0.668_178_637_919_298_9, 1.496_605_762_665_489, 5.027_339_492_125_848];
/// tan(pi/8) = sqrt(2) - 1 and tan(3 pi/8) = sqrt(2) + 1.
const TAN_PI_8: f64 = std::f64::consts::SQRT_2 - 1.0;
const TAN_3PI_8: f64 = std::f64::consts::SQRT_2 + 1.0;
/// Coordinates at or above this (and NaN, infinities) go to `f64::atan2`: 2.42 times it is
/// still finite.
const HUGE: f64 = 1e300;
/// (-1)^k / (2k + 1) for k = 1..=10: the arctangent series after the leading u.
const ATAN_COEFFS: [f64; 10] = [
    -1.0 / 3.0,
    1.0 / 5.0,
    -1.0 / 7.0,
    1.0 / 9.0,
    -1.0 / 11.0,
    1.0 / 13.0,
    -1.0 / 15.0,
    1.0 / 17.0,
    -1.0 / 19.0,
    1.0 / 21.0,
];

/// The angle of (x, y) from the +x axis in (-pi, pi], as [`f64::atan2`] (`y.atan2(x)`).
#[inline]
pub fn atan2(y: f64, x: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    // NaN fails both comparisons; HUGE keeps T |y| and |x| + T |y| finite.
    if !(ax < HUGE && ay < HUGE) || (ax == 0.0 && ay == 0.0) {
        return y.atan2(x);
    }
    let a = first_quadrant(ay, ax);
    // x's sign bit, so that -0 counts as negative as in atan2(+-0, -0 or -x) = +-pi.
    let a = if x.is_sign_negative() { PI - a } else { a };
    a.copysign(y)
}

/// atan(ay / ax) for ay, ax >= 0, not both zero: the nearest multiple of pi/8 plus the series.
#[inline]
fn first_quadrant(ay: f64, ax: f64) -> f64 {
    let (num, den, base) = if ay <= SPLIT_TANS[0] * ax {
        (ay, ax, 0.0)
    } else if ay <= SPLIT_TANS[1] * ax {
        (ay - TAN_PI_8 * ax, ax + TAN_PI_8 * ay, FRAC_PI_8)
    } else if ay <= SPLIT_TANS[2] * ax {
        (ay - ax, ax + ay, FRAC_PI_4)
    } else if ay <= SPLIT_TANS[3] * ax {
        (ay - TAN_3PI_8 * ax, ax + TAN_3PI_8 * ay, 3.0 * FRAC_PI_8)
    } else {
        (-ax, ay, FRAC_PI_2)
    };
    let u = num / den;
    let s = u * u;
    let p = ATAN_COEFFS.iter().rev().fold(0.0, |acc, c| acc * s + c);
    base + (u + u * s * p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::RngStream;

    /// The stated bound: one ulp of pi plus 4e-16 of the result (rounding of the base, the
    /// reduction and pi - a).
    fn bound(want: f64) -> f64 {
        4.5e-16 + 4e-16 * want.abs()
    }

    #[test]
    fn the_split_constants_are_the_tangents_they_name() {
        for (k, t) in SPLIT_TANS.iter().enumerate() {
            let want = ((2 * k + 1) as f64 * PI / 16.0).tan();
            assert!((t - want).abs() <= 2e-15 * want, "{k}: {t} vs {want}");
        }
        // sqrt(2) -+ 1 subtracts exactly: only SQRT_2's own rounding (half an ulp, 1.1e-16) is left.
        assert!((TAN_PI_8 - FRAC_PI_8.tan()).abs() <= 2.3e-16);
        assert!((TAN_3PI_8 - (3.0 * FRAC_PI_8).tan()).abs() <= 4.5e-16);
    }

    #[test]
    fn dense_circle_sweep_is_within_the_bound_of_std() {
        // 2 million directions round the circle (every quadrant and octant boundary crossed), at
        // radii from 1e-3 to 1e4 m (the layouts' distances and beyond).
        let mut worst = 0.0f64;
        let n = 2_000_000;
        for i in 0..n {
            let t = -PI + 2.0 * PI * (i as f64 + 0.5) / n as f64;
            let r = 10f64.powf(-3.0 + 7.0 * (i % 977) as f64 / 976.0);
            let (y, x) = (r * t.sin(), r * t.cos());
            let (got, want) = (atan2(y, x), y.atan2(x));
            assert!((got - want).abs() <= bound(want), "atan2({y}, {x}) = {got} vs {want}");
            worst = worst.max((got - want).abs());
        }
        eprintln!("worst |atan2 - std| on the circle sweep: {worst:e} rad");
        assert!(worst < 4.5e-16, "worst {worst:e}");
    }

    #[test]
    fn random_coordinates_of_any_scale_are_within_the_bound() {
        let mut rng = RngStream::new(3, "angle:test");
        for _ in 0..500_000 {
            let sx = if rng.uniform() < 0.5 { -1.0 } else { 1.0 };
            let sy = if rng.uniform() < 0.5 { -1.0 } else { 1.0 };
            let x = sx * 10f64.powf(-200.0 + 400.0 * rng.uniform());
            let y = sy * 10f64.powf(-200.0 + 400.0 * rng.uniform());
            let (got, want) = (atan2(y, x), y.atan2(x));
            assert!((got - want).abs() <= bound(want), "atan2({y}, {x}) = {got} vs {want}");
        }
    }

    #[test]
    fn axes_zeros_and_special_values_are_those_of_std() {
        let cases = [
            (0.0, 1.0),
            (-0.0, 1.0),
            (0.0, -1.0),
            (-0.0, -1.0),
            (1.0, 0.0),
            (1.0, -0.0),
            (-1.0, 0.0),
            (-1.0, -0.0),
            (0.0, 0.0),
            (-0.0, 0.0),
            (0.0, -0.0),
            (-0.0, -0.0),
            (f64::INFINITY, 1.0),
            (1.0, f64::NEG_INFINITY),
            (f64::NAN, 1.0),
            (1.0, f64::NAN),
        ];
        for (y, x) in cases {
            let (got, want) = (atan2(y, x), y.atan2(x));
            assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "({y}, {x}): {got} vs {want}");
        }
        // The diagonals and axes are the constants themselves: pi/4, 3 pi/4, pi/2, pi.
        assert_eq!(atan2(2.0, 2.0), FRAC_PI_4);
        assert_eq!(atan2(-3.0, -3.0), -(PI - FRAC_PI_4));
        assert_eq!(atan2(5.0, 0.0), FRAC_PI_2);
        assert_eq!(atan2(0.0, -5.0), PI);
        // Subnormal ratios: atan(1e-310 / 1) = 1e-310 exactly as std.
        assert_eq!(atan2(1e-310, 1.0), 1e-310f64.atan2(1.0));
    }
}
