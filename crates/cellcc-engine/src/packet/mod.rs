//! Packets with real header sizes, kept in a slab so events carry a 4-byte id.
//!
//! ```text
//!  Packet { ip_bytes, payload: Tcp(TcpSegment) | Udp, frag: Option<Fragment>, ... }
//!     └─ ip_bytes = IPv4 header (20) + transport header + payload (or the fragment's share)
//! ```

pub mod ipv4;
pub mod slab;
pub mod tcp;

pub use slab::{PacketId, PacketSlab};
pub use tcp::{SackBlocks, TcpFlags, TcpSegment};

use crate::sim::{FlowId, NodeId, SimTime};

/// IPv4 header without options (RFC 791).
pub const IPV4_HEADER_BYTES: u32 = 20;
/// UDP header (RFC 768).
pub const UDP_HEADER_BYTES: u32 = 8;

/// Which way a packet travels along its flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowDir {
    /// Source to destination: data (and the SYN / FIN).
    Forward,
    /// Destination to source: ACKs (and the SYN-ACK).
    Reverse,
}

/// Transport content of a datagram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Payload {
    Tcp(TcpSegment),
    Udp { seq: u64, payload_bytes: u32 },
}

impl Payload {
    /// Transport header + payload bytes.
    pub fn transport_bytes(&self) -> u32 {
        match self {
            Payload::Tcp(s) => s.transport_bytes(),
            Payload::Udp { payload_bytes, .. } => UDP_HEADER_BYTES + payload_bytes,
        }
    }
}

/// The piece of a fragmented datagram this packet carries (RFC 791 §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fragment {
    /// Offset of this fragment's data within the datagram's payload, bytes.
    pub offset_bytes: u32,
    /// Data bytes in this fragment.
    pub len_bytes: u32,
    /// More-fragments flag.
    pub more: bool,
}

/// One IPv4 datagram or fragment in the network.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub flow: FlowId,
    pub dir: FlowDir,
    pub src: NodeId,
    pub dst: NodeId,
    /// Size on the wire at the IP layer (header included), bytes.
    pub ip_bytes: u32,
    pub payload: Payload,
    /// Datagram identity (IPv4 Identification, widened): fragments share it.
    pub datagram: u64,
    pub frag: Option<Fragment>,
    /// When the source's IP layer sent the datagram (FlowMonitor's timeFirstTx basis).
    pub sent_at: SimTime,
    /// ECN-Capable Transport, ECT(0) (RFC 3168 §5).
    pub ect: bool,
    /// Congestion Experienced mark (RFC 3168).
    pub ecn_ce: bool,
}

/// What a router reads of a packet to forward it, kept beside its id on a wire: a packet
/// crossing a router is forwarded without loading its slab slot. With ~70,000 packets live
/// (the 19-site network's RLC buffers), the slot was last touched when the packet was sent
/// or queued, and its first load missed the cache at every hop (perf: ~80% of
/// `World::on_arrive`'s samples).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Routing {
    pub dst: NodeId,
    pub ip_bytes: u32,
    pub ect: bool,
}

impl Packet {
    /// The fields a router forwards by (none of them changes on the way).
    #[inline]
    pub fn routing(&self) -> Routing {
        Routing { dst: self.dst, ip_bytes: self.ip_bytes, ect: self.ect }
    }

    /// A whole datagram around `payload`.
    pub fn datagram(
        flow: FlowId,
        dir: FlowDir,
        src: NodeId,
        dst: NodeId,
        payload: Payload,
        id: u64,
        now: SimTime,
    ) -> Self {
        Packet {
            flow,
            dir,
            src,
            dst,
            ip_bytes: IPV4_HEADER_BYTES + payload.transport_bytes(),
            payload,
            datagram: id,
            frag: None,
            sent_at: now,
            ect: false,
            ecn_ce: false,
        }
    }
}
