//! One HARQ entity per UE per direction (TS 36.321 §5.3.2 downlink, §5.4.2 uplink).
//!
//! ```text
//!            transmitted(retx = 0)              on_feedback(Decoded)
//!   Idle ──────────────────────────► Waiting ───────────────────────► Idle   (Acked)
//!    ▲                                 │  ▲
//!    │ on_feedback(fail, retx = max)   │  │ transmitted(retx > 0)
//!    │ (ResidualLoss)                  │  │
//!    └─────────────────────────────────┤  Taken ◄── take_for_retransmission
//!                                      │             ▲
//!           on_feedback(fail, retx < max)            │
//!                                      └──► Queued ──┘   (Retransmit)
//! ```
//! A process keeps its TB's payload and the PHY's soft-combining history
//! (`phy::HarqHistory`) from the first transmission until an ACK or the last
//! failed retransmission, exactly as ns-3 LENA's `m_dlHarqProcessesRlcPduListBuffer`
//! keeps the RLC PDUs of each process (pf-ff-mac-scheduler.cc) and `LteHarqPhy`
//! keeps the MI history (lte-design.rst, "HARQ").
//!
//! The retransmission queue is a fixed array in NACK order, so the cell
//! retransmits the oldest failure first with no allocation.
//!
//! The entity is generic over the transport block it keeps (`T`: LTE's [`TbAssignment`] by
//! default, the NR cell's own), the PHY's combining history (`H`) and the number of processes
//! (`N`: 8 in LTE FDD, up to 16 in NR, TS 38.321 §5.3.2.1); the process states and the queue are
//! the same for both RATs.

use crate::lte::phy::HarqHistory;
use crate::lte::sap::{HarqId, TbAssignment, TbOutcome};

/// HARQ processes per UE per direction in FDD (TS 36.213 §7 downlink, §8 uplink: 8).
pub const N_HARQ_PROCESSES: u8 = 8;

/// What a HARQ process needs to know of the transport block it keeps.
pub trait HarqTb: Copy + std::fmt::Debug {
    /// The process the block was sent on.
    fn harq(&self) -> HarqId;
    /// 0 for a first transmission, then 1, 2, ...
    fn retx(&self) -> u8;
    /// The same block as its next retransmission (retransmission count + 1).
    fn next_retx(self) -> Self;
}

impl HarqTb for TbAssignment {
    fn harq(&self) -> HarqId {
        self.harq
    }
    fn retx(&self) -> u8 {
        self.retx
    }
    fn next_retx(self) -> Self {
        TbAssignment { retx: self.retx + 1, ..self }
    }
}

/// Retransmissions after the first transmission by default: ns-3 LENA's schedulers drop a
/// process once its redundancy version reached 3 ("maximum number of retx reached" in
/// pf/rr-ff-mac-scheduler.cc), i.e. 4 transmissions in all, as TS 36.331 maxHARQ-Tx n4.
pub const DEFAULT_MAX_RETX: u8 = 3;

/// What the MAC does with a TB after its ACK/NACK.
#[derive(Debug, PartialEq)]
pub enum Feedback<P> {
    /// Decoded: the process is idle again and the payload is dropped.
    Acked,
    /// Failed with retransmissions left: the process waits in the retransmission queue.
    Retransmit,
    /// Failed after the last retransmission: the payload goes back to RLC as lost.
    ResidualLoss(P),
}

/// The state of one HARQ process (TS 36.321 §5.3.2.2 / §5.4.2.2).
#[derive(Debug)]
enum Process<P, T, H> {
    /// No TB: free for a new transmission.
    Idle,
    /// A TB is in the air; its ACK/NACK has not come back.
    Waiting { tb: T, payload: P, history: H },
    /// NACKed with retransmissions left: `tb` is the assignment to repeat (retx incremented).
    Queued { tb: T, payload: P, history: H },
    /// The cell took the payload to retransmit it this TTI; `transmitted` follows.
    Taken,
}

/// The HARQ entity of one UE in one direction; `P` is the TB's payload, kept until ACK; `T` the
/// block's assignment, `H` the PHY's combining history, `N` the number of processes.
#[derive(Debug)]
pub struct HarqEntity<
    P,
    T: HarqTb = TbAssignment,
    H: Copy = HarqHistory,
    const N: usize = { N_HARQ_PROCESSES as usize },
> {
    max_retx: u8,
    processes: [Process<P, T, H>; N],
    /// Bit `k` set while process `k` is idle: the cell asks for a free process for every UE with
    /// work in every TTI, and scanning the processes (about a hundred bytes each) read a cache
    /// line per busy one (docs/performance.md, "The 19-site network's cells, second round").
    idle: u64,
    /// Process ids waiting for retransmission, oldest NACK first (`retx_len` are valid).
    retx_order: [HarqId; N],
    retx_len: usize,
}

impl<P, T: HarqTb, H: Copy, const N: usize> HarqEntity<P, T, H, N> {
    /// The idle mask with every process idle.
    const ALL_IDLE: u64 = u64::MAX >> (u64::BITS as usize - N);

    /// `max_retx`: retransmissions allowed after the first transmission (ns-3: 3).
    pub fn new(max_retx: u8) -> Self {
        assert!(N <= u64::BITS as usize, "{N} HARQ processes do not fit the idle mask");
        HarqEntity {
            max_retx,
            processes: std::array::from_fn(|_| Process::Idle),
            idle: Self::ALL_IDLE,
            retx_order: [HarqId(0); N],
            retx_len: 0,
        }
    }

    pub fn max_retx(&self) -> u8 {
        self.max_retx
    }

    /// An idle process, lowest id first (`None` when all are busy: the UE cannot get new data).
    pub fn free_process(&self) -> Option<HarqId> {
        debug_assert_eq!(
            self.processes.iter().position(|p| matches!(p, Process::Idle)),
            (self.idle != 0).then(|| self.idle.trailing_zeros() as usize),
            "the idle mask disagrees with the processes"
        );
        (self.idle != 0).then(|| HarqId(self.idle.trailing_zeros() as u8))
    }

    /// The idle processes, lowest id first (a cell that reserves processes ahead of their use,
    /// as the NR cell does from an uplink grant to its PUSCH, picks among them).
    pub fn idle_processes(&self) -> impl Iterator<Item = HarqId> + '_ {
        self.processes.iter().enumerate().filter(|(_, p)| matches!(p, Process::Idle)).map(|(i, _)| HarqId(i as u8))
    }

    /// Whether any process holds a TB (in the air, queued or taken): the cell is not idle.
    pub fn is_busy(&self) -> bool {
        self.idle != Self::ALL_IDLE
    }

    /// Whether any process waits for retransmission.
    pub fn has_pending_retransmissions(&self) -> bool {
        self.retx_len > 0
    }

    /// A TB went out on process `a.harq`: a new transmission (`a.retx == 0`, process idle) or a
    /// retransmission (process taken by [`Self::take_for_retransmission`]). The process now waits
    /// for feedback and keeps `payload` and the PHY `history`.
    pub fn transmitted(&mut self, a: &T, payload: P, history: H) {
        let slot = &mut self.processes[Self::slot(a.harq())];
        match (&*slot, a.retx()) {
            (Process::Idle, 0) => {}
            (Process::Taken, r) if r > 0 => {}
            (state, r) => panic!("HARQ process {:?}: transmitted(retx {r}) in state {}", a.harq(), state_name(state)),
        }
        *slot = Process::Waiting { tb: *a, payload, history };
        self.idle &= !(1 << Self::slot(a.harq()));
    }

    /// ACK/NACK for process `id` (TS 36.321 §5.3.2.2: a NACKed TB is retransmitted until the
    /// maximum number of transmissions, then the process is flushed).
    pub fn on_feedback(&mut self, id: HarqId, outcome: TbOutcome) -> Feedback<P> {
        let slot = &mut self.processes[Self::slot(id)];
        let Process::Waiting { tb, .. } = slot else {
            panic!("HARQ process {id:?}: feedback in state {}", state_name(slot));
        };
        let retx_left = tb.retx() < self.max_retx;
        let Process::Waiting { tb, payload, history } = std::mem::replace(slot, Process::Idle) else {
            unreachable!("matched Waiting above");
        };
        match outcome {
            TbOutcome::Decoded => {
                self.idle |= 1 << Self::slot(id);
                Feedback::Acked
            }
            TbOutcome::Corrupted | TbOutcome::ControlLost if retx_left => {
                *slot = Process::Queued { tb: tb.next_retx(), payload, history };
                self.retx_order[self.retx_len] = id;
                self.retx_len += 1;
                Feedback::Retransmit
            }
            TbOutcome::Corrupted | TbOutcome::ControlLost => {
                self.idle |= 1 << Self::slot(id);
                Feedback::ResidualLoss(payload)
            }
        }
    }

    /// Processes waiting for retransmission, oldest NACK first, as the assignment to repeat
    /// (same RBs, MCS and TBS; `retx` already incremented). No allocation.
    pub fn pending_retransmissions(&self) -> impl Iterator<Item = T> + '_ {
        self.retx_order[..self.retx_len].iter().map(|id| match &self.processes[Self::slot(*id)] {
            Process::Queued { tb, .. } => *tb,
            other => panic!("HARQ process {id:?} in the retransmission queue is {}", state_name(other)),
        })
    }

    /// Take the payload and PHY history of a queued process to retransmit it now;
    /// [`Self::transmitted`] with the repeated assignment must follow.
    pub fn take_for_retransmission(&mut self, id: HarqId) -> (P, H) {
        let pos = self.retx_order[..self.retx_len]
            .iter()
            .position(|q| *q == id)
            .unwrap_or_else(|| panic!("HARQ process {id:?} is not waiting for retransmission"));
        self.retx_order.copy_within(pos + 1..self.retx_len, pos);
        self.retx_len -= 1;
        match std::mem::replace(&mut self.processes[Self::slot(id)], Process::Taken) {
            Process::Queued { payload, history, .. } => (payload, history),
            other => panic!("HARQ process {id:?} queued for retransmission is {}", state_name(&other)),
        }
    }

    fn slot(id: HarqId) -> usize {
        assert!(usize::from(id.0) < N, "HARQ process {id:?} outside 0..{N}");
        id.0 as usize
    }
}

fn state_name<P, T, H>(p: &Process<P, T, H>) -> &'static str {
    match p {
        Process::Idle => "idle",
        Process::Waiting { .. } => "waiting for feedback",
        Process::Queued { .. } => "queued for retransmission",
        Process::Taken => "taken for retransmission",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::sap::{LinkDir, RbMask, UeIndex};

    fn tb(harq: u8, retx: u8) -> TbAssignment {
        TbAssignment {
            ue: UeIndex(0),
            dir: LinkDir::Downlink,
            rbs: RbMask::range(0, 4),
            mcs: 10,
            tbs_bits: 1544,
            harq: HarqId(harq),
            retx,
        }
    }

    #[test]
    fn free_process_is_lowest_idle_and_none_when_all_eight_busy() {
        let mut h: HarqEntity<u32> = HarqEntity::new(3);
        assert_eq!(h.free_process(), Some(HarqId(0)));
        for i in 0..N_HARQ_PROCESSES {
            assert_eq!(h.free_process(), Some(HarqId(i)));
            h.transmitted(&tb(i, 0), u32::from(i), HarqHistory::EMPTY);
        }
        assert_eq!(h.free_process(), None);
        assert_eq!(h.on_feedback(HarqId(5), TbOutcome::Decoded), Feedback::Acked);
        assert_eq!(h.free_process(), Some(HarqId(5)));
    }

    /// max_retx = 3: the first transmission and three retransmissions may fail; the 4th failure
    /// (of retransmission 3) is a residual loss that returns the payload.
    #[test]
    fn fourth_failure_with_max_retx_3_is_residual_loss() {
        let mut h: HarqEntity<&str> = HarqEntity::new(3);
        h.transmitted(&tb(0, 0), "tb", HarqHistory::EMPTY);
        for retx in 1..=3u8 {
            let outcome = if retx == 2 { TbOutcome::ControlLost } else { TbOutcome::Corrupted };
            assert_eq!(h.on_feedback(HarqId(0), outcome), Feedback::Retransmit);
            assert_eq!(h.free_process(), Some(HarqId(1)), "a queued process is not free");
            let again: Vec<_> = h.pending_retransmissions().collect();
            assert_eq!(again, vec![tb(0, retx)], "same RBs/MCS/TBS, retx incremented");
            let (payload, _) = h.take_for_retransmission(HarqId(0));
            assert_eq!(h.pending_retransmissions().count(), 0);
            h.transmitted(&again[0], payload, HarqHistory::EMPTY);
        }
        assert_eq!(h.on_feedback(HarqId(0), TbOutcome::Corrupted), Feedback::ResidualLoss("tb"));
        assert_eq!(h.free_process(), Some(HarqId(0)));
        assert!(!h.is_busy());
    }

    #[test]
    fn ack_after_a_retransmission_frees_the_process() {
        let mut h: HarqEntity<u8> = HarqEntity::new(3);
        h.transmitted(&tb(0, 0), 7, HarqHistory::EMPTY);
        assert_eq!(h.on_feedback(HarqId(0), TbOutcome::Corrupted), Feedback::Retransmit);
        let (p, _) = h.take_for_retransmission(HarqId(0));
        h.transmitted(&tb(0, 1), p, HarqHistory::EMPTY);
        assert_eq!(h.on_feedback(HarqId(0), TbOutcome::Decoded), Feedback::Acked);
        assert_eq!(h.free_process(), Some(HarqId(0)));
    }

    #[test]
    fn max_retx_0_loses_at_the_first_failure() {
        let mut h: HarqEntity<u8> = HarqEntity::new(0);
        h.transmitted(&tb(2, 0), 9, HarqHistory::EMPTY);
        assert_eq!(h.on_feedback(HarqId(2), TbOutcome::ControlLost), Feedback::ResidualLoss(9));
    }

    #[test]
    fn retransmissions_come_oldest_nack_first() {
        let mut h: HarqEntity<u8> = HarqEntity::new(3);
        for i in 0..3 {
            h.transmitted(&tb(i, 0), i, HarqHistory::EMPTY);
        }
        for i in [2, 0, 1] {
            assert_eq!(h.on_feedback(HarqId(i), TbOutcome::Corrupted), Feedback::Retransmit);
        }
        let order: Vec<u8> = h.pending_retransmissions().map(|a| a.harq.0).collect();
        assert_eq!(order, vec![2, 0, 1]);
        assert_eq!(h.take_for_retransmission(HarqId(0)).0, 0);
        let order: Vec<u8> = h.pending_retransmissions().map(|a| a.harq.0).collect();
        assert_eq!(order, vec![2, 1]);
    }

    #[test]
    #[should_panic(expected = "feedback in state idle")]
    fn feedback_for_an_idle_process_is_a_bug() {
        let mut h: HarqEntity<u8> = HarqEntity::new(3);
        h.on_feedback(HarqId(0), TbOutcome::Decoded);
    }
}
