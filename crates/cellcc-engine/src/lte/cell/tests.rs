//! Which SINR rows the cell asks its source for, and when: the uplink only on SRS
//! occasions and PUSCH transmissions (TS 36.213 §8.2, TS 36.211 §5.5.2).

use super::*;
use crate::packet::PacketId;
use std::cell::RefCell;
use std::rc::Rc;

/// Per-RB row requests as (UE, direction, ms), shared between the source and the test.
type Log = Rc<RefCell<Vec<(u16, LinkDir, u64)>>>;

/// A flat 15 dB source that records every per-RB row request.
struct Recording {
    calls: Log,
}

impl SinrSource for Recording {
    fn per_rb_sinr_lin(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        self.calls.borrow_mut().push((ue.0, dir, now.as_ns() / NS_PER_MS));
        // 15 dB.
        out.fill(10f64.powf(1.5));
    }

    fn control_sinr_db(&mut self, _ue: UeIndex, _now: SimTime) -> f64 {
        15.0
    }
}

/// TBs sent on UE `u`'s uplink, its held slot written back first.
fn ul_tbs(cell: &mut Cell, u: usize) -> u64 {
    let slots = &mut cell.ues[u].ul.slots;
    slots.flush();
    slots.table().slots.iter().map(|s| s.tbs).sum()
}

/// Two UEs at fixed SINR, SRS every 10 ms; returns the cell and its request log.
fn cell_with_log() -> (Cell, Log) {
    let spec: CellSpec = serde_json::from_value(serde_json::json!({
        "id": "c", "enb": "enb", "uplink": {"srs_period_ms": 10}, "cqi": {"period_ms": 1},
        "ues": [{"node": "ue0", "sinr": {"kind": "fixed", "db": 15}},
                {"node": "ue1", "sinr": {"kind": "fixed", "db": 15}}]
    }))
    .expect("valid cell");
    let node = |name: &str| NodeId(["enb", "ue0", "ue1"].iter().position(|n| *n == name).expect("known") as u32);
    let end = SimTime::from_secs_f64(1.0);
    let mut cell = Cell::build(&spec, "cells[0]", &node, 1, SimDuration::from_ms(100), end).expect("builds");
    let calls = Rc::new(RefCell::new(Vec::new()));
    cell.sinr = Box::new(Recording { calls: calls.clone() });
    (cell, calls)
}

/// A cell of `spec` (a `CellSpec` as JSON) for 1 s, its eNB node 0 and its UEs' nodes 1, 2, ...
/// in the order of `spec.ues`, 100 ms output slots.
fn one_second_cell(spec: serde_json::Value) -> Cell {
    let ues: Vec<String> =
        spec["ues"].as_array().expect("ues").iter().map(|u| u["node"].as_str().expect("node").to_string()).collect();
    let spec: CellSpec = serde_json::from_value(spec).expect("valid cell");
    let node = |name: &str| NodeId(ues.iter().position(|n| n == name).map_or(0, |i| i as u32 + 1));
    Cell::build(&spec, "cells[0]", &node, 1, SimDuration::from_ms(100), SimTime::from_secs_f64(1.0)).expect("builds")
}

fn run_ms(cell: &mut Cell, from_ms: u64, to_ms: u64) {
    let mut out = CellOutput::default();
    for ms in from_ms..to_ms {
        cell.handle_timeout(SimTime(ms * NS_PER_MS), &mut out);
    }
}

fn uplink_ms(calls: &[(u16, LinkDir, u64)], ue: u16) -> Vec<u64> {
    let mut ms: Vec<u64> = calls.iter().filter(|c| c.0 == ue && c.1 == LinkDir::Uplink).map(|c| c.2).collect();
    ms.dedup();
    ms
}

fn rows_ms(calls: &[(u16, LinkDir, u64)], ue: u16, dir: LinkDir) -> Vec<u64> {
    let mut ms: Vec<u64> = calls.iter().filter(|c| c.0 == ue && c.1 == dir).map(|c| c.2).collect();
    ms.dedup();
    ms
}

#[test]
fn an_idle_ue_is_not_measured_and_catches_up_on_its_occasions_when_data_comes() {
    // T_SRS = 10 ms, offsets = UE number: UE 1's SRS at 1, 11, 21, 31, 41 ms. The downlink CQI is
    // reported every TTI, usable 4 ms after its measurement (the default delay).
    let (mut cell, calls) = cell_with_log();
    run_ms(&mut cell, 0, 40);
    assert!(calls.borrow().is_empty(), "nothing is measured while every UE is idle");
    let enqueued = cell.enqueue(SimTime(40 * NS_PER_MS - 1), NodeId(0), NodeId(2), PacketId(7), 1000);
    assert!(matches!(enqueued, CellEnqueued::Accepted));
    run_ms(&mut cell, 40, 41);
    let calls = calls.borrow();
    // The CQI in force at 40 ms was measured at 36 ms, those of 37-39 ms are in flight, 40 ms is due.
    assert_eq!(rows_ms(&calls, 1, LinkDir::Downlink), [36, 37, 38, 39, 40]);
    // The SRS report in force at 40 ms is the one of 31 ms (the next occasion, 41 ms, is ahead).
    assert_eq!(uplink_ms(&calls, 1), [31]);
    assert!(rows_ms(&calls, 0, LinkDir::Downlink).is_empty() && uplink_ms(&calls, 0).is_empty(), "UE 0 stays idle");
}

#[test]
fn uplink_rows_off_the_srs_grid_are_pusch_transmissions() {
    // UE 0 sends one 1000-byte packet at 2 ms: SR at its next occasion, grants, PUSCH TBs.
    // Every uplink row asked off its SRS grid is a TTI in which it sent an uplink TB.
    let (mut cell, calls) = cell_with_log();
    run_ms(&mut cell, 0, 2);
    let enqueued = cell.enqueue(SimTime(2 * NS_PER_MS), NodeId(1), NodeId(0), PacketId(7), 1000);
    assert!(matches!(enqueued, CellEnqueued::Accepted));
    run_ms(&mut cell, 2, 100);
    let ul_tbs = ul_tbs(&mut cell, 0);
    assert!(ul_tbs > 0, "the packet went up");
    let off_grid = uplink_ms(&calls.borrow(), 0).into_iter().filter(|ms| ms % 10 != 0).count() as u64;
    assert!(off_grid > 0 && off_grid <= ul_tbs, "{off_grid} uplink rows off the SRS grid, {ul_tbs} uplink TBs");
}

/// When a 1000-byte downlink packet enqueued at 10 ms reaches UE 0, in a cell with `mac.pipeline`
/// = `pipeline`, woken only at the times it asks for (as the world runs it).
fn downlink_arrival(pipeline: &str) -> SimTime {
    let spec: CellSpec = serde_json::from_value(serde_json::json!({
        "id": "c", "enb": "enb", "cqi": {"period_ms": 1}, "mac": {"pipeline": pipeline},
        "ues": [{"node": "ue0", "sinr": {"kind": "fixed", "db": 15}, "rlc": {"mode": "um"}}]
    }))
    .expect("valid cell");
    let node = |name: &str| NodeId(["enb", "ue0"].iter().position(|n| *n == name).expect("known") as u32);
    let end = SimTime::from_secs_f64(1.0);
    let mut cell = Cell::build(&spec, "cells[0]", &node, 1, SimDuration::from_ms(100), end).expect("builds");
    let mut out = CellOutput::default();
    // CQI reports reach the eNB before the packet does (4 ms delay).
    for ms in 0..10 {
        cell.handle_timeout(SimTime(ms * NS_PER_MS), &mut out);
    }
    let enqueued = cell.enqueue(SimTime(10 * NS_PER_MS), NodeId(0), NodeId(1), PacketId(7), 1000);
    assert!(matches!(enqueued, CellEnqueued::Accepted));
    while let Some(t) = cell.poll_timeout() {
        cell.handle_timeout(t, &mut out);
        if out.delivered.contains(&(NodeId(1), PacketId(7))) {
            return t;
        }
    }
    panic!("the packet never reached the UE")
}

#[test]
fn a_lena_downlink_tb_reaches_the_ue_mac_to_channel_ttis_later_just_before_its_subframe_ends() {
    // Scheduled in the TTI that starts as the packet arrives (10 ms) and received at its end
    // (11 ms); LENA's eNB PHY holds the TB 2 TTIs more (MacToChannelDelay) and its data ends 1 ns
    // before that subframe does (DL_DATA_DURATION).
    assert_eq!(downlink_arrival("immediate"), SimTime(11 * NS_PER_MS));
    assert_eq!(downlink_arrival("lena"), SimTime(13 * NS_PER_MS - 1));
}

#[test]
fn a_lena_ue_sends_its_status_pdu_with_its_data_and_leaves_empty_grants_unused() {
    // LENA profile, RLC AM (pollPDU 1: every downlink PDU asks for a STATUS). A downlink packet
    // at 10 ms makes the UE owe a STATUS PDU; an uplink packet arrives at the UE then too. LENA's
    // UE MAC gives the STATUS an opportunity of its own and the data another in the same TB, and
    // sends nothing on the grants its later ideal BSRs bring once its buffer is empty.
    let mut cell = one_second_cell(serde_json::json!({
        "id": "c", "enb": "enb", "profile": "lena",
        "ues": [{"node": "ue0", "sinr": {"kind": "fixed", "db": 15}, "rlc": {"mode": "am"}}]
    }));
    let mut out = CellOutput::default();
    for ms in 0..10 {
        cell.handle_timeout(SimTime(ms * NS_PER_MS), &mut out);
    }
    let down = cell.enqueue(SimTime(10 * NS_PER_MS), NodeId(0), NodeId(1), PacketId(1), 1000);
    let up = cell.enqueue(SimTime(10 * NS_PER_MS), NodeId(1), NodeId(0), PacketId(2), 60);
    assert!(matches!((down, up), (CellEnqueued::Accepted, CellEnqueued::Accepted)));
    for ms in 11..100 {
        cell.handle_timeout(SimTime(ms * NS_PER_MS), &mut out);
    }
    assert!(out.delivered.contains(&(NodeId(0), PacketId(2))), "the uplink packet reached the eNB");
    assert!(cell.ues[0].ue_rlc.counters().status_pdus_sent >= 1, "the UE sent its STATUS");
    assert_eq!(ul_tbs(&mut cell, 0), 1, "STATUS and data in one TB, no TB on the grants that found nothing to send");
}

/// The ms at which two uplink packets, queued at the UE at 10 ms and 19 ms, reach the eNB, in a
/// LENA cell with `mac.pipeline` = `pipeline`.
fn uplink_arrivals_ms(pipeline: &str) -> (u64, u64) {
    let mut cell = one_second_cell(serde_json::json!({
        "id": "c", "enb": "enb", "profile": "lena", "mac": {"pipeline": pipeline},
        "ues": [{"node": "ue0", "sinr": {"kind": "fixed", "db": 15}}]
    }));
    let mut out = CellOutput::default();
    let mut first = None;
    for ms in 0..60 {
        let now = SimTime(ms * NS_PER_MS);
        if ms == 10 || ms == 19 {
            let queued = cell.enqueue(now, NodeId(1), NodeId(0), PacketId(ms as u32), 60);
            assert!(matches!(queued, CellEnqueued::Accepted));
        }
        cell.handle_timeout(now, &mut out);
        if first.is_none() && out.delivered.contains(&(NodeId(0), PacketId(10))) {
            first = Some(ms);
        }
        if out.delivered.contains(&(NodeId(0), PacketId(19))) {
            return (first.expect("in order"), ms);
        }
    }
    panic!("both packets reach the eNB within 60 ms")
}

#[test]
fn a_lena_ue_builds_its_uplink_pdu_on_the_grant() {
    // The ideal BSR of the first packet reaches the scheduler at 17 ms; its grant is used at
    // 21 ms (the packet arrives at 22). Built on the grant (LENA's UE MAC), that TB holds only the
    // first packet; the second, queued at 19 ms, waits for a grant of its own (arriving at 31 ms).
    // Built for the transmission, one TB takes both.
    let (first, second) = uplink_arrivals_ms("lena");
    assert!(second > first, "the second packet missed the PDU built at 17 ms: {first} / {second} ms");
    let (first, second) = uplink_arrivals_ms("immediate");
    assert_eq!(first, second, "one TB carried both");
}

#[test]
fn a_cell_woken_only_at_its_deadlines_sends_the_pdu_it_built_on_a_grant() {
    // As the world runs a cell: only at the times it asks for. Once a LENA UE has built its PDU
    // on the grant, its RLC is empty; the cell must still wake for the PUSCH 4 TTIs later.
    let mut cell = one_second_cell(serde_json::json!({
        "id": "c", "enb": "enb", "profile": "lena",
        "ues": [{"node": "ue0", "sinr": {"kind": "fixed", "db": 15}}]
    }));
    let mut out = CellOutput::default();
    let queued = cell.enqueue(SimTime(10 * NS_PER_MS), NodeId(1), NodeId(0), PacketId(1), 60);
    assert!(matches!(queued, CellEnqueued::Accepted));
    while let Some(t) = cell.poll_timeout() {
        cell.handle_timeout(t, &mut out);
        if out.delivered.contains(&(NodeId(0), PacketId(1))) {
            assert_eq!(t, SimTime(22 * NS_PER_MS), "the grant of 17 ms used at 21 ms, received at its end");
            return;
        }
    }
    panic!("the cell went idle with a PDU built for a grant");
}

/// Downlink flat at 15 dB; uplink at -15 dB on the lower half of the band and 15 dB on the upper.
struct HalfFadedUplink;

impl SinrSource for HalfFadedUplink {
    fn per_rb_sinr_lin(&mut self, _ue: UeIndex, dir: LinkDir, _now: SimTime, out: &mut [f64]) {
        let half = out.len() / 2;
        out.fill(10f64.powf(1.5));
        if dir == LinkDir::Uplink {
            out[..half].fill(10f64.powf(-1.5));
        }
    }

    fn control_sinr_db(&mut self, _ue: UeIndex, _now: SimTime) -> f64 {
        15.0
    }
}

#[test]
fn a_lena_uplink_grant_takes_the_cqi_of_its_own_rbs_not_the_bands() {
    // Two UEs whose uplink is out of range on the lower half of the band. LENA's scheduler splits
    // the band evenly and judges each grant on its own RBs (pf-ff-mac-scheduler.cc
    // DoSchedUlTriggerReq): UE 1's grant on the upper half carries its packet; UE 0's, on the
    // lower half, is withdrawn with its RBs left empty, and as the band was used up the rotation
    // starts from UE 0 again, so its grant falls there every TTI (as in LENA). The band's minimum
    // (-15 dB, CQI 0) would have left both unscheduled.
    let mut cell = one_second_cell(serde_json::json!({
        "id": "c", "enb": "enb", "profile": "lena",
        "ues": [{"node": "ue0", "sinr": {"kind": "fixed", "db": 15}},
                {"node": "ue1", "sinr": {"kind": "fixed", "db": 15}}]
    }));
    cell.sinr = Box::new(HalfFadedUplink);
    let mut out = CellOutput::default();
    // Data at 45 ms: the UEs' last SRS (40 and 41 ms) is what the eNB knows.
    for ms in 0..120 {
        let now = SimTime(ms * NS_PER_MS);
        if ms == 45 {
            for (ue, id) in [(1, 1), (2, 2)] {
                let queued = cell.enqueue(now, NodeId(ue), NodeId(0), PacketId(id), 60);
                assert!(matches!(queued, CellEnqueued::Accepted));
            }
        }
        cell.handle_timeout(now, &mut out);
    }
    let end = SimTime(119 * NS_PER_MS);
    assert_eq!(
        cell.tables.link_tti.link(0, LinkDir::Uplink).cqi.current(end).map(|r| r.cqi),
        Some(0),
        "the band's CQI"
    );
    assert!(out.delivered.contains(&(NodeId(0), PacketId(2))), "UE 1's grant on the good half");
    assert!(!out.delivered.contains(&(NodeId(0), PacketId(1))), "UE 0's grants withdrawn");
    assert_eq!((ul_tbs(&mut cell, 0), ul_tbs(&mut cell, 1)), (0, 1));
}

#[test]
fn the_uplink_band_mcs_follows_the_outer_loop_on_a_fixed_estimate() {
    // A fixed 15 dB uplink: every SRS and PUSCH measures the same row, so the estimate never
    // changes, while the outer loop steps at each first transmission's HARQ feedback. The band
    // MCS the demand holds is the estimate's at the gain of the moment, as the grants' own are.
    let mut cell = one_second_cell(serde_json::json!({
        "id": "c", "enb": "enb",
        "ues": [{"node": "ue0", "sinr": {"kind": "fixed", "db": 15}}]
    }));
    let mut out = CellOutput::default();
    let mut checked = 0;
    for ms in 0..400u32 {
        let now = SimTime(u64::from(ms) * NS_PER_MS);
        let queued = cell.enqueue(now, NodeId(1), NodeId(0), PacketId(ms), 1500);
        assert!(matches!(queued, CellEnqueued::Accepted));
        cell.handle_timeout(now, &mut out);
        let (held, now_gain, unshifted) = cell.ul_band_mcs_held_now_and_unshifted(0);
        if held.is_some() && now_gain != unshifted {
            assert_eq!(held, now_gain, "at {ms} ms");
            checked += 1;
        }
    }
    assert!(checked > 100, "the outer loop moved the band MCS in {checked} TTIs only");
}

/// What a cell did on the air and delivered: per UE and direction, each output slot's TBs, MCS
/// sum, bits decoded, HARQ retransmissions, control losses and first-transmission NACKs; and
/// every packet delivered, with when.
type Realization = (Vec<[u64; 6]>, Vec<(u64, NodeId, PacketId)>);

/// How a test cell is run: woken at its own deadlines only, visiting the UEs with work (as the
/// world runs it); or woken at every TTI boundary too and visiting every UE in each, as a cell
/// that never skips an idle TTI nor an idle UE's measurement.
#[derive(Clone, Copy)]
enum Drive {
    Deadlines,
    EveryTtiEveryUe,
}

/// Run a faded two-UE cell (EVA 60 km/h on a 20 -> 5 dB ramp, CQI every 5 ms, SRS every 20 ms,
/// PF, control errors on) through on/off traffic: downlink bursts to each UE and uplink packets,
/// with idle gaps of tens of ms.
fn faded_on_off(drive: Drive) -> Realization {
    let sinr = serde_json::json!({"kind": "sweep", "from_db": 20.0, "to_db": 5.0, "duration_s": 1.0,
        "fading": {"profile": "eva", "speed_kmh": 60.0}});
    on_off(
        serde_json::json!({
            "id": "c", "enb": "enb", "cqi": {"period_ms": 5}, "uplink": {"srs_period_ms": 20},
            "control_errors": true, "scheduler": "proportional_fair",
            "ues": [{"node": "ue0", "sinr": sinr}, {"node": "ue1", "sinr": sinr}]
        }),
        drive,
    )
}

/// [`faded_on_off`]'s traffic through a cell of `spec` (two UEs).
fn on_off(spec: serde_json::Value, drive: Drive) -> Realization {
    let mut cell = one_second_cell(spec);
    let every_tti = matches!(drive, Drive::EveryTtiEveryUe);
    cell.visit_all = every_tti;
    // (time ns, from, next, bytes): off the TTI grid, so no arrival ties with a wake-up.
    let mut arrivals = Vec::new();
    for (ue, start_ms, packets) in [(1, 7, 20), (2, 43, 5), (1, 151, 40), (2, 152, 40), (2, 480, 10), (1, 733, 3)] {
        for k in 0..packets {
            arrivals.push((start_ms * NS_PER_MS + 300_000 + k * 100_000, NodeId(0), NodeId(ue), 1400));
        }
    }
    for (ue, at_ms) in [(1, 90), (2, 95), (2, 310), (1, 611)] {
        arrivals.push((at_ms * NS_PER_MS + 500_000, NodeId(ue), NodeId(0), 100));
    }
    arrivals.sort_unstable_by_key(|a| a.0);
    let end = 1000 * NS_PER_MS;
    let (mut out, mut delivered) = (CellOutput::default(), Vec::new());
    let (mut next_arrival, mut last_wake) = (0, None);
    loop {
        let tick = every_tti.then(|| last_wake.map_or(0, |t: u64| (t / NS_PER_MS + 1) * NS_PER_MS));
        let arrival = arrivals.get(next_arrival).map(|a| a.0);
        let Some(t) = [tick, arrival, cell.poll_timeout().map(|t| t.as_ns())].into_iter().flatten().min() else {
            break;
        };
        if t >= end {
            break;
        }
        if arrival == Some(t) {
            let (_, from, next, bytes) = arrivals[next_arrival];
            cell.enqueue(SimTime(t), from, next, PacketId(next_arrival as u32), bytes);
            next_arrival += 1;
            continue;
        }
        cell.handle_timeout(SimTime(t), &mut out);
        delivered.extend(out.delivered.drain(..).map(|(n, p)| (t, n, p)));
        last_wake = Some(t);
    }
    for ue in cell.ues.attached_mut() {
        ue.dl.slots.flush();
        ue.ul.slots.flush();
    }
    let slots = cell
        .ues
        .attached()
        .flat_map(|(_, ue)| [&ue.dl, &ue.ul])
        .flat_map(|link| link.slots.table().slots.iter())
        .map(|s| [s.tbs, s.mcs_sum, s.tb_bits_decoded, s.harq_retx, s.control_losses, s.first_tx_nacks])
        .collect();
    (slots, delivered)
}

/// TS 36.213 §7.2.2 and §8.2: a UE reports CQI and sounds on its configured occasions whether or
/// not it has data, and a real PF scheduler ages every UE's average each TTI. Skipping the TTIs
/// in which no UE has work is a shortcut of the simulator: it must not change what happens.
#[test]
fn skipping_idle_ttis_does_not_change_the_realization() {
    assert_skipping_changes_nothing(faded_on_off);
}

/// The cell `realize` runs gives the same TBs and deliveries woken at its deadlines only as
/// woken every TTI with every UE visited, and its traffic got through.
fn assert_skipping_changes_nothing(realize: fn(Drive) -> Realization) {
    let (skipping, every_tti) = (realize(Drive::Deadlines), realize(Drive::EveryTtiEveryUe));
    assert!(skipping.1.len() > 100, "the traffic got through: {} packets", skipping.1.len());
    assert_eq!(skipping.1, every_tti.1, "deliveries differ");
    assert_eq!(skipping.0, every_tti.0, "TBs differ");
}

/// Two UEs of a cell's own channel, driving away at 120 km/h through shadowing that decorrelates
/// over 5 m, EPA fading: the catch-up measures past occasions of a channel whose large scale
/// moves every other 10 ms step (an epoch per 0.67 m, radio/track.rs).
fn shadowed_on_off(drive: Drive) -> Realization {
    let ue = |node: &str, x: f64| {
        serde_json::json!({"node": node, "sinr": {"kind": "channel", "position_m": [x, 10.0],
            "mobility": {"kind": "constant_velocity", "speed_kmh": 120.0, "heading_deg": 0.0}}})
    };
    on_off(
        serde_json::json!({
            "id": "c", "enb": "enb", "cqi": {"period_ms": 5}, "uplink": {"srs_period_ms": 40},
            "control_errors": true, "scheduler": "proportional_fair",
            "channel": {"shadowing": {"sigma_db": 8.0, "decorrelation_m": 5.0},
                        "fading": {"profile": "epa", "speed_kmh": 120.0}},
            "ues": [ue("ue0", 100.0), ue("ue1", 250.0)]
        }),
        drive,
    )
}

#[test]
fn skipping_idle_ttis_does_not_change_a_shadowed_channel() {
    assert_skipping_changes_nothing(shadowed_on_off);
}
