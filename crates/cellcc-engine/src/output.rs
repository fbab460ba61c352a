//! What a run returns: tidy, columnar tables (one row per observation), so the
//! Python side turns each into a DataFrame without reshaping.
//!
//! Tables and their columns (units in the names):
//! - `flows`: one row per flow, FlowMonitor statistics of its data direction:
//!   `flow_id, src, dst, transport, cca, tx_packets, tx_bytes, rx_packets, rx_bytes,
//!   lost_packets, loss_ratio, throughput_bps, goodput_bps, mean_delay_ms, mean_jitter_ms,
//!   retransmits, timeouts, ecn_marked_packets, ecn_reductions, rtt_mean_ms, rtt_p50_ms, rtt_p95_ms, app_bytes_delivered,
//!   first_tx_s, last_rx_s, completion_s` (NaN where not applicable).
//! - `timeseries`: one row per (flow, slot): `flow_id, t_s, throughput_bps, goodput_bps,
//!   mean_delay_ms, retransmits, lost_packets, cwnd_bytes, rtt_ms`.
//! - `queues`: one row per (link direction, slot): `link, t_s, bytes, packets, max_bytes, drops`.
//! - `cwnd`: one row per change: `flow_id, t_s, cwnd_bytes, ssthresh_bytes, pacing_rate_bps, ca_state`.
//! - `rtt`: one row per RTT sample: `flow_id, t_s, rtt_ms, srtt_ms`.
//! - `lte`: one row per (cell, UE, direction `dl`/`ul`, slot): `cell, ue, dir, t_s, cqi` (latest
//!   wideband CQI the scheduler used), `mcs_mean` (over the slot's TBs), `tbs` (TBs sent, HARQ
//!   retransmissions included), `phy_throughput_bps` (bits of decoded TBs / slot), `prbs` (RBs
//!   allocated, summed over TTIs), `harq_retx`, `harq_residual_losses` (TBs lost after the last
//!   HARQ retransmission), `control_losses` (TBs lost to a missed PDCCH grant), `rlc_retx_pdus`
//!   (AM retransmissions), `rlc_buffer_bytes` (transmitting RLC entity at the slot's last TTI),
//!   `rlc_drops` (SDUs refused or discarded by RLC), `capacity_bps` (what the whole band carries to
//!   this UE at its current MCS: Pm's Kt). Empty without cells.
//! - `wifi`: one row per (BSS, station, direction `dl` AP to station / `ul` station to AP, slot):
//!   `bss, station, dir, t_s, ppdus` (data PPDUs sent, retransmissions included), `mcs_mean`,
//!   `ampdu_mpdus_mean`, `ampdu_bytes_mean` (over those PPDUs; NaN without any), `mpdu_retries` (MPDUs
//!   sent again), `mpdu_losses` (MPDUs discarded at their lifetime's end or given up by the
//!   recipient's window), `ba_timeouts` (data PPDUs whose Ack / BlockAck never came), `collisions`
//!   (data PPDUs lost at the recipient while another transmission overlapped them), `airtime_share`
//!   (the link's data PPDUs' air time / slot), `delivered_bps` (IP bits the recipient passed up / slot),
//!   `queue_bytes` (at the sender at the slot's end), `queue_drops` (MSDUs refused by the full queue or
//!   expired in it). Empty without BSSes.
//! - `nr`: one row per (NR cell, UE, direction `dl`/`ul`, slot): `cell, ue, dir, t_s, cqi` (latest CQI
//!   the gNB holds, downlink), `mcs_mean`, `sinr_eff_db` (mean EESM SINR the TBs were decoded at),
//!   `tbs` (TBs sent, HARQ retransmissions included), `phy_throughput_bps`, `prbs` and `symbols`
//!   (summed over the TBs), `harq_retx`, `harq_residual_losses`, `rlc_retx_pdus`, `rlc_buffer_bytes`,
//!   `rlc_drops` (refused or given up by RLC or PDCP), `capacity_bps` (the whole band at the UE's MCS over
//!   every occasion of that direction: Pm's Kt), `first_tx_bler`, `olla_offset_db`, `pdcp_gaps_skipped`
//!   (t-Reordering expiries that skipped a gap). Empty without NR cells.

use serde_json::Value;

/// One column of a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    Str(Vec<String>),
    /// Dictionary-encoded text: row i is `labels[codes[i]]`. For ids repeated on
    /// every row of the long tables (one RTT sample per ACK), so a run does not
    /// allocate a string per row.
    Cat {
        codes: Vec<u32>,
        labels: Vec<String>,
    },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Cat { codes, .. } => codes.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A named set of equal-length columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &'static str, col: Column) {
        debug_assert!(self.columns.first().is_none_or(|(_, c)| c.len() == col.len()), "ragged table at {name}");
        self.columns.push((name, col));
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| *n == name).map(|(_, c)| c)
    }
    pub fn f64s(&self, name: &str) -> &[f64] {
        match self.column(name) {
            Some(Column::F64(v)) => v,
            _ => &[],
        }
    }
    /// A text column (plain or dictionary-encoded) as one `&str` per row.
    pub fn strs(&self, name: &str) -> Vec<&str> {
        match self.column(name) {
            Some(Column::Str(v)) => v.iter().map(String::as_str).collect(),
            Some(Column::Cat { codes, labels }) => codes.iter().map(|&c| labels[c as usize].as_str()).collect(),
            _ => Vec::new(),
        }
    }
    pub fn u64s(&self, name: &str) -> &[u64] {
        match self.column(name) {
            Some(Column::U64(v)) => v,
            _ => &[],
        }
    }
}

/// Everything a run produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOutput {
    /// Run facts: engine version, seed, simulated end time, events processed.
    pub summary: Value,
    pub flows: Table,
    pub timeseries: Table,
    pub queues: Table,
    pub cwnd: Table,
    pub rtt: Table,
    pub lte: Table,
    /// One row per handover of a network's UE: `t_s` (the command: the UE leaves the source),
    /// `ue`, `source`, `target` (cells), `interruption_ms` (until its first transmission in the
    /// target; NaN if the run ended first), `forwarded_sdus` (downlink SDUs forwarded over X2),
    /// `lost_sdus` (SDUs the handover lost, both directions). Empty without a network.
    pub handovers: Table,
    pub wifi: Table,
    pub nr: Table,
    /// (capture name, pcap file bytes) per captured link direction.
    pub pcaps: Vec<(String, Vec<u8>)>,
}
