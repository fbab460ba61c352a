//! NR RLC UM entity (TS 38.322 §5.2.2): a transmitting entity for one direction and a receiving
//! entity for the other.
//!
//! Transmit (§5.2.2.1): an SDU that fits goes whole with a 1-byte header and no SN; one that does
//! not is segmented, every segment carrying SN = TX_NEXT (and the SO after the first), TX_NEXT
//! moving on after the last segment.
//! Receive (§5.2.2.2): a complete SDU is delivered at once, whatever came before it (no
//! reordering: PDCP does it); segments wait for their SDU to complete; t-Reassembly gives up on
//! the SNs below RX_Timer_Trigger. State variables RX_Next_Reassembly, RX_Timer_Trigger,
//! RX_Next_Highest (§7.1); SNs are counted without wrapping (the window rules use differences).

use std::collections::{BTreeMap, BTreeSet};

use super::pdu::{header_bytes, Mode, NrDataPdu, NrRlcPdu};
use super::queue::{Ranges, SduQueue};
use super::{NrRlcEvents, NrUmConfig};
use crate::lte::rlc::RlcCounters;
use crate::lte::sap::{BufferStatus, RlcSdu, SduId, TxOpportunity};
use crate::sim::{SimDuration, SimTime};

/// An SDU being reassembled.
#[derive(Clone, Debug)]
struct RxSdu {
    id: SduId,
    bytes: u32,
    ranges: Ranges,
    /// Delivered already; kept until RX_Next_Reassembly passes it.
    done: bool,
}

#[derive(Clone, Debug)]
pub struct UmEntity {
    sn_bits: u8,
    window: u32,
    t_reassembly: SimDuration,
    tx: SduQueue,
    tx_next: u32,
    rx: BTreeMap<u32, RxSdu>,
    next_reassembly: u32,
    next_highest: u32,
    timer_trigger: u32,
    expiry: Option<SimTime>,
    /// SNs whose SDU a lost PDU doomed (already reported discarded).
    doomed: BTreeSet<u32>,
    counters: RlcCounters,
}

impl UmEntity {
    pub fn new(c: &NrUmConfig) -> Self {
        UmEntity {
            sn_bits: c.sn_bits,
            // UM_Window_Size (TS 38.322 §7.2): 32 with a 6-bit SN, 2048 with 12.
            window: if c.sn_bits == 6 { 32 } else { 2048 },
            t_reassembly: SimDuration::from_ms_f64(c.t_reassembly_ms),
            tx: SduQueue::new(c.tx_buffer_bytes),
            tx_next: 0,
            rx: BTreeMap::new(),
            next_reassembly: 0,
            next_highest: 0,
            timer_trigger: 0,
            expiry: None,
            doomed: BTreeSet::new(),
            counters: RlcCounters::default(),
        }
    }

    fn mode(&self) -> Mode {
        Mode::Um { sn_bits: self.sn_bits }
    }

    pub fn has_room(&self, bytes: u32) -> bool {
        self.tx.has_room(bytes)
    }

    pub fn transmit_sdu(&mut self, now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        self.counters.count_admission(self.tx.push(now, sdu))
    }

    /// Queued bytes plus one complete-SDU header each.
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        BufferStatus {
            tx_queue_bytes: u32::try_from(self.tx.bytes() + self.tx.sdus() as u64).unwrap_or(u32::MAX),
            tx_queue_hol_delay: self.tx.hol_delay(now),
            retx_queue_bytes: 0,
            status_pdu_bytes: 0,
        }
    }

    /// §5.2.2.1.1: the head SDU whole if it fits, else its next segment.
    pub fn notify_tx_opportunity(&mut self, opp: TxOpportunity) -> Option<NrRlcPdu> {
        let (left, cut) = self.tx.head()?;
        let mode = self.mode();
        if !cut && left + header_bytes(mode, 0, true) <= opp.bytes {
            let p = self.tx.take(left)?;
            self.counters.data_pdus_sent += 1;
            return Some(NrRlcPdu::Data(NrDataPdu { mode, sn: 0, seg: p.seg }));
        }
        let sn = self.tx.number_head(self.tx_next);
        let sdu_bytes_sent = if cut { 1 } else { 0 };
        let header = header_bytes(mode, sdu_bytes_sent, false);
        let p = self.tx.take(opp.bytes.checked_sub(header).filter(|&r| r > 0)?)?;
        if p.seg.is_last() {
            self.tx_next += 1;
        }
        self.counters.data_pdus_sent += 1;
        Some(NrRlcPdu::Data(NrDataPdu { mode, sn, seg: p.seg }))
    }

    pub fn receive_pdu(&mut self, now: SimTime, pdu: NrRlcPdu, ev: &mut NrRlcEvents) {
        let NrRlcPdu::Data(d) = pdu else {
            debug_assert!(false, "a UM entity got a STATUS PDU");
            return;
        };
        self.counters.data_pdus_received += 1;
        let s = d.seg;
        if s.offset == 0 && s.len_bytes() == s.sdu_bytes {
            // §5.2.2.2.1: a UMD PDU with a complete SDU goes up at once.
            self.counters.sdus_delivered += 1;
            ev.delivered.push(s.sdu);
            return;
        }
        self.receive_segment(now, d, ev);
    }

    /// §5.2.2.2.2-3: place a segment, deliver its SDU if complete, move the window and the timer.
    fn receive_segment(&mut self, now: SimTime, d: NrDataPdu, ev: &mut NrRlcEvents) {
        let x = d.sn;
        if x < self.next_reassembly {
            // Below the window: its SDU was delivered or given up already; report it given up
            // (the cell resolves an SDU once: a second report of a resolved one finds nothing).
            self.counters.duplicate_pdus_received += 1;
            ev.discarded.push(d.seg.sdu);
            return;
        }
        let e = self.rx.entry(x).or_insert(RxSdu {
            id: d.seg.sdu,
            bytes: d.seg.sdu_bytes,
            ranges: Ranges::default(),
            done: false,
        });
        e.ranges.add(d.seg.offset, d.seg.offset + d.seg.len_bytes());
        if !e.done && e.ranges.complete(e.bytes) {
            e.done = true;
            if !self.doomed.contains(&x) {
                self.counters.sdus_delivered += 1;
                ev.delivered.push(e.id);
            }
            if x == self.next_reassembly {
                self.advance_past_done();
            }
        }
        if x >= self.next_highest {
            self.next_highest = x + 1;
            // Outside the window: everything below RX_Next_Highest - UM_Window_Size is given up.
            let low = self.next_highest.saturating_sub(self.window);
            if self.next_reassembly < low {
                self.discard_below(low, ev);
                self.next_reassembly = low;
                self.advance_past_done();
            }
        }
        self.update_timer(now);
    }

    /// RX_Next_Reassembly moves past the SDUs already delivered.
    fn advance_past_done(&mut self) {
        while self.rx.get(&self.next_reassembly).is_some_and(|e| e.done) {
            self.rx.remove(&self.next_reassembly);
            self.next_reassembly += 1;
        }
    }

    /// Drop every SN below `sn`, reporting the SDUs not yet delivered or doomed.
    fn discard_below(&mut self, sn: u32, ev: &mut NrRlcEvents) {
        while let Some((&k, _)) = self.rx.first_key_value().filter(|(&k, _)| k < sn) {
            let e = self.rx.remove(&k).expect("first key");
            if !e.done && !self.doomed.contains(&k) {
                self.counters.sdus_discarded += 1;
                ev.discarded.push(e.id);
            }
        }
        self.doomed = self.doomed.split_off(&sn);
    }

    /// The SDU at RX_Next_Reassembly misses bytes before its last received one.
    fn head_has_gap(&self) -> bool {
        self.rx.get(&self.next_reassembly).is_some_and(|e| !e.done && e.ranges.gaps(e.ranges.end()).next().is_some())
    }

    fn waiting(&self) -> bool {
        self.next_highest > self.next_reassembly + 1
            || (self.next_highest == self.next_reassembly + 1 && self.head_has_gap())
    }

    /// End of §5.2.2.2.3: stop or start t-Reassembly.
    fn update_timer(&mut self, now: SimTime) {
        if self.expiry.is_some() {
            let low = self.next_highest.saturating_sub(self.window);
            let stop = self.timer_trigger <= self.next_reassembly
                || self.timer_trigger < low
                || (self.next_highest == self.next_reassembly + 1 && !self.head_has_gap());
            if stop {
                self.expiry = None;
            }
        }
        if self.expiry.is_none() && self.waiting() {
            self.expiry = Some(now + self.t_reassembly);
            self.timer_trigger = self.next_highest;
        }
    }

    /// HARQ gave up on a PDU the peer sent: its SDU can never complete. It is reported discarded
    /// now (the cell resolves an SDU once, so a second report is harmless) and its SN doomed, so
    /// that its other segments never deliver it; the receiver's variables do not move (a real
    /// receiver never learns of the loss).
    pub fn notify_pdu_lost(&mut self, pdu: NrRlcPdu, ev: &mut NrRlcEvents) {
        let NrRlcPdu::Data(d) = pdu else { return };
        let s = d.seg;
        let whole = s.offset == 0 && s.len_bytes() == s.sdu_bytes;
        let first_report = whole || (d.sn >= self.next_reassembly && self.doomed.insert(d.sn));
        self.counters.sdus_discarded += u64::from(first_report);
        ev.discarded.push(s.sdu);
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.expiry
    }

    /// §5.2.2.2.4: t-Reassembly expired.
    pub fn handle_timeout(&mut self, now: SimTime, ev: &mut NrRlcEvents) {
        if self.expiry.is_none_or(|t| t > now) {
            return;
        }
        self.expiry = None;
        let mut target = self.timer_trigger;
        while self.rx.get(&target).is_some_and(|e| e.done) {
            target += 1;
        }
        self.discard_below(target, ev);
        self.next_reassembly = target;
        self.advance_past_done();
        if self.waiting() {
            self.expiry = Some(now + self.t_reassembly);
            self.timer_trigger = self.next_highest;
        }
    }

    pub fn counters(&self) -> &RlcCounters {
        &self.counters
    }

    pub fn buffered_sdu_bytes(&self) -> u64 {
        self.tx.bytes()
    }
}
