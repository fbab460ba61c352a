//! Round robin, downlink (ns-3 `RrFfMacScheduler`, rr-ff-mac-scheduler.cc; lte-design.rst
//! "Round Robin (RR) Scheduler").
//!
//! UEs with data are served in cyclic order starting after the one served first last TTI;
//! the free RBGs are split evenly among them (`rbgPerTb = free RBGs / UEs`, at least 1) and
//! handed out lowest RBG first. Differences from ns-3: a UE whose buffer needs fewer RBGs than
//! an equal share gets only what it needs and the rest is shared among the others, and the
//! remainder of the division goes one RBG each to the first UEs in order (ns-3 leaves those
//! RBGs empty), so the scheduler is work-conserving.

use super::Scheduler;
use crate::lte::sap::RbMask;

/// Every UE in the split gets at least one RBG while RBGs last (ns-3: "at least 1 rbg per TB").
const MIN_RBGS_PER_UE: u32 = 1;

pub(super) fn allocate(s: &mut Scheduler, busy: RbMask) {
    s.rotate_candidates();
    let free_rbgs = (0..s.n_units()).filter(|i| !s.unit_mask(*i).overlaps(busy)).count() as u32;
    s.split_evenly(free_rbgs, s.rbg_size, MIN_RBGS_PER_UE);
    let mut rbg = 0;
    for k in 0..s.candidates.len() {
        let mut want = s.candidates[k].target_units;
        while want > 0 && rbg < s.n_units() {
            let mask = s.unit_mask(rbg);
            rbg += 1;
            // An out-of-range sub-band is skipped, not passed on (one pass over the RBGs).
            if !mask.overlaps(busy) && !mask.overlaps(s.candidates[k].out_of_range) {
                s.candidates[k].rbs = s.candidates[k].rbs.union(mask);
                want -= 1;
            }
        }
    }
}
