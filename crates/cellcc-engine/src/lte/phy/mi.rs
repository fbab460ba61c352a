//! BICM mutual information per coded bit (MIB) of QPSK, 16QAM and 64QAM versus SINR: the first
//! step of MIESM (ns-3 LENA `lte-mi-error-model.cc` `Mib()`, lte-design.rst "MIESM").
//!
//! Source: the curves are data files `data/mi_{qpsk,16qam,64qam}.txt` (ns-3's `MI_map_*` tables
//! on a uniform grid of *linear* SINR; Mezzavilla et al., MSWiM 2012). MIB is normalised per coded
//! bit, so it lies in [0, 1]; the MI per symbol is `MIB x bits_per_symbol`.
//!
//! ```text
//!   per-RB SINR (linear) ──► log-spaced grid (exponent + top 9 mantissa bits: 512 cells per
//!                            octave, one row = QPSK/16QAM/64QAM MIB, built once from the linear
//!                            tables) ──► MIB per RB ──► mean over the TB's RBs = MIB_eff
//! ```
//! What differs from ns-3:
//! - ns-3 looks the MIB up at the grid point above the SINR (no interpolation); we interpolate
//!   linearly, so the curve is continuous. Below the first grid point we interpolate towards
//!   MIB(0) = 0 where ns-3 holds the first value.
//! - For speed the per-RB lookup uses a table resampled on a grid shared by the three
//!   modulations, indexed by the SINR's IEEE 754 exponent and top mantissa bits: the channel's
//!   rows stay linear (no dB conversion per RB, no `powf`), one row gives all three modulations
//!   (which the wideband CQI needs), and the interpolation weight is the low mantissa bits,
//!   exactly. It agrees with the source curves within 6e-5 (tested). The cell holding a curve's
//!   end, and SINRs below 2^-10 (-30.1 dB), are evaluated on the source curve instead.
//! - Above the last grid point MIB = 1, as in ns-3 (its curves end at 5 dB QPSK, 10 dB 16QAM,
//!   22 dB 64QAM; the jump to 1 is ns-3's and matters little: every BLER curve's `b` is below
//!   the last tabulated MIB).

use std::sync::LazyLock;

use super::amc::Modulation;
use super::data;
use crate::lte::sap::RbMask;

/// Mantissa bits that pick a grid cell within an octave of linear SINR: 2^9 = 512 cells per
/// octave, each 2^-9 of its octave wide (at most 0.0085 dB, finer than the 0.01 dB dB-domain grid
/// this replaced), so linear interpolation stays within the error bound tested below.
const CELL_BITS: u32 = 9;
/// IEEE 754 binary64 mantissa bits below the cell index.
const FRAC_BITS: u32 = 52 - CELL_BITS;
/// Lowest SINR on the grid: 2^-10 (-30.1 dB); below it the source curve is evaluated directly.
const GRID_MIN_LIN: f64 = 1.0 / 1024.0;
/// The grid ends at 2^20 (60.2 dB), far above the last curve's end (22 dB): between a curve's
/// end and here its rows hold MIB = 1, so a faded row's RBs above a curve's end take the same
/// branch as those below it; above 2^20 every curve's value, 1, comes off the grid.
const GRID_MAX_LIN: f64 = 1_048_576.0;
/// Cell index (bits >> FRAC_BITS) of the grid's row 0.
const FIRST_CELL: u64 = GRID_MIN_LIN.to_bits() >> FRAC_BITS;
/// Grid rows: through the row at GRID_MAX_LIN, the upper neighbour of the last cell (30 octaves
/// of 512 cells, 15,361 rows).
const GRID_ROWS: usize = ((GRID_MAX_LIN.to_bits() >> FRAC_BITS) - FIRST_CELL + 1) as usize;

/// One modulation's MIB curve: the source samples, uniform in linear SINR.
pub(super) struct MiCurve {
    first_sinr_lin: f64,
    step_lin: f64,
    last_sinr_lin: f64,
    mib: Box<[f64]>,
}

/// The three curves resampled on one log-spaced grid of linear SINR: row `i` holds the MIB of
/// QPSK, 16QAM and 64QAM at the SINR whose IEEE bits are `(i + FIRST_CELL) << FRAC_BITS` (the
/// exponent and the top [`CELL_BITS`] mantissa bits), padded to 4 for alignment. Within a
/// row's cell the SINR is linear in the low mantissa bits, so the interpolation weight is those
/// bits, exactly, without a logarithm. Above the cell holding a curve's end the curve's rows
/// are 1 (its value there), and 1 + frac x (1 - 1) is 1 exactly; the cell holding the end
/// straddles it and is evaluated on the source curve.
struct MibGrid {
    rows: Box<[[f32; 4]; GRID_ROWS]>,
    /// Per modulation: the grid cell holding the curve's end (evaluated on the source curve).
    end_cell: [usize; 3],
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
        assert!(
            curves.iter().all(|c| c.last_sinr_lin < GRID_MAX_LIN / 2.0),
            "MIB curves must end below the grid's top octave"
        );
        let end_cell = curves.each_ref().map(|c| ((c.last_sinr_lin.to_bits() >> FRAC_BITS) - FIRST_CELL) as usize);
        let rows: Box<[[f32; 4]]> = (0..GRID_ROWS)
            .map(|i| {
                let lin = f64::from_bits((FIRST_CELL + i as u64) << FRAC_BITS);
                let at = |k: usize| if i > end_cell[k] { 1.0 } else { curves[k].mib_at_linear(lin) as f32 };
                [at(0), at(1), at(2), 0.0]
            })
            .collect();
        MibGrid { rows: rows.try_into().expect("GRID_ROWS rows"), end_cell }
    }

    /// Grid row and fraction for `sinr_lin`, or `None` outside [GRID_MIN_LIN, GRID_MAX_LIN).
    #[inline]
    fn cell(&self, sinr_lin: f64) -> Option<(usize, f64)> {
        // NaN is in no range.
        if !(GRID_MIN_LIN..GRID_MAX_LIN).contains(&sinr_lin) {
            return None;
        }
        let bits = sinr_lin.to_bits();
        // Below GRID_MAX_LIN the cell is at most GRID_ROWS - 2 already; the bound lets the
        // compiler drop the index checks of the cell's two rows.
        let i = (((bits >> FRAC_BITS) - FIRST_CELL) as usize).min(GRID_ROWS - 2);
        // The low bits are below 2^43, so the signed conversion (one instruction; an unsigned one
        // is a sequence at the baseline width) is exact, as the unsigned one was: the same value.
        let frac = (bits & ((1 << FRAC_BITS) - 1)) as i64 as f64 * (1.0 / (1u64 << FRAC_BITS) as f64);
        Some((i, frac))
    }

    /// MIB of `m` at `sinr_lin`. Always inlined: the wideband and control-region means call it per
    /// RB, and a call per RB cost a quarter of the lookup.
    #[inline(always)]
    fn mib(&self, m: Modulation, sinr_lin: f64) -> f64 {
        let k = m as usize;
        match self.cell(sinr_lin) {
            Some((i, frac)) if i != self.end_cell[k] => lerp(self.rows[i][k], self.rows[i + 1][k], frac),
            _ => CURVES[k].mib_off_grid(sinr_lin),
        }
    }

    /// MIB of all three modulations at `sinr_lin` (always inlined, as `mib`): one cell serves the
    /// three unless it holds a curve's end.
    #[inline(always)]
    fn mib3(&self, sinr_lin: f64) -> [f64; 3] {
        match self.cell(sinr_lin) {
            Some((i, frac)) if !self.end_cell.contains(&i) => {
                let (a, b) = (&self.rows[i], &self.rows[i + 1]);
                [lerp(a[0], b[0], frac), lerp(a[1], b[1], frac), lerp(a[2], b[2], frac)]
            }
            _ => [
                self.mib(Modulation::Qpsk, sinr_lin),
                self.mib(Modulation::Qam16, sinr_lin),
                self.mib(Modulation::Qam64, sinr_lin),
            ],
        }
    }
}

#[inline]
fn lerp(a: f32, b: f32, frac: f64) -> f64 {
    f64::from(a) + frac * (f64::from(b) - f64::from(a))
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
        MiCurve { first_sinr_lin: sinr[0], step_lin, last_sinr_lin: sinr[sinr.len() - 1], mib: mib.into_boxed_slice() }
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

    /// MIB at `sinr_lin` off the grid (the grid's slow path): the source curve; NaN has no
    /// information.
    #[inline]
    fn mib_off_grid(&self, sinr_lin: f64) -> f64 {
        if sinr_lin > self.last_sinr_lin {
            return 1.0;
        }
        if sinr_lin.is_nan() {
            return 0.0;
        }
        self.mib_at_linear(sinr_lin)
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

/// Mutual information per coded bit (0..=1) of one RB at linear SINR `sinr_lin` with
/// `modulation` (ns-3 `LteMiErrorModel::Mib`, per RB; MI per symbol is this times the modulation's bits).
pub fn mi_per_rb(modulation: Modulation, sinr_lin: f64) -> f64 {
    GRID.mib(modulation, sinr_lin)
}

/// MIB of QPSK, 16QAM and 64QAM (in that order) of one RB at linear SINR `sinr_lin` (inlined: an
/// uplink grant's MCS calls it per RB).
#[inline]
pub(super) fn mi3_per_rb(sinr_lin: f64) -> [f64; 3] {
    GRID.mib3(sinr_lin)
}

/// MIESM effective MIB of a transport block: the mean per-RB MIB over the RBs in `rbs`
/// (lte-design.rst "MIESM": flat channel within an RB, TB MI = average over its RBs).
/// `sinr_lin[rb]` is RB `rb`'s linear SINR. An empty mask has no information (0).
pub fn effective_mi(modulation: Modulation, rbs: RbMask, sinr_lin: &[f64]) -> f64 {
    let grid = &*GRID;
    let mut sum = 0.0;
    let mut n = 0u32;
    // Neighbouring RBs often share a SINR: their MIB is looked up once.
    let mut last: Option<(f64, f64)> = None;
    // Run by run, lowest first (the order of `rbs.iter()`), each run a slice.
    for run in rbs.runs() {
        for &sinr in &sinr_lin[run] {
            let m = match last {
                Some((s, m)) if s == sinr => m,
                _ => {
                    let m = grid.mib(modulation, sinr);
                    last = Some((sinr, m));
                    m
                }
            };
            sum += m;
            n += 1;
        }
    }
    if n == 0 {
        return 0.0;
    }
    sum / f64::from(n)
}

/// Mean MIB of QPSK, 16QAM and 64QAM over every RB of the linear row `sinr_lin` (the wideband
/// measurement); a frequency-flat slice costs one lookup.
pub(super) fn mean_mi3_all(sinr_lin: &[f64]) -> [f64; 3] {
    let grid = &*GRID;
    let Some(&first) = sinr_lin.first() else {
        return [0.0; 3];
    };
    if sinr_lin.iter().all(|&s| s == first) {
        return grid.mib3(first);
    }
    let mut sum = [0.0; 3];
    for &s in sinr_lin {
        let m = grid.mib3(s);
        sum = [sum[0] + m[0], sum[1] + m[1], sum[2] + m[2]];
    }
    let n = sinr_lin.len() as f64;
    sum.map(|x| x / n)
}

/// Mean MIB of one modulation over every RB of the linear row `sinr_lin`.
pub(super) fn mean_mi_all(modulation: Modulation, sinr_lin: &[f64]) -> f64 {
    if sinr_lin.is_empty() {
        return 0.0;
    }
    let grid = &*GRID;
    sinr_lin.iter().map(|&s| grid.mib(modulation, s)).sum::<f64>() / sinr_lin.len() as f64
}

/// Rows given in dB as the linear rows the PHY reads (tests write SINRs in dB).
#[cfg(test)]
pub(crate) fn lin_row(db: &[f64]) -> Vec<f64> {
    db.iter().map(|&x| db_to_linear(x)).collect()
}

/// The 0.01 dB grid the MIESM used before it read linear SINR (same construction and lookup:
/// rows from -30 dB, f32 samples of the source curves, interpolation in dB), kept for the tests
/// that bound how far the linear grid moves the MIB and the chosen MCS.
#[cfg(test)]
pub(crate) mod db_grid {
    use super::{db_to_linear, lerp, linear_to_db, CURVES};
    use std::sync::LazyLock;

    const STEP_DB: f64 = 0.01;
    const MIN_DB: f64 = -30.0;

    /// Rows [QPSK, 16QAM, 64QAM] and, per modulation, the dB below which the grid is used.
    static GRID: LazyLock<(Vec<[f32; 3]>, [f64; 3])> = LazyLock::new(|| {
        let last_db = CURVES.each_ref().map(|c| linear_to_db(c.last_sinr_lin));
        let top_db = last_db.iter().copied().fold(MIN_DB, f64::max);
        let n = ((top_db - MIN_DB) / STEP_DB).ceil() as usize + 2;
        let rows = (0..n)
            .map(|i| {
                let lin = db_to_linear(MIN_DB + i as f64 * STEP_DB);
                CURVES.each_ref().map(|c| c.mib_at_linear(lin.min(c.last_sinr_lin)) as f32)
            })
            .collect();
        (rows, last_db.map(|l| MIN_DB + ((l - MIN_DB) / STEP_DB).floor() * STEP_DB))
    });

    /// MIB of modulation `k` (0 QPSK, 1 16QAM, 2 64QAM) at `sinr_db`, as the dB grid gave it.
    pub(crate) fn mib(k: usize, sinr_db: f64) -> f64 {
        let (rows, fast_below_db) = &*GRID;
        if sinr_db >= MIN_DB && sinr_db < fast_below_db[k] {
            let pos = (sinr_db - MIN_DB) * (1.0 / STEP_DB);
            let i = pos as usize;
            return lerp(rows[i][k], rows[i + 1][k], pos - i as f64);
        }
        let c = &CURVES[k];
        if sinr_db > linear_to_db(c.last_sinr_lin) {
            return 1.0;
        }
        c.mib_at_linear(db_to_linear(sinr_db.max(-200.0)))
    }

    /// Mean MIB of the three modulations over a row in dB.
    pub(crate) fn mean_mib3(row_db: &[f64]) -> [f64; 3] {
        let n = row_db.len() as f64;
        [0, 1, 2].map(|k| row_db.iter().map(|&db| mib(k, db)).sum::<f64>() / n)
    }
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

    /// Largest |grid - reference| over a dense log sweep of -35..25 dB.
    fn worst(m: Modulation, reference: impl Fn(f64) -> f64) -> (f64, f64) {
        let mut worst = (0.0, 0.0);
        let mut db = -35.0;
        while db < 25.0 {
            let lin = db_to_linear(db);
            let e = (mi_per_rb(m, lin) - reference(db)).abs();
            if e > worst.0 {
                worst = (e, db);
            }
            db += 0.000_731;
        }
        worst
    }

    /// Linear interpolation on 2^-9-octave cells stays within 6e-5 of the source curve (the
    /// sources are piecewise linear in SINR; the error comes from the cells holding a change of
    /// slope; measured worst: QPSK 2.0e-5 at -1.72 dB, 16QAM 5.7e-5 at 6.22 dB, 64QAM 5.8e-6 at
    /// 13.0 dB), as the dB grid did (its test bound was 1e-4), and within 6e-5 of that dB grid
    /// (measured worst: 5.6e-5, 3.8e-5, 7.9e-6): the two grids approximate one curve with errors
    /// of the same size, not each other, so the MIB moves by up to that much, not by rounding alone.
    #[test]
    fn linear_grid_error_bounds() {
        const BOUND: f64 = 6e-5;
        for m in ALL {
            let c = curve(m);
            let exact = worst(m, |db| c.mib_at_linear(db_to_linear(db)));
            let old = worst(m, |db| db_grid::mib(m as usize, db));
            assert!(exact.0 < BOUND, "{m:?}: {} from the source curve at {} dB", exact.0, exact.1);
            assert!(old.0 < BOUND, "{m:?}: {} from the old dB grid at {} dB", old.0, old.1);
        }
    }

    #[test]
    fn three_at_once_equals_one_at_a_time() {
        // Through every regime of `mib3`: below -30 dB, all on the grid, past each curve's end.
        let mut db = -35.0;
        while db < 65.0 {
            let three = GRID.mib3(db_to_linear(db));
            for (k, m) in ALL.iter().enumerate() {
                assert_eq!(three[k], mi_per_rb(*m, db_to_linear(db)), "{m:?} at {db} dB");
            }
            db += 0.00731;
        }
        for c in CURVES.iter() {
            // Exactly at and just around each curve's last sample and the grid limits.
            for x in [c.last_sinr_lin, c.last_sinr_lin * (1.0 - 1e-12), c.last_sinr_lin * (1.0 + 1e-12)] {
                let three = GRID.mib3(x);
                for (k, m) in ALL.iter().enumerate() {
                    assert_eq!(three[k], mi_per_rb(*m, x), "{m:?} at {x}");
                }
            }
        }
        let sinr = lin_row(&[1.0, 7.5, 12.0, 30.0]);
        let mean = mean_mi3_all(&sinr);
        for (k, m) in ALL.iter().enumerate() {
            assert!((mean[k] - mean_mi_all(*m, &sinr)).abs() < 1e-15);
        }
        assert_eq!(mean_mi3_all(&[2.5; 7]), GRID.mib3(2.5));
    }

    #[test]
    fn past_each_curve_end_the_grid_gives_the_source_curves_values() {
        // From below each curve's end cell to above the grid: the end cell reads the source
        // curve, the cells above it their rows of 1, both exactly the source curve's value.
        for (k, m) in ALL.iter().enumerate() {
            let c = curve(*m);
            let mut x = c.last_sinr_lin * 0.99;
            while x < 2.0 * GRID_MAX_LIN {
                let i = (x.to_bits() >> FRAC_BITS) - FIRST_CELL;
                if i >= GRID.end_cell[k] as u64 {
                    assert_eq!(mi_per_rb(*m, x).to_bits(), c.mib_off_grid(x).to_bits(), "{m:?} at {x}");
                }
                if i > GRID.end_cell[k] as u64 {
                    assert_eq!(mi_per_rb(*m, x), 1.0, "{m:?} at {x}");
                }
                x *= 1.000_37;
            }
            for x in [c.last_sinr_lin, f64::from_bits(((c.last_sinr_lin.to_bits() >> FRAC_BITS) + 1) << FRAC_BITS)] {
                assert_eq!(mi_per_rb(*m, x).to_bits(), c.mib_off_grid(x).to_bits(), "{m:?} at {x}");
            }
        }
        assert_eq!(GRID.mib3(GRID_MAX_LIN * (1.0 - 1e-15)), [1.0; 3]);
    }

    #[test]
    fn mi_is_monotone_and_bounded_by_one_bit_per_coded_bit() {
        for m in ALL {
            let mut prev = 0.0;
            let mut db = -40.0;
            while db <= 40.0 {
                let mib = mi_per_rb(m, db_to_linear(db));
                assert!((0.0..=1.0).contains(&mib), "{m:?} {db} dB: {mib}");
                // MI per symbol never exceeds the modulation's bits.
                assert!(mib * f64::from(m.bits_per_symbol()) <= f64::from(m.bits_per_symbol()));
                assert!(mib >= prev, "{m:?} not monotone at {db} dB");
                prev = mib;
                db += 0.01;
            }
            assert_eq!(mi_per_rb(m, 1000.0), 1.0);
            assert!(mi_per_rb(m, 1e-4) < 0.01);
            assert_eq!(mi_per_rb(m, 0.0), 0.0);
            assert_eq!(mi_per_rb(m, f64::NAN), 0.0);
            assert_eq!(mi_per_rb(m, f64::INFINITY), 1.0);
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
        let sinr = [1.0, 10.0, 1e-10, 3.0];
        let mask = RbMask(0b1010); // RBs 1 and 3
        let want = (mi_per_rb(Modulation::Qpsk, 10.0) + mi_per_rb(Modulation::Qpsk, 3.0)) / 2.0;
        assert!((effective_mi(Modulation::Qpsk, mask, &sinr) - want).abs() < 1e-15);
        assert_eq!(effective_mi(Modulation::Qpsk, RbMask(0), &sinr), 0.0);
    }
}
