//! RLC (TS 36.322): transparent, unacknowledged and acknowledged modes.
//!
//! One [`Rlc`] per bearer and end (eNB or UE). Each entity is bidirectional
//! as ns-3 LENA's `LteRlc`: it transmits SDUs the PDCP gives it and receives
//! the PDUs the peer sent (TS 36.322 §4.2.1: an AM entity has both sides; a
//! TM/UM "entity" here is the transmitting entity of one direction paired
//! with the receiving entity of the other).
//!
//! ```text
//!  transmit_sdu ─► tx buffer ─► notify_tx_opportunity ─► RlcPdu ─► MAC ... peer.receive_pdu
//!                                 ▲ (AM: STATUS, retx first)             │ reorder, reassemble
//!  buffer_status ◄── sizes        │                                      ▼
//!  poll_timeout / handle_timeout ─┘ t-Reordering, t-PollRetransmit,   ev.delivered / ev.discarded
//!                                   t-StatusProhibit
//! ```
//! Layers exchange descriptors ([`pdu`]), never bytes.

pub mod am;
pub mod config;
pub mod pdu;
mod reassembly;
pub mod sn;
pub mod tm;
mod txbuf;
pub mod um;

pub use config::{
    AmConfig, AmSpec, MaxRetxAction, RlcConfig, RlcMode, RlcSpec, TmConfig, TmSpec, UmConfig, UmSpec,
    DEFAULT_TX_BUFFER_BYTES, LENA_TX_BUFFER_BYTES,
};
pub use pdu::{DataPdu, DataPduKind, Nack, ResegmentInfo, RlcPdu, SduSegment, SegmentList, StatusPdu};

use crate::lte::sap::{BufferStatus, RlcSdu, SduId, TxOpportunity};
use crate::sim::SimTime;

/// Running totals of one entity (both directions), for the cell's time series.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RlcCounters {
    /// SDUs accepted into the transmission buffer.
    pub sdus_accepted: u64,
    /// SDUs refused because the transmission buffer was full.
    pub sdus_refused: u64,
    /// Data PDUs sent for the first time.
    pub data_pdus_sent: u64,
    /// Data PDUs (or segments of them) retransmitted (AM).
    pub data_pdus_retransmitted: u64,
    /// STATUS PDUs sent (AM).
    pub status_pdus_sent: u64,
    /// Data PDUs received.
    pub data_pdus_received: u64,
    /// Received data PDUs that carried nothing new (duplicates, outside the window).
    pub duplicate_pdus_received: u64,
    /// STATUS PDUs received (AM).
    pub status_pdus_received: u64,
    /// SDUs delivered in order to PDCP.
    pub sdus_delivered: u64,
    /// SDUs given up on (reported in [`RlcEvents::discarded`]).
    pub sdus_discarded: u64,
    /// AMD PDUs that reached maxRetxThreshold (AM).
    pub max_retx_reached: u64,
}

impl RlcCounters {
    /// How many times the transmitting side's holding changed: SDUs in, PDUs out (new, resent,
    /// STATUS). ns-3 LENA's RLC reports its buffer to the MAC on each (`DoReportBufferStatus`),
    /// which sends a BSR in the next subframe even when the level reads as before.
    pub fn buffer_changes(&self) -> u64 {
        self.sdus_accepted + self.data_pdus_sent + self.data_pdus_retransmitted + self.status_pdus_sent
    }

    /// Count the outcome of a PDCP -> RLC hand-over (accepted, or refused by a full buffer).
    pub fn count_admission(&mut self, r: Result<(), SduId>) -> Result<(), SduId> {
        match r {
            Ok(()) => self.sdus_accepted += 1,
            Err(_) => self.sdus_refused += 1,
        }
        r
    }
}

/// What one call produced, in buffers the caller owns and clears between uses.
#[derive(Clone, Debug, Default)]
pub struct RlcEvents {
    /// Receive side: SDUs complete and in order, each exactly once (TS 36.322 §5.1.2.2.3, §5.1.3.2.3).
    pub delivered: Vec<SduId>,
    /// SDUs this entity gave up on, each exactly once: UM reassembly failures and
    /// gaps skipped at t-Reordering (receive side); AM maxRetx discards (transmit side).
    pub discarded: Vec<SduId>,
    /// AM with `on_max_retx = "discard"`: AMD PDUs this transmitter gave up at
    /// maxRetxThreshold. Hand each to the peer entity's [`Rlc::notify_peer_abandoned`]
    /// (the modelled consequence of the radio link failure of TS 36.322 §5.2.1):
    /// its receiver moves past the SN and reports the SDUs in `discarded`.
    pub abandoned: Vec<DataPdu>,
    /// Not an event: the heap storage of segment lists that had spilled, kept for the next PDUs
    /// built with these buffers. A PDU's list crosses the link with it and is emptied at the
    /// receiving entity; the transmitting entities that share these buffers (the same bearer's
    /// two ends, in a cell) take it back instead of allocating another. [`Self::clear`] keeps them.
    /// Kept as bare vectors, not as lists: popping a whole list copied its inline pieces too, the copy
    /// reading back stores just made (docs/performance.md, "Issue 34: the 19-site network, fourth
    /// round").
    spare_segments: Vec<Vec<SduSegment>>,
}

impl RlcEvents {
    pub fn clear(&mut self) {
        self.delivered.clear();
        self.discarded.clear();
        self.abandoned.clear();
    }

    /// An empty segment list for a new PDU: a spare one when any is left (hand the list to
    /// [`Self::keep_unused`] once filled).
    pub(crate) fn segment_list(&mut self) -> SegmentList {
        self.spare_segments.pop().map_or_else(SegmentList::default, SegmentList::with_heap)
    }

    /// A filled list gives back the heap storage its pieces did not need (they fit inline), so
    /// spare storage stays with the PDUs that spill.
    pub(crate) fn keep_unused(&mut self, segments: &mut SegmentList) {
        if let Some(spare) = segments.take_unused_heap() {
            self.spare_segments.push(spare);
        }
    }

    /// A copy of `segments`, in a spare list when it needs heap storage and one is left.
    pub(crate) fn copy_of(&mut self, segments: &SegmentList) -> SegmentList {
        if !segments.spills() {
            return segments.clone();
        }
        let mut copy = self.segment_list();
        copy.clone_from(segments);
        copy
    }

    /// `segments` is done with (its PDU delivered, duplicated, lost or acknowledged): its heap
    /// storage is kept for [`Self::segment_list`].
    pub(crate) fn recycle(&mut self, segments: SegmentList) {
        if segments.holds_heap() {
            self.spare_segments.push(segments.into_heap());
        }
    }
}

/// An SDU a transmitting entity still held when it was re-established: not yet acknowledged
/// (AM) or not yet fully sent, with its size and whether any of it went out in a PDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldSdu {
    pub id: SduId,
    pub bytes: u32,
    pub begun: bool,
}

/// What a cell reads of an entity every TTI for each UE with work (the MAC's buffer status, the
/// `lte` table's sample, the timers), copied out so the cell can keep it beside its UE contexts
/// (`lte/cell/rlc_view.rs` says why). It answers as the entity would until the entity changes:
/// the one term that moves with time alone, AM's STATUS PDU behind t-StatusProhibit, is kept
/// with the time from which it is due.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RlcLevels {
    /// New data and retransmissions queued, headers estimated in ([`Rlc::buffered_bytes`]
    /// without the STATUS PDU).
    data_bytes: u32,
    /// Whether new data or a retransmission waits.
    has_data: bool,
    /// AM: a STATUS report is triggered; from when it may be sent, and its size in bytes.
    status: Option<(SimTime, u32)>,
    /// [`Rlc::buffered_sdu_bytes`].
    pub sdu_bytes: u64,
    pub data_pdus_retransmitted: u64,
    /// [`RlcCounters::buffer_changes`].
    pub buffer_changes: u64,
    /// [`Rlc::poll_timeout`].
    pub timer: Option<SimTime>,
}

impl RlcLevels {
    /// [`Rlc::buffered_bytes`] at `now`.
    pub fn buffered_bytes(&self, now: SimTime) -> u32 {
        let status = self.status.filter(|&(from, _)| from <= now).map_or(0, |(_, bytes)| bytes);
        self.data_bytes + status
    }

    /// [`Rlc::has_data`] at `now`.
    pub fn has_data(&self, now: SimTime) -> bool {
        self.has_data || self.status.is_some_and(|(from, _)| from <= now)
    }
}

/// One bearer's RLC entity at one end.
// AM is a few times UM's size; not boxed: both entities of a bearer are one mode, they live in
// the UE's boxed context, and a box would add a pointer chase to every RLC call of the TTI.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Rlc {
    Tm(tm::TmEntity),
    Um(um::UmEntity),
    Am(am::AmEntity),
}

impl Rlc {
    /// A fresh entity; `config` must have passed [`RlcConfig::validate`].
    pub fn new(config: &RlcConfig) -> Rlc {
        match config {
            RlcConfig::Tm(c) => Rlc::Tm(tm::TmEntity::new(c)),
            RlcConfig::Um(c) => Rlc::Um(um::UmEntity::new(c)),
            RlcConfig::Am(c) => Rlc::Am(am::AmEntity::new(c)),
        }
    }

    /// PDCP -> RLC: queue an SDU. `Err(id)` = the transmission buffer is full and the
    /// SDU was dropped (ns-3 `DoTransmitPdcpPdu`); the caller counts the drop.
    pub fn transmit_sdu(&mut self, now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        match self {
            Rlc::Tm(e) => e.transmit_sdu(now, sdu),
            Rlc::Um(e) => e.transmit_sdu(now, sdu),
            Rlc::Am(e) => e.transmit_sdu(now, sdu),
        }
    }

    /// What the MAC should know to schedule this bearer (ns-3 `ReportBufferStatus`).
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        match self {
            Rlc::Tm(e) => e.buffer_status(now),
            Rlc::Um(e) => e.buffer_status(now),
            Rlc::Am(e) => e.buffer_status(now),
        }
    }

    /// [`Self::buffer_status`]'s total bytes, without the head-of-line delay (the MAC sizes
    /// every backlogged UE's demand each TTI; reading the oldest SDU's arrival is a cache miss).
    pub fn buffered_bytes(&self, now: SimTime) -> u32 {
        match self {
            Rlc::Am(e) => e.buffered_bytes(now),
            _ => self.buffer_status(now).total_bytes(),
        }
    }

    /// What a cell reads every TTI, as of `now` ([`RlcLevels`]; TM and UM hold no time-dependent
    /// term, `now` only dates the head-of-line delay their totals leave out).
    pub fn levels(&self, now: SimTime) -> RlcLevels {
        let queued = |data_bytes: u32| RlcLevels {
            data_bytes,
            has_data: data_bytes > 0,
            status: None,
            sdu_bytes: self.buffered_sdu_bytes(),
            data_pdus_retransmitted: self.counters().data_pdus_retransmitted,
            buffer_changes: self.counters().buffer_changes(),
            timer: self.poll_timeout(),
        };
        match self {
            Rlc::Am(e) => e.levels(),
            _ => queued(self.buffer_status(now).total_bytes()),
        }
    }

    /// Whether [`Self::buffer_status`] is non-empty, without sizing it.
    pub fn has_data(&self, now: SimTime) -> bool {
        match self {
            Rlc::Am(e) => e.has_data(now),
            _ => !self.buffer_status(now).is_empty(),
        }
    }

    /// Tests: [`Self::push_tx_pdu`], the PDU returned.
    #[cfg(test)]
    pub fn notify_tx_opportunity(&mut self, opp: TxOpportunity, ev: &mut RlcEvents) -> Option<RlcPdu> {
        let mut out = Vec::new();
        self.push_tx_pdu(opp, ev, &mut out)?;
        out.pop()
    }

    /// MAC -> RLC: build one PDU of at most `opp.bytes` at the end of `out` (the TB's payload)
    /// and lend it back, or `None` if nothing fits.
    pub fn push_tx_pdu<'a>(
        &mut self,
        opp: TxOpportunity,
        ev: &mut RlcEvents,
        out: &'a mut Vec<RlcPdu>,
    ) -> Option<&'a RlcPdu> {
        let pushed = match self {
            Rlc::Tm(e) => e.notify_tx_opportunity(opp, ev).map(|p| out.push(p)).is_some(),
            Rlc::Um(e) => e.notify_tx_opportunity(opp, ev).map(|p| out.push(p)).is_some(),
            Rlc::Am(e) => e.notify_tx_opportunity(opp, ev, out),
        };
        if pushed {
            out.last()
        } else {
            None
        }
    }

    /// MAC -> RLC: a PDU the peer sent arrived.
    pub fn receive_pdu(&mut self, now: SimTime, pdu: RlcPdu, ev: &mut RlcEvents) {
        match self {
            Rlc::Tm(e) => e.receive_pdu(now, pdu, ev),
            Rlc::Um(e) => e.receive_pdu(now, pdu, ev),
            Rlc::Am(e) => e.receive_pdu(now, pdu, ev),
        }
    }

    /// The lower layer (HARQ) gave up on `pdu`, sent by the peer to this entity.
    /// UM/TM: the SDUs it carried are discarded (reported when reassembly reaches its
    /// SN, so each once); AM: nothing, ARQ recovers it.
    pub fn notify_pdu_lost(&mut self, now: SimTime, pdu: RlcPdu, ev: &mut RlcEvents) {
        match self {
            Rlc::Tm(e) => e.notify_pdu_lost(now, pdu, ev),
            Rlc::Um(e) => e.notify_pdu_lost(now, pdu, ev),
            Rlc::Am(e) => e.notify_pdu_lost(now, pdu, ev),
        }
    }

    /// The peer gave `pdu` up (from the peer's [`RlcEvents::abandoned`]); AM only.
    pub fn notify_peer_abandoned(&mut self, now: SimTime, pdu: DataPdu, ev: &mut RlcEvents) {
        if let Rlc::Am(e) = self {
            e.notify_peer_abandoned(now, pdu, ev);
        }
    }

    /// Re-establishment (TS 36.322 §5.4, a handover): the receiving side delivers every SDU it
    /// can still reassemble (in SN order, `ev.delivered`) and discards the rest
    /// (`ev.discarded`); the transmitting side's SDUs come back, in order, for PDCP to decide
    /// what is sent again (TS 36.323 §5.2). The entity is gone; a fresh one takes its place.
    pub fn reestablish(self, ev: &mut RlcEvents) -> Vec<HeldSdu> {
        match self {
            Rlc::Tm(e) => e.reestablish(),
            Rlc::Um(e) => e.reestablish(ev),
            Rlc::Am(e) => e.reestablish(ev),
        }
    }

    /// The earliest running timer's expiry.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            Rlc::Tm(_) => None,
            Rlc::Um(e) => e.poll_timeout(),
            Rlc::Am(e) => e.poll_timeout(),
        }
    }

    /// Runs every timer that expired at or before `now`.
    pub fn handle_timeout(&mut self, now: SimTime, ev: &mut RlcEvents) {
        match self {
            Rlc::Tm(_) => {}
            Rlc::Um(e) => e.handle_timeout(now, ev),
            Rlc::Am(e) => e.handle_timeout(now, ev),
        }
    }

    pub fn counters(&self) -> &RlcCounters {
        match self {
            Rlc::Tm(e) => e.counters(),
            Rlc::Um(e) => e.counters(),
            Rlc::Am(e) => e.counters(),
        }
    }

    /// SDU bytes held for (re)transmission: the "buffered" term of conservation.
    pub fn buffered_sdu_bytes(&self) -> u64 {
        match self {
            Rlc::Tm(e) => e.buffered_sdu_bytes(),
            Rlc::Um(e) => e.buffered_sdu_bytes(),
            Rlc::Am(e) => e.buffered_sdu_bytes(),
        }
    }
}

#[cfg(test)]
mod tests;
