//! PDCP (TS 36.323): header and sequence number on every SDU.
//!
//! Only what changes bytes on the air is modelled: the PDCP data PDU header of a
//! DRB with a 12-bit SN (TS 36.323 §6.2.3, Figure 6.2.3.1: D/C, 3 reserved bits,
//! 12-bit PDCP SN = 2 bytes), as ns-3 LENA's `LtePdcpHeader`. No ciphering, no
//! header compression (ROHC off, as ns-3), no PDCP reordering (RLC delivers in order).

/// PDCP data PDU header for a DRB with a 12-bit SN, bytes (TS 36.323 §6.2.3).
pub const PDCP_DRB_HEADER_BYTES: u32 = 2;
/// PDCP SN length on a DRB with RLC AM/UM long SN, bits (TS 36.323 §6.3.2).
pub const PDCP_SN_BITS: u32 = 12;
/// Maximum_PDCP_SN + 1 (TS 36.323 §7.1: 4095 for a 12-bit SN).
const PDCP_SN_MODULUS: u16 = 1 << PDCP_SN_BITS;

/// One transmitted PDCP data PDU, as a descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PdcpPdu {
    /// PDCP SN (TS 36.323 §5.1.1: Next_PDCP_TX_SN, wrapping at 4096).
    pub sn: u16,
    /// Header + IP datagram, bytes: the RLC SDU size.
    pub bytes: u32,
}

/// Transmit side of one bearer's PDCP entity.
#[derive(Clone, Debug, Default)]
pub struct PdcpTx {
    next_sn: u16,
}

impl PdcpTx {
    pub fn new() -> Self {
        PdcpTx::default()
    }

    /// Wraps an IP datagram of `ip_bytes`: assigns the next SN and adds the header (TS 36.323 §5.1.1).
    pub fn tx(&mut self, ip_bytes: u32) -> PdcpPdu {
        let sn = self.next_sn;
        self.next_sn = (self.next_sn + 1) % PDCP_SN_MODULUS;
        PdcpPdu { sn, bytes: ip_bytes + PDCP_DRB_HEADER_BYTES }
    }
}

/// The IP datagram size inside a PDCP data PDU of `pdcp_bytes` (TS 36.323 §5.1.2: the header is removed).
pub fn rx_ip_bytes(pdcp_bytes: u32) -> u32 {
    debug_assert!(pdcp_bytes >= PDCP_DRB_HEADER_BYTES, "PDCP PDU shorter than its header");
    pdcp_bytes - PDCP_DRB_HEADER_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_two_bytes_and_sn_counts_up() {
        let mut p = PdcpTx::new();
        // 1500-byte IP datagram + 2-byte header (TS 36.323 Figure 6.2.3.1) = 1502.
        assert_eq!(p.tx(1500), PdcpPdu { sn: 0, bytes: 1502 });
        assert_eq!(p.tx(40), PdcpPdu { sn: 1, bytes: 42 });
        assert_eq!(rx_ip_bytes(1502), 1500);
    }

    #[test]
    fn sn_wraps_after_4095() {
        // 12-bit SN: 0..=4095 then 0 again (TS 36.323 §7.1 Maximum_PDCP_SN = 4095).
        let mut p = PdcpTx::new();
        for _ in 0..4095 {
            p.tx(100);
        }
        assert_eq!(p.tx(100).sn, 4095);
        assert_eq!(p.tx(100).sn, 0);
    }
}
