//! The NR cell end to end through the world: saturated UDP against the TBS rate of each
//! numerology, TCP over RLC AM in TDD, uplink SR/BSR/grants, HARQ timing in a TDD pattern,
//! UM residual losses repaired by nothing and AM losses repaired by ARQ, conservation and determinism.

mod common;

use cellcc_engine::nr::config::NrCellConfig;
use cellcc_engine::nr::frame::Frame;
use cellcc_engine::nr::phy::{self, tbs_bits, Allocation, NrAmc};
use cellcc_engine::output::{Column, RunOutput};
use cellcc_engine::scenario::NrCellSpec;
use serde_json::{json, Value};

/// server -- upf --N3-- gnb ~~ ue0..ueN; `ues` = SINR specs; `cell` = extra NR cell fields.
pub fn nr(ues: &[Value], cell: Value, duration_s: f64) -> Value {
    let mut nodes = vec![
        json!({"id": "server", "kind": "host"}),
        json!({"id": "upf", "kind": "router"}),
        json!({"id": "gnb", "kind": "gnb"}),
    ];
    let mut cell_ues = Vec::new();
    for (i, sinr) in ues.iter().enumerate() {
        nodes.push(json!({"id": format!("ue{i}"), "kind": "ue"}));
        cell_ues.push(json!({"node": format!("ue{i}"), "sinr": sinr}));
    }
    let mut c = json!({"id": "nr0", "gnb": "gnb", "ues": cell_ues});
    c.as_object_mut().unwrap().extend(cell.as_object().unwrap().clone());
    json!({
        "version": 1, "duration_s": duration_s, "nodes": nodes,
        "links": [
            {"id": "internet", "a": "server", "b": "upf", "rate_mbps": 10000.0, "delay_ms": 5.0,
             "queue": {"kind": "drop_tail", "limit_packets": 100000}},
            {"id": "n3", "a": "upf", "b": "gnb", "rate_mbps": 10000.0, "delay_ms": 1.0,
             "mtu_bytes": 2000, "tunnel": "gtpu"}
        ],
        "nr_cells": [c],
        "flows": []
    })
}

fn fixed(db: f64) -> Value {
    json!({"kind": "fixed", "db": db})
}

fn cbr_down(ue: usize, rate_mbps: f64) -> Value {
    json!({"id": format!("cbr{ue}"), "src": "server", "dst": format!("ue{ue}"), "transport": "udp",
           "app": {"kind": "cbr", "rate_mbps": rate_mbps, "packet_bytes": 1400}})
}

fn resolved(v: &Value) -> NrCellConfig {
    let spec: NrCellSpec = serde_json::from_value(v["nr_cells"][0].clone()).expect("an NR cell");
    spec.resolve()
}

/// Mean of an `nr` column over one UE direction's slots in [from_s, to_s).
fn nr_mean(out: &RunOutput, ue: &str, dir: &str, col: &str, from_s: f64, to_s: f64) -> f64 {
    let (ues, dirs, t) = (out.nr.strs("ue"), out.nr.strs("dir"), out.nr.f64s("t_s"));
    let vals: Vec<f64> = match out.nr.column(col) {
        Some(Column::F64(v)) => v.clone(),
        _ => out.nr.u64s(col).iter().map(|&x| x as f64).collect(),
    };
    let sel: Vec<f64> = (0..t.len())
        .filter(|&i| ues[i] == ue && dirs[i] == dir && t[i] >= from_s && t[i] < to_s && !vals[i].is_nan())
        .map(|i| vals[i])
        .collect();
    sel.iter().sum::<f64>() / sel.len() as f64
}

/// The downlink rate the PHY gives one UE alone at a flat `sinr_db` on the whole band, bit/s:
/// per pattern period, the TBS of the CQI's MCS on each PDSCH occasion, times (1 - BLER).
fn phy_rate_bps(cfg: &NrCellConfig, sinr_db: f64) -> f64 {
    let frame = Frame::new(&cfg.frame_spec("c").unwrap(), "c").unwrap();
    let n_prb = cfg.n_prb();
    let dmrs_re = 6 * cfg.pdsch.dl_dmrs_cdm_groups_without_data;
    let occ = (0..frame.period_slots()).flat_map(|s| frame.plan(s).dl.clone()).max_by_key(|o| o.symbols).unwrap();
    let reference = Allocation {
        n_prb,
        symbols: occ.symbols,
        dmrs_re_per_prb: dmrs_re * occ.dmrs_symbols,
        overhead_re_per_prb: 0,
        layers: 1,
    };
    let amc = NrAmc::new(cfg.mcs_table, &reference);
    let row = vec![10f64.powf(sinr_db / 10.0); n_prb as usize];
    let mcs = amc.mcs_for_cqi(amc.cqi(&row), 0.0);
    let mut bits = 0.0;
    for s in 0..frame.period_slots() {
        for o in &frame.plan(s).dl {
            let a = Allocation {
                n_prb,
                symbols: o.symbols,
                dmrs_re_per_prb: dmrs_re * o.dmrs_symbols,
                overhead_re_per_prb: 0,
                layers: 1,
            };
            let tbs = tbs_bits(cfg.mcs_table.entry(mcs), &a);
            let bler = phy::bler::tb_bler(cfg.mcs_table, mcs, mcs, tbs, sinr_db);
            bits += f64::from(tbs) * (1.0 - bler);
        }
    }
    let period_s = frame.period_slots() as f64 / cfg.mu().slots_per_subframe() as f64 / 1e3;
    bits / period_s
}

/// Saturated UDP to one UE: the PHY rate is the TBS rate of the pattern's PDSCH occasions at the
/// CQI's MCS (OLLA off, so the MCS is the CQI's), within 3 %, for each numerology of FR1 and FR2.
#[test]
fn saturated_udp_runs_at_the_tbs_rate_per_numerology() {
    for (mu, mhz, carrier, sinr) in
        [(0, 20.0, 3.5, 15.0), (1, 100.0, 3.5, 20.0), (2, 100.0, 3.5, 10.0), (3, 100.0, 28.0, 20.0)]
    {
        let cell = json!({"numerology": mu, "bandwidth_mhz": mhz, "carrier_ghz": carrier, "csi": {"period_ms": 5},
                          "link_adaptation": {"olla": {"enabled": false}}});
        let mut v = nr(&[fixed(sinr)], cell, 1.5);
        let cfg = resolved(&v);
        let rate = phy_rate_bps(&cfg, sinr);
        v["flows"] = json!([cbr_down(0, 1.5 * rate / 1e6)]);
        let out = common::run(&v, 1);
        let phy_bps = nr_mean(&out, "ue0", "dl", "phy_throughput_bps", 0.5, 1.5);
        assert!((phy_bps / rate - 1.0).abs() < 0.03, "mu {mu}: PHY {phy_bps} vs {rate}");
    }
}

/// CUBIC over RLC AM in the default cell (30 kHz, 100 MHz, DDDSU) at 25 dB: above 85 % of the
/// PHY rate, no RTO.
#[test]
fn tcp_download_over_am_fills_the_tdd_cell() {
    let mut v = nr(&[fixed(25.0)], json!({}), 3.0);
    let rate = phy_rate_bps(&resolved(&v), 25.0);
    v["flows"] = json!([{"id": "bulk", "src": "server", "dst": "ue0", "cca": "cubic", "app": {"kind": "bulk"}}]);
    let out = common::run(&v, 1);
    let goodput = common::mean_throughput(&out, "bulk", 1.5, 3.0);
    assert!(goodput > 0.85 * rate * 0.96, "TCP {goodput} of a {rate} bit/s cell");
    assert_eq!(out.flows.u64s("timeouts")[0], 0);
}

/// An upload needs SR, a grant K2 ahead and BSRs; it moves data at a few tens of Mbit/s.
#[test]
fn tcp_upload_goes_through_sr_and_grants() {
    let mut v = nr(&[fixed(20.0)], json!({}), 3.0);
    v["flows"] = json!([{"id": "up", "src": "ue0", "dst": "server", "cca": "cubic", "app": {"kind": "bulk"}}]);
    let out = common::run(&v, 1);
    let goodput = common::mean_throughput(&out, "up", 1.0, 3.0);
    assert!(goodput > 20e6, "upload {goodput}");
}

/// An SR period shorter than the TDD pattern (2 slots against DDDSU's 5): its occasions fall on
/// the slots with a PUCCH that the period meets, and a download's ACKs get out sooner than with
/// the 20 ms default (the UE waits for fewer SR occasions when its buffer empties).
#[test]
fn an_sr_period_shorter_than_the_pattern_still_finds_a_pucch() {
    let v = |sr_ms: f64| {
        let mut v = nr(&[fixed(20.0)], json!({"uplink": {"sr_period_ms": sr_ms}}), 2.0);
        v["flows"] = json!([{"id": "down", "src": "server", "dst": "ue0", "cca": "cubic", "app": {"kind": "bulk"}}]);
        v
    };
    let fast = common::mean_throughput(&common::run(&v(1.0), 1), "down", 1.0, 2.0);
    let slow = common::mean_throughput(&common::run(&v(20.0), 1), "down", 1.0, 2.0);
    assert!(fast > 50e6 && fast >= slow, "SR every 1 ms: {fast}, every 20 ms: {slow}");
}

/// IP bytes sent = delivered + dropped + in flight at every instant, with an AM download, an
/// uplink, UM at an SINR where HARQ gives TBs up, and a CBR overload the RLC buffer drops.
#[test]
fn bytes_are_conserved_inside_the_cell() {
    let ues = [fixed(8.0), fixed(-4.0)];
    let mut v = nr(&ues, json!({}), 3.0);
    v["nr_cells"][0]["ues"][1]["rlc"] = json!({"mode": "um"});
    v["flows"] = json!([
        {"id": "d0", "src": "server", "dst": "ue0", "cca": "cubic", "app": {"kind": "bulk"}},
        {"id": "u1", "src": "ue1", "dst": "server", "cca": "newreno", "app": {"kind": "bulk"}},
        cbr_down(1, 200.0)
    ]);
    let sc = cellcc_engine::Scenario::from_json(&v.to_string()).unwrap();
    let mut w = cellcc_engine::world::World::new(&sc, 3).unwrap();
    for step in 1..=30u64 {
        let done = w.run_until(cellcc_engine::sim::SimTime(step * 100_000_000)).unwrap();
        let c = w.conservation();
        assert_eq!(c.sent_bytes, c.delivered_bytes + c.dropped_bytes + c.in_flight_bytes, "at {}", w.now());
        if done {
            break;
        }
    }
    let out = w.into_output().unwrap();
    let drops: u64 = out.nr.u64s("rlc_drops").iter().sum();
    assert!(drops > 0, "the overload reached the RLC buffer");
}

/// Same scenario and seed: byte-identical tables.
#[test]
fn runs_are_deterministic() {
    let mut v =
        nr(&[fixed(12.0), json!({"kind": "ramp", "from_db": 20, "to_db": 0, "duration_s": 1.0})], json!({}), 1.0);
    v["flows"] = json!([
        {"id": "a", "src": "server", "dst": "ue0", "cca": "cubic", "app": {"kind": "bulk"}},
        {"id": "b", "src": "ue1", "dst": "server", "cca": "bbr", "app": {"kind": "bulk"}}
    ]);
    let (a, b) = (common::run(&v, 7), common::run(&v, 7));
    // Debug text compares NaN cells equal (PartialEq would not).
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert!(a.nr.rows() > 0);
}
