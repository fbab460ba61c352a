//! One LTE cell as a medium of the world: an eNB, its UEs, and per UE one
//! data radio bearer (PDCP + RLC at both ends), the MAC (HARQ, schedulers,
//! scheduling requests) and the PHY abstraction, on a 1 ms TTI clock.
//!
//! ```text
//!  world ──enqueue(from, next, packet)──► PDCP ─► RLC tx ─┐ buffer status
//!                                                          ▼
//!   TTI n:  receptions of n-1 ─► RLC rx ─► delivered ─► world.on_arrive(next)
//!           HARQ feedback of n-4 (ACK / NACK / residual loss)
//!           CQI measured at n, usable at n + delay
//!           DL: scheduler ─► RLC tx opportunity ─► TB ─► PHY: PDCCH + BLER draw ─► HARQ
//!           UL: grants of n-4 transmit; SR / BSR; scheduler grants for n+4
//! ```
//! The world sees enqueue, a next deadline and what comes out (`CellOutput`).
//! A cell with no data, no HARQ process busy and no RLC timer has no deadline:
//! idle TTIs cost nothing.

mod active;
mod sdu_store;
mod stats;
mod tti;
mod ue;

pub use stats::{lte_table, LteSlot, LteSlots};

use super::channel::spec::UePlacement;
use super::channel::sweep::SweepSinr;
use super::channel::ChannelSinr;
use super::sap::{LinkDir, UeIndex};
use super::sinr::{PerUeSinr, SinrSeries, SinrSource, UeSinr};
use crate::error::ScenarioError;
use crate::lte::config::{CellConfig, CqiConfig};
use crate::packet::PacketId;
use crate::scenario::{CellSpec, SinrSpec};
use crate::sim::{NodeId, SimDuration, SimTime, NS_PER_MS};
use active::ActiveUes;
use ue::UeContext;

/// LTE FDD subframe: the TTI (TS 36.211 §4.1).
pub const TTI: SimDuration = SimDuration::from_ms(1);

/// What an enqueue did.
#[derive(Debug, PartialEq, Eq)]
pub enum CellEnqueued {
    /// The bearer's RLC buffer is full: the packet is handed back to be dropped.
    Dropped(PacketId),
    Accepted,
}

/// What the cell hands back to the world (reused buffers).
#[derive(Debug, Default)]
pub struct CellOutput {
    /// Packets that crossed the air, with the node they reached (a UE, or the eNB).
    pub delivered: Vec<(NodeId, PacketId)>,
    /// Packets lost in the cell (RLC buffer, HARQ residual loss on UM/TM, RLC discard).
    pub dropped: Vec<PacketId>,
}

pub struct Cell {
    pub name: String,
    enb: NodeId,
    ue_nodes: Vec<NodeId>,
    /// Per node index, the UE it is in this cell, if any (an enqueue finds its bearer at once).
    ue_of_node: Vec<Option<UeIndex>>,
    ue_names: Vec<String>,
    mtu_bytes: u32,
    n_rbs: u32,
    cqi: CqiConfig,
    control_errors: bool,
    ues: Vec<UeContext>,
    macs: tti::Macs,
    sinr: Box<dyn SinrSource>,
    /// Scratch: one linear SINR per RB.
    sinr_lin: Vec<f64>,
    /// The last TTI processed.
    last_tti: Option<SimTime>,
    /// When the cell next needs waking: recomputed after each wake-up, lowered by enqueues.
    deadline: Option<SimTime>,
    /// The UEs with work and every UE's RLC timers (admissions start none, so only wake-ups
    /// move the timers).
    active: ActiveUes,
    /// Scratch: the UEs a TTI or a timer wake-up visits.
    list: Vec<u32>,
    /// The first TTI the cell ran: the downlink CQI reports of UEs idle since then follow a
    /// grid of report periods from it.
    first_tti: Option<SimTime>,
    /// The end of the run: a TTI starting there would fall outside every time-series slot.
    end: SimTime,
    now: SimTime,
}

impl Cell {
    /// Build cell `id` from its spec, resolved with its profile; `path` names it in errors (`cells[0]`).
    pub fn build(
        spec: &CellSpec,
        path: &str,
        node: &dyn Fn(&str) -> NodeId,
        seed: u64,
        slot: SimDuration,
        end: SimTime,
    ) -> Result<Cell, ScenarioError> {
        let spec = spec.resolve();
        let n_rbs = spec.n_rbs();
        let duration = end - SimTime::ZERO;
        let enb = node(&spec.enb);
        let mut ues = Vec::with_capacity(spec.ues.len());
        for u in &spec.ues {
            // Keyed by cell and UE names: adding a UE leaves every other UE's streams as they were.
            let label = format!("cell:{}:ue:{}", spec.id, u.node);
            ues.push(UeContext::new(&spec, u, node(&u.node), enb, &label, seed, slot, duration));
        }
        let sinr = sinr_source(&spec, path, n_rbs, seed)?;
        let ue_nodes: Vec<NodeId> = spec.ues.iter().map(|u| node(&u.node)).collect();
        let mut ue_of_node = vec![None; ue_nodes.iter().map(|n| n.index() + 1).max().unwrap_or(0)];
        for (i, n) in ue_nodes.iter().enumerate() {
            ue_of_node[n.index()] = Some(UeIndex(i as u16));
        }
        Ok(Cell {
            name: spec.id.clone(),
            enb,
            ue_nodes,
            ue_of_node,
            ue_names: spec.ues.iter().map(|u| u.node.clone()).collect(),
            mtu_bytes: spec.mtu_bytes,
            n_rbs,
            cqi: spec.cqi,
            control_errors: spec.control_errors,
            macs: tti::Macs::new(&spec, n_rbs),
            ues,
            sinr,
            sinr_lin: vec![0.0; n_rbs as usize],
            last_tti: None,
            deadline: None,
            active: ActiveUes::new(spec.ues.len()),
            list: Vec::with_capacity(spec.ues.len()),
            first_tti: None,
            end,
            now: SimTime::ZERO,
        })
    }

    pub fn enb(&self) -> NodeId {
        self.enb
    }

    pub fn ue_nodes(&self) -> &[NodeId] {
        &self.ue_nodes
    }

    pub fn mtu_bytes(&self) -> u32 {
        self.mtu_bytes
    }

    fn ue_of(&self, node: NodeId) -> UeIndex {
        self.ue_of_node.get(node.index()).copied().flatten().expect("routes only name this cell's UEs")
    }

    /// A packet at `from` (the eNB or a UE) for `next` enters its radio bearer.
    pub fn enqueue(&mut self, now: SimTime, from: NodeId, next: NodeId, id: PacketId, ip_bytes: u32) -> CellEnqueued {
        self.now = now;
        let (ue, dir) =
            if from == self.enb { (self.ue_of(next), LinkDir::Downlink) } else { (self.ue_of(from), LinkDir::Uplink) };
        match self.ues[ue.index()].admit(now, dir, id, ip_bytes) {
            Ok(()) => {
                self.active.set(ue.index());
                // Data is buffered: the next TTI has work (admission starts no RLC timer).
                let tti = self.next_tti_after(now);
                if tti < self.end {
                    self.deadline = Some(self.deadline.map_or(tti, |d| d.min(tti)));
                }
                CellEnqueued::Accepted
            }
            Err(id) => CellEnqueued::Dropped(id),
        }
    }

    /// When the cell next needs the world to wake it, if ever.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.deadline
    }

    /// The next wake-up: a TTI if any UE has work, else the first RLC timer.
    fn refresh_deadline(&mut self) {
        let next_tti = self.active.any().then(|| self.next_tti_after(self.now));
        self.deadline = SimTime::earliest(next_tti, self.active.next_timer()).filter(|&t| t < self.end);
    }

    /// After UE `i` was visited: whether it still has work, and its RLC timers.
    fn track(&mut self, i: usize) {
        let busy = self.ues[i].needs_tti(self.now) || self.macs.uplink_busy(i);
        if busy {
            self.active.set(i);
        } else {
            self.active.clear(i);
        }
        self.active.set_timer(i, self.ues[i].rlc_deadline());
    }

    /// The first TTI boundary at or after `t` not yet processed.
    fn next_tti_after(&self, t: SimTime) -> SimTime {
        let boundary = SimTime(t.as_ns().div_ceil(NS_PER_MS) * NS_PER_MS);
        match self.last_tti {
            Some(last) if boundary <= last => last + TTI,
            _ => boundary,
        }
    }

    /// Run what is due at `now`: RLC timers, and the TTI if `now` is a TTI boundary.
    pub fn handle_timeout(&mut self, now: SimTime, out: &mut CellOutput) {
        self.now = now;
        if self.active.next_timer().is_some_and(|t| t <= now) {
            let mut due = std::mem::take(&mut self.list);
            self.active.due_timers(now, &mut due);
            for &i in &due {
                self.ues[i as usize].handle_rlc_timers(now, out);
                self.track(i as usize);
            }
            self.list = due;
        }
        if now.as_ns().is_multiple_of(NS_PER_MS) && self.last_tti.is_none_or(|l| now > l) {
            self.last_tti = Some(now);
            self.run_tti(now, out);
        }
        self.refresh_deadline();
    }

    /// IP bytes held in the cell (RLC buffers, HARQ, the air), for the conservation ledger.
    pub fn held_bytes(&self) -> u64 {
        self.ues.iter().map(UeContext::held_bytes).sum()
    }

    /// Close the books at the end of the run (the capacity of the TTIs since the last one run).
    pub fn finish(&mut self, end: SimTime) {
        for ue in &mut self.ues {
            ue.fill_idle_slots(SimTime(u64::MAX));
            for link in [&mut ue.dl, &mut ue.ul] {
                link.capacity.run_to(end, &mut link.slots);
            }
        }
    }

    /// The `lte` table rows of this cell.
    pub fn slots(&self) -> impl Iterator<Item = (&str, &str, &'static str, &LteSlots)> {
        self.ues.iter().zip(&self.ue_names).flat_map(move |(u, name)| {
            [("dl", &u.dl.slots), ("ul", &u.ul.slots)].map(|(d, s)| (self.name.as_str(), name.as_str(), d, s))
        })
    }
}

/// Where the cell's UEs get their SINR: the cell's channel model, or each UE's own source.
fn sinr_source(spec: &CellConfig, path: &str, n_rbs: u32, seed: u64) -> Result<Box<dyn SinrSource>, ScenarioError> {
    if let Some(channel) = &spec.channel {
        let placements: Vec<UePlacement> = spec
            .ues
            .iter()
            .map(|u| match &u.sinr {
                SinrSpec::Channel(p) => p.clone(),
                _ => unreachable!("validated: a cell with a channel has channel-placed UEs"),
            })
            .collect();
        let label = format!("cell:{}", spec.id);
        return Ok(Box::new(ChannelSinr::new(channel, &placements, seed, &label)?));
    }
    let sources = spec
        .ues
        .iter()
        .enumerate()
        .map(|(j, u)| {
            let streams = format!("cell:{}:ue:{}", spec.id, u.node);
            ue_sinr(&u.sinr, &format!("{path}.ues[{j}].sinr"), n_rbs, seed, &streams)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Box::new(PerUeSinr { ues: sources }))
}

/// A UE's SINR source from its spec (reads a CSV file named there).
fn ue_sinr(spec: &SinrSpec, path: &str, n_rbs: u32, seed: u64, streams: &str) -> Result<UeSinr, ScenarioError> {
    Ok(match spec {
        // Keyed by cell and UE names, like the UE's other streams.
        SinrSpec::Sweep(sweep) => UeSinr::Sweep(Box::new(SweepSinr::new(sweep, 1, seed, streams)?)),
        SinrSpec::Fixed { db, ul_db } => UeSinr::Fixed { dl_db: *db, ul_db: ul_db.unwrap_or(*db) },
        SinrSpec::Ramp { from_db, to_db, start_s, duration_s } => UeSinr::Ramp {
            from_db: *from_db,
            to_db: *to_db,
            start: SimTime::from_secs_f64(*start_s),
            end: SimTime::from_secs_f64(start_s + duration_s),
        },
        SinrSpec::Channel(_) => unreachable!("validated: channel-placed UEs are in a cell with a channel"),
        SinrSpec::Csv { file } => {
            let bad = |why: String| ScenarioError::new(format!("{path}.file"), format!("{file:?}"), why);
            let text = std::fs::read_to_string(file).map_err(|e| bad(format!("a readable SINR CSV file ({e})")))?;
            let series = SinrSeries::parse_csv(&text).map_err(|e| bad(format!("a SINR CSV ({e})")))?;
            if series.width() != 1 && series.width() != n_rbs as usize {
                return Err(bad(format!("1 SINR column or one per RB ({n_rbs}); the file has {}", series.width())));
            }
            UeSinr::Series(series)
        }
    })
}

#[cfg(test)]
mod tests;
