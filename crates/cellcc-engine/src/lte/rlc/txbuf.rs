//! The transmission buffer of new SDUs and the segmentation / concatenation of
//! them into one PDU's data field (TS 36.322 §5.1.2.1.1 UM, §5.1.3.1.1 AM, §4.2.1).
//!
//! The data field is filled greedily so the PDU is exactly the opportunity when
//! enough data waits: every SDU piece after the first costs one E+LI (12 bits,
//! padded to whole bytes, §6.2.1.3); a piece longer than [`LI_MAX_BYTES`] can only
//! be the last of its PDU because the 11-bit LI cannot express it (§6.2.2.5).

use std::collections::VecDeque;

use super::pdu::{li_bytes, SduSegment, SegmentList, LI_MAX_BYTES};
use crate::lte::sap::{RlcSdu, SduId};
use crate::sim::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug)]
struct QueuedSdu {
    id: SduId,
    bytes: u32,
    /// Bytes of this SDU already mapped into PDUs.
    sent: u32,
    arrived: SimTime,
}

/// FIFO of SDUs waiting for (the rest of) their first transmission, with a byte limit.
#[derive(Clone, Debug)]
pub struct TxBuffer {
    queue: VecDeque<QueuedSdu>,
    /// Unsent bytes in the queue.
    bytes: u64,
    limit_bytes: u32,
}

impl TxBuffer {
    pub fn new(limit_bytes: u32) -> Self {
        TxBuffer { queue: VecDeque::new(), bytes: 0, limit_bytes }
    }

    /// Queues `sdu` unless it would overflow the limit (ns-3 `DoTransmitPdcpPdu`: the
    /// SDU is accepted iff buffered + size <= MaxTxBufferSize).
    pub fn push(&mut self, now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        if self.bytes + u64::from(sdu.bytes) > u64::from(self.limit_bytes) || sdu.bytes == 0 {
            return Err(sdu.id);
        }
        self.queue.push_back(QueuedSdu { id: sdu.id, bytes: sdu.bytes, sent: 0, arrived: now });
        self.bytes += u64::from(sdu.bytes);
        Ok(())
    }

    /// Unsent SDU bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// SDUs with unsent bytes.
    pub fn sdus(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The SDUs waiting, in order, with whether their first bytes went out.
    pub fn held(&self) -> impl Iterator<Item = super::HeldSdu> + '_ {
        self.queue.iter().map(|q| super::HeldSdu { id: q.id, bytes: q.bytes, begun: q.sent > 0 })
    }

    /// How long the head-of-line SDU has waited.
    pub fn hol_delay(&self, now: SimTime) -> SimDuration {
        self.queue.front().map_or(SimDuration::ZERO, |s| now.saturating_since(s.arrived))
    }

    /// Takes the head SDU whole if it fits in `room_bytes` (TM never segments, TS 36.322 §5.1.1.1).
    pub fn take_whole(&mut self, room_bytes: u32) -> Option<SduSegment> {
        let head = *self.queue.front()?;
        debug_assert_eq!(head.sent, 0, "TM SDU partly sent");
        if head.bytes > room_bytes {
            return None;
        }
        self.queue.pop_front();
        self.bytes -= u64::from(head.bytes);
        Some(SduSegment::new(head.id, head.bytes, 0, head.bytes))
    }

    /// Moves up to `room_bytes` of header + data into `out`: pieces of queued SDUs,
    /// each piece after the first paying for the LI of the one before it.
    /// `room_bytes` excludes the fixed header. Returns the LI bytes used.
    pub fn fill(&mut self, room_bytes: u32, out: &mut SegmentList) -> u32 {
        let mut avail = room_bytes;
        while let Some(head) = self.queue.front_mut() {
            if let Some(prev) = out.last() {
                // The previous piece now needs an LI: it must fit in 11 bits.
                let extra = li_bytes(out.len() as u32) - li_bytes(out.len() as u32 - 1);
                if prev.len_bytes() > LI_MAX_BYTES || avail <= extra {
                    break;
                }
                avail -= extra;
            }
            if avail == 0 {
                break;
            }
            let take = (head.bytes - head.sent).min(avail);
            out.push(SduSegment::new(head.id, head.bytes, head.sent, take));
            head.sent += take;
            avail -= take;
            self.bytes -= u64::from(take);
            if head.sent == head.bytes {
                self.queue.pop_front();
            }
        }
        li_bytes(out.len().saturating_sub(1) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sdu(id: u64, bytes: u32) -> RlcSdu {
        RlcSdu { id: SduId(id), bytes }
    }

    #[test]
    fn buffer_refuses_an_sdu_beyond_its_byte_limit() {
        let mut b = TxBuffer::new(3000);
        assert_eq!(b.push(SimTime::ZERO, sdu(0, 1500)), Ok(()));
        assert_eq!(b.push(SimTime::ZERO, sdu(1, 1500)), Ok(()));
        // 3000 + 1 > 3000.
        assert_eq!(b.push(SimTime::ZERO, sdu(2, 1)), Err(SduId(2)));
        assert_eq!(b.bytes(), 3000);
    }

    #[test]
    fn fill_concatenates_with_one_li_per_extra_piece() {
        let mut b = TxBuffer::new(100_000);
        for i in 0..3 {
            b.push(SimTime::ZERO, sdu(i, 100)).unwrap();
        }
        let mut out = SegmentList::new();
        // Room 250: 100 + LI(2 bytes: 12 bits padded) + 100 + LI (3 bytes total for two) + 47.
        let li = b.fill(250, &mut out);
        assert_eq!(li, 3);
        assert_eq!(out.data_bytes() + li, 250);
        assert_eq!(out.len(), 3);
        assert_eq!(out.last().unwrap().len_bytes(), 47);
    }

    #[test]
    fn a_piece_longer_than_2047_bytes_ends_the_pdu() {
        let mut b = TxBuffer::new(100_000);
        b.push(SimTime::ZERO, sdu(0, 3000)).unwrap();
        b.push(SimTime::ZERO, sdu(1, 100)).unwrap();
        let mut out = SegmentList::new();
        assert_eq!(b.fill(5000, &mut out), 0);
        assert_eq!(out.len(), 1);
        assert_eq!(out.data_bytes(), 3000);
    }
}
