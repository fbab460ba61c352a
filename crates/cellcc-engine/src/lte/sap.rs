//! Primitives between the LTE layers (PDCP <-> RLC <-> MAC <-> PHY).
//!
//! Source: ns-3 LENA design, "RLC/MAC SAP" and "MAC/PHY SAP"
//! (`src/lte/doc/source/lte-design.rst`), TS 36.322 §5 and TS 36.321 §5.4.
//! Layers exchange descriptors, never bytes: an SDU is an id of the IP packet
//! the cell keeps, plus its size.

use crate::sim::{SimDuration, SimTime};

/// Which way across the air interface: the radio's direction (`Downlink`: eNB to UE).
pub use crate::radio::LinkDir;

/// Index of a UE within its cell, in scenario order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UeIndex(pub u16);

impl UeIndex {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Identity of one RLC SDU within its bearer and direction: assigned in arrival
/// order and never reused, so a late or duplicate PDU can never name another
/// packet. The cell keeps the packet itself; layers carry only this id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SduId(pub u64);

/// PDCP -> RLC (`TransmitPdcpPdu`): one RLC SDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RlcSdu {
    pub id: SduId,
    /// PDCP PDU size (PDCP header + IP datagram), bytes.
    pub bytes: u32,
}

/// RLC -> MAC (`ReportBufferStatus`, TS 36.321 §5.4.5): what one bearer holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStatus {
    /// New data waiting for its first transmission, bytes (RLC headers estimated in).
    pub tx_queue_bytes: u32,
    /// Head-of-line delay of the new data.
    pub tx_queue_hol_delay: SimDuration,
    /// AM: PDUs waiting for retransmission, bytes.
    pub retx_queue_bytes: u32,
    /// AM: a STATUS PDU is due, bytes.
    pub status_pdu_bytes: u32,
}

impl BufferStatus {
    pub fn total_bytes(&self) -> u32 {
        self.tx_queue_bytes + self.retx_queue_bytes + self.status_pdu_bytes
    }

    pub fn is_empty(&self) -> bool {
        self.total_bytes() == 0
    }
}

/// MAC -> RLC (`NotifyTxOpportunity`, TS 36.321 §5.4.3.1): room for one RLC PDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxOpportunity {
    /// Bytes the RLC PDU may occupy, its header included.
    pub bytes: u32,
    pub now: SimTime,
}

/// Resource blocks as a bitmask: bit `i` = RB `i` (at most 110 RBs, TS 36.213 Table 7.1.7.2.1-1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RbMask(pub u128);

impl RbMask {
    /// The largest number of RBs a mask can hold (TS 36.213 tables stop at 110 PRBs).
    pub const MAX_RBS: u32 = 110;

    pub fn range(first: u32, count: u32) -> RbMask {
        debug_assert!(first + count <= Self::MAX_RBS);
        if count == 0 {
            return RbMask(0);
        }
        RbMask(((1u128 << count) - 1) << first)
    }

    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    pub fn contains(self, rb: u32) -> bool {
        rb < 128 && self.0 & (1u128 << rb) != 0
    }

    pub fn union(self, o: RbMask) -> RbMask {
        RbMask(self.0 | o.0)
    }

    pub fn overlaps(self, o: RbMask) -> bool {
        self.0 & o.0 != 0
    }

    /// The RBs in both masks.
    pub fn intersection(self, o: RbMask) -> RbMask {
        RbMask(self.0 & o.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Indices of the RBs in the mask, lowest first.
    pub fn iter(self) -> impl Iterator<Item = u32> + Clone {
        let mut m = self.0;
        std::iter::from_fn(move || {
            if m == 0 {
                return None;
            }
            let i = m.trailing_zeros();
            m &= m - 1;
            Some(i)
        })
    }

    /// The runs of adjacent RBs in the mask as index ranges, lowest first: the RBs of
    /// [`Self::iter`] in the same order, a slice per run (a grant or a band is one or a few runs).
    pub fn runs(self) -> impl Iterator<Item = std::ops::Range<usize>> {
        let mut m = self.0;
        std::iter::from_fn(move || {
            if m == 0 {
                return None;
            }
            let start = m.trailing_zeros();
            let end = start + (m >> start).trailing_ones();
            // Every bit below `end` is now taken (those below `start` were clear).
            m = m.checked_shr(end).map_or(0, |rest| rest << end);
            Some(start as usize..end as usize)
        })
    }
}

/// A HARQ process number (TS 36.321 §5.3.2: 8 per UE per direction in FDD).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HarqId(pub u8);

/// MAC -> PHY: one transport block scheduled for one UE in one TTI
/// (ns-3 `DlDciListElement_s` / `UlDciListElement_s`, reduced to what the abstraction uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TbAssignment {
    pub ue: UeIndex,
    pub dir: LinkDir,
    pub rbs: RbMask,
    /// Modulation and coding scheme index, 0..=28 (TS 36.213 Table 7.1.7.1-1).
    pub mcs: u8,
    /// Transport block size, bits (TS 36.213 §7.1.7.2).
    pub tbs_bits: u32,
    pub harq: HarqId,
    /// 0 for a first transmission, then 1, 2, … for HARQ retransmissions.
    pub retx: u8,
}

/// PHY -> MAC: a UE's channel quality report (TS 36.213 §7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CqiReport {
    pub ue: UeIndex,
    /// Wideband CQI index, 0 (out of range) ..= 15 (TS 36.213 Table 7.2.3-1).
    pub wideband_cqi: u8,
    /// When the eNB may use it (the report's measurement time plus the reporting delay).
    pub usable_at: SimTime,
}

/// PHY -> MAC: how a transport block fared (HARQ ACK/NACK, TS 36.213 §10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TbOutcome {
    Decoded,
    /// Failed decoding; HARQ may retransmit.
    Corrupted,
    /// The UE missed the PDCCH grant: nothing was decoded and no ACK/NACK came back.
    ControlLost,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rb_mask_counts_and_iterates_its_rbs() {
        let m = RbMask::range(3, 4).union(RbMask::range(100, 10));
        assert_eq!(m.count(), 14);
        assert!(m.contains(3) && m.contains(6) && !m.contains(7) && m.contains(109));
        assert_eq!(m.iter().take(5).collect::<Vec<_>>(), vec![3, 4, 5, 6, 100]);
        assert!(!RbMask::range(0, 3).overlaps(RbMask::range(3, 3)));
    }

    #[test]
    fn rb_mask_runs_are_its_rbs_in_order() {
        let m = RbMask::range(3, 4).union(RbMask::range(100, 10)).union(RbMask::range(0, 1));
        assert_eq!(m.runs().collect::<Vec<_>>(), vec![0..1, 3..7, 100..110]);
        assert_eq!(RbMask::default().runs().count(), 0);
        // A run that reaches the mask's top bit.
        assert_eq!(RbMask(u128::MAX).runs().collect::<Vec<_>>(), vec![0..128]);
        assert_eq!(RbMask(1 << 127 | 1 << 126 | 1).runs().collect::<Vec<_>>(), vec![0..1, 126..128]);
        for bits in [0x5a5a_u128, 0xffff_0000_ffff, 1 << 109, RbMask::range(0, 110).0] {
            let m = RbMask(bits);
            let from_runs: Vec<u32> = m.runs().flatten().map(|rb| rb as u32).collect();
            assert_eq!(from_runs, m.iter().collect::<Vec<_>>());
        }
    }
}
