//! Adaptive modulation and coding for NR: the UE's CQI (TS 38.214 §5.2.2.1: the highest CQI
//! whose modulation and rate a PDSCH on the CSI reference resource would receive with a BLER of
//! at most 10 %), and the highest MCS a row of SINRs supports over given PRBs (the gNB's uplink
//! choice from its SRS/DM-RS estimate), both by EESM with each candidate MCS's beta against that
//! MCS's flat-channel 10 % threshold. The thresholds are an [`McsLadder`], the LTE cell's inner
//! loop, which the outer loop's offset moves.
//!
//! ```text
//!  row (linear SINR per PRB) ─► for MCS m (binary search): EESM_beta_m(row over PRBs) + offset >= threshold_m ?
//!  UE:  highest such m (offset 0) ─► CQI = the highest CQI with efficiency <= m's (5G-LENA CreateCqiFeedbackSiso)
//!  gNB: CQI ─► MCS of the CQI ─► its threshold + OLLA offset ─► ladder (lte::mac::link_adaptation)
//! ```
//! The thresholds are computed once per cell for the TBS of each MCS on the reference resource
//! (the whole band, the reference symbols); a smaller allocation's code blocks are read on the
//! same thresholds (its curves differ by tenths of a dB).

use super::bler::{beta, eesm_from_sum, eesm_sum, flat_sinr_threshold_db};
use super::mcs::McsTable;
use super::tbs::{tbs_bits, Allocation};
use crate::lte::mac::link_adaptation::McsLadder;

/// The BLER a CQI promises (TS 38.214 §5.2.2.1: "not exceed 0.1").
pub const CQI_BLER_TARGET: f64 = 0.1;

/// One cell's AMC: its MCS table and the 10 % ladder for its reference resource.
#[derive(Clone, Debug)]
pub struct NrAmc {
    table: McsTable,
    ladder: McsLadder,
}

impl NrAmc {
    /// The ladder of `table` for a TB on `reference` (the CSI reference resource).
    pub fn new(table: McsTable, reference: &Allocation) -> Self {
        let thresholds = (0..=table.max_mcs())
            .map(|m| {
                let tbs = tbs_bits(table.entry(m), reference).max(24);
                flat_sinr_threshold_db(table, m, tbs, CQI_BLER_TARGET)
            })
            .collect();
        NrAmc { table, ladder: McsLadder::new(thresholds) }
    }

    pub fn table(&self) -> McsTable {
        self.table
    }

    pub fn ladder(&self) -> &McsLadder {
        &self.ladder
    }

    /// The highest MCS whose EESM over `prbs` of `sinr_lin`, plus `offset_db`, reaches its
    /// threshold; `None` when not even MCS 0 does.
    pub fn mcs_on<I>(&self, sinr_lin: &[f64], prbs: I, offset_db: f64) -> Option<u8>
    where
        I: Iterator<Item = usize> + Clone,
    {
        if let Some(flat) = flat_value(sinr_lin, prbs.clone()) {
            // EESM of a flat row is the row's SINR whatever the beta.
            let db = 10.0 * flat.log10() + offset_db;
            return (db >= self.ladder.threshold_db(0)).then(|| self.ladder.highest_at(db));
        }
        let meets = |m: u8| {
            let b = beta(self.table, m);
            let (sum, n) = eesm_sum(sinr_lin, prbs.clone(), b);
            n > 0.0 && 10.0 * eesm_from_sum(sum, n, b).log10() + offset_db >= self.ladder.threshold_db(m)
        };
        if !meets(0) {
            return None;
        }
        // Binary search for the last MCS that meets its threshold (the thresholds climb faster
        // with the MCS than the EESM does with its beta).
        let (mut lo, mut hi) = (0u8, self.table.max_mcs());
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if meets(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    }

    /// The wideband CQI a UE reports for the row `sinr_lin` (every PRB): 0 when out of range.
    pub fn cqi(&self, sinr_lin: &[f64]) -> u8 {
        self.mcs_on(sinr_lin, 0..sinr_lin.len(), 0.0).map_or(0, |m| self.table.cqi_for_mcs(m))
    }

    /// The MCS the gNB schedules for a UE reporting `cqi` (1..=15) with the outer loop at `offset_db`.
    pub fn mcs_for_cqi(&self, cqi: u8, offset_db: f64) -> u8 {
        let m = self.table.mcs_for_cqi(cqi);
        self.ladder.highest_at(self.ladder.threshold_db(m) + offset_db)
    }
}

/// The row's value if it is the same on every PRB of `prbs`.
fn flat_value(sinr_lin: &[f64], mut prbs: impl Iterator<Item = usize>) -> Option<f64> {
    let first = sinr_lin[prbs.next()?];
    prbs.all(|k| sinr_lin[k] == first).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band() -> Allocation {
        Allocation { n_prb: 273, symbols: 12, dmrs_re_per_prb: 18, overhead_re_per_prb: 0, layers: 1 }
    }

    /// A flat channel picks the ladder's rung; the CQI grows with the SINR and saturates at 15.
    #[test]
    fn cqi_and_mcs_grow_with_the_sinr() {
        let amc = NrAmc::new(McsTable::Qam256, &band());
        let mut last = 0;
        for db in [-10.0, -3.0, 0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0] {
            let row = vec![10f64.powf(db / 10.0); 273];
            let cqi = amc.cqi(&row);
            assert!(cqi >= last, "{db} dB: CQI {cqi} below {last}");
            last = cqi;
        }
        assert_eq!(amc.cqi(&vec![10f64.powf(-10.0 / 10.0); 273]), 0, "-10 dB is out of range");
        assert_eq!(last, 15);
        // The gNB's MCS for a CQI without an offset is the CQI's own MCS; +3 dB climbs.
        assert_eq!(amc.mcs_for_cqi(12, 0.0), McsTable::Qam256.mcs_for_cqi(12));
        assert!(amc.mcs_for_cqi(8, 3.0) > amc.mcs_for_cqi(8, 0.0));
    }

    /// On a faded row the EESM search matches a scan of every MCS.
    #[test]
    fn the_binary_search_matches_a_scan() {
        let amc = NrAmc::new(McsTable::Qam64, &band());
        for seed in 0..40u32 {
            let row: Vec<f64> = (0..273u32)
                .map(|k| 10f64.powf((8.0 + 9.0 * ((k * 7 + seed * 13) % 17) as f64 / 17.0 - 4.0) / 10.0))
                .collect();
            let scan = (0..=McsTable::Qam64.max_mcs()).rev().find(|&m| {
                let b = beta(McsTable::Qam64, m);
                let (s, n) = eesm_sum(&row, 0..273, b);
                10.0 * eesm_from_sum(s, n, b).log10() >= amc.ladder().threshold_db(m)
            });
            assert_eq!(amc.mcs_on(&row, 0..273, 0.0), scan, "seed {seed}");
        }
    }
}
