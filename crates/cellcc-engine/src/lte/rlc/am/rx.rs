//! Receiving side of an AM entity (TS 36.322 §5.1.3.2 reception, §5.2.3 status reporting).
//!
//! The receiving window is VR(R) <= SN < VR(MR) = VR(R) + 512. Whole AMD PDUs and
//! AMD PDU segments fill a slot per SN; when VR(R)'s PDU is complete, VR(R) moves
//! and the SDUs are reassembled in order. STATUS is triggered by a poll (or delayed
//! until VR(MS) passes the polled SN) and by t-Reordering expiry, and sent no more
//! often than t-StatusProhibit allows.

use super::super::pdu::{status_bytes, DataPdu, DataPduKind, Nack, SduSegment, SegmentList, StatusPdu};
use super::super::pdu::{SO_END_OF_PDU, STATUS_FIXED_BITS, STATUS_NACK_BITS, STATUS_SO_PAIR_BITS};
use super::super::reassembly::{Finished, Reassembler};
use super::super::RlcEvents;
use super::ring::SnRing;
use super::AM_SN;
use crate::sim::{SimDuration, SimTime};

/// Byte pieces of an AMD PDU received as segments.
#[derive(Clone, Debug, Default)]
struct PartialPdu {
    /// Received pieces as (SO within the data field, SDU segment), disjoint.
    pieces: Vec<(u32, SduSegment)>,
    /// Data field size, known once the LSF = 1 segment arrived.
    total: Option<u32>,
}

impl PartialPdu {
    fn received_bytes(&self) -> u32 {
        self.pieces.iter().map(|&(_, s)| s.len_bytes()).sum()
    }

    fn is_complete(&self) -> bool {
        self.total.is_some_and(|t| self.received_bytes() == t)
    }

    /// Adds the bytes of `s` at `so` not received before; returns how many were new.
    fn add(&mut self, so: u32, s: SduSegment) -> u32 {
        let mut new = 0;
        let mut cursor = so;
        let end = so + s.len_bytes();
        while cursor < end {
            // Skip bytes already held, then take the run up to the next held piece.
            if let Some(&(pso, ps)) =
                self.pieces.iter().find(|&&(pso, ps)| pso <= cursor && cursor < pso + ps.len_bytes())
            {
                cursor = pso + ps.len_bytes();
                continue;
            }
            let next_held = self.pieces.iter().map(|&(pso, _)| pso).filter(|&p| p > cursor).min().unwrap_or(end);
            let run_end = end.min(next_held);
            let skip = cursor - so;
            let piece = SduSegment::new(s.sdu, s.sdu_bytes, s.offset + skip, run_end - cursor);
            self.pieces.push((cursor, piece));
            new += run_end - cursor;
            cursor = run_end;
        }
        new
    }

    /// The original data field, in `out` (empty): pieces in SO order, adjacent pieces of one SDU merged.
    fn into_segments(mut self, mut out: SegmentList) -> SegmentList {
        self.pieces.sort_unstable_by_key(|&(so, _)| so);
        let mut cur: Option<SduSegment> = None;
        for (_, s) in self.pieces {
            match cur.as_mut() {
                Some(c) if c.sdu == s.sdu && c.offset + c.len_bytes() == s.offset => {
                    *c = SduSegment::new(c.sdu, c.sdu_bytes, c.offset, c.len_bytes() + s.len_bytes())
                }
                _ => {
                    if let Some(c) = cur.replace(s) {
                        out.push(c);
                    }
                }
            }
        }
        if let Some(c) = cur {
            out.push(c);
        }
        out
    }

    /// Missing byte ranges as (SOstart, SOend inclusive), SOend = end-of-PDU marker for the tail.
    fn missing(&self, out: &mut Vec<(u16, u16)>) {
        let mut sorted: Vec<(u32, u32)> = self.pieces.iter().map(|&(so, s)| (so, so + s.len_bytes())).collect();
        sorted.sort_unstable();
        let mut cursor = 0;
        for (a, b) in sorted {
            if a > cursor {
                out.push((cursor as u16, (a - 1) as u16));
            }
            cursor = cursor.max(b);
        }
        match self.total {
            Some(t) if cursor >= t => {}
            _ => out.push((cursor as u16, SO_END_OF_PDU)),
        }
    }
}

#[derive(Clone, Debug, Default)]
enum RxSlot {
    #[default]
    Empty,
    Partial(PartialPdu),
    Complete(SegmentList),
    /// The peer gave this PDU up at maxRetxThreshold: complete for the window,
    /// its SDUs are discarded when reassembly reaches it.
    Abandoned(SegmentList),
}

impl RxSlot {
    fn is_complete(&self) -> bool {
        matches!(self, RxSlot::Complete(_) | RxSlot::Abandoned(_))
    }
}

/// STATUS reporting state (§5.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StatusState {
    Idle,
    /// A STATUS report was triggered and not yet sent.
    Triggered,
}

/// Receiving side state (TS 36.322 §7.1: VR(R), VR(MR), VR(X), VR(MS), VR(H)).
#[derive(Clone, Debug)]
pub(super) struct AmRx {
    t_reordering: SimDuration,
    t_status_prohibit: SimDuration,
    slots: SnRing<RxSlot>,
    vr_r: u16,
    vr_x: u16,
    vr_ms: u16,
    vr_h: u16,
    pub(super) reordering_expiry: Option<SimTime>,
    pub(super) status_prohibit_expiry: Option<SimTime>,
    status: StatusState,
    /// A poll at this SN waits until VR(MS) passes it (§5.2.3).
    delayed_poll: Option<u16>,
    reasm: Reassembler,
    pub(super) finished: Finished,
    /// [`Self::status_estimate_bytes`] since the receiving state last changed: the MAC asks for
    /// it every TTI a STATUS waits, and it walks the window.
    status_bytes: std::cell::Cell<Option<u32>>,
}

impl AmRx {
    pub(super) fn new(t_reordering: SimDuration, t_status_prohibit: SimDuration) -> Self {
        AmRx {
            t_reordering,
            t_status_prohibit,
            slots: SnRing::new(),
            vr_r: 0,
            vr_x: 0,
            vr_ms: 0,
            vr_h: 0,
            reordering_expiry: None,
            status_prohibit_expiry: None,
            status: StatusState::Idle,
            delayed_poll: None,
            reasm: Reassembler::default(),
            finished: Finished::default(),
            status_bytes: std::cell::Cell::new(None),
        }
    }

    /// SN relative to VR(R), the receiver's modulus base (§7.1).
    fn off(&self, sn: u16) -> u16 {
        AM_SN.offset(sn, self.vr_r)
    }

    fn in_window(&self, sn: u16) -> bool {
        self.off(sn) < AM_SN.window()
    }

    /// §5.1.3.2.2 / §5.1.3.2.3 and the poll rule of §5.2.3. Returns false for a duplicate.
    pub(super) fn on_data(&mut self, now: SimTime, d: DataPdu, ev: &mut RlcEvents) -> bool {
        self.status_bytes.set(None);
        let DataPduKind::Amd { poll, resegment } = d.kind else { return false };
        let x = d.sn;
        let fresh = if self.in_window(x) {
            self.place(x, resegment.map(|r| (r.so, r.last)), d.segments, ev)
        } else {
            ev.recycle(d.segments);
            false
        };
        if fresh {
            self.after_placing(now, x, ev);
        }
        if poll {
            // §5.2.3: trigger if discarded, or x < VR(MS), or x >= VR(MR); else wait for VR(MS).
            if !fresh || !self.in_window(x) || self.off(x) < self.off(self.vr_ms) {
                self.status = StatusState::Triggered;
            } else {
                self.delayed_poll = Some(x);
            }
        }
        self.check_delayed_poll();
        fresh
    }

    /// Stores the bytes; false if none of them is new. A list not kept goes back to `ev`.
    fn place(&mut self, x: u16, seg: Option<(u32, bool)>, segments: SegmentList, ev: &mut RlcEvents) -> bool {
        let slot = &mut self.slots[usize::from(x)];
        if slot.is_complete() {
            ev.recycle(segments);
            return false;
        }
        let Some((so, last)) = seg else {
            *slot = RxSlot::Complete(segments);
            return true;
        };
        let mut part = match std::mem::take(slot) {
            RxSlot::Partial(p) => p,
            _ => PartialPdu::default(),
        };
        let mut new = 0;
        let mut pos = so;
        for s in segments.iter() {
            new += part.add(pos, *s);
            pos += s.len_bytes();
        }
        ev.recycle(segments);
        if last {
            part.total = Some(pos);
        }
        let fresh = new > 0 || (last && part.is_complete());
        *slot = if part.is_complete() {
            let mut segments = part.into_segments(ev.segment_list());
            ev.keep_unused(&mut segments);
            RxSlot::Complete(segments)
        } else {
            RxSlot::Partial(part)
        };
        fresh
    }

    /// §5.1.3.2.3: VR(H), VR(MS), VR(R) updates, in-order delivery and t-Reordering.
    fn after_placing(&mut self, now: SimTime, x: u16, ev: &mut RlcEvents) {
        if self.off(x) >= self.off(self.vr_h) {
            self.vr_h = AM_SN.add(x, 1);
        }
        if self.slots[usize::from(self.vr_ms)].is_complete() {
            self.vr_ms = self.first_incomplete_from(self.vr_ms);
        }
        if x == self.vr_r && self.slots[usize::from(x)].is_complete() {
            self.deliver_in_order(ev);
        }
        if self.reordering_expiry.is_some() {
            let vr_mr = AM_SN.add(self.vr_r, AM_SN.window());
            if self.vr_x == self.vr_r || (!self.in_window(self.vr_x) && self.vr_x != vr_mr) {
                self.reordering_expiry = None;
            }
        }
        if self.reordering_expiry.is_none() && self.off(self.vr_h) > 0 {
            self.reordering_expiry = Some(now + self.t_reordering);
            self.vr_x = self.vr_h;
        }
    }

    /// The first SN at or after `from`, up to VR(H), whose PDU is not complete.
    fn first_incomplete_from(&self, from: u16) -> u16 {
        let mut sn = from;
        while sn != self.vr_h && self.slots[usize::from(sn)].is_complete() {
            sn = AM_SN.add(sn, 1);
        }
        sn
    }

    /// VR(R) moves past every complete PDU; their SDUs are reassembled in order (VR(MR) follows).
    fn deliver_in_order(&mut self, ev: &mut RlcEvents) {
        while self.vr_r != self.vr_h && self.slots[usize::from(self.vr_r)].is_complete() {
            match std::mem::take(&mut self.slots[usize::from(self.vr_r)]) {
                RxSlot::Complete(segs) => {
                    self.reasm.push(segs.iter(), ev, &mut self.finished);
                    ev.recycle(segs);
                }
                RxSlot::Abandoned(segs) => {
                    self.reasm.lost(segs.iter(), ev, &mut self.finished);
                    self.reasm.push(segs.iter(), ev, &mut self.finished);
                }
                RxSlot::Empty | RxSlot::Partial(_) => unreachable!("slot checked complete"),
            }
            self.vr_r = AM_SN.add(self.vr_r, 1);
        }
        self.slots.set_base(self.vr_r);
        if self.off(self.vr_ms) > self.off(self.vr_h) {
            self.vr_ms = self.vr_r;
        }
    }

    fn check_delayed_poll(&mut self) {
        if let Some(p) = self.delayed_poll {
            if !self.in_window(p) || self.off(p) < self.off(self.vr_ms) {
                self.delayed_poll = None;
                self.status = StatusState::Triggered;
            }
        }
    }

    /// The peer's transmitter gave PDU `x` up (maxRetxThreshold, discard action).
    pub(super) fn on_abandoned(&mut self, now: SimTime, d: DataPdu, ev: &mut RlcEvents) {
        self.status_bytes.set(None);
        let x = d.sn;
        if !self.in_window(x) || self.slots[usize::from(x)].is_complete() {
            return;
        }
        self.slots[usize::from(x)] = RxSlot::Abandoned(d.segments);
        self.after_placing(now, x, ev);
        self.check_delayed_poll();
    }

    /// §5.1.3.2.4: t-Reordering expired.
    pub(super) fn on_reordering_expiry(&mut self, now: SimTime) {
        self.status_bytes.set(None);
        self.reordering_expiry = None;
        self.vr_ms = self.first_incomplete_from(self.vr_x);
        if self.off(self.vr_h) > self.off(self.vr_ms) {
            self.reordering_expiry = Some(now + self.t_reordering);
            self.vr_x = self.vr_h;
        }
        // §5.2.3: t-Reordering expiry triggers a STATUS report.
        self.status = StatusState::Triggered;
        self.check_delayed_poll();
    }

    /// Re-establishment: every PDU received below VR(H) feeds reassembly in SN order; a missing
    /// one breaks the SDU in progress, and the last one in progress is discarded.
    pub(super) fn reestablish(&mut self, ev: &mut RlcEvents) {
        while self.vr_r != self.vr_h {
            match std::mem::take(&mut self.slots[usize::from(self.vr_r)]) {
                RxSlot::Complete(segs) => self.reasm.push(segs.iter(), ev, &mut self.finished),
                RxSlot::Abandoned(segs) => {
                    self.reasm.lost(segs.iter(), ev, &mut self.finished);
                    self.reasm.push(segs.iter(), ev, &mut self.finished);
                }
                RxSlot::Empty | RxSlot::Partial(_) => self.reasm.gap(ev, &mut self.finished),
            }
            self.vr_r = AM_SN.add(self.vr_r, 1);
        }
        self.slots.set_base(self.vr_r);
        self.reasm.gap(ev, &mut self.finished);
    }

    /// A STATUS report is triggered and t-StatusProhibit is not running.
    pub(super) fn status_due(&self, now: SimTime) -> bool {
        self.status == StatusState::Triggered && self.status_prohibit_expiry.is_none_or(|t| t <= now)
    }

    /// When a triggered STATUS report may be sent (t-StatusProhibit's expiry, or at once), if
    /// one is triggered: [`Self::status_due`] at every time from it on, until the state changes.
    pub(super) fn status_due_from(&self) -> Option<SimTime> {
        (self.status == StatusState::Triggered).then(|| self.status_prohibit_expiry.unwrap_or(SimTime::ZERO))
    }

    /// The size of the STATUS PDU that would be sent now, bytes.
    pub(super) fn status_estimate_bytes(&self) -> u32 {
        if let Some(bytes) = self.status_bytes.get() {
            return bytes;
        }
        let mut ranges = Vec::new();
        let (mut nacks, mut so_pairs) = (0, 0);
        self.for_each_missing(&mut ranges, |_, r| {
            nacks += r.len().max(1) as u32;
            so_pairs += r.len() as u32;
        });
        let bytes = status_bytes(nacks, so_pairs);
        self.status_bytes.set(Some(bytes));
        bytes
    }

    /// Calls `f(sn, so_ranges)` for every SN in [VR(R), VR(MS)) not completely received
    /// (empty `so_ranges` = nothing of it received).
    fn for_each_missing(&self, ranges: &mut Vec<(u16, u16)>, mut f: impl FnMut(u16, &[(u16, u16)])) {
        let mut sn = self.vr_r;
        while sn != self.vr_ms {
            ranges.clear();
            match &self.slots[usize::from(sn)] {
                RxSlot::Empty => f(sn, ranges),
                RxSlot::Partial(p) => {
                    p.missing(ranges);
                    f(sn, ranges);
                }
                RxSlot::Complete(_) | RxSlot::Abandoned(_) => {}
            }
            sn = AM_SN.add(sn, 1);
        }
    }

    /// §5.2.3 / §6.2.1.6: a STATUS PDU of at most `room` bytes: NACKs for SNs in
    /// [VR(R), VR(MS)) not completely received (with SO ranges for partly received
    /// ones), ACK_SN = the first SN not reported as missing. `None` if even the
    /// fixed part does not fit. Starts t-StatusProhibit.
    pub(super) fn build_status(&mut self, now: SimTime, room: u32) -> Option<StatusPdu> {
        self.status_bytes.set(None);
        if room < status_bytes(0, 0) {
            return None;
        }
        let mut st = StatusPdu { ack_sn: self.vr_ms, nacks: Vec::new() };
        let mut bits = STATUS_FIXED_BITS;
        let mut ranges = Vec::new();
        let mut full = false;
        self.for_each_missing(&mut ranges, |sn, r| {
            if full {
                return;
            }
            let cost =
                if r.is_empty() { STATUS_NACK_BITS } else { r.len() as u32 * (STATUS_NACK_BITS + STATUS_SO_PAIR_BITS) };
            if (bits + cost).div_ceil(8) > room {
                full = true;
                st.ack_sn = sn;
                return;
            }
            bits += cost;
            if r.is_empty() {
                st.nacks.push(Nack { sn, so: None });
            } else {
                st.nacks.extend(r.iter().map(|&so| Nack { sn, so: Some(so) }));
            }
        });
        self.status = StatusState::Idle;
        self.status_prohibit_expiry =
            (self.t_status_prohibit > SimDuration::ZERO).then(|| now + self.t_status_prohibit);
        Some(st)
    }

    pub(super) fn on_status_prohibit_expiry(&mut self) {
        self.status_bytes.set(None);
        self.status_prohibit_expiry = None;
    }
}
