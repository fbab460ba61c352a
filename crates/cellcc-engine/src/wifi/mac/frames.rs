//! Sizes of the frames the MAC sends (IEEE 802.11-2020 §9.3), octets, FCS included.

/// A QoS Data frame's MAC header: Frame Control 2, Duration 2, three addresses 18, Sequence
/// Control 2, QoS Control 2 (§9.3.2.1; no HT Control field, no fourth address).
pub const QOS_DATA_HEADER_BYTES: u32 = 26;
/// LLC/SNAP encapsulation of an IP datagram in an MSDU (IEEE 802.2 + RFC 1042: 8 octets).
pub const LLC_SNAP_BYTES: u32 = 8;
/// Frame check sequence (§9.2.4.8).
pub const FCS_BYTES: u32 = 4;
/// What one IP datagram adds to become an MPDU.
pub const MPDU_OVERHEAD_BYTES: u32 = QOS_DATA_HEADER_BYTES + LLC_SNAP_BYTES + FCS_BYTES;
/// Largest MSDU, octets (§9.2.4.7: 2304), so the largest IP datagram a BSS carries is 2296.
pub const MAX_MSDU_BYTES: u32 = 2304;
pub const MAX_IP_BYTES: u32 = MAX_MSDU_BYTES - LLC_SNAP_BYTES;
/// Ack and CTS: Frame Control, Duration, RA, FCS (§9.3.1.3, §9.3.1.4).
pub const ACK_BYTES: u32 = 14;
pub const CTS_BYTES: u32 = 14;
/// RTS: Frame Control, Duration, RA, TA, FCS (§9.3.1.2).
pub const RTS_BYTES: u32 = 20;
/// Compressed BlockAck with a 64-bit bitmap: header 16, BA Control 2, Starting Sequence Control
/// 2, bitmap 8, FCS 4 (§9.3.1.8); compressed BlockAckReq: the same without the bitmap (§9.3.1.7).
pub const BLOCK_ACK_BYTES: u32 = 32;
pub const BLOCK_ACK_REQ_BYTES: u32 = 24;

/// The MPDU carrying an IP datagram of `ip_bytes`.
pub fn mpdu_bytes(ip_bytes: u32) -> u32 {
    ip_bytes + MPDU_OVERHEAD_BYTES
}
