//! Transport block size: TS 36.213 §7.1.7.2, the whole Table 7.1.7.2.1-1 (I_TBS 0..26 x N_PRB 1..110).
//!
//! The table is the data file `data/tbs_36213_table_7_1_7_2_1_1.txt` (provenance in its
//! header), parsed once on first use into a flat array; a lookup is one index.
//! MCS -> I_TBS is [`super::amc::mcs_info`] (Table 7.1.7.1-1 for PDSCH, 8.6.1-1 for PUSCH).
//!
//! What differs from ns-3 LENA (`lte-amc.cc`): one entry. The standard's
//! I_TBS 6 / N_PRB 1 is 328 bits; ns-3 replaces it with 88. We carry the standard.

use std::sync::LazyLock;

use super::amc::mcs_info;
use super::data;
use crate::lte::sap::LinkDir;

/// TBS indices of Table 7.1.7.2.1-1 (TS 36.213 §7.1.7.2.1: I_TBS 0..26 for one spatial layer).
pub const N_ITBS: usize = 27;
/// PRB columns of Table 7.1.7.2.1-1 (N_PRB 1..110).
pub const MAX_PRB: u32 = 110;

const TBS_FILE: &str = "tbs_36213_table_7_1_7_2_1_1.txt";
static TBS_SRC: &str = include_str!("data/tbs_36213_table_7_1_7_2_1_1.txt");

/// Row-major `[i_tbs][n_prb - 1]`, bits.
static TBS_TABLE: LazyLock<Box<[u32]>> = LazyLock::new(parse_tbs_table);

fn parse_tbs_table() -> Box<[u32]> {
    let mut table = Vec::with_capacity(N_ITBS * MAX_PRB as usize);
    let mut rows = 0;
    for (line, row) in data::rows(TBS_SRC) {
        let before = table.len();
        table.extend(data::numbers(TBS_FILE, line, row).map(|v| v as u32));
        assert_eq!(table.len() - before, MAX_PRB as usize, "{TBS_FILE}:{line}: a row holds N_PRB 1..110");
        rows += 1;
    }
    assert_eq!(rows, N_ITBS, "{TBS_FILE}: one row per I_TBS 0..26");
    table.into_boxed_slice()
}

/// Transport block size (bits) of TBS index `i_tbs` on `n_prb` PRBs (TS 36.213 Table 7.1.7.2.1-1).
/// `n_prb == 0` carries nothing (0 bits).
pub fn tbs_bits_for_itbs(i_tbs: u8, n_prb: u32) -> u32 {
    assert!((i_tbs as usize) < N_ITBS, "I_TBS {i_tbs} outside 0..=26");
    assert!(n_prb <= MAX_PRB, "N_PRB {n_prb} outside 0..=110");
    if n_prb == 0 {
        return 0;
    }
    TBS_TABLE[i_tbs as usize * MAX_PRB as usize + (n_prb - 1) as usize]
}

/// Transport block size (bits) of MCS `mcs` (0..=28) on `n_prb` PRBs in direction `dir`
/// (TS 36.213 §7.1.7.2 via Table 7.1.7.1-1 downlink / Table 8.6.1-1 uplink).
pub fn tbs_bits(dir: LinkDir, mcs: u8, n_prb: u32) -> u32 {
    tbs_bits_for_itbs(mcs_info(dir, mcs).i_tbs, n_prb)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values: TS 36.213 Table 7.1.7.2.1-1 (same numbers in ns-3 lte-amc.cc).
    #[test]
    fn table_points_match_ts_36_213() {
        let points: [(u8, u32, u32); 12] = [
            (0, 1, 16),
            (0, 110, 3112),
            (6, 1, 328), // the standard's odd entry (ns-3 uses 88)
            (7, 1, 104),
            (9, 10, 1544),
            (13, 25, 6456),
            (15, 50, 15264),
            (20, 6, 2792),
            (26, 1, 712),
            (26, 25, 18336),
            (26, 50, 36696),
            (26, 110, 75376),
        ];
        for (i_tbs, n_prb, bits) in points {
            assert_eq!(tbs_bits_for_itbs(i_tbs, n_prb), bits, "I_TBS {i_tbs} N_PRB {n_prb}");
        }
    }

    #[test]
    fn peak_tbs_is_75376_bits_at_mcs_28_on_100_prbs() {
        assert_eq!(tbs_bits(LinkDir::Downlink, 28, 100), 75_376);
        assert_eq!(tbs_bits(LinkDir::Uplink, 28, 100), 75_376);
    }

    #[test]
    fn mcs_goes_through_the_direction_table() {
        // DL MCS 10 -> I_TBS 9 (Table 7.1.7.1-1); UL MCS 10 -> I_TBS 10 (Table 8.6.1-1).
        assert_eq!(tbs_bits(LinkDir::Downlink, 10, 10), 1544);
        assert_eq!(tbs_bits(LinkDir::Uplink, 10, 10), 1736);
        assert_eq!(tbs_bits(LinkDir::Downlink, 0, 0), 0);
    }

    #[test]
    fn tbs_grows_with_prbs_and_with_itbs() {
        for i in 0..N_ITBS as u8 {
            for n in 2..=MAX_PRB {
                // The standard's I_TBS 6 / N_PRB 1 = 328 exceeds N_PRB 2's 176.
                if i == 6 && n == 2 {
                    continue;
                }
                assert!(tbs_bits_for_itbs(i, n) >= tbs_bits_for_itbs(i, n - 1), "I_TBS {i} N_PRB {n}");
            }
        }
        for n in 1..=MAX_PRB {
            for i in 1..N_ITBS as u8 {
                // The one exception is the standard's I_TBS 6 / N_PRB 1 = 328.
                if n == 1 && (i == 6 || i == 7) {
                    continue;
                }
                assert!(tbs_bits_for_itbs(i, n) >= tbs_bits_for_itbs(i - 1, n), "I_TBS {i} N_PRB {n}");
            }
        }
    }

    #[test]
    fn every_tbs_is_whole_bytes() {
        for &bits in TBS_TABLE.iter() {
            assert_eq!(bits % 8, 0);
        }
    }
}
