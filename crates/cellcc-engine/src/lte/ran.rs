//! A radio access network as the world sees it: one cell on its own, or a network of cells on
//! a shared channel ([`super::network`]). Either is one medium: packets enter with `enqueue`,
//! it asks for wake-ups with `poll_timeout`, and hands back what it delivered and dropped.

use super::cell::{Cell, CellEnqueued, CellOutput, LteSlots};
use super::network::Network;
use crate::output::Table;
use crate::packet::PacketId;
use crate::sim::{NodeId, SimTime};

/// The `lte` table's rows of a medium: (cell, UE, direction, slots).
pub type LteRows<'a> = Vec<(&'a str, &'a str, &'static str, &'a LteSlots)>;

pub enum Ran {
    Cell(Box<Cell>),
    Network(Box<Network>),
}

impl Ran {
    pub fn enqueue(&mut self, now: SimTime, from: NodeId, next: NodeId, id: PacketId, ip_bytes: u32) -> CellEnqueued {
        match self {
            Ran::Cell(c) => c.enqueue(now, from, next, id, ip_bytes),
            Ran::Network(n) => n.enqueue(now, from, next, id, ip_bytes),
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            Ran::Cell(c) => c.poll_timeout(),
            Ran::Network(n) => n.poll_timeout(),
        }
    }

    pub fn handle_timeout(&mut self, now: SimTime, out: &mut CellOutput) {
        match self {
            Ran::Cell(c) => c.handle_timeout(now, out),
            Ran::Network(n) => n.handle_timeout(now, out),
        }
    }

    pub fn mtu_bytes(&self) -> u32 {
        match self {
            Ran::Cell(c) => c.mtu_bytes(),
            Ran::Network(n) => n.mtu_bytes(),
        }
    }

    /// The (eNB, UE) radio hops at the start, for the world's static routes.
    pub fn hops(&self) -> Vec<(NodeId, NodeId)> {
        match self {
            Ran::Cell(c) => c.ue_nodes().iter().map(|&ue| (c.enb(), ue)).collect(),
            Ran::Network(n) => n.initial_hops().collect(),
        }
    }

    /// A UE that may change cell: the eNB its traffic goes through now. `None` for a UE of a
    /// lone cell, or a node that is no UE of this network.
    pub fn routing_enb(&self, node: NodeId) -> Option<NodeId> {
        match self {
            Ran::Cell(_) => None,
            Ran::Network(n) => n.ue_index(node).map(|ue| n.routing_enb(ue)),
        }
    }

    /// Whether `node` is an eNB of a network (a packet there for one of its UEs enters the network).
    pub fn is_network_enb(&self, node: NodeId) -> bool {
        match self {
            Ran::Cell(_) => false,
            Ran::Network(n) => n.is_enb(node),
        }
    }

    pub fn held_bytes(&self) -> u64 {
        match self {
            Ran::Cell(c) => c.held_bytes(),
            Ran::Network(n) => n.held_bytes(),
        }
    }

    pub fn finish(&mut self, end: SimTime) {
        match self {
            Ran::Cell(c) => c.finish(end),
            Ran::Network(n) => n.finish(end),
        }
    }

    /// The `lte` table's rows, and the names a network's slots give their serving cell by.
    pub fn slots(&self) -> (LteRows<'_>, &[String]) {
        match self {
            Ran::Cell(c) => (c.slots().collect(), &[]),
            Ran::Network(n) => (n.slots(), n.cell_names()),
        }
    }

    /// The `handovers` table (a network's; none for a lone cell).
    pub fn handovers(&self) -> Option<Table> {
        match self {
            Ran::Cell(_) => None,
            Ran::Network(n) => Some(n.handovers_table()),
        }
    }
}
