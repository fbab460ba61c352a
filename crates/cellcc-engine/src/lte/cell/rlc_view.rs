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
use crate::lte::sap::LinkDir;
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

/// Per UE index, its [`RlcView`], and whether each entity changed since it was read.
pub(super) struct RlcViews {
    views: Vec<RlcView>,
    /// Per UE, `[eNB's entity, UE's entity]` changed since read. Kept per entity: a network's
    /// busy UE has both entities handed something every TTI, and the passes between read one
    /// entity each (the uplink's BSR the UE's, the downlink demand the eNB's).
    stale: Vec<[bool; 2]>,
}

/// Index in [`RlcViews::stale`] of the entity transmitting `dir`.
fn transmitting(dir: LinkDir) -> usize {
    match dir {
        LinkDir::Downlink => 0,
        LinkDir::Uplink => 1,
    }
}

impl RlcViews {
    /// Every view stale: read at first use.
    pub(super) fn new(n_ues: usize) -> Self {
        RlcViews { views: vec![RlcView::default(); n_ues], stale: vec![[true; 2]; n_ues] }
    }

    /// UE `i`'s entities may have changed.
    pub(super) fn touch(&mut self, i: usize) {
        self.stale[i] = [true; 2];
    }

    /// The entity of UE `i` transmitting `dir` may have changed; the other did not.
    pub(super) fn touch_transmitting(&mut self, i: usize, dir: LinkDir) {
        self.stale[i][transmitting(dir)] = true;
    }

    /// Debug builds (every test): each attached UE's view that is not stale is what its entities
    /// hold at `now`, so a change the cell made without [`Self::touch`] fails the test that made it.
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, ues: &UeSlots, now: SimTime) {
        for (i, ue) in ues.attached() {
            let [enb_stale, ue_stale] = self.stale[i];
            let view = &self.views[i];
            assert!(enb_stale || view.enb == ue.enb_rlc.levels(now), "UE {i}'s eNB RLC view was not marked stale");
            assert!(ue_stale || view.ue == ue.ue_rlc.levels(now), "UE {i}'s UE RLC view was not marked stale");
        }
    }

    /// UE `i`'s view at `now`, each entity read again from `ue` if it changed.
    pub(super) fn get(&mut self, i: usize, ue: &UeContext, now: SimTime) -> &RlcView {
        self.levels(i, ue, now, LinkDir::Downlink);
        self.levels(i, ue, now, LinkDir::Uplink);
        &self.views[i]
    }

    /// UE `i`'s entity transmitting `dir` at `now`, read again from `ue` if it changed.
    pub(super) fn levels(&mut self, i: usize, ue: &UeContext, now: SimTime, dir: LinkDir) -> &RlcLevels {
        let stale = &mut self.stale[i][transmitting(dir)];
        let view = &mut self.views[i];
        let (levels, rlc) = match dir {
            LinkDir::Downlink => (&mut view.enb, &ue.enb_rlc),
            LinkDir::Uplink => (&mut view.ue, &ue.ue_rlc),
        };
        if *stale {
            *levels = rlc.levels(now);
            *stale = false;
        }
        levels
    }
}
