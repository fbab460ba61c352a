//! Packet storage: a vector with a free list. After warm-up the hot path
//! allocates nothing; ids stay valid until the packet is released.

use super::{Packet, Payload};
use crate::sim::prefetch::load_together;

/// Index of a live packet in the slab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketId(pub u32);

#[derive(Default)]
pub struct PacketSlab {
    slots: Vec<Option<Packet>>,
    free: Vec<u32>,
    live_bytes: u64,
}

impl PacketSlab {
    #[inline]
    pub fn insert(&mut self, p: Packet) -> PacketId {
        self.live_bytes += p.ip_bytes as u64;
        match self.free.pop() {
            Some(i) => {
                debug_assert!(self.slots[i as usize].is_none());
                self.slots[i as usize] = Some(p);
                PacketId(i)
            }
            None => {
                self.slots.push(Some(p));
                PacketId(self.slots.len() as u32 - 1)
            }
        }
    }

    pub fn get(&self, id: PacketId) -> &Packet {
        self.slots[id.0 as usize].as_ref().expect("packet id used after release")
    }

    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        self.slots[id.0 as usize].as_mut().expect("packet id used after release")
    }

    pub fn remove(&mut self, id: PacketId) -> Packet {
        let p = self.slots[id.0 as usize].take().expect("packet released twice");
        self.live_bytes -= p.ip_bytes as u64;
        self.free.push(id.0);
        p
    }

    /// Free a packet's slot without moving the packet out (it was read in place): as
    /// `remove`, without the copy.
    pub fn release(&mut self, id: PacketId) {
        let slot = &mut self.slots[id.0 as usize];
        let bytes = slot.as_ref().expect("packet released twice").ip_bytes;
        *slot = None;
        self.live_bytes -= bytes as u64;
        self.free.push(id.0);
    }

    /// Load a few words of each packet's slot (the header's destination, the segment's
    /// sequence number and timestamp: its start, middle and end) together
    /// ([`load_together`]). A network's wake-up delivers a few hundred packets whose slots
    /// were last touched when they were queued, ~100s of ms before.
    pub fn touch(&self, ids: impl Iterator<Item = PacketId>) {
        load_together(ids.filter_map(|id| self.slots[id.0 as usize].as_ref()).map(|p| {
            let seg = match &p.payload {
                Payload::Tcp(s) => s.seq ^ s.ts_val.as_ns(),
                _ => 0,
            };
            u64::from(p.dst.0) ^ seg
        }));
    }

    /// IP bytes of all packets still in the network (queues, wires, reassembly).
    pub fn live_bytes(&self) -> u64 {
        self.live_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{FlowDir, Payload};
    use crate::sim::{FlowId, NodeId, SimTime};

    fn packet(payload_bytes: u32) -> Packet {
        let payload = Payload::Udp { seq: 0, payload_bytes };
        Packet::datagram(FlowId(0), FlowDir::Forward, NodeId(0), NodeId(1), payload, 1, SimTime::ZERO)
    }

    #[test]
    fn release_frees_the_slot_and_its_bytes_as_remove_does() {
        let mut slab = PacketSlab::default();
        let a = slab.insert(packet(100));
        let b = slab.insert(packet(200));
        let bytes_b = slab.get(b).ip_bytes as u64;
        slab.release(a);
        assert_eq!(slab.live_bytes(), bytes_b);
        // The freed slot is the next one reused, as after `remove`.
        assert_eq!(slab.insert(packet(300)), a);
        assert_eq!(slab.remove(b).ip_bytes as u64, bytes_b);
    }
}
