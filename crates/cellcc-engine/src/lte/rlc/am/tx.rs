//! Transmitting side of an AM entity (TS 36.322 §5.1.3.1, §5.2.1 ARQ, §5.2.2 polling).
//!
//! ```text
//!  TxBuffer ──new AMD PDU (SN = VT(S))──► window[VT(A) .. VT(S)) ──ACK──► freed, VT(A) moves
//!                                           │  ▲
//!                                   NACK /  │  │ retransmitted whole if it fits, else
//!                          poll expiry  ▼   │  │ as AMD PDU segments (§5.2.1 re-segmentation)
//!                                   pending byte ranges
//! ```
//! Differs from ns-3 LENA 3.44: ns-3 never re-segments (it waits for an opportunity
//! the whole PDU fits in) and ignores SO ranges in NACKs; ns-3 on t-PollRetransmit
//! expiry retransmits every unacknowledged PDU, 3GPP only VT(S) - 1.

use super::super::pdu::{li_bytes, DataPdu, DataPduKind, ResegmentInfo, SduSegment, SegmentList, StatusPdu};
use super::super::pdu::{AMD_HEADER_BYTES, AMD_SEGMENT_HEADER_BYTES, LI_MAX_BYTES, SO_END_OF_PDU, SO_MAX_BYTES};
use super::super::txbuf::TxBuffer;
use super::super::{AmConfig, MaxRetxAction, RlcCounters, RlcEvents, RlcPdu};
use super::ring::SnRing;
use super::AM_SN;
use crate::lte::sap::{RlcSdu, SduId};
use crate::sim::{SimDuration, SimTime};

/// A transmitted AMD PDU awaiting acknowledgement.
#[derive(Clone, Debug)]
struct TxPdu {
    segments: SegmentList,
    data_bytes: u32,
    /// RETX_COUNT (TS 36.322 §7.1): `None` until first considered for retransmission. 16 bits,
    /// saturating: it is only compared with maxRetxThreshold (at most 32, `AmConfig::validate`),
    /// and beside `data_bytes` it keeps a window slot at 160 bytes.
    retx_count: Option<u16>,
    /// Byte ranges `[start, end)` of the data field pending retransmission, ascending, disjoint.
    pending: Vec<(u32, u32)>,
}

/// Transmitting side state (TS 36.322 §7.1: VT(A), VT(S), POLL_SN, PDU_WITHOUT_POLL, BYTE_WITHOUT_POLL).
#[derive(Clone, Debug)]
pub(super) struct AmTx {
    poll_pdu: Option<u32>,
    poll_byte: Option<u32>,
    t_poll_retransmit: SimDuration,
    max_retx: u32,
    on_max_retx: MaxRetxAction,
    pub(super) buf: TxBuffer,
    window: SnRing<Option<TxPdu>>,
    vt_a: u16,
    vt_s: u16,
    poll_sn: u16,
    pdu_without_poll: u32,
    byte_without_poll: u64,
    pub(super) poll_retransmit_expiry: Option<SimTime>,
    /// t-PollRetransmit expired: the next PDU carries a poll (§5.2.2.3).
    poll_owed: bool,
    /// Bytes pending retransmission (data field only).
    retx_bytes: u64,
    /// Byte ranges pending retransmission, over every PDU (each costs a segment header).
    retx_ranges: u64,
    /// Data bytes of PDUs transmitted and not yet acknowledged.
    unacked_bytes: u64,
    /// Emptied pending-range lists of acknowledged PDUs: a PDU considered for retransmission
    /// takes one instead of allocating its first range.
    spare_ranges: Vec<Vec<(u32, u32)>>,
}

impl AmTx {
    pub(super) fn new(c: &AmConfig) -> Self {
        AmTx {
            poll_pdu: c.poll_pdu,
            poll_byte: c.poll_byte,
            t_poll_retransmit: SimDuration::from_ms_f64(c.t_poll_retransmit_ms),
            max_retx: c.max_retx_threshold,
            on_max_retx: c.on_max_retx,
            buf: TxBuffer::new(c.tx_buffer_bytes),
            window: SnRing::new(),
            vt_a: 0,
            vt_s: 0,
            poll_sn: 0,
            pdu_without_poll: 0,
            byte_without_poll: 0,
            poll_retransmit_expiry: None,
            poll_owed: false,
            retx_bytes: 0,
            retx_ranges: 0,
            unacked_bytes: 0,
            spare_ranges: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        self.buf.push(now, sdu)
    }

    /// Every SDU not yet acknowledged, in order: those of the PDUs in the window, then the
    /// buffer's (the one split across both listed once).
    pub(super) fn held(&self) -> Vec<super::super::HeldSdu> {
        let mut out: Vec<super::super::HeldSdu> = Vec::new();
        let mut sn = self.vt_a;
        while sn != self.vt_s {
            if let Some(p) = &self.window[usize::from(sn)] {
                for s in p.segments.iter() {
                    if out.last().is_none_or(|h| h.id < s.sdu) {
                        out.push(super::super::HeldSdu { id: s.sdu, bytes: s.sdu_bytes, begun: true });
                    }
                }
            }
            sn = AM_SN.add(sn, 1);
        }
        for h in self.buf.held() {
            if out.last().is_none_or(|l| l.id < h.id) {
                out.push(h);
            }
        }
        out
    }

    pub(super) fn retx_bytes(&self) -> u64 {
        self.retx_bytes
    }

    pub(super) fn unacked_bytes(&self) -> u64 {
        self.unacked_bytes
    }

    /// Estimated size of the retransmissions queued, headers included: one AMD PDU
    /// segment header per pending range (an upper bound for ranges sent whole). Kept as two
    /// running totals, so the MAC's buffer report every TTI does not walk the window.
    pub(super) fn retx_queue_bytes(&self) -> u64 {
        self.retx_bytes + self.retx_ranges * u64::from(AMD_SEGMENT_HEADER_BYTES)
    }

    /// [`Self::retx_queue_bytes`] by walking the window (tests check the running totals with it).
    #[cfg(test)]
    pub(super) fn retx_queue_bytes_walked(&self) -> u64 {
        let mut bytes = 0;
        let mut sn = self.vt_a;
        while sn != self.vt_s {
            if let Some(p) = &self.window[usize::from(sn)] {
                for &(a, b) in &p.pending {
                    bytes += u64::from(b - a + AMD_SEGMENT_HEADER_BYTES);
                }
            }
            sn = AM_SN.add(sn, 1);
        }
        bytes
    }

    /// SN of `sn` relative to VT(A) (TS 36.322 §7.1: VT(A) is the transmitter's modulus base).
    fn off(&self, sn: u16) -> u16 {
        AM_SN.offset(sn, self.vt_a)
    }

    /// No new AMD PDU may go out: VT(S) = VT(MS) = VT(A) + AM_Window_Size (§5.1.3.1.1).
    fn window_stalled(&self) -> bool {
        self.off(self.vt_s) >= AM_SN.window()
    }

    /// §5.1.3.1.1 + §5.2.1: a retransmission if any is pending and fits, else a new AMD PDU.
    pub(super) fn build(
        &mut self,
        now: SimTime,
        room: u32,
        c: &mut RlcCounters,
        ev: &mut RlcEvents,
        out: &mut Vec<RlcPdu>,
    ) -> bool {
        if self.retx_bytes > 0 {
            if let Some(p) = self.build_retx(now, room, ev) {
                c.data_pdus_retransmitted += 1;
                out.push(RlcPdu::Data(p));
                return true;
            }
        }
        let built = self.build_new(now, room, ev, out);
        c.data_pdus_sent += u64::from(built);
        built
    }

    /// A new AMD PDU built in `out`'s slot: pushed empty, then its segment list filled in place
    /// (built on the stack and pushed, its 176 bytes were copied into the slot, the copy's wide
    /// loads reading back the narrow stores just made: docs/performance.md, "Issue 34: the
    /// 19-site network, third round" and "fourth round").
    fn build_new(&mut self, now: SimTime, room: u32, ev: &mut RlcEvents, out: &mut Vec<RlcPdu>) -> bool {
        if self.window_stalled() || self.buf.is_empty() || room <= AMD_HEADER_BYTES {
            return false;
        }
        // The data field stays within the 15-bit SO range so any byte can be re-segmented (§6.2.2.16).
        let avail = (room - AMD_HEADER_BYTES).min(SO_MAX_BYTES);
        let sn = self.vt_s;
        out.push(RlcPdu::Data(DataPdu {
            kind: DataPduKind::Amd { poll: false, resegment: None },
            sn,
            segments: ev.segment_list(),
        }));
        let Some(RlcPdu::Data(pdu)) = out.last_mut() else { unreachable!("a data PDU was just pushed") };
        self.buf.fill(avail, &mut pdu.segments);
        ev.keep_unused(&mut pdu.segments);
        let data_bytes = pdu.segments.data_bytes();
        self.vt_s = AM_SN.add(self.vt_s, 1);
        self.unacked_bytes += u64::from(data_bytes);
        // §5.2.2.1: count the new PDU and its bytes toward the poll thresholds.
        self.pdu_without_poll += 1;
        self.byte_without_poll += u64::from(data_bytes);
        let by_count = self.poll_pdu.is_some_and(|n| self.pdu_without_poll >= n);
        let by_bytes = self.poll_byte.is_some_and(|n| self.byte_without_poll >= u64::from(n));
        let poll = self.poll_decision(now, by_count || by_bytes);
        pdu.kind = DataPduKind::Amd { poll, resegment: None };
        self.window[usize::from(sn)] =
            Some(TxPdu { segments: ev.copy_of(&pdu.segments), data_bytes, retx_count: None, pending: Vec::new() });
        true
    }

    /// §5.2.2.1: poll when a threshold is reached, when both buffers are now empty,
    /// when the window stalls, or when t-PollRetransmit expired (§5.2.2.3). A poll
    /// sets POLL_SN = VT(S) - 1 and (re)starts t-PollRetransmit.
    fn poll_decision(&mut self, now: SimTime, threshold: bool) -> bool {
        let drained = self.buf.is_empty() && self.retx_bytes == 0;
        if !(threshold || drained || self.window_stalled() || self.poll_owed) {
            return false;
        }
        self.poll_owed = false;
        self.pdu_without_poll = 0;
        self.byte_without_poll = 0;
        self.poll_sn = AM_SN.add(self.vt_s, AM_SN.modulus() - 1);
        self.poll_retransmit_expiry = Some(now + self.t_poll_retransmit);
        true
    }

    /// §5.2.1: the first pending range, whole as an AMD PDU if it is the whole PDU and
    /// fits, else as the largest AMD PDU segment that fits.
    fn build_retx(&mut self, now: SimTime, room: u32, ev: &mut RlcEvents) -> Option<DataPdu> {
        let sn = self.first_pending()?;
        let p = self.window[usize::from(sn)].as_mut()?;
        let (a, b) = p.pending[0];
        let whole_header = AMD_HEADER_BYTES + li_bytes(p.segments.len() as u32 - 1);
        let (segments, taken, resegment) = if a == 0 && b == p.data_bytes && whole_header + p.data_bytes <= room {
            (ev.copy_of(&p.segments), b, None)
        } else {
            if room <= AMD_SEGMENT_HEADER_BYTES {
                return None;
            }
            let (mut segs, taken) = carve(&p.segments, a, b, room - AMD_SEGMENT_HEADER_BYTES, ev.segment_list());
            ev.keep_unused(&mut segs);
            (segs, taken, Some(ResegmentInfo { so: a, last: a + taken == p.data_bytes }))
        };
        if a + taken == b {
            p.pending.remove(0);
            self.retx_ranges -= 1;
        } else {
            p.pending[0].0 = a + taken;
        }
        self.retx_bytes -= u64::from(taken);
        let poll = self.poll_decision(now, false);
        Some(DataPdu { kind: DataPduKind::Amd { poll, resegment }, sn, segments })
    }

    fn first_pending(&self) -> Option<u16> {
        let mut sn = self.vt_a;
        while sn != self.vt_s {
            if self.window[usize::from(sn)].as_ref().is_some_and(|p| !p.pending.is_empty()) {
                return Some(sn);
            }
            sn = AM_SN.add(sn, 1);
        }
        None
    }

    /// §5.2.1 / §5.2.2.2: a STATUS PDU from the peer's receiving side.
    pub(super) fn on_status(&mut self, st: &StatusPdu, c: &mut RlcCounters, ev: &mut RlcEvents) {
        let ack_off = self.off(st.ack_sn);
        if ack_off > self.off(self.vt_s) {
            return; // ACK_SN outside [VT(A), VT(S)]: stale or corrupt, ignore.
        }
        // §5.2.2.2: a STATUS that acks or nacks POLL_SN stops t-PollRetransmit.
        if self.poll_retransmit_expiry.is_some() && self.off(self.poll_sn) < ack_off {
            self.poll_retransmit_expiry = None;
        }
        let vt_a = self.vt_a;
        let mut nacks = st.nacks.iter().filter(|n| AM_SN.offset(n.sn, vt_a) < ack_off).peekable();
        let mut sn = self.vt_a;
        while sn != st.ack_sn {
            let mut nacked = false;
            while let Some(n) = nacks.next_if(|n| n.sn == sn) {
                nacked = true;
                self.consider_for_retx(sn, n.so, c, ev);
            }
            if !nacked {
                self.acknowledge(sn, ev);
            }
            sn = AM_SN.add(sn, 1);
        }
        self.advance_vt_a();
    }

    fn acknowledge(&mut self, sn: u16, ev: &mut RlcEvents) {
        if let Some(mut p) = self.window[usize::from(sn)].take() {
            let pending: u32 = p.pending.iter().map(|&(a, b)| b - a).sum();
            self.retx_bytes -= u64::from(pending);
            self.retx_ranges -= p.pending.len() as u64;
            self.unacked_bytes -= u64::from(p.data_bytes);
            ev.recycle(p.segments);
            if p.pending.capacity() > 0 {
                p.pending.clear();
                self.spare_ranges.push(p.pending);
            }
        }
    }

    /// VT(A) = the smallest SN not yet positively acknowledged (§5.1.3.1.1).
    fn advance_vt_a(&mut self) {
        while self.vt_a != self.vt_s && self.window[usize::from(self.vt_a)].is_none() {
            self.vt_a = AM_SN.add(self.vt_a, 1);
        }
        self.window.set_base(self.vt_a);
    }

    /// §5.2.1: an AMD PDU (or the byte range `so`) is considered for retransmission:
    /// RETX_COUNT starts at 0 and counts each later consideration of a PDU not
    /// already pending; at maxRetxThreshold the configured action applies.
    fn consider_for_retx(&mut self, sn: u16, so: Option<(u16, u16)>, c: &mut RlcCounters, ev: &mut RlcEvents) {
        let Some(p) = self.window[usize::from(sn)].as_mut() else { return };
        let (a, b) = match so {
            None => (0, p.data_bytes),
            Some((s, e)) if e == SO_END_OF_PDU => (u32::from(s), p.data_bytes),
            Some((s, e)) => (u32::from(s), (u32::from(e) + 1).min(p.data_bytes)),
        };
        if a >= b {
            return;
        }
        if p.pending.capacity() == 0 {
            p.pending = self.spare_ranges.pop().unwrap_or_default();
        }
        let ranges_before = p.pending.len() as u64;
        let added = add_range(&mut p.pending, a, b);
        if added == 0 {
            return;
        }
        self.retx_bytes += u64::from(added);
        self.retx_ranges = self.retx_ranges + p.pending.len() as u64 - ranges_before;
        let count = p.retx_count.map_or(0, |n| n.saturating_add(1));
        p.retx_count = Some(count);
        if u32::from(count) >= self.max_retx {
            c.max_retx_reached += 1;
            if self.on_max_retx == MaxRetxAction::Discard {
                self.abandon(sn, ev);
            }
        }
    }

    /// 3GPP option of §5.2.1 (radio link failure), modelled as giving up this PDU:
    /// it leaves the window as if acknowledged and the peer is told (via
    /// [`RlcEvents::abandoned`]) so its receiver moves past it and reports the SDUs.
    fn abandon(&mut self, sn: u16, ev: &mut RlcEvents) {
        let segments = self.window[usize::from(sn)].as_ref().map(|p| ev.copy_of(&p.segments));
        self.acknowledge(sn, ev);
        if let Some(segments) = segments {
            ev.abandoned.push(DataPdu { kind: DataPduKind::Amd { poll: false, resegment: None }, sn, segments });
        }
        self.advance_vt_a();
    }

    /// §5.2.2.3: t-PollRetransmit expired. If nothing new can go out, VT(S) - 1 (or the
    /// oldest unacknowledged PDU if that one was acknowledged) is retransmitted; the next
    /// PDU carries a poll either way.
    pub(super) fn on_poll_retransmit_expiry(&mut self, c: &mut RlcCounters, ev: &mut RlcEvents) {
        self.poll_retransmit_expiry = None;
        self.poll_owed = true;
        let nothing_new = (self.buf.is_empty() && self.retx_bytes == 0) || self.window_stalled();
        if nothing_new && self.vt_a != self.vt_s {
            let last = AM_SN.add(self.vt_s, AM_SN.modulus() - 1);
            let sn = if self.window[usize::from(last)].is_some() { last } else { self.vt_a };
            self.consider_for_retx(sn, None, c, ev);
        }
    }
}

/// Adds `[a, b)` to a sorted disjoint range list; returns how many bytes were new.
fn add_range(ranges: &mut Vec<(u32, u32)>, a: u32, b: u32) -> u32 {
    let covered: u32 = ranges.iter().map(|&(x, y)| y.min(b).saturating_sub(x.max(a))).sum();
    let added = (b - a) - covered;
    if added == 0 {
        return 0;
    }
    ranges.push((a, b));
    ranges.sort_unstable();
    // Merged in place: `kept` ranges stay at the front, each later one joins the last kept or
    // follows it (the list's storage is reused, the TTI allocates nothing).
    let mut kept = 0;
    for i in 0..ranges.len() {
        let (x, y) = ranges[i];
        if kept > 0 && x <= ranges[kept - 1].1 {
            ranges[kept - 1].1 = ranges[kept - 1].1.max(y);
        } else {
            ranges[kept] = (x, y);
            kept += 1;
        }
    }
    ranges.truncate(kept);
    added
}

/// The pieces of data-field bytes `[a, b)` of a PDU made of `segments` that fit in
/// `room` bytes (data + LIs), greedily as new data is (§5.2.1 re-segmentation), in `out` (empty).
fn carve(segments: &SegmentList, a: u32, b: u32, room: u32, mut out: SegmentList) -> (SegmentList, u32) {
    let mut avail = room;
    let mut pos = 0u32;
    for s in segments.iter() {
        let (start, end) = (pos.max(a), (pos + s.len_bytes()).min(b));
        pos += s.len_bytes();
        if start >= end {
            continue;
        }
        if let Some(prev) = out.last() {
            let extra = li_bytes(out.len() as u32) - li_bytes(out.len() as u32 - 1);
            if prev.len_bytes() > LI_MAX_BYTES || avail <= extra {
                break;
            }
            avail -= extra;
        }
        let take = (end - start).min(avail);
        let skip = start - (pos - s.len_bytes());
        out.push(SduSegment::new(s.sdu, s.sdu_bytes, s.offset + skip, take));
        avail -= take;
        if avail == 0 || take < end - start {
            break;
        }
    }
    let taken = out.data_bytes();
    (out, taken)
}

#[cfg(test)]
mod tests {
    use super::{add_range, TxPdu};

    /// A window slot: the PDU's segment list (128 bytes, no tags: `SduSegment`'s length is
    /// never 0), its pending ranges and counts.
    #[test]
    fn a_window_slot_is_160_bytes() {
        assert_eq!(std::mem::size_of::<Option<TxPdu>>(), 160);
    }

    #[test]
    fn ranges_merge_in_place_and_count_only_new_bytes() {
        let mut r = Vec::new();
        assert_eq!(add_range(&mut r, 100, 200), 100);
        assert_eq!(add_range(&mut r, 0, 50), 50);
        assert_eq!(add_range(&mut r, 300, 400), 100);
        assert_eq!(r, [(0, 50), (100, 200), (300, 400)]);
        // Adjacent to the first, overlapping the second: one range, 50 + 0 + 50 new bytes.
        assert_eq!(add_range(&mut r, 50, 250), 100);
        assert_eq!(r, [(0, 250), (300, 400)]);
        assert_eq!(add_range(&mut r, 10, 20), 0);
        assert_eq!(add_range(&mut r, 240, 310), 50);
        assert_eq!(r, [(0, 400)]);
        let capacity = r.capacity();
        assert_eq!(add_range(&mut r, 500, 600), 100);
        assert_eq!(r.capacity(), capacity, "the list's storage is reused");
    }
}
