//! IPv4 fragmentation and reassembly (RFC 791 §3.2, RFC 815).
//!
//! A datagram larger than the next link's MTU is cut into fragments whose data
//! is a multiple of 8 bytes (the fragment-offset unit), each with its own
//! 20-byte header. The destination reassembles; if any fragment is lost the
//! partial datagram expires after [`REASSEMBLY_TIMEOUT`] and the whole segment
//! is lost -- which is why seed 000's 3000 B packets suffer over 1500 B links.

use super::{Fragment, Packet, IPV4_HEADER_BYTES};
use crate::sim::{SimDuration, SimTime};
use std::collections::{HashMap, VecDeque};

/// Fragment offsets count 8-byte units (RFC 791 §3.1).
const FRAGMENT_UNIT_BYTES: u32 = 8;
/// Linux `net.ipv4.ipfrag_time` default, 30 s (Documentation/networking/ip-sysctl.rst); ns-3 uses 30 s too.
pub const REASSEMBLY_TIMEOUT: SimDuration = SimDuration::from_secs(30);

/// Data bytes this packet carries at the IP layer.
fn data_bytes(p: &Packet) -> u32 {
    p.ip_bytes - IPV4_HEADER_BYTES
}

/// Split `p` into fragments that fit `mtu_bytes`; calls `emit` for each, in order.
/// Returns the number of fragments (1 = fits, emitted unchanged).
pub fn fragment(p: &Packet, mtu_bytes: u32, mut emit: impl FnMut(Packet)) -> u32 {
    if p.ip_bytes <= mtu_bytes {
        emit(*p);
        return 1;
    }
    let max_data = (mtu_bytes - IPV4_HEADER_BYTES) / FRAGMENT_UNIT_BYTES * FRAGMENT_UNIT_BYTES;
    assert!(max_data > 0, "MTU {mtu_bytes} leaves no room for fragment data");
    let (base, total, more_after) = match p.frag {
        Some(f) => (f.offset_bytes, f.len_bytes, f.more),
        None => (0, data_bytes(p), false),
    };
    let mut off = 0;
    let mut n = 0;
    while off < total {
        let len = max_data.min(total - off);
        let last = off + len == total;
        let mut f = *p;
        f.frag = Some(Fragment { offset_bytes: base + off, len_bytes: len, more: !last || more_after });
        f.ip_bytes = IPV4_HEADER_BYTES + len;
        emit(f);
        off += len;
        n += 1;
    }
    n
}

struct Partial {
    received_bytes: u32,
    /// Datagram data length, known once the last fragment (MF = 0) arrives.
    total_bytes: Option<u32>,
    started: SimTime,
}

/// What a fragment's arrival produced.
#[derive(Debug, PartialEq)]
pub enum Reassembled {
    /// Not a fragment, or the last missing piece: the whole datagram.
    Complete(Packet),
    /// Waiting for more fragments; `first` = this datagram's first fragment to arrive.
    Pending { first: bool },
}

/// Per-host reassembly buffer.
#[derive(Default)]
pub struct Reassembly {
    partial: HashMap<u64, Partial>,
    /// Datagrams in the order their first fragment arrived: their timeouts fall due in this order.
    deadlines: VecDeque<(SimTime, u64)>,
}

impl Reassembly {
    /// Accept a packet; returns the whole datagram when it is complete.
    pub fn accept(&mut self, now: SimTime, p: Packet) -> Reassembled {
        let Some(f) = p.frag else {
            return Reassembled::Complete(p);
        };
        let first = !self.partial.contains_key(&p.datagram);
        if first {
            self.deadlines.push_back((now + REASSEMBLY_TIMEOUT, p.datagram));
        }
        let e =
            self.partial.entry(p.datagram).or_insert(Partial { received_bytes: 0, total_bytes: None, started: now });
        e.received_bytes += f.len_bytes;
        if !f.more {
            e.total_bytes = Some(f.offset_bytes + f.len_bytes);
        }
        if e.total_bytes != Some(e.received_bytes) {
            return Reassembled::Pending { first };
        }
        let total = e.received_bytes;
        self.partial.remove(&p.datagram);
        let mut whole = p;
        whole.frag = None;
        whole.ip_bytes = IPV4_HEADER_BYTES + total;
        Reassembled::Complete(whole)
    }

    /// Drop every datagram still incomplete at its timeout; returns how many.
    pub fn expire(&mut self, now: SimTime) -> usize {
        let mut dropped = 0;
        while let Some(&(due, datagram)) = self.deadlines.front() {
            if due > now {
                break;
            }
            self.deadlines.pop_front();
            if self.partial.get(&datagram).is_some_and(|p| now >= p.started + REASSEMBLY_TIMEOUT) {
                self.partial.remove(&datagram);
                dropped += 1;
            }
        }
        dropped
    }

    /// Partial datagrams still waiting (lost at the end of a run).
    pub fn pending(&self) -> usize {
        self.partial.len()
    }

    /// Bytes held in partial datagrams (for the conservation check).
    pub fn pending_bytes(&self) -> u64 {
        self.partial.values().map(|p| p.received_bytes as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{FlowDir, Payload, TcpSegment};
    use crate::sim::{FlowId, NodeId};

    fn segment(payload: u32) -> Packet {
        let seg = TcpSegment { len: payload, timestamps: true, ..Default::default() };
        Packet::datagram(FlowId(0), FlowDir::Forward, NodeId(0), NodeId(1), Payload::Tcp(seg), 7, SimTime::ZERO)
    }

    #[test]
    fn a_3000_byte_segment_over_1500_mtu_makes_three_fragments() {
        // 3000 B payload + 32 B TCP header = 3032 B of IP data; 1480 B per fragment
        // -> 1480 + 1480 + 72 (RFC 791: 1480 is a multiple of 8).
        let p = segment(3000);
        let mut frags = Vec::new();
        assert_eq!(fragment(&p, 1500, |f| frags.push(f)), 3);
        let lens: Vec<u32> = frags.iter().map(|f| f.ip_bytes).collect();
        assert_eq!(lens, vec![1500, 1500, 92]);
        assert!(frags[0].frag.unwrap().more && !frags[2].frag.unwrap().more);
    }

    #[test]
    fn reassembly_needs_every_fragment() {
        let p = segment(3000);
        let mut frags = Vec::new();
        fragment(&p, 1500, |f| frags.push(f));
        let mut r = Reassembly::default();
        assert_eq!(r.accept(SimTime::ZERO, frags[0]), Reassembled::Pending { first: true });
        assert_eq!(r.accept(SimTime::ZERO, frags[2]), Reassembled::Pending { first: false });
        match r.accept(SimTime::ZERO, frags[1]) {
            Reassembled::Complete(w) => assert_eq!(w.ip_bytes, p.ip_bytes),
            Reassembled::Pending { .. } => panic!("all fragments arrived"),
        }
        assert_eq!(r.pending(), 0);
    }

    #[test]
    fn a_lost_fragment_expires_the_datagram() {
        let p = segment(3000);
        let mut frags = Vec::new();
        fragment(&p, 1500, |f| frags.push(f));
        let mut r = Reassembly::default();
        r.accept(SimTime::ZERO, frags[0]);
        assert_eq!(r.expire(SimTime::ZERO + SimDuration::from_secs(1)), 0);
        assert_eq!(r.expire(SimTime::ZERO + REASSEMBLY_TIMEOUT), 1);
        assert_eq!(r.pending(), 0);
    }

    #[test]
    fn refragmenting_a_fragment_keeps_offsets_and_more_flag() {
        let p = segment(3000);
        let mut first = Vec::new();
        fragment(&p, 1500, |f| first.push(f));
        let mut second = Vec::new();
        fragment(&first[0], 600, |f| second.push(f));
        let offs: Vec<u32> = second.iter().map(|f| f.frag.unwrap().offset_bytes).collect();
        assert_eq!(offs, vec![0, 576, 1152]);
        assert!(second.iter().all(|f| f.frag.unwrap().more));
    }
}
