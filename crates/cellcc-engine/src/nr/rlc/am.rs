//! NR RLC AM entity (TS 38.322 §5.2.3, §5.3): one bidirectional entity per bearer end.
//!
//! ```text
//!  notify_tx_opportunity: STATUS (if triggered and t-StatusProhibit idle) > retransmission > new data
//!  transmit: one SDU or segment per AMD PDU, SN = TX_NEXT per SDU; ARQ by SN + SO ranges; polling
//!            (pollPDU, pollByte, empty buffers, window stall, t-PollRetransmit); maxRetxThreshold
//!  receive:  complete SDUs go up at once, out of order (PDCP reorders); RX_Next, RX_Next_Highest,
//!            RX_Highest_Status, RX_Next_Status_Trigger; t-Reassembly decides what a STATUS NACKs
//! ```
//! SNs are counted without wrapping; the window rules use differences (AM_Window_Size = 2048 with
//! a 12-bit SN, 131072 with 18, §7.2). How it differs from the LTE entity (TS 36.322): no
//! concatenation and no re-segmentation of PDUs (a retransmission is cut from the SDU by SO), no
//! in-order delivery (t-Reassembly replaces t-Reordering and only times STATUS reports).

use std::collections::BTreeMap;

use super::pdu::{
    header_bytes, nack_bytes, Mode, NrDataPdu, NrNack, NrRlcPdu, NrStatusPdu, MAX_NACK_RANGE, SO_END_OF_SDU,
};
use super::pdu::{SO_BYTES, STATUS_FIXED_BYTES};
use super::queue::{Ranges, SduQueue};
use super::{NrAmConfig, NrRlcEvents};
use crate::lte::rlc::{MaxRetxAction, RlcCounters, SduSegment};
use crate::lte::sap::{BufferStatus, RlcSdu, SduId, TxOpportunity};
use crate::sim::{SimDuration, SimTime};

/// A transmitted SDU awaiting acknowledgement.
#[derive(Clone, Debug)]
struct TxSdu {
    id: SduId,
    bytes: u32,
    /// Bytes given to PDUs for the first time.
    sent: u32,
    /// Byte ranges waiting for retransmission.
    pending: Ranges,
    /// RETX_COUNT: None until first considered for retransmission (§5.3.2).
    retx_count: Option<u32>,
}

/// An SDU being received.
#[derive(Clone, Debug)]
struct RxSdu {
    id: SduId,
    bytes: u32,
    ranges: Ranges,
    done: bool,
}

#[derive(Clone, Debug)]
pub struct AmEntity {
    sn_bits: u8,
    window: u32,
    // Transmitting side (§7.1: TX_Next_Ack, TX_Next, POLL_SN, PDU_WITHOUT_POLL, BYTE_WITHOUT_POLL).
    tx: SduQueue,
    tx_next: u32,
    tx_next_ack: u32,
    sent: BTreeMap<u32, TxSdu>,
    poll_pdu: Option<u32>,
    poll_byte: Option<u32>,
    pdu_without_poll: u32,
    byte_without_poll: u64,
    poll_sn: u32,
    t_poll_retransmit: SimDuration,
    poll_expiry: Option<SimTime>,
    /// t-PollRetransmit expired: the next PDU polls (§5.3.3.4).
    poll_owed: bool,
    max_retx: u32,
    on_max_retx: MaxRetxAction,
    retx_bytes: u64,
    unacked_bytes: u64,
    // Receiving side (§7.1: RX_Next, RX_Next_Status_Trigger, RX_Highest_Status, RX_Next_Highest).
    rx: BTreeMap<u32, RxSdu>,
    rx_next: u32,
    rx_next_highest: u32,
    rx_highest_status: u32,
    rx_status_trigger: u32,
    t_reassembly: SimDuration,
    reassembly_expiry: Option<SimTime>,
    status_triggered: bool,
    /// A poll for this SN waits until RX_Highest_Status passes it (§5.3.4).
    poll_pending: Option<u32>,
    t_status_prohibit: SimDuration,
    prohibit_expiry: Option<SimTime>,
    counters: RlcCounters,
}

impl AmEntity {
    pub fn new(c: &NrAmConfig) -> Self {
        AmEntity {
            sn_bits: c.sn_bits,
            // AM_Window_Size (TS 38.322 §7.2): 2048 with a 12-bit SN, 131072 with 18.
            window: if c.sn_bits == 12 { 2048 } else { 131_072 },
            tx: SduQueue::new(c.tx_buffer_bytes),
            tx_next: 0,
            tx_next_ack: 0,
            sent: BTreeMap::new(),
            poll_pdu: c.poll_pdu,
            poll_byte: c.poll_byte,
            pdu_without_poll: 0,
            byte_without_poll: 0,
            poll_sn: 0,
            t_poll_retransmit: SimDuration::from_ms_f64(c.t_poll_retransmit_ms),
            poll_expiry: None,
            poll_owed: false,
            max_retx: c.max_retx_threshold,
            on_max_retx: c.on_max_retx,
            retx_bytes: 0,
            unacked_bytes: 0,
            rx: BTreeMap::new(),
            rx_next: 0,
            rx_next_highest: 0,
            rx_highest_status: 0,
            rx_status_trigger: 0,
            t_reassembly: SimDuration::from_ms_f64(c.t_reassembly_ms),
            reassembly_expiry: None,
            status_triggered: false,
            poll_pending: None,
            t_status_prohibit: SimDuration::from_ms_f64(c.t_status_prohibit_ms),
            prohibit_expiry: None,
            counters: RlcCounters::default(),
        }
    }

    fn mode(&self, poll: bool) -> Mode {
        Mode::Am { sn_bits: self.sn_bits, poll }
    }

    pub fn has_room(&self, bytes: u32) -> bool {
        self.tx.has_room(bytes)
    }

    pub fn transmit_sdu(&mut self, now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        self.counters.count_admission(self.tx.push(now, sdu))
    }

    /// New data with one AMD header per SDU, the retransmissions with a segment header per range,
    /// and the STATUS PDU if one may go now.
    pub fn buffer_status(&self, now: SimTime) -> BufferStatus {
        let header = u64::from(header_bytes(self.mode(false), 0, true));
        let ranges: u64 = self.sent.values().map(|s| s.pending.0.len() as u64).sum();
        let sat = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        BufferStatus {
            tx_queue_bytes: sat(self.tx.bytes() + header * self.tx.sdus() as u64),
            tx_queue_hol_delay: self.tx.hol_delay(now),
            retx_queue_bytes: sat(self.retx_bytes + ranges * (header + u64::from(SO_BYTES))),
            status_pdu_bytes: if self.status_due(now) { self.status_estimate_bytes() } else { 0 },
        }
    }

    /// §5.3.4 / §5.2.3.1.1: a STATUS PDU first, then a retransmission, then new data.
    pub fn notify_tx_opportunity(&mut self, opp: TxOpportunity) -> Option<NrRlcPdu> {
        if self.status_due(opp.now) {
            if let Some(st) = self.build_status(opp.now, opp.bytes) {
                self.counters.status_pdus_sent += 1;
                return Some(NrRlcPdu::Status(st));
            }
        }
        if self.retx_bytes > 0 {
            if let Some(p) = self.build_retx(opp) {
                self.counters.data_pdus_retransmitted += 1;
                return Some(NrRlcPdu::Data(p));
            }
        }
        let p = self.build_new(opp)?;
        self.counters.data_pdus_sent += 1;
        Some(NrRlcPdu::Data(p))
    }

    fn window_stalled(&self) -> bool {
        self.tx_next >= self.tx_next_ack + self.window
    }

    fn build_new(&mut self, opp: TxOpportunity) -> Option<NrDataPdu> {
        let (left, cut) = self.tx.head()?;
        if !cut && self.window_stalled() {
            return None;
        }
        let offset_hint = u32::from(cut);
        let room = opp.bytes.checked_sub(header_bytes(self.mode(false), offset_hint, false)).filter(|&r| r > 0)?;
        let sn = if cut {
            self.tx.number_head(0)
        } else {
            let sn = self.tx_next;
            self.tx.number_head(sn);
            self.tx_next += 1;
            sn
        };
        let piece = self.tx.take(room.min(left))?;
        let e = self.sent.entry(sn).or_insert(TxSdu {
            id: piece.seg.sdu,
            bytes: piece.seg.sdu_bytes,
            sent: 0,
            pending: Ranges::default(),
            retx_count: None,
        });
        e.sent += piece.seg.len_bytes();
        self.unacked_bytes += u64::from(piece.seg.len_bytes());
        // §5.3.3.2: count the new PDU and its bytes toward the thresholds.
        self.pdu_without_poll += 1;
        self.byte_without_poll += u64::from(piece.seg.len_bytes());
        let threshold = self.poll_pdu.is_some_and(|n| self.pdu_without_poll >= n)
            || self.poll_byte.is_some_and(|n| self.byte_without_poll >= u64::from(n));
        let poll = self.poll_decision(opp.now, threshold);
        Some(NrDataPdu { mode: self.mode(poll), sn, seg: piece.seg })
    }

    /// §5.3.3.2: poll on a threshold, when both buffers are empty, when the window stalls, or after
    /// t-PollRetransmit expired; then POLL_SN = TX_NEXT - 1 and t-PollRetransmit (re)starts.
    fn poll_decision(&mut self, now: SimTime, threshold: bool) -> bool {
        let drained = self.tx.is_empty() && self.retx_bytes == 0;
        if !(threshold || drained || self.window_stalled() || self.poll_owed) {
            return false;
        }
        self.poll_owed = false;
        self.pdu_without_poll = 0;
        self.byte_without_poll = 0;
        self.poll_sn = self.tx_next.saturating_sub(1);
        self.poll_expiry = Some(now + self.t_poll_retransmit);
        true
    }

    /// §5.3.1: the first range pending retransmission, cut to fit.
    fn build_retx(&mut self, opp: TxOpportunity) -> Option<NrDataPdu> {
        let (&sn, e) = self.sent.iter_mut().find(|(_, e)| !e.pending.0.is_empty())?;
        let (a, b) = e.pending.0[0];
        let header = header_bytes(Mode::Am { sn_bits: self.sn_bits, poll: false }, a, false);
        let room = opp.bytes.checked_sub(header).filter(|&r| r > 0)?;
        let len = (b - a).min(room);
        let seg = SduSegment::new(e.id, e.bytes, a, len);
        if a + len == b {
            e.pending.0.remove(0);
        } else {
            e.pending.0[0].0 = a + len;
        }
        self.retx_bytes -= u64::from(len);
        let poll = self.poll_decision(opp.now, false);
        Some(NrDataPdu { mode: self.mode(poll), sn, seg })
    }

    /// §5.3.3.3, §5.2.3.1.1: a STATUS PDU from the peer's receiving side.
    fn on_status(&mut self, st: &NrStatusPdu, ev: &mut NrRlcEvents) {
        if st.ack_sn > self.tx_next || st.ack_sn < self.tx_next_ack {
            return; // Outside [TX_Next_Ack, TX_Next]: stale.
        }
        // t-PollRetransmit stops once POLL_SN is acknowledged or negatively acknowledged.
        if self.poll_expiry.is_some() && self.poll_sn < st.ack_sn {
            self.poll_expiry = None;
        }
        let mut nacked: Vec<(u32, Option<(u32, u32)>)> = Vec::with_capacity(st.nacks.len());
        for n in &st.nacks {
            for k in 0..n.range.max(1) {
                nacked.push((n.sn + k, n.so.filter(|_| n.range <= 1)));
            }
        }
        let acked: Vec<u32> = self
            .sent
            .range(self.tx_next_ack..st.ack_sn)
            .map(|(&sn, _)| sn)
            .filter(|sn| !nacked.iter().any(|(x, _)| x == sn))
            .collect();
        for sn in acked {
            self.acknowledge(sn);
        }
        for (sn, so) in nacked.into_iter().filter(|(sn, _)| *sn < st.ack_sn) {
            self.consider_for_retx(sn, so, ev);
        }
        self.tx_next_ack = self.sent.keys().next().copied().unwrap_or(self.tx_next);
    }

    fn acknowledge(&mut self, sn: u32) {
        if let Some(e) = self.sent.remove(&sn) {
            self.retx_bytes -= u64::from(e.pending.bytes());
            self.unacked_bytes -= u64::from(e.sent);
        }
    }

    /// §5.3.2: an SDU (or the bytes `so`) is considered for retransmission; RETX_COUNT counts each
    /// later consideration of an SDU not already pending; at maxRetxThreshold the action applies.
    fn consider_for_retx(&mut self, sn: u32, so: Option<(u32, u32)>, ev: &mut NrRlcEvents) {
        let Some(e) = self.sent.get_mut(&sn) else { return };
        let (a, b) = match so {
            None => (0, e.sent),
            Some((s, end)) if end == SO_END_OF_SDU => (s, e.sent),
            Some((s, end)) => (s, (end + 1).min(e.sent)),
        };
        let was_pending = !e.pending.0.is_empty();
        let added = e.pending.add(a, b.min(e.sent));
        self.retx_bytes += u64::from(added);
        if added == 0 || was_pending {
            return;
        }
        let count = e.retx_count.map_or(0, |n| n + 1);
        e.retx_count = Some(count);
        if count >= self.max_retx {
            self.counters.max_retx_reached += 1;
            if self.on_max_retx == MaxRetxAction::Discard {
                // Modelled as LTE's: the SDU is given up and the peer moves past its SN.
                let id = e.id;
                self.acknowledge(sn);
                self.counters.sdus_discarded += 1;
                ev.discarded.push(id);
                ev.abandoned.push(sn);
            }
        }
    }

    /// §5.3.3.4: t-PollRetransmit expired.
    fn on_poll_expiry(&mut self, ev: &mut NrRlcEvents) {
        self.poll_expiry = None;
        self.poll_owed = true;
        let nothing_new = (self.tx.is_empty() && self.retx_bytes == 0) || self.window_stalled();
        if nothing_new {
            let last = self.tx_next.saturating_sub(1);
            let sn = if self.sent.contains_key(&last) { Some(last) } else { self.sent.keys().next().copied() };
            if let Some(sn) = sn {
                self.consider_for_retx(sn, None, ev);
            }
        }
    }

    // ---- receiving side -----------------------------------------------------------------

    fn receive_data(&mut self, now: SimTime, d: NrDataPdu, ev: &mut NrRlcEvents) {
        let x = d.sn;
        let poll = matches!(d.mode, Mode::Am { poll: true, .. });
        if x < self.rx_next || x >= self.rx_next + self.window {
            self.counters.duplicate_pdus_received += 1;
        } else {
            let e = self.rx.entry(x).or_insert(RxSdu {
                id: d.seg.sdu,
                bytes: d.seg.sdu_bytes,
                ranges: Ranges::default(),
                done: false,
            });
            let new = e.ranges.add(d.seg.offset, d.seg.offset + d.seg.len_bytes());
            if new == 0 {
                self.counters.duplicate_pdus_received += 1;
            }
            if !e.done && e.ranges.complete(e.bytes) {
                e.done = true;
                self.counters.sdus_delivered += 1;
                ev.delivered.push(e.id);
            }
            self.after_receive(now, x);
        }
        if poll {
            // §5.3.4: report now if x is already below RX_Highest_Status (or outside the window), else
            // once RX_Highest_Status passes it.
            if x < self.rx_highest_status || x >= self.rx_next + self.window {
                self.status_triggered = true;
            } else {
                self.poll_pending = Some(self.poll_pending.map_or(x, |p| p.max(x)));
            }
        }
    }

    fn complete(&self, sn: u32) -> bool {
        self.rx.get(&sn).is_some_and(|e| e.done)
    }

    /// §5.2.3.2.3: move the state variables and t-Reassembly after SDU `x` received bytes.
    fn after_receive(&mut self, now: SimTime, x: u32) {
        if x >= self.rx_next_highest {
            self.rx_next_highest = x + 1;
        }
        if self.complete(x) {
            if x == self.rx_highest_status {
                self.rx_highest_status = self.first_incomplete_from(x + 1);
            }
            if x == self.rx_next {
                self.rx_next = self.first_incomplete_from(x + 1);
                // Everything below RX_Next is done: forget it.
                self.rx = self.rx.split_off(&self.rx_next);
            }
        }
        self.release_pending_poll();
        if self.reassembly_expiry.is_some() {
            let t = self.rx_status_trigger;
            let stop = t == self.rx_next
                || (t == self.rx_next + 1 && !self.has_gap(self.rx_next))
                || (t > self.rx_next + self.window);
            if stop {
                self.reassembly_expiry = None;
            }
        }
        if self.reassembly_expiry.is_none() && self.waiting_from(self.rx_next) {
            self.reassembly_expiry = Some(now + self.t_reassembly);
            self.rx_status_trigger = self.rx_next_highest;
        }
    }

    fn first_incomplete_from(&self, mut sn: u32) -> u32 {
        while self.complete(sn) {
            sn += 1;
        }
        sn
    }

    /// SDU `sn` has bytes received and misses some before the last of them.
    fn has_gap(&self, sn: u32) -> bool {
        self.rx.get(&sn).is_some_and(|e| !e.done && e.ranges.gaps(e.ranges.end()).next().is_some())
    }

    /// Data wait above `base`: t-Reassembly's start condition (§5.2.3.2.3, §5.2.3.2.4).
    fn waiting_from(&self, base: u32) -> bool {
        self.rx_next_highest > base + 1 || (self.rx_next_highest == base + 1 && self.has_gap(base))
    }

    fn release_pending_poll(&mut self) {
        if self.poll_pending.is_some_and(|x| x < self.rx_highest_status) {
            self.poll_pending = None;
            self.status_triggered = true;
        }
    }

    /// §5.2.3.2.4: t-Reassembly expired: the gaps below the trigger become reportable.
    fn on_reassembly_expiry(&mut self, now: SimTime) {
        self.reassembly_expiry = None;
        self.rx_highest_status = self.first_incomplete_from(self.rx_status_trigger.max(self.rx_next));
        if self.waiting_from(self.rx_highest_status) {
            self.reassembly_expiry = Some(now + self.t_reassembly);
            self.rx_status_trigger = self.rx_next_highest;
        }
        self.status_triggered = true;
        self.release_pending_poll();
    }

    fn status_due(&self, now: SimTime) -> bool {
        self.status_triggered && self.prohibit_expiry.is_none_or(|t| t <= now)
    }

    /// The NACKs a STATUS would carry now, in SN order (§5.3.4).
    fn nacks(&self) -> Vec<NrNack> {
        let mut out: Vec<NrNack> = Vec::new();
        for sn in self.rx_next..self.rx_highest_status {
            match self.rx.get(&sn) {
                Some(e) if e.done => {}
                Some(e) => {
                    let end = e.ranges.end();
                    for (a, b) in e.ranges.gaps(end) {
                        out.push(NrNack { sn, so: Some((a, b - 1)), range: 1 });
                    }
                    if end < e.bytes {
                        out.push(NrNack { sn, so: Some((end, SO_END_OF_SDU)), range: 1 });
                    }
                }
                None => match out.last_mut() {
                    // Consecutive wholly missing SDUs share one NACK with a range (E3).
                    Some(n) if n.so.is_none() && n.sn + n.range.max(1) == sn && n.range.max(1) < MAX_NACK_RANGE => {
                        n.range = n.range.max(1) + 1;
                    }
                    _ => out.push(NrNack { sn, so: None, range: 1 }),
                },
            }
        }
        out
    }

    fn status_estimate_bytes(&self) -> u32 {
        STATUS_FIXED_BYTES + self.nacks().iter().map(|n| nack_bytes(self.sn_bits, n)).sum::<u32>()
    }

    /// §5.3.4: a STATUS PDU within `room` bytes; NACKs that do not fit are left out and ACK_SN
    /// stops at the first of them.
    fn build_status(&mut self, now: SimTime, room: u32) -> Option<NrStatusPdu> {
        if room < STATUS_FIXED_BYTES {
            return None;
        }
        let mut st = NrStatusPdu { sn_bits: self.sn_bits, ack_sn: self.rx_highest_status, nacks: Vec::new() };
        let mut used = STATUS_FIXED_BYTES;
        for n in self.nacks() {
            let b = nack_bytes(self.sn_bits, &n);
            if used + b > room {
                st.ack_sn = n.sn;
                break;
            }
            used += b;
            st.nacks.push(n);
        }
        self.status_triggered = false;
        self.prohibit_expiry = Some(now + self.t_status_prohibit);
        Some(st)
    }

    /// The peer gave SDU `sn` up (maxRetxThreshold): move past it.
    pub fn notify_peer_abandoned(&mut self, now: SimTime, sn: u32, ev: &mut NrRlcEvents) {
        if sn < self.rx_next {
            return;
        }
        let e = self.rx.entry(sn).or_insert(RxSdu {
            id: SduId(u64::MAX),
            bytes: 0,
            ranges: Ranges::default(),
            done: false,
        });
        if !e.done {
            e.done = true;
            if e.id != SduId(u64::MAX) {
                self.counters.sdus_discarded += 1;
                ev.discarded.push(e.id);
            }
        }
        self.after_receive(now, sn);
    }

    // ---- the entity -----------------------------------------------------------------------

    pub fn receive_pdu(&mut self, now: SimTime, pdu: NrRlcPdu, ev: &mut NrRlcEvents) {
        match pdu {
            NrRlcPdu::Data(d) => {
                self.counters.data_pdus_received += 1;
                self.receive_data(now, d, ev);
            }
            NrRlcPdu::Status(st) => {
                self.counters.status_pdus_received += 1;
                self.on_status(&st, ev);
            }
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        // A prohibit expiry matters only while a STATUS waits for it.
        let prohibit = self.prohibit_expiry.filter(|_| self.status_triggered);
        [self.poll_expiry, self.reassembly_expiry, prohibit].into_iter().flatten().min()
    }

    pub fn handle_timeout(&mut self, now: SimTime, ev: &mut NrRlcEvents) {
        if self.reassembly_expiry.is_some_and(|t| t <= now) {
            self.on_reassembly_expiry(now);
        }
        if self.prohibit_expiry.is_some_and(|t| t <= now) {
            self.prohibit_expiry = None;
        }
        if self.poll_expiry.is_some_and(|t| t <= now) {
            self.on_poll_expiry(ev);
        }
    }

    pub fn counters(&self) -> &RlcCounters {
        &self.counters
    }

    /// Unsent SDU bytes plus the bytes sent and not yet acknowledged.
    pub fn buffered_sdu_bytes(&self) -> u64 {
        self.tx.bytes() + self.unacked_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> NrAmConfig {
        NrAmConfig {
            tx_buffer_bytes: 1 << 20,
            sn_bits: 18,
            t_poll_retransmit_ms: 100.0,
            poll_pdu: Some(16),
            poll_byte: None,
            max_retx_threshold: 4,
            on_max_retx: MaxRetxAction::Discard,
            t_reassembly_ms: 20.0,
            t_status_prohibit_ms: 10.0,
        }
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(ms)
    }

    fn opp(bytes: u32, ms: u64) -> TxOpportunity {
        TxOpportunity { bytes, now: at(ms) }
    }

    fn data(p: Option<NrRlcPdu>) -> NrDataPdu {
        match p {
            Some(NrRlcPdu::Data(d)) => d,
            other => panic!("expected a data PDU, got {other:?}"),
        }
    }

    /// One SDU per PDU, SNs per SDU; a 1500-byte SDU in a 600-byte opportunity is cut with the
    /// SO header on the later pieces, all under one SN.
    #[test]
    fn sdus_are_numbered_and_segmented_without_concatenation() {
        let mut tx = AmEntity::new(&cfg());
        for i in 0..2 {
            tx.transmit_sdu(at(0), RlcSdu { id: SduId(2 * i), bytes: 1500 }).unwrap();
        }
        let a = data(tx.notify_tx_opportunity(opp(10_000, 0)));
        assert_eq!(
            (a.sn, a.seg.len_bytes(), a.bytes()),
            (0, 1500, 1503),
            "one whole SDU, 3-byte header; no concatenation"
        );
        let b = data(tx.notify_tx_opportunity(opp(600, 0)));
        assert_eq!((b.sn, b.seg.offset, b.seg.len_bytes()), (1, 0, 597));
        let c = data(tx.notify_tx_opportunity(opp(10_000, 0)));
        assert_eq!((c.sn, c.seg.offset, c.seg.len_bytes(), c.header_bytes()), (1, 597, 903, 5));
        assert!(matches!(c.mode, Mode::Am { poll: true, .. }), "the buffers are empty: poll");
    }

    /// The receiver delivers out of order; a hole left past t-Reassembly is NACKed and repaired.
    #[test]
    fn out_of_order_delivery_then_arq_repairs_a_hole() {
        let (mut tx, mut rx) = (AmEntity::new(&cfg()), AmEntity::new(&cfg()));
        let mut ev = NrRlcEvents::default();
        for i in 0..3 {
            tx.transmit_sdu(at(0), RlcSdu { id: SduId(2 * i), bytes: 100 }).unwrap();
        }
        let pdus: Vec<_> = (0..3).map(|_| tx.notify_tx_opportunity(opp(1000, 0)).unwrap()).collect();
        rx.receive_pdu(at(1), pdus[0].clone(), &mut ev);
        rx.receive_pdu(at(1), pdus[2].clone(), &mut ev); // SN 1 lost
        assert_eq!(ev.delivered, vec![SduId(0), SduId(4)], "SN 2 goes up before SN 1 (PDCP reorders)");
        assert!(rx.poll_timeout().is_some(), "t-Reassembly runs for the hole at SN 1");
        // The poll (SN 2) waits for RX_Highest_Status to pass it: no STATUS before the expiry.
        assert!(!rx.status_due(at(5)));
        rx.handle_timeout(at(21), &mut ev);
        let Some(NrRlcPdu::Status(st)) = rx.notify_tx_opportunity(opp(100, 21)) else { panic!("STATUS") };
        assert_eq!((st.ack_sn, st.nacks.clone()), (3, vec![NrNack { sn: 1, so: None, range: 1 }]));
        tx.receive_pdu(at(22), NrRlcPdu::Status(st), &mut ev);
        let again = data(tx.notify_tx_opportunity(opp(1000, 22)));
        assert_eq!((again.sn, again.seg.sdu), (1, SduId(2)));
        rx.receive_pdu(at(23), NrRlcPdu::Data(again), &mut ev);
        assert_eq!(ev.delivered, vec![SduId(0), SduId(4), SduId(2)]);
        assert_eq!(tx.counters().data_pdus_retransmitted, 1);
    }

    /// A partly received SDU is NACKed by byte range (SOstart, SOend); maxRetx gives it up.
    #[test]
    fn a_missing_segment_is_nacked_by_so_and_max_retx_discards() {
        let (mut tx, mut rx) = (AmEntity::new(&cfg()), AmEntity::new(&cfg()));
        let mut ev = NrRlcEvents::default();
        tx.transmit_sdu(at(0), RlcSdu { id: SduId(0), bytes: 1000 }).unwrap();
        tx.transmit_sdu(at(0), RlcSdu { id: SduId(2), bytes: 100 }).unwrap();
        let first = tx.notify_tx_opportunity(opp(403, 0)).unwrap(); // bytes 0..400
        let _lost = tx.notify_tx_opportunity(opp(405, 0)).unwrap(); // 400..800 lost
        let last = tx.notify_tx_opportunity(opp(305, 0)).unwrap(); // 800..1000
        let next = tx.notify_tx_opportunity(opp(200, 0)).unwrap(); // SN 1
        for p in [first, last, next] {
            rx.receive_pdu(at(1), p, &mut ev);
        }
        rx.handle_timeout(at(30), &mut ev);
        let Some(NrRlcPdu::Status(st)) = rx.notify_tx_opportunity(opp(100, 30)) else { panic!("STATUS") };
        assert_eq!(st.nacks, vec![NrNack { sn: 0, so: Some((400, 799)), range: 1 }]);
        assert_eq!(st.ack_sn, 2);
        for round in 0..5 {
            tx.receive_pdu(at(31 + round), NrRlcPdu::Status(st.clone()), &mut ev);
            if tx.sent.is_empty() {
                break;
            }
            let r = data(tx.notify_tx_opportunity(opp(1000, 31 + round)));
            assert_eq!((r.sn, r.seg.offset, r.seg.len_bytes()), (0, 400, 400));
        }
        assert_eq!(ev.discarded, vec![SduId(0)], "the 5th consideration reaches maxRetxThreshold 4");
        assert_eq!(ev.abandoned, vec![0]);
    }
}
