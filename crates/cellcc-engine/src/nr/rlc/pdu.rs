//! NR RLC PDU descriptors and their header sizes (TS 38.322 §6.2.2). Unlike LTE (TS 36.322), a
//! data PDU carries one SDU or one segment of one SDU: there is no concatenation, the SN numbers
//! SDUs (all segments of an SDU share it), and a segment after the first says where it starts
//! with a 16-bit segment offset (SO).
//!
//! ```text
//!  UMD, complete SDU      : SI(2) R(6)                          = 1 byte   (§6.2.2.3, Figure 6.2.2.3-1)
//!  UMD, 6-bit SN segment  : SI(2) SN(6)          [+ SO(16)]     = 1 [+2]   (Figures 6.2.2.3-2, -4)
//!  UMD, 12-bit SN segment : SI(2) R(2) SN(12)    [+ SO(16)]     = 2 [+2]   (Figures 6.2.2.3-3, -5)
//!  AMD, 12-bit SN         : D/C P SI(2) SN(12)   [+ SO(16)]     = 2 [+2]   (§6.2.2.4, Figures 6.2.2.4-1, -3)
//!  AMD, 18-bit SN         : D/C P SI(2) R(2) SN(18) [+ SO(16)]  = 3 [+2]   (Figures 6.2.2.4-2, -4)
//!  STATUS, 12-bit SN      : D/C CPT(3) ACK_SN(12) E1 R(7) = 3; per NACK NACK_SN(12) E1 E2 E3 R = 2
//!  STATUS, 18-bit SN      : D/C CPT(3) ACK_SN(18) E1 R(1) = 3; per NACK NACK_SN(18) E1 E2 E3 R(3) = 3
//!                           + SOstart(16) SOend(16) = 4 (E2), + NACK range(8) = 1 (E3)   (§6.2.2.5)
//! ```

use crate::lte::rlc::SduSegment;

/// Bytes of the SO field (TS 38.322 §6.2.3.5: 16 bits).
pub const SO_BYTES: u32 = 2;
/// Largest offset the SO field holds (2^16 - 1): an SDU is at most 9000 bytes (TS 38.323 §4.3.1).
pub const SO_MAX: u32 = 0xFFFF;
/// SOend meaning "to the end of the SDU" (TS 38.322 §6.2.3.16: all ones).
pub const SO_END_OF_SDU: u32 = 0xFFFF;
/// A STATUS PDU's fixed part, bytes, with 12- or 18-bit SNs (§6.2.2.5).
pub const STATUS_FIXED_BYTES: u32 = 3;
/// SOstart + SOend of one NACK, bytes.
pub const STATUS_SO_BYTES: u32 = 4;
/// NACK range field, bytes.
pub const STATUS_RANGE_BYTES: u32 = 1;
/// Largest NACK range: the 8-bit field (§6.2.3.19).
pub const MAX_NACK_RANGE: u32 = 255;

/// Which header layout a data PDU uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Um { sn_bits: u8 },
    Am { sn_bits: u8, poll: bool },
}

/// A UMD or AMD PDU: one SDU or one segment of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrDataPdu {
    pub mode: Mode,
    /// The SDU's SN (UMD complete SDUs carry none: 0).
    pub sn: u32,
    pub seg: SduSegment,
}

impl NrDataPdu {
    pub fn header_bytes(&self) -> u32 {
        header_bytes(self.mode, self.seg.offset, self.seg.is_last())
    }

    pub fn bytes(&self) -> u32 {
        self.header_bytes() + self.seg.len_bytes()
    }
}

/// Header bytes of a data PDU whose piece starts at `offset` of its SDU and `ends_sdu` or not.
pub fn header_bytes(mode: Mode, offset: u32, ends_sdu: bool) -> u32 {
    let so = if offset > 0 { SO_BYTES } else { 0 };
    match mode {
        // A complete SDU in UM needs no SN.
        Mode::Um { .. } if offset == 0 && ends_sdu => 1,
        Mode::Um { sn_bits } => (if sn_bits == 6 { 1 } else { 2 }) + so,
        Mode::Am { sn_bits, .. } => (if sn_bits == 12 { 2 } else { 3 }) + so,
    }
}

/// One NACK of a STATUS PDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrNack {
    pub sn: u32,
    /// Missing bytes `[start, end]` of the SDU (`end` = [`SO_END_OF_SDU`]: to its end); None: the whole SDU.
    pub so: Option<(u32, u32)>,
    /// This SN and the `range - 1` after it are all missing whole (E3, `range` > 1).
    pub range: u32,
}

/// A STATUS PDU (TS 38.322 §6.2.2.5).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NrStatusPdu {
    pub sn_bits: u8,
    /// Every SN below it that no NACK names was received (§6.2.3.11).
    pub ack_sn: u32,
    pub nacks: Vec<NrNack>,
}

impl NrStatusPdu {
    pub fn bytes(&self) -> u32 {
        STATUS_FIXED_BYTES + self.nacks.iter().map(|n| nack_bytes(self.sn_bits, n)).sum::<u32>()
    }
}

/// Bytes one NACK takes.
pub fn nack_bytes(sn_bits: u8, n: &NrNack) -> u32 {
    let base = if sn_bits == 12 { 2 } else { 3 };
    base + if n.so.is_some() { STATUS_SO_BYTES } else { 0 } + if n.range > 1 { STATUS_RANGE_BYTES } else { 0 }
}

/// What NR RLC hands the MAC for one opportunity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NrRlcPdu {
    Data(NrDataPdu),
    Status(NrStatusPdu),
}

impl NrRlcPdu {
    pub fn bytes(&self) -> u32 {
        match self {
            NrRlcPdu::Data(d) => d.bytes(),
            NrRlcPdu::Status(s) => s.bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::sap::SduId;

    fn seg(offset: u32, len: u32, sdu_bytes: u32) -> SduSegment {
        SduSegment::new(SduId(0), sdu_bytes, offset, len)
    }

    #[test]
    fn headers_match_ts_38_322_figures() {
        let um12 = Mode::Um { sn_bits: 12 };
        // Figure 6.2.2.3-1: a complete SDU, 1 byte; 6.2.2.3-3: first segment, 12-bit SN, 2 bytes;
        // 6.2.2.3-5: a later segment adds the 16-bit SO.
        assert_eq!(header_bytes(um12, 0, true), 1);
        assert_eq!(header_bytes(um12, 0, false), 2);
        assert_eq!(header_bytes(um12, 700, true), 4);
        assert_eq!(header_bytes(Mode::Um { sn_bits: 6 }, 0, false), 1);
        let am18 = Mode::Am { sn_bits: 18, poll: false };
        assert_eq!((header_bytes(am18, 0, true), header_bytes(am18, 10, true)), (3, 5));
        assert_eq!(header_bytes(Mode::Am { sn_bits: 12, poll: true }, 0, true), 2);
        let d = NrDataPdu { mode: am18, sn: 5, seg: seg(0, 1502, 1502) };
        assert_eq!(d.bytes(), 1505);
    }

    #[test]
    fn status_sizes_match_6_2_2_5() {
        let mut st = NrStatusPdu { sn_bits: 18, ack_sn: 9, nacks: vec![] };
        assert_eq!(st.bytes(), 3);
        st.nacks.push(NrNack { sn: 2, so: None, range: 1 });
        assert_eq!(st.bytes(), 6, "3 + one 18-bit NACK of 3");
        st.nacks.push(NrNack { sn: 4, so: Some((0, 99)), range: 1 });
        st.nacks.push(NrNack { sn: 6, so: None, range: 2 });
        assert_eq!(st.bytes(), 3 + 3 + 7 + 4);
        st.sn_bits = 12;
        assert_eq!(st.bytes(), 3 + 2 + 6 + 3);
    }
}
