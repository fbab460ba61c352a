//! In-sequence SDU reassembly from data fields taken in SN order
//! (TS 36.322 §5.1.2.2.3 UM and §5.1.3.2.3 AM: "reassemble RLC SDUs ... and deliver
//! the reassembled RLC SDUs to upper layer in ascending order of the RLC SN").
//!
//! Because the transmitter maps SDUs to SNs in arrival order, SDU ids rise with the
//! SN: an id at or below the last one finished is a remnant of an SDU already
//! delivered or given up on, and is skipped so each SDU is reported exactly once.

use super::pdu::SduSegment;
use super::RlcEvents;
use crate::lte::sap::SduId;

/// An SDU whose first pieces arrived in order.
#[derive(Clone, Copy, Debug)]
struct Partial {
    id: SduId,
    next_offset: u32,
}

/// Reassembly state of one receiving entity.
#[derive(Clone, Debug, Default)]
pub struct Reassembler {
    partial: Option<Partial>,
    last_finished: Option<SduId>,
    /// SDUs above `last_finished` already reported discarded because a PDU carrying a
    /// piece of them was lost below RLC; their other pieces are dropped silently.
    doomed: Vec<SduId>,
}

/// Delivered / discarded totals a reassembler adds to.
#[derive(Clone, Copy, Debug, Default)]
pub struct Finished {
    pub delivered: u64,
    pub discarded: u64,
}

impl Reassembler {
    fn is_finished(&self, id: SduId) -> bool {
        self.last_finished.is_some_and(|f| id <= f)
    }

    fn finish(&mut self, id: SduId) {
        let last = self.last_finished.map_or(id, |f| f.max(id));
        self.last_finished = Some(last);
        self.doomed.retain(|&d| d > last);
    }

    fn discard(&mut self, id: SduId, ev: &mut RlcEvents, n: &mut Finished) {
        let reported = self.doomed.contains(&id);
        self.finish(id);
        if !reported {
            ev.discarded.push(id);
            n.discarded += 1;
        }
    }

    /// The data field of the next PDU in SN order.
    pub fn push<'a>(&mut self, segs: impl Iterator<Item = &'a SduSegment>, ev: &mut RlcEvents, n: &mut Finished) {
        for s in segs {
            self.push_segment(s, ev, n);
        }
    }

    fn push_segment(&mut self, s: &SduSegment, ev: &mut RlcEvents, n: &mut Finished) {
        if self.is_finished(s.sdu) {
            return;
        }
        if self.doomed.contains(&s.sdu) {
            // Reached in SN order: it is finished now, whatever partial of it was kept.
            if self.partial.is_some_and(|p| p.id == s.sdu) {
                self.partial = None;
            }
            self.finish(s.sdu);
            return;
        }
        if let Some(p) = self.partial.take() {
            if p.id == s.sdu && p.next_offset == s.offset {
                self.extend(s, ev, n);
                return;
            }
            // A piece of this SDU is missing: it cannot be reassembled (§5.1.2.2.3).
            self.discard(p.id, ev, n);
            if self.is_finished(s.sdu) {
                return;
            }
        }
        if s.offset == 0 {
            self.extend(s, ev, n);
        } else {
            // Its head was lost.
            self.discard(s.sdu, ev, n);
        }
    }

    fn extend(&mut self, s: &SduSegment, ev: &mut RlcEvents, n: &mut Finished) {
        if s.is_last() {
            self.finish(s.sdu);
            ev.delivered.push(s.sdu);
            n.delivered += 1;
        } else {
            self.partial = Some(Partial { id: s.sdu, next_offset: s.offset + s.len_bytes() });
        }
    }

    /// A PDU in the sequence will never arrive and its content is unknown:
    /// the SDU being reassembled cannot complete.
    pub fn gap(&mut self, ev: &mut RlcEvents, n: &mut Finished) {
        if let Some(p) = self.partial.take() {
            self.discard(p.id, ev, n);
        }
    }

    /// A PDU was lost below RLC (HARQ gave up) and its content is known: every SDU
    /// it touches can never be reassembled, so it is reported discarded now, once,
    /// and finished when reassembly reaches it in SN order.
    pub fn lost<'a>(&mut self, segs: impl Iterator<Item = &'a SduSegment>, ev: &mut RlcEvents, n: &mut Finished) {
        for s in segs {
            if !self.is_finished(s.sdu) && !self.doomed.contains(&s.sdu) {
                self.doomed.push(s.sdu);
                ev.discarded.push(s.sdu);
                n.discarded += 1;
            }
        }
    }

    /// Pieces of a PDU that arrived after its SN was given up: SDUs in it not yet
    /// finished (and not in reassembly) are given up on now, so each is reported once.
    pub fn late<'a>(&mut self, segs: impl Iterator<Item = &'a SduSegment>, ev: &mut RlcEvents, n: &mut Finished) {
        for s in segs {
            let in_progress = self.partial.is_some_and(|p| p.id == s.sdu);
            if !self.is_finished(s.sdu) && !in_progress {
                self.discard(s.sdu, ev, n);
            }
        }
    }
}
