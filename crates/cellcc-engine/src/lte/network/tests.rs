//! A network end to end: SDU accounting over handovers, for any network.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::{json, Value};

use crate::sim::SimTime;
use crate::world::World;
use crate::Scenario;

/// Cells on a line `isd_m` apart; UEs starting at `x_m` moving at `speed_kmh` (negative: towards
/// -x); per UE a TCP or UDP download and a UDP upload.
#[allow(clippy::too_many_arguments)]
fn line(
    n_cells: usize,
    isd_m: f64,
    ues: &[(f64, f64, bool)],
    forwarding: &str,
    rlc: &str,
    interruption_ms: f64,
    ttt_ms: u32,
    fading: &str,
    duration_s: f64,
) -> Value {
    let mut nodes = vec![json!({"id": "server", "kind": "host"}), json!({"id": "pgw", "kind": "router"})];
    let mut links = vec![json!({"id": "internet", "a": "server", "b": "pgw", "rate_mbps": 1000, "delay_ms": 5,
                                "queue": {"kind": "drop_tail", "limit_packets": 10000}})];
    let mut cells = Vec::new();
    for c in 0..n_cells {
        nodes.push(json!({"id": format!("enb{c}"), "kind": "enb"}));
        links.push(
            json!({"id": format!("s1u{c}"), "a": "pgw", "b": format!("enb{c}"), "rate_mbps": 10000, "delay_ms": 1,
                          "mtu_bytes": 2000, "tunnel": "gtpu", "queue": {"kind": "drop_tail", "limit_packets": 10000}}),
        );
        cells.push(json!({"id": format!("c{c}"), "enb": format!("enb{c}"), "bandwidth_mhz": 5,
                          "site": {"position_m": [isd_m * c as f64, 0.0]}, "ues": []}));
    }
    let mut flows = Vec::new();
    for (i, &(x, speed, tcp)) in ues.iter().enumerate() {
        let ue = format!("ue{i}");
        nodes.push(json!({"id": ue, "kind": "ue"}));
        let heading = if speed < 0.0 { 180.0 } else { 0.0 };
        let home = ((x / isd_m).round().max(0.0) as usize).min(n_cells - 1);
        cells[home]["ues"].as_array_mut().expect("ues").push(json!({"node": ue, "rlc": {"mode": rlc},
            "sinr": {"kind": "channel", "position_m": [x, 10.0],
                     "mobility": {"kind": "constant_velocity", "speed_kmh": speed.abs(), "heading_deg": heading}}}));
        let down = if tcp { json!({"kind": "bulk"}) } else { json!({"kind": "cbr", "rate_mbps": 2.0}) };
        flows.push(json!({"src": "server", "dst": ue, "transport": if tcp { "tcp" } else { "udp" }, "app": down}));
        flows.push(json!({"src": ue, "dst": "server", "transport": "udp", "app": {"kind": "cbr", "rate_mbps": 0.3}}));
    }
    json!({"version": 1, "duration_s": duration_s, "nodes": nodes, "links": links, "cells": cells, "flows": flows,
           "network": {"channel": {"enb": {"tx_power_dbm": 40}, "fading": {"profile": fading}},
                       "handover": {"forwarding": forwarding, "interruption_ms": interruption_ms,
                                    "time_to_trigger_ms": ttt_ms, "measurement_period_ms": 100}}})
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, rng_seed: RngSeed::Fixed(0x3436), ..ProptestConfig::default() })]

    /// Over random networks: every SDU a bearer held at a handover command is delivered, pending
    /// (forwarded or sent again) or counted lost, none twice (`Network::check_audit` at the end),
    /// and IP bytes sent = delivered + dropped + in flight at every 100 ms.
    #[test]
    fn every_sdu_is_delivered_forwarded_or_counted_lost(
        n_cells in 2usize..4,
        isd_m in 200.0f64..400.0,
        ues in prop::collection::vec((0.0f64..600.0, 80.0f64..250.0, any::<bool>(), any::<bool>()), 1..4),
        forwarding in prop::sample::select(vec!["lossless", "seamless", "none"]),
        rlc in prop::sample::select(vec!["am", "um"]),
        interruption_ms in 0.0f64..80.0,
        ttt_ms in prop::sample::select(vec![0u32, 40, 160]),
        fading in prop::sample::select(vec!["none", "epa"]),
        seed in 0u64..100,
    ) {
        let ues: Vec<(f64, f64, bool)> = ues.iter().map(|&(x, v, back, tcp)| (x, if back { -v } else { v }, tcp)).collect();
        let v = line(n_cells, isd_m, &ues, forwarding, rlc, interruption_ms, ttt_ms, fading, 6.0);
        let sc = Scenario::from_json(&v.to_string()).expect("valid network");
        let mut w = World::new(&sc, seed).expect("builds");
        for step in 1..=60u64 {
            let done = w.run_until(SimTime(step * 100_000_000)).expect("runs");
            let c = w.conservation();
            prop_assert_eq!(c.sent_bytes, c.delivered_bytes + c.dropped_bytes + c.in_flight_bytes, "at {}", w.now());
            if done {
                break;
            }
        }
        let out = w.into_output().expect("runs");
        // About two cases in three hand over at least once (the audit covers each handover).
        prop_assert!(out.flows.rows() == 2 * ues.len());
    }
}

/// The generator above does produce handovers (and their audits): a UE crossing three cells.
#[test]
fn a_ue_crossing_the_line_hands_over_at_each_cell() {
    let v = line(3, 300.0, &[(0.0, 120.0, true)], "lossless", "am", 45.0, 40, "none", 20.0);
    let sc = Scenario::from_json(&v.to_string()).expect("valid network");
    let out = World::new(&sc, 1).expect("builds").into_output().expect("runs");
    let h = &out.handovers;
    assert_eq!(h.strs("source"), ["c0", "c1"]);
    assert_eq!(h.strs("target"), ["c1", "c2"]);
    assert!(h.f64s("interruption_ms").iter().all(|&x| (x - 45.0).abs() < 1e-9));
}

/// A measurement trace drives A3 sample by sample: c1 rises 20 dB at 1.2 s; the L3 filter (k = 4:
/// weight 1/2) puts it 5 dB above c0 at the 1.4 s sample (> Hys 3 dB: entering), LENA's 256 ms
/// time to trigger and no preparation put the command at 1.656 s.
#[test]
fn a_measurement_trace_hands_over_time_to_trigger_after_the_entering_sample() {
    let dir = std::env::temp_dir().join(format!("cellcc-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("meas.csv");
    let mut csv = String::from("t_s,ue,cell,rsrp_dbm\n");
    for i in 1..=15 {
        let c1 = if i < 6 { -80.0 } else { -60.0 };
        csv += &format!("{:.1},ue0,c0,-70\n{:.1},ue0,c1,{c1}\n", 0.2 * i as f64, 0.2 * i as f64);
    }
    std::fs::write(&file, csv).expect("write trace");
    let mut v = line(2, 300.0, &[(0.0, 0.0, false)], "seamless", "am", 10.0, 256, "none", 3.0);
    v["cells"][0]["profile"] = json!("lena");
    v["cells"][1]["profile"] = json!("lena");
    v["network"]["handover"] = json!({"measurements": {"kind": "csv", "file": file.to_str().expect("utf-8")}});
    let sc = Scenario::from_json(&v.to_string()).expect("valid network");
    let out = World::new(&sc, 1).expect("builds").into_output().expect("runs");
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.handovers.strs("target"), ["c1"]);
    assert!((out.handovers.f64s("t_s")[0] - 1.656).abs() < 1e-9, "{:?}", out.handovers.f64s("t_s"));
}

/// Two cells 500 m apart, static UEs, no fading, a saturating UDP download each: `near` decides
/// whether cell c0 also serves a UE at 30 m beside the one at 220 m.
fn cqi_pair(near: bool) -> Value {
    let mut v = line(2, 500.0, &[], "seamless", "um", 0.0, 0, "none", 0.5);
    let placed = if near { vec![(0, 30.0), (0, 220.0), (1, 470.0)] } else { vec![(0, 220.0), (1, 470.0)] };
    for (i, &(cell, x)) in placed.iter().enumerate() {
        let ue = format!("ue{i}");
        v["nodes"].as_array_mut().expect("nodes").push(json!({"id": ue, "kind": "ue"}));
        v["cells"][cell]["ues"]
            .as_array_mut()
            .expect("ues")
            .push(json!({"node": ue, "rlc": {"mode": "um"}, "sinr": {"kind": "channel", "position_m": [x, 10.0]}}));
        v["flows"]
            .as_array_mut()
            .expect("flows")
            .push(json!({"src": "server", "dst": ue, "transport": "udp", "app": {"kind": "cbr", "rate_mbps": 20.0}}));
    }
    v
}

/// A UE's downlink CQI is measured on its own row. The far UE (220 m) sees the same channel and
/// the same neighbour (c1 sends on every RB in every TTI) whether or not c0 also serves a UE at
/// 30 m, so its CQI reports are the same in both runs. They were not: decoding a TB named the
/// TTI's row in the UE's memo without keeping it, and the CQI measured after it was derived
/// from the cell's scratch row, the last TB decoded (the near UE's, CQI 15 against 5 here).
#[test]
fn a_downlink_cqi_is_measured_on_the_ues_own_row_whatever_else_the_cell_decoded() {
    let far_cqi = |near: bool| {
        let sc = Scenario::from_json(&cqi_pair(near).to_string()).expect("valid network");
        let out = World::new(&sc, 1).expect("builds").into_output().expect("runs");
        let far = if near { "ue1" } else { "ue0" };
        let (ues, dirs, t) = (out.lte.strs("ue"), out.lte.strs("dir"), out.lte.f64s("t_s"));
        let cqi = out.lte.f64s("cqi");
        (0..cqi.len()).filter(|&r| ues[r] == far && dirs[r] == "dl" && t[r] >= 0.1).map(|r| cqi[r]).collect::<Vec<_>>()
    };
    let alone = far_cqi(false);
    assert!(!alone.is_empty() && alone.iter().all(|&c| c > 0.0 && c < 15.0), "{alone:?}");
    assert_eq!(far_cqi(true), alone);
}
