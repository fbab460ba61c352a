//! Downlink control channels: the PCFICH+PDCCH decoding error probability (ns-3 LENA
//! `LteMiErrorModel::GetPcfichPdcchError`, lte-design.rst "Control Channels PHY Error Model")
//! and the control region size (TS 36.211 §6.7).
//!
//! ```text
//!  per-RB control SINR ─► QPSK MIB per RB ─► mean ─► invert the QPSK MIB curve = effective SINR
//!                                                     ─► error curve of 3GPP R4-081920 (dB axis)
//! ```
//! The control channels span the whole band and are QPSK, so the effective SINR of all RBs is
//! looked up on the curve `data/pcfich_pdcch_bler.txt` (-10..-1 dB). An error loses the UE's
//! DCIs, hence every TB of that TTI for that UE; the uplink control channels are error-free in
//! ns-3 and here.
//!
//! What differs from ns-3: ns-3 rounds the effective SINR to the nearest MI-table point and
//! takes the error curve's value at the first point at or above it (a staircase); we
//! interpolate both linearly. Outside the curve we keep ns-3's ends: error 0 above -1 dB, the
//! -10 dB value (0.92) below -10 dB.
//!
//! Control region: ns-3 fixes it to 3 OFDM symbols (`lte-spectrum-phy.cc` `DL_CTRL_DURATION`
//! = 214286 ns) and the region's size changes neither the TBS (TS 36.213 Table 7.1.7.2.1-1
//! does not depend on it) nor the BLER (ns-3's curves are per MCS, at fixed effective code
//! rates). [`ControlRegion`] carries the size and the data-region resource elements it leaves,
//! for reporting; the BLER model does not use them, as in ns-3.

use std::sync::LazyLock;

use super::amc::Modulation;
use super::data;
use super::mi::{curve, linear_to_db, mean_mi_all};

const CURVE_FILE: &str = "pcfich_pdcch_bler.txt";
static CURVE_SRC: &str = include_str!("data/pcfich_pdcch_bler.txt");

/// The R4-081920 curve: (effective SINR dB, error probability), SINR increasing.
static CURVE: LazyLock<Box<[(f64, f64)]>> = LazyLock::new(|| {
    let mut points = Vec::new();
    for (line, row) in data::rows(CURVE_SRC) {
        let v: Vec<f64> = data::numbers(CURVE_FILE, line, row).collect();
        assert_eq!(v.len(), 2, "{CURVE_FILE}:{line}: two columns (SINR dB, error)");
        points.push((v[0], v[1]));
    }
    assert!(points.windows(2).all(|w| w[1].0 > w[0].0), "{CURVE_FILE}: SINR must increase");
    points.into_boxed_slice()
});

/// Error probability at effective SINR `esinr_db` on the R4-081920 curve.
fn error_at_effective_sinr_db(esinr_db: f64) -> f64 {
    let points = &**CURVE;
    let (last_db, _) = points[points.len() - 1];
    if esinr_db > last_db {
        return 0.0;
    }
    if esinr_db.is_nan() || esinr_db <= points[0].0 {
        return points[0].1;
    }
    let hi = points.partition_point(|&(db, _)| db < esinr_db);
    let ((x0, y0), (x1, y1)) = (points[hi - 1], points[hi]);
    y0 + (esinr_db - x0) / (x1 - x0) * (y1 - y0)
}

/// PCFICH+PDCCH decoding error probability from the control region's per-RB linear SINR,
/// every RB of the band (ns-3 `GetPcfichPdcchError`). The caller draws u ~ U(0,1) and loses
/// the UE's control (and so its TBs of the TTI) if `u < error`. An empty slice is an error (1).
pub fn pcfich_pdcch_error_rate(sinr_lin: &[f64]) -> f64 {
    error_at_effective_sinr_db(control_effective_sinr_db(sinr_lin))
}

/// The control region's effective SINR, dB: the QPSK MIESM mean over every RB of the per-RB
/// linear SINR, read back through the QPSK MIB curve (-inf for an empty slice: no control).
/// Every error rate of this module is a function of it, so a caller keeps it per row.
pub fn control_effective_sinr_db(sinr_lin: &[f64]) -> f64 {
    control_effective_sinr_at_level_db(sinr_lin, REFERENCE_AGGREGATION_LEVEL)
}

/// [`control_effective_sinr_db`] for a DCI on `level` CCEs, on the reference level's axis: each
/// RB's SINR less the level's penalty before the MIESM. The QPSK MIB saturates at the top of its
/// table (~5 dB), so the penalty taken after it would read a clean 15 dB row as -4 dB at level 1.
/// Its error probability is [`pcfich_pdcch_error_rate_flat`] of the value.
pub fn control_effective_sinr_at_level_db(sinr_lin: &[f64], level: u8) -> f64 {
    if sinr_lin.is_empty() {
        return f64::NEG_INFINITY;
    }
    let gain_lin = f64::from(level) / f64::from(REFERENCE_AGGREGATION_LEVEL);
    let mib = mean_mi_all(Modulation::Qpsk, sinr_lin, gain_lin);
    linear_to_db(curve(Modulation::Qpsk).sinr_linear_for_mib(mib))
}

/// [`pcfich_pdcch_error_rate`] for one control-region SINR (a flat channel: the effective SINR
/// is the SINR itself).
pub fn pcfich_pdcch_error_rate_flat(sinr_db: f64) -> f64 {
    error_at_effective_sinr_db(sinr_db)
}

/// The aggregation level R4-081920's curve is read as: 8 CCEs, the level of the PDCCH
/// demodulation tests its results fed (TS 36.101 §8.4.2). A DCI on L CCEs has L/8 of the coded
/// bits, so L/8 of the energy per information bit: its curve is the reference shifted by
/// 10 log10(8/L) dB (3 dB per halving, the repetition-coding gain of a low-rate code).
pub const REFERENCE_AGGREGATION_LEVEL: u8 = 8;

/// 10 log10(8 / L) for L = 1, 2, 4, 8: the dB a DCI on L CCEs loses against the reference level.
const LEVEL_PENALTY_DB: [(u8, f64); 4] =
    [(1, 9.030_899_869_919_435), (2, 6.020_599_913_279_624), (4, 3.010_299_956_639_812), (8, 0.0)];

/// The dB a DCI on `level` CCEs loses against the reference level (0 at 8, 9.03 at 1).
fn level_penalty_db(level: u8) -> f64 {
    match LEVEL_PENALTY_DB.iter().find(|(l, _)| *l == level) {
        Some(&(_, db)) => db,
        None => 10.0 * (f64::from(REFERENCE_AGGREGATION_LEVEL) / f64::from(level)).log10(),
    }
}

/// PCFICH+PDCCH error probability of a DCI on `level` CCEs (1, 2, 4 or 8) over a flat control
/// region at `sinr_db` (a faded row: [`control_effective_sinr_at_level_db`]): the reference
/// curve less the level's penalty.
pub fn pdcch_error_rate_flat_at_level(sinr_db: f64, level: u8) -> f64 {
    error_at_effective_sinr_db(sinr_db - level_penalty_db(level))
}

/// OFDM symbols per 1 ms subframe with normal cyclic prefix (TS 36.211 §6.2.3, Table 6.2.3-1:
/// 7 per slot, 2 slots).
pub const SYMBOLS_PER_SUBFRAME: u8 = 14;
/// Subcarriers per resource block (TS 36.211 Table 6.2.3-1, Δf = 15 kHz).
pub const SUBCARRIERS_PER_RB: u32 = 12;
/// Cell-specific reference signal REs of antenna port 0 per RB pair outside the control region
/// (TS 36.211 §6.10.1.2: port 0 uses symbols 0 and 4 of each slot, 2 REs per RB each; symbols
/// 4, 7 and 11 of the subframe lie after any 1-4 symbol control region).
pub const CRS_RES_IN_DATA_REGION_1_PORT: u32 = 6;
/// Bandwidths up to this many RBs use 2-4 control symbols, wider ones 1-3 (TS 36.211 Table 6.7-1).
pub const NARROW_BAND_MAX_RBS: u32 = 10;

/// The downlink control region: the first 1-3 OFDM symbols of the subframe (2-4 for <= 10 RBs),
/// signalled by the PCFICH's CFI (TS 36.211 §6.7, Table 6.7-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlRegion {
    symbols: u8,
}

impl ControlRegion {
    /// ns-3 LENA's fixed control region: 3 symbols (`DL_CTRL_DURATION` in `lte-spectrum-phy.cc`).
    pub const NS3: ControlRegion = ControlRegion { symbols: 3 };

    /// A control region of `symbols` OFDM symbols in a band of `n_rb` RBs, or `None` if
    /// TS 36.211 Table 6.7-1 does not allow that size (1-3 symbols above 10 RBs, 2-4 up to 10).
    pub fn new(symbols: u8, n_rb: u32) -> Option<ControlRegion> {
        let allowed = if n_rb > NARROW_BAND_MAX_RBS { 1..=3 } else { 2..=4 };
        allowed.contains(&symbols).then_some(ControlRegion { symbols })
    }

    pub fn symbols(self) -> u8 {
        self.symbols
    }

    /// Resource elements per RB pair left to the PDSCH: 12 x (14 - control symbols) minus the
    /// antenna-port-0 reference signals (normal CP, one CRS port; PBCH and synchronisation
    /// signals, which occupy the 6 centre RBs in some subframes, are not counted).
    pub fn data_res_per_rb(self) -> u32 {
        SUBCARRIERS_PER_RB * u32::from(SYMBOLS_PER_SUBFRAME - self.symbols) - CRS_RES_IN_DATA_REGION_1_PORT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::phy::mi::lin_row;

    // ns-3 lte-testing.rst "Physical Error Model", PCFICH-PDCCH cases: SINR -2, -4, -6, -7 dB
    // give BLER 0.007, 0.045, 0.206, 0.343 (these are the R4-081920 curve's values at those points).
    #[test]
    fn ns3_control_test_vectors() {
        for (db, want) in [(-2.0, 0.00673821), (-4.0, 0.0454971), (-6.0, 0.206048), (-7.0, 0.343104)] {
            let got = pcfich_pdcch_error_rate_flat(db);
            assert!((got - want).abs() < 1e-9, "{db} dB: {got}");
        }
    }

    /// 8 CCEs is the curve itself; 4 CCEs need 3.01 dB more for the same error, 1 CCE 9.03 dB.
    #[test]
    fn lower_aggregation_levels_need_more_sinr() {
        for db in [-6.0, -4.0, -2.0] {
            let reference = pcfich_pdcch_error_rate_flat(db);
            assert_eq!(pdcch_error_rate_flat_at_level(db, 8), reference);
            assert!((pdcch_error_rate_flat_at_level(db + 10.0 * 2f64.log10(), 4) - reference).abs() < 1e-12);
            assert!((pdcch_error_rate_flat_at_level(db + 10.0 * 8f64.log10(), 1) - reference).abs() < 1e-12);
        }
        for db in [2.0, 4.0, 6.0] {
            assert!(pdcch_error_rate_flat_at_level(db, 1) > pdcch_error_rate_flat_at_level(db, 2), "{db} dB");
        }
        let row = lin_row(&[-3.0; 50]);
        let esinr = control_effective_sinr_db(&row);
        assert!((pdcch_error_rate_flat_at_level(esinr, 8) - pcfich_pdcch_error_rate(&row)).abs() < 1e-12);
    }

    /// A row's level penalty is taken per RB, before the QPSK MIB saturates: a clean 15 dB row
    /// loses no DCI on 1 CCE (the penalty after the MIESM, 5.05 dB - 9.03 dB, read it as 4%).
    #[test]
    fn a_rows_level_penalty_is_taken_before_the_mib_saturates() {
        let clean = lin_row(&[15.0; 50]);
        let saturated_db = control_effective_sinr_db(&clean);
        assert!(saturated_db < 6.0, "the QPSK MIB's table ends near 5 dB: {saturated_db}");
        assert!(pdcch_error_rate_flat_at_level(saturated_db, 1) > 0.03);
        assert_eq!(pcfich_pdcch_error_rate_flat(control_effective_sinr_at_level_db(&clean, 1)), 0.0);
        // Below saturation a flat row at a level is the flat curve at that level (within the
        // MIB table's interpolation).
        for (db, level) in [(4.0, 1), (-1.0, 2), (-3.0, 4), (-5.0, 8)] {
            let row = lin_row(&[db; 50]);
            let want = pdcch_error_rate_flat_at_level(db, level);
            let got = pcfich_pdcch_error_rate_flat(control_effective_sinr_at_level_db(&row, level));
            assert!((got - want).abs() < 1e-3 * want.max(1e-3), "{db} dB at {level}: {got} vs {want}");
        }
    }

    #[test]
    fn the_level_penalties_are_ten_log10_of_eight_over_l() {
        for (l, db) in LEVEL_PENALTY_DB {
            assert!((db - 10.0 * (8.0 / f64::from(l)).log10()).abs() < 1e-12, "L = {l}");
        }
    }

    #[test]
    fn curve_ends_are_ns3s() {
        assert_eq!(pcfich_pdcch_error_rate_flat(-0.9), 0.0);
        assert!((pcfich_pdcch_error_rate_flat(-1.0) - 0.0020727).abs() < 1e-12);
        assert!((pcfich_pdcch_error_rate_flat(-20.0) - 0.922602).abs() < 1e-12);
        // Halfway between -10 (0.922602) and -9.8 (0.871559).
        let mid = pcfich_pdcch_error_rate_flat(-9.9);
        assert!((mid - (0.922602 + 0.871559) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn error_falls_as_sinr_rises() {
        let mut prev = 1.0;
        let mut db = -15.0;
        while db < 5.0 {
            let e = pcfich_pdcch_error_rate(&lin_row(&[db; 50]));
            assert!(e <= prev + 1e-12, "{db} dB");
            prev = e;
            db += 0.05;
        }
    }

    #[test]
    fn flat_per_rb_input_matches_the_single_value() {
        for db in [-9.0, -6.3, -4.0, -2.5] {
            let per_rb = pcfich_pdcch_error_rate(&lin_row(&[db; 25]));
            assert!((per_rb - pcfich_pdcch_error_rate_flat(db)).abs() < 2e-3, "{db} dB");
        }
    }

    #[test]
    fn a_faded_band_is_worse_than_its_mean_sinr_says() {
        // MIESM: MI is concave in linear SINR, so by Jensen the effective SINR of a band with
        // half its RBs at -12 dB and half at 0 dB lies below the linear mean
        // (10^-1.2 + 1) / 2 = 0.5315 = -2.745 dB, and the error is higher than there.
        let mut sinr = [0.0; 50];
        for (i, s) in sinr.iter_mut().enumerate() {
            *s = if i % 2 == 0 { -12.0 } else { 0.0 };
        }
        let e = pcfich_pdcch_error_rate(&lin_row(&sinr));
        assert!(e > pcfich_pdcch_error_rate_flat(-2.745), "{e}");
    }

    #[test]
    fn control_region_sizes_follow_table_6_7_1() {
        assert!(ControlRegion::new(1, 100).is_some() && ControlRegion::new(3, 100).is_some());
        assert!(ControlRegion::new(4, 100).is_none() && ControlRegion::new(0, 100).is_none());
        assert!(ControlRegion::new(1, 6).is_none() && ControlRegion::new(4, 6).is_some());
        // 12 x (14 - 3) - 6 = 126; 12 x 13 - 6 = 150.
        assert_eq!(ControlRegion::NS3.data_res_per_rb(), 126);
        assert_eq!(ControlRegion::new(1, 50).unwrap().data_res_per_rb(), 150);
    }
}
