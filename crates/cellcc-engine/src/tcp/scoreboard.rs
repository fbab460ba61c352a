//! The sender's record of every segment sent and not yet cumulatively ACKed:
//! SACK marking (RFC 2018), loss marking (RFC 6675 §4 IsLost), and the
//! in-flight estimate (RFC 6675 "pipe", Linux `tcp_packets_in_flight`), and
//! the time-based scan RACK runs over it (RFC 8985 §6.2 step 5).

use super::rate::TxSnapshot;
use crate::sim::{SimDuration, SimTime};
use std::collections::VecDeque;

/// What the sender knows about one segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegState {
    /// Sent; no news yet.
    InFlight,
    /// Selectively ACKed; waits for the cumulative ACK.
    Sacked,
    /// Declared lost; waits for retransmission.
    Lost,
    /// Lost, then retransmitted: in flight again.
    Retransmitted,
}

#[derive(Clone, Copy, Debug)]
pub struct Seg {
    pub start: u64,
    pub len: u32,
    pub state: SegState,
    /// Last (re)transmission time.
    pub sent_at: SimTime,
    /// The sender's count of data segments sent before that (re)transmission: the order
    /// within one instant, for RACK (`rack::sent_after`).
    pub tx_order: u64,
    /// Times retransmitted (Karn: no RTT sample once > 0).
    pub retransmits: u32,
    /// Marked lost and not since SACKed or unmarked (Linux `TCPCB_LOST`): a retransmission
    /// keeps the mark, so the segment still counts in `lost_out` until it is delivered.
    pub marked_lost: bool,
    pub tx: TxSnapshot,
}

impl Seg {
    pub fn end(&self) -> u64 {
        self.start + self.len as u64
    }
}

/// RACK's reference point (see `tcp/rack.rs`): the most recently sent segment known delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RackReference {
    /// RACK.xmit_ts (`tp->rack.mstamp`).
    pub sent_at: SimTime,
    /// Its place in the sender's transmission order (`Seg::tx_order`, `rack::sent_after`).
    pub order: u64,
    /// RACK.end_seq.
    pub end: u64,
    /// An original transmission: nothing above it was sent earlier.
    pub original: bool,
}

impl RackReference {
    /// The reference was sent after segment `s`'s last (re)transmission.
    fn sent_after(&self, s: &Seg) -> bool {
        super::rack::sent_after(self.sent_at, self.order, s.sent_at, s.tx_order)
    }
}

/// One RACK scan's inputs.
pub struct RackScan {
    pub now: SimTime,
    pub reference: RackReference,
    /// RACK.rtt + reo_wnd: how long after its send a segment is given.
    pub wait: SimDuration,
}

/// What a RACK scan marked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RackFound {
    pub newly_lost: u32,
    pub lost_retransmits: u32,
    /// Longest remaining wait among segments sent before the reference but not yet due.
    pub max_remaining: Option<SimDuration>,
}

/// Segments outstanding, oldest first, with per-state counts.
#[derive(Default)]
pub struct Scoreboard {
    segs: VecDeque<Seg>,
    in_flight: u32,
    sacked: u32,
    lost: u32,
    retrans: u32,
    /// Segments carrying the lost mark, retransmitted or not (Linux `tp->lost_out`).
    lost_out: u32,
    /// Duplicate ACKs counted as "SACKed" segments when SACK is off (Linux `tcp_add_reno_sack`).
    dupacks: u32,
    /// End of the highest SACKed segment: where the IsLost scan starts.
    high_sacked_end: u64,
    /// Every segment ending at or below this was already judged by IsLost.
    lost_judged_upto: u64,
    /// No segment below this sequence is in state `Lost` (a search hint).
    lost_hint: u64,
}

impl Scoreboard {
    fn count(&mut self, s: SegState, delta: i32) {
        let c = match s {
            SegState::InFlight => &mut self.in_flight,
            SegState::Sacked => &mut self.sacked,
            SegState::Lost => &mut self.lost,
            SegState::Retransmitted => &mut self.retrans,
        };
        *c = c.checked_add_signed(delta).expect("scoreboard count underflow");
    }

    fn set_state(&mut self, i: usize, s: SegState) {
        if s == SegState::Lost {
            self.lost_hint = self.lost_hint.min(self.segs[i].start);
        }
        // Linux sets TCPCB_LOST when it marks a segment lost and clears it when the segment
        // is SACKed (`tcp_sacktag_one`) or the marks are undone (`tcp_undo_cwnd_reduction`).
        let marked = match s {
            SegState::Lost => true,
            SegState::Sacked | SegState::InFlight => false,
            SegState::Retransmitted => self.segs[i].marked_lost,
        };
        self.set_marked_lost(i, marked);
        let old = self.segs[i].state;
        self.count(old, -1);
        self.count(s, 1);
        self.segs[i].state = s;
    }

    fn set_marked_lost(&mut self, i: usize, marked: bool) {
        if self.segs[i].marked_lost != marked {
            self.segs[i].marked_lost = marked;
            self.lost_out = if marked { self.lost_out + 1 } else { self.lost_out - 1 };
        }
    }

    pub fn push(&mut self, seg: Seg) {
        debug_assert!(self.segs.back().is_none_or(|b| b.end() == seg.start), "segments must be contiguous");
        self.count(seg.state, 1);
        self.segs.push_back(seg);
    }

    /// Segments outstanding (Linux `packets_out`).
    pub fn packets_out(&self) -> u32 {
        self.segs.len() as u32
    }

    /// RFC 6675 pipe in segments: not SACKed, not lost, plus retransmissions in flight.
    pub fn packets_in_flight(&self) -> u32 {
        self.in_flight - self.dupacks.min(self.in_flight) + self.retrans
    }

    pub fn sacked(&self) -> u32 {
        self.sacked
    }
    pub fn lost(&self) -> u32 {
        self.lost
    }
    /// Segments marked lost, retransmitted or not (Linux `lost_out`): what
    /// `tcp_time_to_recover` tests.
    pub fn lost_out(&self) -> u32 {
        self.lost_out
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn front(&self) -> Option<&Seg> {
        self.segs.front()
    }
    pub fn get(&self, i: usize) -> &Seg {
        &self.segs[i]
    }
    pub fn get_mut(&mut self, i: usize) -> &mut Seg {
        &mut self.segs[i]
    }

    pub fn set_dupacks(&mut self, n: u32) {
        self.dupacks = n;
    }

    /// Remove every segment ending at or below `ack`, oldest first.
    pub fn ack_cumulative(&mut self, ack: u64, mut on_acked: impl FnMut(&mut Seg)) {
        while let Some(front) = self.segs.front() {
            if front.end() > ack {
                debug_assert!(front.start >= ack, "ACK {ack} splits segment at {}", front.start);
                break;
            }
            let (state, marked_lost) = (front.state, front.marked_lost);
            self.count(state, -1);
            self.lost_out -= marked_lost as u32;
            // Handed over in place, then dropped: no copy of the segment out of the queue.
            on_acked(self.segs.front_mut().expect("front exists"));
            self.segs.pop_front();
        }
    }

    /// Mark segments inside `[start, end)` SACKed; `on_sacked` sees each newly SACKed one.
    pub fn sack(&mut self, start: u64, end: u64, mut on_sacked: impl FnMut(&mut Seg)) {
        let first = self.segs.partition_point(|s| s.end() <= start);
        let mut i = first;
        while i < self.segs.len() && self.segs[i].end() <= end {
            if self.segs[i].start >= start && self.segs[i].state != SegState::Sacked {
                self.high_sacked_end = self.high_sacked_end.max(self.segs[i].end());
                self.set_state(i, SegState::Sacked);
                on_sacked(&mut self.segs[i]);
            }
            i += 1;
        }
    }

    /// RFC 6675 §4 IsLost: a segment not SACKed with at least `dupthresh`
    /// SACKed segments above it is lost. Returns the number newly marked.
    ///
    /// Every segment below the `dupthresh`-th SACKed segment (counting down from
    /// the highest) qualifies, and that point only moves up, so each call walks
    /// from the highest SACK down to it and marks only segments not judged before.
    pub fn mark_lost_by_sack(&mut self, dupthresh: u32) -> u32 {
        if self.sacked < dupthresh {
            return 0;
        }
        let top = self.segs.partition_point(|s| s.start < self.high_sacked_end);
        let mut sacked_above = 0;
        let Some(point) = (0..top).rev().find(|&i| {
            sacked_above += (self.segs[i].state == SegState::Sacked) as u32;
            sacked_above >= dupthresh
        }) else {
            return 0;
        };
        let from = self.segs.partition_point(|s| s.end() <= self.lost_judged_upto);
        let mut newly = 0;
        for i in from..point {
            if self.segs[i].state == SegState::InFlight {
                self.set_state(i, SegState::Lost);
                newly += 1;
            }
        }
        self.lost_judged_upto = self.lost_judged_upto.max(self.segs[point].start);
        newly
    }

    /// RACK detect-loss (RFC 8985 §6.2 step 5, Linux `tcp_rack_detect_loss`): every
    /// segment in flight (original or retransmission) sent before the reference is lost
    /// once `wait` has passed since its send; the others report how long is left.
    pub fn mark_lost_by_time(&mut self, scan: &RackScan) -> RackFound {
        let mut found = RackFound::default();
        let r = &scan.reference;
        if self.head_ends_rack_scan(r) {
            return found;
        }
        // One pass with an iterator (this runs on every delivering ACK); the per-state
        // counts and marks `set_state` would keep are applied once after it.
        let (mut from_in_flight, mut newly_marked) = (0u32, 0u32);
        let mut lowest_lost: Option<u64> = None;
        for s in self.segs.iter_mut() {
            if !matches!(s.state, SegState::InFlight | SegState::Retransmitted) {
                continue;
            }
            if !r.sent_after(s) {
                // Originals go out in sequence order, and a retransmission later still.
                if r.original && s.retransmits == 0 && s.start >= r.end {
                    break;
                }
                continue;
            }
            let due = s.sent_at + scan.wait;
            if due <= scan.now {
                if s.state == SegState::Retransmitted {
                    found.lost_retransmits += 1;
                } else {
                    from_in_flight += 1;
                }
                lowest_lost.get_or_insert(s.start);
                newly_marked += !s.marked_lost as u32;
                s.marked_lost = true;
                s.state = SegState::Lost;
            } else {
                let left = due - scan.now;
                found.max_remaining = Some(found.max_remaining.map_or(left, |m| m.max(left)));
            }
        }
        found.newly_lost = from_in_flight + found.lost_retransmits;
        if let Some(start) = lowest_lost {
            self.in_flight -= from_in_flight;
            self.retrans -= found.lost_retransmits;
            self.lost += found.newly_lost;
            self.lost_out += newly_marked;
            self.lost_hint = self.lost_hint.min(start);
        }
        found
    }

    /// The RACK scan's first step ends it: the oldest segment is an original in flight,
    /// above the reference and sent after it (the usual case while nothing is SACKed).
    pub fn head_ends_rack_scan(&self, r: &RackReference) -> bool {
        self.segs.front().is_some_and(|s| {
            r.original && s.state == SegState::InFlight && s.retransmits == 0 && s.start >= r.end && !r.sent_after(s)
        })
    }

    /// End of the highest SACKed segment (Linux `tcp_highest_sack_seq`, "fack").
    pub fn highest_sacked_end(&self) -> u64 {
        self.high_sacked_end
    }

    /// Retransmissions in flight (Linux `retrans_out`).
    pub fn retrans_out(&self) -> u32 {
        self.retrans
    }

    /// NewReno (RFC 6582 §3.2): the first unacknowledged segment is lost.
    pub fn mark_head_lost(&mut self) -> u32 {
        match self.segs.front().map(|s| s.state) {
            Some(SegState::InFlight) => {
                self.set_state(0, SegState::Lost);
                1
            }
            _ => 0,
        }
    }

    /// RTO (Linux `tcp_timeout_mark_lost`): everything not SACKed is lost, except segments
    /// other than the head sent less than `recent` before `now` (RACK: not yet due). A
    /// retransmission still out is marked lost but stays in flight, to be sent again only when
    /// found lost once more (`tcp_mark_skb_lost` keeps TCPCB_SACKED_RETRANS on a first mark); the
    /// head goes again at once (`tcp_retransmit_timer`).
    pub fn mark_lost_on_timeout(&mut self, now: SimTime, recent: SimDuration) -> u32 {
        let mut newly = 0;
        for i in 0..self.segs.len() {
            let due = i == 0 || now - self.segs[i].sent_at >= recent;
            if !due {
                continue;
            }
            match self.segs[i].state {
                SegState::Retransmitted if i > 0 && !self.segs[i].marked_lost => {
                    self.set_marked_lost(i, true);
                    newly += 1;
                }
                SegState::InFlight | SegState::Retransmitted => {
                    self.set_state(i, SegState::Lost);
                    newly += 1;
                }
                SegState::Sacked | SegState::Lost => {}
            }
        }
        newly
    }

    /// Linux `tcp_undo_cwnd_reduction(unmark_loss)`: the losses were not real; what was
    /// marked lost counts as in flight again.
    pub fn unmark_lost(&mut self) {
        if self.lost_out == 0 {
            return;
        }
        for i in 0..self.segs.len() {
            if self.segs[i].state == SegState::Lost {
                self.set_state(i, SegState::InFlight);
            }
            self.set_marked_lost(i, false);
        }
    }

    /// RFC 6675 NextSeg rule 1: the oldest lost segment not yet retransmitted.
    #[inline]
    pub fn next_lost(&mut self) -> Option<usize> {
        if self.lost == 0 {
            return None;
        }
        self.next_lost_search()
    }

    /// `next_lost` once something is lost: search from the hint.
    fn next_lost_search(&mut self) -> Option<usize> {
        let from = self.segs.partition_point(|s| s.end() <= self.lost_hint);
        let i = from + self.segs.range(from..).position(|s| s.state == SegState::Lost)?;
        self.lost_hint = self.segs[i].start;
        Some(i)
    }

    /// Record a retransmission of segment `i`.
    pub fn retransmitted(&mut self, i: usize, now: SimTime, tx_order: u64, tx: TxSnapshot) {
        self.set_state(i, SegState::Retransmitted);
        let s = &mut self.segs[i];
        s.sent_at = now;
        s.tx_order = tx_order;
        s.retransmits += 1;
        s.tx = tx;
    }

    /// Bytes outstanding that are not yet SACKed (for the conservation check).
    pub fn unsacked_bytes(&self) -> u64 {
        self.segs.iter().filter(|s| s.state != SegState::Sacked).map(|s| s.len as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let tx = TxSnapshot {
            delivered: 0,
            delivered_time: SimTime::ZERO,
            first_tx_time: SimTime::ZERO,
            app_limited: false,
            in_flight: 0,
            lost: 0,
            pending: true,
        };
        let mut b = Scoreboard::default();
        for i in 0..n {
            b.push(Seg {
                start: i * 100,
                len: 100,
                state: SegState::InFlight,
                sent_at: SimTime::ZERO,
                tx_order: i,
                retransmits: 0,
                marked_lost: false,
                tx,
            });
        }
        b
    }

    #[test]
    fn three_sacked_segments_above_make_a_hole_lost() {
        let mut b = board(6);
        b.sack(200, 500, |_| {});
        assert_eq!(b.sacked(), 3);
        assert_eq!(b.mark_lost_by_sack(3), 2);
        assert_eq!(b.next_lost(), Some(0));
        // pipe = 6 - 3 SACKed - 2 lost = 1 (segment 5).
        assert_eq!(b.packets_in_flight(), 1);
    }

    #[test]
    fn later_sacks_extend_loss_marking_without_remarking() {
        let mut b = board(10);
        b.sack(300, 600, |_| {}); // segments 3, 4, 5
        assert_eq!(b.mark_lost_by_sack(3), 3); // 0, 1, 2
        b.sack(700, 1000, |_| {}); // segments 7, 8, 9: now 6 has three SACKed above it
        assert_eq!(b.mark_lost_by_sack(3), 1);
        assert_eq!(b.lost(), 4);
        assert_eq!(b.mark_lost_by_sack(3), 0);
    }

    #[test]
    fn next_lost_moves_forward_as_holes_are_retransmitted() {
        let mut b = board(6);
        b.sack(300, 600, |_| {});
        b.mark_lost_by_sack(3);
        let tx = b.get(0).tx;
        for expect in 0..3 {
            let i = b.next_lost().unwrap();
            assert_eq!(i, expect);
            b.retransmitted(i, SimTime(1), 10 + expect as u64, tx);
        }
        assert_eq!(b.next_lost(), None);
    }

    #[test]
    fn retransmission_counts_in_flight_again() {
        let mut b = board(4);
        b.mark_lost_on_timeout(SimTime::ZERO, SimDuration::ZERO);
        let tx = b.get(0).tx;
        b.retransmitted(0, SimTime(5), 4, tx);
        assert_eq!(b.packets_in_flight(), 1);
        assert_eq!(b.next_lost(), Some(1));
    }

    #[test]
    fn lost_out_keeps_a_retransmitted_lost_segment_until_it_is_delivered() {
        // Linux TCPCB_LOST: set by marking, kept by retransmission, cleared by SACK, cumulative
        // ACK or undo; `lost_out` counts it (what tcp_time_to_recover tests), `lost` does not.
        let mut b = board(6);
        b.sack(300, 600, |_| {}); // 3, 4, 5 SACKed
        assert_eq!(b.mark_lost_by_sack(3), 3); // 0, 1, 2 lost
        let tx = b.get(0).tx;
        b.retransmitted(0, SimTime(1), 10, tx);
        b.retransmitted(1, SimTime(1), 11, tx);
        assert_eq!((b.lost(), b.lost_out(), b.retrans_out()), (1, 3, 2));
        b.ack_cumulative(100, |_| {}); // segment 0 delivered
        assert_eq!(b.lost_out(), 2);
        b.sack(100, 200, |_| {}); // the retransmitted segment 1 SACKed
        assert_eq!(b.lost_out(), 1);
        b.unmark_lost(); // segment 2: the losses were not real
        assert_eq!((b.lost(), b.lost_out()), (0, 0));
    }

    #[test]
    fn an_rto_marks_a_retransmission_still_out_lost_but_keeps_it_in_flight() {
        // Three segments sent at 0; the last re-sent by a loss probe at 1 ns. An RTO with no
        // RACK wait: the head and segment 1 are lost (to send again); segment 2 is LOST with its
        // retransmission still out (Linux tcp_mark_skb_lost keeps TCPCB_SACKED_RETRANS), so in
        // flight and not sent again. A second RTO finds that retransmission lost too.
        let mut b = board(3);
        let tx = b.get(2).tx;
        b.retransmitted(2, SimTime(1), 3, tx);
        let now = SimTime(1_000_000);
        assert_eq!(b.mark_lost_on_timeout(now, SimDuration::ZERO), 3);
        assert_eq!((b.lost(), b.lost_out(), b.retrans_out(), b.packets_in_flight()), (2, 3, 1, 1));
        assert_eq!(b.mark_lost_on_timeout(now, SimDuration::ZERO), 1);
        assert_eq!((b.lost(), b.lost_out(), b.retrans_out(), b.packets_in_flight()), (3, 3, 0, 0));
    }

    #[test]
    fn a_probe_retransmission_is_not_marked_lost() {
        // Linux tcp_send_loss_probe retransmits without TCPCB_LOST: retrans_out, not lost_out.
        let mut b = board(3);
        let tx = b.get(2).tx;
        b.retransmitted(2, SimTime(1), 12, tx);
        assert_eq!((b.retrans_out(), b.lost_out()), (1, 0));
    }

    #[test]
    fn cumulative_ack_removes_whole_segments() {
        let mut b = board(4);
        let mut acked = 0;
        b.ack_cumulative(200, |_| acked += 1);
        assert_eq!(acked, 2);
        assert_eq!(b.front().unwrap().start, 200);
    }

    #[test]
    fn rack_scan_marks_segments_sent_a_wait_before_now_and_times_the_rest() {
        // Segments 0..5 sent at 0, 10, 20, 30, 40 ms; segment 4 (sent at 40) delivered.
        let mut b = board(5);
        for i in 0..5 {
            b.get_mut(i).sent_at = SimTime::ZERO + SimDuration::from_ms(10 * i as u64);
        }
        b.sack(400, 500, |_| {});
        let scan = RackScan {
            now: SimTime::ZERO + SimDuration::from_ms(100),
            reference: RackReference {
                sent_at: SimTime::ZERO + SimDuration::from_ms(40),
                order: 4,
                end: 500,
                original: true,
            },
            wait: SimDuration::from_ms(75),
        };
        // Due at sent + 75 ms: 75, 85, 95 are past 100 - 0..2 lost; segment 3 due at 105.
        let found = b.mark_lost_by_time(&scan);
        assert_eq!(found.newly_lost, 3);
        assert_eq!(found.max_remaining, Some(SimDuration::from_ms(5)));
        assert_eq!(b.lost(), 3);
    }

    #[test]
    fn rack_scan_finds_a_lost_retransmission() {
        let mut b = board(3);
        b.mark_lost_on_timeout(SimTime::ZERO, SimDuration::ZERO);
        let tx = b.get(0).tx;
        b.retransmitted(0, SimTime::ZERO + SimDuration::from_ms(50), 3, tx);
        b.retransmitted(1, SimTime::ZERO + SimDuration::from_ms(60), 4, tx);
        b.sack(100, 200, |_| {});
        // Segment 1's retransmission (sent 60) is delivered; segment 0's (sent 50) is not.
        let scan = RackScan {
            now: SimTime::ZERO + SimDuration::from_ms(160),
            reference: RackReference {
                sent_at: SimTime::ZERO + SimDuration::from_ms(60),
                order: 4,
                end: 200,
                original: false,
            },
            wait: SimDuration::from_ms(100),
        };
        let found = b.mark_lost_by_time(&scan);
        assert_eq!((found.newly_lost, found.lost_retransmits), (1, 1));
        assert_eq!(b.next_lost(), Some(0));
    }

    #[test]
    fn dupacks_reduce_pipe_without_sack() {
        let mut b = board(10);
        b.set_dupacks(3);
        assert_eq!(b.packets_in_flight(), 7);
    }
}
