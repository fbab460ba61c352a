//! BICM mutual information per coded bit (MIB) of QPSK, 16QAM and 64QAM versus SINR: the first
//! step of MIESM (ns-3 LENA `lte-mi-error-model.cc` `Mib()`, lte-design.rst "MIESM").
//!
//! Source: the curves are data files `data/mi_{qpsk,16qam,64qam}.txt` (ns-3's `MI_map_*` tables
//! on a uniform grid of *linear* SINR; Mezzavilla et al., MSWiM 2012). MIB is normalised per coded
//! bit, so it lies in [0, 1]; the MI per symbol is `MIB x bits_per_symbol`.
//!
//! ```text
//!   per-RB SINR (dB) ──► dB-grid table (<= 0.01 dB, built once from the linear table) ──► MIB per RB
//!                                                             average over the TB's RBs ──► MIB_eff
//! ```
//! What differs from ns-3:
//! - ns-3 looks the MIB up at the grid point above the SINR (no interpolation); we interpolate
//!   linearly, so the curve is continuous. Below the first grid point we interpolate towards
//!   MIB(0) = 0 where ns-3 holds the first value.
//! - For speed the per-RB lookup uses a table resampled on a <= 0.01 dB grid (no `powf` per RB);
//!   it agrees with the linear-domain interpolation within 1e-4 (tested).
//! - Above the last grid point MIB = 1, as in ns-3 (its curves end at 5 dB QPSK, 10 dB 16QAM,
//!   22 dB 64QAM; the jump to 1 is ns-3's and matters little: every BLER curve's `b` is below
//!   the last tabulated MIB).

use std::sync::LazyLock;

use super::amc::Modulation;
use super::data;

/// Largest resampling step of the dB-domain lookup table (ours: fine enough that linear
/// interpolation in dB stays within 1e-4 of the source curve). Each curve's step is this or
/// a little less, so that its last grid point is the curve's last sample.
const MAX_GRID_STEP_DB: f64 = 0.01;
/// Lowest SINR of the dB-domain table; below it the linear-domain curve is evaluated directly.
const GRID_MIN_DB: f64 = -30.0;

/// One modulation's MIB curve: the source samples (uniform in linear SINR) and the dB-grid copy.
pub(super) struct MiCurve {
    first_sinr_lin: f64,
    step_lin: f64,
    last_sinr_lin: f64,
    mib: Box<[f64]>,
    last_sinr_db: f64,
    step_db: f64,
    by_db: Box<[f64]>,
}

static QPSK_SRC: &str = include_str!("data/mi_qpsk.txt");
static QAM16_SRC: &str = include_str!("data/mi_16qam.txt");
static QAM64_SRC: &str = include_str!("data/mi_64qam.txt");

static CURVES: LazyLock<[MiCurve; 3]> = LazyLock::new(|| {
    [
        MiCurve::parse("mi_qpsk.txt", QPSK_SRC),
        MiCurve::parse("mi_16qam.txt", QAM16_SRC),
        MiCurve::parse("mi_64qam.txt", QAM64_SRC),
    ]
});

pub(super) fn curve(modulation: Modulation) -> &'static MiCurve {
    &CURVES[modulation as usize]
}

/// dB -> linear power ratio.
pub fn db_to_linear(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// Linear power ratio -> dB.
pub fn linear_to_db(lin: f64) -> f64 {
    10.0 * lin.log10()
}

impl MiCurve {
    fn parse(file: &'static str, src: &'static str) -> MiCurve {
        let mut sinr = Vec::new();
        let mut mib = Vec::new();
        for (line, row) in data::rows(src) {
            let v: Vec<f64> = data::numbers(file, line, row).collect();
            assert_eq!(v.len(), 2, "{file}:{line}: two columns (SINR linear, MIB)");
            sinr.push(v[0]);
            mib.push(v[1]);
        }
        assert!(sinr.len() >= 2, "{file}: at least two points");
        let step_lin = (sinr[sinr.len() - 1] - sinr[0]) / (sinr.len() - 1) as f64;
        for (i, w) in sinr.windows(2).enumerate() {
            assert!((w[1] - w[0] - step_lin).abs() < 1e-6, "{file}: point {i}: grid not uniform");
        }
        for (i, w) in mib.windows(2).enumerate() {
            assert!(w[1] > w[0], "{file}: point {i}: MIB not increasing");
        }
        let mut curve = MiCurve {
            first_sinr_lin: sinr[0],
            step_lin,
            last_sinr_lin: sinr[sinr.len() - 1],
            mib: mib.into_boxed_slice(),
            last_sinr_db: linear_to_db(sinr[sinr.len() - 1]),
            step_db: MAX_GRID_STEP_DB,
            by_db: Box::new([]),
        };
        let intervals = ((curve.last_sinr_db - GRID_MIN_DB) / MAX_GRID_STEP_DB).ceil();
        curve.step_db = (curve.last_sinr_db - GRID_MIN_DB) / intervals;
        curve.by_db = curve.resample_by_db(intervals as usize + 1);
        curve
    }

    fn resample_by_db(&self, points: usize) -> Box<[f64]> {
        (0..points)
            // Clamp to the end sample: rounding may put the last grid point a hair past it,
            // where ns-3's jump to 1 would otherwise leak into the interpolation.
            .map(|i| {
                let db = GRID_MIN_DB + i as f64 * self.step_db;
                self.mib_at_linear(db_to_linear(db).min(self.last_sinr_lin))
            })
            .collect()
    }

    /// MIB at linear SINR `x`, interpolating the source samples.
    pub(super) fn mib_at_linear(&self, x: f64) -> f64 {
        if x > self.last_sinr_lin {
            return 1.0;
        }
        if x <= self.first_sinr_lin {
            return (x.max(0.0) / self.first_sinr_lin) * self.mib[0];
        }
        let pos = (x - self.first_sinr_lin) / self.step_lin;
        let i = (pos.floor() as usize).min(self.mib.len() - 2);
        let frac = pos - i as f64;
        self.mib[i] + frac * (self.mib[i + 1] - self.mib[i])
    }

    /// MIB at `sinr_db`, from the dB-grid table (no transcendental call in range).
    pub(super) fn mib_at_db(&self, sinr_db: f64) -> f64 {
        if sinr_db > self.last_sinr_db {
            return 1.0;
        }
        if sinr_db.is_nan() || sinr_db < GRID_MIN_DB {
            return self.mib_at_linear(db_to_linear(sinr_db.max(-200.0)));
        }
        let pos = (sinr_db - GRID_MIN_DB) / self.step_db;
        let i = (pos.floor() as usize).min(self.by_db.len() - 2);
        let frac = pos - i as f64;
        self.by_db[i] + frac * (self.by_db[i + 1] - self.by_db[i])
    }

    /// Inverse of [`Self::mib_at_linear`] on the tabulated range: the linear SINR whose MIB is
    /// `mib` (clamped to the curve's first and last sample).
    pub(super) fn sinr_linear_for_mib(&self, mib: f64) -> f64 {
        let last = self.mib.len() - 1;
        if mib >= self.mib[last] {
            return self.last_sinr_lin;
        }
        if mib <= self.mib[0] {
            return self.first_sinr_lin * (mib.max(0.0) / self.mib[0]);
        }
        // First sample strictly above `mib`; the samples increase (checked at load).
        let hi = self.mib.partition_point(|&m| m <= mib);
        let lo = hi - 1;
        let frac = (mib - self.mib[lo]) / (self.mib[hi] - self.mib[lo]);
        self.first_sinr_lin + (lo as f64 + frac) * self.step_lin
    }
}

/// Mutual information per coded bit (0..=1) of one RB at `sinr_db` with `modulation`
/// (ns-3 `LteMiErrorModel::Mib`, per RB; MI per symbol is this times the modulation's bits).
pub fn mi_per_rb(modulation: Modulation, sinr_db: f64) -> f64 {
    curve(modulation).mib_at_db(sinr_db)
}

/// MIESM effective MIB of a transport block: the mean per-RB MIB over the RBs in `rbs`
/// (lte-design.rst "MIESM": flat channel within an RB, TB MI = average over its RBs).
/// `sinr_db[rb]` is RB `rb`'s SINR. An empty mask has no information (0).
pub fn effective_mi(modulation: Modulation, rbs: crate::lte::sap::RbMask, sinr_db: &[f64]) -> f64 {
    let curve = curve(modulation);
    let mut sum = 0.0;
    let mut n = 0u32;
    for rb in rbs.iter() {
        sum += curve.mib_at_db(sinr_db[rb as usize]);
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    sum / f64::from(n)
}

/// Mean MIB over every RB of `sinr_db` (the wideband measurement).
pub(super) fn mean_mi_all(modulation: Modulation, sinr_db: &[f64]) -> f64 {
    let curve = curve(modulation);
    if sinr_db.is_empty() {
        return 0.0;
    }
    sinr_db.iter().map(|&s| curve.mib_at_db(s)).sum::<f64>() / sinr_db.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::sap::RbMask;

    const ALL: [Modulation; 3] = [Modulation::Qpsk, Modulation::Qam16, Modulation::Qam64];

    #[test]
    fn tables_load_with_their_sizes() {
        // Sizes: ns-3 lte-mi-error-model.h MI_MAP_QPSK_SIZE 797, MI_MAP_16QAM_SIZE 994, MI_MAP_64QAM_SIZE 752.
        assert_eq!(curve(Modulation::Qpsk).mib.len(), 797);
        assert_eq!(curve(Modulation::Qam16).mib.len(), 994);
        assert_eq!(curve(Modulation::Qam64).mib.len(), 752);
    }

    #[test]
    fn grid_points_return_the_source_values() {
        // mi_qpsk.txt: SINR 0.013 -> 0.008922; last point 3.197 -> 0.862005.
        let q = curve(Modulation::Qpsk);
        assert!((q.mib_at_linear(0.013) - 0.008922).abs() < 1e-12);
        assert!((q.mib_at_linear(3.197) - 0.862005).abs() < 1e-12);
        // mi_64qam.txt: 0.46 -> 0.064415.
        assert!((curve(Modulation::Qam64).mib_at_linear(0.46) - 0.064415).abs() < 1e-12);
        // Halfway between 0.013 and 0.017 (QPSK): mean of 0.008922 and 0.011813.
        assert!((q.mib_at_linear(0.015) - (0.008922 + 0.011813) / 2.0).abs() < 1e-9);
    }

    #[test]
    fn db_grid_agrees_with_the_linear_curve() {
        for m in ALL {
            let c = curve(m);
            let mut db = -35.0;
            while db < 25.0 {
                let exact = c.mib_at_linear(db_to_linear(db));
                let grid = c.mib_at_db(db);
                assert!((grid - exact).abs() < 1e-4, "{m:?} at {db} dB: {grid} vs {exact}");
                db += 0.0137;
            }
        }
    }

    #[test]
    fn mi_is_monotone_and_bounded_by_one_bit_per_coded_bit() {
        for m in ALL {
            let mut prev = 0.0;
            let mut db = -40.0;
            while db <= 40.0 {
                let mib = mi_per_rb(m, db);
                assert!((0.0..=1.0).contains(&mib), "{m:?} {db} dB: {mib}");
                // MI per symbol never exceeds the modulation's bits.
                assert!(mib * f64::from(m.bits_per_symbol()) <= f64::from(m.bits_per_symbol()));
                assert!(mib >= prev, "{m:?} not monotone at {db} dB");
                prev = mib;
                db += 0.01;
            }
            assert_eq!(mi_per_rb(m, 30.0), 1.0);
            assert!(mi_per_rb(m, -40.0) < 0.01);
        }
    }

    #[test]
    fn inverse_undoes_the_curve() {
        for m in ALL {
            let c = curve(m);
            for x in [0.02, 0.3, 1.0, 2.5] {
                let back = c.sinr_linear_for_mib(c.mib_at_linear(x));
                assert!((back - x).abs() < 1e-9, "{m:?} {x}");
            }
        }
    }

    #[test]
    fn effective_mi_averages_over_the_masked_rbs_only() {
        let sinr = [0.0, 10.0, -100.0, 3.0];
        let mask = RbMask(0b1010); // RBs 1 and 3
        let want = (mi_per_rb(Modulation::Qpsk, 10.0) + mi_per_rb(Modulation::Qpsk, 3.0)) / 2.0;
        assert!((effective_mi(Modulation::Qpsk, mask, &sinr) - want).abs() < 1e-15);
        assert_eq!(effective_mi(Modulation::Qpsk, RbMask(0), &sinr), 0.0);
    }
}
