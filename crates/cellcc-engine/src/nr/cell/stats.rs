//! What the NR cell measures, per UE, direction and time-series slot, and the `nr` output table
//! (columns documented in `output.rs`).

use crate::measure::timeseries::Slots;
use crate::output::{Column, Table};

/// One UE's radio counters in one direction for one output slot.
#[derive(Clone, Copy, Debug, Default)]
pub struct NrSlot {
    /// Latest CQI the scheduler used (downlink), None before the first report.
    pub cqi: Option<u8>,
    /// Transport blocks sent (first transmissions and retransmissions).
    pub tbs: u64,
    pub mcs_sum: u64,
    /// Effective SINR (EESM, dB) the TBs were decoded at, summed.
    pub sinr_eff_db_sum: f64,
    pub tb_bits_decoded: u64,
    /// PRBs allocated, summed over the TBs.
    pub prbs: u64,
    /// Data symbols of the TBs, summed.
    pub symbols: u64,
    pub harq_retx: u64,
    pub harq_residual_losses: u64,
    pub rlc_retx_pdus: u64,
    pub rlc_buffer_bytes: u64,
    /// SDUs refused (buffer full) or given up by RLC or PDCP.
    pub rlc_drops: u64,
    /// Bits the whole band carries to this UE at its MCS over every occasion of the slot.
    pub capacity_bits: u64,
    pub first_tx: u64,
    pub first_tx_nacks: u64,
    pub olla_offset_db_sum: f64,
    /// Times the receiving PDCP's t-Reordering expired with a gap.
    pub pdcp_gaps_skipped: u64,
}

pub type NrSlots = Slots<NrSlot>;

/// Rows `(cell, ue, dir, slots)` -> the `nr` table.
pub fn nr_table<'a>(rows: impl Iterator<Item = (&'a str, &'a str, &'static str, &'a NrSlots)>) -> Table {
    let mut labels: Vec<String> = Vec::new();
    let mut code = |s: &str| match labels.iter().position(|l| l == s) {
        Some(i) => i as u32,
        None => {
            labels.push(s.to_string());
            labels.len() as u32 - 1
        }
    };
    let (mut cell, mut ue, mut dir, mut t_s) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let [mut cqi, mut mcs, mut sinr, mut thr, mut cap, mut bler, mut offset]: [Vec<f64>; 7] = Default::default();
    let [mut tbs, mut prbs, mut symbols, mut retx, mut resid, mut rlc_retx, mut buf, mut drops, mut gaps]: [Vec<u64>;
        9] = Default::default();
    for (c, u, d, slots) in rows {
        let width_s = slots.width().as_secs_f64();
        for (i, s) in slots.slots.iter().enumerate() {
            cell.push(code(c));
            ue.push(code(u));
            dir.push(code(d));
            t_s.push(slots.start_s(i));
            cqi.push(s.cqi.map_or(f64::NAN, f64::from));
            mcs.push(ratio(s.mcs_sum as f64, s.tbs));
            sinr.push(ratio(s.sinr_eff_db_sum, s.tbs));
            tbs.push(s.tbs);
            thr.push(s.tb_bits_decoded as f64 / width_s);
            prbs.push(s.prbs);
            symbols.push(s.symbols);
            retx.push(s.harq_retx);
            resid.push(s.harq_residual_losses);
            rlc_retx.push(s.rlc_retx_pdus);
            buf.push(s.rlc_buffer_bytes);
            drops.push(s.rlc_drops);
            cap.push(s.capacity_bits as f64 / width_s);
            bler.push(ratio(s.first_tx_nacks as f64, s.first_tx));
            offset.push(ratio(s.olla_offset_db_sum, s.tbs - s.harq_retx));
            gaps.push(s.pdcp_gaps_skipped);
        }
    }
    let cat = |codes: Vec<u32>| Column::Cat { codes, labels: labels.clone() };
    let mut t = Table::default();
    t.push("cell", cat(cell));
    t.push("ue", cat(ue));
    t.push("dir", cat(dir));
    t.push("t_s", Column::F64(t_s));
    t.push("cqi", Column::F64(cqi));
    t.push("mcs_mean", Column::F64(mcs));
    t.push("sinr_eff_db", Column::F64(sinr));
    t.push("tbs", Column::U64(tbs));
    t.push("phy_throughput_bps", Column::F64(thr));
    t.push("prbs", Column::U64(prbs));
    t.push("symbols", Column::U64(symbols));
    t.push("harq_retx", Column::U64(retx));
    t.push("harq_residual_losses", Column::U64(resid));
    t.push("rlc_retx_pdus", Column::U64(rlc_retx));
    t.push("rlc_buffer_bytes", Column::U64(buf));
    t.push("rlc_drops", Column::U64(drops));
    t.push("capacity_bps", Column::F64(cap));
    t.push("first_tx_bler", Column::F64(bler));
    t.push("olla_offset_db", Column::F64(offset));
    t.push("pdcp_gaps_skipped", Column::U64(gaps));
    t
}

fn ratio(sum: f64, n: u64) -> f64 {
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}
