//! PDCCH capacity: every transport block the eNB schedules needs a DCI (a downlink assignment or
//! an uplink grant; a non-adaptive synchronous uplink retransmission needs only the PHICH), and
//! DCIs share the control region's CCEs. A UE's DCI sits on L consecutive CCEs (its aggregation
//! level, chosen for its channel) at one of the few places its search space allows; when those
//! are taken the UE is blocked for that TTI. A cell with hundreds of UEs can therefore not serve
//! all of them every TTI.
//!
//! ```text
//!  control region (CFI symbols) ─► REGs - PCFICH - PHICH ─► N_CCE = ⌊N_REG / 9⌋   (TS 36.211 §6.8.1)
//!  UE: C-RNTI ─► Y_k = (A · Y_{k-1}) mod D per subframe k ─► candidates m = 0..M(L)-1:
//!      CCEs L·((Y_k + m) mod ⌊N_CCE / L⌋) + 0..L-1         (TS 36.213 §9.1.1)
//!  AL: the smallest L in {1, 2, 4, 8} whose PDCCH error at the SINR the UE's CQI stands for meets
//!      the target (phy::control_channel's curve, shifted per level)
//! ```
//! Choices where the standard leaves them to the eNB: the control region takes the largest CFI
//! (3 symbols above 10 RBs, 4 up to 10: TS 36.211 Table 6.7-1) whatever the load, so the CCE
//! budget is the most the band offers; the common search space (system information, paging,
//! random access) is left free of UE data DCIs and not otherwise counted; the aggregation level
//! follows srsRAN 4G's rule (the smallest level whose code rate the UE's CQI supports,
//! `srsenb` `get_aggr_level`), here with the engine's own PDCCH error curve at a 1 % target
//! (TS 36.101 §8.4's PDCCH requirement is 1 % missed detection).

use serde::{Deserialize, Serialize};

use crate::error::ScenarioError;
use crate::lte::phy::pdcch_error_rate_flat_at_level;
use crate::lte::sap::UeIndex;

/// PHICH resource N_g (TS 36.211 §6.9, MIB `phich-Resource`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PhichNg {
    #[serde(rename = "1/6")]
    OneSixth,
    #[serde(rename = "1/2")]
    Half,
    #[serde(rename = "1")]
    One,
    #[serde(rename = "2")]
    Two,
}

impl PhichNg {
    /// N_g as a fraction (numerator, denominator).
    fn ratio(self) -> (u32, u32) {
        match self {
            PhichNg::OneSixth => (1, 6),
            PhichNg::Half => (1, 2),
            PhichNg::One => (1, 1),
            PhichNg::Two => (2, 1),
        }
    }
}

/// A cell's PDCCH settings (its `pdcch` table).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PdcchConfig {
    /// Bound the DCIs per TTI by the control region's CCEs, each at the UE's aggregation level.
    /// Off (LENA): any number of DCIs, control errors from one curve for the band.
    pub capacity: bool,
    /// PHICH resource N_g (its REGs are not CCEs). srsRAN 4G's `phich_cnfg.resources` = "1/6".
    pub phich_ng: PhichNg,
    /// PDCCH error probability the aggregation level is chosen for, in (0, 0.5).
    pub target_bler: f64,
}

impl PdcchConfig {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if !(self.target_bler > 0.0 && self.target_bler < 0.5) {
            return Err(ScenarioError::new(
                format!("{path}.target_bler"),
                self.target_bler,
                "a probability in (0, 0.5)",
            ));
        }
        Ok(())
    }
}

/// REGs per RB in the first OFDM symbol: 12 REs less the 4 of the cell-specific reference signal
/// (antenna ports 0-1), in groups of 4 REs (TS 36.211 §6.2.4).
const REGS_PER_RB_FIRST_SYMBOL: u32 = 2;
/// REGs per RB in the other control symbols (no reference signal with 1-2 antenna ports).
const REGS_PER_RB_OTHER_SYMBOLS: u32 = 3;
/// The PCFICH's REGs (TS 36.211 §6.7.4).
const PCFICH_REGS: u32 = 4;
/// REGs per PHICH group, normal CP (TS 36.211 §6.9.3: 12 REs).
const REGS_PER_PHICH_GROUP: u32 = 3;
/// REGs per CCE (TS 36.211 §6.8.1).
const REGS_PER_CCE: u32 = 9;
/// Bandwidths of at most this many RBs have 2-4 control symbols, wider ones 1-3 (Table 6.7-1).
const NARROW_BAND_MAX_RBS: u32 = 10;

/// Resource elements per REG (TS 36.211 §6.2.4).
const RES_PER_REG: u32 = 4;
/// Subcarriers per RB, normal CP (TS 36.211 Table 6.2.3-1).
const SUBCARRIERS_PER_RB: u32 = 12;
/// Cell-specific reference signal REs per RB in the first OFDM symbol, antenna ports 0-1
/// (TS 36.211 §6.10.1.2: two per port).
const CRS_RES_PER_RB_FIRST_SYMBOL: u32 = 4;

/// OFDM symbols of the control region: the largest CFI (TS 36.211 Table 6.7-1).
fn control_symbols(n_rbs: u32) -> u32 {
    if n_rbs <= NARROW_BAND_MAX_RBS {
        4
    } else {
        3
    }
}

/// N_PHICH^group = ⌈N_g (N_RB / 8)⌉ (TS 36.211 §6.9).
fn phich_groups(n_rbs: u32, phich_ng: PhichNg) -> u32 {
    let (num, den) = phich_ng.ratio();
    (num * n_rbs).div_ceil(8 * den)
}

/// N_CCE of a band of `n_rbs` RBs at its largest control region (TS 36.211 §6.8.1, §6.7, §6.9;
/// normal CP, normal PHICH duration, 1-2 CRS ports): 87 at 20 MHz with N_g = 1/6.
pub fn cce_count(n_rbs: u32, phich_ng: PhichNg) -> u32 {
    let regs = n_rbs * (REGS_PER_RB_FIRST_SYMBOL + (control_symbols(n_rbs) - 1) * REGS_PER_RB_OTHER_SYMBOLS);
    (regs - PCFICH_REGS - phich_groups(n_rbs, phich_ng) * REGS_PER_PHICH_GROUP) / REGS_PER_CCE
}

/// The share of its control region's resource elements a cell sends on in a TTI in which
/// `cces_taken` CCEs carry DCIs: the reference signal, the PCFICH and the PHICH are sent every
/// subframe (TS 36.211 §6.10.1, §6.7, §6.9), a PDCCH only on its own CCEs; the CCEs no DCI
/// takes are `<NIL>` (§6.8.2) and carry no energy (srsRAN 4G `srslte_pdcch_encode` maps each DCI
/// to its CCEs' REGs and nothing else). 20 MHz, N_g = 1/6: 452 of 3,600 REs idle (12.6 %).
pub fn control_region_share(n_rbs: u32, phich_ng: PhichNg, cces_taken: u32) -> f64 {
    let always = n_rbs * CRS_RES_PER_RB_FIRST_SYMBOL
        + RES_PER_REG * (PCFICH_REGS + phich_groups(n_rbs, phich_ng) * REGS_PER_PHICH_GROUP);
    let pdcch = RES_PER_REG * REGS_PER_CCE * cces_taken;
    f64::from(always + pdcch) / f64::from(n_rbs * SUBCARRIERS_PER_RB * control_symbols(n_rbs))
}

/// Aggregation levels and their UE-specific search-space candidates M(L) (TS 36.213 Table 9.1.1-1).
const LEVELS: [(u8, u32); 4] = [(1, 6), (2, 6), (4, 2), (8, 2)];
/// The search-space hash of TS 36.213 §9.1.1: Y_k = (A · Y_{k-1}) mod D.
const HASH_A: u64 = 39_827;
const HASH_D: u64 = 65_537;
/// Subframes per radio frame: Y_k is defined for k = 0..9.
const SUBFRAMES: usize = 10;
/// First C-RNTI value (TS 36.321 Table 7.1-1: C-RNTI 003D-FFF3); UE i gets 0x003D + i.
const FIRST_C_RNTI: u64 = 0x003D;

/// The aggregation level for a UE whose CQI stands for `sinr_db`: the smallest level whose
/// error there is at most `target`, else 8.
pub fn aggregation_level(sinr_db: f64, target: f64) -> u8 {
    LEVELS.iter().map(|&(l, _)| l).find(|&l| pdcch_error_rate_flat_at_level(sinr_db, l) <= target).unwrap_or(8)
}

/// Per UE index, Y_k for subframes 0..9: where its search spaces start (a function of the UE's
/// C-RNTI alone, so a network's cells can share one set).
#[derive(Clone, Debug, Default)]
pub struct SearchSpaces(Vec<[u32; SUBFRAMES]>);

impl SearchSpaces {
    pub fn new(n_ues: usize) -> Self {
        SearchSpaces(
            (0..n_ues as u64)
                .map(|i| {
                    let mut y = FIRST_C_RNTI + i;
                    std::array::from_fn(|_| {
                        y = (HASH_A * y) % HASH_D;
                        y as u32
                    })
                })
                .collect(),
        )
    }
}

/// The CCEs of one TTI's control region and the UEs' search spaces.
#[derive(Clone, Debug)]
pub struct Pdcch {
    n_cce: u32,
    /// Bit i: CCE i is taken this TTI.
    taken: u128,
    hash: SearchSpaces,
}

impl Pdcch {
    /// The control region of `n_rbs` with its own search spaces for `n_ues` UE indices (the
    /// tests'; a cell's MAC is given its search spaces: [`Self::with_search_spaces`]).
    #[cfg(test)]
    pub fn new(n_rbs: u32, phich_ng: PhichNg, n_ues: usize) -> Self {
        Pdcch::with_search_spaces(n_rbs, phich_ng, SearchSpaces::new(n_ues))
    }

    /// The control region of `n_rbs` with the UEs' `search_spaces`.
    pub fn with_search_spaces(n_rbs: u32, phich_ng: PhichNg, search_spaces: SearchSpaces) -> Self {
        let n_cce = cce_count(n_rbs, phich_ng);
        debug_assert!(n_cce <= 128, "{n_cce} CCEs exceed the mask");
        Pdcch { n_cce, taken: 0, hash: search_spaces }
    }

    /// Exchange the UEs' search spaces with `other` (a network lends one set to each cell).
    pub fn swap_search_spaces(&mut self, other: &mut SearchSpaces) {
        std::mem::swap(&mut self.hash, other);
    }

    pub fn n_cce(&self) -> u32 {
        self.n_cce
    }

    /// The CCEs the DCIs placed this TTI take.
    pub fn cces_taken(&self) -> u32 {
        self.taken.count_ones()
    }

    /// A new TTI: every CCE free.
    pub fn clear(&mut self) {
        self.taken = 0;
    }

    /// What is taken, to undo a tentative allocation with [`Self::restore`].
    pub fn snapshot(&self) -> u128 {
        self.taken
    }

    pub fn restore(&mut self, taken: u128) {
        self.taken = taken;
    }

    /// Place a DCI of `ue` on `level` CCEs in subframe `subframe` (0..9): the first free
    /// candidate of its search space; false when every candidate is taken (the UE is blocked).
    pub fn place(&mut self, ue: UeIndex, level: u8, subframe: usize) -> bool {
        let l = u32::from(level);
        let Some(&(_, candidates)) = LEVELS.iter().find(|&&(lv, _)| lv == level) else { return false };
        let slots = self.n_cce / l;
        if slots == 0 {
            return false;
        }
        let y = self.hash.0[ue.index()][subframe % SUBFRAMES];
        for m in 0..candidates.min(slots) {
            let first = l * ((y + m) % slots);
            let mask = ((1u128 << l) - 1) << first;
            if self.taken & mask == 0 {
                self.taken |= mask;
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked from TS 36.211: 20 MHz (100 RBs), 3 symbols: 100 x (2 + 3 + 3) = 800 REGs, less
    /// PCFICH 4 and PHICH ⌈100/48⌉ = 3 groups x 3 = 9 (N_g = 1/6): 787 REGs, 87 CCEs; with
    /// N_g = 1, ⌈12.5⌉ = 13 groups: 757 REGs, 84 CCEs. 1.4 MHz, 4 symbols: 6 x 11 = 66 REGs,
    /// less 4 and 1 group (3): 59, 6 CCEs. 10 MHz, N_g = 1/6: 400 - 4 - 6 = 390, 43 CCEs.
    #[test]
    fn cce_counts_follow_ts_36_211() {
        assert_eq!(cce_count(100, PhichNg::OneSixth), 87);
        assert_eq!(cce_count(100, PhichNg::One), 84);
        assert_eq!(cce_count(6, PhichNg::OneSixth), 6);
        assert_eq!(cce_count(50, PhichNg::OneSixth), 43);
        assert_eq!(cce_count(25, PhichNg::Two), (25 * 8 - 4 - 7 * 3) / 9);
    }

    /// 20 MHz, 3 symbols: 3,600 REs. Sent every subframe: CRS 100 x 4 = 400, PCFICH 4 REGs = 16,
    /// PHICH 3 groups x 3 REGs = 36 REs (N_g = 1/6): 452. Each CCE adds 36 REs; all 87 give
    /// 452 + 3,132 = 3,584 (the 4 REGs no CCE holds stay empty). 1.4 MHz, 4 symbols: 288 REs;
    /// 24 + 16 + 12 = 52 always, 6 CCEs 216 more.
    #[test]
    fn control_region_share_counts_the_res_a_cell_sends() {
        assert_eq!(control_region_share(100, PhichNg::OneSixth, 0), 452.0 / 3600.0);
        assert_eq!(control_region_share(100, PhichNg::OneSixth, 10), 812.0 / 3600.0);
        assert_eq!(control_region_share(100, PhichNg::OneSixth, 87), 3584.0 / 3600.0);
        assert_eq!(control_region_share(6, PhichNg::OneSixth, 6), 268.0 / 288.0);
        let mut pdcch = Pdcch::new(100, PhichNg::OneSixth, 2);
        assert!(pdcch.place(UeIndex(0), 8, 0) && pdcch.place(UeIndex(1), 2, 0));
        assert_eq!(pdcch.cces_taken(), 10);
    }

    /// Y_k for RNTI 61 (0x003D): Y_0 = 39827 x 61 mod 65537 = 4,... (computed below by hand
    /// from the recurrence), and the candidates at level 8 of an 87-CCE region: ⌊87/8⌋ = 10
    /// slots, CCEs 8 x ((Y_k + m) mod 10).
    #[test]
    fn search_space_follows_ts_36_213_9_1_1() {
        let y0 = (39_827u64 * 61) % 65_537;
        let y1 = (39_827u64 * y0) % 65_537;
        let p = Pdcch::new(100, PhichNg::OneSixth, 1);
        assert_eq!(p.hash.0[0][0] as u64, y0);
        assert_eq!(p.hash.0[0][1] as u64, y1);
        let mut p = Pdcch::new(100, PhichNg::OneSixth, 1);
        assert!(p.place(UeIndex(0), 8, 0));
        let first = 8 * (y0 % 10) as u32;
        assert_eq!(p.taken, 0xFFu128 << first);
        // The second candidate, then none: M(8) = 2.
        assert!(p.place(UeIndex(0), 8, 0));
        assert_eq!(p.taken.count_ones(), 16);
        assert!(!p.place(UeIndex(0), 8, 0), "both level-8 candidates taken: blocked");
        // Level 1 still finds room elsewhere.
        assert!(p.place(UeIndex(0), 1, 0));
    }

    /// A full region blocks everyone; 87 CCEs hold 87 level-1 DCIs at most, and far fewer UEs at
    /// level 8 (10 slots, two candidates each).
    #[test]
    fn a_crowded_region_blocks() {
        let mut p = Pdcch::new(100, PhichNg::OneSixth, 300);
        let placed = (0..300).filter(|&u| p.place(UeIndex(u), 8, 3)).count();
        assert!(placed <= 10, "{placed} level-8 DCIs in 87 CCEs");
        p.clear();
        let placed = (0..300).filter(|&u| p.place(UeIndex(u), 1, 3)).count();
        assert!((40..=87).contains(&placed), "{placed} level-1 DCIs");
        let before = p.snapshot();
        p.restore(0);
        assert_eq!(p.taken, 0);
        p.restore(before);
        assert_eq!(p.taken, before);
    }

    /// Good channels get one CCE, the cell edge eight (the curve: 1 % at -2.4 dB for 8 CCEs).
    #[test]
    fn aggregation_level_follows_the_channel() {
        assert_eq!(aggregation_level(20.0, 0.01), 1);
        assert_eq!(aggregation_level(4.0, 0.01), 2);
        assert_eq!(aggregation_level(1.0, 0.01), 4);
        assert_eq!(aggregation_level(-2.0, 0.01), 8);
        assert_eq!(aggregation_level(-10.0, 0.01), 8);
    }
}
