//! TCP segment header as the simulator needs it (RFC 9293 §3.1), with the
//! options that change its size: timestamps (RFC 7323) and SACK (RFC 2018).
//!
//! Sequence numbers are 64-bit byte offsets from the start of the stream and
//! never wrap: a simulated flow cannot send 2^64 bytes. The pcap writer maps
//! them to 32-bit wire values.

use crate::sim::SimTime;

/// TCP header without options (RFC 9293).
pub const TCP_HEADER_BYTES: u32 = 20;
/// Timestamps option padded to 4 bytes: 2 NOP + kind/len/TSval/TSecr (RFC 7323 §3).
pub const TCP_TIMESTAMP_OPTION_BYTES: u32 = 12;
/// SACK option: kind + len (RFC 2018 §3), padded with 2 NOPs.
pub const TCP_SACK_OPTION_BASE_BYTES: u32 = 4;
/// Each SACK block: two 32-bit edges.
pub const TCP_SACK_BLOCK_BYTES: u32 = 8;
/// TCP option space (RFC 9293: data offset of 15 words).
pub const TCP_MAX_OPTION_BYTES: u32 = 40;
/// Blocks that fit beside timestamps: (40 - 12 - 4) / 8 = 3 (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 4;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const ACK: u8 = 0x10;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;

    pub fn has(self, f: u8) -> bool {
        self.0 & f != 0
    }
}

/// Up to four SACK blocks `[start, end)`, most recent first (RFC 2018 §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub blocks: [(u64, u64); MAX_SACK_BLOCKS],
    pub len: u8,
}

impl SackBlocks {
    pub fn push(&mut self, b: (u64, u64)) {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = b;
            self.len += 1;
        }
    }
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len as usize]
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TcpSegment {
    pub flags: TcpFlags,
    /// First payload byte (for SYN/FIN-only segments: the flag's position).
    pub seq: u64,
    /// Next byte expected by the sender of this segment (valid with ACK).
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    /// Advertised receive window, bytes (window scaling implied).
    pub wnd_bytes: u64,
    pub sack: SackBlocks,
    /// Timestamps option present.
    pub timestamps: bool,
    /// TSval (RFC 7323 §3): the sender's clock when the segment left; the
    /// simulator's time stands in for the 1 ms kernel clock.
    pub ts_val: SimTime,
    /// TSecr: the TS.Recent the receiver echoes (RFC 7323 §4.3); `None` before any.
    pub ts_ecr: Option<SimTime>,
    /// The IP header of the packet that delivered this segment carried CE
    /// (RFC 3168 §5); set by the network on delivery, read by the receiver.
    pub ce: bool,
}

impl TcpSegment {
    /// Header bytes including options, padded to 4 bytes.
    pub fn header_bytes(&self) -> u32 {
        let mut opt = if self.timestamps { TCP_TIMESTAMP_OPTION_BYTES } else { 0 };
        if self.sack.len > 0 {
            opt += TCP_SACK_OPTION_BASE_BYTES + TCP_SACK_BLOCK_BYTES * self.sack.len as u32;
        }
        TCP_HEADER_BYTES + opt.min(TCP_MAX_OPTION_BYTES)
    }

    /// Header and data bytes: the segment's size at the transport layer.
    pub fn transport_bytes(&self) -> u32 {
        self.header_bytes() + self.len
    }

    /// SACK blocks that fit in the option space left beside timestamps.
    pub fn max_sack_blocks(timestamps: bool) -> usize {
        let room = TCP_MAX_OPTION_BYTES - if timestamps { TCP_TIMESTAMP_OPTION_BYTES } else { 0 };
        (((room - TCP_SACK_OPTION_BASE_BYTES) / TCP_SACK_BLOCK_BYTES) as usize).min(MAX_SACK_BLOCKS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_20_bytes_plus_options() {
        let mut s = TcpSegment { timestamps: true, ..Default::default() };
        assert_eq!(s.header_bytes(), 32);
        s.sack.push((1, 2));
        s.sack.push((3, 4));
        assert_eq!(s.header_bytes(), 32 + 4 + 16);
    }

    #[test]
    fn three_sack_blocks_fit_beside_timestamps_four_without() {
        assert_eq!(TcpSegment::max_sack_blocks(true), 3);
        assert_eq!(TcpSegment::max_sack_blocks(false), 4);
    }
}
