//! Flows inside the world: their endpoints, applications and measurements,
//! and the glue that moves segments between endpoints and the network.

use super::{Event, Hop, World};
use crate::app::App;
use crate::cc::CaState;
use crate::measure::flow_monitor::FlowStats;
use crate::measure::timeseries::{FlowSlot, Slots};
use crate::packet::{FlowDir, Packet, Payload, TcpSegment, IPV4_HEADER_BYTES};
use crate::sim::{FlowId, NodeId, SimTime};
use crate::tcp::{TcpReceiver, TcpSender};

/// Which endpoint of a TCP connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Sender,
    Receiver,
}

/// Lifecycle of a flow's application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Pending,
    Running,
    /// The application stopped writing; TCP may still be draining.
    Stopped,
    Done,
}

pub struct TcpEnds {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    /// The time each end's timer event is scheduled for, if any.
    armed: [Option<SimTime>; 2],
    /// Last (cwnd, ssthresh, pacing, state) recorded in the trace.
    last_traced: Option<(u64, u64, u64, CaState)>,
    /// Each end's first hop towards the other once looked up, when it is static (Linux keeps
    /// the route on the socket, `sk_dst_cache`); a network UE's follows its serving eNB and
    /// is looked up on every send.
    hops: [Option<Hop>; 2],
}

impl TcpEnds {
    pub fn new(sender: TcpSender, receiver: TcpReceiver) -> Self {
        TcpEnds { sender, receiver, armed: [None, None], last_traced: None, hops: [None, None] }
    }
}

pub enum Transport {
    Tcp(Box<TcpEnds>),
    Udp { next_seq: u64 },
}

pub struct Flow {
    pub id: String,
    pub src: NodeId,
    pub dst: NodeId,
    /// Congestion control name, or "udp".
    pub cca: String,
    pub app: App,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub phase: Phase,
    pub transport: Transport,
    /// FlowMonitor statistics of the data direction.
    pub stats: FlowStats,
    /// Payload bytes handed to the receiving application in order.
    pub app_bytes: u64,
    /// Data packets that arrived CE-marked.
    pub ce_marked: u64,
    pub completed_at: Option<SimTime>,
}

fn end_index(e: End) -> usize {
    match e {
        End::Sender => 0,
        End::Receiver => 1,
    }
}

impl World {
    pub(super) fn on_flow_start(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f.index()];
        flow.phase = Phase::Running;
        if let Transport::Tcp(t) = &mut flow.transport {
            t.sender.start(now);
        }
        if let Some((interval, _)) = flow.app.tick() {
            self.events.schedule(now + interval, Event::AppTick(f));
        }
        if matches!(self.flows[f.index()].transport, Transport::Udp { .. }) {
            self.send_udp(f);
        }
        self.drain(f, End::Sender);
    }

    pub(super) fn on_flow_stop(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.index()];
        if flow.phase != Phase::Running {
            return;
        }
        flow.phase = Phase::Stopped;
        match &mut flow.transport {
            Transport::Tcp(t) => {
                t.sender.app_close();
                self.drain(f, End::Sender);
            }
            Transport::Udp { .. } => self.finish(f),
        }
    }

    pub(super) fn on_app_tick(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.index()];
        if flow.phase != Phase::Running {
            return;
        }
        let Some((interval, bytes)) = flow.app.tick() else {
            return;
        };
        let next = self.now + interval;
        if next <= self.end {
            self.events.schedule(next, Event::AppTick(f));
        }
        match &mut flow.transport {
            Transport::Tcp(t) => {
                t.sender.app_write(bytes as u64);
                self.drain(f, End::Sender);
            }
            Transport::Udp { .. } => self.send_udp(f),
        }
    }

    fn send_udp(&mut self, f: FlowId) {
        let now = self.now;
        let id = self.new_datagram_id();
        let flow = &mut self.flows[f.index()];
        let (Transport::Udp { next_seq }, App::Cbr { payload_bytes, .. }) = (&mut flow.transport, flow.app) else {
            return;
        };
        let payload = Payload::Udp { seq: *next_seq, payload_bytes };
        *next_seq += 1;
        let pkt = Packet::datagram(f, FlowDir::Forward, flow.src, flow.dst, payload, id, now);
        flow.stats.on_tx(now, pkt.ip_bytes);
        let src = flow.src;
        self.send_from(src, pkt);
    }

    pub(super) fn on_timer(&mut self, f: FlowId, end: End) {
        let now = self.now;
        let Transport::Tcp(t) = &mut self.flows[f.index()].transport else {
            return;
        };
        if t.armed[end_index(end)] != Some(now) {
            return;
        }
        t.armed[end_index(end)] = None;
        match end {
            End::Sender => t.sender.on_timeout(now),
            End::Receiver => t.receiver.on_timeout(now),
        }
        self.drain(f, end);
    }

    /// A whole datagram reached its destination host (for one read in place from the
    /// packet slab, see `receive`; the slot is freed before the endpoint sends).
    pub(super) fn deliver(&mut self, p: &Packet) {
        let ready = receive(&mut self.flows, &mut self.flow_slots, self.now, p);
        self.after_receive(p.flow, ready);
    }

    /// What follows a delivery: the endpoint that took the segment sends what it has, and
    /// a receiver with unread data is read once this instant's arrivals are all in. Inline in
    /// its two callers, as `receive` (once per packet delivered).
    #[inline(always)]
    pub(super) fn after_receive(&mut self, f: FlowId, ready: Option<End>) {
        match ready {
            Some(End::Receiver) => {
                self.note_app_delivery(f);
                self.drain(f, End::Receiver);
                let Transport::Tcp(t) = &self.flows[f.index()].transport else { return };
                if t.receiver.wants_read() && !self.reads_due.contains(&f) {
                    self.reads_due.push(f);
                }
            }
            Some(End::Sender) => self.drain(f, End::Sender),
            None => {}
        }
    }

    /// The end of an instant: each receiving application that was woken reads (Linux runs the
    /// reader after the softirq has taken in the burst), which may send an ACK.
    pub(super) fn run_reads(&mut self) {
        let mut due = std::mem::take(&mut self.reads_due);
        for &f in &due {
            let Transport::Tcp(t) = &mut self.flows[f.index()].transport else { continue };
            if t.receiver.on_app_read(self.now) {
                self.drain(f, End::Receiver);
            }
        }
        due.clear();
        self.reads_due = due;
    }

    /// Count what the receiver delivered in order; inline in `after_receive`, its one caller.
    #[inline(always)]
    fn note_app_delivery(&mut self, f: FlowId) {
        let now = self.now;
        let flow = &mut self.flows[f.index()];
        let Transport::Tcp(t) = &flow.transport else {
            return;
        };
        let delivered = t.receiver.delivered_bytes();
        let new = delivered - flow.app_bytes;
        flow.app_bytes = delivered;
        if flow.completed_at.is_none() {
            flow.completed_at = t.receiver.completed_at;
        }
        self.flow_slots[f.index()].at(now).app_bytes += new;
    }

    /// Send everything the endpoint has ready, record what changed, re-arm its timer.
    pub(super) fn drain(&mut self, f: FlowId, end: End) {
        let now = self.now;
        let flow = &self.flows[f.index()];
        if !matches!(flow.transport, Transport::Tcp(_)) {
            return;
        }
        let (src, dst) = (flow.src, flow.dst);
        let (from, to, dir) = match end {
            End::Sender => (src, dst, FlowDir::Forward),
            End::Receiver => (dst, src, FlowDir::Reverse),
        };
        loop {
            let Transport::Tcp(t) = &mut self.flows[f.index()].transport else {
                return;
            };
            let retx_before = t.sender.stats.retransmits;
            let seg = match end {
                End::Sender => t.sender.poll_transmit(now),
                End::Receiver => t.receiver.poll_transmit(now),
            };
            let Some(seg) = seg else { break };
            let retransmitted = t.sender.stats.retransmits - retx_before;
            let hop = t.hops[end_index(end)];
            // RFC 3168 §6.1.4: data segments are ECN-capable, pure ACKs are not.
            let ect = dir == FlowDir::Forward && seg.len > 0 && t.sender.ecn();
            let id = self.new_datagram_id();
            // The datagram without its segment, which `send_segment` puts in place.
            let empty = Packet::datagram(f, dir, from, to, Payload::Tcp(TcpSegment::default()), id, now);
            let ip_bytes = IPV4_HEADER_BYTES + seg.transport_bytes();
            if dir == FlowDir::Forward {
                self.flows[f.index()].stats.on_tx(now, ip_bytes);
                if retransmitted > 0 {
                    self.flow_slots[f.index()].at(now).retransmits += retransmitted;
                }
            }
            let hop = hop.unwrap_or_else(|| self.end_route(f, end, from, to));
            self.send_segment(from, hop, Packet { ect, ip_bytes, ..empty }, seg);
        }
        self.after_endpoint_activity(f, end);
    }

    /// The first hop from `from` (end `end` of flow `f`) to `to`, kept in the flow when the
    /// route is static: neither end is a network's UE, whose route changes at handover.
    fn end_route(&mut self, f: FlowId, end: End, from: NodeId, to: NodeId) -> Hop {
        let hop = self.route(from, to);
        let fixed = self.mobile[from.index()].is_none() && self.mobile[to.index()].is_none();
        if let Transport::Tcp(t) = &mut self.flows[f.index()].transport {
            if fixed {
                t.hops[end_index(end)] = Some(hop);
            }
        }
        hop
    }

    fn after_endpoint_activity(&mut self, f: FlowId, end: End) {
        let now = self.now;
        let flow = &mut self.flows[f.index()];
        let Transport::Tcp(t) = &mut flow.transport else {
            return;
        };
        if end == End::Sender {
            let s = &mut t.sender;
            let row = (s.cwnd_bytes(), s.ssthresh_bytes(), s.pacing_rate_bps().unwrap_or(0), s.ca_state());
            if t.last_traced != Some(row) && s.state() != crate::tcp::sender::SenderState::Closed {
                t.last_traced = Some(row);
                self.flow_slots[f.index()].at(now).cwnd_bytes = Some(row.0);
                self.trace.cwnd_row(f, now, row);
            }
            let slots = &mut self.flow_slots[f.index()];
            let trace = &mut self.trace;
            s.drain_rtt(|o| {
                let slot = slots.at(o.at);
                slot.rtt_sum_ns += o.rtt.as_ns();
                slot.rtt_n += 1;
                trace.rtt_row(f, o);
            });
        }
        let deadline = match end {
            End::Sender => t.sender.poll_timeout(now),
            End::Receiver => t.receiver.poll_timeout(),
        };
        let slot = &mut t.armed[end_index(end)];
        if let Some(d) = deadline {
            let d = d.max(now);
            if slot.is_none_or(|a| d < a) {
                *slot = Some(d);
                self.events.schedule(d, Event::Timer { flow: f, end });
            }
        }
        if t.sender.is_done() && flow.phase != Phase::Done {
            self.finish(f);
        }
    }

    fn finish(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.index()];
        if flow.phase != Phase::Done {
            flow.phase = Phase::Done;
            self.flows_done += 1;
        }
    }
}

/// Count a whole datagram in its flow's statistics and hand its segment to the TCP endpoint
/// (or its payload to the UDP sink). Returns the endpoint to drain next. It takes only the
/// fields it needs, so the world can pass a packet still in its slab (no 180-byte copy out).
#[inline(always)]
pub(super) fn receive(flows: &mut [Flow], flow_slots: &mut [Slots<FlowSlot>], now: SimTime, p: &Packet) -> Option<End> {
    let f = p.flow;
    let flow = &mut flows[f.index()];
    match (p.dir, &p.payload, &mut flow.transport) {
        (FlowDir::Forward, payload, transport) => {
            let delay = flow.stats.on_rx(now, p.ip_bytes, p.sent_at);
            let slot = flow_slots[f.index()].at(now);
            slot.rx_bytes += p.ip_bytes as u64;
            slot.delay_sum_ns += delay.as_ns();
            slot.delay_n += 1;
            flow.ce_marked += p.ecn_ce as u64;
            match (payload, transport) {
                (Payload::Tcp(seg), Transport::Tcp(t)) => {
                    // The IP header's CE mark goes beside the segment (no copy of it).
                    t.receiver.on_segment_ce(now, seg, p.ecn_ce);
                    Some(End::Receiver)
                }
                (&Payload::Udp { payload_bytes, .. }, Transport::Udp { .. }) => {
                    flow.app_bytes += payload_bytes as u64;
                    flow_slots[f.index()].at(now).app_bytes += payload_bytes as u64;
                    None
                }
                _ => unreachable!("a flow's packets carry its own transport"),
            }
        }
        (FlowDir::Reverse, Payload::Tcp(seg), Transport::Tcp(t)) => {
            t.sender.on_segment(now, seg);
            Some(End::Sender)
        }
        (FlowDir::Reverse, _, _) => unreachable!("only TCP sends packets back to the source"),
    }
}
