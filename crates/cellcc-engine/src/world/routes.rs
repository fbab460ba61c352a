//! Shortest-hop static routes: the first hop from each node towards each other node.
//!
//! A node with one way out (a host on its access link, a UE on its cell) sends everything it can
//! reach that way, so it keeps no row: only the nodes with several ways out (routers, eNBs, APs)
//! keep one, from a BFS. A row for every node was n x n entries, 12 MB written at build for the
//! 1000-UE cell's 1003 nodes (issue 34); the answers are the same.

use super::Hop;
use crate::sim::NodeId;
use std::collections::VecDeque;

/// A node's way to the others.
enum Exits {
    /// No way out: it reaches nothing.
    None,
    /// One way out, towards `next`: `hop` leads to every node `next` reaches, and to `next`.
    Via { hop: Hop, next: NodeId },
    /// Several: `row[dst]` is the first hop towards `dst` (`None`: unreachable, or the node itself).
    Row(Vec<Option<Hop>>),
}

pub(super) struct StaticRoutes {
    exits: Vec<Exits>,
}

impl StaticRoutes {
    /// From the `hops` (from, to, hop) of `n` nodes: a BFS from each node with several hops out;
    /// ties go to the hop listed first, so routes are deterministic.
    pub(super) fn new(n: usize, hops: &[(NodeId, NodeId, Hop)]) -> Self {
        // Each node's hops in the order listed: a BFS step reads its own, not every hop.
        let mut out_hops: Vec<Vec<(NodeId, Hop)>> = vec![Vec::new(); n];
        for &(from, to, hop) in hops {
            out_hops[from.index()].push((to, hop));
        }
        let mut seen = vec![false; n];
        let mut q = VecDeque::new();
        let exits = (0..n)
            .map(|src| match out_hops[src].as_slice() {
                [] => Exits::None,
                &[(next, hop)] => Exits::Via { hop, next },
                _ => Exits::Row(bfs_row(src, &out_hops, &mut seen, &mut q)),
            })
            .collect();
        StaticRoutes { exits }
    }

    /// The first hop from `src` towards `dst`, `None` if `dst` is `src` or unreachable from it: as
    /// a BFS from `src` finds it. Through a node with one way out the BFS reaches exactly what that
    /// way's next node reaches (and that node), followed here until a node with a row tells, or
    /// the chain of one-way nodes comes round without meeting `dst`.
    #[inline(always)]
    pub(super) fn first_hop(&self, src: NodeId, dst: NodeId) -> Option<Hop> {
        match &self.exits[src.index()] {
            Exits::None => None,
            Exits::Row(row) => row[dst.index()],
            &Exits::Via { hop, next } => self.first_hop_via(src, dst, hop, next),
        }
    }

    /// `first_hop` from `src`, whose one way out is `hop` to `next`: the chain of one-way nodes
    /// walked from `next`. Out of line, so that a router's row lookup above stays a few
    /// instructions in its callers (a host's own route is kept by its flow ends).
    #[inline(never)]
    fn first_hop_via(&self, src: NodeId, dst: NodeId, hop: Hop, next: NodeId) -> Option<Hop> {
        if dst == src {
            return None;
        }
        let mut at = next;
        // A chain of distinct nodes is at most as long as there are nodes.
        for _ in 0..self.exits.len() {
            if at == dst {
                return Some(hop);
            }
            match &self.exits[at.index()] {
                Exits::None => return None,
                Exits::Row(row) => return row[dst.index()].map(|_| hop),
                &Exits::Via { next, .. } => at = next,
            }
        }
        None
    }
}

/// The first hop from `src` towards every node, by a BFS over `out_hops`.
fn bfs_row(
    src: usize,
    out_hops: &[Vec<(NodeId, Hop)>],
    seen: &mut [bool],
    q: &mut VecDeque<usize>,
) -> Vec<Option<Hop>> {
    let mut row = vec![None; out_hops.len()];
    seen.fill(false);
    seen[src] = true;
    for &(to, hop) in &out_hops[src] {
        if !seen[to.index()] {
            seen[to.index()] = true;
            row[to.index()] = Some(hop);
            q.push_back(to.index());
        }
    }
    while let Some(u) = q.pop_front() {
        for &(to, _) in &out_hops[u] {
            if !seen[to.index()] {
                seen[to.index()] = true;
                row[to.index()] = row[u];
                q.push_back(to.index());
            }
        }
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::LinkId;

    /// Every pair's first hop against a full BFS from every node, on a graph with hosts, a
    /// router with parallel links, a one-way chain into a cycle, a two-node island and a node
    /// with no way out.
    #[test]
    fn first_hops_equal_a_bfs_from_every_node() {
        let n = 10;
        let edges: &[(u32, u32)] =
            &[(0, 1), (1, 0), (1, 2), (2, 1), (1, 2), (1, 3), (3, 4), (4, 5), (5, 3), (6, 7), (7, 6), (8, 1), (2, 9)];
        let hops: Vec<_> = edges
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| (NodeId(a), NodeId(b), Hop::Channel(LinkId(i as u32))))
            .collect();
        let routes = StaticRoutes::new(n, &hops);
        let mut out_hops: Vec<Vec<(NodeId, Hop)>> = vec![Vec::new(); n];
        for &(from, to, hop) in &hops {
            out_hops[from.index()].push((to, hop));
        }
        let (mut seen, mut q) = (vec![false; n], VecDeque::new());
        for src in 0..n {
            let row = bfs_row(src, &out_hops, &mut seen, &mut q);
            for (dst, want) in row.iter().enumerate() {
                assert_eq!(routes.first_hop(NodeId(src as u32), NodeId(dst as u32)), *want, "{src} -> {dst}");
            }
        }
    }
}
