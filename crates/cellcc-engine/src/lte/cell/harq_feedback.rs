//! HARQ feedback in flight, per UE and direction, in one array the cell indexes by UE.
//!
//! A TB's decode queues its ACK/NACK, the TTI four subframes later hands it to the transmitter
//! (TS 36.213 §10.1), and the air state reads the next one after every change. Each link kept
//! its queue in the UE's boxed context (a `VecDeque`: its header in the link, its items in a heap
//! block of their own); in a network cell every TTI of the other cells evicts both between a
//! cell's decodes and its feedback pass, so each feedback cost two first loads at the push and
//! two at the pop (docs/performance.md, "Issue 34: the 19-site network, fifth round").
//! [`HarqFeedbacks`] keeps each link's feedback in a fixed ring beside the other UEs' of the
//! cell: at most one per HARQ process is in flight (a TB holds its process until its feedback is
//! handled), so [`N_HARQ_PROCESSES`] entries always suffice.

use crate::lte::mac::harq::N_HARQ_PROCESSES;
use crate::lte::sap::{HarqId, LinkDir, TbOutcome};
use crate::sim::SimTime;

/// HARQ feedback on its way to the transmitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feedback {
    /// When it reaches the transmitter.
    pub at: SimTime,
    pub harq: HarqId,
    pub outcome: TbOutcome,
    /// It answers a first transmission.
    pub first_tx: bool,
}

/// Entries of a ring: one per HARQ process.
const RING_LEN: usize = N_HARQ_PROCESSES as usize;

/// An unused ring entry.
const UNUSED: Feedback = Feedback { at: SimTime::ZERO, harq: HarqId(0), outcome: TbOutcome::Decoded, first_tx: false };

/// One link's feedback in flight, in the order queued (which is the order due: every TB of a
/// link waits the same delay).
#[derive(Clone, Copy, Debug)]
struct Ring {
    items: [Feedback; RING_LEN],
    head: u8,
    len: u8,
}

impl Ring {
    const EMPTY: Ring = Ring { items: [UNUSED; RING_LEN], head: 0, len: 0 };

    fn front(&self) -> Option<&Feedback> {
        (self.len > 0).then(|| &self.items[usize::from(self.head)])
    }
}

/// Per UE index, `[downlink, uplink]` feedback in flight (none for a UE not attached).
pub(super) struct HarqFeedbacks(Vec<[Ring; 2]>);

impl HarqFeedbacks {
    pub(super) fn new(n_ues: usize) -> Self {
        HarqFeedbacks(vec![[Ring::EMPTY; 2]; n_ues])
    }

    /// Queue feedback `f` on UE `i`'s link `dir`.
    pub(super) fn push(&mut self, i: usize, dir: LinkDir, f: Feedback) {
        let ring = &mut self.0[i][dir.index()];
        assert!(usize::from(ring.len) < RING_LEN, "UE {i}: more feedback in flight than HARQ processes");
        ring.items[(usize::from(ring.head) + usize::from(ring.len)) % RING_LEN] = f;
        ring.len += 1;
    }

    /// The next feedback of UE `i`'s link `dir` due by `now`, taken.
    pub(super) fn pop_due(&mut self, i: usize, dir: LinkDir, now: SimTime) -> Option<Feedback> {
        let ring = &mut self.0[i][dir.index()];
        let f = *ring.front().filter(|f| f.at <= now)?;
        ring.head = ((usize::from(ring.head) + 1) % RING_LEN) as u8;
        ring.len -= 1;
        Some(f)
    }

    /// When UE `i`'s next feedback (either link) is due.
    pub(super) fn next_at(&self, i: usize) -> Option<SimTime> {
        let [dl, ul] = &self.0[i];
        SimTime::earliest(dl.front().map(|f| f.at), ul.front().map(|f| f.at))
    }

    /// UE `i` left the cell (a handover command): its feedback was this cell's HARQ processes'.
    pub(super) fn forget(&mut self, i: usize) {
        self.0[i] = [Ring::EMPTY; 2];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fb(at_ms: u64, harq: u8) -> Feedback {
        Feedback { at: SimTime(at_ms * crate::sim::NS_PER_MS), harq: HarqId(harq), ..UNUSED }
    }

    #[test]
    fn feedback_comes_out_in_order_when_due_across_the_ring_end() {
        let mut q = HarqFeedbacks::new(2);
        let n = RING_LEN as u64;
        // Feedback k due at k + 1 ms; twice round the ring, keeping it full: each pop frees the
        // entry the next push reuses.
        for k in 0..n {
            q.push(1, LinkDir::Uplink, fb(k + 1, k as u8));
        }
        for k in 0..2 * n {
            let due = fb(k + 1, 0).at;
            assert_eq!(q.pop_due(1, LinkDir::Uplink, SimTime(due.as_ns() - 1)), None, "feedback {k} not due yet");
            assert_eq!(q.pop_due(1, LinkDir::Uplink, due), Some(fb(k + 1, k as u8)));
            q.push(1, LinkDir::Uplink, fb(k + n + 1, (k + n) as u8));
        }
        assert_eq!(q.next_at(1), Some(fb(2 * n + 1, 0).at));
        assert_eq!(q.next_at(0), None, "the other UE's and the other link's stay empty");
        q.forget(1);
        assert_eq!(q.next_at(1), None);
    }

    #[test]
    #[should_panic(expected = "more feedback in flight than HARQ processes")]
    fn a_ninth_feedback_in_flight_is_refused() {
        let mut q = HarqFeedbacks::new(1);
        for k in 0..=RING_LEN as u64 {
            q.push(0, LinkDir::Downlink, fb(k, 0));
        }
    }
}
