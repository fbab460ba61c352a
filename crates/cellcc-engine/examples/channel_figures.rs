//! Data for docs/channel.md's figures, as CSV on stdout (`scripts/channel_figures.py` runs it):
//!
//! ```text
//! cargo run --release -p cellcc-engine --example channel_figures -- geometry <n_ues> <seed> [open|uma3d]
//! cargo run --release -p cellcc-engine --example channel_figures -- trace '<fading json>' <n_rb> <ttis> <seed>
//! cargo run --release -p cellcc-engine --example channel_figures -- walk <seed>
//! cargo run --release -p cellcc-engine --example channel_figures -- ul_walk <n_seeds>
//! ```
//! `geometry`: TR 36.814 Case 1 drops (calibration.rs), with wrap-around unless `open`;
//! `uma3d`: TR 36.873 phase-1 3D-UMa K = M = 1 geometry (S / I) on the same layout.
//! `trace`: per-RB fading gain |H_k|^2 in dB every TTI, for a `cells[].channel.fading` object
//! (e.g. `{"profile": "eva", "doppler_hz": 70}`): the faded SINR minus the unfaded one.
//! `walk`: seed 004's geometry along the serving boresight, 40-300 m: wideband SINR and
//! PCFICH/PDCCH error probability alone and in the 57-cell layout, without fading and with EPA 5 Hz.
//! `ul_walk`: the same walk's uplink (SRS row, linear mean over the RBs, LENA's power control
//! defaults) in the 57-cell layout with the other cells' uplink idle and full-buffer
//! (ul_interference.rs): per distance the median over seeds 1..=n (each seed drops the 56
//! interfering UEs anew) and the median rise of interference over thermal noise.

use cellcc_engine::lte::channel::spec::{ChannelSpec, UePlacement};
use cellcc_engine::lte::channel::ChannelSinr;
use cellcc_engine::lte::phy::pcfich_pdcch_error_rate;
use cellcc_engine::lte::sap::{LinkDir, UeIndex};
use cellcc_engine::lte::sinr::SinrSource;
use cellcc_engine::radio::calibration::{drop_ues, uma3d, CalibrationCase, TR36814_CASE1};
use cellcc_engine::sim::{SimTime, NS_PER_MS};
use serde_json::json;

/// Distance of the `trace` UE from the Friis eNB of `spec`'s defaults: on 50 RBs an unfaded SINR of about
/// 20 dB (printed on stderr), low enough that the ICI of a Doppler spread (>= 40 dB below the
/// signal for EVA 70 Hz) does not show in the gain.
const TRACE_DISTANCE_M: f64 = 2_000.0;
/// RBs of seed 004's 10 MHz cell.
const WALK_RBS: usize = 50;
/// TTIs averaged for the control error under EPA fading (5 Hz: 2.5 coherence times per 500 ms).
const WALK_FADED_TTIS: u64 = 500;

fn arg(i: usize) -> String {
    std::env::args().nth(i).unwrap_or_else(|| {
        eprintln!("usage: channel_figures geometry N SEED [open] | trace FADING_JSON N_RB TTIS SEED | walk SEED | ul_walk N_SEEDS");
        std::process::exit(2)
    })
}

fn num<T: std::str::FromStr>(i: usize) -> T {
    arg(i).parse().unwrap_or_else(|_| {
        eprintln!("argument {i} ({}) is not a number", arg(i));
        std::process::exit(2)
    })
}

fn spec(v: serde_json::Value) -> ChannelSpec {
    serde_json::from_value(v).unwrap_or_else(|e| {
        eprintln!("channel spec: {e}");
        std::process::exit(2)
    })
}

fn ue_at(x: f64) -> UePlacement {
    serde_json::from_value(json!({"position_m": [x, 0.0]})).expect("a valid placement")
}

fn row(ch: &mut ChannelSinr, t_ms: u64, n_rb: usize) -> Vec<f64> {
    let mut out = vec![0.0; n_rb];
    ch.per_rb_sinr_db(UeIndex(0), LinkDir::Downlink, SimTime(t_ms * NS_PER_MS), &mut out);
    out
}

/// [`row`] as linear SINR, what the PHY reads.
fn row_lin(ch: &mut ChannelSinr, t_ms: u64, n_rb: usize) -> Vec<f64> {
    let mut out = vec![0.0; n_rb];
    ch.per_rb_sinr_lin(UeIndex(0), LinkDir::Downlink, SimTime(t_ms * NS_PER_MS), &mut out);
    out
}

fn geometry() {
    let case = match std::env::args().nth(4).as_deref() {
        Some("open") => CalibrationCase { wrap_around: false, ..TR36814_CASE1 },
        Some("uma3d") => {
            println!("geometry_db");
            for g in uma3d::geometry_sir_db(num(2), num(3)) {
                println!("{g:.4}");
            }
            return;
        }
        _ => TR36814_CASE1,
    };
    println!("x_m,y_m,serving_cell,geometry_db");
    for d in drop_ues(&case, num(2), num(3)) {
        println!("{:.2},{:.2},{},{:.4}", d.xy_m[0], d.xy_m[1], d.serving_cell, d.geometry_db);
    }
}

fn trace() {
    let fading: serde_json::Value = serde_json::from_str(&arg(2)).unwrap_or_else(|e| {
        eprintln!("fading json: {e}");
        std::process::exit(2)
    });
    let (n_rb, ttis, seed): (usize, u64, u64) = (num(3), num(4), num(5));
    // A UE TRACE_DISTANCE_M from a Friis eNB: the unfaded SINR is flat, so SINR - unfaded = |H_k|^2
    // in dB, less the inter-carrier interference, negligible at this SINR except for the
    // high-speed train's untracked frequency offset.
    let faded = spec(json!({"fading": fading}));
    let flat = spec(json!({}));
    let mut ch = ChannelSinr::new(&faded, &[ue_at(TRACE_DISTANCE_M)], seed, "figure").unwrap_or_else(|e| {
        eprintln!("{}: {} (allowed: {})", e.path, e.value, e.allowed);
        std::process::exit(2)
    });
    let base = row(
        &mut ChannelSinr::new(&flat, &[ue_at(TRACE_DISTANCE_M)], seed, "figure").expect("defaults are valid"),
        0,
        n_rb,
    )[0];
    eprintln!("unfaded SINR {base:.2} dB");
    let header: Vec<String> = (0..n_rb).map(|k| format!("rb{k}")).collect();
    println!("t_ms,{}", header.join(","));
    for t in 0..ttis {
        let g: Vec<String> = row(&mut ch, t, n_rb).iter().map(|x| format!("{:.3}", x - base)).collect();
        println!("{t},{}", g.join(","));
    }
}

/// Seed 004's cell alone, or as the centre site's 0-degree sector of the 57-cell layout.
fn walk_spec(pathloss: &serde_json::Value, layout: bool, fading: bool) -> ChannelSpec {
    let mut v =
        json!({"dl_carrier_mhz": 2100, "ul_carrier_mhz": 1900, "enb": {"tx_power_dbm": 46}, "pathloss": pathloss});
    if layout {
        v["enb"]["antenna"] = json!({"kind": "parabolic", "beamwidth_deg": 70});
        v["hex_layout"] = json!({"rings": 2, "isd_m": 500, "sectors": 3});
    }
    if fading {
        v["fading"] = json!({"profile": "epa", "doppler_hz": 5});
    }
    spec(v)
}

fn walk() {
    let seed: u64 = num(2);
    println!("distance_m,pathloss,layout,sinr_db,control_error,control_error_epa");
    for (name, pl) in
        [("itu_r1411_los", json!({"model": "itu_r1411_los"})), ("tr36814_uma_nlos", json!({"model": "tr36814_uma"}))]
    {
        for (layout_name, layout) in [("alone", false), ("57_cells", true)] {
            for d in (40..=300).step_by(10) {
                let d = f64::from(d);
                let mut still =
                    ChannelSinr::new(&walk_spec(&pl, layout, false), &[ue_at(d)], seed, "walk").expect("valid");
                let r = row(&mut still, 0, WALK_RBS);
                let r_lin = row_lin(&mut still, 0, WALK_RBS);
                let mut faded =
                    ChannelSinr::new(&walk_spec(&pl, layout, true), &[ue_at(d)], seed, "walk").expect("valid");
                let p_epa = (0..WALK_FADED_TTIS)
                    .map(|t| pcfich_pdcch_error_rate(&row_lin(&mut faded, t, WALK_RBS)))
                    .sum::<f64>()
                    / WALK_FADED_TTIS as f64;
                println!("{d},{name},{layout_name},{:.3},{:.5},{:.5}", r[0], pcfich_pdcch_error_rate(&r_lin), p_epa);
            }
        }
    }
}

/// Median of `v` (sorted copy; the upper one of an even count).
fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ul_walk() {
    let n_seeds: u64 = num(2);
    println!("distance_m,pathloss,ul_sinr_db_ul_idle,ul_sinr_db_ul_full_buffer,median_drop_db");
    for (name, pl) in
        [("itu_r1411_los", json!({"model": "itu_r1411_los"})), ("tr36814_uma_nlos", json!({"model": "tr36814_uma"}))]
    {
        for d in (40..=300).step_by(20) {
            let d = f64::from(d);
            let sinr = |load: &str, seed: u64| {
                let mut s = walk_spec(&pl, true, false);
                if let Some(l) = s.hex_layout.as_mut() {
                    l.uplink_load = serde_json::from_value(json!({"kind": load})).expect("a load");
                }
                let mut ch = ChannelSinr::new(&s, &[ue_at(d)], seed, "walk").expect("valid");
                let mut out = vec![0.0; WALK_RBS];
                ch.per_rb_sinr_db(UeIndex(0), LinkDir::Uplink, SimTime::ZERO, &mut out);
                let lin = out.iter().map(|x| 10f64.powf(x / 10.0)).sum::<f64>() / WALK_RBS as f64;
                10.0 * lin.log10()
            };
            let idle: Vec<f64> = (1..=n_seeds).map(|s| sinr("idle", s)).collect();
            let full: Vec<f64> = (1..=n_seeds).map(|s| sinr("full_buffer", s)).collect();
            let drop: Vec<f64> = idle.iter().zip(&full).map(|(a, b)| a - b).collect();
            println!("{d},{name},{:.2},{:.2},{:.2}", median(&idle), median(&full), median(&drop));
        }
    }
}

fn main() {
    match arg(1).as_str() {
        "geometry" => geometry(),
        "trace" => trace(),
        "walk" => walk(),
        "ul_walk" => ul_walk(),
        other => {
            eprintln!("unknown figure {other:?}: geometry | trace | walk | ul_walk");
            std::process::exit(2)
        }
    }
}
