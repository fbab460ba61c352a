//! One LTE cell as a medium of the world: an eNB, its UEs, and per UE one
//! data radio bearer (PDCP + RLC at both ends), the MAC (HARQ, schedulers,
//! scheduling requests) and the PHY abstraction, on a 1 ms TTI clock.
//!
//! ```text
//!  world ──enqueue(from, next, packet)──► PDCP ─► RLC tx ─┐ buffer status
//!                                                          ▼
//!   TTI n:  receptions of n-1 ─► RLC rx ─► delivered ─► world.on_arrive(next)
//!           HARQ feedback of n-4 (ACK / NACK / residual loss)
//!           CQI measured at n, usable at n + delay
//!           DL: scheduler ─► RLC tx opportunity ─► TB ─► PHY: PDCCH + BLER draw ─► HARQ
//!           UL: grants of n-4 transmit; SR / BSR; scheduler grants for n+4
//! ```
//! The world sees enqueue, a next deadline and what comes out (`CellOutput`).
//! A cell with no data, no HARQ process busy and no RLC timer has no deadline:
//! idle TTIs cost nothing.

mod active;
mod air;
mod harq_feedback;
mod link_tti;
mod rlc_view;
pub(crate) mod sdu_store;
mod stats;
mod tables;
mod tti;
mod ue;

pub use stats::{lte_table, LteSlot, LteSlots};
pub(crate) use tables::UeTables;

use super::channel::spec::UePlacement;
use super::channel::sweep::SweepSinr;
use super::channel::ChannelSinr;
use super::sap::{LinkDir, UeIndex};
use super::sinr::{PerUeSinr, SinrSeries, SinrSource, UeSinr};
use crate::error::ScenarioError;
use crate::lte::config::{CellConfig, CqiConfig};
use crate::packet::PacketId;
use crate::scenario::{CellSpec, SinrSpec};
use crate::sim::{NodeId, SimDuration, SimTime, NS_PER_MS};
use active::ActiveUes;
use tables::CellTables;
pub use ue::{RadioLink, UeContext};

/// LTE FDD subframe: the TTI (TS 36.211 §4.1).
pub const TTI: SimDuration = SimDuration::from_ms(1);

/// What an enqueue did.
#[derive(Debug, PartialEq, Eq)]
pub enum CellEnqueued {
    /// The bearer's RLC buffer is full: the packet is handed back to be dropped.
    Dropped(PacketId),
    Accepted,
}

/// What the cell hands back to the world (reused buffers).
#[derive(Debug, Default)]
pub struct CellOutput {
    /// Packets that crossed the air, with the node they reached (a UE, or the eNB).
    pub delivered: Vec<(NodeId, PacketId)>,
    /// Packets lost in the cell (RLC buffer, HARQ residual loss on UM/TM, RLC discard).
    pub dropped: Vec<PacketId>,
}

pub struct Cell {
    pub name: String,
    enb: NodeId,
    ue_nodes: Vec<NodeId>,
    /// Per node index, the UE it is in this cell, if any (an enqueue finds its bearer at once).
    ue_of_node: Vec<Option<UeIndex>>,
    ue_names: Vec<String>,
    mtu_bytes: u32,
    n_rbs: u32,
    cqi: CqiConfig,
    control_errors: bool,
    ues: UeSlots,
    macs: tti::Macs,
    sinr: Box<dyn SinrSource>,
    /// Scratch: one linear SINR per RB.
    sinr_lin: Vec<f64>,
    /// The last TTI processed.
    last_tti: Option<SimTime>,
    /// When the cell next needs waking: recomputed after each wake-up, lowered by enqueues.
    deadline: Option<SimTime>,
    /// The UEs with work and every UE's RLC timers (admissions start none, so only wake-ups
    /// move the timers).
    active: ActiveUes,
    /// Per UE, its air state, HARQ feedback, CQI trackers, RLC view and last visit (a network
    /// cell's are the network's, lent while it runs: [`Self::swap_tables`]).
    tables: CellTables,
    /// Scratch: the UEs a TTI or a timer wake-up visits.
    list: Vec<u32>,
    /// A cell of a network: its TTI runs in two halves (every cell schedules, then every cell
    /// decodes, with the others' transmissions known), its UE indices are the network's.
    network: bool,
    /// In a network, this cell's index among its cells.
    index: u16,
    /// In a network, the transport blocks scheduled this TTI, decoded in its second half.
    on_air: Vec<tti::OnAir>,
    /// The end of the run: a TTI starting there would fall outside every time-series slot.
    end: SimTime,
    /// The width of the `lte` table's slots.
    slot_width: SimDuration,
    now: SimTime,
    /// Tests: every attached UE is visited (and measured on its occasions) in every TTI run,
    /// the reference the visits of the UEs with work only must reproduce.
    #[cfg(test)]
    pub(crate) visit_all: bool,
}

/// A cell's UE contexts by UE index: all of them (a lone cell), or those of the network's UEs
/// attached to this cell (the others are `None`; a UE's context moves between cells).
pub struct UeSlots(Vec<Option<Box<UeContext>>>);

impl std::ops::Index<usize> for UeSlots {
    type Output = UeContext;
    fn index(&self, i: usize) -> &UeContext {
        self.0[i].as_deref().expect("the pipeline visits only UEs attached to the cell")
    }
}

impl std::ops::IndexMut<usize> for UeSlots {
    fn index_mut(&mut self, i: usize) -> &mut UeContext {
        self.0[i].as_deref_mut().expect("the pipeline visits only UEs attached to the cell")
    }
}

impl UeSlots {
    /// UE indices, attached or not.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The UEs attached, with their index.
    pub fn attached(&self) -> impl Iterator<Item = (usize, &UeContext)> {
        self.0.iter().enumerate().filter_map(|(i, u)| u.as_deref().map(|u| (i, u)))
    }

    pub fn attached_mut(&mut self) -> impl Iterator<Item = &mut UeContext> {
        self.0.iter_mut().filter_map(|u| u.as_deref_mut())
    }

    pub fn is_attached(&self, i: usize) -> bool {
        self.0[i].is_some()
    }
}

impl Cell {
    /// Build cell `id` from its spec, resolved with its profile; `path` names it in errors (`cells[0]`).
    pub fn build(
        spec: &CellSpec,
        path: &str,
        node: &dyn Fn(&str) -> NodeId,
        seed: u64,
        slot: SimDuration,
        end: SimTime,
    ) -> Result<Cell, ScenarioError> {
        let spec = spec.resolve();
        let n_rbs = spec.n_rbs();
        let sinr = sinr_source(&spec, path, n_rbs, seed)?;
        let contexts = ue_contexts(&spec, node, seed, slot, end);
        let ues: Vec<(NodeId, String)> = spec.ues.iter().map(|u| (node(&u.node), u.node.clone())).collect();
        let contexts = contexts.into_iter().map(Some).collect();
        Ok(Cell::assemble(&spec, node(&spec.enb), &ues, contexts, sinr, (slot, end), false))
    }

    /// Cell `spec` of a network whose UEs are `ues` (node, name), by network index; `members`
    /// are this cell's own UEs' indices (attached at the start), `sinr` its view of the
    /// network's channel.
    #[allow(clippy::too_many_arguments)]
    pub fn build_in_network(
        spec: &CellConfig,
        index: u16,
        node: &dyn Fn(&str) -> NodeId,
        ues: &[(NodeId, String)],
        members: &[usize],
        sinr: Box<dyn SinrSource>,
        seed: u64,
        slot: SimDuration,
        end: SimTime,
    ) -> Cell {
        let mut contexts: Vec<Option<Box<UeContext>>> = (0..ues.len()).map(|_| None).collect();
        for (&i, ctx) in members.iter().zip(ue_contexts(spec, node, seed, slot, end)) {
            contexts[i] = Some(ctx);
        }
        let mut cell = Cell::assemble(spec, node(&spec.enb), ues, contexts, sinr, (slot, end), true);
        cell.index = index;
        cell
    }

    /// Exchange the cell's per-UE tables with `tables`: a network lends its own to the cell that
    /// runs (around each call that may read them: the timers, receptions and TTI halves,
    /// [`Self::settle`], attach and detach), then takes them back ([`Self::enqueue_with`] and
    /// [`Self::ue_mut`] take them as they are).
    pub(crate) fn swap_tables(&mut self, tables: &mut UeTables) {
        std::mem::swap(&mut self.tables, &mut tables.cell);
        self.macs.swap_tables(&mut tables.mac, &mut tables.search_spaces, &mut tables.pf);
    }

    /// The attached UEs' entries in the tables, as a cell starts them (with the network's
    /// tables lent, at the start of the run).
    pub(crate) fn init_tables(&mut self) {
        let attached: Vec<usize> = self.ues.attached().map(|(i, _)| i).collect();
        for i in attached {
            self.macs.init_tables(i);
            self.air_changed(i);
        }
    }

    fn assemble(
        spec: &CellConfig,
        enb: NodeId,
        ues: &[(NodeId, String)],
        contexts: Vec<Option<Box<UeContext>>>,
        sinr: Box<dyn SinrSource>,
        (slot_width, end): (SimDuration, SimTime),
        network: bool,
    ) -> Cell {
        let n_rbs = spec.n_rbs();
        let n = ues.len();
        let mut ue_of_node = vec![None; ues.iter().map(|(nd, _)| nd.index() + 1).max().unwrap_or(0)];
        for (i, (nd, _)) in ues.iter().enumerate() {
            ue_of_node[nd.index()] = Some(UeIndex(i as u16));
        }
        let attached: Vec<usize> = (0..n).filter(|&i| contexts[i].is_some()).collect();
        let contexts = UeSlots(contexts);
        // A network cell's tables are the network's, lent ([`Self::swap_tables`]).
        // (The schedulers keep their own PF columns: a network cell's are emptied in `Macs::new`.)
        let UeTables { cell: tables, mac, search_spaces, pf: _ } = UeTables::new(spec, if network { 0 } else { n });
        let mut cell = Cell {
            name: spec.id.clone(),
            enb,
            ue_nodes: ues.iter().map(|(nd, _)| *nd).collect(),
            ue_of_node,
            ue_names: ues.iter().map(|(_, name)| name.clone()).collect(),
            mtu_bytes: spec.mtu_bytes,
            n_rbs,
            cqi: spec.cqi,
            control_errors: spec.control_errors,
            macs: tti::Macs::new(spec, n_rbs, (n, &attached), network, mac, search_spaces),
            tables,
            ues: contexts,
            sinr,
            sinr_lin: vec![0.0; n_rbs as usize],
            last_tti: None,
            deadline: None,
            active: ActiveUes::new(n),
            list: Vec::with_capacity(n),
            network,
            index: 0,
            on_air: Vec::new(),
            end,
            slot_width,
            now: SimTime::ZERO,
            #[cfg(test)]
            visit_all: false,
        };
        if !network {
            cell.init_tables();
        }
        cell
    }

    pub fn enb(&self) -> NodeId {
        self.enb
    }

    pub fn ue_nodes(&self) -> &[NodeId] {
        &self.ue_nodes
    }

    pub fn mtu_bytes(&self) -> u32 {
        self.mtu_bytes
    }

    fn ue_of(&self, node: NodeId) -> UeIndex {
        self.ue_of_node.get(node.index()).copied().flatten().expect("routes only name this cell's UEs")
    }

    /// A packet at `from` (the eNB or a UE) for `next` enters its radio bearer.
    pub fn enqueue(&mut self, now: SimTime, from: NodeId, next: NodeId, id: PacketId, ip_bytes: u32) -> CellEnqueued {
        let (ue, dir) = self.bearer(from, next);
        self.tables.rlc.touch_transmitting(ue, dir);
        self.admit(now, ue, dir, id, ip_bytes)
    }

    /// [`Self::enqueue`] in a network cell, `tables` the network's: an enqueue changes only the
    /// transmitting entity's RLC view, and lending the cell the tables for it cost more than
    /// the view's one flag.
    pub(crate) fn enqueue_with(
        &mut self,
        tables: &mut UeTables,
        now: SimTime,
        (from, next): (NodeId, NodeId),
        id: PacketId,
        ip_bytes: u32,
    ) -> CellEnqueued {
        let (ue, dir) = self.bearer(from, next);
        tables.cell.rlc.touch_transmitting(ue, dir);
        self.admit(now, ue, dir, id, ip_bytes)
    }

    /// The UE and direction of a packet at `from` (the eNB or a UE) for `next`.
    fn bearer(&self, from: NodeId, next: NodeId) -> (usize, LinkDir) {
        let (ue, dir) =
            if from == self.enb { (self.ue_of(next), LinkDir::Downlink) } else { (self.ue_of(from), LinkDir::Uplink) };
        (ue.index(), dir)
    }

    /// A packet enters UE `ue`'s bearer in `dir` (its RLC view marked stale by the caller).
    fn admit(&mut self, now: SimTime, ue: usize, dir: LinkDir, id: PacketId, ip_bytes: u32) -> CellEnqueued {
        self.now = now;
        match self.ues[ue].admit(now, dir, id, ip_bytes) {
            Ok(()) => {
                // Data is buffered: the next TTI has work (admission starts no RLC timer).
                self.wake_for(ue, now);
                CellEnqueued::Accepted
            }
            Err(id) => CellEnqueued::Dropped(id),
        }
    }

    /// UE `i` got work at `now` (data admitted): the next TTI visits it.
    pub(crate) fn wake_for(&mut self, i: usize, now: SimTime) {
        self.active.set(i);
        let tti = self.next_tti_after(now);
        if tti < self.end {
            self.deadline = Some(self.deadline.map_or(tti, |d| d.min(tti)));
        }
    }

    /// Whether the cell ran the TTI at `now`.
    pub(crate) fn last_tti_is(&self, now: SimTime) -> bool {
        self.last_tti == Some(now)
    }

    /// When the cell next needs the world to wake it, if ever.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.deadline
    }

    /// The next wake-up: a TTI if any UE has work, a reception that ends before it (LENA's
    /// downlink pipeline; a UE with a TB in flight has work), else the first RLC timer.
    fn refresh_deadline(&mut self) {
        let next_tti = self.active.any().then(|| self.next_tti_after(self.now));
        let mut list = std::mem::take(&mut self.list);
        self.active.list(&mut list);
        let next_rx = list.iter().filter_map(|&i| self.tables.air.next_arrival(i as usize)).min();
        self.list = list;
        let deadline = SimTime::earliest(next_tti, self.active.next_timer());
        self.deadline = SimTime::earliest(deadline, next_rx).filter(|&t| t < self.end);
    }

    /// After UE `i` was visited: whether it still has work, and its RLC timers.
    fn track(&mut self, i: usize) {
        let rlc = self.tables.rlc.get(i, &self.ues[i], self.now);
        let busy = self.tables.air.busy(i) || rlc.has_data(self.now) || self.macs.uplink_busy(i);
        let timer = rlc.timer();
        if busy {
            self.active.set(i);
        } else {
            self.active.clear(i);
        }
        self.active.set_timer(i, timer);
    }

    /// The cell changed what UE `i` has on the air (a TB sent or received, feedback or a
    /// retransmission taken): its summary is read again.
    fn air_changed(&mut self, i: usize) {
        self.tables.air.refresh(i, &self.ues[i], self.tables.harq_feedback.next_at(i));
    }

    /// The first TTI boundary at or after `t` not yet processed.
    fn next_tti_after(&self, t: SimTime) -> SimTime {
        let boundary = SimTime(t.as_ns().div_ceil(NS_PER_MS) * NS_PER_MS);
        match self.last_tti {
            Some(last) if boundary <= last => last + TTI,
            _ => boundary,
        }
    }

    /// Run what is due at `now`: RLC timers, receptions that end between TTIs (LENA's downlink),
    /// and the TTI if `now` is a TTI boundary (its receptions first).
    pub fn handle_timeout(&mut self, now: SimTime, out: &mut CellOutput) {
        self.run_timers(now, out);
        self.run_receptions(now, out);
        if self.tti_due(now) {
            self.start_tti(now);
            self.run_tti(now, out);
        }
        self.refresh_deadline();
    }

    /// The cell's clock moves to `now`: whether RLC timers or receptions between TTIs are due
    /// then ([`Self::run_timers`], [`Self::run_receptions`]: a network lends its tables for them
    /// only then).
    pub(crate) fn wake(&mut self, now: SimTime) -> bool {
        self.now = now;
        (Self::between_ttis(now) && self.active.any()) || self.timers_due(now)
    }

    /// Whether an RLC timer is due by `now`.
    fn timers_due(&mut self, now: SimTime) -> bool {
        self.active.next_timer().is_some_and(|t| t <= now)
    }

    /// Whether `now` falls between TTI boundaries (receptions end there; at a boundary the TTI
    /// takes them).
    fn between_ttis(now: SimTime) -> bool {
        !now.as_ns().is_multiple_of(NS_PER_MS)
    }

    /// The RLC timers due by `now`.
    pub(crate) fn run_timers(&mut self, now: SimTime, out: &mut CellOutput) {
        self.now = now;
        if self.timers_due(now) {
            let mut due = std::mem::take(&mut self.list);
            self.active.due_timers(now, &mut due);
            for &i in &due {
                self.ues[i as usize].handle_rlc_timers(now, out);
                self.tables.rlc.touch(i as usize);
                self.track(i as usize);
            }
            self.list = due;
        }
    }

    /// The receptions that end between TTIs (LENA's downlink, `mac.pipeline = "lena"`): each UE
    /// with work hands the TBs decoded by `now` to its RLC. At a TTI boundary the TTI does it.
    pub(crate) fn run_receptions(&mut self, now: SimTime, out: &mut CellOutput) {
        if !Self::between_ttis(now) {
            return;
        }
        self.now = now;
        let mut list = std::mem::take(&mut self.list);
        self.active.list(&mut list);
        for &i in &list {
            let i = i as usize;
            if self.tables.air.arrival_due(i, now) {
                for dir in [LinkDir::Downlink, LinkDir::Uplink] {
                    self.ues[i].deliver_arrivals(now, dir, out);
                }
                self.air_changed(i);
                self.tables.rlc.touch(i);
            }
            self.track(i);
        }
        self.list = list;
    }

    /// Whether `now` is a TTI boundary the cell has not run.
    pub(crate) fn tti_due(&self, now: SimTime) -> bool {
        now.as_ns().is_multiple_of(NS_PER_MS) && self.last_tti.is_none_or(|l| now > l)
    }

    /// TTI `now` starts. The TTIs skipped since the last one (no UE had work) pass for the
    /// schedulers as TTIs that served no one: a real eNB's scheduler runs every subframe (ns-3
    /// `PfFfMacScheduler::DoSchedDlTriggerReq` ages every flow's average each TTI), so a cell
    /// woken only when it has work ages its PF averages as one woken every TTI would.
    fn start_tti(&mut self, now: SimTime) {
        let first_unrun = self.last_tti.map_or(0, |l| l.as_ns() / NS_PER_MS + 1);
        let skipped = (now.as_ns() / NS_PER_MS).saturating_sub(first_unrun);
        if skipped > 0 {
            self.macs.idle_ttis(skipped);
        }
        self.last_tti = Some(now);
    }

    /// A network cell's TTI, first half: up to its transmissions (`on_air`).
    pub(crate) fn schedule_tti(&mut self, now: SimTime, out: &mut CellOutput) {
        self.now = now;
        self.start_tti(now);
        self.begin_tti(now, out);
    }

    /// A network cell's TTI, second half: decoding, measurements, counters.
    pub(crate) fn finish_tti(&mut self, now: SimTime) {
        self.end_tti(now);
    }

    /// The transport blocks scheduled this TTI (between [`Self::schedule_tti`] and
    /// [`Self::finish_tti`]).
    pub(crate) fn transmissions(&self) -> impl Iterator<Item = &crate::lte::sap::TbAssignment> {
        self.on_air()
    }

    /// After a wake-up: when the cell next needs one.
    pub(crate) fn settle(&mut self) {
        self.refresh_deadline();
    }

    /// UE `i` leaves the cell (a handover command): its context, and what the MAC knew of it is dropped.
    pub(crate) fn detach(&mut self, i: usize) -> Box<UeContext> {
        self.macs.forget(i);
        self.active.clear(i);
        self.active.set_timer(i, None);
        self.tables.air.forget(i);
        self.tables.harq_feedback.forget(i);
        self.tables.link_tti.forget(i);
        self.tables.rlc.touch(i);
        self.tables.last_visit[i] = None;
        self.ues.0[i].take().expect("a UE leaves the cell it is attached to")
    }

    /// UE `i` joins the cell at `now` with `ctx` (its bearer re-established for this cell).
    pub(crate) fn attach(&mut self, i: usize, ctx: Box<UeContext>, now: SimTime) {
        self.macs.welcome(i);
        self.ues.0[i] = Some(ctx);
        self.air_changed(i);
        self.tables.link_tti.forget(i);
        self.tables.rlc.touch(i);
        self.now = now;
        self.track(i);
        if self.active.any() {
            let tti = self.next_tti_after(now);
            if tti < self.end {
                self.deadline = Some(self.deadline.map_or(tti, |d| d.min(tti)));
            }
        }
    }

    /// This cell's index among its network's cells (what a UE's slots record as serving).
    pub(crate) fn network_index(&self) -> u16 {
        self.index
    }

    /// The context of UE `i`, if it is attached here, to be changed by the network, whose
    /// `tables` (not lent to the cell meanwhile) mark its RLC view stale.
    pub(crate) fn ue_mut(&mut self, i: usize, tables: &mut UeTables) -> Option<&mut UeContext> {
        tables.cell.rlc.touch(i);
        self.ues.0[i].as_deref_mut()
    }

    /// The UEs attached, by index.
    pub(crate) fn attached(&self) -> impl Iterator<Item = (usize, &UeContext)> {
        self.ues.attached()
    }

    /// IP bytes held in the cell (RLC buffers, HARQ, the air), for the conservation ledger.
    pub fn held_bytes(&self) -> u64 {
        self.ues.attached().map(|(_, u)| u.held_bytes()).sum()
    }

    /// Close the books at the end of the run (the capacity of the TTIs since the last one run).
    pub fn finish(&mut self, end: SimTime) {
        for ue in self.ues.attached_mut() {
            ue.finish(end);
        }
    }

    /// The `lte` table rows of this cell.
    pub fn slots(&self) -> impl Iterator<Item = (&str, &str, &'static str, &LteSlots)> {
        self.ues.attached().flat_map(move |(i, u)| {
            let name = self.ue_names[i].as_str();
            [("dl", u.dl.slots.table()), ("ul", u.ul.slots.table())].map(|(d, s)| (self.name.as_str(), name, d, s))
        })
    }
}

/// The contexts of the UEs `spec` lists, keyed by cell and UE names: adding a UE leaves every
/// other UE's streams as they were.
fn ue_contexts(
    spec: &CellConfig,
    node: &dyn Fn(&str) -> NodeId,
    seed: u64,
    slot: SimDuration,
    end: SimTime,
) -> Vec<Box<UeContext>> {
    let duration = end - SimTime::ZERO;
    let enb = node(&spec.enb);
    spec.ues
        .iter()
        .map(|u| {
            let label = format!("cell:{}:ue:{}", spec.id, u.node);
            Box::new(UeContext::new(spec, u, node(&u.node), enb, &label, seed, slot, duration))
        })
        .collect()
}

/// Where the cell's UEs get their SINR: the cell's channel model, or each UE's own source.
fn sinr_source(spec: &CellConfig, path: &str, n_rbs: u32, seed: u64) -> Result<Box<dyn SinrSource>, ScenarioError> {
    if let Some(channel) = &spec.channel {
        let placements: Vec<UePlacement> = spec
            .ues
            .iter()
            .map(|u| match &u.sinr {
                SinrSpec::Channel(p) => p.clone(),
                _ => unreachable!("validated: a cell with a channel has channel-placed UEs"),
            })
            .collect();
        let label = format!("cell:{}", spec.id);
        return Ok(Box::new(ChannelSinr::new(channel, &placements, seed, &label)?));
    }
    let sources = spec
        .ues
        .iter()
        .enumerate()
        .map(|(j, u)| {
            let streams = format!("cell:{}:ue:{}", spec.id, u.node);
            ue_sinr(&u.sinr, &format!("{path}.ues[{j}].sinr"), n_rbs, seed, &streams)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Box::new(PerUeSinr { ues: sources }))
}

/// A UE's SINR source from its spec (reads a CSV file named there).
fn ue_sinr(spec: &SinrSpec, path: &str, n_rbs: u32, seed: u64, streams: &str) -> Result<UeSinr, ScenarioError> {
    Ok(match spec {
        // Keyed by cell and UE names, like the UE's other streams.
        SinrSpec::Sweep(sweep) => UeSinr::Sweep(Box::new(SweepSinr::new(sweep, 1, seed, streams)?)),
        SinrSpec::Fixed { db, ul_db } => UeSinr::Fixed { dl_db: *db, ul_db: ul_db.unwrap_or(*db) },
        SinrSpec::Ramp { from_db, to_db, start_s, duration_s } => UeSinr::Ramp {
            from_db: *from_db,
            to_db: *to_db,
            start: SimTime::from_secs_f64(*start_s),
            end: SimTime::from_secs_f64(start_s + duration_s),
        },
        SinrSpec::Channel(_) => unreachable!("validated: channel-placed UEs are in a cell with a channel"),
        SinrSpec::Csv { file } => {
            let bad = |why: String| ScenarioError::new(format!("{path}.file"), format!("{file:?}"), why);
            let text = std::fs::read_to_string(file).map_err(|e| bad(format!("a readable SINR CSV file ({e})")))?;
            let series = SinrSeries::parse_csv(&text).map_err(|e| bad(format!("a SINR CSV ({e})")))?;
            if series.width() != 1 && series.width() != n_rbs as usize {
                return Err(bad(format!("1 SINR column or one per RB ({n_rbs}); the file has {}", series.width())));
            }
            UeSinr::Series(series)
        }
    })
}

#[cfg(test)]
mod tests;
