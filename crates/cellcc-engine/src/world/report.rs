//! Turning a finished world into the output tables (see `output.rs`).

use super::flow::{Flow, Transport};
use super::World;
use crate::cc::CaState;
use crate::measure::timeseries::{FlowSlot, Slots};
use crate::output::{Column, RunOutput, Table};
use crate::packet::PacketId;
use crate::sim::{FlowId, SimTime};
use crate::tcp::sender::RttObs;

/// Rows recorded during the run, column by column.
#[derive(Default)]
pub struct Traces {
    pub cwnd_trace: bool,
    pub rtt_trace: bool,
    cwnd_flow: Vec<u64>,
    cwnd_t: Vec<f64>,
    cwnd_bytes: Vec<u64>,
    ssthresh_bytes: Vec<u64>,
    pacing_bps: Vec<u64>,
    ca_state: Vec<&'static str>,
    rtt_flow: Vec<u64>,
    rtt_t: Vec<f64>,
    rtt_ms: Vec<f64>,
    srtt_ms: Vec<f64>,
    /// Per-flow RTT samples for percentiles, ms.
    rtt_by_flow: Vec<Vec<f64>>,
    /// Reused buffer of packet ids (trace opportunities).
    pub scratch_ids: Vec<PacketId>,
}

impl Traces {
    pub fn new(flows: usize, cwnd_trace: bool, rtt_trace: bool) -> Self {
        Traces { cwnd_trace, rtt_trace, rtt_by_flow: vec![Vec::new(); flows], ..Default::default() }
    }

    pub fn cwnd_row(&mut self, f: FlowId, now: SimTime, row: (u64, u64, u64, CaState)) {
        if !self.cwnd_trace {
            return;
        }
        self.cwnd_flow.push(f.0 as u64);
        self.cwnd_t.push(now.as_secs_f64());
        self.cwnd_bytes.push(row.0);
        self.ssthresh_bytes.push(row.1);
        self.pacing_bps.push(row.2);
        self.ca_state.push(row.3.as_str());
    }

    pub fn rtt_row(&mut self, f: FlowId, o: RttObs) {
        self.rtt_by_flow[f.index()].push(o.rtt.as_ms_f64());
        if !self.rtt_trace {
            return;
        }
        self.rtt_flow.push(f.0 as u64);
        self.rtt_t.push(o.at.as_secs_f64());
        self.rtt_ms.push(o.rtt.as_ms_f64());
        self.srtt_ms.push(o.srtt.as_ms_f64());
    }
}

/// Nearest-rank percentile (NaN when empty); reorders `v` (selection, O(n)).
fn percentile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    *v.select_nth_unstable_by(rank - 1, f64::total_cmp).1
}

/// Flow ids of rows given as flow indices, dictionary-encoded.
fn ids(world: &World, idx: &[u64]) -> Column {
    Column::Cat {
        codes: idx.iter().map(|&i| i as u32).collect(),
        labels: world.flows.iter().map(|f| f.id.clone()).collect(),
    }
}

pub fn collect(mut w: World) -> RunOutput {
    let end = w.now;
    let mut out = RunOutput {
        summary: serde_json::json!({
            "engine_version": crate::ENGINE_VERSION,
            "seed": w.seed,
            "sim_end_s": end.as_secs_f64(),
            "events": w.events.events_processed(),
        }),
        ..RunOutput::default()
    };
    out.flows = flows_table(&mut w, end);
    out.timeseries = timeseries_table(&w);
    out.queues = queues_table(&w);
    out.cwnd = cwnd_table(&w);
    out.rtt = rtt_table(&w);
    out.lte = crate::lte::cell::lte_table(w.cells.iter().flat_map(|c| c.slots()));
    for (i, p) in w.pcaps.iter_mut().enumerate() {
        if let Some(writer) = p.take() {
            out.pcaps.push((w.channels[i].name.replace(':', "-"), writer.into_bytes()));
        }
    }
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
    let mut rtts: Vec<Vec<f64>> = std::mem::take(&mut w.trace.rtt_by_flow);
    let mean = |v: &Vec<f64>| {
        if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    t.push("rtt_mean_ms", Column::F64(rtts.iter().map(mean).collect()));
    t.push("rtt_p50_ms", Column::F64(rtts.iter_mut().map(|v| percentile(v, 0.5)).collect()));
    t.push("rtt_p95_ms", Column::F64(rtts.iter_mut().map(|v| percentile(v, 0.95)).collect()));
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
    let tr = &w.trace;
    let mut t = Table::default();
    t.push("flow_id", ids(w, &tr.cwnd_flow));
    t.push("t_s", Column::F64(tr.cwnd_t.clone()));
    t.push("cwnd_bytes", Column::U64(tr.cwnd_bytes.clone()));
    t.push("ssthresh_bytes", Column::U64(tr.ssthresh_bytes.clone()));
    t.push("pacing_rate_bps", Column::U64(tr.pacing_bps.clone()));
    t.push("ca_state", Column::Str(tr.ca_state.iter().map(|s| s.to_string()).collect()));
    t
}

fn rtt_table(w: &World) -> Table {
    let tr = &w.trace;
    let mut t = Table::default();
    t.push("flow_id", ids(w, &tr.rtt_flow));
    t.push("t_s", Column::F64(tr.rtt_t.clone()));
    t.push("rtt_ms", Column::F64(tr.rtt_ms.clone()));
    t.push("srtt_ms", Column::F64(tr.srtt_ms.clone()));
    t
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn nearest_rank_percentiles() {
        // Nearest rank: p50 of 1..=10 is the 5th value, p95 the 10th.
        let mut v: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        assert_eq!(percentile(&mut v, 0.5), 5.0);
        assert_eq!(percentile(&mut v, 0.95), 10.0);
        assert!(percentile(&mut [], 0.5).is_nan());
    }
}
