//! An LTE network: the scenario's cells on one radio channel, coupled by what each transmits,
//! and UEs handing over between them (docs/lte/network.md).
//!
//! ```text
//!  TTI t:  every cell schedules (its PDSCH RBs and the PUSCHs it granted are now known)
//!          ─► channel.record(t) ─► every cell decodes its TBs and measures (SINR with the others' t)
//!  every measurement period: each UE's RSRP of every cell ─► L3 filter ─► A3 (handover.rs)
//!  A3 report ─(preparation)─► HO command: the UE leaves the source (HARQ flushed, RLC
//!          re-established, SDUs forwarded over X2 or lost) ─(interruption)─► attached at the target;
//!          the core's path switches to the target (downlink still arriving at the source is
//!          forwarded, or lost without forwarding)
//! ```
//! The world sees one medium: packets enter at a UE or at any of the network's eNBs; the route
//! to a UE goes through the eNB serving it ([`Network::routing_enb`]).

pub mod channel;
pub mod handover;
pub mod trace;

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet, VecDeque};
use std::rc::Rc;

use self::channel::{NetworkChannel, NetworkSinr, SiteSetup, UlTx};
use self::handover::{A3Tracker, Forwarding, HandoverConfig, HandoverSettings, MeasurementSource};
use self::trace::MeasurementTrace;
use super::cell::{Cell, CellEnqueued, CellOutput, LteSlots, UeContext, UeTables};
use super::config::CellConfig;
use super::rlc::{HeldSdu, Rlc, RlcConfig, RlcEvents, RlcMode};
use super::sap::{LinkDir, RbMask, RlcSdu, SduId, TbAssignment};
use crate::error::ScenarioError;
use crate::lte::channel::spec::{AntennaSpec, ChannelSpec, UePlacement};
use crate::output::{Column, Table};
use crate::packet::PacketId;
use crate::radio::antenna::{hex_layout_all_cells, Antenna};
use crate::scenario::{CellSpec, Scenario, SinrSpec};
use crate::sim::{NodeId, SimDuration, SimTime, NS_PER_MS};

/// Where a UE is in the handover procedure (TS 36.300 §10.1.2.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attachment {
    Connected {
        cell: usize,
    },
    /// The source decided (the A3 report came): the command reaches the UE at `command_at`.
    Preparing {
        cell: usize,
        target: usize,
        command_at: SimTime,
    },
    /// Between the command and the first transmission at the target.
    Detached {
        source: usize,
        target: usize,
        attach_at: SimTime,
    },
}

/// One UE's place in the network.
struct UeMobility {
    at: Attachment,
    a3: A3Tracker,
    /// The handover it is in (or last was in): its row of the `handovers` table.
    record: Option<usize>,
}

/// A downlink SDU or packet on its way from the source to the target over X2-U.
#[derive(Clone, Copy, Debug)]
struct X2Sdu {
    at: SimTime,
    ue: usize,
    what: X2Payload,
}

#[derive(Clone, Copy, Debug)]
enum X2Payload {
    /// An SDU the source held (its id in the UE's store).
    Held { id: SduId, bytes: u32 },
    /// A packet that reached the source over S1 after the UE left.
    Fresh { packet: PacketId, ip_bytes: u32 },
}

/// One handover, as the `handovers` table reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct HandoverRecord {
    /// When the UE received the command and left the source.
    pub at: SimTime,
    pub ue: usize,
    pub source: usize,
    pub target: usize,
    /// When the UE first transmitted in the target cell (`None` if the run ended before).
    pub attached_at: Option<SimTime>,
    /// SDUs forwarded over X2 (held by the source, and fresh ones that reached it later).
    pub forwarded_sdus: u64,
    /// SDUs lost to the handover (not forwarded or not sent again, both directions).
    pub lost_sdus: u64,
}

/// The network as a medium of the world.
pub struct Network {
    cells: Vec<Cell>,
    /// The cells' per-UE tables, one for all of them, lent to each cell while it runs ([`lend`]).
    tables: UeTables,
    cell_names: Vec<String>,
    enbs: Vec<NodeId>,
    /// Per node index: the cell whose eNB it is.
    cell_of_enb: Vec<Option<usize>>,
    channel: Rc<RefCell<NetworkChannel>>,
    cfg: HandoverSettings,
    ue_nodes: Vec<NodeId>,
    ue_names: Vec<String>,
    /// Per node index: the UE it is.
    ue_of_node: Vec<Option<usize>>,
    /// Per UE: its bearer's RLC configuration (a re-established entity is a fresh one of it).
    rlc: Vec<RlcConfig>,
    ues: Vec<UeMobility>,
    /// The contexts of UEs between two cells.
    held: Vec<Option<Box<UeContext>>>,
    x2: VecDeque<X2Sdu>,
    /// IP bytes of the fresh packets on X2 (the world's conservation ledger).
    x2_fresh_bytes: u64,
    handovers: Vec<HandoverRecord>,
    /// Handover events by time: (time, UE); an entry whose time is no longer the UE's is stale.
    events: BinaryHeap<Reverse<(SimTime, usize)>>,
    /// When the UEs next measure (None: never again).
    next_sample: Option<SimTime>,
    /// The samples when they come from a file rather than the channel.
    trace: Option<MeasurementTrace>,
    deadline: Option<SimTime>,
    last_tti: Option<SimTime>,
    end: SimTime,
    mtu_bytes: u32,
    /// Scratch for what one cell hands back, and the TTI's transmissions.
    dl_masks: Vec<RbMask>,
    ul_txs: Vec<UlTx>,
    /// Per cell, the share of its control region it sends on in the TTI.
    control_shares: Vec<f64>,
    /// Per handover, what became of every SDU the UE's bearer held (tests check the sums).
    #[cfg(test)]
    audit: Vec<HandoverAudit>,
    /// Tests: the network wakes at every TTI boundary and its cells visit every attached UE in
    /// each, the reference the network that runs only the TTIs with work must reproduce.
    #[cfg(test)]
    every_tti: bool,
}

/// Where each SDU unresolved at a handover command went, per direction: delivered at the
/// re-establishment, still pending (forwarded downlink, sent again uplink), or lost.
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct HandoverAudit {
    dl_before: usize,
    dl_delivered: usize,
    dl_pending: usize,
    dl_lost: u64,
    ul_before: usize,
    ul_delivered: usize,
    ul_pending: usize,
    ul_lost: u64,
}

impl Network {
    /// The network of `sc` (validated: it has one).
    pub fn build(
        sc: &Scenario,
        node: &dyn Fn(&str) -> NodeId,
        seed: u64,
        slot: SimDuration,
        end: SimTime,
    ) -> Result<Network, ScenarioError> {
        let net = sc.network.as_ref().expect("built only for a scenario with a network");
        let specs: Vec<CellConfig> = sc.cells.iter().map(CellSpec::resolve).collect();
        let HandoverConfig { settings: cfg, measurements } = net.handover.resolve(specs[0].profile);
        let n_rb = specs[0].n_rbs() as usize;
        let sites = sites(&net.channel, &sc.cells);
        let mut ues: Vec<(NodeId, String)> = Vec::new();
        let mut placements: Vec<(&UePlacement, String)> = Vec::new();
        let mut rlc = Vec::new();
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); specs.len()];
        let mut initial = Vec::new();
        for (c, spec) in specs.iter().enumerate() {
            for u in &spec.ues {
                let SinrSpec::Channel(p) = &u.sinr else { unreachable!("validated: a network's UEs are placed") };
                members[c].push(ues.len());
                initial.push(c);
                ues.push((node(&u.node), u.node.clone()));
                placements.push((p, format!("network:ue:{}", u.node)));
                rlc.push(u.rlc.clone());
            }
        }
        let channel =
            Rc::new(RefCell::new(NetworkChannel::new(&net.channel, &sites, &placements, n_rb, seed, "network")));
        let mut cells: Vec<Cell> = specs
            .iter()
            .enumerate()
            .map(|(c, spec)| {
                let sinr = Box::new(NetworkSinr { channel: channel.clone(), cell: c });
                Cell::build_in_network(spec, c as u16, node, &ues, &members[c], sinr, seed, slot, end)
            })
            .collect();
        let mut tables = UeTables::new(&specs[0], ues.len());
        for cell in &mut cells {
            lend(cell, &mut tables, Cell::init_tables);
        }
        // Before any TTI, every cell's control region is as it is when the cell sends no DCI.
        let idle: Vec<f64> = cells.iter().map(|c| c.control_region_share(SimTime::ZERO)).collect();
        channel.borrow_mut().set_idle_control_shares(&idle);
        let enbs: Vec<NodeId> = specs.iter().map(|s| node(&s.enb)).collect();
        let max_node = ues.iter().map(|(n, _)| n.index()).chain(enbs.iter().map(|n| n.index())).max().unwrap_or(0);
        let mut ue_of_node = vec![None; max_node + 1];
        for (i, (n, _)) in ues.iter().enumerate() {
            ue_of_node[n.index()] = Some(i);
        }
        let mut cell_of_enb = vec![None; max_node + 1];
        for (c, n) in enbs.iter().enumerate() {
            cell_of_enb[n.index()] = Some(c);
        }
        let n_cells = cells.len();
        let cell_names: Vec<String> = specs.iter().map(|s| s.id.clone()).collect();
        let ue_names: Vec<String> = ues.iter().map(|(_, name)| name.clone()).collect();
        let trace = match &measurements {
            MeasurementSource::Channel => None,
            MeasurementSource::Csv { file } => {
                Some(MeasurementTrace::read(file, &ue_names, &cell_names).map_err(|why| {
                    ScenarioError::new("network.handover.measurements.file", format!("{file:?}"), why)
                })?)
            }
        };
        Ok(Network {
            cell_names,
            mtu_bytes: specs.iter().map(|s| s.mtu_bytes).min().unwrap_or(u32::MAX),
            cells,
            tables,
            enbs,
            cell_of_enb,
            channel,
            next_sample: if cfg.enabled {
                trace.as_ref().map_or(Some(SimTime::ZERO), MeasurementTrace::next_at)
            } else {
                None
            },
            trace,
            ues: initial
                .iter()
                .map(|&c| UeMobility {
                    at: Attachment::Connected { cell: c },
                    a3: A3Tracker::new(n_cells),
                    record: None,
                })
                .collect(),
            held: (0..ues.len()).map(|_| None).collect(),
            ue_nodes: ues.iter().map(|(n, _)| *n).collect(),
            ue_names,
            ue_of_node,
            rlc,
            cfg,
            x2: VecDeque::new(),
            x2_fresh_bytes: 0,
            handovers: Vec::new(),
            events: BinaryHeap::new(),
            deadline: Some(SimTime::ZERO),
            last_tti: None,
            end,
            dl_masks: vec![RbMask::default(); n_cells],
            control_shares: vec![0.0; n_cells],
            ul_txs: Vec::new(),
            #[cfg(test)]
            audit: Vec::new(),
            #[cfg(test)]
            every_tti: false,
        })
    }

    /// Every cell's eNB.
    pub fn enbs(&self) -> &[NodeId] {
        &self.enbs
    }

    /// (eNB, UE) of every UE at the start: the radio hops the world's static routes are built on.
    pub fn initial_hops(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.ues.iter().zip(&self.ue_nodes).map(|(u, &n)| match u.at {
            Attachment::Connected { cell } => (self.enbs[cell], n),
            _ => unreachable!("every UE starts connected"),
        })
    }

    pub fn mtu_bytes(&self) -> u32 {
        self.mtu_bytes
    }

    /// The UE `node` is, if it is one of the network's.
    pub fn ue_index(&self, node: NodeId) -> Option<usize> {
        self.ue_of_node.get(node.index()).copied().flatten()
    }

    /// Whether `node` is one of the network's eNBs.
    pub fn is_enb(&self, node: NodeId) -> bool {
        self.cell_of_enb.get(node.index()).copied().flatten().is_some()
    }

    /// The eNB the core sends UE `ue`'s downlink to, and its uplink leaves the radio at: the
    /// serving cell's, the source's until the path switches at the target (on attach).
    pub fn routing_enb(&self, ue: usize) -> NodeId {
        match self.ues[ue].at {
            Attachment::Connected { cell } | Attachment::Preparing { cell, .. } => self.enbs[cell],
            Attachment::Detached { source, .. } => self.enbs[source],
        }
    }

    /// A packet at `from` (a UE, or one of the network's eNBs) for `next`.
    pub fn enqueue(&mut self, now: SimTime, from: NodeId, next: NodeId, id: PacketId, ip_bytes: u32) -> CellEnqueued {
        let (enqueued, cell) = match self.ue_index(from) {
            Some(ue) => self.enqueue_uplink(now, ue, from, id, ip_bytes),
            None => {
                let ue = self.ue_index(next).expect("routes name the network's UEs");
                let at = self.cell_of_enb[from.index()].expect("downlink enters at an eNB");
                self.enqueue_downlink(now, ue, at, next, id, ip_bytes)
            }
        };
        self.lower_deadline(now, cell);
        enqueued
    }

    /// The packet of UE `ue`'s uplink, and the cell it entered (none while the UE is detached).
    fn enqueue_uplink(
        &mut self,
        now: SimTime,
        ue: usize,
        from: NodeId,
        id: PacketId,
        ip_bytes: u32,
    ) -> (CellEnqueued, Option<usize>) {
        match self.ues[ue].at {
            Attachment::Connected { cell } | Attachment::Preparing { cell, .. } => {
                let hop = (from, self.enbs[cell]);
                (self.cells[cell].enqueue_with(&mut self.tables, now, hop, id, ip_bytes), Some(cell))
            }
            // The UE holds it until it reaches the target.
            Attachment::Detached { .. } => {
                let ctx = self.held[ue].as_mut().expect("a detached UE's context is held");
                match ctx.admit(now, LinkDir::Uplink, id, ip_bytes) {
                    Ok(()) => (CellEnqueued::Accepted, None),
                    Err(id) => (CellEnqueued::Dropped(id), None),
                }
            }
        }
    }

    /// A downlink packet at cell `at`'s eNB: the serving cell queues it; any other eNB (the
    /// source, after the UE left) forwards it over X2 or loses it. The cell it entered, if one.
    fn enqueue_downlink(
        &mut self,
        now: SimTime,
        ue: usize,
        at: usize,
        next: NodeId,
        id: PacketId,
        ip_bytes: u32,
    ) -> (CellEnqueued, Option<usize>) {
        if let Attachment::Connected { cell } | Attachment::Preparing { cell, .. } = self.ues[ue].at {
            if cell == at {
                let hop = (self.enbs[cell], next);
                return (self.cells[cell].enqueue_with(&mut self.tables, now, hop, id, ip_bytes), Some(cell));
            }
        }
        let record = self.ues[ue].record;
        if self.cfg.forwarding == Forwarding::None {
            if let Some(r) = record {
                self.handovers[r].lost_sdus += 1;
            }
            return (CellEnqueued::Dropped(id), None);
        }
        if let Some(r) = record {
            self.handovers[r].forwarded_sdus += 1;
        }
        self.x2_fresh_bytes += u64::from(ip_bytes);
        self.x2.push_back(X2Sdu { at: now + self.x2_delay(), ue, what: X2Payload::Fresh { packet: id, ip_bytes } });
        (CellEnqueued::Accepted, None)
    }

    fn x2_delay(&self) -> SimDuration {
        SimDuration::from_ms_f64(self.cfg.x2_delay_ms)
    }

    /// When the network next needs waking.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.deadline
    }

    /// An enqueue may give `cell` work: the network wakes at its next deadline. The other cells'
    /// deadlines are as they were when the network last woke (only an enqueue changes a cell
    /// between wake-ups), and `refresh_deadline` took them into `deadline` then.
    fn lower_deadline(&mut self, now: SimTime, cell: Option<usize>) {
        if let Some(t) = cell.and_then(|c| self.cells[c].poll_timeout()) {
            let t = t.max(now);
            self.deadline = Some(self.deadline.map_or(t, |d| d.min(t)));
        }
        if let Some(x) = self.x2.front() {
            self.deadline = Some(self.deadline.map_or(x.at, |d| d.min(x.at)));
        }
    }

    /// Run what is due at `now`: RLC timers, receptions between TTIs, X2 arrivals, handover
    /// steps, measurements, and the network's TTI at a TTI boundary.
    pub fn handle_timeout(&mut self, now: SimTime, out: &mut CellOutput) {
        for c in &mut self.cells {
            if c.wake(now) {
                lend(c, &mut self.tables, |c| {
                    c.run_timers(now, out);
                    c.run_receptions(now, out);
                });
            }
        }
        self.x2_arrivals(now, out);
        self.handover_events(now, out);
        if self.next_sample.is_some_and(|t| now >= t) {
            self.measure(now);
            self.handover_events(now, out);
        }
        let tti = now.as_ns().is_multiple_of(NS_PER_MS) && self.last_tti.is_none_or(|l| now > l);
        if tti {
            self.last_tti = Some(now);
            self.tti(now, out);
        }
        self.refresh_deadline(now, tti);
    }

    /// One TTI of every cell: all schedule, the channel learns what each sends, all decode.
    fn tti(&mut self, now: SimTime, out: &mut CellOutput) {
        let tti = now.as_ns() / NS_PER_MS;
        for c in &mut self.cells {
            if c.tti_due(now) {
                lend(c, &mut self.tables, |c| c.schedule_tti(now, out));
            }
        }
        self.dl_masks.iter_mut().for_each(|m| *m = RbMask::default());
        self.ul_txs.clear();
        let mut channel = self.channel.borrow_mut();
        let uplink = |a: &&TbAssignment| a.dir == LinkDir::Uplink;
        channel.touch_path_loss(self.cells.iter().flat_map(|c| c.transmissions()).filter(uplink).map(|a| a.ue.index()));
        for (c, cell) in self.cells.iter().enumerate() {
            for a in cell.transmissions() {
                match a.dir {
                    LinkDir::Downlink => self.dl_masks[c] = self.dl_masks[c].union(a.rbs),
                    LinkDir::Uplink => {
                        let rb_mw = channel.pusch_rb_mw(a.ue.index(), c, a.rbs.count(), now);
                        self.ul_txs.push(UlTx::new(a.ue.index(), c, a.rbs, rb_mw));
                    }
                }
            }
        }
        for (share, cell) in self.control_shares.iter_mut().zip(&self.cells) {
            *share = cell.control_region_share(now);
        }
        channel.record(tti, &self.dl_masks, &self.ul_txs, &self.control_shares);
        drop(channel);
        // Each cell that ran settles its deadline with the tables still lent (nothing changes it
        // between here and `refresh_deadline`).
        for c in &mut self.cells {
            if c.last_tti_is(now) {
                lend(c, &mut self.tables, |c| {
                    c.finish_tti(now);
                    c.settle();
                });
            }
        }
    }

    /// The next wake-up: a cell's, an X2 arrival, a handover step, the next measurement; `tti`:
    /// the network ran the TTI at `now` (its cells that ran it settled then).
    fn refresh_deadline(&mut self, now: SimTime, tti: bool) {
        let mut next: Option<SimTime> = None;
        let mut at = |t: SimTime| next = Some(next.map_or(t, |n| n.min(t)));
        for c in &mut self.cells {
            if !(tti && c.last_tti_is(now)) {
                lend(c, &mut self.tables, Cell::settle);
            }
            if let Some(t) = c.poll_timeout() {
                at(t);
            }
        }
        if let Some(x) = self.x2.front() {
            at(x.at);
        }
        while let Some(&Reverse((t, ue))) = self.events.peek() {
            if self.event_time(ue) == Some(t) {
                at(t);
                break;
            }
            self.events.pop();
        }
        if let Some(t) = self.next_sample {
            at(t);
        }
        #[cfg(test)]
        if self.every_tti {
            at(SimTime((now.as_ns() / NS_PER_MS + 1) * NS_PER_MS));
        }
        self.deadline = next.map(|t| t.max(now)).filter(|&t| t < self.end);
    }

    /// Tests: run as the reference that wakes every TTI and visits every UE in each.
    #[cfg(test)]
    pub(crate) fn visit_every_ue_every_tti(&mut self) {
        self.every_tti = true;
        self.deadline = Some(SimTime::ZERO);
        for c in &mut self.cells {
            c.visit_all = true;
        }
    }

    /// When UE `ue`'s next handover step falls due, if any.
    fn event_time(&self, ue: usize) -> Option<SimTime> {
        let u = &self.ues[ue];
        match u.at {
            Attachment::Connected { .. } => u.a3.report_due(&self.cfg),
            Attachment::Preparing { command_at, .. } => Some(command_at),
            Attachment::Detached { attach_at, .. } => Some(attach_at),
        }
    }

    fn schedule_event(&mut self, ue: usize) {
        if let Some(t) = self.event_time(ue) {
            self.events.push(Reverse((t, ue)));
        }
    }

    /// The UEs sample the cells' RSRP (every UE every cell from the channel, or the trace's
    /// samples due), filter it and evaluate A3.
    fn measure(&mut self, now: SimTime) {
        let weight = self.cfg.filter_weight();
        if let Some(trace) = &mut self.trace {
            let mut measured = Vec::new();
            for s in trace.take_due(now) {
                self.ues[s.ue].a3.sample(s.cell, s.rsrp_dbm, weight);
                if measured.last() != Some(&s.ue) {
                    measured.push(s.ue);
                }
            }
            self.next_sample = trace.next_at();
            measured.sort_unstable();
            measured.dedup();
            for &ue in &measured {
                if let Attachment::Connected { cell } = self.ues[ue].at {
                    self.ues[ue].a3.evaluate(&self.cfg, cell, now);
                }
                self.schedule_event(ue);
            }
            return;
        }
        let mut channel = self.channel.borrow_mut();
        for ue in 0..self.ues.len() {
            for c in 0..self.cells.len() {
                let rsrp = channel.rsrp_dbm(ue, c, now);
                self.ues[ue].a3.sample(c, rsrp, weight);
            }
            if let Attachment::Connected { cell } = self.ues[ue].at {
                self.ues[ue].a3.evaluate(&self.cfg, cell, now);
            }
        }
        drop(channel);
        for ue in 0..self.ues.len() {
            self.schedule_event(ue);
        }
        self.next_sample = Some(now + SimDuration::from_ms(u64::from(self.cfg.measurement_period_ms)));
    }

    /// The handover steps due by `now`: reports (the source decides), commands, attachments.
    fn handover_events(&mut self, now: SimTime, out: &mut CellOutput) {
        while let Some(&Reverse((t, ue))) = self.events.peek() {
            if t > now {
                break;
            }
            self.events.pop();
            if self.event_time(ue) != Some(t) {
                continue;
            }
            match self.ues[ue].at {
                Attachment::Connected { cell } => {
                    if let Some(target) = self.ues[ue].a3.report(&self.cfg, now) {
                        let command_at = now + SimDuration::from_ms_f64(self.cfg.preparation_ms);
                        self.ues[ue].at = Attachment::Preparing { cell, target, command_at };
                    }
                    self.ues[ue].a3.reset_triggers();
                }
                Attachment::Preparing { cell, target, .. } => self.command(now, ue, cell, target, out),
                Attachment::Detached { target, .. } => self.attach(now, ue, target),
            }
            self.schedule_event(ue);
        }
    }

    /// The handover command reaches UE `ue`: it leaves `source` for `target` (TS 36.300
    /// §10.1.2.1.1 steps 7-8). Its bearer is re-established (TS 36.322 §5.4, TS 36.323 §5.2):
    /// the downlink SDUs the source held are forwarded over X2 as `forwarding` says or lost,
    /// the uplink SDUs the source did not acknowledge (AM) or the UE had not begun (UM) are
    /// sent again from the target.
    fn command(&mut self, now: SimTime, ue: usize, source: usize, target: usize, out: &mut CellOutput) {
        let mut ctx = lend(&mut self.cells[source], &mut self.tables, |c| c.detach(ue));
        // The slots it spent idle up to now were the source's.
        ctx.fill_idle_slots(now);
        let mode = self.rlc[ue].mode();
        let mut lost = 0u64;
        // What the UE decoded before the command is its own.
        for dir in [LinkDir::Downlink, LinkDir::Uplink] {
            ctx.deliver_arrivals(now, dir, out);
        }
        ctx.dl.reset_for_handover();
        ctx.ul.reset_for_handover();
        #[cfg(test)]
        let (dl_before, ul_before) = (ctx.dl.sdus.unresolved().count(), ctx.ul.sdus.unresolved().count());
        #[cfg(test)]
        let delivered_before = out.delivered.len();
        let fresh = || Rlc::new(&self.rlc[ue]);
        let mut ev = RlcEvents::default();
        // The source's entity: its downlink SDUs come back, the uplink it received is delivered.
        let dl_held = std::mem::replace(&mut ctx.enb_rlc, fresh()).reestablish(&mut ev);
        let enb = ctx.enb();
        for id in ev.delivered.drain(..) {
            if let Some(p) = ctx.ul.sdus.resolve(id) {
                out.delivered.push((enb, p));
            }
        }
        ev.clear();
        #[cfg(test)]
        let ul_delivered = out.delivered.len() - delivered_before;
        // The UE's entity: the downlink it received is delivered, its uplink SDUs come back.
        let ul_held = std::mem::replace(&mut ctx.ue_rlc, fresh()).reestablish(&mut ev);
        let ue_node = self.ue_nodes[ue];
        for id in ev.delivered.drain(..) {
            if let Some(p) = ctx.dl.sdus.resolve(id) {
                out.delivered.push((ue_node, p));
            }
        }
        let forward = self.forwarded(mode, &dl_held);
        let resend = resent(mode, &ul_held);
        #[cfg(test)]
        let dl_delivered = out.delivered.len() - delivered_before - ul_delivered;
        let dl_lost = lose_unlisted(&mut ctx.dl, &forward, out);
        let ul_lost = lose_unlisted(&mut ctx.ul, &resend, out);
        #[cfg(test)]
        self.audit.push(HandoverAudit {
            dl_before,
            dl_delivered,
            dl_pending: ctx.dl.sdus.unresolved().count(),
            dl_lost,
            ul_before,
            ul_delivered,
            ul_pending: ctx.ul.sdus.unresolved().count(),
            ul_lost,
        });
        lost += dl_lost + ul_lost;
        for h in ul_held.iter().filter(|h| resend.contains(&h.id)) {
            if ctx.ue_rlc.transmit_sdu(now, RlcSdu { id: h.id, bytes: h.bytes }).is_err() {
                lost += resolve_lost(&mut ctx.ul, h.id, out);
            }
        }
        let at = now + self.x2_delay();
        for h in dl_held.iter().filter(|h| forward.contains(&h.id)) {
            self.x2.push_back(X2Sdu { at, ue, what: X2Payload::Held { id: h.id, bytes: h.bytes } });
        }
        ctx.set_enb(self.enbs[target]);
        // From the command on its slots are the target's, idle or not (a slot's cell is the one
        // serving at its end; the ns-3 side's `with_serving_cells` switches at the command too).
        ctx.sample(now, Some(self.cells[target].network_index()));
        self.held[ue] = Some(ctx);
        let attach_at = now + SimDuration::from_ms_f64(self.cfg.interruption_ms);
        self.ues[ue].at = Attachment::Detached { source, target, attach_at };
        self.ues[ue].record = Some(self.handovers.len());
        self.handovers.push(HandoverRecord {
            at: now,
            ue,
            source,
            target,
            attached_at: None,
            forwarded_sdus: forward.len() as u64,
            lost_sdus: lost,
        });
    }

    /// The downlink SDUs the source forwards (TS 36.300 §10.1.2.3): with `lossless`, every one
    /// not acknowledged (AM) or not begun (UM, TM); none otherwise.
    fn forwarded(&self, mode: RlcMode, held: &[HeldSdu]) -> HashSet<SduId> {
        match (self.cfg.forwarding, mode) {
            (Forwarding::Lossless, RlcMode::Am) => held.iter().map(|h| h.id).collect(),
            (Forwarding::Lossless, _) => held.iter().filter(|h| !h.begun).map(|h| h.id).collect(),
            (Forwarding::Seamless | Forwarding::None, _) => HashSet::new(),
        }
    }

    /// UE `ue` sends its first transmission in `target` (random access done, TS 36.300
    /// §10.1.2.1.1 step 11): it is the target's, and the core's path switches there.
    fn attach(&mut self, now: SimTime, ue: usize, target: usize) {
        let ctx = self.held[ue].take().expect("a detached UE's context is held");
        lend(&mut self.cells[target], &mut self.tables, |c| c.attach(ue, ctx, now));
        self.ues[ue].at = Attachment::Connected { cell: target };
        if let Some(r) = self.ues[ue].record {
            self.handovers[r].attached_at = Some(now);
        }
    }

    /// The X2 arrivals due by `now` enter the UE's new eNB entity.
    fn x2_arrivals(&mut self, now: SimTime, out: &mut CellOutput) {
        while self.x2.front().is_some_and(|x| x.at <= now) {
            let x = self.x2.pop_front().expect("checked");
            let record = self.ues[x.ue].record;
            let cell = match self.ues[x.ue].at {
                Attachment::Connected { cell } | Attachment::Preparing { cell, .. } => Some(cell),
                Attachment::Detached { .. } => None,
            };
            let ctx = match cell {
                Some(c) => self.cells[c].ue_mut(x.ue, &mut self.tables).expect("a connected UE is attached"),
                None => self.held[x.ue].as_deref_mut().expect("a detached UE's context is held"),
            };
            let refused = match x.what {
                X2Payload::Held { id, bytes } => {
                    ctx.enb_rlc.transmit_sdu(now, RlcSdu { id, bytes }).is_err()
                        && resolve_lost(&mut ctx.dl, id, out) > 0
                }
                X2Payload::Fresh { packet, ip_bytes } => {
                    self.x2_fresh_bytes -= u64::from(ip_bytes);
                    match ctx.admit(now, LinkDir::Downlink, packet, ip_bytes) {
                        Ok(()) => false,
                        Err(p) => {
                            out.dropped.push(p);
                            true
                        }
                    }
                }
            };
            if let (true, Some(r)) = (refused, record) {
                self.handovers[r].lost_sdus += 1;
            }
            if let Some(c) = cell {
                self.cells[c].wake_for(x.ue, now);
            }
        }
    }

    /// IP bytes held in the network (cells, UEs between cells, X2).
    pub fn held_bytes(&self) -> u64 {
        self.cells.iter().map(Cell::held_bytes).sum::<u64>()
            + self.held.iter().flatten().map(|c| c.held_bytes()).sum::<u64>()
            + self.x2_fresh_bytes
    }

    /// Close the books at the end of the run.
    pub fn finish(&mut self, end: SimTime) {
        #[cfg(test)]
        self.check_audit();
        for c in &mut self.cells {
            c.finish(end);
        }
        for ctx in self.held.iter_mut().flatten() {
            ctx.finish(end);
        }
    }

    /// The `lte` table's rows: every UE once, wherever it is; a slot's cell is the one serving
    /// it then ([`Self::cell_names`]).
    pub fn slots(&self) -> Vec<(&str, &str, &'static str, &LteSlots)> {
        let mut by_ue: Vec<Option<&UeContext>> = vec![None; self.ues.len()];
        for c in &self.cells {
            for (i, ctx) in c.attached() {
                by_ue[i] = Some(ctx);
            }
        }
        for (i, ctx) in self.held.iter().enumerate() {
            if let Some(ctx) = ctx {
                by_ue[i] = Some(ctx);
            }
        }
        let mut rows = Vec::with_capacity(2 * self.ues.len());
        for (i, ctx) in by_ue.into_iter().enumerate() {
            let ctx = ctx.expect("every UE is in a cell or between two");
            let first = self.cell_names[self.first_cell(i)].as_str();
            rows.push((first, self.ue_names[i].as_str(), "dl", ctx.dl.slots.table()));
            rows.push((first, self.ue_names[i].as_str(), "ul", ctx.ul.slots.table()));
        }
        rows
    }

    /// The cell UE `ue` started in.
    fn first_cell(&self, ue: usize) -> usize {
        self.handovers.iter().find(|h| h.ue == ue).map_or_else(
            || match self.ues[ue].at {
                Attachment::Connected { cell } | Attachment::Preparing { cell, .. } => cell,
                Attachment::Detached { source, .. } => source,
            },
            |h| h.source,
        )
    }

    pub fn cell_names(&self) -> &[String] {
        &self.cell_names
    }

    /// The `handovers` table: one row per handover (columns in `output.rs`).
    pub fn handovers_table(&self) -> Table {
        handovers_table(&self.handovers, &self.ue_names, &self.cell_names)
    }

    pub fn handovers(&self) -> &[HandoverRecord] {
        &self.handovers
    }
}

#[cfg(test)]
impl Network {
    /// Every SDU a UE's bearer held at a handover command was delivered at the
    /// re-establishment, is pending (forwarded or sent again) or was counted lost; none twice.
    fn check_audit(&self) {
        for (a, h) in self.audit.iter().zip(&self.handovers) {
            assert_eq!(a.dl_before, a.dl_delivered + a.dl_pending + a.dl_lost as usize, "downlink at {h:?}: {a:?}");
            assert_eq!(a.ul_before, a.ul_delivered + a.ul_pending + a.ul_lost as usize, "uplink at {h:?}: {a:?}");
            assert!(h.lost_sdus >= a.dl_lost + a.ul_lost, "{h:?}: {a:?}");
        }
    }
}

/// Run `f` on `cell` with the network's per-UE `tables` lent to it (its own are empty).
fn lend<R>(cell: &mut Cell, tables: &mut UeTables, f: impl FnOnce(&mut Cell) -> R) -> R {
    cell.swap_tables(tables);
    let r = f(cell);
    cell.swap_tables(tables);
    r
}

/// The `handovers` table of `records`.
pub fn handovers_table(records: &[HandoverRecord], ue_names: &[String], cell_names: &[String]) -> Table {
    let cat = |codes: Vec<u32>, labels: &[String]| Column::Cat { codes, labels: labels.to_vec() };
    let mut t = Table::default();
    t.push("t_s", Column::F64(records.iter().map(|h| h.at.as_secs_f64()).collect()));
    t.push("ue", cat(records.iter().map(|h| h.ue as u32).collect(), ue_names));
    t.push("source", cat(records.iter().map(|h| h.source as u32).collect(), cell_names));
    t.push("target", cat(records.iter().map(|h| h.target as u32).collect(), cell_names));
    t.push(
        "interruption_ms",
        Column::F64(records.iter().map(|h| h.attached_at.map_or(f64::NAN, |a| (a - h.at).as_ms_f64())).collect()),
    );
    t.push("forwarded_sdus", Column::U64(records.iter().map(|h| h.forwarded_sdus).collect()));
    t.push("lost_sdus", Column::U64(records.iter().map(|h| h.lost_sdus).collect()));
    t
}

/// The uplink SDUs the UE sends again after re-establishment (TS 36.323 §5.2.1): every one not
/// acknowledged (AM), the ones not yet begun (UM, TM).
fn resent(mode: RlcMode, held: &[HeldSdu]) -> HashSet<SduId> {
    match mode {
        RlcMode::Am => held.iter().map(|h| h.id).collect(),
        _ => held.iter().filter(|h| !h.begun).map(|h| h.id).collect(),
    }
}

/// Every SDU of `link` still unresolved and not in `keep` is lost to the handover; how many.
fn lose_unlisted(link: &mut super::cell::RadioLink, keep: &HashSet<SduId>, out: &mut CellOutput) -> u64 {
    let gone: Vec<SduId> = link.sdus.unresolved().filter(|id| !keep.contains(id)).collect();
    gone.iter().map(|&id| resolve_lost(link, id, out)).sum()
}

/// SDU `id` of `link` is lost: its packet is dropped (1), unless it was resolved already (0).
fn resolve_lost(link: &mut super::cell::RadioLink, id: SduId, out: &mut CellOutput) -> u64 {
    match link.sdus.resolve(id) {
        Some(p) => {
            out.dropped.push(p);
            1
        }
        None => 0,
    }
}

/// The network's sites: its cells' first (in scenario order), then the interferer-only ones
/// (the listed interferers, then the layout cells no cell took).
fn sites(ch: &ChannelSpec, cells: &[CellSpec]) -> Vec<SiteSetup> {
    let enb = &ch.enb;
    let layout = ch.hex_layout.map(|l| (l, hex_layout_all_cells(enb.position_m, &l.grid())));
    let sector = |l: &crate::lte::channel::spec::HexLayoutSpec, o: Option<f64>| match o {
        None => Antenna::Isotropic,
        Some(o) => Antenna::from_spec(&AntennaSpec::Parabolic {
            orientation_deg: o,
            beamwidth_deg: l.beamwidth_deg,
            max_attenuation_db: l.max_attenuation_db,
        }),
    };
    let mut out: Vec<SiteSetup> = cells
        .iter()
        .map(|c| {
            let s = c.site.as_ref().expect("validated: a network cell has a site");
            let (xy_m, antenna) = match (s.position_m, s.hex_cell, &layout) {
                (Some(xy), _, _) => (xy, Antenna::from_spec(&s.antenna.unwrap_or(enb.antenna))),
                (None, Some(k), Some((l, all))) => (all[k].xy_m, sector(l, all[k].orientation_deg)),
                _ => unreachable!("validated: a position or a layout cell"),
            };
            SiteSetup {
                xy_m,
                height_m: s.height_m.unwrap_or(enb.height_m),
                tx_power_dbm: s.tx_power_dbm.unwrap_or(enb.tx_power_dbm),
                antenna,
                load: None,
            }
        })
        .collect();
    for f in &ch.interferers {
        out.push(SiteSetup {
            xy_m: f.position_m,
            height_m: f.height_m_or(enb),
            tx_power_dbm: f.tx_power_dbm_or(enb),
            antenna: Antenna::from_spec(&f.antenna),
            load: Some(f.load),
        });
    }
    if let Some((l, all)) = &layout {
        let taken: HashSet<usize> = cells.iter().filter_map(|c| c.site.as_ref().and_then(|s| s.hex_cell)).collect();
        for (_, c) in all.iter().enumerate().filter(|(k, _)| !taken.contains(k)) {
            out.push(SiteSetup {
                xy_m: c.xy_m,
                height_m: enb.height_m,
                tx_power_dbm: enb.tx_power_dbm,
                antenna: sector(l, c.orientation_deg),
                load: Some(l.load),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
