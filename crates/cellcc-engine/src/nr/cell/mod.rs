//! One NR cell as a medium of the world: a gNB, its UEs, and per UE one data radio bearer
//! (PDCP + RLC at both ends), the MAC (HARQ, schedulers, SR/BSR) and the PHY abstraction, on the
//! slot clock of its numerology and frame.
//!
//! ```text
//!  world ──enqueue(from, next, packet)──► PDCP (COUNT) ─► RLC tx ─┐ buffer status
//!                                                                  ▼
//!  each occasion (a slot's PDSCH/PUSCH, or a mini-slot), in time order:
//!    first event of a slot: RLC buffers sampled; CSI-RS (CQI, reported on the next PUCCH);
//!                           SRS; SR on the PUCCH (read at the slot's end)
//!    PDSCH occasion: UL grants for the PUSCH slots this slot serves (K2), then
//!                    DL retransmissions, new DL TBs (scheduler over RBGs) ─► EESM BLER draw now;
//!                    decoded TB reaches the UE at the occasion's end; HARQ-ACK at the end of slot n + K1
//!    PUSCH occasion: the granted TBs (filled from the UE's RLC, with a BSR) ─► BLER draw;
//!                    the gNB has the TB and its CRC at the occasion's end
//!  any time: TB ends (RLC rx ─► PDCP reordering ─► world), feedback, reports, RLC/PDCP timers
//! ```
//! The world sees enqueue, a next deadline and what comes out (`CellOutput`, as the LTE cell's).
//! A cell with no data, no HARQ process busy and no timer asks for no wake-up.

mod slot;
mod stats;
mod ue;

pub use stats::{nr_table, NrSlot, NrSlots};

use std::collections::VecDeque;

use super::config::NrCellConfig;
use super::frame::Frame;
use super::mac::rbg::{RbgLayout, RbgMask};
use super::mac::scheduler::{NrDemand, NrNewTb, NrScheduler};
use super::mac::uplink::UplinkRequests;
use super::phy::{Allocation, HarqHistory, McsTable, NrAmc};
use crate::error::ScenarioError;
use crate::lte::cell::{CellEnqueued, CellOutput};
use crate::lte::channel::sweep::SweepSinr;
use crate::lte::mac::link_adaptation::OllaConfig;
use crate::lte::sap::{LinkDir, UeIndex};
use crate::lte::sinr::{PerUeSinr, SinrSeries, SinrSource, UeSinr};
use crate::packet::PacketId;
use crate::scenario::{NrCellSpec, SinrSpec};
use crate::sim::{NodeId, SimDuration, SimTime};
use ue::{NrTb, NrUe, Payload};

/// CQI assumed before a UE's first report (the lowest in range; the LTE cell's rule).
const CQI_BEFORE_FIRST_REPORT: u8 = 1;

/// A PDSCH or PUSCH occasion of a slot, by index into its plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Occ {
    Dl(usize),
    Ul(usize),
}

/// A report on its way to the gNB.
#[derive(Clone, Copy, Debug)]
enum Report {
    Sr(usize),
    Cqi(usize, u8),
}

/// A PUSCH granted and waiting for its occasion.
#[derive(Debug)]
struct Pusch {
    at: SimTime,
    end: SimTime,
    tb: NrTb,
    /// A retransmission's payload and combining history (None: a new TB, filled when sent).
    retx: Option<(Payload, HarqHistory)>,
}

/// What the whole band carries at one MCS, per pattern offset (the `capacity_bps` column).
#[derive(Clone, Debug, Default)]
struct CapacityClock {
    next_slot: u64,
    mcs: Option<u8>,
}

/// The gNB's uplink estimate of one UE: per PRB, from the SRS (whole band) and PUSCH DM-RS.
#[derive(Clone, Debug)]
struct UlEstimate {
    sinr_lin: Vec<f64>,
    measured: bool,
    last_srs_slot: Option<u64>,
    /// The whole band's MCS at an outer-loop offset (dB), until the estimate or the offset changes:
    /// every slot asks for it (the capacity clock), a measurement comes every few slots.
    band_mcs: Option<(f64, u8)>,
}

pub struct NrCell {
    pub name: String,
    gnb: NodeId,
    ue_nodes: Vec<NodeId>,
    ue_names: Vec<String>,
    mtu_bytes: u32,
    frame: Frame,
    layout: RbgLayout,
    n_prb: u32,
    table: McsTable,
    dl_amc: NrAmc,
    ul_amc: NrAmc,
    /// DM-RS REs per PRB per DM-RS symbol, downlink and uplink (6 per CDM group without data).
    dmrs_re: [u32; 2],
    x_overhead: u32,
    ues: Vec<NrUe>,
    /// Per UE: the latest CQI the gNB holds and the slot it last measured.
    cqi: Vec<(Option<u8>, Option<u64>)>,
    ul_est: Vec<UlEstimate>,
    /// Per UE, the HARQ processes reserved by uplink grants not yet sent (bitmask).
    ul_reserved: Vec<u32>,
    dl_sched: NrScheduler,
    ul_sched: NrScheduler,
    uplink: UplinkRequests,
    pusch: VecDeque<Pusch>,
    reports: VecDeque<(SimTime, Report)>,
    olla: Option<OllaConfig>,
    csi_period_slots: u64,
    srs_period_slots: u64,
    sinr: Box<dyn SinrSource>,
    sinr_lin: Vec<f64>,
    /// Per pattern offset, the slot's occasions in time order: (first symbol, which).
    events: Vec<Vec<(u32, Occ)>>,
    /// The next event to run: (slot, index into its events).
    cursor: (u64, usize),
    tasks_done: Option<u64>,
    grants_done: Option<u64>,
    capacity: Vec<[CapacityClock; 2]>,
    /// Per direction, per MCS: the whole band's bits per pattern offset.
    capacity_bits: [Vec<Option<Vec<u64>>>; 2],
    deadline: Option<SimTime>,
    /// Per UE, the earliest of its TB ends, feedbacks and RLC/PDCP timers as of the last
    /// `refresh_deadline` (or `enqueue`): a wake-up visits only the UEs with something due.
    ue_due: Vec<Option<SimTime>>,
    /// UEs whose TB ends, feedback or timers may have moved since `ue_due` was computed: the ones
    /// a wake-up visited and the ones a TB was sent to or from (nothing else touches a bearer).
    touched: Vec<bool>,
    end: SimTime,
    now: SimTime,
    demand: Vec<NrDemand>,
    new_tbs: Vec<NrNewTb>,
    retx_ue: Vec<bool>,
    granted_slots: Vec<u64>,
}

impl NrCell {
    /// Build NR cell `spec` (validated); `path` names it in errors (`nr_cells[0]`).
    pub fn build(
        spec: &NrCellSpec,
        path: &str,
        node: &dyn Fn(&str) -> NodeId,
        seed: u64,
        slot: SimDuration,
        end: SimTime,
    ) -> Result<NrCell, ScenarioError> {
        let cfg = spec.resolve();
        let frame = Frame::new(&cfg.frame_spec(path)?, path)?;
        let n_prb = cfg.n_prb();
        let mu = cfg.mu();
        let layout = RbgLayout::new(n_prb, cfg.rbg_config);
        let dmrs_re = [6 * cfg.pdsch.dl_dmrs_cdm_groups_without_data, 6 * cfg.pdsch.ul_dmrs_cdm_groups_without_data];
        let reference = |dir: usize| {
            // The CSI reference resource (TS 38.214 §5.2.2.5): the band over a full slot's data occasion.
            let occ = (0..frame.period_slots())
                .flat_map(|s| if dir == 0 { frame.plan(s).dl.clone() } else { frame.plan(s).ul.clone() })
                .max_by_key(|o| o.symbols)
                .expect("the frame has both directions");
            Allocation {
                n_prb,
                symbols: occ.symbols,
                dmrs_re_per_prb: dmrs_re[dir] * occ.dmrs_symbols,
                overhead_re_per_prb: cfg.pdsch.x_overhead,
                layers: 1,
            }
        };
        let n = cfg.ues.len();
        let duration = end - SimTime::ZERO;
        let mut ues = Vec::with_capacity(n);
        for u in &cfg.ues {
            let label = format!("nrcell:{}:ue:{}", cfg.id, u.node);
            ues.push(NrUe::new(u, node(&u.node), node(&cfg.gnb), cfg.harq.max_retx, &label, seed, slot, duration));
        }
        let slots_per_ms = mu.slots_per_subframe() as f64;
        let sr_period = (cfg.uplink.sr_period_ms * slots_per_ms).round() as u64;
        let sr_offsets = sr_offsets(&frame, sr_period, n);
        let pf_window_s = cfg.pf_window_ms / 1e3;
        let sched = |_| NrScheduler::new(cfg.scheduler, cfg.grant_sizing, layout, n, pf_window_s);
        let events = (0..frame.period_slots()).map(|s| slot_events(&frame, s)).collect();
        let sinr = sinr_source(&cfg, path, n_prb, mu.prb_hz(), seed)?;
        let mcs_count = usize::from(cfg.mcs_table.max_mcs()) + 1;
        Ok(NrCell {
            name: cfg.id.clone(),
            gnb: node(&cfg.gnb),
            ue_nodes: cfg.ues.iter().map(|u| node(&u.node)).collect(),
            ue_names: cfg.ues.iter().map(|u| u.node.clone()).collect(),
            mtu_bytes: cfg.mtu_bytes,
            dl_amc: NrAmc::new(cfg.mcs_table, &reference(0)),
            ul_amc: NrAmc::new(cfg.mcs_table, &reference(1)),
            frame,
            layout,
            n_prb,
            table: cfg.mcs_table,
            dmrs_re,
            x_overhead: cfg.pdsch.x_overhead,
            ues,
            cqi: vec![(None, None); n],
            ul_est: vec![
                UlEstimate {
                    sinr_lin: vec![1.0; n_prb as usize],
                    measured: false,
                    last_srs_slot: None,
                    band_mcs: None,
                };
                n
            ],
            ul_reserved: vec![0; n],
            dl_sched: sched(0),
            ul_sched: sched(1),
            uplink: UplinkRequests::new(sr_period, &sr_offsets),
            pusch: VecDeque::new(),
            reports: VecDeque::new(),
            olla: cfg.olla,
            csi_period_slots: ((cfg.csi_period_ms * slots_per_ms).round() as u64).max(1),
            srs_period_slots: ((cfg.uplink.srs_period_ms * slots_per_ms).round() as u64).max(1),
            sinr,
            sinr_lin: vec![0.0; n_prb as usize],
            events,
            cursor: (0, 0),
            tasks_done: None,
            grants_done: None,
            capacity: (0..n).map(|_| Default::default()).collect(),
            capacity_bits: [vec![None; mcs_count], vec![None; mcs_count]],
            deadline: None,
            ue_due: vec![None; n],
            touched: vec![false; n],
            end,
            now: SimTime::ZERO,
            demand: Vec::with_capacity(n),
            new_tbs: Vec::with_capacity(n),
            retx_ue: vec![false; n],
            granted_slots: Vec::new(),
        })
    }

    pub fn gnb(&self) -> NodeId {
        self.gnb
    }

    pub fn ue_nodes(&self) -> &[NodeId] {
        &self.ue_nodes
    }

    pub fn mtu_bytes(&self) -> u32 {
        self.mtu_bytes
    }

    fn ue_of(&self, node: NodeId) -> usize {
        self.ue_nodes.iter().position(|&n| n == node).expect("routes only name this cell's UEs")
    }

    /// A packet at `from` (the gNB or a UE) for `next` enters its radio bearer.
    pub fn enqueue(&mut self, now: SimTime, from: NodeId, next: NodeId, id: PacketId, ip_bytes: u32) -> CellEnqueued {
        self.now = now;
        let (ue, dir) =
            if from == self.gnb { (self.ue_of(next), LinkDir::Downlink) } else { (self.ue_of(from), LinkDir::Uplink) };
        match self.ues[ue].admit(now, dir, id, ip_bytes) {
            Ok(()) => {
                self.ue_due[ue] = SimTime::earliest(self.ue_due[ue], self.ues[ue].timer_deadline());
                let next = self.next_event_at_or_after(now);
                if next < self.end {
                    self.deadline = Some(self.deadline.map_or(next, |d| d.min(next)));
                }
                CellEnqueued::Accepted
            }
            Err(id) => CellEnqueued::Dropped(id),
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.deadline
    }

    /// Run what is due at `now`: timers, TB ends, feedback, reports, then the occasions.
    pub fn handle_timeout(&mut self, now: SimTime, out: &mut CellOutput) {
        self.now = now;
        for ((ue, due), touched) in self.ues.iter_mut().zip(&self.ue_due).zip(&mut self.touched) {
            if due.is_none_or(|t| t > now) {
                continue;
            }
            *touched = true;
            if ue.timer_deadline().is_some_and(|t| t <= now) {
                ue.handle_timers(now, out);
            }
            ue.deliver_arrivals(now, LinkDir::Downlink, out);
            ue.deliver_arrivals(now, LinkDir::Uplink, out);
        }
        self.feedback(now, out);
        self.reports(now);
        while self.event_time(self.cursor) <= now {
            let (slot, idx) = self.cursor;
            self.run_event(slot, idx);
            self.advance_cursor();
        }
        self.refresh_deadline();
    }

    /// The time of event `(slot, idx)`.
    fn event_time(&self, (slot, idx): (u64, usize)) -> SimTime {
        let (sym, _) = self.events_of(slot)[idx];
        SimTime(self.frame.at_ns(slot, sym))
    }

    fn events_of(&self, slot: u64) -> &[(u32, Occ)] {
        &self.events[(slot % self.frame.period_slots()) as usize]
    }

    fn advance_cursor(&mut self) {
        let (mut slot, mut idx) = self.cursor;
        idx += 1;
        while idx >= self.events_of(slot).len() {
            slot += 1;
            idx = 0;
        }
        self.cursor = (slot, idx);
    }

    /// Skip the events before `t` (the cell was idle through them); the first one left.
    fn next_event_at_or_after(&mut self, t: SimTime) -> SimTime {
        if self.event_time(self.cursor) < t {
            // Jump close to `t` by whole slots, then step.
            let s = self.frame.mu.slot_at(t.as_ns());
            if self.cursor.0 < s {
                self.cursor = (s, 0);
                if self.events_of(s).is_empty() {
                    self.advance_cursor();
                }
            }
            while self.event_time(self.cursor) < t {
                self.advance_cursor();
            }
        }
        self.event_time(self.cursor)
    }

    fn busy(&self) -> bool {
        let now = self.now;
        !self.pusch.is_empty()
            || !self.reports.is_empty()
            || self.ues.iter().enumerate().any(|(i, u)| u.needs_slot(now) || self.uplink.reported_bytes(i) > 0)
    }

    fn refresh_deadline(&mut self) {
        let next_event = if self.busy() { Some(self.next_event_at_or_after(self.now)) } else { None };
        for ((d, u), touched) in self.ue_due.iter_mut().zip(&self.ues).zip(&mut self.touched) {
            if std::mem::take(touched) {
                *d = u.next_due();
            }
            debug_assert_eq!(*d, u.next_due(), "a UE's bearer moved without being marked touched");
        }
        let due = self.ue_due.iter().flatten().min().copied();
        let report = self.reports.front().map(|r| r.0);
        let at = [next_event, due, report].into_iter().flatten().min();
        self.deadline = at.map(|t| t.max(self.now)).filter(|&t| t < self.end);
    }

    /// IP bytes held in the cell, for the conservation ledger.
    pub fn held_bytes(&self) -> u64 {
        self.ues.iter().map(NrUe::held_bytes).sum()
    }

    /// Close the books at the end of the run (capacity of the slots since the last one run).
    pub fn finish(&mut self, end: SimTime) {
        let last = self.frame.mu.slot_at(end.as_ns().saturating_sub(1)) + 1;
        for i in 0..self.ues.len() {
            for dir in [LinkDir::Downlink, LinkDir::Uplink] {
                self.capacity_run_to(i, dir, last);
            }
        }
    }

    /// The `nr` table rows of this cell.
    pub fn slots(&self) -> impl Iterator<Item = (&str, &str, &'static str, &NrSlots)> {
        self.ues.iter().zip(&self.ue_names).flat_map(move |(u, name)| {
            [("dl", &u.dl.slots), ("ul", &u.ul.slots)].map(|(d, s)| (self.name.as_str(), name.as_str(), d, s))
        })
    }

    /// The TBS of `mcs` on `n_prb` PRBs of an occasion with `symbols` data symbols and `dmrs_symbols`.
    fn tbs(&self, dir: LinkDir, mcs: u8, n_prb: u32, symbols: u32, dmrs_symbols: u32) -> u32 {
        let d = usize::from(dir == LinkDir::Uplink);
        let a = Allocation {
            n_prb,
            symbols,
            dmrs_re_per_prb: self.dmrs_re[d] * dmrs_symbols,
            overhead_re_per_prb: self.x_overhead,
            layers: 1,
        };
        super::phy::tbs_bits(self.table.entry(mcs), &a)
    }

    /// Count the capacity of UE `i`'s `dir` for the slots before `upto` at the MCS in force.
    fn capacity_run_to(&mut self, i: usize, dir: LinkDir, upto: u64) {
        let d = usize::from(dir == LinkDir::Uplink);
        let (from, mcs) = (self.capacity[i][d].next_slot, self.capacity[i][d].mcs);
        if let Some(m) = mcs.filter(|_| from < upto) {
            self.ensure_band_bits(dir, m);
            let bits = self.capacity_bits[d][usize::from(m)].as_ref().expect("just ensured");
            let period = self.frame.period_slots();
            let link = match dir {
                LinkDir::Downlink => &mut self.ues[i].dl,
                LinkDir::Uplink => &mut self.ues[i].ul,
            };
            for s in from..upto {
                let b = bits[(s % period) as usize];
                if b > 0 {
                    link.slots.at(SimTime(self.frame.at_ns(s, 0))).capacity_bits += b;
                }
            }
        }
        let clock = &mut self.capacity[i][d];
        clock.next_slot = clock.next_slot.max(upto);
    }

    /// The whole band's bits per pattern offset at `mcs`, computed once per MCS.
    fn ensure_band_bits(&mut self, dir: LinkDir, mcs: u8) {
        let d = usize::from(dir == LinkDir::Uplink);
        if self.capacity_bits[d][usize::from(mcs)].is_some() {
            return;
        }
        let v: Vec<u64> = (0..self.frame.period_slots())
            .map(|s| {
                let plan = self.frame.plan(s);
                let occ = if dir == LinkDir::Downlink { &plan.dl } else { &plan.ul };
                occ.iter().map(|o| u64::from(self.tbs(dir, mcs, self.n_prb, o.symbols, o.dmrs_symbols))).sum()
            })
            .collect();
        self.capacity_bits[d][usize::from(mcs)] = Some(v);
    }

    /// From slot `slot` on, UE `i`'s `dir` runs at `mcs` (None: out of range, 0 bits).
    fn capacity_set(&mut self, i: usize, dir: LinkDir, slot: u64, mcs: Option<u8>) {
        // The same MCS: the clock runs on from where it stands when the MCS next changes (or at the
        // end); the sums per output slot are the same whenever they are added.
        if self.capacity[i][usize::from(dir == LinkDir::Uplink)].mcs == mcs {
            return;
        }
        self.capacity_run_to(i, dir, slot);
        self.capacity[i][usize::from(dir == LinkDir::Uplink)].mcs = mcs;
    }
}

/// Each of `n` UEs' SR offset within `sr_period` slots, spread over the offsets whose occasions
/// meet a slot with a PUCCH (a period shorter than the TDD pattern has offsets that never do; the
/// frame has at least one PUCCH slot, `Frame::new`).
fn sr_offsets(frame: &Frame, sr_period: u64, n: usize) -> Vec<u64> {
    let (mut a, mut b) = (sr_period, frame.period_slots());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let lcm = sr_period / a * frame.period_slots();
    let mut usable: Vec<u64> = (0..lcm).filter(|s| frame.plan(*s).pucch).map(|s| s % sr_period).collect();
    usable.sort_unstable();
    usable.dedup();
    (0..n).map(|i| usable[i % usable.len()]).collect()
}

/// A slot's PDSCH and PUSCH occasions in time order.
fn slot_events(frame: &Frame, slot: u64) -> Vec<(u32, Occ)> {
    let plan = frame.plan(slot);
    let mut ev: Vec<(u32, Occ)> = plan.dl.iter().enumerate().map(|(i, o)| (o.first_symbol, Occ::Dl(i))).collect();
    ev.extend(plan.ul.iter().enumerate().map(|(i, o)| (o.first_symbol, Occ::Ul(i))));
    ev.sort_by_key(|(s, o)| (*s, matches!(o, Occ::Dl(_))));
    ev
}

/// Where the cell's UEs get their SINR (one row per PRB of `prb_hz`).
fn sinr_source(
    cfg: &NrCellConfig,
    path: &str,
    n_prb: u32,
    prb_hz: f64,
    seed: u64,
) -> Result<Box<dyn SinrSource>, ScenarioError> {
    let mut ues = Vec::with_capacity(cfg.ues.len());
    for (j, u) in cfg.ues.iter().enumerate() {
        let p = format!("{path}.ues[{j}].sinr");
        let streams = format!("nrcell:{}:ue:{}", cfg.id, u.node);
        ues.push(match &u.sinr {
            SinrSpec::Fixed { db, ul_db } => UeSinr::Fixed { dl_db: *db, ul_db: ul_db.unwrap_or(*db) },
            SinrSpec::Ramp { from_db, to_db, start_s, duration_s } => UeSinr::Ramp {
                from_db: *from_db,
                to_db: *to_db,
                start: SimTime::from_secs_f64(*start_s),
                end: SimTime::from_secs_f64(start_s + duration_s),
            },
            SinrSpec::Sweep(sweep) => {
                UeSinr::Sweep(Box::new(SweepSinr::new(sweep, 1, seed, &streams)?.with_rb_hz(prb_hz)))
            }
            SinrSpec::Csv { file } => {
                let bad = |why: String| ScenarioError::new(format!("{p}.file"), format!("{file:?}"), why);
                let text = std::fs::read_to_string(file).map_err(|e| bad(format!("a readable SINR CSV file ({e})")))?;
                let series = SinrSeries::parse_csv(&text).map_err(|e| bad(format!("a SINR CSV ({e})")))?;
                if series.width() != 1 && series.width() != n_prb as usize {
                    return Err(bad(format!(
                        "1 SINR column or one per PRB ({n_prb}); the file has {}",
                        series.width()
                    )));
                }
                UeSinr::Series(series)
            }
            SinrSpec::Channel(_) => unreachable!("validated: NR UEs take their SINR per UE"),
        });
    }
    Ok(Box::new(PerUeSinr { ues }))
}

/// The PRBs of a TB's RBGs.
fn prbs(layout: RbgLayout, rbgs: RbgMask) -> impl Iterator<Item = usize> + Clone {
    layout.prb_iter(rbgs)
}

impl NrCell {
    fn ue_index(i: usize) -> UeIndex {
        UeIndex(i as u16)
    }
}
