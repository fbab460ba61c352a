//! The LTE cell end to end through the world: capacity against the PHY
//! tables, the schedulers' shares, uplink SR/BSR, RLC AM against UM under
//! HARQ residual losses, byte conservation and determinism.

mod common;

use cellcc_engine::lte::phy;
use cellcc_engine::lte::sap::{LinkDir, RbMask};
use cellcc_engine::output::RunOutput;
use cellcc_engine::sim::SimTime;
use cellcc_engine::world::World;
use cellcc_engine::Scenario;
use serde_json::{json, Value};

/// IP bytes of a 1024 B UDP payload (20 B IPv4 + 8 B UDP).
const UDP_IP_BYTES: f64 = 1052.0;
/// Per-packet bytes the radio adds: PDCP 2 B (TS 36.323 §6.2.4, 12-bit SN), RLC UM 1 B
/// (TS 36.322 §6.2.1.3, 5-bit SN, one SDU per PDU), MAC subheader 3 B (TS 36.321 §6.1.2).
const RADIO_OVERHEAD_BYTES: f64 = 2.0 + 1.0 + 3.0;

/// server -- pgw --S1-U-- enb ~~ ue0..ueN; `ues` = (SINR spec, RLC mode).
fn cell(ues: &[(Value, &str)], bandwidth_mhz: f64, scheduler: &str, duration_s: f64) -> Value {
    let mut nodes = vec![
        json!({"id": "server", "kind": "host"}),
        json!({"id": "pgw", "kind": "router"}),
        json!({"id": "enb", "kind": "enb"}),
    ];
    let mut cell_ues = Vec::new();
    for (i, (sinr, mode)) in ues.iter().enumerate() {
        nodes.push(json!({"id": format!("ue{i}"), "kind": "ue"}));
        cell_ues.push(json!({"node": format!("ue{i}"), "sinr": sinr, "rlc": {"mode": mode}}));
    }
    json!({
        "version": 1, "duration_s": duration_s, "nodes": nodes,
        "links": [
            {"id": "internet", "a": "server", "b": "pgw", "rate_mbps": 1000.0, "delay_ms": 10.0,
             "queue": {"kind": "drop_tail", "limit_packets": 10000}},
            {"id": "s1u", "a": "pgw", "b": "enb", "rate_mbps": 10000.0, "delay_ms": 1.0,
             "mtu_bytes": 2000, "tunnel": "gtpu"}
        ],
        "cells": [{"id": "cell0", "enb": "enb", "bandwidth_mhz": bandwidth_mhz, "scheduler": scheduler,
                   "control_errors": false, "ues": cell_ues}],
        "flows": []
    })
}

fn fixed(db: f64) -> Value {
    json!({"kind": "fixed", "db": db})
}

fn cbr_down(ue: usize, rate_mbps: f64) -> Value {
    json!({"id": format!("cbr{ue}"), "src": "server", "dst": format!("ue{ue}"), "transport": "udp",
           "app": {"kind": "cbr", "rate_mbps": rate_mbps}})
}

fn run(v: &Value, seed: u64) -> RunOutput {
    common::run(v, seed)
}

/// Downlink PHY rate the PHY tables give one UE alone at `sinr_db` on `n_rb` RBs, bit/s,
/// and the first-transmission BLER at that MCS.
fn phy_rate_bps(sinr_db: f64, n_rb: u32) -> (f64, f64) {
    let mcs = phy::mcs_from_cqi(phy::wideband_cqi_flat(sinr_db, n_rb));
    let tbs = phy::tbs_bits(LinkDir::Downlink, mcs, n_rb);
    let bler = phy::tb_bler(mcs, tbs, RbMask::range(0, n_rb), &vec![10f64.powf(sinr_db / 10.0); n_rb as usize]);
    (tbs as f64 * 1000.0, bler)
}

fn flow_goodput_bps(out: &RunOutput, flow: &str) -> f64 {
    common::mean_throughput(out, flow, 1.0, 3.0)
}

/// Mean of an `lte` column over one UE direction's slots in [from_s, to_s).
fn lte_mean(out: &RunOutput, ue: &str, dir: &str, col: &str, from_s: f64, to_s: f64) -> f64 {
    let (ues, dirs, t) = (out.lte.strs("ue"), out.lte.strs("dir"), out.lte.f64s("t_s"));
    let vals: Vec<f64> = match out.lte.column(col) {
        Some(cellcc_engine::output::Column::F64(v)) => v.clone(),
        _ => out.lte.u64s(col).iter().map(|&x| x as f64).collect(),
    };
    let sel: Vec<f64> = (0..t.len())
        .filter(|&i| ues[i] == ue && dirs[i] == dir && t[i] >= from_s && t[i] < to_s)
        .map(|i| vals[i])
        .collect();
    sel.iter().sum::<f64>() / sel.len() as f64
}

#[test]
fn saturated_udp_downlink_runs_at_the_tbs_rate() {
    // 10 MHz = 50 RBs at 20 dB, UDP offered at twice what the cell carries.
    let (rate_bps, bler) = phy_rate_bps(20.0, 50);
    let mut v = cell(&[(fixed(20.0), "um")], 10.0, "round_robin", 3.0);
    v["flows"] = json!([cbr_down(0, 2.0 * rate_bps / 1e6)]);
    let out = run(&v, 1);
    let phy_bps = lte_mean(&out, "ue0", "dl", "phy_throughput_bps", 1.0, 3.0);
    // Each TTI carries one TB; a first transmission fails with `bler` and its retransmission takes a TTI.
    assert!(phy_bps <= rate_bps * 1.0001, "{phy_bps} above the TBS rate {rate_bps}");
    assert!(phy_bps >= rate_bps * (1.0 - bler) * 0.98, "{phy_bps} vs {rate_bps} at BLER {bler}");
    // UDP goodput is the PHY rate less the PDCP/RLC/MAC bytes per 1052 B packet (and the UDP/IP header).
    let expect = phy_bps * (1024.0 / (UDP_IP_BYTES + RADIO_OVERHEAD_BYTES));
    let goodput = flow_goodput_bps(&out, "cbr0");
    assert!((goodput / expect - 1.0).abs() < 0.03, "goodput {goodput} vs {expect}");
}

#[test]
fn tcp_bulk_download_over_rlc_am_fills_the_cell() {
    let (rate_bps, _) = phy_rate_bps(15.0, 100);
    let mut v = cell(&[(fixed(15.0), "am")], 20.0, "proportional_fair", 4.0);
    v["flows"] = json!([{"id": "bulk", "src": "server", "dst": "ue0", "cca": "cubic", "app": {"kind": "bulk"}}]);
    let out = run(&v, 1);
    let goodput = common::mean_throughput(&out, "bulk", 2.0, 4.0);
    assert!(goodput > 0.85 * rate_bps, "TCP goodput {goodput} of a {rate_bps} bit/s cell");
    assert_eq!(out.flows.u64s("timeouts")[0], 0, "no RTO on a lossless AM bearer");
}

#[test]
fn tcp_upload_goes_through_scheduling_requests_and_grants() {
    let mut v = cell(&[(fixed(20.0), "am")], 5.0, "round_robin", 3.0);
    v["flows"] = json!([{"id": "up", "src": "ue0", "dst": "server", "cca": "newreno", "app": {"kind": "bulk"}}]);
    let out = run(&v, 1);
    let goodput = common::mean_throughput(&out, "up", 1.0, 3.0);
    let ul_phy = lte_mean(&out, "ue0", "ul", "phy_throughput_bps", 1.0, 3.0);
    let ul_capacity = lte_mean(&out, "ue0", "ul", "capacity_bps", 1.0, 3.0);
    assert!(ul_phy > 0.5 * ul_capacity, "uplink PHY {ul_phy} of capacity {ul_capacity}");
    assert!(goodput > 0.5 * ul_phy, "upload goodput {goodput} vs uplink PHY {ul_phy}");
    assert!(lte_mean(&out, "ue0", "dl", "tbs", 1.0, 3.0) > 0.0, "the TCP ACKs come back on the downlink");
}

fn shares(scheduler: &str, sinrs: [f64; 2]) -> (RunOutput, [f64; 2]) {
    let (rate_bps, _) = phy_rate_bps(sinrs[0].max(sinrs[1]), 50);
    let mut v = cell(&[(fixed(sinrs[0]), "um"), (fixed(sinrs[1]), "um")], 10.0, scheduler, 3.0);
    v["flows"] = json!([cbr_down(0, 2.0 * rate_bps / 1e6), cbr_down(1, 2.0 * rate_bps / 1e6)]);
    let out = run(&v, 1);
    let prbs = [0, 1].map(|i| lte_mean(&out, &format!("ue{i}"), "dl", "prbs", 1.0, 3.0));
    (out, prbs)
}

#[test]
fn round_robin_and_proportional_fair_share_the_rbs_equally_between_saturated_ues() {
    for scheduler in ["round_robin", "proportional_fair"] {
        let (out, prbs) = shares(scheduler, [10.0, 20.0]);
        assert!((prbs[0] / prbs[1] - 1.0).abs() < 0.1, "{scheduler}: RB shares {prbs:?}");
        let g = [0, 1].map(|i| flow_goodput_bps(&out, &format!("cbr{i}")));
        assert!(g[1] > g[0], "{scheduler}: the 20 dB UE gets more bits per RB: {g:?}");
    }
}

#[test]
fn max_throughput_gives_every_rb_to_the_best_ue() {
    let (_, prbs) = shares("max_throughput", [10.0, 20.0]);
    assert_eq!(prbs[0], 0.0, "MT starves the 10 dB UE: {prbs:?}");
    assert!(prbs[1] > 0.9 * 50.0 * 100.0, "{prbs:?}: nearly all 50 RBs in every TTI of a 100 ms slot");
}

/// A SINR drawn afresh every TTI, uniform in 5..15 dB (a fixed LCG, so the file is the same every
/// run): the CQI the eNB uses is 4 TTIs old, so TBs sent when the SINR fell are often lost.
fn jumpy_sinr(dir: &std::path::Path, duration_s: f64) -> Value {
    let path = dir.join("jumpy-sinr.csv");
    let mut csv = String::from("t_s,sinr_db\n");
    let mut x: u64 = 1;
    for ms in 0..(duration_s * 1000.0) as u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        csv.push_str(&format!("{},{:.2}\n", ms as f64 / 1000.0, 5.0 + 10.0 * (x >> 11) as f64 / (1u64 << 53) as f64));
    }
    std::fs::write(&path, csv).unwrap();
    json!({"kind": "csv", "file": path.to_str().unwrap()})
}

#[test]
fn rlc_am_recovers_harq_residual_losses_that_rlc_um_loses() {
    let dir = tempfile::tempdir().unwrap();
    let sinr = jumpy_sinr(dir.path(), 3.0);
    // No HARQ retransmission: every TB the BLER draw corrupts is a residual loss at once.
    let lost = |mode: &str| {
        let mut v = cell(&[(sinr.clone(), mode)], 5.0, "round_robin", 3.0);
        v["cells"][0]["harq"] = json!({"max_retx": 0});
        v["flows"] = json!([cbr_down(0, 2.0)]);
        let out = run(&v, 1);
        let residual = lte_mean(&out, "ue0", "dl", "harq_residual_losses", 0.0, 3.0);
        (out.flows.u64s("lost_packets")[0], out.flows.u64s("rx_packets")[0], residual)
    };
    let (um_lost, um_rx, um_residual) = lost("um");
    let (am_lost, am_rx, am_residual) = lost("am");
    assert!(um_residual > 0.0 && am_residual > 0.0, "BLER draws corrupt TBs in both runs");
    assert!(um_lost > 0, "UM loses the SDUs of TBs HARQ gave up on (rx {um_rx})");
    assert!(am_rx > um_rx, "AM's ARQ delivers what UM lost: {am_rx} vs {um_rx}");
    assert_eq!(am_lost, 0, "AM recovers every residual loss (UM lost {um_lost})");
}

#[test]
fn bytes_are_conserved_inside_the_cell() {
    let mut v = cell(&[(fixed(8.0), "am"), (fixed(3.0), "um")], 3.0, "proportional_fair", 3.0);
    v["flows"] = json!([
        {"id": "d0", "src": "server", "dst": "ue0", "cca": "cubic", "app": {"kind": "bulk"}},
        {"id": "u1", "src": "ue1", "dst": "server", "cca": "newreno", "app": {"kind": "bulk"}},
        cbr_down(1, 20.0)
    ]);
    let sc = Scenario::from_json(&v.to_string()).unwrap();
    let mut w = World::new(&sc, 3).unwrap();
    for step in 1..=30u64 {
        let done = w.run_until(SimTime(step * 100_000_000)).unwrap();
        let c = w.conservation();
        assert_eq!(c.sent_bytes, c.delivered_bytes + c.dropped_bytes + c.in_flight_bytes, "at {}", w.now());
        if done {
            break;
        }
    }
}

#[test]
fn same_seed_gives_identical_radio_output() {
    let mut v = cell(&[(fixed(12.0), "am"), (fixed(4.0), "um")], 5.0, "proportional_fair", 2.0);
    v["cells"][0]["control_errors"] = json!(true);
    v["flows"] = json!([
        {"id": "d0", "src": "server", "dst": "ue0", "cca": "cubic", "app": {"kind": "bulk"}},
        cbr_down(1, 10.0)
    ]);
    let (a, b) = (run(&v, 7), run(&v, 7));
    assert_eq!(format!("{:?}", a.lte), format!("{:?}", b.lte));
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    let c = run(&v, 8);
    assert_ne!(format!("{:?}", a.lte), format!("{:?}", c.lte), "the seed drives the BLER and PDCCH draws");
}

/// Saturated UDP downlink, one UE, over SINR -5..30 dB at 5, 10 and 20 MHz: the PHY rate is
/// TBS x (1 - BLER) x 1000 TTI/s within 5% (issue 7's check of the PHY chain, so with the MCS
/// the CQI gives: no outer loop).
#[test]
fn saturated_udp_throughput_follows_tbs_and_bler_across_sinr_and_bandwidth() {
    for (mhz, n_rb) in [(5.0, 25), (10.0, 50), (20.0, 100)] {
        for sinr in (-5..=30).step_by(5).map(f64::from) {
            let (rate_bps, bler) = phy_rate_bps(sinr, n_rb);
            let mut v = cell(&[(fixed(sinr), "um")], mhz, "round_robin", 1.2);
            v["cells"][0]["link_adaptation"] = json!({"olla": {"enabled": false}});
            v["output"] = json!({"slot_ms": 200.0});
            v["flows"] = json!([cbr_down(0, (2.0 * rate_bps / 1e6).max(0.5))]);
            let out = run(&v, 1);
            let phy_bps = lte_mean(&out, "ue0", "dl", "phy_throughput_bps", 0.2, 1.2);
            let expect = if phy::wideband_cqi_flat(sinr, n_rb) == 0 { 0.0 } else { rate_bps * (1.0 - bler) };
            assert!(
                (phy_bps - expect).abs() <= 0.05 * expect,
                "{mhz} MHz, {sinr} dB: {phy_bps} bit/s vs TBS x (1 - BLER) = {expect}"
            );
        }
    }
}

/// ns-3 LENA's round-robin test (lte-test-rr-ff-mac-scheduler.cc): N UEs at the same SINR,
/// each saturated, get 1/N of the one-UE throughput each.
#[test]
fn round_robin_throughput_per_ue_falls_as_one_over_n() {
    let (rate_bps, _) = phy_rate_bps(15.0, 25);
    let mut one = 0.0;
    for n in [1usize, 2, 4] {
        let ues: Vec<_> = (0..n).map(|_| (fixed(15.0), "um")).collect();
        let mut v = cell(&ues, 5.0, "round_robin", 2.0);
        v["flows"] = json!((0..n).map(|i| cbr_down(i, 2.0 * rate_bps / 1e6)).collect::<Vec<_>>());
        let out = run(&v, 1);
        let per_ue: Vec<f64> =
            (0..n).map(|i| lte_mean(&out, &format!("ue{i}"), "dl", "phy_throughput_bps", 0.5, 2.0)).collect();
        if n == 1 {
            one = per_ue[0];
        }
        for (i, t) in per_ue.iter().enumerate() {
            assert!((t * n as f64 / one - 1.0).abs() < 0.08, "N={n}, UE {i}: {t} vs {one}/N");
        }
    }
}

/// Every registered congestion control runs over the cell and moves data.
#[test]
fn every_cca_runs_over_the_cell() {
    for cca in cellcc_engine::cc::REGISTRY.iter().map(|d| d.name) {
        let mut v = cell(&[(fixed(15.0), "am")], 5.0, "proportional_fair", 2.0);
        v["flows"] = json!([{"id": "bulk", "src": "server", "dst": "ue0", "cca": cca, "app": {"kind": "bulk"}}]);
        let out = run(&v, 1);
        // A floor any live sender clears: TCP-LP reads the cell's HARQ and scheduling jitter in its
        // one-way delay as early congestion and yields (about 100 kB here), the others move megabytes.
        let bytes = out.flows.u64s("rx_bytes")[0];
        assert!(bytes > 50_000, "{cca}: only {bytes} bytes in 2 s over a ~15 Mbit/s cell");
    }
}

/// Seed 000's segment sizes: 1000 B fits the 1500 B MTU; 3000 B segments are fragmented
/// at the server's link and reassembled at the UE, over AM and UM alike.
#[test]
fn seed000_segment_sizes_cross_the_cell_whole_or_fragmented() {
    for mss in [1000, 3000] {
        for mode in ["am", "um"] {
            let mut v = cell(&[(fixed(10.0), mode), (fixed(20.0), mode)], 20.0, "proportional_fair", 3.0);
            v["links"][0]["mtu_bytes"] = json!(1500);
            v["tcp"] = json!({"mss_bytes": mss});
            v["flows"] = json!((0..2)
                .map(|i| json!({"id": format!("f{i}"), "src": "server",
                "dst": format!("ue{i}"), "cca": "newreno", "app": {"kind": "rate_limited", "rate_mbps": 1.0}}))
                .collect::<Vec<_>>());
            let out = run(&v, 1);
            for i in 0..2 {
                let g = common::mean_throughput(&out, &format!("f{i}"), 1.0, 3.0);
                assert!((g / 1e6 - 1.0).abs() < 0.1, "MSS {mss}, {mode}, UE {i}: {g} bit/s of a 1 Mbit/s source");
            }
        }
    }
}

/// Seed 004's control-channel error model: at low SINR the UE misses some of its downlink
/// grants (PCFICH/PDCCH, ns-3's R4-081920 curve); each is a lost TB that HARQ retransmits.
#[test]
fn pdcch_errors_lose_tbs_that_harq_retransmits() {
    let mut v = cell(&[(fixed(-2.0), "um")], 10.0, "round_robin", 3.0);
    v["cells"][0]["control_errors"] = json!(true);
    v["flows"] = json!([cbr_down(0, 0.5)]);
    let out = run(&v, 1);
    let control = lte_mean(&out, "ue0", "dl", "control_losses", 0.0, 3.0);
    let retx = lte_mean(&out, "ue0", "dl", "harq_retx", 0.0, 3.0);
    let residual = lte_mean(&out, "ue0", "dl", "harq_residual_losses", 0.0, 3.0);
    assert!(control > 0.0, "no PDCCH error at -2 dB");
    assert!(retx >= control, "every lost grant is retransmitted: {retx} retransmissions, {control} control losses");
    assert!(residual < control, "HARQ recovers most: {residual} residual vs {control} control losses");
    v["cells"][0]["control_errors"] = json!(false);
    let off = run(&v, 1);
    assert_eq!(lte_mean(&off, "ue0", "dl", "control_losses", 0.0, 3.0), 0.0);
}

/// A DCI on one CCE over a clean 15 dB band is decoded (TS 36.101 §8.4.2's reference level needs
/// ~-1 dB on 8 CCEs, 9 dB less than one CCE needs): no DCI lost either way.
#[test]
fn a_clean_band_loses_no_dci() {
    let mut v = cell(&[(fixed(15.0), "um")], 10.0, "round_robin", 3.0);
    v["cells"][0]["control_errors"] = json!(true);
    v["flows"] = json!([cbr_down(0, 2.0)]);
    let out = run(&v, 1);
    assert!(lte_mean(&out, "ue0", "dl", "tbs", 0.0, 3.0) > 0.0);
    assert_eq!(lte_mean(&out, "ue0", "dl", "aggregation_level", 0.0, 3.0), 1.0);
    assert_eq!(lte_mean(&out, "ue0", "dl", "control_losses", 0.0, 3.0), 0.0);
    assert_eq!(lte_mean(&out, "ue0", "ul", "control_losses", 0.0, 3.0), 0.0);
}

/// `capacity_bps` is what the band would carry at the UE's MCS in every TTI, busy or idle:
/// a light load and a saturating one read the same capacity (Pm's A = K/Kt needs that).
#[test]
fn capacity_does_not_depend_on_the_offered_load() {
    let (rate_bps, _) = phy_rate_bps(20.0, 50);
    let capacity = |load_mbps: f64| {
        let mut v = cell(&[(fixed(20.0), "um")], 10.0, "round_robin", 2.0);
        v["flows"] = json!([cbr_down(0, load_mbps)]);
        lte_mean(&run(&v, 1), "ue0", "dl", "capacity_bps", 0.5, 2.0)
    };
    let (light, heavy) = (capacity(0.5), capacity(2.0 * rate_bps / 1e6));
    assert_eq!(light, heavy, "capacity at 0.5 Mbit/s offered {light}, saturated {heavy}");
    assert!((heavy / rate_bps - 1.0).abs() < 1e-9, "{heavy} vs the TBS rate {rate_bps}");
}

/// Seed 003's forward movement: the SINR falls from 20 to 5 dB with EVA fading at 60 km/h on top;
/// the reported CQI follows the ramp down and the fading makes HARQ work.
#[test]
fn a_faded_sweep_lowers_the_cqi_and_exercises_harq() {
    let sweep = json!({"kind": "sweep", "from_db": 20.0, "to_db": 5.0, "start_s": 0.0, "duration_s": 2.0,
                       "fading": {"profile": "eva", "speed_kmh": 60.0}});
    let mut v = cell(&[(sweep, "am")], 10.0, "proportional_fair", 2.0);
    v["flows"] = json!([cbr_down(0, 60.0)]);
    let out = run(&v, 1);
    let (early, late) = (lte_mean(&out, "ue0", "dl", "cqi", 0.0, 0.5), lte_mean(&out, "ue0", "dl", "cqi", 1.5, 2.0));
    assert!(early > late + 2.0, "CQI {early} at 20 dB vs {late} at 5 dB");
    assert!(lte_mean(&out, "ue0", "dl", "harq_retx", 0.0, 2.0) > 0.0, "fading defeats some first transmissions");
    assert_eq!(format!("{:?}", out.lte), format!("{:?}", run(&v, 1).lte));
}

/// First-transmission BLER over a UE direction's whole run: mean of the slots' ratios.
fn first_tx_bler(out: &RunOutput, dir: &str) -> f64 {
    lte_mean(out, "ue0", dir, "first_tx_bler", 0.0, f64::INFINITY)
}

/// The outer loop on a faded channel with stale channel knowledge (EVA at 60 km/h, a CQI every
/// 40 ms used 4 ms late, the uplink sounded every 40 ms): both directions' first-transmission
/// BLER settle on the 10 % target over a long run, where the inner loop alone misses it by far.
#[test]
fn olla_holds_the_bler_target_under_fast_fading_and_stale_cqi() {
    let duration_s = 10.0;
    let sweep = json!({"kind": "sweep", "from_db": 15, "to_db": 15, "duration_s": duration_s,
                       "fading": {"profile": "eva", "speed_kmh": 60}});
    let mut v = cell(&[(sweep, "um")], 10.0, "proportional_fair", duration_s);
    v["flows"] = json!([
        cbr_down(0, 60.0),
        {"id": "up", "src": "ue0", "dst": "server", "transport": "udp", "app": {"kind": "cbr", "rate_mbps": 30.0}}
    ]);
    let out = run(&v, 1);
    for dir in ["dl", "ul"] {
        let bler = first_tx_bler(&out, dir);
        assert!((bler - 0.10).abs() < 0.015, "{dir}: first-transmission BLER {bler} with OLLA");
    }
    v["cells"][0]["link_adaptation"] = json!({"olla": {"enabled": false}});
    let out = run(&v, 1);
    for dir in ["dl", "ul"] {
        let bler = first_tx_bler(&out, dir);
        assert!(bler > 0.15, "{dir}: {bler} without OLLA: the stale inner loop alone overshoots");
    }
}

/// Transport blocks per TTI in `dir`, all UEs together, over [from_s, to_s).
fn tbs_per_tti(out: &RunOutput, dir: &str, from_s: f64, to_s: f64) -> f64 {
    let (dirs, t, tbs) = (out.lte.strs("dir"), out.lte.f64s("t_s"), out.lte.u64s("tbs"));
    let total: u64 = (0..t.len()).filter(|&i| dirs[i] == dir && t[i] >= from_s && t[i] < to_s).map(|i| tbs[i]).sum();
    total as f64 / ((to_s - from_s) * 1000.0)
}

/// PDCCH capacity: 40 backlogged UEs at the cell edge of a 10 MHz cell need 8 CCEs per DCI, and
/// the control region has 43 (TS 36.211 §6.8.1): at most 5 DCIs per TTI, so at most 5 TBs per
/// TTI in both directions together, and DCIs are blocked. Without the budget (LENA) round robin
/// serves one UE per RBG, 17 per TTI.
#[test]
fn the_pdcch_bounds_the_ues_served_per_tti() {
    let ues: Vec<(Value, &str)> = (0..40).map(|_| (fixed(0.0), "um")).collect();
    let mut v = cell(&ues, 10.0, "round_robin", 1.0);
    v["cells"][0]["cqi"] = json!({"period_ms": 5});
    v["flows"] = Value::Array((0..40).map(|i| cbr_down(i, 0.5)).collect());
    let out = run(&v, 1);
    let per_tti = tbs_per_tti(&out, "dl", 0.2, 1.0) + tbs_per_tti(&out, "ul", 0.2, 1.0);
    assert!(per_tti <= 43.0 / 8.0, "{per_tti} TBs per TTI through 43 CCEs at 8 CCEs each");
    let level = lte_mean(&out, "ue0", "dl", "aggregation_level", 0.2, 1.0);
    assert_eq!(level, 8.0, "a 0 dB UE's DCIs take 8 CCEs");
    let blocked: u64 = out.lte.u64s("pdcch_blocked").iter().sum();
    assert!(blocked > 1000, "{blocked} DCIs blocked");
    v["cells"][0]["pdcch"] = json!({"capacity": false});
    let free = tbs_per_tti(&run(&v, 1), "dl", 0.2, 1.0);
    assert!(free > 2.0 * per_tti, "{free} DL TBs per TTI without the CCE budget, {per_tti} with it");
}
