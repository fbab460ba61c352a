//! NR MAC (TS 38.321): HARQ entities (the LTE entity, generic over the block, with 16 processes,
//! §5.3.2 / §5.4.2), the schedulers over RBGs, the uplink requests (SR, BSR) and the MAC PDU
//! header sizes.

pub mod rbg;
pub mod scheduler;
pub mod uplink;

/// HARQ processes per UE per direction (TS 38.321 §5.3.2.1: up to 16, `nrofHARQ-ProcessesForPDSCH`
/// n16, and srsRAN Project's default `nof_harqs` = 16).
pub const N_HARQ_PROCESSES: usize = 16;

/// MAC subheader of a MAC SDU with an 8-bit L field, bytes (TS 38.321 §6.1.2, Figure 6.1.2-1:
/// R/F/LCID + L), for SDUs of at most 255 bytes.
pub const SUBHEADER_SHORT_BYTES: u32 = 2;
/// With a 16-bit L field (Figure 6.1.2-2), SDUs of 256 bytes or more.
pub const SUBHEADER_LONG_BYTES: u32 = 3;
/// A Short BSR MAC CE and its subheader (R/LCID, fixed size: TS 38.321 §6.1.3.1, Figure 6.1.2-3).
pub const SHORT_BSR_BYTES: u32 = 2;

/// Subheader bytes of a MAC SDU of `sdu_bytes` (every MAC SDU has its own in NR, §6.1.2).
pub fn subheader_bytes(sdu_bytes: u32) -> u32 {
    if sdu_bytes <= 255 {
        SUBHEADER_SHORT_BYTES
    } else {
        SUBHEADER_LONG_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subheaders_follow_ts_38_321_6_1_2() {
        assert_eq!(
            [subheader_bytes(40), subheader_bytes(255), subheader_bytes(256), subheader_bytes(1505)],
            [2, 2, 3, 3]
        );
    }
}
