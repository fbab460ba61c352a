//! What the cell reads of each UE's two RLC entities every TTI, kept beside the UE contexts.
//!
//! Each TTI reads, for every UE with work, the UE's uplink buffer and its changes (the BSR
//! bookkeeping), the eNB's downlink buffer (the demand), both entities' SDU bytes and
//! retransmissions (the `lte` table's sample), whether either has data and its next timer (who
//! still has work). Each read was a load from the entities' state inside the UE's boxed context,
//! several KB from the last UE's: in the 1000-UE cell, with the links' state already out of the
//! contexts, `perf annotate` put the hottest instructions of `begin_tti` and `gather_demand` on
//! the first load of the RLC entity (docs/performance.md, "The UEs' air state beside the
//! contexts"). [`RlcViews`] keeps each UE's [`RlcLevels`] in one array indexed by UE, marked
//! stale wherever the cell hands the UE's entities something (an SDU, a transmission
//! opportunity, a received or lost PDU, a timer) and read again from the context only then.

use super::ue::UeContext;
#[cfg(debug_assertions)]
use super::UeSlots;
use crate::lte::rlc::RlcLevels;
use crate::sim::SimTime;

/// One UE's two entities as last read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RlcView {
    /// The eNB's entity (transmits downlink).
    pub enb: RlcLevels,
    /// The UE's entity (transmits uplink).
    pub ue: RlcLevels,
}

impl RlcView {
    /// Whether either entity has something to send at `now`.
    pub fn has_data(&self, now: SimTime) -> bool {
        self.enb.has_data(now) || self.ue.has_data(now)
    }

    /// The earliest timer of either entity.
    pub fn timer(&self) -> Option<SimTime> {
        SimTime::earliest(self.enb.timer, self.ue.timer)
    }
}

/// Per UE index, its [`RlcView`], and whether the entities changed since it was read.
pub(super) struct RlcViews {
    views: Vec<RlcView>,
    stale: Vec<bool>,
}

impl RlcViews {
    /// Every view stale: read at first use.
    pub(super) fn new(n_ues: usize) -> Self {
        RlcViews { views: vec![RlcView::default(); n_ues], stale: vec![true; n_ues] }
    }

    /// UE `i`'s entities may have changed.
    pub(super) fn touch(&mut self, i: usize) {
        self.stale[i] = true;
    }

    /// Debug builds (every test): each attached UE's view that is not stale is what its entities
    /// hold at `now`, so a change the cell made without [`Self::touch`] fails the test that made it.
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, ues: &UeSlots, now: SimTime) {
        for (i, ue) in ues.attached().filter(|&(i, _)| !self.stale[i]) {
            let fresh = RlcView { enb: ue.enb_rlc.levels(now), ue: ue.ue_rlc.levels(now) };
            assert_eq!(self.views[i], fresh, "UE {i}'s RLC view was not marked stale");
        }
    }

    /// UE `i`'s view at `now`, read again from `ue` if its entities changed.
    pub(super) fn get(&mut self, i: usize, ue: &UeContext, now: SimTime) -> &RlcView {
        if self.stale[i] {
            self.views[i] = RlcView { enb: ue.enb_rlc.levels(now), ue: ue.ue_rlc.levels(now) };
            self.stale[i] = false;
        }
        &self.views[i]
    }
}
