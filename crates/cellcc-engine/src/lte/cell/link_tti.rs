//! The state of each UE's two links that the cell reads every TTI for every UE with work: the
//! CQI reports in flight and in force, and what the demand found for the link's slot.
//!
//! Every TTI the cell asks each UE with work for the downlink report in force (its DCI's
//! aggregation level and its downlink demand), for the uplink one (its uplink demand) and
//! whether a downlink measurement is due, and the demand writes the CQI and the band's capacity
//! into the link's `lte` slot. With all of it inside the boxed UE contexts, each was a first
//! load of a context several KB from the last: in the 1000-UE cell `perf annotate` put about a
//! fifth of `gather_demand`'s samples on the tracker's first load, and with the trackers moved
//! out the miss moved to the slot writes (docs/performance.md, "The UEs' air state beside the
//! contexts"). [`LinkTtiStates`] keeps the trackers in one array indexed by UE, so those passes
//! walk it in UE order, and holds the demand's slot writes for the TTI's sample, which loads the
//! slot anyway.

use crate::lte::phy::CqiReport;
use crate::lte::sap::LinkDir;
use crate::sim::{SimDuration, SimTime};
use std::collections::VecDeque;

/// CQI reports in flight and the one in force (TS 36.213 §7.2).
#[derive(Debug, Default)]
pub struct CqiTracker {
    in_flight: VecDeque<(SimTime, CqiReport)>,
    /// When the oldest report in flight becomes usable: the time of `in_flight`'s front, kept
    /// here so the check every TTI does not read the queue's heap block (a cache miss per UE
    /// in a cell of a thousand).
    next_usable_at: Option<SimTime>,
    current: Option<CqiReport>,
    last_measured: Option<SimTime>,
}

impl CqiTracker {
    /// Whether a measurement is due at `now` with reporting period `period`.
    pub fn due(&self, now: SimTime, period: SimDuration) -> bool {
        self.last_measured.is_none_or(|m| now.saturating_since(m) >= period)
    }

    pub fn measured(&mut self, now: SimTime, report: CqiReport, usable_at: SimTime) {
        self.last_measured = Some(now);
        self.in_flight.push_back((usable_at, report));
        self.next_usable_at = self.next_usable_at.or(Some(usable_at));
    }

    /// The occasions a UE left unmeasured while idle whose reports matter at `now`: on the grid
    /// `anchor + k period` (from the last measurement, or from `anchor` if there was none),
    /// before `now`, from the latest one whose report is usable by `now` (`delay`) on.
    pub fn missed_occasions(
        &self,
        anchor: SimTime,
        period: SimDuration,
        delay: SimDuration,
        now: SimTime,
    ) -> impl Iterator<Item = SimTime> {
        let p = period.as_ns().max(1);
        let (base, first) = match self.last_measured {
            Some(m) => (m, m + period),
            None => (anchor, anchor),
        };
        // The latest grid point at or before now - delay: its report is the one in force now.
        let in_force = now.as_ns().checked_sub(delay.as_ns()).filter(|&t| t >= base.as_ns());
        let in_force = in_force.map(|t| t - (t - base.as_ns()) % p);
        let start = in_force.map_or(first.as_ns(), |t| t.max(first.as_ns()));
        (start..now.as_ns()).step_by(p as usize).map(SimTime)
    }

    /// The latest report usable at `now`.
    pub fn current(&mut self, now: SimTime) -> Option<CqiReport> {
        while self.next_usable_at.is_some_and(|t| t <= now) {
            self.current = self.in_flight.pop_front().map(|(_, c)| c);
            self.next_usable_at = self.in_flight.front().map(|&(t, _)| t);
        }
        self.current
    }
}

/// What the demand found for a link in this TTI, for its `lte` slot: the CQI in force and the
/// whole band's capacity at the demand's MCS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DemandRecord {
    pub cqi: Option<u8>,
    /// The MCS and the RBs usable (those not reported out of range), if the link has an MCS.
    pub band: Option<(u8, u32)>,
}

/// One link's per-TTI state.
#[derive(Debug, Default)]
pub(super) struct LinkTti {
    pub cqi: CqiTracker,
    /// This TTI's demand record, until the TTI's sample writes it into the slot.
    pub record: Option<DemandRecord>,
}

/// Per UE index, the per-TTI state of its downlink and uplink (reset when it leaves the cell:
/// its reports were the old cell's measurements).
pub(super) struct LinkTtiStates(Vec<[LinkTti; 2]>);

impl LinkTtiStates {
    pub(super) fn new(n_ues: usize) -> Self {
        LinkTtiStates((0..n_ues).map(|_| Default::default()).collect())
    }

    /// UE `i`'s link `dir`.
    pub(super) fn link(&mut self, i: usize, dir: LinkDir) -> &mut LinkTti {
        let [dl, ul] = &mut self.0[i];
        match dir {
            LinkDir::Downlink => dl,
            LinkDir::Uplink => ul,
        }
    }

    /// UE `i`'s downlink CQI tracker.
    pub(super) fn dl_cqi(&mut self, i: usize) -> &mut CqiTracker {
        &mut self.link(i, LinkDir::Downlink).cqi
    }

    /// UE `i`'s demand records of this TTI (downlink, uplink), taken.
    pub(super) fn take_records(&mut self, i: usize) -> [Option<DemandRecord>; 2] {
        let [dl, ul] = &mut self.0[i];
        [dl.record.take(), ul.record.take()]
    }

    /// UE `i` left the cell (or joins it): no reports.
    pub(super) fn forget(&mut self, i: usize) {
        self.0[i] = Default::default();
    }
}
