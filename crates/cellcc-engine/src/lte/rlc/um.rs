//! RLC UM entity (TS 36.322 §5.1.2): a transmitting UM entity for one direction
//! and a receiving UM entity for the other, as ns-3 LENA's `LteRlcUm`.
//!
//! Transmit (§5.1.2.1): SDUs are segmented / concatenated into UMD PDUs that fill
//! the MAC's opportunity exactly; SN = VT(US), then VT(US) += 1.
//! Receive (§5.1.2.2): a reordering window of UM_Window_Size below VR(UH);
//! duplicates and PDUs below VR(UR) are discarded; SDUs are reassembled and
//! delivered in SN order; a gap is waited for until t-Reordering expires, then
//! the SDUs it breaks are discarded.
//!
//! Differs from ns-3 LENA: ns-3 reserves the 2-byte header from every opportunity
//! and its LI accounting can leave 1-2 bytes unused; here the header is computed
//! exactly and the data field fills the rest.

use super::pdu::{um_fixed_header_bytes, DataPdu, DataPduKind, SegmentList};
use super::reassembly::{Finished, Reassembler};
use super::sn::SnSpace;
use super::txbuf::TxBuffer;
use super::{RlcCounters, RlcEvents, RlcPdu, UmConfig};
use crate::lte::sap::{BufferStatus, RlcSdu, SduId, TxOpportunity};
use crate::sim::{SimDuration, SimTime};

/// What the reception buffer holds for one SN.
#[derive(Clone, Debug, Default)]
enum RxSlot {
    #[default]
    Empty,
    Received(SegmentList),
}

/// Receiving UM entity state (TS 36.322 §7.1: VR(UR), VR(UX), VR(UH)).
#[derive(Clone, Debug)]
struct UmRx {
    slots: Vec<RxSlot>,
    vr_ur: u16,
    vr_ux: u16,
    vr_uh: u16,
    reordering_expiry: Option<SimTime>,
    reasm: Reassembler,
}

/// One bearer end in UM.
#[derive(Clone, Debug)]
pub struct UmEntity {
    sn: SnSpace,
    sn_bits: u8,
    t_reordering: SimDuration,
    tx: TxBuffer,
    /// VT(US): SN of the next new UMD PDU (TS 36.322 §7.1).
    vt_us: u16,
    rx: UmRx,
    counters: RlcCounters,
}

impl UmEntity {
    pub fn new(c: &UmConfig) -> Self {
        let sn = SnSpace::new(c.sn_bits);
        UmEntity {
            sn,
            sn_bits: c.sn_bits,
            t_reordering: c.t_reordering(),
            tx: TxBuffer::new(c.tx_buffer_bytes),
            vt_us: 0,
            rx: UmRx {
                slots: vec![RxSlot::Empty; usize::from(sn.modulus())],
                vr_ur: 0,
                vr_ux: 0,
                vr_uh: 0,
                reordering_expiry: None,
                reasm: Reassembler::default(),
            },
            counters: RlcCounters::default(),
        }
    }

    pub fn transmit_sdu(&mut self, now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        self.counters.count_admission(self.tx.push(now, sdu))
    }

    /// ns-3 `LteRlcUm::DoReportBufferStatus`: queued bytes plus one fixed header per SDU.
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        let headers = self.tx.sdus() as u64 * u64::from(um_fixed_header_bytes(self.sn_bits));
        BufferStatus {
            tx_queue_bytes: saturate_u32(self.tx.bytes() + headers),
            tx_queue_hol_delay: self.tx.hol_delay(now),
            retx_queue_bytes: 0,
            status_pdu_bytes: 0,
        }
    }

    /// TS 36.322 §5.1.2.1.1: one UMD PDU that fits `opp`, SN = VT(US).
    pub fn notify_tx_opportunity(&mut self, opp: TxOpportunity, ev: &mut RlcEvents) -> Option<RlcPdu> {
        let fixed = um_fixed_header_bytes(self.sn_bits);
        if opp.bytes <= fixed || self.tx.is_empty() {
            return None;
        }
        let mut segments = ev.segment_list();
        self.tx.fill(opp.bytes - fixed, &mut segments);
        ev.keep_unused(&mut segments);
        let pdu = DataPdu { kind: DataPduKind::Umd { sn_bits: self.sn_bits }, sn: self.vt_us, segments };
        self.vt_us = self.sn.add(self.vt_us, 1);
        self.counters.data_pdus_sent += 1;
        Some(RlcPdu::Data(pdu))
    }

    pub fn receive_pdu(&mut self, now: SimTime, pdu: RlcPdu, ev: &mut RlcEvents) {
        let RlcPdu::Data(d) = pdu else {
            debug_assert!(false, "UM entity got a STATUS PDU");
            return;
        };
        self.counters.data_pdus_received += 1;
        self.receive_umd(now, d.sn, d.segments, ev);
    }

    /// The lower layer lost `pdu` for good (HARQ residual loss): the SDUs it carried
    /// can never be reassembled and are reported discarded now. The receiver's state
    /// variables do not move (a real receiver never learns of the loss).
    pub fn notify_pdu_lost(&mut self, _now: SimTime, pdu: RlcPdu, ev: &mut RlcEvents) {
        let RlcPdu::Data(d) = pdu else { return };
        let mut n = Finished::default();
        self.rx.reasm.lost(d.segments.iter(), ev, &mut n);
        ev.recycle(d.segments);
        self.add_finished(n);
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.rx.reordering_expiry
    }

    /// TS 36.322 §5.1.2.2.4: t-Reordering expiry.
    pub fn handle_timeout(&mut self, now: SimTime, ev: &mut RlcEvents) {
        if self.rx.reordering_expiry.is_none_or(|t| t > now) {
            return;
        }
        self.rx.reordering_expiry = None;
        // VR(UR) = first SN >= VR(UX) not received; deliver / discard everything below it.
        let target = self.first_missing_from(self.rx.vr_ux);
        self.advance_to(target, ev);
        if self.off(self.rx.vr_uh) > self.off(self.rx.vr_ur) {
            self.start_reordering(now);
        }
    }

    /// TS 36.322 §5.4: the receiving side reassembles what it can from every PDU below VR(UH)
    /// and delivers it; the SDU left incomplete is discarded. The buffer's SDUs come back.
    pub fn reestablish(mut self, ev: &mut RlcEvents) -> Vec<super::HeldSdu> {
        let end = self.rx.vr_uh;
        self.advance_to(end, ev);
        let mut n = Finished::default();
        self.rx.reasm.gap(ev, &mut n);
        self.tx.held().collect()
    }

    pub fn counters(&self) -> &RlcCounters {
        &self.counters
    }

    /// Unsent SDU bytes (the receive side's partial SDUs are not counted).
    pub fn buffered_sdu_bytes(&self) -> u64 {
        self.tx.bytes()
    }

    /// Window size (TS 36.322 §7.2: UM_Window_Size = 16 for a 5-bit SN, 512 for 10-bit).
    fn window(&self) -> u16 {
        self.sn.window()
    }

    /// SN relative to the window base VR(UH) - UM_Window_Size (TS 36.322 §7.1).
    fn off(&self, sn: u16) -> u16 {
        self.sn.offset(sn, self.sn.offset(self.rx.vr_uh, self.window()))
    }

    /// TS 36.322 §5.1.2.2.2: discard if (VR(UR) < x < VR(UH) and received before) or
    /// (VR(UH) - UM_Window_Size <= x < VR(UR)).
    fn below_window_or_duplicate(&self, x: u16) -> bool {
        let (ox, our, ouh) = (self.off(x), self.off(self.rx.vr_ur), self.off(self.rx.vr_uh));
        let received = matches!(self.rx.slots[usize::from(x)], RxSlot::Received(_));
        (our < ox && ox < ouh && received) || ox < our || (ox == our && received)
    }

    fn receive_umd(&mut self, now: SimTime, x: u16, segments: SegmentList, ev: &mut RlcEvents) {
        if self.below_window_or_duplicate(x) {
            self.counters.duplicate_pdus_received += 1;
            let mut n = Finished::default();
            self.rx.reasm.late(segments.iter(), ev, &mut n);
            ev.recycle(segments);
            self.add_finished(n);
            return;
        }
        self.rx.slots[usize::from(x)] = RxSlot::Received(segments);
        // §5.1.2.2.3: x outside the reordering window moves the window up to x + 1.
        if self.off(x) >= self.window() {
            let old_ur = self.off(self.rx.vr_ur);
            let new_base_off = self.off(x) + 1 - self.window();
            self.rx.vr_uh = self.sn.add(x, 1);
            if new_base_off > old_ur {
                let new_base = self.sn.offset(self.rx.vr_uh, self.window());
                self.advance_to(new_base, ev);
            }
        }
        if matches!(self.rx.slots[usize::from(self.rx.vr_ur)], RxSlot::Received(_)) {
            let target = self.first_missing_from(self.rx.vr_ur);
            self.advance_to(target, ev);
        }
        self.update_reordering_timer(now);
    }

    /// §5.1.2.2.3, last two steps: stop t-Reordering if its gap closed or left the
    /// window; start it if data waits above VR(UR).
    fn update_reordering_timer(&mut self, now: SimTime) {
        if self.rx.reordering_expiry.is_some() {
            let (oux, our) = (self.off(self.rx.vr_ux), self.off(self.rx.vr_ur));
            let outside = oux >= self.window() && self.rx.vr_ux != self.rx.vr_uh;
            if oux <= our || outside {
                self.rx.reordering_expiry = None;
            }
        }
        if self.rx.reordering_expiry.is_none() && self.off(self.rx.vr_uh) > self.off(self.rx.vr_ur) {
            self.start_reordering(now);
        }
    }

    fn start_reordering(&mut self, now: SimTime) {
        self.rx.reordering_expiry = Some(now + self.t_reordering);
        self.rx.vr_ux = self.rx.vr_uh;
    }

    /// The first SN at or after `from` (and not beyond VR(UH)) that has not been received.
    fn first_missing_from(&self, from: u16) -> u16 {
        let mut sn = from;
        while sn != self.rx.vr_uh && matches!(self.rx.slots[usize::from(sn)], RxSlot::Received(_)) {
            sn = self.sn.add(sn, 1);
        }
        sn
    }

    /// Moves VR(UR) up to `target`, reassembling every SN passed in order: received
    /// PDUs feed reassembly, missing ones break the SDU in progress.
    fn advance_to(&mut self, target: u16, ev: &mut RlcEvents) {
        let mut n = Finished::default();
        while self.rx.vr_ur != target {
            let slot = std::mem::take(&mut self.rx.slots[usize::from(self.rx.vr_ur)]);
            match slot {
                RxSlot::Received(segs) => {
                    self.rx.reasm.push(segs.iter(), ev, &mut n);
                    ev.recycle(segs);
                }
                RxSlot::Empty => self.rx.reasm.gap(ev, &mut n),
            }
            self.rx.vr_ur = self.sn.add(self.rx.vr_ur, 1);
        }
        self.add_finished(n);
    }

    fn add_finished(&mut self, n: Finished) {
        self.counters.sdus_delivered += n.delivered;
        self.counters.sdus_discarded += n.discarded;
    }
}

pub(super) fn saturate_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
