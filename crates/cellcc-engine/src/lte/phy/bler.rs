//! Transport block error probability with MIESM and HARQ incremental redundancy
//! (ns-3 LENA `lte-mi-error-model.cc` `GetTbDecodificationStats`, `MappingMiBler`;
//! lte-design.rst "MIESM", "HARQ"; Mezzavilla et al., MSWiM 2012).
//!
//! ```text
//!  per-RB SINR ─► MIB per RB (mi.rs) ─► mean over the TB's RBs = MIB_tx
//!                                           │   HARQ: MIB_eff = Σ MIB_i·C_i / Σ C_i, R_eff = X / Σ C_i
//!                                           ▼
//!  TBS ─► code blocks (segmentation.rs) ─► CB BLER = Q((MIB_eff - b) / c) for the curve (ECR, K)
//!                                           ▼
//!                        TB BLER = 1 - (1 - BLER(K+))^C+ · (1 - BLER(K-))^C-
//! ```
//! The curves are the data file `data/miesm_bler_curves.txt`: one Gaussian-CDF curve
//! BLER = ½·erfc((MIB - b) / (√2·c)) (IEEE 802.16m EMD eq. 55) per effective code rate (ECR)
//! and CB size 40..6144 bits. A CB uses the curve of the largest tabulated size <= K, or the next
//! larger size that has a curve (ns-3's rule).
//!
//! HARQ (lte-design.rst "HARQ", after the 802.16m EMD): transmission i brings C_i = TBS/ECR coded
//! bits with mean MIB M_i; the decoder sees MIB_eff = Σ M_i·C_i / Σ C_i at the effective rate
//! R_eff = X / Σ C_i (X = the first TB's size) and uses the curve of the same modulation with
//! the largest ECR <= R_eff. [`HarqHistory`] is that sum, small and `Copy`.
//!
//! What differs from ns-3:
//! - Segmentation includes the 24-bit TB CRC (TS 36.212 §5.1.1), see `segmentation.rs`.
//! - ns-3 sums the coded bits in a `uint16_t`, which wraps for TBs above ~60 kbit (MCS 28 on
//!   100 PRBs); we sum in `f64`. ns-3 stores a past transmission's coded bits as whole bytes;
//!   we keep them exact.
//! - ns-3 searches the retransmission curve starting from MCS-table indices (9, 16, 28) instead
//!   of the curve-table indices (12, 22, 37), so a 16QAM/64QAM retransmission can land on a
//!   QPSK/16QAM curve; we search only the TB's own modulation, as lte-design.rst describes.
//! - The error model takes the modulation from the MCS by TS 36.213 Table 7.1.7.1-1 in both
//!   directions (as ns-3 does; Table 8.6.1-1 would give QPSK for uplink MCS 10).

use std::f64::consts::SQRT_2;
use std::sync::LazyLock;

use super::amc::{mcs_info, Modulation, MAX_MCS};
use super::data;
use super::mi::effective_mi;
use super::segmentation::{segment_tb, CodeBlocks};
use crate::lte::sap::{LinkDir, RbMask, TbAssignment};

/// CB sizes (bits) that have BLER curves (ns-3 `cbMiSizeTable`).
pub const CURVE_CB_SIZES: [u32; 9] = [40, 104, 160, 256, 512, 1024, 2560, 4032, 6144];
/// Number of ECR curves (ns-3 `BlerCurvesEcrMap`: 13 QPSK, 10 16QAM, 15 64QAM).
pub const N_CURVES: usize = 38;
/// Curve of each MCS's first transmission (ns-3 `McsEcrBlerTableMapping`).
const MCS_CURVE: [u8; MAX_MCS as usize + 1] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17, 18, 19, 20, 21, 22, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37];
/// Past transmissions a HARQ process remembers (ns-3 `LteHarqPhy::UpdateDlHarqProcessStatus`:
/// "size() == 3 // MAX HARQ RETX": later ones are decoded against these three).
pub const HARQ_MAX_STORED: u8 = 3;

/// One MIESM BLER curve: its ECR and the (b, c) Gaussian parameters per CB size, with ns-3's
/// "no curve for this size" entries already replaced by the next larger size's.
#[derive(Clone, Copy, Debug)]
pub struct EcrCurve {
    pub modulation: Modulation,
    /// Effective code rate of the curve.
    pub ecr: f64,
    /// Mean (MIB at 50 % BLER) per CB size of [`CURVE_CB_SIZES`].
    pub b: [f64; 9],
    /// Standard deviation (MIB) per CB size.
    pub c: [f64; 9],
}

/// Identifies an [`EcrCurve`] (0..38, the row of `miesm_bler_curves.txt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CurveId(pub u8);

const CURVES_FILE: &str = "miesm_bler_curves.txt";
static CURVES_SRC: &str = include_str!("data/miesm_bler_curves.txt");
static CURVES: LazyLock<[EcrCurve; N_CURVES]> = LazyLock::new(parse_curves);

fn parse_modulation(line: usize, name: &str) -> Modulation {
    match name {
        "QPSK" => Modulation::Qpsk,
        "16QAM" => Modulation::Qam16,
        "64QAM" => Modulation::Qam64,
        _ => panic!("{CURVES_FILE}:{line}: unknown modulation `{name}`"),
    }
}

/// ns-3 `MappingMiBler`: a missing (negative) parameter takes the next larger CB size's.
fn fill_missing(mut v: [f64; 9], line: usize) -> [f64; 9] {
    for i in (0..9).rev() {
        if v[i] < 0.0 {
            assert!(i < 8, "{CURVES_FILE}:{line}: no curve for 6144-bit blocks");
            v[i] = v[i + 1];
        }
    }
    v
}

fn parse_curves() -> [EcrCurve; N_CURVES] {
    let mut out = Vec::with_capacity(N_CURVES);
    for (line, row) in data::rows(CURVES_SRC) {
        let f: Vec<&str> = data::fields(row).collect();
        assert_eq!(f.len(), 21, "{CURVES_FILE}:{line}: id, modulation, ECR, 9 b, 9 c");
        assert_eq!(f[0].parse::<usize>().ok(), Some(out.len()), "{CURVES_FILE}:{line}: ids in order");
        let nums: Vec<f64> = data::numbers(CURVES_FILE, line, row).skip(2).collect();
        let ecr = nums[0];
        let b = fill_missing(nums[1..10].try_into().expect("9 values"), line);
        let c = fill_missing(nums[10..19].try_into().expect("9 values"), line);
        out.push(EcrCurve { modulation: parse_modulation(line, f[1]), ecr, b, c });
    }
    out.try_into().unwrap_or_else(|v: Vec<EcrCurve>| panic!("{CURVES_FILE}: {} curves, not 38", v.len()))
}

/// The curve behind `id`.
pub fn curve(id: CurveId) -> &'static EcrCurve {
    &CURVES[id.0 as usize]
}

/// The curve a first transmission with `mcs` uses (ns-3 `McsEcrBlerTableMapping`).
pub fn first_tx_curve(mcs: u8) -> CurveId {
    CurveId(MCS_CURVE[mcs as usize])
}

/// The modulation the error model uses for `mcs` (TS 36.213 Table 7.1.7.1-1, as ns-3).
pub fn error_model_modulation(mcs: u8) -> Modulation {
    mcs_info(LinkDir::Downlink, mcs).modulation
}

/// Effective code rate of `mcs`'s first transmission (ns-3 `McsEcrTable` / `EffectiveCodingRate`).
pub fn mcs_ecr(mcs: u8) -> f64 {
    curve(first_tx_curve(mcs)).ecr
}

/// Index into [`CURVE_CB_SIZES`] for a code block of `k_bits`: the largest size <= K (ns-3).
fn cb_size_index(k_bits: u32) -> usize {
    CURVE_CB_SIZES.iter().rposition(|&s| s <= k_bits).unwrap_or(0)
}

/// BLER of one code block of `k_bits` at effective MIB `mib` on curve `id`:
/// ½·erfc((MIB - b) / (√2·c)) (ns-3 `MappingMiBler`, IEEE 802.16m EMD eq. 55).
pub fn cb_bler(mib: f64, id: CurveId, k_bits: u32) -> f64 {
    let curve = curve(id);
    let i = cb_size_index(k_bits);
    0.5 * libm::erfc((mib - curve.b[i]) / (SQRT_2 * curve.c[i]))
}

/// BLER of a TB cut into `cbs` at effective MIB `mib` on curve `id`: the TB is lost if any of
/// its code blocks is (TB BLER = 1 - Π(1 - CB BLER)).
pub fn tb_bler_from_mib(mib: f64, id: CurveId, cbs: &CodeBlocks) -> f64 {
    let mut ok = (1.0 - cb_bler(mib, id, cbs.k_plus)).powi(cbs.c_plus as i32);
    if cbs.c_minus > 0 {
        ok *= (1.0 - cb_bler(mib, id, cbs.k_minus)).powi(cbs.c_minus as i32);
    }
    1.0 - ok
}

/// BLER of a first transmission of `tbs_bits` with `mcs` on the RBs `rbs`
/// (`sinr_db[rb]` = RB `rb`'s SINR in dB).
pub fn tb_bler(mcs: u8, tbs_bits: u32, rbs: RbMask, sinr_db: &[f64]) -> f64 {
    let mib = effective_mi(error_model_modulation(mcs), rbs, sinr_db);
    tb_bler_from_mib(mib, first_tx_curve(mcs), &segment_tb(tbs_bits))
}

/// What one HARQ process remembers of the transmissions of its TB (lte-design.rst "HARQ"):
/// X (info bits of the first TB), Σ C_i (coded bits) and Σ M_i·C_i. The MAC keeps one per
/// process, replaces it with the returned one after a NACK, and drops it after an ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HarqHistory {
    info_bits: u32,
    code_bits: f64,
    mib_code_bits: f64,
    stored: u8,
}

impl HarqHistory {
    /// No transmission yet.
    pub const EMPTY: HarqHistory = HarqHistory { info_bits: 0, code_bits: 0.0, mib_code_bits: 0.0, stored: 0 };

    /// Transmissions remembered (at most [`HARQ_MAX_STORED`]).
    pub fn transmissions(&self) -> u8 {
        self.stored
    }

    pub fn is_empty(&self) -> bool {
        self.stored == 0
    }

    /// R_eff after adding `code_bits` more coded bits.
    fn effective_rate_with(&self, code_bits: f64) -> f64 {
        f64::from(self.info_bits) / (self.code_bits + code_bits)
    }

    /// This history plus one transmission (unchanged once [`HARQ_MAX_STORED`] are kept, as ns-3).
    fn with(self, info_bits: u32, code_bits: f64, mib: f64) -> HarqHistory {
        if self.stored >= HARQ_MAX_STORED {
            return self;
        }
        HarqHistory {
            info_bits: if self.stored == 0 { info_bits } else { self.info_bits },
            code_bits: self.code_bits + code_bits,
            mib_code_bits: self.mib_code_bits + mib * code_bits,
            stored: self.stored + 1,
        }
    }
}

/// The curve of `modulation` with the largest ECR <= `rate`, or its lowest if none
/// (lte-design.rst "HARQ": "the ECR of the same modulation with closest lower rate").
pub fn retx_curve(modulation: Modulation, rate: f64) -> CurveId {
    // A modulation's curves are listed in increasing ECR (tested), so the last one at or
    // below `rate` is the closest lower; the first one stands in when all are above.
    let mut chosen = None;
    for (i, c) in CURVES.iter().enumerate().filter(|(_, c)| c.modulation == modulation) {
        if chosen.is_none() || c.ecr <= rate {
            chosen = Some(i);
        }
    }
    CurveId(chosen.expect("every modulation has curves") as u8)
}

/// Result of decoding one transmission of a TB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TbDecodeStats {
    /// Probability that the TB is lost; the caller draws u ~ U(0,1) and loses it if u < bler
    /// (ns-3: `corrupt = !(u > tbler)`).
    pub bler: f64,
    /// Mean MIB of this transmission alone.
    pub mib: f64,
    /// The process's history with this transmission added: keep it after a NACK.
    pub history: HarqHistory,
}

/// Decode one transmission of `tbs_bits` with `mcs` on `rbs`, combining it with the earlier
/// transmissions in `history` (pass [`HarqHistory::EMPTY`] for a first transmission).
pub fn tb_bler_harq(history: HarqHistory, mcs: u8, tbs_bits: u32, rbs: RbMask, sinr_db: &[f64]) -> TbDecodeStats {
    let modulation = error_model_modulation(mcs);
    let mib = effective_mi(modulation, rbs, sinr_db);
    let code_bits = f64::from(tbs_bits) / mcs_ecr(mcs);
    let (mib_eff, id) = if history.is_empty() {
        (mib, first_tx_curve(mcs))
    } else {
        let mib_eff = (history.mib_code_bits + mib * code_bits) / (history.code_bits + code_bits);
        (mib_eff, retx_curve(modulation, history.effective_rate_with(code_bits)))
    };
    TbDecodeStats {
        bler: tb_bler_from_mib(mib_eff, id, &segment_tb(tbs_bits)),
        mib,
        history: history.with(tbs_bits, code_bits, mib),
    }
}

/// [`tb_bler_harq`] for a scheduled TB: a first transmission (`tb.retx == 0`) ignores `history`.
pub fn decode_tb(tb: &TbAssignment, sinr_db: &[f64], history: HarqHistory) -> TbDecodeStats {
    let history = if tb.retx == 0 { HarqHistory::EMPTY } else { history };
    tb_bler_harq(history, tb.mcs, tb.tbs_bits, tb.rbs, sinr_db)
}
