//! Queue disciplines behind one small interface (after Mahimahi's
//! `AbstractPacketQueue`): enqueue may drop, dequeue gives the next packet.

pub mod drop_tail;

pub use drop_tail::DropTail;

use crate::packet::PacketId;

/// A queue discipline holding packet ids and their sizes.
pub trait QueueDiscipline {
    /// Admit the packet, or hand it back if it is dropped.
    fn enqueue(&mut self, id: PacketId, bytes: u32) -> Result<(), PacketId>;
    fn dequeue(&mut self) -> Option<(PacketId, u32)>;
    fn front(&self) -> Option<(PacketId, u32)>;
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len_packets() == 0
    }
}
