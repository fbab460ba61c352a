//! The transmission buffer of new SDUs, each sent whole or in pieces (no concatenation in NR:
//! TS 38.322 §4.2.1.2.1, §4.2.1.3.1), with a byte limit.

use std::collections::VecDeque;

use crate::lte::rlc::SduSegment;
use crate::lte::sap::{RlcSdu, SduId};
use crate::sim::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug)]
struct Queued {
    id: SduId,
    bytes: u32,
    /// Bytes already sent.
    sent: u32,
    /// The SN the SDU took with its first piece.
    sn: Option<u32>,
    arrived: SimTime,
}

/// FIFO of SDUs waiting for (the rest of) their first transmission.
#[derive(Clone, Debug)]
pub struct SduQueue {
    queue: VecDeque<Queued>,
    /// Unsent bytes.
    bytes: u64,
    limit_bytes: u32,
}

/// One piece of the head SDU, and the SN the SDU holds (if it took one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub seg: SduSegment,
    pub sn: Option<u32>,
}

impl SduQueue {
    pub fn new(limit_bytes: u32) -> Self {
        SduQueue { queue: VecDeque::new(), bytes: 0, limit_bytes }
    }

    /// Whether an SDU of `bytes` would be accepted (the byte limit; checked before PDCP numbers it).
    pub fn has_room(&self, bytes: u32) -> bool {
        bytes > 0 && self.bytes + u64::from(bytes) <= u64::from(self.limit_bytes)
    }

    pub fn push(&mut self, now: SimTime, sdu: RlcSdu) -> Result<(), SduId> {
        if !self.has_room(sdu.bytes) {
            return Err(sdu.id);
        }
        self.queue.push_back(Queued { id: sdu.id, bytes: sdu.bytes, sent: 0, sn: None, arrived: now });
        self.bytes += u64::from(sdu.bytes);
        Ok(())
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn sdus(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn hol_delay(&self, now: SimTime) -> SimDuration {
        self.queue.front().map_or(SimDuration::ZERO, |q| now.saturating_since(q.arrived))
    }

    /// Bytes left of the head SDU and whether it has been cut already.
    pub fn head(&self) -> Option<(u32, bool)> {
        self.queue.front().map(|q| (q.bytes - q.sent, q.sent > 0))
    }

    /// The SN the head SDU holds, or `sn` (which it takes now).
    pub fn number_head(&mut self, sn: u32) -> u32 {
        let q = self.queue.front_mut().expect("a head SDU");
        *q.sn.get_or_insert(sn)
    }

    /// Take up to `max_bytes` of the head SDU (> 0).
    pub fn take(&mut self, max_bytes: u32) -> Option<Piece> {
        let q = self.queue.front_mut()?;
        let len = (q.bytes - q.sent).min(max_bytes);
        if len == 0 {
            return None;
        }
        let piece = Piece { seg: SduSegment::new(q.id, q.bytes, q.sent, len), sn: q.sn };
        q.sent += len;
        self.bytes -= u64::from(len);
        if q.sent == q.bytes {
            self.queue.pop_front();
        }
        Some(piece)
    }
}

/// Byte ranges `[a, b)` of one SDU, ascending and disjoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ranges(pub Vec<(u32, u32)>);

impl Ranges {
    /// Add `[a, b)`; returns the bytes that were new.
    pub fn add(&mut self, a: u32, b: u32) -> u32 {
        if a >= b {
            return 0;
        }
        let covered: u32 = self.0.iter().map(|&(x, y)| y.min(b).saturating_sub(x.max(a))).sum();
        self.0.push((a, b));
        self.0.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(self.0.len());
        for &(x, y) in &self.0 {
            match merged.last_mut() {
                Some(last) if x <= last.1 => last.1 = last.1.max(y),
                _ => merged.push((x, y)),
            }
        }
        self.0 = merged;
        (b - a) - covered
    }

    pub fn bytes(&self) -> u32 {
        self.0.iter().map(|&(a, b)| b - a).sum()
    }

    /// Whether `[0, total)` is covered.
    pub fn complete(&self, total: u32) -> bool {
        self.0.first() == Some(&(0, total))
    }

    /// The gaps of `[0, upto)`.
    pub fn gaps(&self, upto: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut at = 0;
        let mut it = self.0.iter();
        std::iter::from_fn(move || loop {
            match it.next() {
                Some(&(a, b)) => {
                    let gap = (at, a.min(upto));
                    at = b;
                    if gap.0 < gap.1 {
                        return Some(gap);
                    }
                }
                None => {
                    let gap = (at, upto);
                    at = upto;
                    return (gap.0 < gap.1).then_some(gap);
                }
            }
        })
    }

    /// The end of the last received byte range (0 if none).
    pub fn end(&self) -> u32 {
        self.0.last().map_or(0, |r| r.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_sdu_is_cut_in_pieces_and_keeps_its_sn() {
        let mut q = SduQueue::new(3000);
        q.push(SimTime::ZERO, RlcSdu { id: SduId(0), bytes: 1000 }).unwrap();
        q.push(SimTime::ZERO, RlcSdu { id: SduId(2), bytes: 1500 }).unwrap();
        assert!(q.push(SimTime::ZERO, RlcSdu { id: SduId(4), bytes: 501 }).is_err());
        assert_eq!(q.number_head(7), 7);
        let a = q.take(400).unwrap();
        assert_eq!((a.seg.offset, a.seg.len_bytes(), a.sn), (0, 400, Some(7)));
        assert_eq!(q.number_head(9), 7, "an SDU keeps its SN");
        let b = q.take(5000).unwrap();
        assert_eq!((b.seg.offset, b.seg.len_bytes()), (400, 600));
        assert_eq!(q.head(), Some((1500, false)));
        assert_eq!(q.bytes(), 1500);
    }

    #[test]
    fn ranges_merge_and_report_gaps() {
        let mut r = Ranges::default();
        assert_eq!(r.add(100, 200), 100);
        assert_eq!(r.add(150, 300), 100);
        assert_eq!(r.add(400, 500), 100);
        assert_eq!(r.gaps(600).collect::<Vec<_>>(), vec![(0, 100), (300, 400), (500, 600)]);
        assert_eq!(r.add(0, 600), 300);
        assert!(r.complete(600));
    }
}
