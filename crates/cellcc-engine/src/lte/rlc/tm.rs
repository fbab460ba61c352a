//! RLC TM entity (TS 36.322).

use super::{RlcCounters, RlcEvents, RlcPdu, TmConfig};
use crate::lte::sap::{BufferStatus, RlcSdu, SduId, TxOpportunity};
use crate::sim::SimTime;

#[derive(Clone, Debug)]
pub struct TmEntity {
    limit_bytes: u32,
    counters: RlcCounters,
}

impl TmEntity {
    pub fn new(c: &TmConfig) -> Self {
        TmEntity { limit_bytes: c.tx_buffer_bytes, counters: RlcCounters::default() }
    }
    pub fn transmit_sdu(&mut self, _now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        if sdu.bytes > self.limit_bytes {
            Err(sdu.id)
        } else {
            Ok(())
        }
    }
    pub fn buffer_status(&self, _now: SimTime) -> BufferStatus {
        BufferStatus::default()
    }
    pub fn notify_tx_opportunity(&mut self, _opp: TxOpportunity, _ev: &mut RlcEvents) -> Option<RlcPdu> {
        None
    }
    pub fn receive_pdu(&mut self, _now: SimTime, _pdu: RlcPdu, _ev: &mut RlcEvents) {}
    pub fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    pub fn handle_timeout(&mut self, _now: SimTime, _ev: &mut RlcEvents) {}
    pub fn counters(&self) -> &RlcCounters {
        &self.counters
    }
    pub fn buffered_sdu_bytes(&self) -> u64 {
        0
    }
}
