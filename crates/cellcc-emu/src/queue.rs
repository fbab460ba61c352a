//! Drop-tail FIFO limited in packets or bytes (ns-3 `DropTailQueue`, Mahimahi `DroppingPacketQueue`).
//!
//! The packet being serialised is not in the queue (both ns-3's device and Mahimahi's
//! `packet_in_transit_` hold it outside), so a limit of N packets means N waiting packets.

use crate::Packet;
use std::collections::VecDeque;

/// What bounds the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
    Unlimited,
}

#[derive(Debug)]
pub struct DropTail {
    limit: QueueLimit,
    packets: VecDeque<Packet>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail { limit, packets: VecDeque::new(), bytes: 0 }
    }

    /// Would `len_bytes` more fit? Drop-tail judges the arrival alone (Mahimahi `DropTailPacketQueue`).
    fn admits(&self, len_bytes: u64) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => (self.packets.len() as u64) < n,
            QueueLimit::Bytes(b) => self.bytes + len_bytes <= b,
            QueueLimit::Unlimited => true,
        }
    }

    /// Enqueue, or hand the packet back when the queue is full (a tail drop).
    pub fn enqueue(&mut self, p: Packet) -> Result<(), Packet> {
        if !self.admits(p.len_bytes()) {
            return Err(p);
        }
        self.bytes += p.len_bytes();
        self.packets.push_back(p);
        Ok(())
    }

    pub fn dequeue(&mut self) -> Option<Packet> {
        let p = self.packets.pop_front()?;
        self.bytes -= p.len_bytes();
        Some(p)
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    pub fn len_packets(&self) -> u64 {
        self.packets.len() as u64
    }

    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(n: usize) -> Packet {
        Packet { data: vec![0; n], arrival_ns: 0 }
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_exceeds_it() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.enqueue(pkt(100)).is_ok());
        assert!(q.enqueue(pkt(100)).is_ok());
        assert!(q.enqueue(pkt(100)).is_err());
        assert_eq!(q.len_packets(), 2);
        q.dequeue();
        assert!(q.enqueue(pkt(100)).is_ok());
    }

    #[test]
    fn byte_limit_admits_a_small_packet_after_refusing_a_large_one() {
        let mut q = DropTail::new(QueueLimit::Bytes(3000));
        assert!(q.enqueue(pkt(1500)).is_ok());
        assert!(q.enqueue(pkt(1000)).is_ok());
        assert!(q.enqueue(pkt(1500)).is_err());
        assert!(q.enqueue(pkt(500)).is_ok());
        assert_eq!(q.len_bytes(), 3000);
    }

    #[test]
    fn fifo_order_and_byte_count_survive_dequeue() {
        let mut q = DropTail::new(QueueLimit::Unlimited);
        for n in [10, 20, 30] {
            q.enqueue(pkt(n)).unwrap();
        }
        assert_eq!(q.dequeue().unwrap().data.len(), 10);
        assert_eq!(q.len_bytes(), 50);
        assert_eq!(q.dequeue().unwrap().data.len(), 20);
        assert_eq!(q.dequeue().unwrap().data.len(), 30);
        assert!(q.dequeue().is_none());
        assert_eq!(q.len_bytes(), 0);
    }
}
