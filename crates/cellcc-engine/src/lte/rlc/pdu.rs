//! RLC PDU descriptors and their exact header sizes (TS 36.322 §6.2).
//!
//! A PDU carries no bytes: it lists the SDU segments in its data field and
//! its header size, computed bit-exactly from §6.2.1:
//!
//! ```text
//! UMD, 5-bit SN   : FI(2) E(1) SN(5)                         = 1 byte   (§6.2.1.3, Figure 6.2.1.3-1)
//! UMD, 10-bit SN  : R1(3) FI(2) E(1) SN(10)                  = 2 bytes  (Figure 6.2.1.3-2)
//! AMD PDU         : D/C RF P FI(2) E SN(10)                  = 2 bytes  (§6.2.1.4, Figure 6.2.1.4-1)
//! AMD PDU segment : D/C RF P FI(2) E SN(10) LSF SO(15)       = 4 bytes  (§6.2.1.5, Figure 6.2.1.5-1)
//! + per extra SDU : E(1) LI(11) = 12 bits, padded to a byte  (§6.2.2.4, §6.2.2.5)
//! STATUS          : D/C CPT(3) ACK_SN(10) E1                 = 15 bits  (§6.2.1.6)
//!   + per NACK    : NACK_SN(10) E1 E2 [SOstart(15) SOend(15)] = 12 [+30] bits, padded to a byte
//! ```

use std::num::NonZeroU32;

use crate::lte::sap::SduId;

/// Bits of one LI field, TS 36.322 §6.2.2.5 (11-bit LI).
pub const LI_BITS: u32 = 11;
/// Largest length an LI can express, bytes (2^11 - 1): a longer SDU segment
/// can only be the last one of its PDU (it then needs no LI).
pub const LI_MAX_BYTES: u32 = (1 << LI_BITS) - 1;
/// E + LI, bits (TS 36.322 §6.2.1.3/§6.2.1.4 extension part).
pub const E_LI_BITS: u32 = 1 + LI_BITS;
/// UMD PDU fixed header with 5-bit SN, bytes (TS 36.322 Figure 6.2.1.3-1).
pub const UMD_HEADER_SN5_BYTES: u32 = 1;
/// UMD PDU fixed header with 10-bit SN, bytes (TS 36.322 Figure 6.2.1.3-2).
pub const UMD_HEADER_SN10_BYTES: u32 = 2;
/// AMD PDU fixed header, bytes (TS 36.322 Figure 6.2.1.4-1).
pub const AMD_HEADER_BYTES: u32 = 2;
/// AMD PDU segment fixed header (adds LSF + 15-bit SO), bytes (TS 36.322 Figure 6.2.1.5-1).
pub const AMD_SEGMENT_HEADER_BYTES: u32 = 4;
/// STATUS PDU fixed part, bits: D/C(1) CPT(3) ACK_SN(10) E1(1) (TS 36.322 §6.2.1.6).
pub const STATUS_FIXED_BITS: u32 = 15;
/// One NACK_SN with its E1 and E2, bits (TS 36.322 §6.2.1.6).
pub const STATUS_NACK_BITS: u32 = 12;
/// SOstart + SOend of one NACK, bits (TS 36.322 §6.2.2.17, §6.2.2.18: 15 bits each).
pub const STATUS_SO_PAIR_BITS: u32 = 30;
/// SOend value meaning "to the end of the AMD PDU" (TS 36.322 §6.2.2.18: "111111111111111").
pub const SO_END_OF_PDU: u16 = 0x7FFF;
/// Largest segment offset the 15-bit SO field holds, bytes (TS 36.322 §6.2.2.16).
pub const SO_MAX_BYTES: u32 = 0x7FFF;

/// Bytes taken by `count` E+LI fields: 12 bits each, the last odd one padded
/// with 4 bits (TS 36.322 §6.2.1.3: "padding ... when the number of LIs is odd").
pub const fn li_bytes(count: u32) -> u32 {
    (count * E_LI_BITS).div_ceil(8)
}

/// One piece of one SDU inside a PDU's data field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SduSegment {
    pub sdu: SduId,
    /// Size of the whole SDU, bytes.
    pub sdu_bytes: u32,
    /// Where this piece starts within the SDU, bytes.
    pub offset: u32,
    /// Length of this piece, bytes: never 0, so an `Option<SduSegment>` (a [`SegmentList`]'s
    /// inline slot) needs no tag of its own and a PDU's list is 32 bytes shorter.
    len: NonZeroU32,
}

impl SduSegment {
    /// The piece `offset..offset + len` of SDU `sdu` (`sdu_bytes` long); `len` > 0.
    #[inline]
    pub fn new(sdu: SduId, sdu_bytes: u32, offset: u32, len: u32) -> Self {
        SduSegment { sdu, sdu_bytes, offset, len: NonZeroU32::new(len).expect("empty SDU segment") }
    }

    /// Length of this piece, bytes (> 0).
    #[inline]
    pub fn len_bytes(&self) -> u32 {
        self.len.get()
    }

    pub fn is_first(&self) -> bool {
        self.offset == 0
    }
    pub fn is_last(&self) -> bool {
        self.offset + self.len_bytes() == self.sdu_bytes
    }
}

/// Inline capacity of [`SegmentList`]: a TTI's PDU rarely carries more SDU pieces.
const INLINE_SEGMENTS: usize = 4;

/// The SDU segments of one PDU, in data-field order: up to four inline, more on the heap
/// (a small-vector without the dependency; most PDUs hold 1-3 pieces).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SegmentList {
    len: u8,
    inline: [Option<SduSegment>; INLINE_SEGMENTS],
    spill: Vec<SduSegment>,
}

impl Clone for SegmentList {
    fn clone(&self) -> Self {
        SegmentList { len: self.len, inline: self.inline, spill: self.spill.clone() }
    }

    /// Reuses this list's heap spill (the derived one would allocate a new one).
    fn clone_from(&mut self, source: &Self) {
        self.len = source.len;
        self.inline = source.inline;
        self.spill.clone_from(&source.spill);
    }
}

impl SegmentList {
    pub fn new() -> Self {
        SegmentList::default()
    }

    pub fn push(&mut self, s: SduSegment) {
        if (self.len as usize) < INLINE_SEGMENTS {
            self.inline[self.len as usize] = Some(s);
            self.len += 1;
        } else {
            self.spill.push(s);
        }
    }

    pub fn len(&self) -> usize {
        self.len as usize + self.spill.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &SduSegment> + '_ {
        self.inline[..self.len as usize].iter().flatten().chain(self.spill.iter())
    }

    pub fn first(&self) -> Option<&SduSegment> {
        self.inline[0].as_ref()
    }

    pub fn last(&self) -> Option<&SduSegment> {
        self.spill.last().or_else(|| self.len.checked_sub(1).and_then(|i| self.inline[i as usize].as_ref()))
    }

    /// Whether the pieces take heap storage (more than fit inline).
    pub fn spills(&self) -> bool {
        !self.spill.is_empty()
    }

    /// Whether the list holds heap storage worth reusing (it once spilled).
    pub fn holds_heap(&self) -> bool {
        self.spill.capacity() > 0
    }

    /// The heap storage this list holds and does not use (its pieces fit inline), taken out.
    pub fn take_unused_heap(&mut self) -> Option<Vec<SduSegment>> {
        (self.spill.is_empty() && self.holds_heap()).then(|| std::mem::take(&mut self.spill))
    }

    /// An empty list that spills into `heap` (emptied first), so it allocates no storage.
    pub fn with_heap(mut heap: Vec<SduSegment>) -> Self {
        heap.clear();
        SegmentList { spill: heap, ..SegmentList::default() }
    }

    /// The list's heap storage, for [`Self::with_heap`].
    pub fn into_heap(self) -> Vec<SduSegment> {
        self.spill
    }

    /// Empties the list, keeping its heap storage (equal to a new list but for that).
    pub fn clear(&mut self) {
        self.len = 0;
        self.inline = [None; INLINE_SEGMENTS];
        self.spill.clear();
    }

    /// Sum of the pieces' lengths: the data field, bytes.
    pub fn data_bytes(&self) -> u32 {
        self.iter().map(SduSegment::len_bytes).sum()
    }
}

/// Framing info (TS 36.322 §6.2.2.6): does the data field start / end on an SDU boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FramingInfo {
    pub first_byte_starts_sdu: bool,
    pub last_byte_ends_sdu: bool,
}

/// AMD PDU segment fields (TS 36.322 §6.2.1.5): where this piece sits in the original AMD PDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResegmentInfo {
    /// SO: offset of this piece within the original AMD PDU's data field, bytes.
    pub so: u32,
    /// LSF: this piece ends the original AMD PDU.
    pub last: bool,
}

/// Which header layout a data PDU uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataPduKind {
    /// TMD PDU: the SDU itself, no header (TS 36.322 §6.2.1.2).
    Tmd,
    /// UMD PDU with a 5- or 10-bit SN (TS 36.322 §6.2.1.3).
    Umd { sn_bits: u8 },
    /// AMD PDU (TS 36.322 §6.2.1.4), or an AMD PDU segment when `resegment` is set (§6.2.1.5).
    Amd { poll: bool, resegment: Option<ResegmentInfo> },
}

/// A TMD, UMD or AMD PDU (or AMD PDU segment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataPdu {
    pub kind: DataPduKind,
    /// Sequence number (0 for TMD).
    pub sn: u16,
    pub segments: SegmentList,
}

impl DataPdu {
    /// Header size, bytes, per TS 36.322 §6.2.1 (fixed part + one E/LI per SDU piece but the last).
    pub fn header_bytes(&self) -> u32 {
        let lis = self.segments.len().saturating_sub(1) as u32;
        match self.kind {
            DataPduKind::Tmd => 0,
            DataPduKind::Umd { sn_bits } => um_fixed_header_bytes(sn_bits) + li_bytes(lis),
            DataPduKind::Amd { resegment: None, .. } => AMD_HEADER_BYTES + li_bytes(lis),
            DataPduKind::Amd { resegment: Some(_), .. } => AMD_SEGMENT_HEADER_BYTES + li_bytes(lis),
        }
    }

    pub fn data_bytes(&self) -> u32 {
        self.segments.data_bytes()
    }

    pub fn framing(&self) -> FramingInfo {
        FramingInfo {
            first_byte_starts_sdu: self.segments.first().is_some_and(SduSegment::is_first),
            last_byte_ends_sdu: self.segments.last().is_some_and(SduSegment::is_last),
        }
    }
}

/// UMD PDU fixed header size for an SN length, bytes (TS 36.322 §6.2.1.3).
pub const fn um_fixed_header_bytes(sn_bits: u8) -> u32 {
    if sn_bits == 5 {
        UMD_HEADER_SN5_BYTES
    } else {
        UMD_HEADER_SN10_BYTES
    }
}

/// One NACK of a STATUS PDU (TS 36.322 §6.2.1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nack {
    pub sn: u16,
    /// Missing byte range of the AMD PDU (SOstart, SOend inclusive; SOend =
    /// [`SO_END_OF_PDU`] for "to the end"), or `None` for the whole PDU.
    pub so: Option<(u16, u16)>,
}

/// A STATUS PDU (TS 36.322 §6.2.1.6).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusPdu {
    /// ACK_SN: the next SN not yet received and not NACKed, every SN below it
    /// and not in `nacks` was received (TS 36.322 §6.2.2.14).
    pub ack_sn: u16,
    pub nacks: Vec<Nack>,
}

impl StatusPdu {
    /// Size, bytes: 15 bits + 12 bits per NACK + 30 per SO pair, rounded up (TS 36.322 §6.2.1.6).
    pub fn bytes(&self) -> u32 {
        let so_pairs = self.nacks.iter().filter(|n| n.so.is_some()).count() as u32;
        status_bytes(self.nacks.len() as u32, so_pairs)
    }
}

/// Size of a STATUS PDU with `nacks` NACK_SNs, `so_pairs` of them with SO ranges, bytes.
pub const fn status_bytes(nacks: u32, so_pairs: u32) -> u32 {
    (STATUS_FIXED_BITS + nacks * STATUS_NACK_BITS + so_pairs * STATUS_SO_PAIR_BITS).div_ceil(8)
}

/// What RLC hands the MAC for one transmission opportunity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RlcPdu {
    Data(DataPdu),
    Status(StatusPdu),
}

impl RlcPdu {
    /// The whole PDU, header included, bytes.
    pub fn bytes(&self) -> u32 {
        match self {
            RlcPdu::Data(d) => d.header_bytes() + d.data_bytes(),
            RlcPdu::Status(s) => s.bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pdu(kind: DataPduKind, pieces: u32) -> DataPdu {
        let mut segments = SegmentList::new();
        for i in 0..pieces {
            segments.push(SduSegment::new(SduId(u64::from(i)), 100, 0, 100));
        }
        DataPdu { kind, sn: 0, segments }
    }

    /// A piece's length is never 0: an empty inline slot takes no tag, and the list (in every
    /// PDU the AM windows keep and every TB's payload) is four pieces and a `Vec`, 128 bytes.
    #[test]
    fn an_empty_slot_costs_no_tag() {
        use std::mem::size_of;
        assert_eq!(size_of::<Option<SduSegment>>(), size_of::<SduSegment>());
        assert_eq!(size_of::<SduSegment>(), 24);
        assert_eq!(size_of::<SegmentList>(), 128);
        assert_eq!(size_of::<RlcPdu>(), 144);
    }

    #[test]
    #[should_panic(expected = "empty SDU segment")]
    fn an_empty_piece_is_refused() {
        SduSegment::new(SduId(0), 100, 0, 0);
    }

    #[test]
    fn data_pdu_headers_match_ts_36_322_figures() {
        // Figure 6.2.1.3-1/-2: UMD 1 byte (5-bit SN) or 2 bytes (10-bit SN), one SDU, no LI.
        assert_eq!(pdu(DataPduKind::Umd { sn_bits: 5 }, 1).header_bytes(), 1);
        assert_eq!(pdu(DataPduKind::Umd { sn_bits: 10 }, 1).header_bytes(), 2);
        // Two SDUs: one E+LI = 12 bits + 4 padding bits = 2 bytes (Figure 6.2.1.3-3).
        assert_eq!(pdu(DataPduKind::Umd { sn_bits: 10 }, 2).header_bytes(), 4);
        // Three SDUs: two E+LI = 24 bits = 3 bytes, no padding (Figure 6.2.1.3-4).
        assert_eq!(pdu(DataPduKind::Umd { sn_bits: 10 }, 3).header_bytes(), 5);
        // AMD PDU: 2 bytes (Figure 6.2.1.4-1); AMD PDU segment: 4 bytes (Figure 6.2.1.5-1);
        // four pieces: 3 E+LI = 36 bits -> 5 bytes.
        let amd = |resegment| DataPduKind::Amd { poll: false, resegment };
        assert_eq!(pdu(amd(None), 1).header_bytes(), 2);
        assert_eq!(pdu(amd(Some(ResegmentInfo { so: 0, last: true })), 4).header_bytes(), 9);
        assert_eq!(pdu(DataPduKind::Tmd, 1).header_bytes(), 0);
    }

    #[test]
    fn status_pdu_sizes_match_section_6_2_1_6() {
        // 15 bits fixed -> 2 bytes; +12 per NACK; +30 per SO pair; rounded up to bytes.
        assert_eq!(status_bytes(0, 0), 2);
        assert_eq!(status_bytes(1, 0), 4); // 27 bits
        assert_eq!(status_bytes(2, 0), 5); // 39 bits
        assert_eq!(status_bytes(1, 1), 8); // 57 bits
        let st = StatusPdu { ack_sn: 7, nacks: vec![Nack { sn: 3, so: None }, Nack { sn: 5, so: Some((0, 99)) }] };
        assert_eq!(st.bytes(), 9); // 15 + 24 + 30 = 69 bits
    }

    #[test]
    fn segment_list_spills_past_four_pieces_in_order() {
        let p = pdu(DataPduKind::Umd { sn_bits: 10 }, 6);
        let ids: Vec<u64> = p.segments.iter().map(|s| s.sdu.0).collect();
        assert_eq!(ids, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(p.segments.last().unwrap().sdu, SduId(5));
        assert_eq!(p.data_bytes(), 600);
        assert_eq!(p.framing(), FramingInfo { first_byte_starts_sdu: true, last_byte_ends_sdu: true });
    }

    #[test]
    fn heap_storage_comes_back_empty_and_is_reused() {
        let spilled = pdu(DataPduKind::Umd { sn_bits: 10 }, 6).segments;
        let heap = spilled.into_heap();
        let (ptr, cap) = (heap.as_ptr(), heap.capacity());
        assert_eq!(heap.len(), 2, "the two pieces past the inline four");
        let mut list = SegmentList::with_heap(heap);
        assert!(list.is_empty() && list.holds_heap() && !list.spills());
        assert_eq!(list, SegmentList { spill: Vec::with_capacity(cap), ..SegmentList::default() });
        for i in 0..6 {
            list.push(SduSegment::new(SduId(i), 100, 0, 100));
        }
        assert_eq!(list.len(), 6);
        let heap = list.into_heap();
        assert_eq!((heap.as_ptr(), heap.capacity()), (ptr, cap), "no new allocation");
        // A list whose pieces fit inline gives its unused storage back.
        let mut small = SegmentList::with_heap(heap);
        small.push(SduSegment::new(SduId(0), 100, 0, 100));
        assert_eq!(small.take_unused_heap().map(|h| h.as_ptr()), Some(ptr));
        assert!(!small.holds_heap() && small.take_unused_heap().is_none());
    }
}
