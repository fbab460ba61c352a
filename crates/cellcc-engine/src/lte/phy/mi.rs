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
use crate::sim::simd::{self, Kernel};

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
/// The mantissa bits below the cell index: a SINR's place within its cell.
const FRAC_MASK: u64 = (1 << FRAC_BITS) - 1;
/// Cells on the grid: a SINR in [GRID_MIN_LIN, GRID_MAX_LIN) has a [`cell_index`] below this.
const GRID_CELLS: u64 = GRID_ROWS as u64 - 1;
/// RBs whose grid cells are found at once by the summing lookups: four f64, one 256-bit register.
const LANES: usize = 4;
/// The lane of a grid row after the three modulations': 1 in the row of a cell holding a curve's
/// end, else 0. Interpolated and summed with the three, it tells the summing lookups whether a
/// group of RBs touched such a cell ([`MibGrid::sum_mib3`]).
const END_FLAG_LANE: usize = 3;

/// The grid cell of a SINR with IEEE bits `bits`: its exponent and top mantissa bits less the
/// first cell's, wrapping. Below [`GRID_CELLS`] exactly on the grid: GRID_MIN_LIN and
/// GRID_MAX_LIN are powers of two (cell boundaries), positive floats order as their bits, a
/// SINR below the grid wraps to above 2^63, and one above it (+inf and positive NaN too) has a
/// larger cell; every negative float, -0.0 and negative NaN has the sign bit, so its bits
/// shifted are 2^20 or more, far above the grid's cells.
#[inline(always)]
fn cell_index(bits: u64) -> u64 {
    (bits >> FRAC_BITS).wrapping_sub(FIRST_CELL)
}

/// The interpolation weight of a SINR (IEEE bits `bits`) within its grid cell: its low
/// [`FRAC_BITS`] mantissa bits over 2^FRAC_BITS, exactly, as a float operation (AVX2 has no
/// 64-bit integer to float conversion): the float with those bits under 1's exponent is
/// 1 + low x 2^-52, exactly; less 1 it is low x 2^-52, exact (Sterbenz: both in [1, 2]); times
/// 2^CELL_BITS, a power of two, low x 2^-FRAC_BITS, exact. So the same value as
/// `low as f64 x 2^-FRAC_BITS`, which [`MibGrid::cell`] computes (tested).
#[inline(always)]
fn frac_from_bits(bits: u64) -> f64 {
    (f64::from_bits(1f64.to_bits() | (bits & FRAC_MASK)) - 1.0) * f64::from(1u32 << CELL_BITS)
}

/// One modulation's MIB curve: the source samples, uniform in linear SINR.
pub(super) struct MiCurve {
    first_sinr_lin: f64,
    step_lin: f64,
    last_sinr_lin: f64,
    mib: Box<[f64]>,
}

/// The three curves resampled on one log-spaced grid of linear SINR: row `i` holds the MIB of
/// QPSK, 16QAM and 64QAM at the SINR whose IEEE bits are `(i + FIRST_CELL) << FRAC_BITS` (the
/// exponent and the top [`CELL_BITS`] mantissa bits), then a fourth lane that flags the cells
/// holding a curve's end ([`END_FLAG_LANE`]). Within a
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
                [at(0), at(1), at(2), if end_cell.contains(&i) { 1.0 } else { 0.0 }]
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
        let frac = (bits & FRAC_MASK) as i64 as f64 * (1.0 / (1u64 << FRAC_BITS) as f64);
        Some((i, frac))
    }

    /// [`Self::cell`] of [`LANES`] SINRs at once, when all of them are on the grid (`None`
    /// otherwise). Written lane by lane without a branch, so that it vectorises (a few 256-bit
    /// integer operations at AVX2). The range test is on the bits: [`cell_index`] is below
    /// [`GRID_CELLS`] exactly for the SINRs in [GRID_MIN_LIN, GRID_MAX_LIN), `cell`'s float test
    /// (tested). The fraction is [`frac_from_bits`]'s, the same value as `cell`'s, computed four
    /// lanes at once and passed through [`std::hint::black_box`]: LLVM otherwise moves each lane
    /// to a general register for the bit operations and back (about 20 more instructions per
    /// group at AVX2); from memory each RB's fraction is one broadcast load.
    #[inline(always)]
    fn cells(sinr_lin: &[f64; LANES]) -> Option<([usize; LANES], [f64; LANES])> {
        let bits = sinr_lin.map(f64::to_bits);
        let i = bits.map(cell_index);
        if !i.iter().fold(true, |on_grid, &i| on_grid & (i < GRID_CELLS)) {
            return None;
        }
        // On the grid the cell is at most GRID_ROWS - 2 already; the bound lets the compiler
        // drop the index checks of the cell's two rows.
        Some((i.map(|i| (i as usize).min(GRID_ROWS - 2)), std::hint::black_box(bits.map(frac_from_bits))))
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
                let [q, q16, q64, _] = self.lerp_row(i, frac);
                [q, q16, q64]
            }
            _ => [
                self.mib(Modulation::Qpsk, sinr_lin),
                self.mib(Modulation::Qam16, sinr_lin),
                self.mib(Modulation::Qam64, sinr_lin),
            ],
        }
    }

    /// The three modulations' MIB (and the flag lane's value) at `frac` of cell `i`: [`lerp`]
    /// lane by lane, one 256-bit operation each at AVX2.
    #[inline(always)]
    fn lerp_row(&self, i: usize, frac: f64) -> [f64; 4] {
        let (a, b) = (&self.rows[i], &self.rows[i + 1]);
        std::array::from_fn(|k| lerp(a[k], b[k], frac))
    }

    /// Sums of the three modulations' MIB over `sinr_lin`, each RB's SINR times `gain_lin`
    /// first, added one RB at a time, in order, to `sum` (lane k modulation k; lane
    /// [`END_FLAG_LANE`] 0 and left 0): the terms and the order of
    /// `sum[k] += self.mib3(s * gain_lin)[k]` RB by RB, the same bits.
    ///
    /// Four RBs' cells are found at once ([`Self::cells`], the range test alone) and their rows
    /// added with the flag lane. A flag lane still 0 after the four proves that none of them
    /// fell in a cell holding a curve's end: such a cell adds 1 - frac > 0 there (frac < 1), every
    /// other cell frac x (its upper row's flag), so 0 unless the cell above holds an end (a false
    /// alarm, rare). Otherwise the group's adds are undone and its RBs go one by one through
    /// [`Self::mib3`], as do groups with an RB off the grid and the last `len % 4` RBs. The flag
    /// replaces a compare of every cell with the three end cells.
    #[inline(always)]
    fn sum_mib3(&self, sinr_lin: &[f64], gain_lin: f64, mut sum: [f64; 4]) -> [f64; 4] {
        let add = |sum: [f64; 4], m: [f64; 4]| -> [f64; 4] { std::array::from_fn(|k| sum[k] + m[k]) };
        let mut groups = sinr_lin.chunks_exact(LANES);
        for group in &mut groups {
            let group: &[f64; LANES] = group.try_into().expect("chunks of LANES");
            let x = group.map(|s| s * gain_lin);
            if let Some((i, frac)) = Self::cells(&x) {
                let before = sum;
                for (i, frac) in i.into_iter().zip(frac) {
                    sum = add(sum, self.lerp_row(i, frac));
                }
                if sum[END_FLAG_LANE] == 0.0 {
                    continue;
                }
                sum = before;
            }
            for s in x {
                let [q, q16, q64] = self.mib3(s);
                sum = add(sum, [q, q16, q64, 0.0]);
            }
        }
        for &s in groups.remainder() {
            let [q, q16, q64] = self.mib3(s * gain_lin);
            sum = add(sum, [q, q16, q64, 0.0]);
        }
        sum
    }
}

/// The three modulations' MIB summed over the row slices `slices` in order, each SINR times
/// `gain_lin`, each sum from `start`, as a [`Kernel`] (AVX2 widens [`MibGrid::sum_mib3`]): the
/// sums and the RB count. The flag lane is returned too: with it dead, LLVM split the three sums
/// into a 2-lane register and a scalar (8 M more instructions in the channel cell's run).
/// One modulation's sum is its lane: the same terms in the same order as a sum of that
/// modulation alone, and the three lanes cost one 256-bit operation where one cost a 128-bit one.
struct Mib3Sum<'a, I> {
    grid: &'a MibGrid,
    slices: I,
    gain_lin: f64,
    start: f64,
}

impl<'a, I: Iterator<Item = &'a [f64]>> Kernel for Mib3Sum<'a, I> {
    type Output = ([f64; 4], usize);
    #[inline(always)]
    fn run(self) -> ([f64; 4], usize) {
        let (mut sum, mut n) = ([self.start, self.start, self.start, 0.0], 0);
        for slice in self.slices {
            sum = self.grid.sum_mib3(slice, self.gain_lin, sum);
            n += slice.len();
        }
        (sum, n)
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

/// How far [`mi3_per_rb`] may fall, lane by lane, as its SINR rises: the grid's f32 rows
/// interpolate monotonically within and across cells, and where the source curve takes over
/// (below the grid, a curve's end cell) it differs from the rows by an f32 rounding (half an f32
/// ulp, 2^-25 below 1), twice at most on the way up; the source curve's own steps add ulps of
/// f64. So a higher SINR's MIB is never below a lower one's by more than this (tested).
pub(super) const MIB_MONOTONE_SLACK: f64 = f32::EPSILON as f64;

/// How far one modulation's [`mi3_per_rb`] can rise as its SINR grows by e^t (t in nepers):
/// at most `slope_per_neper x t + jump`, with [`MIB_MONOTONE_SLACK`] for the steps between the
/// grid and the source curve (tested).
#[derive(Clone, Copy, Debug)]
pub(super) struct MibRise {
    /// The steepest rise per neper: in a grid cell the MIB is linear in the SINR (the weight is
    /// the SINR's low mantissa bits), so its rise per neper there is at most the cell's top SINR
    /// times its rise per unit of SINR; the same for each segment of the source curve, and the
    /// ramp below its first sample rises by its own value per neper.
    pub slope_per_neper: f64,
    /// The source curve's step to 1 past its last sample (ns-3's; the module doc).
    pub jump: f64,
}

/// [`MibRise`] of QPSK, 16QAM and 64QAM, from the tables at first use.
pub(super) static MIB_RISE: LazyLock<[MibRise; 3]> = LazyLock::new(|| std::array::from_fn(mib_rise));

/// [`MibRise`] of modulation `k`.
fn mib_rise(k: usize) -> MibRise {
    let c = &CURVES[k];
    let sample_lin = |j: usize| c.first_sinr_lin + j as f64 * c.step_lin;
    let curve_slope = c.mib.windows(2).enumerate().map(|(j, w)| sample_lin(j + 1) * (w[1] - w[0]) / c.step_lin);
    let grid = &*GRID;
    let cell_lin = |i: usize| f64::from_bits((FIRST_CELL + i as u64) << FRAC_BITS);
    let grid_slope = (0..GRID_CELLS as usize).filter(|&i| i != grid.end_cell[k]).map(|i| {
        let rise = f64::from(grid.rows[i + 1][k]) - f64::from(grid.rows[i][k]);
        cell_lin(i + 1) * rise / (cell_lin(i + 1) - cell_lin(i))
    });
    let slope_per_neper = curve_slope.chain(grid_slope).fold(c.mib[0], f64::max);
    MibRise { slope_per_neper, jump: 1.0 - c.mib[c.mib.len() - 1] }
}

/// The one linear SINR every RB of `rbs` has in `sinr_lin`, if the row is flat there (a fixed
/// SINR, an SRS row without fading); `None` for an empty mask.
pub(super) fn flat_sinr_on(rbs: RbMask, sinr_lin: &[f64]) -> Option<f64> {
    let first = sinr_lin[rbs.iter().next()? as usize];
    rbs.runs().all(|run| sinr_lin[run].iter().all(|&s| s == first)).then_some(first)
}

/// MIESM effective MIB of a transport block: the mean per-RB MIB over the RBs in `rbs`
/// (lte-design.rst "MIESM": flat channel within an RB, TB MI = average over its RBs).
/// `sinr_lin[rb]` is RB `rb`'s linear SINR. An empty mask has no information (0).
pub fn effective_mi(modulation: Modulation, rbs: RbMask, sinr_lin: &[f64]) -> f64 {
    // A frequency-flat row (a fixed SINR) costs one lookup; its sum still adds the RBs one by one.
    if let Some(flat) = flat_sinr_on(rbs, sinr_lin) {
        let (m, n) = (GRID.mib(modulation, flat), rbs.count());
        return (0..n).fold(0.0, |sum, _| sum + m) / f64::from(n);
    }
    // Run by run, lowest first (the order of `rbs.iter()`), each run a slice.
    // x 1 is exact: each RB's own SINR.
    let slices = rbs.runs().map(|run| &sinr_lin[run]);
    let (sum, n) = simd::run(Mib3Sum { grid: &GRID, slices, gain_lin: 1.0, start: 0.0 });
    if n == 0 {
        return 0.0;
    }
    sum[modulation as usize] / n as f64
}

/// Mean MIB of QPSK, 16QAM and 64QAM over the RBs `rbs` of the linear row `sinr_lin`, each
/// RB's SINR times `gain_lin` first (`[0; 3]` for no RB): the RBs run by run, lowest first.
pub(super) fn mean_mi3_on(rbs: RbMask, sinr_lin: &[f64], gain_lin: f64) -> [f64; 3] {
    let slices = rbs.runs().map(|run| &sinr_lin[run]);
    mean_of(simd::run(Mib3Sum { grid: &GRID, slices, gain_lin, start: 0.0 }))
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
    // x 1 is exact: each RB's own SINR.
    mean_of(simd::run(Mib3Sum { grid, slices: std::iter::once(sinr_lin), gain_lin: 1.0, start: 0.0 }))
}

/// The three means from their sums over `n` RBs (0 for none).
fn mean_of(([q, q16, q64, _], n): ([f64; 4], usize)) -> [f64; 3] {
    if n == 0 {
        return [0.0; 3];
    }
    [q, q16, q64].map(|x| x / n as f64)
}

/// Mean MIB of one modulation over every RB of the linear row `sinr_lin`, each RB's SINR times
/// `gain_lin` first.
pub(super) fn mean_mi_all(modulation: Modulation, sinr_lin: &[f64], gain_lin: f64) -> f64 {
    if sinr_lin.is_empty() {
        return 0.0;
    }
    // From -0.0, as `Iterator::sum` of f64 starts (-0.0 + x is x for every x); x 1 is exact.
    let slices = std::iter::once(sinr_lin);
    let (sum, n) = simd::run(Mib3Sum { grid: &GRID, slices, gain_lin, start: -0.0 });
    sum[modulation as usize] / n as f64
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

    /// [`MIB_MONOTONE_SLACK`]: SINRs in rising order through every grid cell's bounds (the last
    /// bits below, the bound, a quarter, half and three quarters in) and below the grid, each
    /// lane's MIB never below the one before by more than the slack.
    #[test]
    fn the_mib_lookup_falls_by_at_most_the_slack_as_sinr_rises() {
        let below_grid = (1..4096).map(|k| GRID_MIN_LIN * f64::from(k) / 4096.0);
        let on_grid = (0..GRID_ROWS as u64).flat_map(|i| {
            let bound = (FIRST_CELL + i) << FRAC_BITS;
            [bound - 1, bound, bound + FRAC_MASK / 4, bound + FRAC_MASK / 2, bound + 3 * (FRAC_MASK / 4)]
                .map(f64::from_bits)
        });
        let rising: Vec<f64> = below_grid.chain(on_grid).chain([2.0 * GRID_MAX_LIN]).collect();
        assert!(rising.windows(2).all(|w| w[0] < w[1]));
        for w in rising.windows(2) {
            let (a, b) = (mi3_per_rb(w[0]), mi3_per_rb(w[1]));
            for k in 0..3 {
                assert!(b[k] >= a[k] - MIB_MONOTONE_SLACK, "lane {k}: {} at {} after {} at {}", b[k], w[1], a[k], w[0]);
            }
        }
    }

    /// [`MIB_RISE`]: for SINRs across the grid and below it and gains from a hundredth of a dB to
    /// 10 dB, each lane's MIB at the higher SINR is within the rise of the lower one's.
    #[test]
    fn the_mib_lookup_rises_by_at_most_its_slope_and_jump() {
        let sinrs = (0..20_000).map(|k| 10f64.powf(-4.0 + 10.0 * f64::from(k) / 20_000.0));
        for x in sinrs {
            for gain_db in [0.01, 0.11, 1.0, 3.0, 10.0] {
                let nepers = gain_db / 10.0 * std::f64::consts::LN_10;
                let (a, b) = (mi3_per_rb(x), mi3_per_rb(x * nepers.exp()));
                for (k, rise) in MIB_RISE.iter().enumerate() {
                    let most = a[k] + rise.slope_per_neper * nepers + rise.jump + MIB_MONOTONE_SLACK;
                    assert!(b[k] <= most, "lane {k}: {} at {x} x {gain_db} dB above {most}", b[k]);
                }
            }
        }
        // The steepest rises are those of the curves' middles, about a third of a MIB per neper.
        assert!(MIB_RISE.iter().all(|r| (0.1..0.5).contains(&r.slope_per_neper)), "{:?}", *MIB_RISE);
    }

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
            assert!((mean[k] - mean_mi_all(*m, &sinr, 1.0)).abs() < 1e-15);
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

    #[test]
    fn a_flat_row_sums_its_one_lookup_rb_by_rb() {
        // 7 x m / 7 is not m for every m: the flat path keeps the sum of the general one.
        for db in [-3.1, 0.4, 2.9, 7.3, 13.7] {
            let sinr = [db_to_linear(db); 100];
            for m in ALL {
                for mask in [RbMask(0b111_1111), RbMask::range(3, 90), RbMask(0b1011 << 40)] {
                    let want = mask.iter().fold(0.0, |sum, rb| sum + mi_per_rb(m, sinr[rb as usize]))
                        / f64::from(mask.count());
                    assert_eq!(effective_mi(m, mask, &sinr).to_bits(), want.to_bits(), "{m:?} {db} dB {mask:?}");
                }
            }
        }
    }

    /// SINRs at every edge of the grouped lookups: zero and below the grid, the grid's two ends
    /// and their neighbours, each curve's end, its end cell and the cell above, above the grid,
    /// infinities, NaN and negative values.
    fn edge_values() -> Vec<f64> {
        let below = |x: f64| f64::from_bits(x.to_bits() - 1);
        let above = |x: f64| f64::from_bits(x.to_bits() + 1);
        let mut v =
            vec![0.0, -0.0, f64::MIN_POSITIVE, 1e-300, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN];
        for x in [GRID_MIN_LIN, GRID_MAX_LIN] {
            v.extend([below(x), x, above(x)]);
        }
        for c in CURVES.iter() {
            let next_cell = f64::from_bits(((c.last_sinr_lin.to_bits() >> FRAC_BITS) + 1) << FRAC_BITS);
            v.extend([below(c.last_sinr_lin), c.last_sinr_lin, above(c.last_sinr_lin), below(next_cell), next_cell]);
        }
        v
    }

    /// Rows of every length up to 9, then 100 and 101 RBs (groups of four and one to three
    /// left), of faded SINRs from -40 to 40 dB with an edge value every few RBs, or none.
    fn edge_rows() -> Vec<Vec<f64>> {
        let edges = edge_values();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut rows = Vec::new();
        for len in (0..=9).chain([100, 101]) {
            for every in [0, 1, 3, 7] {
                let row = (0..len)
                    .map(|rb| match every {
                        0 => db_to_linear((next() % 8000) as f64 / 100.0 - 40.0),
                        _ if rb % every == 0 => edges[next() as usize % edges.len()],
                        _ => db_to_linear((next() % 8000) as f64 / 100.0 - 40.0),
                    })
                    .collect();
                rows.push(row);
            }
        }
        rows
    }

    #[test]
    fn grouped_cells_are_the_cells_one_at_a_time() {
        let mut values = edge_values();
        values.extend((0..20_000).map(|i| db_to_linear(f64::from(i) * 0.005 - 40.0)));
        for s in values {
            let one = GRID.cell(s).map(|(i, frac)| (i, frac.to_bits()));
            let four = MibGrid::cells(&[s; LANES]).map(|(i, frac)| (i[0], frac[0].to_bits()));
            assert_eq!(four, one, "{s:e}");
            if one.is_none() {
                assert_eq!(MibGrid::cells(&[1.0, 1.0, 1.0, s]), None, "{s:e} off the grid in the last lane");
            }
        }
    }

    #[test]
    fn the_flag_lane_marks_the_cells_holding_a_curve_end_and_no_other() {
        let grid = &*GRID;
        for (i, row) in grid.rows.iter().enumerate() {
            let want = if grid.end_cell.contains(&i) { 1.0 } else { 0.0 };
            assert_eq!(row[END_FLAG_LANE], want, "row {i}");
        }
        // In an end cell the flag interpolates to 1 - frac > 0 at every fraction below 1.
        for &e in &grid.end_cell {
            for frac in [0.0, 0.5, 1.0 - f64::EPSILON] {
                assert!(grid.lerp_row(e, frac)[END_FLAG_LANE] > 0.0, "end cell {e} at {frac}");
                assert_eq!(grid.lerp_row(e + 1, frac)[END_FLAG_LANE], 0.0, "cell {} at {frac}", e + 1);
            }
        }
    }

    #[test]
    fn grouped_sums_have_the_bits_of_the_sums_one_rb_at_a_time() {
        use crate::sim::simd::{run_on, tests::with_avx2, Width};
        let grid = &*GRID;
        for row in edge_rows() {
            // One modulation's sum from -0.0 (`mean_mi_all`) is its lane of the three.
            for m in ALL {
                let want = row.iter().fold(-0.0, |sum, &s| sum + grid.mib(m, s));
                let slices = std::iter::once(&row[..]);
                let sum = |w| run_on(w, Mib3Sum { grid, slices: slices.clone(), gain_lin: 1.0, start: -0.0 });
                assert_eq!(sum(Width::BASELINE).0[m as usize].to_bits(), want.to_bits(), "{m:?} {row:?}");
                with_avx2("mi::Mib3Sum", |w| {
                    assert_eq!(sum(w).0[m as usize].to_bits(), want.to_bits(), "{m:?} {row:?}");
                    assert_eq!(sum(w).0[END_FLAG_LANE], 0.0, "{row:?}");
                });
            }
            for gain_lin in [1.0, 0.7, 1.3] {
                let want = row.iter().fold([0.0; 3], |sum, &s| {
                    let m = grid.mib3(s * gain_lin);
                    [sum[0] + m[0], sum[1] + m[1], sum[2] + m[2]]
                });
                let bits = |sum: [f64; 3]| sum.map(f64::to_bits);
                let sum = |w| {
                    let slices = std::iter::once(&row[..]);
                    let [q, q16, q64, _] = run_on(w, Mib3Sum { grid, slices, gain_lin, start: 0.0 }).0;
                    [q, q16, q64]
                };
                assert_eq!(bits(sum(Width::BASELINE)), bits(want), "x{gain_lin} {row:?}");
                with_avx2("mi::Mib3Sum", |w| assert_eq!(bits(sum(w)), bits(want), "x{gain_lin} {row:?}"));
            }
        }
    }

    #[test]
    fn masked_means_sum_run_by_run() {
        // Runs of 1, 5 and 3 RBs, then 2: the groups of four start again in each run.
        let row: Vec<f64> = (0..16).map(|rb| db_to_linear(f64::from(rb) * 2.3 - 8.0)).collect();
        let mask = RbMask(0b1101_1100_0111_1101);
        let rbs: Vec<usize> = mask.iter().map(|rb| rb as usize).collect();
        let n = rbs.len() as f64;
        for m in ALL {
            let want = rbs.iter().fold(0.0, |sum, &rb| sum + mi_per_rb(m, row[rb])) / n;
            assert_eq!(effective_mi(m, mask, &row).to_bits(), want.to_bits(), "{m:?}");
        }
        let gain_lin = 0.8;
        let sum = rbs.iter().fold([0.0; 3], |sum, &rb| {
            let m = GRID.mib3(row[rb] * gain_lin);
            [sum[0] + m[0], sum[1] + m[1], sum[2] + m[2]]
        });
        assert_eq!(mean_mi3_on(mask, &row, gain_lin), sum.map(|x| x / n));
        assert_eq!(mean_mi3_on(RbMask(0), &row, gain_lin), [0.0; 3]);
        assert_eq!(mean_mi_all(Modulation::Qpsk, &[], 1.0), 0.0);
    }

    #[test]
    fn the_fraction_from_the_bits_as_a_float_is_the_integer_conversion() {
        for low in [0, 1, 2, 3, FRAC_MASK - 1, FRAC_MASK, 1 << 42, (1 << 42) + 1, 0x555_5555_5555, 0x2aa_aaaa_aaaa] {
            let bits = 1f64.to_bits() | low;
            let want = low as i64 as f64 * (1.0 / (1u64 << FRAC_BITS) as f64);
            assert_eq!(frac_from_bits(bits).to_bits(), want.to_bits(), "{low:#x}");
        }
    }
}
