//! Resource block groups for downlink resource allocation type 0 (TS 36.213 §7.1.6.1).
//!
//! Type 0 gives a UE a bitmap of RBGs of P consecutive RBs; P depends on the downlink
//! bandwidth (Table 7.1.6.1-1), and the last RBG holds N_RB mod P RBs when P does not
//! divide N_RB. ns-3 LENA (`GetRbgSize` in pf/rr-ff-mac-scheduler.cc) uses
//! `rbgNum = N_RB / P` (floor) and so never schedules the last partial RBG (RB 24 at 25 RBs);
//! here the partial RBG is used, as the standard allows.

use serde::{Deserialize, Serialize};

use crate::lte::sap::RbMask;

/// Whether the downlink's last RBG, when shorter than P, is allocated (a cell's `mac.last_rbg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LastRbg {
    /// TS 36.213 §7.1.6.1: the last RBG holds N_RB mod P RBs and is allocated like the others.
    Used,
    /// ns-3 LENA: `rbgNum = N_RB / P`, the partial RBG never scheduled.
    Unused,
}

/// TS 36.213 Table 7.1.6.1-1, type 0 resource allocation RBG size vs downlink bandwidth:
/// (largest N_RB of the row, RBG size P). Rows: ≤10 → 1, 11–26 → 2, 27–63 → 3, 64–110 → 4.
const RBG_SIZE_TABLE: [(u32, u32); 4] = [(10, 1), (26, 2), (63, 3), (110, 4)];

/// RBG size P for a downlink bandwidth of `n_rbs` RBs (TS 36.213 Table 7.1.6.1-1).
pub fn rbg_size(n_rbs: u32) -> u32 {
    assert!((1..=RbMask::MAX_RBS).contains(&n_rbs), "{n_rbs} RBs outside 1..=110");
    RBG_SIZE_TABLE.iter().find(|(max_rbs, _)| n_rbs <= *max_rbs).map(|(_, p)| *p).expect("110 is the last row")
}

/// Number of RBGs, ceil(N_RB / P) (TS 36.213 §7.1.6.1: the last RBG may be shorter).
pub fn rbg_count(n_rbs: u32) -> u32 {
    n_rbs.div_ceil(rbg_size(n_rbs))
}

/// The RBs of RBG `i` of a band of `n_rbs` RBs with RBG size `p`.
pub fn rbg_mask(i: u32, p: u32, n_rbs: u32) -> RbMask {
    let first = i * p;
    debug_assert!(first < n_rbs, "RBG {i} beyond {n_rbs} RBs");
    RbMask::range(first, p.min(n_rbs - first))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 7.1.6.1-1 at every row edge, and the LTE bandwidths of TS 36.101 Table 5.6-1.
    #[test]
    fn rbg_size_follows_table_7_1_6_1_1() {
        for (n, p) in [(1, 1), (6, 1), (10, 1), (11, 2), (15, 2), (25, 2), (26, 2), (27, 3), (50, 3), (63, 3)] {
            assert_eq!(rbg_size(n), p, "{n} RBs");
        }
        for (n, p) in [(64, 4), (75, 4), (100, 4), (110, 4)] {
            assert_eq!(rbg_size(n), p, "{n} RBs");
        }
    }

    /// ceil(N_RB / P): 6 → 6, 15 → 8, 25 → 13, 50 → 17, 75 → 19, 100 → 25.
    #[test]
    fn rbg_count_rounds_up_and_last_rbg_is_shorter() {
        let counts: Vec<u32> = [6, 15, 25, 50, 75, 100].iter().map(|n| rbg_count(*n)).collect();
        assert_eq!(counts, vec![6, 8, 13, 17, 19, 25]);
        assert_eq!(rbg_mask(12, 2, 25), RbMask::range(24, 1), "25 RBs: RBG 12 is RB 24 alone");
        assert_eq!(rbg_mask(16, 3, 50), RbMask::range(48, 2));
        assert_eq!(rbg_mask(18, 4, 75), RbMask::range(72, 3));
        assert_eq!(rbg_mask(3, 4, 100), RbMask::range(12, 4));
        let all = (0..13).fold(RbMask::default(), |m, i| m.union(rbg_mask(i, 2, 25)));
        assert_eq!(all, RbMask::range(0, 25), "the RBGs tile the band");
    }
}
