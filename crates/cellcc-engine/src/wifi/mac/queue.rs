//! A station's MAC queue of one access category: MSDUs per receiver, served first come first
//! served across receivers, with a size limit and an MSDU lifetime.
//!
//! ```text
//!  enqueue:  refused when queued + held (sent, not yet acknowledged) reach the limit (drop-tail;
//!            ns-3 3.44 `WifiMacQueue` MaxSize 500 packets counts the MPDUs in flight as well)
//!  next RA:  the receiver whose oldest MSDU is the oldest of all (ns-3 `FcfsWifiQueueScheduler`)
//!  lifetime: an MSDU older than its AC's MSDU lifetime is discarded (dot11EDCATableMSDULifetime,
//!            IEEE 802.11-2020 Annex C: 500 TU = 512 ms; ns-3's `WifiMacQueue` MaxDelay: 500 ms)
//! ```

use crate::packet::PacketId;
use crate::sim::SimTime;
use std::collections::VecDeque;

/// One MSDU waiting for its first transmission.
#[derive(Clone, Copy, Debug)]
pub struct Msdu {
    pub id: PacketId,
    pub ip_bytes: u32,
    pub queued_at: SimTime,
}

/// The MSDUs of one AC at one station, per receiver (by peer slot).
#[derive(Clone, Debug)]
pub struct MacQueue {
    per_peer: Vec<VecDeque<Msdu>>,
    /// IP bytes queued per peer.
    peer_bytes: Vec<u64>,
    queued: u32,
    queued_bytes: u64,
}

impl MacQueue {
    pub fn new(peers: usize) -> Self {
        MacQueue { per_peer: vec![VecDeque::new(); peers], peer_bytes: vec![0; peers], queued: 0, queued_bytes: 0 }
    }

    pub fn len(&self) -> u32 {
        self.queued
    }

    pub fn is_empty(&self) -> bool {
        self.queued == 0
    }

    pub fn bytes(&self) -> u64 {
        self.queued_bytes
    }

    pub fn peer_bytes(&self, peer: usize) -> u64 {
        self.peer_bytes[peer]
    }

    pub fn push(&mut self, peer: usize, m: Msdu) {
        self.per_peer[peer].push_back(m);
        self.queued += 1;
        self.queued_bytes += u64::from(m.ip_bytes);
        self.peer_bytes[peer] += u64::from(m.ip_bytes);
    }

    /// The MSDUs for `peer`, oldest first.
    pub fn iter(&self, peer: usize) -> impl Iterator<Item = &Msdu> + '_ {
        self.per_peer[peer].iter()
    }

    pub fn front(&self, peer: usize) -> Option<&Msdu> {
        self.per_peer[peer].front()
    }

    pub fn pop(&mut self, peer: usize) -> Option<Msdu> {
        let m = self.per_peer[peer].pop_front()?;
        self.queued -= 1;
        self.queued_bytes -= u64::from(m.ip_bytes);
        self.peer_bytes[peer] -= u64::from(m.ip_bytes);
        Some(m)
    }

    /// The peer whose head MSDU is oldest (ties: the lower peer slot).
    pub fn oldest_peer(&self) -> Option<usize> {
        (0..self.per_peer.len())
            .filter_map(|p| self.per_peer[p].front().map(|m| (m.queued_at, p)))
            .min()
            .map(|(_, p)| p)
    }

    /// Discard `peer`'s MSDUs queued before `oldest_allowed`, passing each to `dropped`.
    pub fn expire_peer(&mut self, peer: usize, oldest_allowed: SimTime, dropped: &mut impl FnMut(Msdu)) {
        while self.per_peer[peer].front().is_some_and(|m| m.queued_at < oldest_allowed) {
            dropped(self.pop(peer).expect("a head"));
        }
    }

    /// Discard the MSDUs queued before `oldest_allowed` (each queue is in arrival order, so only
    /// heads can be stale), passing each to `dropped`.
    pub fn expire(&mut self, oldest_allowed: SimTime, dropped: &mut impl FnMut(Msdu)) {
        for peer in 0..self.per_peer.len() {
            while self.per_peer[peer].front().is_some_and(|m| m.queued_at < oldest_allowed) {
                dropped(self.pop(peer).expect("a head"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msdu(n: u32, t_us: u64) -> Msdu {
        Msdu { id: PacketId(n), ip_bytes: 100, queued_at: SimTime(t_us * 1000) }
    }

    #[test]
    fn receivers_are_served_by_the_age_of_their_oldest_msdu() {
        let mut q = MacQueue::new(3);
        q.push(2, msdu(0, 5));
        q.push(1, msdu(1, 7));
        q.push(2, msdu(2, 8));
        assert_eq!(q.oldest_peer(), Some(2));
        q.pop(2);
        assert_eq!(q.oldest_peer(), Some(1));
        assert_eq!((q.len(), q.bytes()), (2, 200));
    }

    #[test]
    fn stale_heads_expire() {
        let mut q = MacQueue::new(1);
        q.push(0, msdu(0, 1));
        q.push(0, msdu(1, 10));
        let mut gone = Vec::new();
        q.expire(SimTime(5_000), &mut |m| gone.push(m.id));
        assert_eq!(gone, [PacketId(0)]);
        assert_eq!(q.len(), 1);
    }
}
