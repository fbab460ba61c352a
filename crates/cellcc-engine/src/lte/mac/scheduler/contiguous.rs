//! Uplink allocation: contiguous RBs per UE (SC-FDMA, TS 36.211 §5.3: one cluster of
//! consecutive PRBs per PUSCH, uplink resource allocation type 0, TS 36.213 §8.1.1).
//!
//! All three ns-3 schedulers share the same uplink algorithm (rr/pf/fdmt-ff-mac-scheduler.cc,
//! `DoSchedUlTriggerReq`): UEs with a non-zero BSR are served in cyclic order from
//! `m_nextRntiUl`, the bandwidth split evenly (`rbPerFlow`, at least 3 RBs "to ensure
//! TxOpportunity >= 7 bytes"), each UE a contiguous block placed on free RBs. Here the split
//! is over the RBs left free by HARQ retransmissions, capped at each UE's need with the rest
//! shared (see `Scheduler::split_evenly`). ns-3 (and here) ignores the DFT-size rule that
//! N_PRB be a product of 2, 3 and 5 (TS 36.211 §5.3.3).

use super::Scheduler;
use crate::lte::sap::RbMask;

/// ns-3's least uplink grant: 3 RBs per UE while RBs last (`rbPerFlow < 3 → 3`).
pub const MIN_UL_RBS_PER_UE: u32 = 3;

pub(super) fn allocate(s: &mut Scheduler, busy: RbMask) {
    s.rotate_candidates();
    let band = RbMask::range(0, s.n_rbs);
    let mut taken = RbMask(busy.0 & band.0);
    s.split_evenly(s.n_rbs - taken.count(), 1, MIN_UL_RBS_PER_UE);
    for k in 0..s.candidates.len() {
        let want = s.candidates[k].target_units;
        let (first, len) = place(s.n_rbs, taken, want);
        if len == 0 || len < want.min(MIN_UL_RBS_PER_UE) {
            // ns-3 stops when fewer than 3 RBs are left ("terminate allocation").
            return;
        }
        let rbs = RbMask::range(first, len);
        s.candidates[k].rbs = rbs;
        taken = taken.union(rbs);
    }
}

/// The first free run of at least `want` RBs, else the longest free run (lowest first);
/// returns (first RB, RBs to take = min(want, run length)).
pub(super) fn place(n_rbs: u32, taken: RbMask, want: u32) -> (u32, u32) {
    let free = RbMask(!taken.0).intersection(RbMask::range(0, n_rbs));
    let mut best = (0, 0);
    for run in free.runs() {
        let (start, len) = (run.start as u32, run.len() as u32);
        if len >= want {
            return (start, want);
        }
        if len > best.1 {
            best = (start, len);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_takes_the_first_run_that_fits_else_the_longest() {
        let taken = RbMask::range(2, 1).union(RbMask::range(6, 2));
        assert_eq!(place(12, taken, 2), (0, 2));
        assert_eq!(place(12, taken, 3), (3, 3));
        assert_eq!(place(12, taken, 4), (8, 4));
        assert_eq!(place(12, taken, 6), (8, 4), "no run of 6: the longest, 8..12");
        assert_eq!(place(12, RbMask::range(0, 12), 1), (0, 0));
    }
}
