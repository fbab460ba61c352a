//! RLC TM entity (TS 36.322 §5.1.1): no header, no segmentation, no reordering.
//!
//! An SDU waits until an opportunity at least its size comes (ns-3 `LteRlcTm`
//! does the same: a too-small opportunity sends nothing); the receiver delivers
//! every TMD PDU as it comes.

use super::pdu::{DataPdu, DataPduKind, SegmentList};
use super::txbuf::TxBuffer;
use super::um::saturate_u32;
use super::{RlcCounters, RlcEvents, RlcPdu, TmConfig};
use crate::lte::sap::{BufferStatus, RlcSdu, SduId, TxOpportunity};
use crate::sim::SimTime;

/// One bearer end in TM.
#[derive(Clone, Debug)]
pub struct TmEntity {
    tx: TxBuffer,
    counters: RlcCounters,
}

impl TmEntity {
    pub fn new(c: &TmConfig) -> Self {
        TmEntity { tx: TxBuffer::new(c.tx_buffer_bytes), counters: RlcCounters::default() }
    }

    pub fn transmit_sdu(&mut self, now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        self.counters.count_admission(self.tx.push(now, sdu))
    }

    /// ns-3 `LteRlcTm::DoReportBufferStatus`: queued bytes, no header.
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        BufferStatus {
            tx_queue_bytes: saturate_u32(self.tx.bytes()),
            tx_queue_hol_delay: self.tx.hol_delay(now),
            ..BufferStatus::default()
        }
    }

    /// TS 36.322 §5.1.1.1: the head SDU as a TMD PDU, if it fits.
    pub fn notify_tx_opportunity(&mut self, opp: TxOpportunity, _ev: &mut RlcEvents) -> Option<RlcPdu> {
        let seg = self.tx.take_whole(opp.bytes)?;
        let mut segments = SegmentList::new();
        segments.push(seg);
        self.counters.data_pdus_sent += 1;
        Some(RlcPdu::Data(DataPdu { kind: DataPduKind::Tmd, sn: 0, segments }))
    }

    /// TS 36.322 §5.1.1.2: deliver the TMD PDU's SDU.
    pub fn receive_pdu(&mut self, _now: SimTime, pdu: RlcPdu, ev: &mut RlcEvents) {
        let RlcPdu::Data(d) = pdu else { return };
        self.counters.data_pdus_received += 1;
        for s in d.segments.iter() {
            ev.delivered.push(s.sdu);
            self.counters.sdus_delivered += 1;
        }
    }

    /// The lower layer lost a TMD PDU: its SDU is gone.
    pub fn notify_pdu_lost(&mut self, _now: SimTime, pdu: RlcPdu, ev: &mut RlcEvents) {
        let RlcPdu::Data(d) = pdu else { return };
        for s in d.segments.iter() {
            ev.discarded.push(s.sdu);
            self.counters.sdus_discarded += 1;
        }
    }

    /// TS 36.322 §5.4: nothing is held on the receiving side; the buffer's SDUs come back.
    pub fn reestablish(self) -> Vec<super::HeldSdu> {
        self.tx.held().collect()
    }

    pub fn counters(&self) -> &RlcCounters {
        &self.counters
    }

    pub fn buffered_sdu_bytes(&self) -> u64 {
        self.tx.bytes()
    }
}
