//! Drop-tail FIFO limited in packets or bytes (ns-3 `DropTailQueue`, Linux `pfifo`/`bfifo`).

use super::QueueDiscipline;
use crate::packet::PacketId;
use std::collections::VecDeque;

/// The queue's capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
}

pub struct DropTail {
    limit: Limit,
    items: VecDeque<(PacketId, u32)>,
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
}

impl QueueDiscipline for DropTail {
    fn enqueue(&mut self, id: PacketId, bytes: u32) -> Result<(), PacketId> {
        if !self.has_room(bytes) {
            return Err(id);
        }
        self.items.push_back((id, bytes));
        self.bytes += bytes as u64;
        Ok(())
    }

    fn dequeue(&mut self) -> Option<(PacketId, u32)> {
        let (id, b) = self.items.pop_front()?;
        self.bytes -= b as u64;
        Some((id, b))
    }

    fn front(&self) -> Option<(PacketId, u32)> {
        self.items.front().copied()
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
