//! Turning a finished world into the output tables (see `output.rs`).

use super::flow::{Flow, Transport};
use super::World;
use crate::cc::CaState;
use crate::measure::histogram::DurationHistogram;
use crate::measure::timeseries::{FlowSlot, Slots};
use crate::output::{Column, RunOutput, Table};
use crate::packet::PacketId;
use crate::sim::{FlowId, SimTime};
use crate::tcp::sender::RttObs;

/// Most rows a per-sample trace (cwnd, RTT) keeps in memory. A trace that reaches it
/// is decimated: every other row of each flow is dropped, and from then on each flow
/// records only every 2nd (then 4th, 8th, ...) sample. A trace so stays a uniform
/// subsample by sample index (row k of a flow is its sample k x stride), the same for every
/// flow, and its memory stays bounded whatever the run's length: 500 k rows are ~28 MB
/// (cwnd) and ~16 MB (RTT) in the engine, ~100 MB as Python objects. `summary.json`
/// gives the final stride of each trace (`cwnd_trace_stride`, `rtt_trace_stride`).
pub const MAX_TRACE_ROWS: usize = 500_000;

/// One row of the cwnd trace.
#[derive(Clone, Copy)]
struct CwndRow {
    flow: u32,
    t: SimTime,
    cwnd_bytes: u64,
    ssthresh_bytes: u64,
    pacing_bps: u64,
    ca_state: CaState,
}

/// One row of the RTT trace.
#[derive(Clone, Copy)]
struct RttRow {
    flow: u32,
    obs: RttObs,
}

/// A per-sample trace, decimated by the rule of [`MAX_TRACE_ROWS`].
struct Decimated<R> {
    on: bool,
    rows: Vec<R>,
    /// Every `stride`-th sample of a flow is kept (a power of two).
    stride: u64,
    /// Samples seen per flow.
    seen: Vec<u64>,
}

impl<R: Copy> Decimated<R> {
    /// A trace that is on reserves its [`MAX_TRACE_ROWS`] rows at once (address space only: the
    /// pages are backed as rows are written). Grown by doubling, each of its ~19 reallocations
    /// copied every row so far, tens of MB at the last ones, which evicted the rest of the run
    /// from the cache (docs/performance.md, "Issue 34: the 19-site network's working set").
    fn new(on: bool, flows: usize) -> Self {
        let rows = if on { Vec::with_capacity(MAX_TRACE_ROWS) } else { Vec::new() };
        Decimated { on, rows, stride: 1, seen: vec![0; flows] }
    }

    fn push(&mut self, flow: usize, row: R, flow_of: impl Fn(&R) -> u32) {
        let k = self.seen[flow];
        self.seen[flow] += 1;
        // `k % stride` as a mask (the stride is a power of two): no division per sample.
        if !self.on || k & (self.stride - 1) != 0 {
            return;
        }
        self.rows.push(row);
        if self.rows.len() >= MAX_TRACE_ROWS {
            self.halve(flow_of);
        }
    }

    /// Keep each flow's even-numbered rows and double the stride.
    fn halve(&mut self, flow_of: impl Fn(&R) -> u32) {
        let mut ordinal = vec![0u64; self.seen.len()];
        self.rows.retain(|r| {
            let o = &mut ordinal[flow_of(r) as usize];
            *o += 1;
            (*o - 1).is_multiple_of(2)
        });
        self.stride *= 2;
        debug_assert!(self.stride.is_power_of_two());
    }
}

/// What the run records for the output tables beyond the slotted series.
pub struct Traces {
    cwnd: Decimated<CwndRow>,
    rtt: Decimated<RttRow>,
    /// Every RTT sample of each flow, for its mean and percentiles (bounded memory).
    rtt_by_flow: Vec<DurationHistogram>,
    /// Reused buffer of packet ids (trace opportunities).
    pub scratch_ids: Vec<PacketId>,
}

impl Traces {
    pub fn new(flows: usize, cwnd_trace: bool, rtt_trace: bool) -> Self {
        Traces {
            cwnd: Decimated::new(cwnd_trace, flows),
            rtt: Decimated::new(rtt_trace, flows),
            rtt_by_flow: vec![DurationHistogram::default(); flows],
            scratch_ids: Vec::new(),
        }
    }

    pub fn cwnd_row(&mut self, f: FlowId, now: SimTime, row: (u64, u64, u64, CaState)) {
        let (cwnd_bytes, ssthresh_bytes, pacing_bps, ca_state) = row;
        let row = CwndRow { flow: f.0, t: now, cwnd_bytes, ssthresh_bytes, pacing_bps, ca_state };
        self.cwnd.push(f.index(), row, |r| r.flow);
    }

    pub fn rtt_row(&mut self, f: FlowId, o: RttObs) {
        self.rtt_by_flow[f.index()].record(o.rtt.as_ns());
        self.rtt.push(f.index(), RttRow { flow: f.0, obs: o }, |r| r.flow);
    }
}

/// Flow ids of rows given as flow indices, dictionary-encoded.
fn ids(world: &World, codes: Vec<u32>) -> Column {
    Column::Cat { codes, labels: world.flows.iter().map(|f| f.id.clone()).collect() }
}

pub fn collect(mut w: World) -> RunOutput {
    let end = w.now;
    let mut out = RunOutput {
        summary: serde_json::json!({
            "engine_version": crate::ENGINE_VERSION,
            "seed": w.seed,
            "sim_end_s": end.as_secs_f64(),
            "events": w.events.events_processed(),
            "cwnd_trace_stride": w.trace.cwnd.stride,
            "rtt_trace_stride": w.trace.rtt.stride,
        }),
        ..RunOutput::default()
    };
    out.flows = flows_table(&mut w, end);
    out.timeseries = timeseries_table(&w);
    out.queues = queues_table(&w);
    out.cwnd = cwnd_table(&w);
    out.rtt = rtt_table(&w);
    for c in &mut w.cells {
        c.finish(end);
    }
    let mut rows = Vec::new();
    let mut serving: &[String] = &[];
    for c in &w.cells {
        let (r, names) = c.slots();
        rows.extend(r);
        if !names.is_empty() {
            serving = names;
        }
    }
    out.lte = crate::lte::cell::lte_table(rows.into_iter(), serving);
    // Without a network the table is empty, with its columns (a Parquet file needs one).
    out.handovers = w
        .cells
        .iter()
        .find_map(|c| c.handovers())
        .unwrap_or_else(|| crate::lte::network::handovers_table(&[], &[], &[]));
    out.wifi = crate::wifi::bss::wifi_table(w.bsses.iter().flat_map(|b| b.slots()));
    for c in &mut w.nr_cells {
        c.finish(end);
    }
    out.nr = crate::nr::cell::nr_table(w.nr_cells.iter().flat_map(|c| c.slots()));
    let mut pcap_dropped = serde_json::Map::new();
    for (i, p) in w.pcaps.iter_mut().enumerate() {
        if let Some(writer) = p.take() {
            let name = w.channels[i].name.replace(':', "-");
            pcap_dropped.insert(name.clone(), writer.dropped_records().into());
            out.pcaps.push((name, writer.into_bytes()));
        }
    }
    out.summary["pcap_records_dropped"] = pcap_dropped.into();
    out
}

fn flows_table(w: &mut World, end: SimTime) -> Table {
    let n = w.flows.len();
    let mut t = Table::default();
    let f = &w.flows;
    let col_s = |g: &dyn Fn(&Flow) -> String| Column::Str(f.iter().map(g).collect());
    let col_u = |g: &dyn Fn(&Flow) -> u64| Column::U64(f.iter().map(g).collect());
    let col_f = |g: &dyn Fn(&Flow) -> f64| Column::F64(f.iter().map(g).collect());
    let node = |id: crate::sim::NodeId| w.node_names[id.index()].clone();
    t.push("flow_id", col_s(&|x| x.id.clone()));
    t.push("src", col_s(&|x| node(x.src)));
    t.push("dst", col_s(&|x| node(x.dst)));
    t.push(
        "transport",
        col_s(&|x| {
            if matches!(x.transport, Transport::Tcp(_)) {
                "tcp".into()
            } else {
                "udp".into()
            }
        }),
    );
    t.push("cca", col_s(&|x| x.cca.clone()));
    t.push("tx_packets", col_u(&|x| x.stats.tx_packets));
    t.push("tx_bytes", col_u(&|x| x.stats.tx_bytes));
    t.push("rx_packets", col_u(&|x| x.stats.rx_packets));
    t.push("rx_bytes", col_u(&|x| x.stats.rx_bytes));
    t.push("lost_packets", col_u(&|x| x.stats.lost_packets));
    t.push("loss_ratio", col_f(&|x| x.stats.loss_ratio()));
    t.push("throughput_bps", col_f(&|x| x.stats.throughput_bps()));
    t.push("goodput_bps", col_f(&|x| goodput_bps(x, end)));
    t.push("mean_delay_ms", col_f(&|x| x.stats.mean_delay().map_or(f64::NAN, |d| d.as_ms_f64())));
    t.push("mean_jitter_ms", col_f(&|x| x.stats.mean_jitter().map_or(f64::NAN, |d| d.as_ms_f64())));
    t.push("retransmits", col_u(&|x| tcp(x).map_or(0, |s| s.stats.retransmits)));
    t.push("timeouts", col_u(&|x| tcp(x).map_or(0, |s| s.stats.timeouts)));
    t.push("ecn_marked_packets", col_u(&|x| x.ce_marked));
    t.push("ecn_reductions", col_u(&|x| tcp(x).map_or(0, |s| s.stats.ecn_reductions)));
    let rtts = &w.trace.rtt_by_flow;
    let ms = |ns: Option<f64>| ns.map_or(f64::NAN, |ns| ns / 1e6);
    t.push("rtt_mean_ms", Column::F64(rtts.iter().map(|h| ms(h.mean_ns())).collect()));
    t.push("rtt_p50_ms", Column::F64(rtts.iter().map(|h| ms(h.percentile_ns(0.5))).collect()));
    t.push("rtt_p95_ms", Column::F64(rtts.iter().map(|h| ms(h.percentile_ns(0.95))).collect()));
    t.push("app_bytes_delivered", col_u(&|x| x.app_bytes));
    t.push("first_tx_s", col_f(&|x| x.stats.first_tx.map_or(f64::NAN, |t| t.as_secs_f64())));
    t.push("last_rx_s", col_f(&|x| x.stats.last_rx.map_or(f64::NAN, |t| t.as_secs_f64())));
    t.push("completion_s", col_f(&|x| x.completed_at.map_or(f64::NAN, |c| (c - x.start).as_secs_f64())));
    debug_assert_eq!(t.rows(), n);
    t
}

fn tcp(f: &Flow) -> Option<&crate::tcp::TcpSender> {
    match &f.transport {
        Transport::Tcp(t) => Some(&t.sender),
        Transport::Udp { .. } => None,
    }
}

/// Application bytes over the flow's active time: start to completion, stop or run end.
fn goodput_bps(f: &Flow, end: SimTime) -> f64 {
    let until = f.completed_at.or(f.stop.map(|s| s.min(end))).unwrap_or(end);
    if until <= f.start {
        return 0.0;
    }
    f.app_bytes as f64 * 8.0 / (until - f.start).as_secs_f64()
}

fn timeseries_table(w: &World) -> Table {
    let mut flow: Vec<String> = Vec::new();
    let mut ts: Vec<f64> = Vec::new();
    let [mut thr, mut good, mut delay, mut cwnd, mut rtt]: [Vec<f64>; 5] = Default::default();
    let (mut retx, mut lost): (Vec<u64>, Vec<u64>) = Default::default();
    let push = |v: &mut Vec<f64>, x: f64| v.push(x);
    for (fi, slots) in w.flow_slots.iter().enumerate() {
        let secs = slots.width().as_secs_f64();
        let mut last_cwnd: Option<u64> = None;
        for (i, s) in slots.slots.iter().enumerate() {
            let s: &FlowSlot = s;
            last_cwnd = s.cwnd_bytes.or(last_cwnd);
            flow.push(w.flows[fi].id.clone());
            ts.push(Slots::<FlowSlot>::start_s(slots, i));
            push(&mut thr, s.rx_bytes as f64 * 8.0 / secs);
            push(&mut good, s.app_bytes as f64 * 8.0 / secs);
            push(&mut delay, if s.delay_n > 0 { s.delay_sum_ns as f64 / s.delay_n as f64 / 1e6 } else { f64::NAN });
            retx.push(s.retransmits);
            lost.push(s.lost_packets);
            push(&mut cwnd, last_cwnd.map_or(f64::NAN, |c| c as f64));
            push(&mut rtt, if s.rtt_n > 0 { s.rtt_sum_ns as f64 / s.rtt_n as f64 / 1e6 } else { f64::NAN });
        }
    }
    let mut t = Table::default();
    t.push("flow_id", Column::Str(flow));
    t.push("t_s", Column::F64(ts));
    t.push("throughput_bps", Column::F64(thr));
    t.push("goodput_bps", Column::F64(good));
    t.push("mean_delay_ms", Column::F64(delay));
    t.push("retransmits", Column::U64(retx));
    t.push("lost_packets", Column::U64(lost));
    t.push("cwnd_bytes", Column::F64(cwnd));
    t.push("rtt_ms", Column::F64(rtt));
    t
}

fn queues_table(w: &World) -> Table {
    let mut link: Vec<String> = Vec::new();
    let mut ts: Vec<f64> = Vec::new();
    let [mut bytes, mut pkts, mut maxb, mut drops]: [Vec<u64>; 4] = Default::default();
    for (c, slots) in w.channels.iter().zip(&w.queue_slots) {
        for (i, s) in slots.slots.iter().enumerate() {
            link.push(c.name.clone());
            ts.push(slots.start_s(i));
            bytes.push(s.bytes);
            pkts.push(s.packets);
            maxb.push(s.max_bytes);
            drops.push(s.drops);
        }
    }
    let mut t = Table::default();
    t.push("link", Column::Str(link));
    t.push("t_s", Column::F64(ts));
    t.push("bytes", Column::U64(bytes));
    t.push("packets", Column::U64(pkts));
    t.push("max_bytes", Column::U64(maxb));
    t.push("drops", Column::U64(drops));
    t
}

fn cwnd_table(w: &World) -> Table {
    let rows = &w.trace.cwnd.rows;
    let mut t = Table::default();
    t.push("flow_id", ids(w, rows.iter().map(|r| r.flow).collect()));
    t.push("t_s", Column::F64(rows.iter().map(|r| r.t.as_secs_f64()).collect()));
    t.push("cwnd_bytes", Column::U64(rows.iter().map(|r| r.cwnd_bytes).collect()));
    t.push("ssthresh_bytes", Column::U64(rows.iter().map(|r| r.ssthresh_bytes).collect()));
    t.push("pacing_rate_bps", Column::U64(rows.iter().map(|r| r.pacing_bps).collect()));
    t.push("ca_state", Column::Str(rows.iter().map(|r| r.ca_state.as_str().to_string()).collect()));
    t
}

fn rtt_table(w: &World) -> Table {
    let rows = &w.trace.rtt.rows;
    let mut t = Table::default();
    t.push("flow_id", ids(w, rows.iter().map(|r| r.flow).collect()));
    t.push("t_s", Column::F64(rows.iter().map(|r| r.obs.at.as_secs_f64()).collect()));
    t.push("rtt_ms", Column::F64(rows.iter().map(|r| r.obs.rtt.as_ms_f64()).collect()));
    t.push("srtt_ms", Column::F64(rows.iter().map(|r| r.obs.srtt.as_ms_f64()).collect()));
    t
}

#[cfg(test)]
mod tests {
    use super::{Decimated, MAX_TRACE_ROWS};

    #[test]
    fn a_full_trace_keeps_every_other_sample_of_each_flow_and_doubles_its_stride() {
        // Two flows alternate samples; a row is (flow, that flow's sample index).
        let mut d = Decimated::new(true, 2);
        let mut next = [0u64; 2];
        for i in 0..(MAX_TRACE_ROWS + 4) {
            let f = i % 2;
            d.push(f, (f as u32, next[f]), |r: &(u32, u64)| r.0);
            next[f] += 1;
        }
        // At MAX rows, samples 0, 2, 4, ... of each flow were kept (MAX/2 rows); of the
        // 4 samples after (indices MAX/2 and MAX/2 + 1 of each flow) the even ones are kept.
        assert_eq!(d.stride, 2);
        assert_eq!(d.rows.len(), MAX_TRACE_ROWS / 2 + 2);
        assert!(d.rows.iter().all(|&(_, k)| k % 2 == 0));
        let flow1: Vec<u64> = d.rows.iter().filter(|r| r.0 == 1).map(|r| r.1).take(3).collect();
        assert_eq!(flow1, vec![0, 2, 4]);
    }

    #[test]
    fn a_trace_that_is_off_records_nothing() {
        let mut d = Decimated::new(false, 1);
        d.push(0, (0u32, 0u64), |r: &(u32, u64)| r.0);
        assert!(d.rows.is_empty());
    }
}
