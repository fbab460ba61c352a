//! The state of each UE's two links that the cell reads every TTI for every UE with work: the
//! CQI reports in flight and in force, the outer loop's offset, and what the demand found for
//! the link's slot.
//!
//! Every TTI the cell asks each UE with work for the downlink report in force (its DCI's
//! aggregation level and its downlink demand), for the uplink one (its uplink demand) and
//! whether a downlink measurement is due, and the demand writes the CQI and the band's capacity
//! into the link's `lte` slot. With all of it inside the boxed UE contexts, each was a first
//! load of a context several KB from the last: in the 1000-UE cell `perf annotate` put about a
//! fifth of `gather_demand`'s samples on the tracker's first load, and with the trackers moved
//! out the miss moved to the slot writes (docs/performance.md, "The UEs' air state beside the
//! contexts"). [`LinkTtiStates`] keeps the trackers and outer loops in one array indexed by UE,
//! so those passes walk it in UE order; it holds the demand's slot writes for the TTI's sample,
//! and what each UE's last sample wrote, so that a sample that would write the same again in
//! the same slot (a backlogged UE the TTI did not serve) leaves the context alone.

use crate::lte::mac::link_adaptation::OuterLoop;
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

    /// The latest report usable at `now`, borrowed: a caller reads the fields it needs. A copy
    /// of the whole report, just written by the loop in 16-byte stores, read its sub-bands back
    /// in loads straddling two of them (failed store forwarding) in `gather_demand`.
    pub fn current(&mut self, now: SimTime) -> Option<&CqiReport> {
        while self.next_usable_at.is_some_and(|t| t <= now) {
            self.current = self.in_flight.pop_front().map(|(_, c)| c);
            self.next_usable_at = self.in_flight.front().map(|&(t, _)| t);
        }
        self.current.as_ref()
    }

    /// The report [`CqiTracker::current`] last found in force.
    pub fn in_force(&self) -> Option<&CqiReport> {
        self.current.as_ref()
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

/// What the last sample of a UE wrote: in the same slot, the same values again change nothing
/// (the slot keeps the last CQI, buffer and serving cell; an unchanged rate counts no capacity
/// yet; no PDUs retransmitted since). Held as words, one for each value, each word a one-to-one
/// code of its value ([`Sampled::new`]), so that equal samples are equal words: comparing and
/// storing the structured value (options of tuples in options) was over a quarter of `end_tti`'s
/// samples in the 1000-UE cell.
#[derive(Clone, Copy, Debug)]
struct Sampled([u64; 8]);

impl Sampled {
    /// Before any sample: no sample's first word (its slot index) is `u64::MAX`.
    const NONE: Sampled = Sampled([u64::MAX; 8]);

    /// A sample in slot `slot` (the index before clamping to the last slot: equal indices,
    /// equal slots) for `serving`, of each link's demand record and transmitting RLC entity's
    /// (SDU bytes, retransmitted PDUs).
    fn new(slot: u64, serving: Option<u16>, records: [Option<DemandRecord>; 2], levels: [(u64, u64); 2]) -> Self {
        let serving = serving.map_or(0, |c| 1 << 16 | u64::from(c));
        let [dl, ul] = records.map(record_word);
        let [(dl_bytes, dl_pdus), (ul_bytes, ul_pdus)] = levels;
        Sampled([slot, serving, dl, dl_bytes, dl_pdus, ul, ul_bytes, ul_pdus])
    }
}

/// A demand record as one word: a presence bit for the record, its CQI and its band, then the
/// CQI (8 bits), the MCS (8 bits) and the usable RBs (32 bits); `None` is 0.
fn record_word(record: Option<DemandRecord>) -> u64 {
    record.map_or(0, |r| {
        let cqi = r.cqi.map_or(0, |c| 1 << 62 | u64::from(c) << 48);
        let band = r.band.map_or(0, |(mcs, rbs)| 1 << 61 | u64::from(mcs) << 32 | u64::from(rbs));
        1 << 63 | cqi | band
    })
}

/// One link's per-TTI state.
#[derive(Debug, Default)]
pub(super) struct LinkTti {
    pub cqi: CqiTracker,
    /// This TTI's demand record, until the TTI's sample writes it into the slot.
    pub record: Option<DemandRecord>,
    /// The outer loop's offset (moves only when the cell runs one).
    pub olla: OuterLoop,
    /// The last wideband MCS looked up: for (CQI, the outer loop's offset's bits), the MCS.
    mcs_lookup: Option<(u8, u64, Option<u8>)>,
}

impl LinkTti {
    /// The MCS of wideband CQI `cqi` by `mcs_of_cqi` (a function of the CQI and this link's outer
    /// loop offset only), looked up again only when either changed: the downlink's is a
    /// bisection over the MCS ladder for every UE with work in every TTI, and both rarely move.
    pub fn wideband_mcs(&mut self, cqi: u8, mcs_of_cqi: impl Fn(u8) -> Option<u8>) -> Option<u8> {
        let offset_bits = self.olla.offset_db().to_bits();
        match self.mcs_lookup {
            Some((c, o, mcs)) if c == cqi && o == offset_bits => mcs,
            _ => {
                let mcs = mcs_of_cqi(cqi);
                self.mcs_lookup = Some((cqi, offset_bits, mcs));
                mcs
            }
        }
    }
}

/// Per UE index, the per-TTI state of its downlink and uplink (reset when it leaves the cell:
/// its reports and outer loop were the old cell's).
pub(super) struct LinkTtiStates {
    links: Vec<[LinkTti; 2]>,
    /// Per UE, what its last sample wrote.
    sampled: Vec<Sampled>,
}

impl LinkTtiStates {
    pub(super) fn new(n_ues: usize) -> Self {
        LinkTtiStates { links: (0..n_ues).map(|_| Default::default()).collect(), sampled: vec![Sampled::NONE; n_ues] }
    }

    /// UE `i`'s link `dir`.
    pub(super) fn link(&mut self, i: usize, dir: LinkDir) -> &mut LinkTti {
        let [dl, ul] = &mut self.links[i];
        match dir {
            LinkDir::Downlink => dl,
            LinkDir::Uplink => ul,
        }
    }

    /// UE `i`'s downlink CQI tracker.
    pub(super) fn dl_cqi(&mut self, i: usize) -> &mut CqiTracker {
        &mut self.link(i, LinkDir::Downlink).cqi
    }

    /// UE `i`'s demand records of this TTI (downlink, uplink), taken, for a sample in slot
    /// `slot` (unclamped index) of the RLC `levels` (downlink, uplink: SDU bytes, retransmitted
    /// PDUs) for `serving`; `None` when the UE's last sample wrote the same in the same slot.
    pub(super) fn records_to_sample(
        &mut self,
        i: usize,
        slot: u64,
        levels: [(u64, u64); 2],
        serving: Option<u16>,
    ) -> Option<[Option<DemandRecord>; 2]> {
        let [dl, ul] = &mut self.links[i];
        let records = [dl.record.take(), ul.record.take()];
        let now = Sampled::new(slot, serving, records, levels);
        // Word by word: a whole-value compare built the new sample on the stack in 8-byte stores
        // and read it back in 16-byte loads, each across two stores (a failed store forwarding).
        let mut changed = false;
        for (last, word) in self.sampled[i].0.iter_mut().zip(now.0) {
            changed |= *last != word;
            *last = word;
        }
        changed.then_some(records)
    }

    /// UE `i` left the cell (or joins it): no reports, a fresh outer loop, nothing sampled.
    pub(super) fn forget(&mut self, i: usize) {
        self.links[i] = Default::default();
        self.sampled[i] = Sampled::NONE;
    }
}
