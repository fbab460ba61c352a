//! Building a world from a validated scenario: channels, static routes,
//! flows with their endpoints, and the first events.

use super::flow::{Flow, Phase, TcpEnds, Transport};
use super::report::Traces;
use super::routes::StaticRoutes;
use super::{Event, Hop, Node, World};
use crate::app::App;
use crate::cc::Window;
use crate::error::ScenarioError;
use crate::link::channel::{ChannelStats, RateSchedule};
use crate::link::loss::LossModel;
use crate::link::queue::drop_tail::Limit;
use crate::link::queue::DropTail;
use crate::link::trace::TraceFiles;
use crate::link::{Channel, Server};
use crate::lte::cell::Cell;
use crate::lte::network::Network;
use crate::lte::ran::Ran;
use crate::measure::pcap::PcapWriter;
use crate::measure::timeseries::Slots;
use crate::nr::cell::NrCell;
use crate::packet::ipv4::Reassembly;
use crate::packet::IPV4_HEADER_BYTES;
use crate::scenario::{DirectionSpec, LossSpec, QueueSpec, Scenario, Transport as TransportSpec, DEFAULT_CCA};
use crate::sim::{BssId, CellId, EventQueue, FlowId, LinkId, NodeId, NrCellId, RngStream, SimDuration, SimTime};
use crate::tcp::sender::data_overhead_bytes;
use crate::tcp::{EcnEcho, TcpReceiver, TcpSender};
use crate::wifi::bss::Bss;
use crate::RunError;
use std::collections::{HashMap, HashSet};

pub(super) fn build(sc: &Scenario, seed: u64) -> Result<World, RunError> {
    sc.validate()?;
    let index: HashMap<&str, u32> = sc.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i as u32)).collect();
    let node = |name: &str| NodeId(*index.get(name).expect("validated"));
    let mut channels = Vec::with_capacity(sc.links.len() * 2);
    let mut traces = TraceFiles::default();
    for (i, l) in sc.links.iter().enumerate() {
        for (dir, over, from, to) in [("forward", &l.forward, &l.a, &l.b), ("reverse", &l.reverse, &l.b, &l.a)] {
            let d = l.direction(over);
            let name = format!("{}:{dir}", l.id);
            let path = format!("links[{i}].{dir}");
            let mut ch = channel(&d, name, &path, (node(from), node(to)), l.mtu_bytes, seed, &mut traces)?;
            ch.overhead_bytes = l.tunnel.map_or(0, |t| t.overhead_bytes());
            channels.push(ch);
        }
    }
    let slot = SimDuration::from_ms_f64(sc.output.slot_ms);
    let end = SimTime::from_secs_f64(sc.duration_s);
    let mut cells = Vec::with_capacity(sc.cells.len());
    if sc.network.is_some() {
        cells.push(Ran::Network(Box::new(Network::build(sc, &node, seed, slot, end)?)));
    } else {
        for (i, c) in sc.cells.iter().enumerate() {
            cells.push(Ran::Cell(Box::new(Cell::build(c, &format!("cells[{i}]"), &node, seed, slot, end)?)));
        }
    }
    let mut mobile = vec![None; sc.nodes.len()];
    for (i, r) in cells.iter().enumerate() {
        for (_, ue) in r.hops() {
            if r.routing_enb(ue).is_some() {
                mobile[ue.index()] = Some(CellId(i as u32));
            }
        }
    }
    let flow_ac: Vec<_> = sc.flows.iter().map(|f| f.access_category.unwrap_or_default()).collect();
    let bsses: Vec<Bss> = sc.bsses.iter().map(|b| Bss::build(b, &node, flow_ac.clone(), seed, slot, end)).collect();
    let mut nr_cells = Vec::with_capacity(sc.nr_cells.len());
    for (i, c) in sc.nr_cells.iter().enumerate() {
        nr_cells.push(NrCell::build(c, &format!("nr_cells[{i}]"), &node, seed, slot, end)?);
    }
    let routes = StaticRoutes::new(sc.nodes.len(), &adjacencies(&channels, &cells, &bsses, &nr_cells));
    let nodes: Vec<Node> = sc.nodes.iter().map(|_| Node { reassembly: Reassembly::default() }).collect();
    let hop_mtu = |h: Hop| match h {
        Hop::Channel(l) => channels[l.index()].payload_mtu_bytes(),
        Hop::Cell { cell, .. } => cells[cell.index()].mtu_bytes(),
        Hop::Bss { bss, .. } => bsses[bss.index()].mtu_bytes(),
        Hop::NrCell { cell, .. } => nr_cells[cell.index()].mtu_bytes(),
    };
    let mut flows = Vec::with_capacity(sc.flows.len());
    for i in 0..sc.flows.len() {
        flows.push(flow(sc, i, &routes, &hop_mtu, &node, seed)?);
    }
    let duration = end - SimTime::ZERO;
    let pcaps = channels.iter().map(|c| captured(sc, &c.name).then(PcapWriter::new)).collect();
    let traces_on = sc.output.traces_on(sc.duration_s);
    let mut w = World {
        now: SimTime::ZERO,
        end,
        seed,
        events: EventQueue::with_capacity(4096),
        packets: Default::default(),
        next_datagram: 0,
        node_names: sc.nodes.iter().map(|n| n.id.clone()).collect(),
        flow_slots: flows.iter().map(|_| Slots::new(slot, duration)).collect(),
        queue_slots: channels.iter().map(|_| Slots::new(slot, duration)).collect(),
        trace: Traces::new(flows.len(), traces_on.0, traces_on.1),
        nodes,
        routes,
        channels,
        cells_armed: vec![None; cells.len()],
        cells,
        mobile,
        cell_out: Default::default(),
        bsses_armed: vec![None; bsses.len()],
        bsses,
        bss_out: Default::default(),
        nr_cells_armed: vec![None; nr_cells.len()],
        nr_cells,
        flows,
        flows_done: 0,
        lost_datagrams: HashSet::new(),
        pcaps,
        frag_scratch: Vec::new(),
        acct: Default::default(),
        stall: Default::default(),
        reads_due: Vec::new(),
    };
    for (i, f) in w.flows.iter().enumerate() {
        w.events.schedule(f.start, Event::FlowStart(FlowId(i as u32)));
        if let Some(stop) = f.stop.filter(|&s| s < end) {
            w.events.schedule(stop, Event::FlowStop(FlowId(i as u32)));
        }
    }
    w.events.schedule(SimTime::ZERO + slot, Event::SlotEnd);
    Ok(w)
}

fn channel(
    d: &DirectionSpec,
    name: String,
    path: &str,
    (from, to): (NodeId, NodeId),
    mtu: u32,
    seed: u64,
    traces: &mut TraceFiles,
) -> Result<Channel, ScenarioError> {
    let server = match (&d.trace, d.rate_mbps) {
        (Some(file), _) => {
            let schedule = traces
                .get(file)
                .map_err(|e| ScenarioError::new(format!("{path}.trace"), format!("{file:?}"), e.to_string()))?;
            Server::trace(schedule)
        }
        (None, Some(mbps)) => {
            let bps = |m: f64| (m * 1e6).round().max(1.0) as u64;
            let steps = d.rate_changes.iter().flatten().map(|c| (SimTime::from_secs_f64(c.at_s), bps(c.rate_mbps)));
            Server::Rate { rate: RateSchedule::steps(bps(mbps), steps), free_at: SimTime::ZERO }
        }
        (None, None) => unreachable!("validate() requires rate_mbps or trace"),
    };
    let QueueSpec::DropTail { limit_packets, limit_bytes, ecn_threshold_packets } = d.queue.clone().unwrap_or_default();
    let limit = match (limit_packets, limit_bytes) {
        (Some(n), _) => Limit::Packets(n),
        (None, Some(b)) => Limit::Bytes(b),
        (None, None) => unreachable!("validate() requires one limit"),
    };
    Ok(Channel {
        rng: RngStream::new(seed, &format!("link:{name}:loss")),
        name,
        from,
        to,
        mtu_bytes: mtu,
        overhead_bytes: 0,
        delay: SimDuration::from_ms_f64(d.delay_ms.unwrap_or(0.0)),
        queue: DropTail::new(limit),
        server,
        loss: LossModel::from_spec(&d.loss.clone().unwrap_or(LossSpec::None)),
        stats: ChannelStats::default(),
        ecn_threshold_packets,
        wire: Default::default(),
        tx_time: Default::default(),
    })
}

/// Every directed hop the network offers: `(from, to, hop)`, channels first, then cells (a
/// network's UEs in their first cell; their routes follow them later, `World::route`), then BSSes,
/// then NR cells.
fn adjacencies(channels: &[Channel], cells: &[Ran], bsses: &[Bss], nr_cells: &[NrCell]) -> Vec<(NodeId, NodeId, Hop)> {
    let links = channels.iter().enumerate().map(|(i, c)| (c.from, c.to, Hop::Channel(LinkId(i as u32))));
    let radio = cells.iter().enumerate().flat_map(|(i, c)| {
        let cell = CellId(i as u32);
        c.hops().into_iter().flat_map(move |(enb, ue)| {
            [(enb, ue, Hop::Cell { cell, next: ue }), (ue, enb, Hop::Cell { cell, next: enb })]
        })
    });
    let wifi = bsses.iter().enumerate().flat_map(|(i, b)| {
        let bss = BssId(i as u32);
        let ap = b.ap();
        b.sta_nodes()
            .iter()
            .flat_map(move |&sta| [(ap, sta, Hop::Bss { bss, next: sta }), (sta, ap, Hop::Bss { bss, next: ap })])
    });
    let nr = nr_cells.iter().enumerate().flat_map(|(i, c)| {
        let cell = NrCellId(i as u32);
        let gnb = c.gnb();
        c.ue_nodes().iter().flat_map(move |&ue| {
            [(gnb, ue, Hop::NrCell { cell, next: ue }), (ue, gnb, Hop::NrCell { cell, next: gnb })]
        })
    });
    links.chain(radio).chain(wifi).chain(nr).collect()
}

fn captured(sc: &Scenario, channel: &str) -> bool {
    let (link, dir) = channel.split_once(':').expect("channel names are link:dir");
    sc.output.pcap.iter().any(|p| p == link || p == channel || (p.split_once(':') == Some((link, dir))))
}

fn flow(
    sc: &Scenario,
    i: usize,
    routes: &StaticRoutes,
    hop_mtu: &dyn Fn(Hop) -> u32,
    node: &dyn Fn(&str) -> NodeId,
    seed: u64,
) -> Result<Flow, ScenarioError> {
    let spec = &sc.flows[i];
    let (src, dst) = (node(&spec.src), node(&spec.dst));
    let first_hop_mtu = |a: NodeId, b: NodeId| routes.first_hop(a, b).map(hop_mtu);
    let (Some(out_mtu), Some(back_mtu)) = (first_hop_mtu(src, dst), first_hop_mtu(dst, src)) else {
        return Err(ScenarioError::new(
            format!("flows[{i}].dst"),
            format!("{:?}", spec.dst),
            "a host reachable from src and back over the links",
        ));
    };
    let start = SimTime::from_secs_f64(spec.start_s);
    let stop = spec.stop_s.map(SimTime::from_secs_f64);
    // The flow's own [tcp] over the scenario's, then its profile's choices for its algorithm.
    let tcp =
        spec.tcp.clone().unwrap_or_default().over(&sc.tcp).resolve_for(spec.cca.as_deref().unwrap_or(DEFAULT_CCA));
    let overhead = data_overhead_bytes(tcp.timestamps);
    // Linux: MSS = the smaller interface MTU of the two ends, less IPv4 + TCP headers and options.
    let mss = tcp.mss_bytes.unwrap_or(out_mtu.min(back_mtu).saturating_sub(overhead).max(IPV4_HEADER_BYTES));
    let app = App::from_spec(&spec.app, mss);
    let (transport, cca) = match spec.transport {
        TransportSpec::Udp => (Transport::Udp { next_seq: 0 }, "udp".to_string()),
        TransportSpec::Tcp => {
            let cfg = sc.flow_cca(i)?;
            // The algorithm's own random stream (BBR's start phase, CDG's backoff, NV's reset period).
            let window = Window::new(tcp.initial_cwnd_segs).with_reno_rules(tcp.reno_rules);
            let cc = cfg.build(window, RngStream::new(seed, &format!("flow:{i}:cc")));
            let name = cc.name().to_string();
            // RFC 8257 §3.2: a DCTCP receiver echoes every mark; others as RFC 3168.
            let echo = match (tcp.ecn, name.as_str()) {
                (false, _) => EcnEcho::Off,
                (true, "dctcp") => EcnEcho::Accurate { ce: false },
                (true, _) => EcnEcho::Classic { latched: false },
            };
            let sender = TcpSender::new(tcp.clone(), mss, cc, app.initial_supply());
            (Transport::Tcp(Box::new(TcpEnds::new(sender, TcpReceiver::new(tcp, mss, echo)))), name)
        }
    };
    Ok(Flow {
        id: sc.flow_id(i),
        src,
        dst,
        cca,
        app,
        start,
        stop,
        phase: Phase::Pending,
        transport,
        stats: Default::default(),
        app_bytes: 0,
        ce_marked: 0,
        completed_at: None,
    })
}
