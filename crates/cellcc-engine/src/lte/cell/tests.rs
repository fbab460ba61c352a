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
    let ul_tbs: u64 = cell.ues[0].ul.slots.slots.iter().map(|s| s.tbs).sum();
    assert!(ul_tbs > 0, "the packet went up");
    let off_grid = uplink_ms(&calls.borrow(), 0).into_iter().filter(|ms| ms % 10 != 0).count() as u64;
    assert!(off_grid > 0 && off_grid <= ul_tbs, "{off_grid} uplink rows off the SRS grid, {ul_tbs} uplink TBs");
}
