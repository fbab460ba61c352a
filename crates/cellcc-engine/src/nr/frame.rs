//! The frame structure an NR cell runs on: which slots carry downlink or uplink (FDD, or a TDD
//! pattern such as "DDDSU" with a special slot of downlink, guard and uplink symbols; TS 38.213
//! §11.1, TS 38.331 `TDD-UL-DL-ConfigCommon`), the PDSCH/PUSCH transmission occasions inside a
//! slot (slot-based mapping type A, or mini-slots of 2, 4 or 7 symbols, mapping type B; TS 38.214
//! §5.1.2.1, §6.1.2.1), their DM-RS symbols (TS 38.211 Tables 7.4.1.1.2-3/-4, 6.4.1.1.3-3/-4),
//! and the slot offsets K1 (PDSCH to HARQ-ACK, TS 38.213 §9.2.3) and K2 (UL grant to PUSCH,
//! TS 38.214 §6.1.2.1) that make feedback and uplink grants wait for an uplink slot in TDD.
//!
//! ```text
//!  "DDDSU", S = 10D:2G:2U, mu = 1 (2.5 ms), CORESET 2 symbols, K1 >= 1, K2 >= 1:
//!  slot    0      1      2      3      4
//!  kind    D      D      D      S      U
//!  PDSCH   2..14  2..14  2..14  2..10  -           (symbols)
//!  PUSCH   -      -      -      -      0..13       (the last symbol: SRS / short PUCCH)
//!  HARQ-ACK of the PDSCH in slot 0, 1, 2 -> slot 3 (its 2 UL symbols); of slot 3 -> slot 4
//!  PUSCH of slot 4 granted in slot 3 (the last PDCCH slot at least K2 before it)
//! ```

use super::numerology::{Numerology, SYMBOLS_PER_SLOT};
use crate::error::ScenarioError;
use serde::{Deserialize, Serialize};

/// A slot's direction in a TDD pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    Downlink,
    Uplink,
    /// Downlink symbols, a guard, uplink symbols (the special slot).
    Special,
}

/// The special slot's symbols (TS 38.331 `nrofDownlinkSymbols`, guard, `nrofUplinkSymbols`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecialSlot {
    /// Downlink symbols at the start, 0..=13.
    pub dl_symbols: u32,
    /// Guard (switching) symbols, 1..=14.
    pub guard_symbols: u32,
    /// Uplink symbols at the end, 0..=13.
    pub ul_symbols: u32,
}

/// GSMA, "5G TDD Synchronisation: Guidelines and Recommendations for the Coexistence of TDD
/// Networks in the 3.5 GHz Range" (April 2020): the "DDDSU" frame with the special slot 10:2:2.
pub const GSMA_SPECIAL_SLOT: SpecialSlot = SpecialSlot { dl_symbols: 10, guard_symbols: 2, ul_symbols: 2 };

/// The periods a TDD pattern may have, ms (TS 38.331 `dl-UL-TransmissionPeriodicity`); two
/// patterns together must divide 20 ms (TS 38.213 §11.1).
pub const TDD_PERIODS_MS: [f64; 10] = [0.5, 0.625, 1.0, 1.25, 2.0, 2.5, 3.0, 4.0, 5.0, 10.0];

/// PDSCH/PUSCH time-domain mapping (TS 38.214 §5.1.2.1, §6.1.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// Type A: one occasion of every data symbol of the slot.
    SlotBased,
    /// Type B: occasions of this many symbols (2, 4 or 7 for the PDSCH, TS 38.214 §5.1.2.1).
    MiniSlot(u32),
}

/// Mini-slot lengths the PDSCH allows with mapping type B and a normal CP (TS 38.214 Table 5.1.2.1-1, Rel-15).
pub const MINI_SLOT_SYMBOLS: [u32; 3] = [2, 4, 7];

/// One PDSCH or PUSCH transmission occasion inside a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occasion {
    pub first_symbol: u32,
    pub symbols: u32,
    /// DM-RS symbols in it (single-symbol DM-RS).
    pub dmrs_symbols: u32,
}

impl Occasion {
    pub fn end_symbol(&self) -> u32 {
        self.first_symbol + self.symbols
    }
}

/// What one slot offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotPlan {
    pub kind: SlotKind,
    /// PDSCH occasions (none in an uplink slot).
    pub dl: Vec<Occasion>,
    /// PUSCH occasions (uplink slots, and every slot in FDD).
    pub ul: Vec<Occasion>,
    /// A DCI can be sent: the slot opens with the CORESET's downlink symbols.
    pub pdcch: bool,
    /// HARQ-ACK, SR and CSI can be sent on a PUCCH: the slot has uplink symbols.
    pub pucch: bool,
}

/// The DM-RS configuration (TS 38.331 `DMRS-DownlinkConfig` / `DMRS-UplinkConfig`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dmrs {
    /// `dmrs-AdditionalPosition`, 0..=3.
    pub additional_positions: u32,
}

impl Dmrs {
    /// DM-RS symbols of a PDSCH/PUSCH of `duration` symbols (TS 38.211 Tables 7.4.1.1.2-3 and
    /// 7.4.1.1.2-4; the PUSCH's Tables 6.4.1.1.3-3/-4 give the same counts with hopping off).
    /// Type A's duration counts from the slot's first symbol to the occasion's last.
    pub fn symbols(self, mapping: Mapping, duration: u32) -> u32 {
        let pos = self.additional_positions;
        match mapping {
            Mapping::SlotBased => match duration {
                0..=7 => 1,
                8..=9 => 1 + pos.min(1),
                10..=11 => 1 + pos.min(2),
                _ => 1 + pos.min(3),
            },
            // Type B (Table 7.4.1.1.2-4): l0 alone up to 4 symbols; 5-7 symbols add one at pos >= 1.
            Mapping::MiniSlot(_) => match duration {
                0..=4 => 1,
                _ => 1 + pos.min(1),
            },
        }
    }
}

/// The duplexing as the scenario resolves it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DuplexPattern {
    /// Paired spectrum: every slot carries downlink and uplink.
    Fdd,
    /// One TDD period, slot by slot.
    Tdd { slots: Vec<SlotKind>, special: SpecialSlot },
}

/// The timing of a cell's frame: slot plans and the K1/K2 offsets, repeating with the pattern.
#[derive(Clone, Debug)]
pub struct Frame {
    pub mu: Numerology,
    plans: Vec<SlotPlan>,
    /// Per pattern offset of a PDSCH slot: K1, slots to its HARQ-ACK (u64::MAX without PDSCH).
    k1: Vec<u64>,
    /// Per pattern offset: the K2 offsets of the PUSCH slots granted in this slot.
    k2_targets: Vec<Vec<u64>>,
    /// Pattern offsets with a PUCCH (SR and CSI occasions), ascending.
    pucch_offsets: Vec<u64>,
    /// Pattern offsets with a PDSCH occasion, ascending.
    pdsch_offsets: Vec<u64>,
}

/// What the frame is built from.
#[derive(Clone, Debug)]
pub struct FrameSpec {
    pub mu: Numerology,
    pub duplex: DuplexPattern,
    /// CORESET duration, symbols, 1..=3 (TS 38.211 §7.3.2.2).
    pub pdcch_symbols: u32,
    pub mapping: Mapping,
    /// Symbols at the end of an uplink slot kept for SRS and short PUCCH (no PUSCH there).
    pub ul_control_symbols: u32,
    pub dl_dmrs: Dmrs,
    pub ul_dmrs: Dmrs,
    /// Fewest slots from a PDSCH to its HARQ-ACK (the UE's PDSCH processing time, TS 38.214 §5.3).
    pub k1_min: u64,
    /// Fewest slots from an UL grant to its PUSCH (the UE's PUSCH preparation time, TS 38.214 §6.4).
    pub k2_min: u64,
}

/// Largest K1 the UE may be given, slots (TS 38.213 §9.2.3, `dl-DataToUL-ACK` 0..15, Rel-15).
pub const MAX_K1_SLOTS: u64 = 15;
/// Largest K2, slots (TS 38.214 §6.1.2.1, `k2` 0..32).
pub const MAX_K2_SLOTS: u64 = 32;

impl Frame {
    /// The frame `spec` describes; errors name `path`'s fields.
    pub fn new(spec: &FrameSpec, path: &str) -> Result<Frame, ScenarioError> {
        let kinds = match &spec.duplex {
            DuplexPattern::Fdd => vec![None],
            DuplexPattern::Tdd { slots, .. } => slots.iter().map(|k| Some(*k)).collect(),
        };
        let plans: Vec<SlotPlan> = kinds.iter().map(|k| plan(spec, *k)).collect();
        let n = plans.len() as u64;
        let pucch_offsets: Vec<u64> = (0..n).filter(|&o| plans[o as usize].pucch).collect();
        let pdsch_offsets: Vec<u64> = (0..n).filter(|&o| !plans[o as usize].dl.is_empty()).collect();
        let pdcch_offsets: Vec<u64> = (0..n).filter(|&o| plans[o as usize].pdcch).collect();
        let duplex_path = format!("{path}.duplex");
        if pucch_offsets.is_empty() || pdcch_offsets.is_empty() || !plans.iter().any(|p| !p.ul.is_empty()) {
            return Err(ScenarioError::new(
                format!("{duplex_path}.pattern"),
                pattern_string(&spec.duplex),
                "a pattern with a downlink slot and an uplink slot (HARQ-ACK and the PUSCH need an uplink)",
            ));
        }
        let next_at = |set: &[u64], from: u64| -> u64 {
            (from..from + 2 * n).find(|s| set.contains(&(s % n))).expect("non-empty set recurs within two periods")
        };
        let mut k1 = vec![u64::MAX; n as usize];
        for &o in &pdsch_offsets {
            let k = next_at(&pucch_offsets, o + spec.k1_min) - o;
            if k > MAX_K1_SLOTS {
                return Err(ScenarioError::new(
                    format!("{duplex_path}.pattern"),
                    pattern_string(&spec.duplex),
                    format!("a pattern whose every PDSCH slot has an uplink slot within K1 <= {MAX_K1_SLOTS} slots"),
                ));
            }
            k1[o as usize] = k;
        }
        let mut k2_targets = vec![Vec::new(); n as usize];
        for u in (0..n).filter(|&o| !plans[o as usize].ul.is_empty()) {
            // The last PDCCH slot at least K2_min before the PUSCH slot grants it.
            let u_abs = u + 2 * n;
            let d = (0..=u_abs - spec.k2_min).rev().find(|s| pdcch_offsets.contains(&(s % n))).expect("PDCCH recurs");
            let k2 = u_abs - d;
            if k2 > MAX_K2_SLOTS {
                return Err(ScenarioError::new(
                    format!("{duplex_path}.pattern"),
                    pattern_string(&spec.duplex),
                    format!("a pattern whose every PUSCH slot has a PDCCH slot within K2 <= {MAX_K2_SLOTS} slots"),
                ));
            }
            k2_targets[(d % n) as usize].push(k2);
        }
        for t in &mut k2_targets {
            t.sort_unstable();
        }
        Ok(Frame { mu: spec.mu, plans, k1, k2_targets, pucch_offsets, pdsch_offsets })
    }

    pub fn period_slots(&self) -> u64 {
        self.plans.len() as u64
    }

    pub fn plan(&self, slot: u64) -> &SlotPlan {
        &self.plans[(slot % self.period_slots()) as usize]
    }

    /// The slot carrying the HARQ-ACK of a PDSCH in `slot` (TS 38.213 §9.2.3: slot n + K1).
    pub fn harq_ack_slot(&self, slot: u64) -> u64 {
        let k1 = self.k1[(slot % self.period_slots()) as usize];
        debug_assert!(k1 != u64::MAX, "slot {slot} carries no PDSCH");
        slot + k1
    }

    /// The PUSCH slots granted in `slot` (TS 38.214 §6.1.2.1: slot n + K2), ascending.
    pub fn granted_pusch_slots(&self, slot: u64) -> impl Iterator<Item = u64> + '_ {
        self.k2_targets[(slot % self.period_slots()) as usize].iter().map(move |k2| slot + k2)
    }

    /// The first slot at or after `from` with a PUCCH.
    pub fn next_pucch_slot(&self, from: u64) -> u64 {
        next_in(&self.pucch_offsets, self.period_slots(), from)
    }

    /// The first slot at or after `from` with a PDSCH occasion.
    pub fn next_pdsch_slot(&self, from: u64) -> u64 {
        next_in(&self.pdsch_offsets, self.period_slots(), from)
    }

    /// Pattern offsets with a PUCCH (where SR and CSI occasions may sit).
    pub fn pucch_offsets(&self) -> &[u64] {
        &self.pucch_offsets
    }

    /// Pattern offsets with a PDSCH occasion (where CSI-RS may sit).
    pub fn pdsch_offsets(&self) -> &[u64] {
        &self.pdsch_offsets
    }

    /// Start of symbol `l` of `slot`, ns.
    pub fn at_ns(&self, slot: u64, l: u32) -> u64 {
        self.mu.symbol_start_ns(slot, l)
    }

    /// The share of the period's symbols that carry PDSCH data, for reports.
    pub fn dl_symbols_per_period(&self) -> u32 {
        self.plans.iter().flat_map(|p| &p.dl).map(|o| o.symbols).sum()
    }
}

fn next_in(offsets: &[u64], period: u64, from: u64) -> u64 {
    (from..from + 2 * period).find(|s| offsets.contains(&(s % period))).expect("offsets recur every period")
}

/// The occasions of one slot of `kind` (`None`: FDD, both directions).
fn plan(spec: &FrameSpec, kind: Option<SlotKind>) -> SlotPlan {
    let special = match &spec.duplex {
        DuplexPattern::Tdd { special, .. } => *special,
        DuplexPattern::Fdd => SpecialSlot { dl_symbols: 0, guard_symbols: 0, ul_symbols: 0 },
    };
    let (dl_end, ul_symbols) = match kind {
        None => (SYMBOLS_PER_SLOT, SYMBOLS_PER_SLOT),
        Some(SlotKind::Downlink) => (SYMBOLS_PER_SLOT, 0),
        Some(SlotKind::Uplink) => (0, SYMBOLS_PER_SLOT),
        Some(SlotKind::Special) => (special.dl_symbols, special.ul_symbols),
    };
    let pdcch = dl_end > spec.pdcch_symbols;
    let dl = if pdcch { occasions(spec.pdcch_symbols, dl_end, spec.mapping, spec.dl_dmrs) } else { Vec::new() };
    // PUSCH only where the slot is all uplink: a special slot's few uplink symbols carry PUCCH and SRS.
    let ul = if ul_symbols == SYMBOLS_PER_SLOT {
        occasions(0, SYMBOLS_PER_SLOT - spec.ul_control_symbols, spec.mapping, spec.ul_dmrs)
    } else {
        Vec::new()
    };
    SlotPlan { kind: kind.unwrap_or(SlotKind::Downlink), dl, ul, pdcch, pucch: ul_symbols > 0 }
}

/// Occasions over symbols `[from, to)`: one type A occasion, or as many mini-slots as fit.
fn occasions(from: u32, to: u32, mapping: Mapping, dmrs: Dmrs) -> Vec<Occasion> {
    let n = to.saturating_sub(from);
    match mapping {
        Mapping::MiniSlot(len) if len <= n => (0..n / len)
            .map(|k| Occasion { first_symbol: from + k * len, symbols: len, dmrs_symbols: dmrs.symbols(mapping, len) })
            .collect(),
        // Type A needs at least 3 symbols (TS 38.214 Table 5.1.2.1-1); a shorter span carries nothing.
        _ if n < 3 => Vec::new(),
        _ => vec![Occasion { first_symbol: from, symbols: n, dmrs_symbols: dmrs.symbols(Mapping::SlotBased, to) }],
    }
}

/// A pattern as the scenario wrote it.
pub fn pattern_string(d: &DuplexPattern) -> String {
    match d {
        DuplexPattern::Fdd => "fdd".into(),
        DuplexPattern::Tdd { slots, .. } => slots
            .iter()
            .map(|k| match k {
                SlotKind::Downlink => 'D',
                SlotKind::Uplink => 'U',
                SlotKind::Special => 'S',
            })
            .collect(),
    }
}

/// Parse a TDD pattern of D, S and U; `path` names the field.
pub fn parse_pattern(text: &str, path: &str) -> Result<Vec<SlotKind>, ScenarioError> {
    let bad = |why: &str| ScenarioError::new(path, format!("{text:?}"), why);
    if text.is_empty() || text.len() > 80 {
        return Err(bad("1 to 80 slots of D, S or U (TS 38.331 allows 80 slots per period)"));
    }
    text.chars()
        .map(|c| match c {
            'D' => Ok(SlotKind::Downlink),
            'U' => Ok(SlotKind::Uplink),
            'S' => Ok(SlotKind::Special),
            _ => Err(bad("letters D (downlink), S (special) or U (uplink)")),
        })
        .collect()
}

/// Whether a period of `slots` slots at `mu` is one TS 38.213 §11.1 allows: a period of
/// TS 38.331's list, or two of them (pattern1 + pattern2) whose sum divides 20 ms.
pub fn period_allowed(slots: usize, mu: Numerology) -> bool {
    let ms = slots as f64 / mu.slots_per_subframe() as f64;
    let single = TDD_PERIODS_MS.iter().any(|p| (p - ms).abs() < 1e-9);
    let pair = TDD_PERIODS_MS
        .iter()
        .any(|p1| TDD_PERIODS_MS.iter().any(|p2| (p1 + p2 - ms).abs() < 1e-9 && (20.0 / ms).fract().abs() < 1e-9));
    single || pair
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(duplex: DuplexPattern, mapping: Mapping) -> FrameSpec {
        FrameSpec {
            mu: Numerology::new(1).unwrap(),
            duplex,
            pdcch_symbols: 2,
            mapping,
            ul_control_symbols: 1,
            dl_dmrs: Dmrs { additional_positions: 2 },
            ul_dmrs: Dmrs { additional_positions: 2 },
            k1_min: 1,
            k2_min: 1,
        }
    }

    fn dddsu() -> DuplexPattern {
        DuplexPattern::Tdd { slots: parse_pattern("DDDSU", "p").unwrap(), special: GSMA_SPECIAL_SLOT }
    }

    /// The DDDSU example of the module doc: occasions, K1 and K2 slot by slot.
    #[test]
    fn dddsu_occasions_and_harq_timing() {
        let f = Frame::new(&spec(dddsu(), Mapping::SlotBased), "c").unwrap();
        // D: symbols 2..14, 12 symbols, type A duration 14 with pos2: 3 DM-RS symbols (l0, 7, 11).
        assert_eq!(f.plan(0).dl, vec![Occasion { first_symbol: 2, symbols: 12, dmrs_symbols: 3 }]);
        // S: 10 DL symbols, data 2..10 (8 symbols), duration 10: l0, 6, 9 -> 3 DM-RS symbols.
        assert_eq!(f.plan(3).dl, vec![Occasion { first_symbol: 2, symbols: 8, dmrs_symbols: 3 }]);
        assert!(f.plan(3).pucch && f.plan(3).ul.is_empty(), "S: PUCCH in its 2 UL symbols, no PUSCH");
        assert_eq!(f.plan(4).ul, vec![Occasion { first_symbol: 0, symbols: 13, dmrs_symbols: 3 }]);
        assert!(f.plan(4).dl.is_empty() && !f.plan(4).pdcch);
        // HARQ-ACK (K1 >= 1): slots 0, 1, 2 -> 3; slot 3 -> 4; the next period shifts by 5.
        let acks: Vec<u64> = [0, 1, 2, 3, 5, 8].iter().map(|&s| f.harq_ack_slot(s)).collect();
        assert_eq!(acks, vec![3, 3, 3, 4, 8, 9]);
        // PUSCH in slot 4 is granted in slot 3 (K2 = 1); slots 0-2 grant nothing.
        assert_eq!(f.granted_pusch_slots(3).collect::<Vec<_>>(), vec![4]);
        assert_eq!(f.granted_pusch_slots(13).collect::<Vec<_>>(), vec![14]);
        assert_eq!(f.granted_pusch_slots(1).count(), 0);
        assert_eq!((f.next_pucch_slot(5), f.next_pucch_slot(9), f.next_pdsch_slot(4)), (8, 9, 5));
    }

    /// A longer K1 / K2 (a slower UE) pushes the feedback to the next period's uplink.
    #[test]
    fn a_slower_ue_waits_for_the_next_uplink() {
        let mut s = spec(dddsu(), Mapping::SlotBased);
        (s.k1_min, s.k2_min) = (2, 2);
        let f = Frame::new(&s, "c").unwrap();
        assert_eq!([0, 1, 2, 3].map(|n| f.harq_ack_slot(n)), [3, 3, 4, 8]);
        // PUSCH slot 4 needs a PDCCH at slot <= 2: slot 2 (K2 = 2).
        assert_eq!(f.granted_pusch_slots(2).collect::<Vec<_>>(), vec![4]);
        assert_eq!(f.granted_pusch_slots(3).count(), 0);
    }

    #[test]
    fn fdd_acks_k1_later_and_grants_k2_ahead() {
        let f = Frame::new(&spec(DuplexPattern::Fdd, Mapping::SlotBased), "c").unwrap();
        assert_eq!((f.period_slots(), f.harq_ack_slot(7)), (1, 8));
        assert_eq!(f.granted_pusch_slots(7).collect::<Vec<_>>(), vec![8]);
        assert!(!f.plan(0).dl.is_empty() && !f.plan(0).ul.is_empty());
    }

    /// Mini-slots: 12 data symbols of a D slot hold six 2-symbol, three 4-symbol or one 7-symbol
    /// occasion; type B DM-RS: one symbol up to 4, two from 5 with an additional position.
    #[test]
    fn mini_slots_split_the_data_symbols() {
        for (len, count, dmrs) in [(2, 6, 1), (4, 3, 1), (7, 1, 2)] {
            let f = Frame::new(&spec(dddsu(), Mapping::MiniSlot(len)), "c").unwrap();
            let occ = &f.plan(0).dl;
            assert_eq!(occ.len(), count, "{len}-symbol mini-slots");
            assert!(occ.iter().all(|o| o.symbols == len && o.dmrs_symbols == dmrs));
            assert_eq!(occ[0].first_symbol, 2);
        }
    }

    #[test]
    fn dmrs_counts_follow_ts_38_211_tables() {
        let a = |pos, d| Dmrs { additional_positions: pos }.symbols(Mapping::SlotBased, d);
        // Table 7.4.1.1.2-3, duration 14: pos0 l0; pos1 l0, 11; pos2 l0, 7, 11; pos3 l0, 5, 8, 11.
        assert_eq!([0, 1, 2, 3].map(|p| a(p, 14)), [1, 2, 3, 4]);
        // Duration 10: pos3 gives l0, 6, 9 (three); duration 8: l0, 7 at most.
        assert_eq!([a(3, 10), a(3, 8), a(2, 7)], [3, 2, 1]);
    }

    #[test]
    fn patterns_and_periods_are_checked() {
        assert!(parse_pattern("DDXU", "p").is_err());
        let mu1 = Numerology::new(1).unwrap();
        assert!(period_allowed(5, mu1), "DDDSU at 30 kHz: 2.5 ms");
        assert!(period_allowed(10, mu1), "5 ms");
        assert!(!period_allowed(7, mu1), "3.5 ms is no period and does not divide 20 ms");
        let all_down = DuplexPattern::Tdd { slots: parse_pattern("DDDD", "p").unwrap(), special: GSMA_SPECIAL_SLOT };
        let e = Frame::new(&spec(all_down, Mapping::SlotBased), "cells[0]").unwrap_err();
        assert_eq!(e.path, "cells[0].duplex.pattern");
    }
}
