//! The PDSCH/PUSCH MCS tables (TS 38.214 §5.1.3.1 Tables 5.1.3.1-1, -2, -3; the PUSCH with
//! transform precoding off uses the same tables, §6.1.4.1) and the CQI tables (§5.2.2.1 Tables
//! 5.2.2.1-2, -3, -4). A cell uses one MCS table and the CQI table of the same family: 64QAM with
//! CQI table 1, 256QAM with CQI table 2, low spectral efficiency with CQI table 3.

use serde::{Deserialize, Serialize};

/// Which MCS table a cell uses (TS 38.331 `mcs-Table`, `cqi-Table`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McsTable {
    /// Table 5.1.3.1-1, up to 64QAM (MCS 0..=28), CQI Table 5.2.2.1-2.
    Qam64,
    /// Table 5.1.3.1-2, up to 256QAM (MCS 0..=27), CQI Table 5.2.2.1-3.
    #[default]
    Qam256,
    /// Table 5.1.3.1-3, 64QAM with low spectral efficiency (MCS 0..=28), CQI Table 5.2.2.1-4.
    Qam64LowSe,
}

/// One MCS (or CQI) entry: modulation order and target code rate R x 1024.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McsEntry {
    /// Q_m: 2 QPSK, 4 16QAM, 6 64QAM, 8 256QAM.
    pub qm: u8,
    /// R x 1024.
    pub rate_x1024: f64,
}

impl McsEntry {
    pub fn rate(self) -> f64 {
        self.rate_x1024 / 1024.0
    }

    /// Spectral efficiency, bits per RE (Q_m R).
    pub fn efficiency(self) -> f64 {
        f64::from(self.qm) * self.rate()
    }
}

const fn e(qm: u8, rate_x1024: f64) -> McsEntry {
    McsEntry { qm, rate_x1024 }
}

/// TS 38.214 Table 5.1.3.1-1: MCS index table 1 for PDSCH (MCS 29-31 are reserved: retransmissions).
pub const MCS_TABLE_1: [McsEntry; 29] = [
    e(2, 120.0),
    e(2, 157.0),
    e(2, 193.0),
    e(2, 251.0),
    e(2, 308.0),
    e(2, 379.0),
    e(2, 449.0),
    e(2, 526.0),
    e(2, 602.0),
    e(2, 679.0),
    e(4, 340.0),
    e(4, 378.0),
    e(4, 434.0),
    e(4, 490.0),
    e(4, 553.0),
    e(4, 616.0),
    e(4, 658.0),
    e(6, 438.0),
    e(6, 466.0),
    e(6, 517.0),
    e(6, 567.0),
    e(6, 616.0),
    e(6, 666.0),
    e(6, 719.0),
    e(6, 772.0),
    e(6, 822.0),
    e(6, 873.0),
    e(6, 910.0),
    e(6, 948.0),
];

/// TS 38.214 Table 5.1.3.1-2: MCS index table 2 for PDSCH (MCS 28-31 reserved).
pub const MCS_TABLE_2: [McsEntry; 28] = [
    e(2, 120.0),
    e(2, 193.0),
    e(2, 308.0),
    e(2, 449.0),
    e(2, 602.0),
    e(4, 378.0),
    e(4, 434.0),
    e(4, 490.0),
    e(4, 553.0),
    e(4, 616.0),
    e(4, 658.0),
    e(6, 466.0),
    e(6, 517.0),
    e(6, 567.0),
    e(6, 616.0),
    e(6, 666.0),
    e(6, 719.0),
    e(6, 772.0),
    e(6, 822.0),
    e(6, 873.0),
    e(8, 682.5),
    e(8, 711.0),
    e(8, 754.0),
    e(8, 797.0),
    e(8, 841.0),
    e(8, 885.0),
    e(8, 916.5),
    e(8, 948.0),
];

/// TS 38.214 Table 5.1.3.1-3: MCS index table 3 for PDSCH, low spectral efficiency (MCS 29-31 reserved).
pub const MCS_TABLE_3: [McsEntry; 29] = [
    e(2, 30.0),
    e(2, 40.0),
    e(2, 50.0),
    e(2, 64.0),
    e(2, 78.0),
    e(2, 99.0),
    e(2, 120.0),
    e(2, 157.0),
    e(2, 193.0),
    e(2, 251.0),
    e(2, 308.0),
    e(2, 379.0),
    e(2, 449.0),
    e(2, 526.0),
    e(2, 602.0),
    e(4, 340.0),
    e(4, 378.0),
    e(4, 434.0),
    e(4, 490.0),
    e(4, 553.0),
    e(4, 616.0),
    e(6, 438.0),
    e(6, 466.0),
    e(6, 517.0),
    e(6, 567.0),
    e(6, 616.0),
    e(6, 666.0),
    e(6, 719.0),
    e(6, 772.0),
];

/// TS 38.214 Table 5.2.2.1-2: 4-bit CQI table 1 (CQI 0 = out of range).
pub const CQI_TABLE_1: [McsEntry; 15] = [
    e(2, 78.0),
    e(2, 120.0),
    e(2, 193.0),
    e(2, 308.0),
    e(2, 449.0),
    e(2, 602.0),
    e(4, 378.0),
    e(4, 490.0),
    e(4, 616.0),
    e(6, 466.0),
    e(6, 567.0),
    e(6, 666.0),
    e(6, 772.0),
    e(6, 873.0),
    e(6, 948.0),
];

/// TS 38.214 Table 5.2.2.1-3: 4-bit CQI table 2.
pub const CQI_TABLE_2: [McsEntry; 15] = [
    e(2, 78.0),
    e(2, 193.0),
    e(2, 449.0),
    e(4, 378.0),
    e(4, 490.0),
    e(4, 616.0),
    e(6, 466.0),
    e(6, 567.0),
    e(6, 666.0),
    e(6, 772.0),
    e(6, 873.0),
    e(8, 711.0),
    e(8, 797.0),
    e(8, 885.0),
    e(8, 948.0),
];

/// TS 38.214 Table 5.2.2.1-4: 4-bit CQI table 3.
pub const CQI_TABLE_3: [McsEntry; 15] = [
    e(2, 30.0),
    e(2, 50.0),
    e(2, 78.0),
    e(2, 120.0),
    e(2, 193.0),
    e(2, 308.0),
    e(2, 449.0),
    e(2, 602.0),
    e(4, 378.0),
    e(4, 490.0),
    e(4, 616.0),
    e(6, 466.0),
    e(6, 567.0),
    e(6, 666.0),
    e(6, 772.0),
];

/// The largest CQI index (TS 38.214 §5.2.2.1, 4-bit CQI).
pub const MAX_CQI: u8 = 15;

impl McsTable {
    pub fn entries(self) -> &'static [McsEntry] {
        match self {
            McsTable::Qam64 => &MCS_TABLE_1,
            McsTable::Qam256 => &MCS_TABLE_2,
            McsTable::Qam64LowSe => &MCS_TABLE_3,
        }
    }

    pub fn max_mcs(self) -> u8 {
        (self.entries().len() - 1) as u8
    }

    pub fn entry(self, mcs: u8) -> McsEntry {
        self.entries()[usize::from(mcs)]
    }

    /// CQI `cqi` (1..=15) of the table's CQI family.
    pub fn cqi_entry(self, cqi: u8) -> McsEntry {
        debug_assert!((1..=MAX_CQI).contains(&cqi));
        let t: &[McsEntry; 15] = match self {
            McsTable::Qam64 => &CQI_TABLE_1,
            McsTable::Qam256 => &CQI_TABLE_2,
            McsTable::Qam64LowSe => &CQI_TABLE_3,
        };
        t[usize::from(cqi - 1)]
    }

    /// The MCS a CQI asks for: the highest MCS whose spectral efficiency does not exceed the CQI's
    /// (MCS 0 if none; 5G-LENA `NrAmc::GetMcsFromCqi`). Where the two tables share an entry (most
    /// CQIs) it is that entry.
    pub fn mcs_for_cqi(self, cqi: u8) -> u8 {
        let se = self.cqi_entry(cqi).efficiency();
        self.entries().iter().rposition(|m| m.efficiency() <= se + 1e-12).map_or(0, |m| m as u8)
    }

    /// The CQI a UE reports when `mcs` is the highest MCS it could receive at the target BLER:
    /// the highest CQI whose efficiency does not exceed the MCS's (5G-LENA `CreateCqiFeedbackSiso`).
    /// At least 1: a UE that can take MCS 0 is in range.
    pub fn cqi_for_mcs(self, mcs: u8) -> u8 {
        let se = self.entry(mcs).efficiency();
        (1..=MAX_CQI).rev().find(|&c| self.cqi_entry(c).efficiency() <= se + 1e-12).unwrap_or(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spot values of the tables: table 1 MCS 28 = 64QAM 948 (efficiency 5.5547), table 2 MCS 27
    /// = 256QAM 948 (7.4063), table 3 MCS 0 = QPSK 30 (0.0586); CQI table 2 CQI 15 = 256QAM 948.
    #[test]
    fn tables_match_ts_38_214() {
        assert_eq!(McsTable::Qam64.entry(28), e(6, 948.0));
        assert!((McsTable::Qam64.entry(28).efficiency() - 5.5547).abs() < 1e-4);
        assert!((McsTable::Qam256.entry(27).efficiency() - 7.4063).abs() < 1e-4);
        assert!((McsTable::Qam64LowSe.entry(0).efficiency() - 0.0586).abs() < 1e-4);
        assert_eq!(McsTable::Qam256.cqi_entry(15), e(8, 948.0));
        assert_eq!(
            (McsTable::Qam64.max_mcs(), McsTable::Qam256.max_mcs(), McsTable::Qam64LowSe.max_mcs()),
            (28, 27, 28)
        );
        for t in [McsTable::Qam64, McsTable::Qam256, McsTable::Qam64LowSe] {
            let se: Vec<f64> = t.entries().iter().map(|m| m.efficiency()).collect();
            // Non-decreasing but for table 1's 16QAM-to-64QAM step (MCS 16: 2.5703, MCS 17: 2.5664).
            assert!(se.windows(2).all(|w| w[0] <= w[1] + 0.005), "{t:?}: efficiency non-decreasing");
        }
    }

    /// CQI <-> MCS through the spectral efficiency: table 1's CQI 15 (948) is MCS 28, CQI 7
    /// (16QAM 378) MCS 11, CQI 1 (78, below MCS 0's 120) MCS 0; table 2's CQI 12 (256QAM 711) MCS 21.
    #[test]
    fn cqi_and_mcs_map_through_efficiency() {
        let t1 = McsTable::Qam64;
        assert_eq!([t1.mcs_for_cqi(15), t1.mcs_for_cqi(7), t1.mcs_for_cqi(1)], [28, 11, 0]);
        assert_eq!(McsTable::Qam256.mcs_for_cqi(12), 21);
        for t in [McsTable::Qam64, McsTable::Qam256, McsTable::Qam64LowSe] {
            for cqi in 1..=MAX_CQI {
                let m = t.mcs_for_cqi(cqi);
                // Table 1's CQI 1 lies below every MCS: it gets MCS 0, which reports as CQI 2.
                if t.entry(m).efficiency() <= t.cqi_entry(cqi).efficiency() {
                    assert!(t.cqi_for_mcs(m) <= cqi, "{t:?} CQI {cqi}: MCS {m} reports back no higher");
                }
            }
        }
    }
}
