//! BICM mutual information per coded bit (MIB) of QPSK, 16QAM and 64QAM versus SINR: the first
//! step of MIESM (ns-3 LENA `lte-mi-error-model.cc` `Mib()`, lte-design.rst "MIESM").
//!
//! Source: the curves are data files `data/mi_{qpsk,16qam,64qam}.txt` (ns-3's `MI_map_*` tables
//! on a uniform grid of *linear* SINR; Mezzavilla et al., MSWiM 2012). MIB is normalised per coded
//! bit, so it lies in [0, 1]; the MI per symbol is `MIB x bits_per_symbol`.
//!
//! ```text
//!   per-RB SINR (dB) ──► shared dB grid (0.01 dB, one row = QPSK/16QAM/64QAM MIB, built once
//!                        from the linear tables) ──► MIB per RB ──► mean over the TB's RBs = MIB_eff
//! ```
//! What differs from ns-3:
//! - ns-3 looks the MIB up at the grid point above the SINR (no interpolation); we interpolate
//!   linearly, so the curve is continuous. Below the first grid point we interpolate towards
//!   MIB(0) = 0 where ns-3 holds the first value.
//! - For speed the per-RB lookup uses a table resampled on a 0.01 dB grid shared by the three
//!   modulations (no `powf` per RB; one row gives all three, which the wideband CQI needs); it
//!   agrees with the linear-domain interpolation within 1e-4 (tested). The grid cell holding a
//!   curve's end, and SINRs below -30 dB, are evaluated on the linear curve instead.
//! - Above the last grid point MIB = 1, as in ns-3 (its curves end at 5 dB QPSK, 10 dB 16QAM,
//!   22 dB 64QAM; the jump to 1 is ns-3's and matters little: every BLER curve's `b` is below
//!   the last tabulated MIB).

use std::sync::LazyLock;

use super::amc::Modulation;
use super::data;
use crate::lte::sap::RbMask;

/// Step of the dB-domain lookup grid (ours: fine enough that linear interpolation in dB stays
/// within 1e-4 of the source curves).
const GRID_STEP_DB: f64 = 0.01;
/// Lowest SINR of the dB-domain grid; below it the linear-domain curve is evaluated directly.
const GRID_MIN_DB: f64 = -30.0;

/// One modulation's MIB curve: the source samples, uniform in linear SINR.
pub(super) struct MiCurve {
    first_sinr_lin: f64,
    step_lin: f64,
    last_sinr_lin: f64,
    mib: Box<[f64]>,
    last_sinr_db: f64,
}

/// The three curves resampled on one dB grid: row `i` holds the MIB of QPSK, 16QAM and 64QAM
/// at `GRID_MIN_DB + i * GRID_STEP_DB` (padded to 4 for alignment).
struct MibGrid {
    rows: Box<[[f32; 4]]>,
    /// Per modulation: the grid is used for SINR below this (the grid point at or below the
    /// curve's end), so both neighbours of a lookup lie on the curve.
    fast_below_db: [f64; 3],
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

static GRID: LazyLock<MibGrid> = LazyLock::new(|| MibGrid::build(&CURVES));

pub(super) fn curve(modulation: Modulation) -> &'static MiCurve {
    &CURVES[modulation as usize]
}

impl MibGrid {
    fn build(curves: &[MiCurve; 3]) -> MibGrid {
        let top_db = curves.iter().map(|c| c.last_sinr_db).fold(GRID_MIN_DB, f64::max);
        let n = ((top_db - GRID_MIN_DB) / GRID_STEP_DB).ceil() as usize + 2;
        let rows = (0..n)
            .map(|i| {
                let lin = db_to_linear(GRID_MIN_DB + i as f64 * GRID_STEP_DB);
                let at = |c: &MiCurve| c.mib_at_linear(lin.min(c.last_sinr_lin)) as f32;
                [at(&curves[0]), at(&curves[1]), at(&curves[2]), 0.0]
            })
            .collect();
        let fast_below_db = curves
            .each_ref()
            .map(|c| GRID_MIN_DB + ((c.last_sinr_db - GRID_MIN_DB) / GRID_STEP_DB).floor() * GRID_STEP_DB);
        MibGrid { rows, fast_below_db }
    }

    /// Grid row and fraction for `sinr_db`, or `None` outside [GRID_MIN_DB, every fast limit).
    #[inline]
    fn cell(&self, sinr_db: f64, limit_db: f64) -> Option<(usize, f64)> {
        // Written so that NaN fails the test.
        if !(sinr_db >= GRID_MIN_DB && sinr_db < limit_db) {
            return None;
        }
        let pos = (sinr_db - GRID_MIN_DB) * (1.0 / GRID_STEP_DB);
        let i = pos as usize;
        Some((i, pos - i as f64))
    }

    /// MIB of `m` at `sinr_db`.
    #[inline]
    fn mib(&self, m: Modulation, sinr_db: f64) -> f64 {
        let k = m as usize;
        match self.cell(sinr_db, self.fast_below_db[k]) {
            Some((i, frac)) => lerp(self.rows[i][k], self.rows[i + 1][k], frac),
            None => CURVES[k].mib_at_db_exact(sinr_db),
        }
    }

    /// MIB of all three modulations at `sinr_db`.
    #[inline]
    fn mib3(&self, sinr_db: f64) -> [f64; 3] {
        // The QPSK curve ends first, so below its limit all three are on the grid.
        match self.cell(sinr_db, self.fast_below_db[0]) {
            Some((i, frac)) => {
                let (a, b) = (&self.rows[i], &self.rows[i + 1]);
                [lerp(a[0], b[0], frac), lerp(a[1], b[1], frac), lerp(a[2], b[2], frac)]
            }
            None => MODULATIONS.map(|m| self.mib(m, sinr_db)),
        }
    }
}

#[inline]
fn lerp(a: f32, b: f32, frac: f64) -> f64 {
    f64::from(a) + frac * (f64::from(b) - f64::from(a))
}

const MODULATIONS: [Modulation; 3] = [Modulation::Qpsk, Modulation::Qam16, Modulation::Qam64];

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
        MiCurve {
            first_sinr_lin: sinr[0],
            step_lin,
            last_sinr_lin: sinr[sinr.len() - 1],
            mib: mib.into_boxed_slice(),
            last_sinr_db: linear_to_db(sinr[sinr.len() - 1]),
        }
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

    /// MIB at `sinr_db` on the source curve (one `powf`; the grid's slow path).
    fn mib_at_db_exact(&self, sinr_db: f64) -> f64 {
        if sinr_db > self.last_sinr_db {
            return 1.0;
        }
        // NaN or absurdly low: no information.
        self.mib_at_linear(db_to_linear(sinr_db.max(-200.0)))
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
    GRID.mib(modulation, sinr_db)
}

/// MIESM effective MIB of a transport block: the mean per-RB MIB over the RBs in `rbs`
/// (lte-design.rst "MIESM": flat channel within an RB, TB MI = average over its RBs).
/// `sinr_db[rb]` is RB `rb`'s SINR. An empty mask has no information (0).
pub fn effective_mi(modulation: Modulation, rbs: RbMask, sinr_db: &[f64]) -> f64 {
    let grid = &*GRID;
    let mut sum = 0.0;
    let mut n = 0u32;
    for rb in rbs.iter() {
        sum += grid.mib(modulation, sinr_db[rb as usize]);
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    sum / f64::from(n)
}

/// Mean MIB of QPSK, 16QAM and 64QAM over every RB of `sinr_db` (the wideband measurement);
/// a frequency-flat slice costs one lookup.
pub(super) fn mean_mi3_all(sinr_db: &[f64]) -> [f64; 3] {
    let grid = &*GRID;
    let Some(&first) = sinr_db.first() else {
        return [0.0; 3];
    };
    if sinr_db.iter().all(|&s| s == first) {
        return grid.mib3(first);
    }
    let mut sum = [0.0; 3];
    for &s in sinr_db {
        let m = grid.mib3(s);
        sum = [sum[0] + m[0], sum[1] + m[1], sum[2] + m[2]];
    }
    let n = sinr_db.len() as f64;
    sum.map(|x| x / n)
}

/// Mean MIB of one modulation over every RB of `sinr_db`.
pub(super) fn mean_mi_all(modulation: Modulation, sinr_db: &[f64]) -> f64 {
    if sinr_db.is_empty() {
        return 0.0;
    }
    let grid = &*GRID;
    sinr_db.iter().map(|&s| grid.mib(modulation, s)).sum::<f64>() / sinr_db.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

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
                let grid = mi_per_rb(m, db);
                assert!((grid - exact).abs() < 1e-4, "{m:?} at {db} dB: {grid} vs {exact}");
                db += 0.0137;
            }
        }
    }

    #[test]
    fn three_at_once_equals_one_at_a_time() {
        let mut db = -35.0;
        while db < 25.0 {
            let three = GRID.mib3(db);
            for (k, m) in ALL.iter().enumerate() {
                assert_eq!(three[k], mi_per_rb(*m, db), "{m:?} at {db} dB");
            }
            db += 0.0731;
        }
        let sinr = [1.0, 7.5, 12.0, 30.0];
        let mean = mean_mi3_all(&sinr);
        for (k, m) in ALL.iter().enumerate() {
            assert!((mean[k] - mean_mi_all(*m, &sinr)).abs() < 1e-15);
        }
        assert_eq!(mean_mi3_all(&[4.0; 7]), GRID.mib3(4.0));
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
