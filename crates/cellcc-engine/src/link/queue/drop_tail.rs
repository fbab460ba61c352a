//! Drop-tail FIFO limited in packets or bytes (ns-3 `DropTailQueue`, Linux `pfifo`/`bfifo`).

use super::QueueDiscipline;
use crate::packet::PacketId;
use crate::sim::SimTime;
use std::collections::VecDeque;

/// The queue's capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
}

/// A queued packet: its id, its size, and when a rate server starts sending it (kept beside the
/// packet so the channel needs no second queue of start times).
#[derive(Clone, Copy, Debug)]
struct Queued {
    id: PacketId,
    bytes: u32,
    start: SimTime,
}

pub struct DropTail {
    limit: Limit,
    items: VecDeque<Queued>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        DropTail { limit, items: VecDeque::with_capacity(256), bytes: 0 }
    }

    fn has_room(&self, bytes: u32) -> bool {
        match self.limit {
            Limit::Packets(n) => self.items.len() < n as usize,
            Limit::Bytes(b) => self.bytes + bytes as u64 <= b,
        }
    }

    /// `enqueue` for a packet a rate server starts sending at `start`.
    pub fn enqueue_starting(&mut self, id: PacketId, bytes: u32, start: SimTime) -> Result<(), PacketId> {
        if !self.has_room(bytes) {
            return Err(id);
        }
        self.items.push_back(Queued { id, bytes, start });
        self.bytes += bytes as u64;
        Ok(())
    }

    /// Empty the queue (every packet left).
    pub fn clear(&mut self) {
        self.items.clear();
        self.bytes = 0;
    }

    /// When the head packet starts being sent (as given to `enqueue_starting`).
    pub fn front_start(&self) -> Option<SimTime> {
        self.items.front().map(|q| q.start)
    }
}

impl QueueDiscipline for DropTail {
    fn enqueue(&mut self, id: PacketId, bytes: u32) -> Result<(), PacketId> {
        self.enqueue_starting(id, bytes, SimTime::ZERO)
    }

    fn dequeue(&mut self) -> Option<(PacketId, u32)> {
        let q = self.items.pop_front()?;
        self.bytes -= q.bytes as u64;
        Some((q.id, q.bytes))
    }

    fn front(&self) -> Option<(PacketId, u32)> {
        self.items.front().map(|q| (q.id, q.bytes))
    }

    fn len_packets(&self) -> usize {
        self.items.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_limit_drops_the_arrival_that_does_not_fit() {
        let mut q = DropTail::new(Limit::Packets(2));
        assert!(q.enqueue(PacketId(1), 100).is_ok());
        assert!(q.enqueue(PacketId(2), 100).is_ok());
        assert_eq!(q.enqueue(PacketId(3), 100), Err(PacketId(3)));
        assert_eq!(q.dequeue(), Some((PacketId(1), 100)));
    }

    #[test]
    fn byte_limit_counts_bytes() {
        let mut q = DropTail::new(Limit::Bytes(250));
        assert!(q.enqueue(PacketId(1), 100).is_ok());
        assert!(q.enqueue(PacketId(2), 100).is_ok());
        assert!(q.enqueue(PacketId(3), 100).is_err());
        assert!(q.enqueue(PacketId(4), 50).is_ok());
        assert_eq!(q.len_bytes(), 250);
    }
}
