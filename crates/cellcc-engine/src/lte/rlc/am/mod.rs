//! RLC AM entity (TS 36.322 §4.2.1.3, §5.1.3, §5.2): one bidirectional entity per
//! bearer end, a transmitting side ([`tx`]) and a receiving side ([`rx`]).
//!
//! ```text
//!  notify_tx_opportunity: STATUS (rx, if triggered and t-StatusProhibit idle)
//!                         > retransmission (tx, re-segmented to fit) > new AMD PDU (tx)
//!  receive_pdu: AMD PDU / segment -> rx (reorder, reassemble, poll -> STATUS trigger)
//!               STATUS PDU        -> tx (ACK frees, NACK -> retransmission, RETX_COUNT)
//!  timers: t-PollRetransmit (tx), t-Reordering and t-StatusProhibit (rx)
//! ```

mod ring;
mod rx;
mod tx;

use super::pdu::DataPdu;
use super::sn::SnSpace;
use super::um::saturate_u32;
use super::{AmConfig, RlcCounters, RlcEvents, RlcLevels, RlcPdu};
use crate::lte::sap::{BufferStatus, RlcSdu, SduId, TxOpportunity};
use crate::sim::{SimDuration, SimTime};

/// AM SN space: 10 bits, AM_Window_Size = 512 (TS 36.322 §6.2.2.3, §7.2).
pub(crate) const AM_SN: SnSpace = SnSpace::new(10);

/// One bearer end in AM.
#[derive(Clone, Debug)]
pub struct AmEntity {
    tx: tx::AmTx,
    rx: rx::AmRx,
    counters: RlcCounters,
    kept: KeptLevels,
}

/// [`AmEntity::levels`], kept: each call that changes the entity computes again the part it
/// changed, from the state it just used (in cache). A cell reads the levels of each UE with work
/// every TTI; in a network, computing them then loaded several cache lines of the entity's
/// state, out of cache after the other cells' TTIs (docs/performance.md, "Issue 34: the 19-site
/// network, ninth round"). Debug builds check the kept levels at every read.
#[derive(Clone, Debug, Default)]
struct KeptLevels {
    levels: RlcLevels,
    /// The transmitting side's timer (t-PollRetransmit) and the receiving side's earliest
    /// (t-Reordering, t-StatusProhibit): `levels.timer` is the earlier of the two.
    tx_timer: Option<SimTime>,
    rx_timer: Option<SimTime>,
}

impl AmEntity {
    pub fn new(c: &AmConfig) -> Self {
        let mut e = AmEntity {
            tx: tx::AmTx::new(c),
            rx: rx::AmRx::new(
                SimDuration::from_ms_f64(c.t_reordering_ms),
                SimDuration::from_ms_f64(c.t_status_prohibit_ms),
            ),
            counters: RlcCounters::default(),
            kept: KeptLevels::default(),
        };
        e.keep_all();
        e
    }

    pub fn transmit_sdu(&mut self, now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        let r = self.counters.count_admission(self.tx.push(now, sdu));
        self.keep_tx();
        r
    }

    /// New data with one AMD header per SDU estimated in, the retransmissions queued
    /// (with segment headers), and the STATUS PDU if one may be sent now.
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        BufferStatus {
            tx_queue_bytes: self.tx_queue_bytes(),
            tx_queue_hol_delay: self.tx.buf.hol_delay(now),
            retx_queue_bytes: saturate_u32(self.tx.retx_queue_bytes()),
            status_pdu_bytes: if self.rx.status_due(now) { self.rx.status_estimate_bytes() } else { 0 },
        }
    }

    /// New data with one AMD header per SDU estimated in.
    fn tx_queue_bytes(&self) -> u32 {
        let headers = self.tx.buf.sdus() as u64 * u64::from(super::pdu::AMD_HEADER_BYTES);
        saturate_u32(self.tx.buf.bytes() + headers)
    }

    /// New data (headers estimated in) and the retransmissions queued: all but the STATUS PDU.
    fn data_bytes(&self) -> u32 {
        self.tx_queue_bytes() + saturate_u32(self.tx.retx_queue_bytes())
    }

    /// New data or a retransmission waits.
    fn has_pdu_data(&self) -> bool {
        !self.tx.buf.is_empty() || self.tx.retx_queue_bytes() > 0
    }

    /// [`Self::buffer_status`]'s total.
    pub fn buffered_bytes(&self, now: SimTime) -> u32 {
        let status = if self.rx.status_due(now) { self.rx.status_estimate_bytes() } else { 0 };
        self.data_bytes() + status
    }

    /// What a cell reads every TTI, as of now ([`RlcLevels`]).
    pub fn levels(&self) -> RlcLevels {
        debug_assert_eq!(self.kept.levels, self.current_levels(), "a change left the levels behind");
        self.kept.levels
    }

    /// The kept levels' transmitting side (new data, retransmissions, SDU bytes held,
    /// t-PollRetransmit) and counters, after a change of the transmitting side only.
    fn keep_tx(&mut self) {
        let (data_bytes, has_data, sdu_bytes) = self.tx_levels();
        let l = &mut self.kept.levels;
        (l.data_bytes, l.has_data, l.sdu_bytes) = (data_bytes, has_data, sdu_bytes);
        self.kept.tx_timer = self.tx.poll_retransmit_expiry;
        self.keep_counters_and_timer();
    }

    /// The kept levels' receiving side (the STATUS PDU, t-Reordering, t-StatusProhibit) and
    /// counters, after a change of the receiving side only.
    fn keep_rx(&mut self) {
        self.kept.levels.status = self.status_level();
        self.kept.rx_timer = self.rx_timer();
        self.keep_counters_and_timer();
    }

    /// Both sides' kept levels.
    fn keep_all(&mut self) {
        self.keep_tx();
        self.keep_rx();
    }

    /// The kept levels' counters and timer (every change counts something).
    fn keep_counters_and_timer(&mut self) {
        let (retransmitted, changes) = (self.counters.data_pdus_retransmitted, self.counters.buffer_changes());
        let kept = &mut self.kept;
        kept.levels.data_pdus_retransmitted = retransmitted;
        kept.levels.buffer_changes = changes;
        kept.levels.timer = SimTime::earliest(kept.tx_timer, kept.rx_timer);
    }

    /// [`Self::levels`] from the entity's state.
    fn current_levels(&self) -> RlcLevels {
        let (data_bytes, has_data, sdu_bytes) = self.tx_levels();
        RlcLevels {
            data_bytes,
            has_data,
            status: self.status_level(),
            sdu_bytes,
            data_pdus_retransmitted: self.counters.data_pdus_retransmitted,
            buffer_changes: self.counters.buffer_changes(),
            timer: self.poll_timeout(),
        }
    }

    /// The levels' transmitting side: new data and retransmissions (headers estimated in),
    /// whether either waits, and the SDU bytes held.
    fn tx_levels(&self) -> (u32, bool, u64) {
        (self.data_bytes(), self.has_pdu_data(), self.buffered_sdu_bytes())
    }

    /// The levels' STATUS PDU: from when it may be sent, and its size, if one is triggered.
    fn status_level(&self) -> Option<(SimTime, u32)> {
        self.rx.status_due_from().map(|from| (from, self.rx.status_estimate_bytes()))
    }

    /// The receiving side's earliest timer (t-Reordering, t-StatusProhibit).
    fn rx_timer(&self) -> Option<SimTime> {
        SimTime::earliest(self.rx.reordering_expiry, self.rx.status_prohibit_expiry)
    }

    /// The retransmission queue's running totals agree with a walk of the window (tests).
    #[cfg(test)]
    pub(crate) fn retx_totals_consistent(&self) -> bool {
        self.tx.retx_queue_bytes() == self.tx.retx_queue_bytes_walked()
    }

    /// New data, a retransmission or a STATUS PDU waits ([`Self::buffer_status`] non-empty).
    pub fn has_data(&self, now: SimTime) -> bool {
        self.has_pdu_data() || self.rx.status_due(now)
    }

    /// §5.1.3.1.1: control PDUs first, then retransmissions, then new data; the PDU is pushed
    /// onto `out` (whether one was).
    pub fn notify_tx_opportunity(&mut self, opp: TxOpportunity, ev: &mut RlcEvents, out: &mut Vec<RlcPdu>) -> bool {
        if self.rx.status_due(opp.now) {
            if let Some(st) = self.rx.build_status(opp.now, opp.bytes) {
                self.counters.status_pdus_sent += 1;
                out.push(RlcPdu::Status(st));
                self.keep_rx();
                return true;
            }
        }
        let built = self.tx.build(opp.now, opp.bytes, &mut self.counters, ev, out);
        self.keep_tx();
        built
    }

    pub fn receive_pdu(&mut self, now: SimTime, pdu: RlcPdu, ev: &mut RlcEvents) {
        match pdu {
            RlcPdu::Data(d) => {
                self.counters.data_pdus_received += 1;
                if !self.rx.on_data(now, d, ev) {
                    self.counters.duplicate_pdus_received += 1;
                }
                self.sync_finished();
                self.keep_rx();
            }
            RlcPdu::Status(st) => {
                self.counters.status_pdus_received += 1;
                self.tx.on_status(&st, &mut self.counters, ev);
                self.sync_finished();
                self.keep_tx();
            }
        }
    }

    /// The lower layer lost a PDU for good: ARQ recovers it, nothing to do here but keep its list.
    pub fn notify_pdu_lost(&mut self, _now: SimTime, pdu: RlcPdu, ev: &mut RlcEvents) {
        if let RlcPdu::Data(d) = pdu {
            ev.recycle(d.segments);
        }
    }

    /// The peer's transmitter gave `pdu` up at maxRetxThreshold (it came out of the
    /// peer's [`RlcEvents::abandoned`]): move past it and discard its SDUs.
    pub fn notify_peer_abandoned(&mut self, now: SimTime, pdu: DataPdu, ev: &mut RlcEvents) {
        self.rx.on_abandoned(now, pdu, ev);
        self.sync_finished();
        self.keep_rx();
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        SimTime::earliest(self.tx.poll_retransmit_expiry, self.rx_timer())
    }

    pub fn handle_timeout(&mut self, now: SimTime, ev: &mut RlcEvents) {
        if self.rx.reordering_expiry.is_some_and(|t| t <= now) {
            self.rx.on_reordering_expiry(now);
        }
        if self.rx.status_prohibit_expiry.is_some_and(|t| t <= now) {
            self.rx.on_status_prohibit_expiry();
        }
        if self.tx.poll_retransmit_expiry.is_some_and(|t| t <= now) {
            self.tx.on_poll_retransmit_expiry(&mut self.counters, ev);
        }
        self.sync_finished();
        self.keep_all();
    }

    /// TS 36.322 §5.4: the receiving side delivers the SDUs it can reassemble from the PDUs
    /// below VR(MR) and discards the rest; every SDU not yet acknowledged comes back.
    pub fn reestablish(mut self, ev: &mut RlcEvents) -> Vec<super::HeldSdu> {
        self.rx.reestablish(ev);
        self.tx.held()
    }

    pub fn counters(&self) -> &RlcCounters {
        &self.counters
    }

    /// Unsent SDU bytes plus the data bytes of AMD PDUs not yet acknowledged.
    pub fn buffered_sdu_bytes(&self) -> u64 {
        self.tx.buf.bytes() + self.tx.unacked_bytes()
    }

    /// Data bytes pending retransmission.
    pub fn retx_pending_bytes(&self) -> u64 {
        self.tx.retx_bytes()
    }

    fn sync_finished(&mut self) {
        self.counters.sdus_delivered = self.rx.finished.delivered;
        self.counters.sdus_discarded = self.rx.finished.discarded;
    }
}
