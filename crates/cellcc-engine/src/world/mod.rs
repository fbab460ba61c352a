//! The world: owns every component and dispatches events in time order.
//!
//! ```text
//!   FlowStart/AppTick ─► TcpSender ─poll_transmit─► send_from(src) ─route─► Channel.enqueue
//!   Channel: rate (departure computed at enqueue) / trace Opportunity ─► (loss?) ─► wire FIFO ─delay─► Arrive(link)
//!   Arrive at a router ─► forward (fragment if the next MTU is smaller)
//!   Arrive at the destination ─► reassemble ─► TcpReceiver / TcpSender.on_segment ─► drain
//!   End of an instant with data arrived ─► the receiving application reads ─► drain
//!   Timer(flow, end) ─► endpoint.on_timeout ─► drain
//! ```
//! Routes name a [`Hop`]: one direction of a point-to-point link, a radio
//! cell towards the eNB or one of its UEs, or a Wi-Fi BSS towards its AP or a
//! station. A cell or BSS is a point-to-multipoint medium with its own clock;
//! it owns its events behind one `Event::Cell` / `Event::Bss` variant, and the
//! world only re-arms its next wake-up.
//!
//! Determinism: the event queue breaks ties by insertion order, components
//! draw from their own random streams, and no output depends on hash order.

mod build;
mod flow;
mod report;
pub mod resolved;
mod routes;

use crate::link::channel::Enqueued;
use crate::link::queue::QueueDiscipline;
use crate::link::Channel;
use crate::lte::cell::{CellEnqueued, CellOutput};
use crate::lte::ran::Ran;
use crate::measure::pcap::PcapWriter;
use crate::measure::timeseries::{FlowSlot, QueueSlot, Slots};
use crate::nr::cell::NrCell;
use crate::packet::ipv4::{fragment, Reassembled, Reassembly};
use crate::packet::{FlowDir, Packet, PacketId, PacketSlab, Payload, Routing, TcpSegment};
use crate::scenario::Scenario;
use crate::sim::{BssId, CellId, EventQueue, FlowId, LinkId, NodeId, NrCellId, SimTime, StallGuard};
use crate::wifi::bss::{Bss, BssEnqueued, BssOutput};
use crate::{RunError, RunOutput};
use flow::{End, Flow};
use std::collections::HashSet;

/// Everything that can happen.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// A trace channel's delivery opportunity.
    Opportunity(LinkId),
    /// The packet at the head of a channel's wire reaches the far node.
    Arrive(LinkId),
    /// An endpoint's timer (RTO, delayed ACK, pacing).
    Timer {
        flow: FlowId,
        end: End,
    },
    FlowStart(FlowId),
    FlowStop(FlowId),
    AppTick(FlowId),
    /// Incomplete datagrams at this node may have timed out.
    ReassemblyTimeout(NodeId),
    /// A time-series slot boundary: sample the queues.
    SlotEnd,
    /// A cell's next wake-up (its next TTI, or an RLC/HARQ timer).
    Cell(CellId),
    /// A BSS's next wake-up (a PPDU's end, a response, a station's access).
    Bss(BssId),
    /// An NR cell's next wake-up (its next occasion, a TB's end, a timer).
    NrCell(NrCellId),
}

/// The next hop of a route: which medium a packet crosses, towards which node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// One direction of a point-to-point link (its far end is the next node).
    Channel(LinkId),
    /// Across a radio cell, from its eNB to a UE or from a UE to its eNB.
    Cell { cell: CellId, next: NodeId },
    /// Across a Wi-Fi BSS, from its AP to a station or from a station to its AP.
    Bss { bss: BssId, next: NodeId },
    /// Across an NR cell, from its gNB to a UE or from a UE to its gNB (a peer medium of the
    /// LTE cell: its own slot clock, the same seam).
    NrCell { cell: NrCellId, next: NodeId },
}

struct Node {
    reassembly: Reassembly,
}

/// IP-layer byte accounting for the conservation invariant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conservation {
    /// IP bytes put into the network (every packet and fragment created).
    pub sent_bytes: u64,
    /// IP bytes that reached their destination host.
    pub delivered_bytes: u64,
    /// IP bytes dropped by queues and random loss.
    pub dropped_bytes: u64,
    /// IP bytes still in queues and on wires.
    pub in_flight_bytes: u64,
}

pub struct World {
    now: SimTime,
    end: SimTime,
    seed: u64,
    events: EventQueue<Event>,
    packets: PacketSlab,
    next_datagram: u64,
    nodes: Vec<Node>,
    /// First hop from each node towards each other node.
    routes: routes::StaticRoutes,
    node_names: Vec<String>,
    channels: Vec<Channel>,
    cells: Vec<Ran>,
    /// Per node: the network a UE that may change cell belongs to (its route follows it).
    mobile: Vec<Option<CellId>>,
    /// The time each cell's wake-up event is scheduled for, if any.
    cells_armed: Vec<Option<SimTime>>,
    /// Reused buffers for what a cell hands back.
    cell_out: CellOutput,
    bsses: Vec<Bss>,
    /// The time each BSS's wake-up event is scheduled for, if any.
    bsses_armed: Vec<Option<SimTime>>,
    bss_out: BssOutput,
    nr_cells: Vec<NrCell>,
    /// The time each NR cell's wake-up event is scheduled for, if any.
    nr_cells_armed: Vec<Option<SimTime>>,
    flows: Vec<Flow>,
    flows_done: usize,
    /// Datagrams of which at least one fragment was dropped (counted lost once).
    lost_datagrams: HashSet<u64>,
    flow_slots: Vec<Slots<FlowSlot>>,
    queue_slots: Vec<Slots<QueueSlot>>,
    pcaps: Vec<Option<PcapWriter>>,
    trace: report::Traces,
    /// Reused buffer for fragmenting.
    frag_scratch: Vec<Packet>,
    acct: Conservation,
    /// Fails the run if simulated time stops advancing.
    stall: StallGuard,
    /// Flows whose receiving application reads at the end of this instant.
    reads_due: Vec<FlowId>,
}

impl World {
    /// Build the world for `scenario`; errors name the offending field.
    pub fn new(scenario: &Scenario, seed: u64) -> Result<World, RunError> {
        build::build(scenario, seed)
    }

    /// Run to the time limit or until every flow is done.
    pub fn run(&mut self) -> Result<(), RunError> {
        self.run_until(self.end).map(|_| ())
    }

    /// Process every event up to `limit` (capped at the run's end); true if the run is over.
    pub fn run_until(&mut self, limit: SimTime) -> Result<bool, RunError> {
        self.advance(limit, u64::MAX)
    }

    /// Process at most `budget` events (up to the run's end); true if the run is over.
    /// Slicing a run this way changes nothing in its results: the binding does it to
    /// look for Ctrl-C between slices.
    pub fn run_events(&mut self, budget: u64) -> Result<bool, RunError> {
        self.advance(self.end, budget)
    }

    fn advance(&mut self, limit: SimTime, budget: u64) -> Result<bool, RunError> {
        let limit = limit.min(self.end);
        let mut left = budget;
        while self.flows_done < self.flows.len() {
            if left == 0 {
                if self.events.peek_time().is_some_and(|t| t <= limit) {
                    // Out of budget with an event due before `limit`: the clock stays.
                    return Ok(false);
                }
                break;
            }
            // The next event if due by `limit` (one look at the queue's heads, not a peek
            // and a pop).
            let Some((t, ev)) = self.events.pop_until(limit) else { break };
            left -= 1;
            self.stall.observe(t)?;
            self.now = t;
            self.dispatch(ev);
            if !self.reads_due.is_empty() && self.events.peek_time() != Some(t) {
                self.run_reads();
            }
        }
        if self.flows_done < self.flows.len() {
            // Nothing else happens before `limit`: the clock moves there.
            self.now = self.now.max(limit);
        }
        Ok(self.flows_done == self.flows.len() || self.events.peek_time().is_none_or(|t| t > self.end))
    }

    /// Tests: every LTE network of the world runs as its every-TTI, every-UE reference.
    #[cfg(test)]
    pub(crate) fn visit_every_ue_every_tti(&mut self) {
        for r in &mut self.cells {
            if let crate::lte::ran::Ran::Network(n) = r {
                n.visit_every_ue_every_tti();
            }
        }
    }

    /// Run (what is left of the run) and collect the output tables.
    pub fn into_output(mut self) -> Result<RunOutput, RunError> {
        self.run()?;
        Ok(report::collect(self))
    }

    pub fn events_processed(&self) -> u64 {
        self.events.events_processed()
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The IP byte ledger; `in_flight_bytes` is read from the packet slab.
    pub fn conservation(&self) -> Conservation {
        Conservation { in_flight_bytes: self.packets.live_bytes(), ..self.acct }
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Opportunity(l) => self.on_opportunity(l),
            Event::Arrive(l) => self.on_wire_arrival(l),
            Event::Timer { flow, end } => self.on_timer(flow, end),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::FlowStop(f) => self.on_flow_stop(f),
            Event::AppTick(f) => self.on_app_tick(f),
            Event::ReassemblyTimeout(node) => self.on_reassembly_timeout(node),
            Event::SlotEnd => self.on_slot_end(),
            Event::Cell(c) => self.on_cell_wake(c),
            Event::Bss(b) => self.on_bss_wake(b),
            Event::NrCell(c) => self.on_nr_cell_wake(c),
        }
    }

    // ---- network ---------------------------------------------------------

    fn new_datagram_id(&mut self) -> u64 {
        self.next_datagram += 1;
        self.next_datagram
    }

    /// `node`'s first hop towards `dst`. Inline in its callers: a router forwards every packet
    /// through it (`forward`), where the call and its prologue cost as much as the lookup.
    #[inline(always)]
    fn route(&self, node: NodeId, dst: NodeId) -> Hop {
        // A UE of a network is reached through the eNB serving it now, and leaves through it.
        if let Some(ran) = self.mobile[dst.index()] {
            let network = &self.cells[ran.index()];
            if network.is_network_enb(node) {
                return Hop::Cell { cell: ran, next: dst };
            }
            return self.static_route(node, network.routing_enb(dst).expect("a network's UE"));
        }
        if let Some(ran) = self.mobile[node.index()] {
            let via = self.cells[ran.index()].routing_enb(node).expect("a network's UE");
            return Hop::Cell { cell: ran, next: via };
        }
        self.static_route(node, dst)
    }

    fn static_route(&self, node: NodeId, dst: NodeId) -> Hop {
        self.routes.first_hop(node, dst).expect("routes were checked at build")
    }

    /// Largest IP datagram the hop carries, bytes.
    #[inline]
    fn hop_mtu(&self, hop: Hop) -> u32 {
        match hop {
            Hop::Channel(l) => self.channels[l.index()].payload_mtu_bytes(),
            Hop::Cell { cell, .. } => self.cells[cell.index()].mtu_bytes(),
            Hop::Bss { bss, .. } => self.bsses[bss.index()].mtu_bytes(),
            Hop::NrCell { cell, .. } => self.nr_cells[cell.index()].mtu_bytes(),
        }
    }

    /// Hand a packet to `node`'s IP layer for forwarding towards `pkt.dst`.
    fn send_from(&mut self, node: NodeId, pkt: Packet) {
        let hop = self.route(node, pkt.dst);
        let mtu = self.hop_mtu(hop);
        if pkt.ip_bytes <= mtu {
            self.launch(node, hop, pkt);
            return;
        }
        let mut frags = std::mem::take(&mut self.frag_scratch);
        fragment(&pkt, mtu, |f| frags.push(f));
        for f in frags.drain(..) {
            self.launch(node, hop, f);
        }
        self.frag_scratch = frags;
    }

    /// A datagram (or fragment) that fits `hop` leaves `node`: counted, stored, queued.
    #[inline]
    fn launch(&mut self, node: NodeId, hop: Hop, pkt: Packet) {
        self.acct.sent_bytes += pkt.ip_bytes as u64;
        let routing = pkt.routing();
        let id = self.packets.insert(pkt);
        self.enqueue(node, hop, id, routing);
    }

    /// `send_from` for a TCP segment through `hop`, the first hop from `node` to `header.dst`;
    /// `header` is its datagram with an empty payload and the
    /// segment's `ip_bytes`. A datagram that fits the first hop is assembled in its slab slot,
    /// so the segment is copied once: put into a `Packet` on the stack and that copied into the
    /// slab (a `memcpy` call), it was copied twice, and the second copy's loads waited on the
    /// stores of the first (perf: ~4% of the p2p run's CPU samples).
    fn send_segment(&mut self, node: NodeId, hop: Hop, header: Packet, seg: TcpSegment) {
        if header.ip_bytes > self.hop_mtu(hop) {
            self.send_from(node, Packet { payload: Payload::Tcp(seg), ..header });
            return;
        }
        self.launch(node, hop, Packet { payload: Payload::Tcp(seg), ..header });
    }

    /// Forward a packet already in the network (router hop); its slot is not read unless
    /// the packet must be fragmented.
    fn forward(&mut self, node: NodeId, id: PacketId, routing: Routing) {
        let hop = self.route(node, routing.dst);
        if routing.ip_bytes <= self.hop_mtu(hop) {
            self.enqueue(node, hop, id, routing);
            return;
        }
        let pkt = self.packets.remove(id);
        self.acct.sent_bytes -= pkt.ip_bytes as u64;
        self.send_from(node, pkt);
    }

    fn enqueue(&mut self, node: NodeId, hop: Hop, id: PacketId, routing: Routing) {
        match hop {
            Hop::Channel(link) => self.enqueue_channel(link, id, routing),
            Hop::Cell { cell, next } => {
                let bytes = routing.ip_bytes;
                if let CellEnqueued::Dropped(id) = self.cells[cell.index()].enqueue(self.now, node, next, id, bytes) {
                    self.drop_packet(id);
                }
                self.arm_cell(cell);
            }
            Hop::Bss { bss, next } => {
                let (bytes, flow) = (routing.ip_bytes, self.packets.get(id).flow);
                if let BssEnqueued::Dropped(id) = self.bsses[bss.index()].enqueue(self.now, node, next, id, bytes, flow)
                {
                    self.drop_packet(id);
                }
                self.arm_bss(bss);
            }
            Hop::NrCell { cell, next } => {
                let bytes = routing.ip_bytes;
                if let CellEnqueued::Dropped(id) = self.nr_cells[cell.index()].enqueue(self.now, node, next, id, bytes)
                {
                    self.drop_packet(id);
                }
                self.arm_nr_cell(cell);
            }
        }
    }

    fn enqueue_channel(&mut self, link: LinkId, id: PacketId, routing: Routing) {
        if routing.ect && self.channels[link.index()].marks_ce(self.now) {
            self.packets.get_mut(id).ecn_ce = true;
        }
        match self.channels[link.index()].enqueue(self.now, id, routing.ip_bytes) {
            Enqueued::Dropped(id) => self.drop_packet(id),
            Enqueued::Queued => {}
            Enqueued::Wake(t) => self.events.schedule(t, Event::Opportunity(link)),
            Enqueued::Departs(t) => self.propagate(link, id, routing, t),
        }
    }

    // ---- cells -------------------------------------------------------------

    fn on_cell_wake(&mut self, c: CellId) {
        if self.cells_armed[c.index()] != Some(self.now) {
            return;
        }
        self.cells_armed[c.index()] = None;
        let mut out = std::mem::take(&mut self.cell_out);
        self.cells[c.index()].handle_timeout(self.now, &mut out);
        for id in out.dropped.drain(..) {
            self.drop_packet(id);
        }
        // The cell's deliveries of this wake-up, their slots' loads issued together.
        self.packets.touch(out.delivered.iter().map(|&(_, id)| id));
        for (node, id) in out.delivered.drain(..) {
            self.on_arrive(node, id);
        }
        self.cell_out = out;
        self.arm_cell(c);
    }

    /// Keep one wake-up event scheduled at the cell's next deadline.
    fn arm_cell(&mut self, c: CellId) {
        let Some(t) = self.cells[c.index()].poll_timeout() else { return };
        let t = t.max(self.now);
        let armed = &mut self.cells_armed[c.index()];
        if armed.is_none_or(|a| t < a) {
            *armed = Some(t);
            self.events.schedule(t, Event::Cell(c));
        }
    }

    // ---- BSSes -------------------------------------------------------------

    fn on_bss_wake(&mut self, b: BssId) {
        if self.bsses_armed[b.index()] != Some(self.now) {
            return;
        }
        self.bsses_armed[b.index()] = None;
        let mut out = std::mem::take(&mut self.bss_out);
        self.bsses[b.index()].handle_timeout(self.now, &mut out);
        for id in out.dropped.drain(..) {
            self.drop_packet(id);
        }
        for (node, id) in out.delivered.drain(..) {
            self.on_arrive(node, id);
        }
        self.bss_out = out;
        self.arm_bss(b);
    }

    /// Keep one wake-up event scheduled at the BSS's next deadline.
    fn arm_bss(&mut self, b: BssId) {
        let Some(t) = self.bsses[b.index()].poll_timeout() else { return };
        let t = t.max(self.now);
        let armed = &mut self.bsses_armed[b.index()];
        if armed.is_none_or(|a| t < a) {
            *armed = Some(t);
            self.events.schedule(t, Event::Bss(b));
        }
    }

    // ---- NR cells -----------------------------------------------------------

    fn on_nr_cell_wake(&mut self, c: NrCellId) {
        if self.nr_cells_armed[c.index()] != Some(self.now) {
            return;
        }
        self.nr_cells_armed[c.index()] = None;
        let mut out = std::mem::take(&mut self.cell_out);
        self.nr_cells[c.index()].handle_timeout(self.now, &mut out);
        for id in out.dropped.drain(..) {
            self.drop_packet(id);
        }
        for (node, id) in out.delivered.drain(..) {
            self.on_arrive(node, id);
        }
        self.cell_out = out;
        self.arm_nr_cell(c);
    }

    /// Keep one wake-up event scheduled at the NR cell's next deadline.
    fn arm_nr_cell(&mut self, c: NrCellId) {
        let Some(t) = self.nr_cells[c.index()].poll_timeout() else { return };
        let t = t.max(self.now);
        let armed = &mut self.nr_cells_armed[c.index()];
        if armed.is_none_or(|a| t < a) {
            *armed = Some(t);
            self.events.schedule(t, Event::NrCell(c));
        }
    }

    fn on_opportunity(&mut self, link: LinkId) {
        let mut served = std::mem::take(&mut self.trace.scratch_ids);
        let next = self.channels[link.index()].on_opportunity(|id| served.push(id));
        if let Some(t) = next {
            self.events.schedule(t, Event::Opportunity(link));
        }
        for &id in &served {
            self.propagate(link, id, self.packets.get(id).routing(), self.now);
        }
        served.clear();
        self.trace.scratch_ids = served;
    }

    /// The packet leaves the channel's server at `departs`: capture, random loss, propagation.
    /// Inline in its two callers (every packet crosses it).
    #[inline(always)]
    fn propagate(&mut self, link: LinkId, id: PacketId, routing: Routing, departs: SimTime) {
        let ch = &mut self.channels[link.index()];
        if let Some(w) = &mut self.pcaps[link.index()] {
            w.record(departs, self.packets.get(id));
        }
        if ch.lose() {
            self.drop_packet(id);
            return;
        }
        ch.stats.delivered_packets += 1;
        ch.stats.delivered_bytes += routing.ip_bytes as u64;
        if let Some(at) = ch.launch(departs, id, routing) {
            self.events.schedule(at, Event::Arrive(link));
        }
    }

    fn on_wire_arrival(&mut self, link: LinkId) {
        let ch = &mut self.channels[link.index()];
        let (id, routing, next) = ch.land();
        let to = ch.to;
        if let Some(t) = next {
            self.events.schedule(t, Event::Arrive(link));
        }
        self.arrive(to, id, routing);
    }

    fn drop_packet(&mut self, id: PacketId) {
        let p = self.packets.remove(id);
        self.acct.dropped_bytes += p.ip_bytes as u64;
        let first_loss_of_datagram = p.frag.is_none() || self.lost_datagrams.insert(p.datagram);
        if p.dir == FlowDir::Forward && first_loss_of_datagram {
            self.flows[p.flow.index()].stats.on_lost();
            self.flow_slots[p.flow.index()].at(self.now).lost_packets += 1;
        }
    }

    fn on_arrive(&mut self, node: NodeId, id: PacketId) {
        self.arrive(node, id, self.packets.get(id).routing());
    }

    /// A packet reaches `node`: forwarded, or delivered to its flow.
    fn arrive(&mut self, node: NodeId, id: PacketId, routing: Routing) {
        if routing.dst != node {
            self.forward(node, id, routing);
            return;
        }
        let p = self.packets.get(id);
        self.acct.delivered_bytes += p.ip_bytes as u64;
        if p.frag.is_none() {
            // A whole datagram needs no reassembly (`accept` would hand it straight back): it
            // is read where it lies in the slab, and its slot freed before anything is sent.
            let f = p.flow;
            let ready = flow::receive(&mut self.flows, &mut self.flow_slots, self.now, p);
            self.packets.release(id);
            self.after_receive(f, ready);
            return;
        }
        let p = self.packets.remove(id);
        match self.nodes[node.index()].reassembly.accept(self.now, p) {
            Reassembled::Complete(whole) => self.deliver(&whole),
            Reassembled::Pending { first: true } => {
                let t = self.now + crate::packet::ipv4::REASSEMBLY_TIMEOUT;
                self.events.schedule(t, Event::ReassemblyTimeout(node));
            }
            Reassembled::Pending { first: false } => {}
        }
    }

    fn on_reassembly_timeout(&mut self, node: NodeId) {
        // Each expired datagram's loss was counted when its fragment was dropped.
        self.nodes[node.index()].reassembly.expire(self.now);
    }

    fn on_slot_end(&mut self) {
        for (c, slots) in self.channels.iter_mut().zip(self.queue_slots.iter_mut()) {
            c.rationalize(self.now);
            let i = slots.index(SimTime(self.now.as_ns().saturating_sub(1)));
            slots.slots[i] = QueueSlot {
                bytes: c.queue.len_bytes(),
                packets: c.queue.len_packets() as u64,
                max_bytes: c.stats.slot_max_bytes,
                drops: c.stats.slot_drops,
            };
            c.stats.slot_max_bytes = c.queue.len_bytes();
            c.stats.slot_drops = 0;
        }
        let next = self.now + self.queue_slots.first().map_or(self.end - self.now, |s| s.width());
        if next <= self.end && !self.queue_slots.is_empty() {
            self.events.schedule(next, Event::SlotEnd);
        }
    }
}

/// Simulate `scenario` with `seed`.
pub fn run(scenario: &Scenario, seed: u64) -> Result<RunOutput, RunError> {
    World::new(scenario, seed)?.into_output()
}
