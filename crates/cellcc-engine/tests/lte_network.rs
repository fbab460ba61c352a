//! LTE networks end to end: cells coupled by what they send, and what a handover does to a flow
//! (docs/lte/network.md).

use cellcc_engine::world::World;
use cellcc_engine::{RunOutput, Scenario};
use serde_json::{json, Value};

/// Cells at `sites_x` on a line (Friis, 46 dBm, 5 MHz), UEs `(x, speed_kmh, cell)`, `flows`.
fn network(sites_x: &[f64], ues: &[(f64, f64, usize)], flows: Value, handover: Value, duration_s: f64) -> Value {
    let mut nodes = vec![json!({"id": "server", "kind": "host"}), json!({"id": "pgw", "kind": "router"})];
    let mut links = vec![json!({"id": "internet", "a": "server", "b": "pgw", "rate_mbps": 1000, "delay_ms": 10,
                                "queue": {"kind": "drop_tail", "limit_packets": 10000}})];
    let mut cells = Vec::new();
    for (c, x) in sites_x.iter().enumerate() {
        nodes.push(json!({"id": format!("enb{c}"), "kind": "enb"}));
        links.push(
            json!({"id": format!("s1u{c}"), "a": "pgw", "b": format!("enb{c}"), "rate_mbps": 10000, "delay_ms": 1,
                          "mtu_bytes": 2000, "tunnel": "gtpu", "queue": {"kind": "drop_tail", "limit_packets": 10000}}),
        );
        cells.push(json!({"id": format!("c{c}"), "enb": format!("enb{c}"), "bandwidth_mhz": 5,
                          "site": {"position_m": [x, 0.0]}, "ues": []}));
    }
    for (i, &(x, speed, cell)) in ues.iter().enumerate() {
        nodes.push(json!({"id": format!("ue{i}"), "kind": "ue"}));
        let mobility = json!({"kind": "constant_velocity", "speed_kmh": speed, "heading_deg": 0});
        cells[cell]["ues"].as_array_mut().expect("ues").push(json!({"node": format!("ue{i}"),
            "sinr": {"kind": "channel", "position_m": [x, 0.0], "mobility": mobility}}));
    }
    json!({"version": 1, "duration_s": duration_s, "nodes": nodes, "links": links, "cells": cells, "flows": flows,
           "network": {"channel": {"enb": {"tx_power_dbm": 46}}, "handover": handover},
           "output": {"slot_ms": 1.0}})
}

fn run(v: &Value) -> RunOutput {
    let sc = Scenario::from_json(&v.to_string()).expect("valid network");
    World::new(&sc, 1).expect("builds").into_output().expect("runs")
}

/// Mean of an `lte` column over UE `ue`'s downlink rows in [from, to) s.
fn lte_mean(out: &RunOutput, ue: &str, col: &str, from: f64, to: f64) -> f64 {
    let (l, t) = (&out.lte, out.lte.f64s("t_s"));
    let (ues, dirs, v) = (l.strs("ue"), l.strs("dir"), l.f64s(col));
    let picked: Vec<f64> =
        (0..l.rows()).filter(|&r| ues[r] == ue && dirs[r] == "dl" && t[r] >= from && t[r] < to).map(|r| v[r]).collect();
    picked.iter().filter(|x| x.is_finite()).sum::<f64>() / picked.len() as f64
}

/// Sum of an `lte` column over UE `ue`'s downlink rows in [from, to) s.
fn lte_sum(out: &RunOutput, ue: &str, col: &str, from: f64, to: f64) -> u64 {
    let (l, t) = (&out.lte, out.lte.f64s("t_s"));
    let (ues, dirs, v) = (l.strs("ue"), l.strs("dir"), l.u64s(col));
    (0..l.rows()).filter(|&r| ues[r] == ue && dirs[r] == "dl" && t[r] >= from && t[r] < to).map(|r| v[r]).sum()
}

/// UE 0 of cell 0 (200 m from it, 300 m from cell 1) takes a saturating UDP download; cell 1's
/// UE gets one from 2 to 4 s (cell 1 sends until its buffer drains, about 5 s). Over half-second
/// windows, UE 0's throughput is low exactly in the windows where cell 1 sent on its RBs and
/// back at the clean level in those where it sent nothing: the interference is what the
/// neighbour actually sends.
#[test]
fn a_neighbour_interferes_only_while_it_transmits() {
    let cbr = |ue: &str, start: f64, stop: f64| {
        json!({"src": "server", "dst": ue, "transport": "udp", "start_s": start, "stop_s": stop,
               "app": {"kind": "cbr", "rate_mbps": 30.0}})
    };
    let v = network(
        &[0.0, 500.0],
        &[(200.0, 0.0, 0), (400.0, 0.0, 1)],
        json!([cbr("ue0", 0.0, 8.0), cbr("ue1", 2.0, 4.0)]),
        json!({"enabled": false}),
        8.0,
    );
    let out = run(&v);
    let full_rbs = 25 * 500;
    let (mut idle, mut busy) = (Vec::new(), Vec::new());
    for k in 1..16 {
        let (a, b) = (k as f64 * 0.5, k as f64 * 0.5 + 0.5);
        let neighbour_rbs = lte_sum(&out, "ue1", "prbs", a, b);
        let thr = lte_mean(&out, "ue0", "phy_throughput_bps", a, b);
        if neighbour_rbs == 0 {
            idle.push(thr);
        } else if neighbour_rbs > full_rbs * 9 / 10 {
            busy.push(thr);
        }
    }
    assert!(idle.len() >= 4 && busy.len() >= 3, "{} idle and {} busy windows", idle.len(), busy.len());
    let lowest_idle = idle.iter().copied().fold(f64::INFINITY, f64::min);
    let highest_busy = busy.iter().copied().fold(0.0, f64::max);
    assert!(highest_busy < 0.7 * lowest_idle, "busy {busy:?}, idle {idle:?}");
    let highest_idle = idle.iter().copied().fold(0.0, f64::max);
    assert!(highest_idle - lowest_idle < 0.1 * highest_idle, "idle windows differ: {idle:?}");
}

/// The longest time between two deliveries to UE 0 around its handover, ms (1 ms slots).
fn delivery_gap_ms(out: &RunOutput, around_s: f64) -> f64 {
    let ts = &out.timeseries;
    let (flow, t, rx) = (ts.strs("flow_id"), ts.f64s("t_s"), ts.f64s("throughput_bps"));
    let got: Vec<f64> = (0..ts.rows())
        .filter(|&r| flow[r] == "down" && rx[r] > 0.0 && (t[r] - around_s).abs() < 1.0)
        .map(|r| t[r])
        .collect();
    got.windows(2).map(|w| (w[1] - w[0]) * 1e3).fold(0.0, f64::max)
}

/// A UE moving from cell 0 to cell 1 with a 1 Mbit/s UDP download (a 1500-byte packet every
/// 12 ms): its deliveries stop for the interruption and resume in the target. With lossless
/// forwarding nothing is lost; without forwarding the packets that reach the source while the
/// UE is away are. The gap follows the interruption: 120 ms instead of 45 ms shifts it by 75 ms.
#[test]
fn a_handover_shows_in_the_flow_as_a_gap_of_its_interruption() {
    let down = json!([{"id": "down", "src": "server", "dst": "ue0", "transport": "udp",
                       "app": {"kind": "cbr", "rate_mbps": 1.0}}]);
    let case = |interruption_ms: f64, forwarding: &str| {
        let ho = json!({"interruption_ms": interruption_ms, "forwarding": forwarding});
        let out = run(&network(&[0.0, 500.0], &[(150.0, 72.0, 0)], down.clone(), ho, 12.0));
        let h = &out.handovers;
        assert_eq!((h.rows(), h.strs("source")[0], h.strs("target")[0]), (1, "c0", "c1"));
        let at = h.f64s("t_s")[0];
        let lost = out.flows.u64s("lost_packets")[0];
        (delivery_gap_ms(&out, at), lost, h.u64s("lost_sdus")[0], h.u64s("forwarded_sdus")[0])
    };
    let (gap45, lost45, ho_lost45, fwd45) = case(45.0, "lossless");
    assert!((45.0..=45.0 + 40.0).contains(&gap45), "gap {gap45} ms with a 45 ms interruption");
    assert_eq!((lost45, ho_lost45), (0, 0), "lossless forwarding loses nothing");
    assert!(fwd45 >= 3, "the packets of 45 ms reached the source and were forwarded: {fwd45}");
    let (gap120, ..) = case(120.0, "lossless");
    assert!((gap120 - gap45 - 75.0).abs() <= 15.0, "gap {gap120} ms at 120 ms vs {gap45} ms at 45 ms");
    let (gap_none, lost_none, ho_lost_none, fwd_none) = case(45.0, "none");
    assert!((45.0..=45.0 + 40.0).contains(&gap_none), "gap {gap_none} ms");
    assert_eq!(fwd_none, 0);
    assert!(ho_lost_none >= 3 && lost_none >= ho_lost_none, "lost {lost_none} packets, {ho_lost_none} to the handover");
}
