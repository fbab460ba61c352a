//! The packets one bearer direction holds, by SDU id.
//!
//! RLC, MAC and HARQ pass SDU ids around; the packet stays in the world's
//! slab and this store maps the id to it. Each SDU is resolved exactly once:
//! delivered by the receiving RLC, or lost (buffer overflow, HARQ residual loss
//! on UM/TM, RLC discard). Ids are never reused, so a late duplicate finds
//! nothing and cannot resolve another packet. The two directions of a bearer
//! number their SDUs apart (downlink even, uplink odd), so an id names its
//! direction too: an RLC entity reports receive-side and transmit-side SDUs
//! in one list.

use crate::lte::sap::{LinkDir, SduId};
use crate::packet::PacketId;
use std::collections::VecDeque;

#[derive(Debug)]
pub struct SduStore {
    dir: LinkDir,
    /// Id of `slots[0]`.
    base: u64,
    /// `Some((packet, ip_bytes))` while unresolved.
    slots: VecDeque<Option<(PacketId, u32)>>,
    /// IP bytes of the unresolved SDUs.
    held_bytes: u64,
}

/// SDU id = 2 * sequence + this, per direction.
fn dir_tag(dir: LinkDir) -> u64 {
    match dir {
        LinkDir::Downlink => 0,
        LinkDir::Uplink => 1,
    }
}

/// The direction an SDU id belongs to.
pub fn dir_of(id: SduId) -> LinkDir {
    if id.0.is_multiple_of(2) {
        LinkDir::Downlink
    } else {
        LinkDir::Uplink
    }
}

impl SduStore {
    pub fn new(dir: LinkDir) -> Self {
        SduStore { dir, base: 0, slots: VecDeque::new(), held_bytes: 0 }
    }

    fn index(&self, id: SduId) -> Option<usize> {
        if dir_of(id) != self.dir {
            return None;
        }
        (id.0 / 2).checked_sub(self.base).map(|i| i as usize)
    }

    /// Take a packet in; returns its new SDU id.
    pub fn admit(&mut self, packet: PacketId, ip_bytes: u32) -> SduId {
        let id = SduId(2 * (self.base + self.slots.len() as u64) + dir_tag(self.dir));
        self.slots.push_back(Some((packet, ip_bytes)));
        self.held_bytes += ip_bytes as u64;
        id
    }

    /// Resolve `id`: its packet if it was still unresolved, else None.
    pub fn resolve(&mut self, id: SduId) -> Option<PacketId> {
        let i = self.index(id)?;
        let (packet, bytes) = self.slots.get_mut(i)?.take()?;
        self.held_bytes -= bytes as u64;
        while self.slots.front().is_some_and(Option::is_none) {
            self.slots.pop_front();
            self.base += 1;
        }
        Some(packet)
    }

    /// The SDUs not yet resolved, oldest first.
    pub fn unresolved(&self) -> impl Iterator<Item = SduId> + '_ {
        let tag = dir_tag(self.dir);
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .map(move |(i, _)| SduId(2 * (self.base + i as u64) + tag))
    }

    #[cfg(test)]
    fn is_unresolved(&self, id: SduId) -> bool {
        self.index(id).and_then(|i| self.slots.get(i)).is_some_and(Option::is_some)
    }

    /// IP bytes held for SDUs not yet resolved (in RLC buffers, HARQ, or the air).
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sdu_resolves_once_and_ids_are_never_reused() {
        let mut s = SduStore::new(LinkDir::Uplink);
        let a = s.admit(PacketId(7), 100);
        let b = s.admit(PacketId(8), 50);
        assert_eq!(s.held_bytes(), 150);
        assert_eq!(s.resolve(b), Some(PacketId(8)));
        assert_eq!(s.resolve(b), None);
        assert_eq!(s.resolve(a), Some(PacketId(7)));
        let c = s.admit(PacketId(7), 10);
        assert!(c.0 > b.0);
        assert_eq!(s.resolve(a), None, "a stale id finds nothing");
        assert_eq!(s.held_bytes(), 10);
        assert!(s.is_unresolved(c) && !s.is_unresolved(a));
    }

    #[test]
    fn ids_name_their_direction() {
        let (mut dl, mut ul) = (SduStore::new(LinkDir::Downlink), SduStore::new(LinkDir::Uplink));
        let (d, u) = (dl.admit(PacketId(1), 10), ul.admit(PacketId(2), 10));
        assert_eq!((dir_of(d), dir_of(u)), (LinkDir::Downlink, LinkDir::Uplink));
        assert_eq!(dl.resolve(u), None, "an uplink id cannot resolve a downlink SDU");
        assert_eq!(ul.resolve(u), Some(PacketId(2)));
        assert_eq!(dl.resolve(d), Some(PacketId(1)));
    }
}
