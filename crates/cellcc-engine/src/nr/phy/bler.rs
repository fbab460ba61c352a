//! Transport block error probability of LDPC-coded NR transport blocks: EESM effective SINR
//! over the allocated PRBs, HARQ incremental redundancy, and 5G-LENA's link-level SINR-BLER
//! curves per base graph, MCS and code block size (5G-LENA `NrEesmErrorModel`, `NrEesmIr`;
//! Lagen et al., "New Radio Physical Layer Abstraction for System-Level Simulations of 5G
//! Networks", IEEE ICC 2020).
//!
//! ```text
//!  per-PRB SINR ─► SINR_eff = -beta_m ln( (a + sum_n exp(-SINR_n / beta_m)) / b )     (EESM; a, b: earlier copies)
//!  TBS ─► base graph, C code blocks of K bits (ldpc.rs) ──┐
//!  HARQ IR: R_eff = info bits / sum of coded bits ─► m_eq = the MCS of the same modulation whose rate is the
//!                                                       lowest above R_eff (the first transmission: m itself)
//!  HARQ CC: SINR_eff = the sum of the copies' effective SINRs, on m's own curve (5G-LENA NrEesmCc's recursion)
//!  a retransmission decodes at the better of the two (IR never does worse than repeating)
//!  CB BLER = curve(bg, m_eq, the largest tabulated CB size <= K)(SINR_eff dB); TB BLER = 1 - (1 - CB BLER)^C
//! ```
//! The curves are the data files `data/nr_eesm_table{1,2}.txt` (MCS tables 1 and 2); MCS table 3
//! (low spectral efficiency) reads table 1's curve of the entry with the same modulation and rate,
//! and its six lowest rates (30..99/1024, below table 1's lowest) table 1 MCS 0's curve shifted
//! by 10 log10(R / R_0) dB: at these rates the SINR a code needs is proportional to its rate
//! (Shannon, log2(1 + x) ~ x / ln 2).
//!
//! Where this differs from 5G-LENA:
//! - The curves are read by linear interpolation between their points (5G-LENA: the BLER of the
//!   point at or below, a staircase), so the BLER is continuous in the SINR.
//! - A (base graph, MCS) 5G-LENA did not simulate (its `{0U, {0.0}, {0.0}}` placeholder, which
//!   5G-LENA reads as BLER 0 above 0 dB) takes the other base graph's curve of the same MCS.
//! - The TB CRC is 16 bits for TBs of at most 3824 bits (TS 38.212 §7.2.1; 5G-LENA: always 24).
//! - A retransmission's BLER is the lower of 5G-LENA's IR (`NrEesmIr`) and CC (`NrEesmCc`) models.
//!   Its IR model keeps the SINR of one copy and gains only by reading a lower-rate curve of the
//!   same modulation; a TB sent at its modulation's lowest rate (table 2's MCS 11, 64QAM 466/1024)
//!   has none, so its retransmissions would gain nothing and fail forever at a SINR where the first
//!   copy failed. Incremental redundancy sends new parity bits, which a decoder can always treat as
//!   at least a repetition: its BLER is at most chase combining's, which sums the copies' SINRs.

use std::sync::LazyLock;

use super::ldpc::{segment, BaseGraph};
use super::mcs::{McsTable, MCS_TABLE_1};

/// One code-block BLER curve: SINR points (dB, increasing) and the BLER at each.
#[derive(Clone, Debug, PartialEq)]
struct Curve {
    sinr_db: Vec<f64>,
    bler: Vec<f64>,
}

impl Curve {
    /// BLER at `sinr_db`: 1 below the first point, 0 above the last, linear in between.
    fn at(&self, sinr_db: f64) -> f64 {
        let s = &self.sinr_db;
        if sinr_db < s[0] {
            return 1.0;
        }
        if sinr_db >= s[s.len() - 1] {
            return *self.bler.last().expect("non-empty curve");
        }
        let i = s.partition_point(|&x| x <= sinr_db) - 1;
        let w = (sinr_db - s[i]) / (s[i + 1] - s[i]);
        self.bler[i] + w * (self.bler[i + 1] - self.bler[i])
    }
}

/// The curves of one MCS table: per base graph and MCS, (CB size, curve) by increasing size.
struct CurveSet {
    beta: Vec<f64>,
    /// `[bg][mcs]`.
    curves: [Vec<Vec<(u32, Curve)>>; 2],
}

const TABLE1_FILE: &str = "nr_eesm_table1.txt";
const TABLE2_FILE: &str = "nr_eesm_table2.txt";
static TABLE1_SRC: &str = include_str!("data/nr_eesm_table1.txt");
static TABLE2_SRC: &str = include_str!("data/nr_eesm_table2.txt");
static TABLE1: LazyLock<CurveSet> = LazyLock::new(|| parse(TABLE1_FILE, TABLE1_SRC, MCS_TABLE_1.len()));
static TABLE2: LazyLock<CurveSet> = LazyLock::new(|| parse(TABLE2_FILE, TABLE2_SRC, McsTable::Qam256.entries().len()));

fn number(file: &str, line: usize, x: &str) -> f64 {
    x.parse().unwrap_or_else(|_| panic!("{file}:{line}: `{x}` is not a number"))
}

/// Parse a curve file (a build defect panics with the file and line; unit tests load both).
fn parse(file: &str, src: &str, n_mcs: usize) -> CurveSet {
    let mut set = CurveSet { beta: Vec::new(), curves: [vec![Vec::new(); n_mcs], vec![Vec::new(); n_mcs]] };
    for (i, line) in src.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (head, body) = line.split_once(':').unwrap_or_else(|| panic!("{file}:{i}: no `:`"));
        if head == "beta" {
            set.beta = body.split_whitespace().map(|x| number(file, i, x)).collect();
            continue;
        }
        let h: Vec<usize> = head.split_whitespace().map(|x| number(file, i, x) as usize).collect();
        let (bg, mcs, cbs) = (h[0], h[1], h[2] as u32);
        let (s, b) = body.split_once('|').unwrap_or_else(|| panic!("{file}:{i}: no `|`"));
        let sinr_db: Vec<f64> = s.split_whitespace().map(|x| number(file, i, x)).collect();
        let bler: Vec<f64> = b.split_whitespace().map(|x| number(file, i, x)).collect();
        assert!(sinr_db.len() == bler.len() && !bler.is_empty(), "{file}:{i}: SINR and BLER columns differ");
        assert!((1..=2).contains(&bg) && mcs < n_mcs, "{file}:{i}: base graph {bg}, MCS {mcs}");
        if cbs > 0 {
            set.curves[bg - 1][mcs].push((cbs, Curve { sinr_db, bler }));
        }
    }
    assert_eq!(set.beta.len(), n_mcs, "{file}: one beta per MCS");
    for bg in &mut set.curves {
        for c in bg.iter_mut() {
            c.sort_by_key(|(cbs, _)| *cbs);
        }
    }
    set
}

/// Where an MCS of `table` reads its curve: the curve set, the MCS in it, and a SINR shift (dB)
/// added to the curve's SINR points.
fn curve_source(table: McsTable, mcs: u8) -> (&'static CurveSet, usize, f64) {
    match table {
        McsTable::Qam64 => (&TABLE1, usize::from(mcs), 0.0),
        McsTable::Qam256 => (&TABLE2, usize::from(mcs), 0.0),
        McsTable::Qam64LowSe => {
            let e = table.entry(mcs);
            match MCS_TABLE_1.iter().position(|t| *t == e) {
                Some(m) => (&TABLE1, m, 0.0),
                // Below table 1's lowest rate: its MCS 0 curve, moved by the rate ratio.
                None => (&TABLE1, 0, 10.0 * (e.rate_x1024 / MCS_TABLE_1[0].rate_x1024).log10()),
            }
        }
    }
}

/// The EESM beta of `mcs` (5G-LENA `BetaTable1/2`; table 3 as its curve's source MCS).
pub fn beta(table: McsTable, mcs: u8) -> f64 {
    let (set, m, _) = curve_source(table, mcs);
    set.beta[m]
}

/// Code-block BLER of `mcs` on a block of `cb_bits` (K) with base graph `bg` at effective SINR `sinr_db`.
pub fn cb_bler(table: McsTable, bg: BaseGraph, mcs: u8, cb_bits: u32, sinr_db: f64) -> f64 {
    let (set, m, shift_db) = curve_source(table, mcs);
    let g = match bg {
        BaseGraph::Bg1 => 0,
        BaseGraph::Bg2 => 1,
    };
    let curves = if set.curves[g][m].is_empty() { &set.curves[1 - g][m] } else { &set.curves[g][m] };
    assert!(!curves.is_empty(), "MCS {mcs} of {table:?} has no curve in either base graph");
    // The largest tabulated size not above K (5G-LENA: `upper_bound` then one back), else the smallest.
    let i = curves.partition_point(|(cbs, _)| *cbs <= cb_bits).saturating_sub(1);
    curves[i].1.at(sinr_db - shift_db)
}

/// What a HARQ process remembers of the copies sent so far (IR combining), `Copy`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HarqHistory {
    /// sum over every PRB of every earlier copy of exp(-SINR / beta).
    exp_sum: f64,
    /// PRBs summed in `exp_sum`.
    prbs: f64,
    /// Coded bits of the earlier copies (TBS / R each).
    coded_bits: f64,
    /// Chase combining: the sum of the earlier copies' effective SINRs, linear.
    cc_sinr_lin: f64,
}

impl HarqHistory {
    pub const EMPTY: HarqHistory = HarqHistory { exp_sum: 0.0, prbs: 0.0, coded_bits: 0.0, cc_sinr_lin: 0.0 };
}

/// A transport block's decoding: its BLER, the effective SINR it was read at, and the history
/// with this copy added (for the next retransmission if it fails).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TbDecode {
    pub bler: f64,
    pub sinr_eff_db: f64,
    pub history: HarqHistory,
}

/// The EESM sum `sum_n exp(-SINR_n / beta)` over `prbs` of the linear row `sinr_lin`, and the PRB count.
pub fn eesm_sum(sinr_lin: &[f64], prbs: impl Iterator<Item = usize>, beta: f64) -> (f64, f64) {
    let inv = -1.0 / beta;
    let (mut sum, mut n) = (0.0, 0.0);
    for k in prbs {
        sum += (sinr_lin[k] * inv).exp();
        n += 1.0;
    }
    (sum, n)
}

/// SINR_eff = -beta ln(sum / n), linear (5G-LENA `SinrEff`, floored at 0 there: here at 1e-30).
pub fn eesm_from_sum(sum: f64, n: f64, beta: f64) -> f64 {
    (-beta * (sum / n).ln()).max(1e-30)
}

/// Decode a TB of `tbs_bits` at `mcs` sent on `prbs` of the linear row `sinr_lin`, after the
/// copies in `history` (EMPTY for a first transmission).
pub fn decode(
    table: McsTable,
    mcs: u8,
    tbs_bits: u32,
    sinr_lin: &[f64],
    prbs: impl Iterator<Item = usize>,
    history: HarqHistory,
) -> TbDecode {
    let b = beta(table, mcs);
    let (sum, n) = eesm_sum(sinr_lin, prbs, b);
    let rate = table.entry(mcs).rate();
    let coded = f64::from(tbs_bits) / rate;
    let this_copy = eesm_from_sum(sum, n, b);
    let now = HarqHistory {
        exp_sum: history.exp_sum + sum,
        prbs: history.prbs + n,
        coded_bits: history.coded_bits + coded,
        cc_sinr_lin: history.cc_sinr_lin + this_copy,
    };
    if history.prbs == 0.0 {
        let sinr_eff_db = 10.0 * this_copy.log10();
        return TbDecode { bler: tb_bler(table, mcs, mcs, tbs_bits, sinr_eff_db), sinr_eff_db, history: now };
    }
    let ir_db = 10.0 * eesm_from_sum(now.exp_sum, now.prbs, b).log10();
    let ir = tb_bler(table, mcs, equivalent_mcs(table, mcs, f64::from(tbs_bits) / now.coded_bits), tbs_bits, ir_db);
    let cc_db = 10.0 * now.cc_sinr_lin.log10();
    let cc = tb_bler(table, mcs, mcs, tbs_bits, cc_db);
    let (bler, sinr_eff_db) = if cc < ir { (cc, cc_db) } else { (ir, ir_db) };
    TbDecode { bler, sinr_eff_db, history: now }
}

/// TB BLER of a TB of `tbs_bits` sent at `mcs`, read on `mcs_eq`'s curve at `sinr_db`.
pub fn tb_bler(table: McsTable, mcs: u8, mcs_eq: u8, tbs_bits: u32, sinr_db: f64) -> f64 {
    let seg = segment(tbs_bits, table.entry(mcs).rate());
    let cb = cb_bler(table, seg.base_graph, mcs_eq, seg.k, sinr_db);
    1.0 - (1.0 - cb).powi(seg.blocks as i32)
}

/// HARQ IR's equivalent MCS (5G-LENA `NrEesmIr::GetMcsEq`): of the MCSs up to `mcs` with its
/// modulation, the one with the lowest rate above the effective rate `r_eff` (its curve is the
/// nearest tabulated code at or above the combined rate: the conservative neighbour), else `mcs`.
pub fn equivalent_mcs(table: McsTable, mcs: u8, r_eff: f64) -> u8 {
    let qm = table.entry(mcs).qm;
    (0..=mcs).filter(|&m| table.entry(m).qm == qm && table.entry(m).rate() > r_eff).min().unwrap_or(mcs)
}

/// The flat SINR (dB) at which a TB of `tbs_bits` at `mcs` has BLER `target` on its first
/// transmission (bisection over [-20, 40] dB to 0.001 dB).
pub fn flat_sinr_threshold_db(table: McsTable, mcs: u8, tbs_bits: u32, target: f64) -> f64 {
    let (mut lo, mut hi) = (-20.0, 40.0);
    while hi - lo > 1e-3 {
        let mid = 0.5 * (lo + hi);
        if tb_bler(table, mcs, mcs, tbs_bits, mid) <= target {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_curve_files_load_with_a_beta_per_mcs() {
        assert_eq!(TABLE1.beta.len(), 29);
        assert_eq!(TABLE2.beta.len(), 28);
        // 5G-LENA's BetaTable1: MCS 0 1.6, MCS 28 34.28; BetaTable2 MCS 27 132.54.
        assert_eq!((beta(McsTable::Qam64, 0), beta(McsTable::Qam64, 28)), (1.6, 34.28));
        assert_eq!(beta(McsTable::Qam256, 27), 132.54);
        // Every MCS of every table has a curve in one base graph or the other.
        for t in [McsTable::Qam64, McsTable::Qam256, McsTable::Qam64LowSe] {
            for m in 0..=t.max_mcs() {
                assert!((0.0..=1.0).contains(&cb_bler(t, BaseGraph::Bg1, m, 8448, 10.0)));
            }
        }
    }

    /// A curve read at its own points gives its own BLERs: table 1, BG1, MCS 4, K = 3840
    /// (1.2475 dB -> 1, 1.73 dB -> 0.6107, 2.2 dB -> 0.0058); between them linearly; a K between
    /// two tabulated sizes reads the smaller (4000 -> 3840).
    #[test]
    fn curves_are_read_at_and_between_their_points() {
        let at = |db, k| cb_bler(McsTable::Qam64, BaseGraph::Bg1, 4, k, db);
        assert!((at(1.2475, 3840) - 1.0).abs() < 1e-12);
        assert!((at(1.73, 3840) - 0.6107143).abs() < 1e-6);
        assert!((at(2.2, 3840) - 0.0058).abs() < 1e-9);
        let mid = at(0.5 * (1.73 + 1.965), 3840);
        assert!((mid - 0.5 * (0.6107143 + 0.1336713)).abs() < 1e-6);
        assert_eq!(at(1.0, 3840), 1.0, "below the first point");
        assert_eq!(at(10.0, 3840), 0.0, "above the last point");
        assert_eq!(at(1.73, 4000), at(1.73, 3840));
    }

    /// BLER falls with SINR and rises with MCS; the 10 % thresholds climb with the MCS, from about
    /// -1 dB at MCS 0 (QPSK 120/1024) to about 21 dB at table 1's MCS 28 (64QAM 948/1024) and 25 dB at
    /// table 2's MCS 27 (256QAM 948/1024): 5G-LENA's link-level curves sit 3-5 dB from Shannon's bound.
    #[test]
    fn thresholds_climb_with_the_mcs() {
        for t in [McsTable::Qam64, McsTable::Qam256] {
            let thr: Vec<f64> = (0..=t.max_mcs()).map(|m| flat_sinr_threshold_db(t, m, 20_000, 0.1)).collect();
            for w in thr.windows(2) {
                assert!(w[1] > w[0] - 0.3, "{t:?}: {thr:?}");
            }
            assert!(thr[0] < 0.0 && thr[0] > -3.0, "{t:?} MCS 0 at {} dB", thr[0]);
            assert!(*thr.last().unwrap() > 19.0 && *thr.last().unwrap() < 30.0, "{t:?} top at {:?}", thr.last());
        }
        // Low-SE table: MCS 0 (R = 30/1024) sits 6 dB below table 1's MCS 0 (120/1024) on the same TB.
        let low = flat_sinr_threshold_db(McsTable::Qam64LowSe, 0, 2000, 0.1);
        let base = flat_sinr_threshold_db(McsTable::Qam64, 0, 2000, 0.1);
        assert!((base - low - 6.02).abs() < 0.01, "{low} vs {base}");
    }

    /// A flat row's EESM is the row's SINR, whatever beta; a faded row's lies below its mean.
    #[test]
    fn eesm_of_a_flat_row_is_its_sinr() {
        let row = [10.0; 50];
        let (s, n) = eesm_sum(&row, 0..50, 4.71);
        assert!((eesm_from_sum(s, n, 4.71) - 10.0).abs() < 1e-9);
        let faded: Vec<f64> = (0..50).map(|k| if k % 2 == 0 { 1.0 } else { 19.0 }).collect();
        let (s, n) = eesm_sum(&faded, 0..50, 4.71);
        let eff = eesm_from_sum(s, n, 4.71);
        assert!(eff < 10.0 && eff > 1.0, "{eff}");
    }

    /// IR: a retransmission halves the effective rate and reads a lower curve of the modulation;
    /// at a SINR where the first copy fails (BLER ~1), two copies decode (BLER < 0.1). A TB at its
    /// modulation's lowest rate (table 2's MCS 11) has no lower curve: chase combining's 3 dB decode it.
    #[test]
    fn a_retransmission_combines_into_a_lower_rate() {
        let t = McsTable::Qam64;
        // MCS 20 (64QAM 567): R_eff after 2 copies = 0.277, below every 64QAM rate: MCS 17 (438).
        assert_eq!(equivalent_mcs(t, 20, 0.277), 17);
        // MCS 8 (QPSK 602): R_eff 0.294 -> MCS 4 (308/1024 = 0.301, the lowest QPSK rate above it).
        assert_eq!(equivalent_mcs(t, 8, 0.294), 4);
        assert_eq!(equivalent_mcs(t, 8, 0.9), 8, "no lower rate above R_eff: the MCS itself");
        let tbs = 20_000;
        let thr = flat_sinr_threshold_db(t, 20, tbs, 0.1);
        let row = vec![10f64.powf((thr - 1.5) / 10.0); 100];
        let first = decode(t, 20, tbs, &row, 0..100, HarqHistory::EMPTY);
        assert!(first.bler > 0.9, "{}", first.bler);
        let second = decode(t, 20, tbs, &row, 0..100, first.history);
        assert!(second.bler < 0.1, "{}", second.bler);
        let t2 = McsTable::Qam256;
        let thr11 = flat_sinr_threshold_db(t2, 11, tbs, 0.1);
        let row = vec![10f64.powf((thr11 - 1.0) / 10.0); 100];
        let first = decode(t2, 11, tbs, &row, 0..100, HarqHistory::EMPTY);
        let second = decode(t2, 11, tbs, &row, 0..100, first.history);
        assert!(first.bler > 0.5 && second.bler < 1e-3, "{} then {}", first.bler, second.bler);
        assert!((second.sinr_eff_db - first.sinr_eff_db - 3.0103).abs() < 1e-3, "CC: twice the SINR");
    }
}
