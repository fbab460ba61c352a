//! What each UE has on the air, summarised beside the UE contexts.
//!
//! A TTI runs several passes over its UEs with work (receptions, HARQ feedback, downlink and
//! synchronous uplink retransmissions, who still has work, the next reception for the deadline),
//! and each asked the UE's boxed context, several KB per UE, whether it had anything due. In a
//! cell of a thousand backlogged UEs nearly all of them have nothing due in nearly every TTI,
//! and `perf annotate` put the hottest instructions of `begin_tti` and `RadioLink::busy` on the
//! first load of each context's link (docs/performance.md, "The UEs' air state beside the
//! contexts"). [`AirStates`] keeps the answers in one dense array indexed by UE, rewritten from
//! the context whenever the cell changes what the UE has on the air, so those passes read a few
//! bytes per UE and touch the context only of a UE with something due.

use super::ue::{RadioLink, UeContext};
use super::UeSlots;
use crate::lte::sap::LinkDir;
use crate::sim::SimTime;

/// A time that never comes: an empty queue's front (kept as a plain `u64` so that a UE's state
/// stays within one cache line).
const NEVER_NS: u64 = u64::MAX;

/// What one of a UE's radio links holds, as of its last change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LinkAir {
    /// When the first decoded TB reaches its receiving RLC entity, ns ([`NEVER_NS`]: none).
    next_arrival_ns: u64,
    /// When the first HARQ feedback reaches the transmitter, ns ([`NEVER_NS`]: none).
    next_feedback_ns: u64,
    /// HARQ processes wait for retransmission.
    retx_queued: bool,
    /// Synchronous retransmissions are scheduled (the uplink's).
    retx_scheduled: bool,
    /// MAC PDUs built on grants wait for their PUSCH (the uplink's, `mac.pipeline = "lena"`).
    built: bool,
    /// A HARQ process is free for a new TB.
    harq_free: bool,
}

impl Default for LinkAir {
    /// A link with nothing on the air (a UE not attached).
    fn default() -> Self {
        LinkAir {
            next_arrival_ns: NEVER_NS,
            next_feedback_ns: NEVER_NS,
            retx_queued: false,
            retx_scheduled: false,
            built: false,
            harq_free: false,
        }
    }
}

impl LinkAir {
    /// What `link` holds now.
    fn of(link: &RadioLink) -> Self {
        LinkAir {
            next_arrival_ns: link.arrivals.front().map_or(NEVER_NS, |a| a.0.as_ns()),
            next_feedback_ns: link.feedback.front().map_or(NEVER_NS, |f| f.at.as_ns()),
            retx_queued: link.harq.has_pending_retransmissions(),
            retx_scheduled: !link.synchronous_retx.is_empty(),
            built: !link.built.is_empty(),
            harq_free: link.harq.free_process().is_some(),
        }
    }

    /// Anything on the air or awaiting feedback or retransmission (`RadioLink::busy`).
    fn busy(&self) -> bool {
        self.next_arrival_ns != NEVER_NS
            || self.next_feedback_ns != NEVER_NS
            || self.retx_queued
            || self.retx_scheduled
            || self.built
    }
}

/// One UE's air state: its downlink's and its uplink's. Each link's part is read from that link
/// alone: a network cell decodes after every other cell scheduled, and what the UE's other link
/// held is no longer in the cache (docs/performance.md, "The 19-site network's cells, second
/// round").
type AirState = [LinkAir; 2];

/// What `ue`'s links hold now.
fn air_of(ue: &UeContext) -> AirState {
    [LinkAir::of(&ue.dl), LinkAir::of(&ue.ul)]
}

/// Per UE index, its [`AirState`] (idle for a UE not attached).
pub(super) struct AirStates(Vec<AirState>);

impl AirStates {
    /// The air states of `ues`, by UE index.
    pub(super) fn new(ues: &UeSlots) -> Self {
        let mut states = AirStates(vec![AirState::default(); ues.len()]);
        for (i, ue) in ues.attached() {
            states.refresh(i, ue);
        }
        states
    }

    /// UE `i` joined the cell with `ue`, or the cell changed both its links: read them again.
    pub(super) fn refresh(&mut self, i: usize, ue: &UeContext) {
        self.0[i] = air_of(ue);
    }

    /// The cell changed UE `i`'s link `dir` (a TB sent, decoded or delivered, feedback handled,
    /// a retransmission taken, a PDU built): read that link again.
    pub(super) fn link_changed(&mut self, i: usize, dir: LinkDir, link: &RadioLink) {
        self.0[i][dir_index(dir)] = LinkAir::of(link);
    }

    /// Debug builds (every test): each attached UE's state is what its links hold, so a change
    /// the cell made without refreshing it fails the test that made it.
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, ues: &UeSlots) {
        for (i, ue) in ues.attached() {
            assert_eq!(self.0[i], air_of(ue), "UE {i}'s air state was not refreshed");
            assert_eq!(self.busy(i), ue.dl.busy() || ue.ul.busy(), "UE {i}'s air state misses what keeps it busy");
        }
    }

    /// UE `i` left the cell: nothing of it is on this cell's air.
    pub(super) fn forget(&mut self, i: usize) {
        self.0[i] = AirState::default();
    }

    /// A decoded TB of UE `i` on `dir` is due to reach its RLC entity by `now`.
    pub(super) fn arrival_due_on(&self, i: usize, dir: LinkDir, now: SimTime) -> bool {
        self.0[i][dir_index(dir)].next_arrival_ns <= now.as_ns()
    }

    /// A decoded TB of UE `i` is due to reach its RLC entity by `now`, either direction.
    pub(super) fn arrival_due(&self, i: usize, now: SimTime) -> bool {
        self.0[i].iter().any(|l| l.next_arrival_ns <= now.as_ns())
    }

    /// HARQ feedback of UE `i` on `dir` is due by `now`.
    pub(super) fn feedback_due_on(&self, i: usize, dir: LinkDir, now: SimTime) -> bool {
        self.0[i][dir_index(dir)].next_feedback_ns <= now.as_ns()
    }

    /// HARQ feedback of UE `i` is due by `now`, either direction.
    pub(super) fn feedback_due(&self, i: usize, now: SimTime) -> bool {
        self.0[i].iter().any(|l| l.next_feedback_ns <= now.as_ns())
    }

    /// When UE `i`'s next decoded TB reaches its RLC entity.
    pub(super) fn next_arrival(&self, i: usize) -> Option<SimTime> {
        let ns = self.0[i].iter().map(|l| l.next_arrival_ns).min().unwrap_or(NEVER_NS);
        (ns != NEVER_NS).then_some(SimTime(ns))
    }

    pub(super) fn dl_retx_queued(&self, i: usize) -> bool {
        self.0[i][dir_index(LinkDir::Downlink)].retx_queued
    }

    pub(super) fn ul_retx_scheduled(&self, i: usize) -> bool {
        self.0[i][dir_index(LinkDir::Uplink)].retx_scheduled
    }

    /// Whether UE `i` has a HARQ process free for a new TB of `dir`.
    pub(super) fn harq_free(&self, i: usize, dir: LinkDir) -> bool {
        self.0[i][dir_index(dir)].harq_free
    }

    pub(super) fn busy(&self, i: usize) -> bool {
        self.0[i].iter().any(LinkAir::busy)
    }
}

/// The index of `dir` in a (downlink, uplink) pair.
fn dir_index(dir: LinkDir) -> usize {
    match dir {
        LinkDir::Downlink => 0,
        LinkDir::Uplink => 1,
    }
}
