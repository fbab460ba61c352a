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

#[cfg(debug_assertions)]
use super::harq_feedback::HarqFeedbacks;
use super::ue::{RadioLink, UeContext};
#[cfg(debug_assertions)]
use super::UeSlots;
use crate::lte::sap::LinkDir;
use crate::sim::SimTime;

/// One UE's air state: what its two radio links hold, as of the last change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct AirState {
    /// The first decoded TB due to reach its receiving RLC entity, either direction.
    next_arrival: Option<SimTime>,
    /// The first HARQ feedback due to reach its transmitter, either direction.
    next_feedback: Option<SimTime>,
    /// Per direction (downlink, uplink): HARQ processes wait for retransmission.
    retx_queued: [bool; 2],
    /// Synchronous uplink retransmissions are scheduled.
    ul_retx_scheduled: bool,
    /// MAC PDUs built on uplink grants wait for their PUSCH (`mac.pipeline = "lena"`).
    ul_built: bool,
    /// Per direction (downlink, uplink): a HARQ process is free for a new TB.
    harq_free: [bool; 2],
}

impl AirState {
    /// What `ue`'s links hold now, its next HARQ feedback due at `next_feedback`.
    fn of(ue: &UeContext, next_feedback: Option<SimTime>) -> Self {
        AirState {
            next_arrival: SimTime::earliest(front_arrival(&ue.dl), front_arrival(&ue.ul)),
            next_feedback,
            retx_queued: [ue.dl.harq.has_pending_retransmissions(), ue.ul.harq.has_pending_retransmissions()],
            ul_retx_scheduled: !ue.ul.synchronous_retx.is_empty(),
            ul_built: !ue.ul.built.is_empty(),
            harq_free: [ue.dl.harq.free_process().is_some(), ue.ul.harq.free_process().is_some()],
        }
    }

    /// Anything on the air or awaiting feedback or retransmission, either link
    /// (`RadioLink::busy`; the downlink neither builds PDUs ahead nor retransmits synchronously).
    fn busy(&self) -> bool {
        self.next_arrival.is_some()
            || self.next_feedback.is_some()
            || self.retx_queued != [false; 2]
            || self.ul_retx_scheduled
            || self.ul_built
    }
}

/// When `link`'s first decoded TB reaches its receiving RLC entity.
fn front_arrival(link: &RadioLink) -> Option<SimTime> {
    link.arrivals.front().map(|a| a.0)
}

/// Per UE index, its [`AirState`] (idle for a UE not attached).
pub(super) struct AirStates(Vec<AirState>);

impl AirStates {
    /// The air states of `n_ues` UE indices, all idle (an attached UE's is [`Self::refresh`]ed).
    pub(super) fn new(n_ues: usize) -> Self {
        AirStates(vec![AirState::default(); n_ues])
    }

    /// UE `i`'s links changed (or it joined with `ue`): read them again; its next HARQ feedback
    /// is due at `next_feedback` (the cell's [`super::harq_feedback::HarqFeedbacks`]).
    pub(super) fn refresh(&mut self, i: usize, ue: &UeContext, next_feedback: Option<SimTime>) {
        self.0[i] = AirState::of(ue, next_feedback);
    }

    /// A TB of UE `i` on `dir` was decoded (or not) at the end of its TTI: its reception, if
    /// decoded, is due at `arrival` and its feedback at `feedback_at`; `link` is the link after.
    /// Only what a decode changes is read again, from the link it touched (a network cell decodes
    /// after every other cell scheduled: the UE's other link is no longer in the cache).
    pub(super) fn decoded(
        &mut self,
        i: usize,
        dir: LinkDir,
        arrival: Option<SimTime>,
        feedback_at: SimTime,
        link: &RadioLink,
    ) {
        let s = &mut self.0[i];
        // Each link's receptions and feedback are queued in time order: a later one leaves the
        // earliest as it was.
        s.next_arrival = SimTime::earliest(s.next_arrival, arrival);
        s.next_feedback = SimTime::earliest(s.next_feedback, Some(feedback_at));
        s.harq_free[dir.index()] = link.harq.free_process().is_some();
    }

    /// UE `i`'s receptions due were handed to its RLC entities: only the next reception moved.
    pub(super) fn arrivals_delivered(&mut self, i: usize, ue: &UeContext) {
        self.0[i].next_arrival = SimTime::earliest(front_arrival(&ue.dl), front_arrival(&ue.ul));
    }

    /// A HARQ process of UE `i` on `dir` was taken for retransmission (`link` the link after).
    pub(super) fn retransmission_taken(&mut self, i: usize, dir: LinkDir, link: &RadioLink) {
        self.0[i].retx_queued[dir.index()] = link.harq.has_pending_retransmissions();
    }

    /// Debug builds (every test): each attached UE's state is what its links hold, so a change
    /// the cell made without [`Self::refresh`] fails the test that made it.
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, ues: &UeSlots, feedback: &HarqFeedbacks) {
        for (i, ue) in ues.attached() {
            let next_feedback = feedback.next_at(i);
            assert_eq!(self.0[i], AirState::of(ue, next_feedback), "UE {i}'s air state was not refreshed");
            let busy = ue.dl.busy() || ue.ul.busy() || next_feedback.is_some();
            assert_eq!(self.0[i].busy(), busy, "UE {i}'s air state misses what keeps it busy");
        }
    }

    /// UE `i` left the cell: nothing of it is on this cell's air.
    pub(super) fn forget(&mut self, i: usize) {
        self.0[i] = AirState::default();
    }

    /// A decoded TB of UE `i` is due to reach its RLC entity by `now`.
    pub(super) fn arrival_due(&self, i: usize, now: SimTime) -> bool {
        self.0[i].next_arrival.is_some_and(|t| t <= now)
    }

    /// HARQ feedback of UE `i` is due by `now`.
    pub(super) fn feedback_due(&self, i: usize, now: SimTime) -> bool {
        self.0[i].next_feedback.is_some_and(|t| t <= now)
    }

    /// When UE `i`'s next decoded TB reaches its RLC entity.
    pub(super) fn next_arrival(&self, i: usize) -> Option<SimTime> {
        self.0[i].next_arrival
    }

    pub(super) fn dl_retx_queued(&self, i: usize) -> bool {
        self.0[i].retx_queued[LinkDir::Downlink.index()]
    }

    pub(super) fn ul_retx_scheduled(&self, i: usize) -> bool {
        self.0[i].ul_retx_scheduled
    }

    /// Whether UE `i` has a HARQ process free for a new TB of `dir`.
    pub(super) fn harq_free(&self, i: usize, dir: LinkDir) -> bool {
        self.0[i].harq_free[dir.index()]
    }

    pub(super) fn busy(&self, i: usize) -> bool {
        self.0[i].busy()
    }
}
