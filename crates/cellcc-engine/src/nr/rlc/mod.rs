//! NR RLC (TS 38.322): unacknowledged and acknowledged modes of a data radio bearer.
//!
//! The NR entities keep the LTE RLC's seam (`lte::rlc`): the same SDU descriptors, buffer status,
//! transmission opportunities and counters, and the same sans-IO calls, so the NR cell drives them
//! as the LTE cell drives its own. What TS 38.322 changes, and what it does to TCP:
//!
//! | | LTE (TS 36.322) | NR (TS 38.322) | effect on TCP |
//! |---|---|---|---|
//! | framing | SDUs concatenated, one LI each | one SDU (or segment) per PDU, a MAC subheader each | 2-5 bytes more per packet |
//! | SN | per PDU, 5/10 bits | per SDU, UM 6/12, AM 12/18 bits | larger windows: no stall at high rates |
//! | segments | FI + LI; AM re-segmentation | SI + 16-bit SO | - |
//! | receive | in order, t-Reordering | complete SDUs up at once; t-Reassembly (UM: gives up segments; AM: times STATUS) | reordering moves to PDCP (`nr::pdcp`, t-Reordering) |
//! | TM | for data | not for a DRB | UM and AM only |

pub mod am;
pub mod config;
pub mod pdu;
pub mod queue;
pub mod um;

pub use config::{
    BearerDefaults, NrAmConfig, NrAmSpec, NrPdcpConfig, NrPdcpSpec, NrRlcConfig, NrRlcSpec, NrUmConfig, NrUmSpec,
};
pub use pdu::{NrDataPdu, NrRlcPdu, NrStatusPdu};

use crate::lte::rlc::RlcCounters;
use crate::lte::sap::{BufferStatus, RlcSdu, SduId, TxOpportunity};
use crate::sim::SimTime;

/// What one call produced (buffers the caller owns and clears).
#[derive(Clone, Debug, Default)]
pub struct NrRlcEvents {
    /// Receive side: SDUs complete, in the order they completed (not in SN order).
    pub delivered: Vec<SduId>,
    /// SDUs given up: UM reassembly failures (receive side), AM maxRetx (transmit side).
    pub discarded: Vec<SduId>,
    /// AM with `on_max_retx = "discard"`: SNs this transmitter gave up; hand each to the peer's
    /// [`NrRlc::notify_peer_abandoned`] so its receiving window moves past them.
    pub abandoned: Vec<u32>,
}

/// One bearer's NR RLC entity at one end.
#[derive(Clone, Debug)]
pub enum NrRlc {
    Um(um::UmEntity),
    Am(am::AmEntity),
}

impl NrRlc {
    pub fn new(c: &NrRlcConfig) -> Self {
        match c {
            NrRlcConfig::Um(c) => NrRlc::Um(um::UmEntity::new(c)),
            NrRlcConfig::Am(c) => NrRlc::Am(am::AmEntity::new(c)),
        }
    }

    /// Whether an SDU of `bytes` would fit the transmission buffer.
    pub fn has_room(&self, bytes: u32) -> bool {
        match self {
            NrRlc::Um(e) => e.has_room(bytes),
            NrRlc::Am(e) => e.has_room(bytes),
        }
    }

    pub fn transmit_sdu(&mut self, now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        match self {
            NrRlc::Um(e) => e.transmit_sdu(now, sdu),
            NrRlc::Am(e) => e.transmit_sdu(now, sdu),
        }
    }

    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        match self {
            NrRlc::Um(e) => e.buffer_status(now),
            NrRlc::Am(e) => e.buffer_status(now),
        }
    }

    pub fn notify_tx_opportunity(&mut self, opp: TxOpportunity) -> Option<NrRlcPdu> {
        match self {
            NrRlc::Um(e) => e.notify_tx_opportunity(opp),
            NrRlc::Am(e) => e.notify_tx_opportunity(opp),
        }
    }

    pub fn receive_pdu(&mut self, now: SimTime, pdu: NrRlcPdu, ev: &mut NrRlcEvents) {
        match self {
            NrRlc::Um(e) => e.receive_pdu(now, pdu, ev),
            NrRlc::Am(e) => e.receive_pdu(now, pdu, ev),
        }
    }

    /// HARQ gave up on `pdu`, sent by the peer to this entity: UM gives its SDU up; AM's ARQ recovers it.
    pub fn notify_pdu_lost(&mut self, pdu: NrRlcPdu, ev: &mut NrRlcEvents) {
        if let NrRlc::Um(e) = self {
            e.notify_pdu_lost(pdu, ev);
        }
    }

    pub fn notify_peer_abandoned(&mut self, now: SimTime, sn: u32, ev: &mut NrRlcEvents) {
        if let NrRlc::Am(e) = self {
            e.notify_peer_abandoned(now, sn, ev);
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            NrRlc::Um(e) => e.poll_timeout(),
            NrRlc::Am(e) => e.poll_timeout(),
        }
    }

    pub fn handle_timeout(&mut self, now: SimTime, ev: &mut NrRlcEvents) {
        match self {
            NrRlc::Um(e) => e.handle_timeout(now, ev),
            NrRlc::Am(e) => e.handle_timeout(now, ev),
        }
    }

    pub fn counters(&self) -> &RlcCounters {
        match self {
            NrRlc::Um(e) => e.counters(),
            NrRlc::Am(e) => e.counters(),
        }
    }

    pub fn buffered_sdu_bytes(&self) -> u64 {
        match self {
            NrRlc::Um(e) => e.buffered_sdu_bytes(),
            NrRlc::Am(e) => e.buffered_sdu_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::rlc::MaxRetxAction;
    use crate::sim::SimDuration;

    fn um() -> NrRlc {
        NrRlc::new(&NrRlcConfig::Um(NrUmConfig { tx_buffer_bytes: 1 << 20, sn_bits: 12, t_reassembly_ms: 50.0 }))
    }

    /// UM: whole SDUs carry no SN and go up as they arrive; a segmented SDU whose middle piece HARQ
    /// loses is reported discarded once, and its other pieces never deliver it.
    #[test]
    fn um_delivers_whole_sdus_at_once_and_gives_up_a_lost_segment() {
        let (mut tx, mut rx) = (um(), um());
        let mut ev = NrRlcEvents::default();
        let now = SimTime::ZERO;
        tx.transmit_sdu(now, RlcSdu { id: SduId(0), bytes: 1000 }).unwrap();
        tx.transmit_sdu(now, RlcSdu { id: SduId(2), bytes: 100 }).unwrap();
        let opp = |b| TxOpportunity { bytes: b, now };
        let pieces: Vec<_> = [402, 404, 1000].iter().map(|&b| tx.notify_tx_opportunity(opp(b)).unwrap()).collect();
        let NrRlcPdu::Data(p0) = &pieces[0] else { panic!() };
        assert_eq!((p0.sn, p0.seg.len_bytes(), p0.header_bytes()), (0, 400, 2));
        let whole = tx.notify_tx_opportunity(opp(1000)).unwrap();
        assert_eq!(whole.bytes(), 101, "a complete SDU: 1-byte header, no SN");
        rx.receive_pdu(now, whole, &mut ev);
        assert_eq!(ev.delivered, vec![SduId(2)]);
        rx.notify_pdu_lost(pieces[1].clone(), &mut ev);
        rx.receive_pdu(now, pieces[0].clone(), &mut ev);
        rx.receive_pdu(now, pieces[2].clone(), &mut ev);
        assert_eq!(ev.discarded, vec![SduId(0)]);
        assert_eq!(ev.delivered, vec![SduId(2)], "the doomed SDU is not delivered");
        let t = rx.poll_timeout().expect("t-Reassembly for the gap");
        assert_eq!(t, now + SimDuration::from_ms(50));
        rx.handle_timeout(t, &mut ev);
        assert_eq!(ev.discarded, vec![SduId(0)], "reported once");
        assert_eq!(rx.poll_timeout(), None);
    }

    #[test]
    fn configs_are_validated_by_field() {
        let bad_um = NrRlcConfig::Um(NrUmConfig { tx_buffer_bytes: 1, sn_bits: 10, t_reassembly_ms: 5.0 });
        assert_eq!(bad_um.validate("r").unwrap_err().path, "r.sn_bits");
        let am = NrAmConfig {
            tx_buffer_bytes: 1,
            sn_bits: 18,
            t_poll_retransmit_ms: 0.0,
            poll_pdu: None,
            poll_byte: None,
            max_retx_threshold: 4,
            on_max_retx: MaxRetxAction::Discard,
            t_reassembly_ms: 20.0,
            t_status_prohibit_ms: 10.0,
        };
        assert_eq!(NrRlcConfig::Am(am).validate("r").unwrap_err().path, "r.t_poll_retransmit_ms");
        let pdcp = NrPdcpConfig { sn_bits: 15, t_reordering_ms: 1.0 };
        assert_eq!(pdcp.validate("p").unwrap_err().path, "p.sn_bits");
    }
}
