//! The receiving end of a TCP connection, sans-IO: it reassembles the byte
//! stream, hands in-order data to the application at once, and ACKs --
//! delayed ACKs (RFC 5681 §4.2, RFC 1122 §4.2.3.2) with Linux's quick-ACK
//! mode and adaptive timeout (`delack.rs`), immediate ACKs for
//! out-of-order data and for segments that fill a hole, SACK blocks
//! (RFC 2018 §4: the block with the newest segment first), D-SACK for
//! duplicates (RFC 2883, Linux `tcp_dsack_set`), and the timestamp echo
//! (RFC 7323 §4.3, Linux `tcp_replace_ts_recent`). The window it offers is
//! Linux's receive-window model (`rwnd.rs`): it starts at `tcp_rmem[1]`'s share,
//! grows per segment and by autotuning, and a read that doubles it is announced
//! at once. The application reads what arrived once the segments of one instant have
//! all been taken in: Linux processes a burst in softirq context before the woken reader
//! runs, so a burst's segments are unread when each one's ACK is decided
//! (`__tcp_ack_snd_check`), the read ACKs what they left (`__tcp_cleanup_rbuf`), and
//! autotuning measures after the read's first segment, with the rest of the burst still queued
//! (`rwnd.rs`).
//!
//!
//! `tcp.ack_policy = "ns3"` decides ACKs as ns-3.44's `TcpSocketBase::ReceivedData` does
//! instead: an out-of-order segment, a duplicate, or one that fills (part of) a hole is ACKed
//! at once; otherwise every `delayed_ack_count`-th in-order segment, whatever the window or
//! the reads, and a lone one when a fixed `delayed_ack_timeout_ms` timer started by the first
//! unacknowledged segment expires (`DelAckTimeout`). No quick-ACK, no adaptive timer, no
//! compressed SACKs, no ACK from a read.
//!
//! ```text
//!  Listen ─SYN─► SynReceived ─data/ACK─► Established ─FIN in order─► Closed
//! ```

use super::comp_sack::{CompSack, SackAck};
use super::delack::{AckClock, MAX_QUICKACKS};
use super::rtt::RttEstimator;
use super::rwnd::{RcvWindow, RmemConfig};
use super::sack_list::SackList;
use crate::packet::{SackBlocks, TcpFlags, TcpSegment};
use crate::scenario::{Stack, TcpParams};
use crate::sim::SimTime;

/// RFC 5681 §4.2 / Linux `__tcp_ack_snd_check`: an ACK for at least every second full segment.
const LINUX_DELAYED_ACK_COUNT: u32 = 2;

/// How the receiver reports CE marks back to the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnEcho {
    /// ECN not negotiated.
    Off,
    /// RFC 3168 §6.1.3: once CE arrives, set ECE on every ACK until a CWR arrives.
    Classic { latched: bool },
    /// RFC 8257 §3.2 (DCTCP): ECE mirrors the CE bit of the latest data; when it
    /// flips, the data received before is ACKed at once with the old state.
    Accurate { ce: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiverState {
    Listen,
    SynReceived,
    Established,
    /// The FIN arrived in order: the stream is complete.
    Closed,
}

/// An out-of-order range held for reassembly.
#[derive(Clone, Copy, Debug)]
struct Block {
    start: u64,
    end: u64,
}

pub struct TcpReceiver {
    p: TcpParams,
    state: ReceiverState,
    rcv_nxt: u64,
    ooo: Vec<Block>,
    /// The SACK blocks listed for the sender (Linux `selective_acks`).
    sacks: SackList,
    fin_seq: Option<u64>,
    segs_since_ack: u32,
    delack_at: Option<SimTime>,
    ack_due: bool,
    /// Duplicate ACKs held while out-of-order data waits (Linux compressed SACKs).
    comp_sack: CompSack,
    synack_due: bool,
    echo: EcnEcho,
    /// An ACK built before a CE-state flip (accurate echo), sent first.
    early_ack: Option<TcpSegment>,
    /// When the FIN was consumed (finite transfers' completion).
    pub completed_at: Option<SimTime>,
    /// RFC 7323 TS.Recent: the TSval echoed in TSecr.
    ts_recent: Option<SimTime>,
    /// rcv_nxt when the last ACK went out (RFC 7323 Last.ACK.sent, Linux `rcv_wup`).
    last_ack_sent: u64,
    /// A duplicate range to report as the first SACK block of the next ACK (RFC 2883).
    dsack: Option<(u64, u64)>,
    ack_clock: AckClock,
    /// The receiver's own RTT estimate, from the handshake (Linux `tcp_synack_rtt_meas`).
    rtt: RttEstimator,
    synack_sent_at: Option<SimTime>,
    /// Largest data segment seen (Linux `icsk_ack.rcv_mss`).
    rcv_mss: u32,
    rwnd: RcvWindow,
    /// In-order data bytes the application has read (Linux `copied_seq`, without the SYN).
    copied_bytes: u64,
    /// Where the first in-order segment not yet read ends: the next read's autotuning measure
    /// is taken after copying it.
    first_unread_end: Option<u64>,
}

impl TcpReceiver {
    /// A receiver expecting segments of `mss_bytes` payload (the window is sized in them).
    pub fn new(p: TcpParams, mss_bytes: u32, echo: EcnEcho) -> Self {
        let cfg = RmemConfig {
            tcp_rmem: p.tcp_rmem,
            moderate_rcvbuf: p.tcp_moderate_rcvbuf,
            timestamps: p.timestamps,
            model: p.receive_window,
        };
        TcpReceiver {
            rwnd: RcvWindow::new(cfg, mss_bytes),
            state: ReceiverState::Listen,
            rcv_nxt: 0,
            ooo: Vec::new(),
            sacks: SackList::default(),
            fin_seq: None,
            segs_since_ack: 0,
            delack_at: None,
            ack_due: false,
            comp_sack: CompSack::default(),
            synack_due: false,
            echo,
            early_ack: None,
            completed_at: None,
            ts_recent: None,
            last_ack_sent: 0,
            dsack: None,
            ack_clock: AckClock::new(p.delayed_ack_timeout),
            rtt: RttEstimator::new(p.rto_estimator, p.initial_rto, p.min_rto, p.max_rto),
            synack_sent_at: None,
            rcv_mss: 0,
            copied_bytes: 0,
            first_unread_end: None,
            p,
        }
    }

    pub fn state(&self) -> ReceiverState {
        self.state
    }

    /// In-order bytes handed to the application so far.
    pub fn delivered_bytes(&self) -> u64 {
        self.rcv_nxt - self.fin_consumed() as u64
    }

    fn fin_consumed(&self) -> bool {
        self.state == ReceiverState::Closed
    }

    pub fn on_segment(&mut self, now: SimTime, seg: &TcpSegment) {
        self.on_segment_ce(now, seg, seg.ce);
    }

    /// `on_segment` for a segment whose IP header carried CE = `ce` (RFC 3168 §5).
    pub fn on_segment_ce(&mut self, now: SimTime, seg: &TcpSegment, ce: bool) {
        if seg.flags.has(TcpFlags::SYN) {
            if matches!(self.state, ReceiverState::Listen | ReceiverState::SynReceived) {
                self.state = ReceiverState::SynReceived;
                self.synack_due = true;
            }
            return;
        }
        if self.state == ReceiverState::SynReceived {
            self.state = ReceiverState::Established;
            self.rwnd.on_established(now, self.rcv_nxt);
            if let Some(sent) = self.synack_sent_at.take() {
                self.rtt.on_sample(now - sent, 0, 0);
            }
        }
        if self.state == ReceiverState::Listen {
            return;
        }
        self.echo_ce(now, seg, ce);
        self.update_ts_recent(seg);
        if seg.flags.has(TcpFlags::FIN) {
            self.fin_seq = Some(seg.seq + seg.len as u64);
            self.ack_due = true;
        }
        if seg.len > 0 {
            self.rcv_mss = self.rcv_mss.max(seg.len);
            if self.p.timestamps && seg.seq == self.rcv_nxt {
                self.rwnd.on_tsecr(now, seg.ts_ecr, seg.len, !self.wants_read());
            }
            self.on_data(now, seg.seq, seg.seq + seg.len as u64);
        }
        self.consume_fin(now);
    }

    /// RFC 7323 §4.3 (2): a segment at or below Last.ACK.sent with a TSval not older
    /// than TS.Recent updates it, so the echo names the segment that opened the ACK.
    fn update_ts_recent(&mut self, seg: &TcpSegment) {
        if self.p.timestamps && seg.seq <= self.last_ack_sent && self.ts_recent.is_none_or(|r| seg.ts_val >= r) {
            self.ts_recent = Some(seg.ts_val);
        }
    }

    /// Linux `tcp_dsack_set` (RFC 2883 §4): remember one duplicate range for the next ACK.
    fn note_duplicate(&mut self, start: u64, end: u64) {
        if self.p.dsack && self.p.sack && start < end {
            self.dsack = Some((start, end));
        }
    }

    /// In-order data has arrived that the application has not read yet.
    pub fn wants_read(&self) -> bool {
        self.copied_bytes < self.delivered_bytes()
    }

    /// The application reads everything in order (Linux `tcp_recvmsg`): autotuning measures
    /// the read (`tcp_rcv_space_adjust`), and `__tcp_cleanup_rbuf` sends an ACK if the
    /// softirq left more than one full segment unacknowledged ("Once-per-two-segments ACK was
    /// not sent by tcp_input.c"), or if the window the read frees is worth announcing.
    /// True when an ACK is due.
    #[inline]
    pub fn on_app_read(&mut self, now: SimTime) -> bool {
        if self.wants_read() {
            self.copied_bytes = self.delivered_bytes();
            let first_end = self.first_unread_end.take().unwrap_or(self.rcv_nxt);
            self.rwnd.on_read(now, first_end, self.rcv_nxt);
            // ns-3's receiver never ACKs because the application read.
            let linux = self.p.ack_policy == Stack::Linux;
            if linux && (self.left_for_the_read() || self.rwnd.update_due(self.rcv_nxt, self.held_bytes())) {
                self.ack_due = true;
            }
        }
        self.ack_due
    }

    /// `__tcp_cleanup_rbuf`'s "Once-per-two-segments ACK was not sent by tcp_input.c": an ACK
    /// is scheduled and more than one full segment is unacknowledged (`rcv_nxt - rcv_wup >
    /// rcv_mss`). With another `delayed_ack_count` than Linux's two, every N-th segment.
    fn left_for_the_read(&self) -> bool {
        if self.segs_since_ack == 0 {
            return false;
        }
        if self.p.delayed_ack_count == LINUX_DELAYED_ACK_COUNT {
            self.rcv_nxt - self.last_ack_sent > self.rcv_mss as u64
        } else {
            self.segs_since_ack >= self.p.delayed_ack_count
        }
    }

    fn echo_ce(&mut self, now: SimTime, seg: &TcpSegment, ce: bool) {
        match self.echo {
            EcnEcho::Off => {}
            EcnEcho::Classic { latched } => {
                let cleared = latched && !seg.flags.has(TcpFlags::CWR);
                self.echo = EcnEcho::Classic { latched: cleared || ce };
            }
            EcnEcho::Accurate { ce: echoed } if echoed != ce => {
                if self.segs_since_ack > 0 {
                    self.ack_before_this_segment(now);
                }
                self.echo = EcnEcho::Accurate { ce };
            }
            EcnEcho::Accurate { .. } => {}
        }
    }

    fn ece(&self) -> bool {
        match self.echo {
            EcnEcho::Off => false,
            EcnEcho::Classic { latched } => latched,
            EcnEcho::Accurate { ce } => ce,
        }
    }

    fn on_data(&mut self, now: SimTime, start: u64, end: u64) {
        if end <= self.rcv_nxt {
            // A duplicate: ACK at once so the sender learns (RFC 5681 §4.2), and
            // Linux tcp_data_queue enters quick-ACK mode: the sender is recovering.
            self.note_duplicate(start, end);
            if self.p.ack_policy == Stack::Linux {
                let (wnd, mss) = (self.rwnd.rcv_wnd(), self.rcv_mss);
                self.ack_clock.enter_quickack_mode(wnd, mss, MAX_QUICKACKS);
            }
            self.ack_due = true;
        } else if start <= self.rcv_nxt && self.p.ack_policy == Stack::Ns3 {
            self.on_in_order_ns3(now, start, end);
        } else if start <= self.rcv_nxt {
            self.note_duplicate(start, self.rcv_nxt);
            let had_hole = !self.ooo.is_empty();
            self.first_unread_end.get_or_insert(end);
            self.rcv_nxt = end;
            self.absorb_ooo();
            let (wnd, mss, rto) = (self.rwnd.rcv_wnd(), self.rcv_mss, self.rtt.rto());
            self.ack_clock.on_data(now, wnd, mss, rto);
            // The segment, and any before it in this instant, is still unread (softirq).
            if self.rwnd.on_data(now, (end - start) as u32, self.rcv_nxt, self.held_bytes()) {
                self.ack_clock.grant_one();
            }
            self.segs_since_ack += 1;
            // RFC 5681 §4.2: ACK immediately when a segment fills the gap (Linux ICSK_ACK_NOW
            // once the out-of-order queue is empty); a partial fill is a SACK like any other.
            let filled = had_hole && self.ooo.is_empty();
            if filled || self.second_segment_ack() || self.ack_clock.quick() {
                self.ack_due = true;
            } else if !self.ooo.is_empty() {
                self.sack_due(now);
            } else {
                let at = now + self.ack_clock.delay(self.rtt.srtt());
                self.delack_at = Some(self.delack_at.map_or(at, |t| t.min(at)));
            }
        } else {
            if let Some(b) = self.ooo.iter().find(|b| b.start < end && start < b.end) {
                // Linux tcp_data_queue_ofo: the part already held is a duplicate.
                let (dup_start, dup_end) = (start.max(b.start), end.min(b.end));
                self.note_duplicate(dup_start, dup_end);
            }
            // Linux `tcp_sack_new_ofo_skb`: before the SACK list forgets a block, the held
            // SACKs go (`tcp_sack_compress_send_ack`), so the sender has seen it.
            if self.p.sack && self.sacks.would_forget(start, end) && self.comp_sack.holds() {
                self.ack_before_this_segment(now);
            }
            self.insert_ooo(start, end);
            if self.p.sack {
                self.sacks.on_out_of_order(start, end);
                self.rwnd.on_out_of_order((end - start) as u32, self.ooo_bytes());
            }
            // RFC 5681 §4.2: an out-of-order segment is ACKed at once (a duplicate ACK), in
            // quick-ACK mode always, else subject to SACK compression (ns-3: always at once).
            if self.ack_clock.quick() || self.p.ack_policy == Stack::Ns3 {
                self.ack_due = true;
            } else {
                self.sack_due(now);
            }
        }
    }

    /// ns-3.44 `TcpSocketBase::ReceivedData` for data at `rcv_nxt`: "A gap exists in the
    /// buffer, or we filled a gap: Always ACK"; else "ACK if delayed ack count allows", with
    /// the `DelAckTimeout` timer started if it is not running.
    fn on_in_order_ns3(&mut self, now: SimTime, start: u64, end: u64) {
        self.note_duplicate(start, self.rcv_nxt);
        let had_hole = !self.ooo.is_empty();
        self.first_unread_end.get_or_insert(end);
        self.rcv_nxt = end;
        self.absorb_ooo();
        self.segs_since_ack += 1;
        if had_hole || self.segs_since_ack >= self.p.delayed_ack_count {
            self.ack_due = true;
        } else {
            self.delack_at.get_or_insert(now + self.p.delayed_ack_timeout);
        }
    }

    /// Linux `__tcp_ack_snd_check`'s tail: with out-of-order data queued, a duplicate ACK goes
    /// now or is held (`tcp/comp_sack.rs`); without SACK it always goes now.
    fn sack_due(&mut self, now: SimTime) {
        let rtt = match (self.rwnd.rtt(), self.rtt.srtt()) {
            (Some(rcv), Some(srtt)) => Some(rcv.min(srtt)),
            (rcv, _) => rcv,
        };
        let max_held = if self.p.sack { self.p.comp_sack_nr } else { 0 };
        if self.comp_sack.on_sack_due(now, self.rcv_nxt, rtt, max_held) == SackAck::Now {
            self.ack_due = true;
        }
    }

    /// Linux `__tcp_ack_snd_check`: every second full segment is ACKed at once (RFC 5681
    /// §4.2) only if the window offered now, with the unread data held, is not below the one
    /// last offered ("right edge of window advances far enough"); otherwise the read does it.
    /// Computing that window ends quick-ACK mode when less than half the buffer is free.
    fn second_segment_ack(&mut self) -> bool {
        if self.segs_since_ack < self.p.delayed_ack_count {
            return false;
        }
        // `delayed_ack_count = 1` turns delayed ACKs off: every segment is ACKed at once.
        if self.p.delayed_ack_count == 1 {
            return true;
        }
        let (advances, leave_quick) = self.rwnd.advances(self.held_bytes());
        if leave_quick {
            self.ack_clock.leave_quickack();
        }
        advances
    }

    /// An ACK of the state before the segment now arriving, sent ahead of it (Linux sends it
    /// there and then: `tcp_event_ack_sent` clears the held SACKs and the delayed-ACK timer).
    fn ack_before_this_segment(&mut self, now: SimTime) {
        self.early_ack = Some(self.ack_segment(now));
        self.segs_since_ack = 0;
        self.delack_at = None;
        self.comp_sack.on_ack_sent();
    }

    #[inline]
    fn absorb_ooo(&mut self) {
        while let Some(b) = self.ooo.first() {
            if b.start > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(b.end);
            self.ooo.remove(0);
        }
        self.sacks.on_rcv_nxt(self.rcv_nxt, self.ooo.is_empty());
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        let mut nb = Block { start, end };
        // Merge every block that overlaps or abuts the new one.
        self.ooo.retain(|b| {
            let disjoint = b.end < nb.start || b.start > nb.end;
            if !disjoint {
                nb.start = nb.start.min(b.start);
                nb.end = nb.end.max(b.end);
            }
            disjoint
        });
        let at = self.ooo.partition_point(|b| b.start < nb.start);
        self.ooo.insert(at, nb);
    }

    fn consume_fin(&mut self, now: SimTime) {
        if self.fin_seq == Some(self.rcv_nxt) && self.state == ReceiverState::Established {
            self.rcv_nxt += 1;
            self.state = ReceiverState::Closed;
            self.completed_at = Some(now);
            self.ack_due = true;
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        SimTime::earliest(self.delack_at, self.comp_sack.timer())
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        if self.delack_at.is_some_and(|t| now >= t) || self.comp_sack.on_timeout(now) {
            self.ack_due = true;
        }
    }

    #[inline]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<TcpSegment> {
        if self.synack_due {
            self.synack_due = false;
            self.synack_sent_at.get_or_insert(now);
            let mut synack = self.segment(TcpFlags::SYN | TcpFlags::ACK, now);
            synack.wnd_bytes = self.rwnd.synack_window_bytes();
            return Some(synack);
        }
        // Tested before taking: moving the (large) `Option<TcpSegment>` out costs a copy per poll.
        if self.early_ack.is_some() {
            self.ack_clock.on_ack_sent();
            return self.early_ack.take();
        }
        if !self.ack_due {
            return None;
        }
        self.ack_due = false;
        self.segs_since_ack = 0;
        self.delack_at = None;
        self.ack_clock.on_ack_sent();
        self.comp_sack.on_ack_sent();
        Some(self.ack_segment(now))
    }

    fn ack_segment(&mut self, now: SimTime) -> TcpSegment {
        let ece = if self.ece() { TcpFlags::ECE } else { 0 };
        let mut seg = self.segment(TcpFlags::ACK | ece, now);
        let (wnd, leave_quick) = self.rwnd.advertise(self.rcv_nxt, self.held_bytes());
        seg.wnd_bytes = wnd;
        if leave_quick {
            self.ack_clock.leave_quickack();
        }
        if self.p.sack {
            let dsack = self.dsack.take();
            seg.sack = self.sack_blocks(dsack);
        }
        self.last_ack_sent = self.rcv_nxt;
        seg
    }

    /// Bytes held for reassembly: they take receive memory (`tcp_space`).
    fn ooo_bytes(&self) -> u64 {
        self.ooo.iter().map(|b| b.end - b.start).sum()
    }

    /// Bytes taking receive memory: out of order, or in order and not yet read.
    fn held_bytes(&self) -> u64 {
        self.ooo_bytes() + (self.delivered_bytes() - self.copied_bytes)
    }

    /// The receive-window state (for tests and traces).
    pub fn window(&self) -> &RcvWindow {
        &self.rwnd
    }

    /// Quick ACKs still to send at once (Linux `icsk_ack.quick`).
    pub fn quick_acks_left(&self) -> u32 {
        self.ack_clock.quick_left()
    }

    /// A control segment sent at `now` (its TSval, which the sender echoes: RFC 7323 §3).
    fn segment(&self, flags: u8, now: SimTime) -> TcpSegment {
        TcpSegment {
            flags: TcpFlags(flags),
            seq: 0,
            ack: self.rcv_nxt,
            len: 0,
            wnd_bytes: self.rwnd.rcv_wnd(),
            sack: SackBlocks::default(),
            timestamps: self.p.timestamps,
            ts_val: now,
            ts_ecr: if self.p.timestamps { self.ts_recent } else { None },
            ce: false,
        }
    }

    /// RFC 2018 §4: the listed blocks, most recently changed first, as many as fit (Linux
    /// `tcp_established_options`); a D-SACK block, when there is one, goes before them all
    /// (RFC 2883 §4).
    fn sack_blocks(&self, dsack: Option<(u64, u64)>) -> SackBlocks {
        let mut out = SackBlocks::default();
        if let Some(d) = dsack {
            out.push(d);
        }
        let room = TcpSegment::max_sack_blocks(self.p.timestamps) - out.len as usize;
        self.sacks.blocks().iter().take(room).for_each(|&b| out.push(b));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::TcpSpec;
    use crate::sim::SimDuration;

    fn rx() -> TcpReceiver {
        rx_with(EcnEcho::Off)
    }

    fn rx_with(echo: EcnEcho) -> TcpReceiver {
        let mut r = TcpReceiver::new(TcpSpec::default().resolve(), 1000, echo);
        r.on_segment(SimTime::ZERO, &TcpSegment { flags: TcpFlags(TcpFlags::SYN), ..Default::default() });
        assert!(r.poll_transmit(SimTime::ZERO).unwrap().flags.has(TcpFlags::SYN));
        r
    }

    fn data(seq: u64, len: u32) -> TcpSegment {
        TcpSegment { flags: TcpFlags(TcpFlags::ACK), seq, len, ..Default::default() }
    }

    /// Feed `n` in-order 1000-byte segments from `seq`, each read before the next arrives,
    /// polling after each; count the ACKs.
    fn feed(r: &mut TcpReceiver, now: SimTime, seq: u64, n: u64) -> usize {
        (0..n)
            .filter(|i| {
                r.on_segment(now, &data(seq + i * 1000, 1000));
                r.on_app_read(now);
                r.poll_transmit(now).is_some()
            })
            .count()
    }

    #[test]
    fn the_first_sixteen_segments_are_acked_each_then_every_second() {
        let mut r = rx();
        // Linux tcp_incr_quickack at the first data: min(rwnd / (2 * MSS), 16) =
        // min(6291456 / 2000, 16) = 16 ACKs at once (TCP_MAX_QUICKACKS).
        assert_eq!(feed(&mut r, SimTime::ZERO, 0, 16), 16);
        assert_eq!(r.quick_acks_left(), 0);
        // Then RFC 5681 §4.2: every second segment; 24 segments -> 12 ACKs.
        assert_eq!(feed(&mut r, SimTime::ZERO, 16_000, 24), 12);
        // A lone segment waits for the delayed-ACK timer, TCP_DELACK_MIN = 40 ms.
        r.on_segment(SimTime::ZERO, &data(40_000, 1000));
        assert!(r.poll_transmit(SimTime::ZERO).is_none());
        assert_eq!(r.poll_timeout(), Some(SimTime::ZERO + SimDuration::from_ms(40)));
    }

    /// A receiver under the ns3 profile (ns-3.44's ACK policy and window).
    fn rx_ns3() -> TcpReceiver {
        let spec = TcpSpec { profile: Some(crate::scenario::TcpProfile::Ns3), ..TcpSpec::default() };
        let mut r = TcpReceiver::new(spec.resolve_for("newreno"), 1000, EcnEcho::Off);
        r.on_segment(SimTime::ZERO, &TcpSegment { flags: TcpFlags(TcpFlags::SYN), ..Default::default() });
        let synack = r.poll_transmit(SimTime::ZERO).unwrap();
        // AdvertisedWindowSize(false) on the SYN-ACK: RcvBufSize 131072 capped at 65535.
        assert_eq!(synack.wnd_bytes, 65_535);
        r
    }

    #[test]
    fn ns3_acks_every_second_in_order_segment_from_the_first_and_offers_its_whole_buffer() {
        let mut r = rx_ns3();
        // No quick-ACK: TcpSocketBase::ReceivedData counts to DelAckCount = 2 from the start,
        // where Linux ACKs the first 16 at once (the first test above).
        assert_eq!(feed(&mut r, SimTime::ZERO, 0, 16), 8);
        // A lone segment waits for DelAckTimeout, 200 ms, and the window is RcvBufSize:
        // CalculateWScale shifts 131072 by 2 to fit 16 bits, 32768 << 2 = 131072.
        r.on_segment(SimTime::ZERO, &data(16_000, 1000));
        assert!(r.poll_transmit(SimTime::ZERO).is_none());
        assert_eq!(r.poll_timeout(), Some(SimTime::ZERO + SimDuration::from_ms(200)));
        // A segment arriving before the timer fires does not restart it.
        r.on_segment(SimTime::ZERO + SimDuration::from_ms(150), &data(17_000, 1000));
        let ack = r.poll_transmit(SimTime::ZERO + SimDuration::from_ms(150)).unwrap();
        assert_eq!((ack.ack, ack.wnd_bytes), (18_000, 131_072));
    }

    #[test]
    fn ns3_acks_every_out_of_order_segment_and_the_one_that_fills_the_hole_at_once() {
        let mut r = rx_ns3();
        feed(&mut r, SimTime::ZERO, 0, 2);
        // 2000 is lost; ten more arrive: ten duplicate ACKs (ns-3 has no SACK compression),
        // each offering the whole buffer: out-of-order data does not count (MaxRxSequence).
        for i in 0..10 {
            r.on_segment(SimTime::ZERO, &data(3000 + i * 1000, 1000));
            let ack = r.poll_transmit(SimTime::ZERO).expect("a duplicate ACK per segment");
            assert_eq!((ack.ack, ack.wnd_bytes), (2000, 131_072));
        }
        // The retransmission fills the hole: an ACK at once, no D-SACK in it.
        r.on_segment(SimTime::ZERO, &data(2000, 1000));
        let ack = r.poll_transmit(SimTime::ZERO).unwrap();
        assert_eq!((ack.ack, ack.sack.len), (13_000, 0));
    }

    #[test]
    fn a_duplicate_segment_restarts_quick_acks() {
        let mut r = rx();
        feed(&mut r, SimTime::ZERO, 0, 20);
        assert_eq!(r.quick_acks_left(), 0);
        // A retransmission of data already held: Linux tcp_enter_quickack_mode(16).
        r.on_segment(SimTime::ZERO, &data(0, 1000));
        assert!(r.poll_transmit(SimTime::ZERO).is_some());
        assert_eq!(feed(&mut r, SimTime::ZERO, 20_000, 15), 15);
    }

    #[test]
    fn a_retransmitted_duplicate_is_reported_with_a_dsack_block() {
        let mut r = rx();
        feed(&mut r, SimTime::ZERO, 0, 3);
        r.on_segment(SimTime::ZERO, &data(5000, 1000));
        r.poll_transmit(SimTime::ZERO);
        r.on_segment(SimTime::ZERO, &data(1000, 1000));
        let ack = r.poll_transmit(SimTime::ZERO).unwrap();
        // RFC 2883 §4.1.1: the duplicate first, below the cumulative ACK, then the SACK.
        assert_eq!(ack.ack, 3000);
        assert_eq!(ack.sack.as_slice(), &[(1000, 2000), (5000, 6000)]);
        // Reported once only.
        r.on_segment(SimTime::ZERO, &data(3000, 1000));
        assert_eq!(r.poll_transmit(SimTime::ZERO).unwrap().sack.as_slice(), &[(5000, 6000)]);
    }

    #[test]
    fn out_of_order_data_gets_an_immediate_duplicate_ack_with_sack() {
        let mut r = rx();
        r.on_segment(SimTime::ZERO, &data(1000, 1000));
        r.on_segment(SimTime::ZERO, &data(3000, 1000));
        let ack = r.poll_transmit(SimTime::ZERO).unwrap();
        assert_eq!(ack.ack, 0);
        assert_eq!(ack.sack.as_slice(), &[(3000, 4000), (1000, 2000)]);
    }

    #[test]
    fn past_quick_acks_three_duplicate_acks_go_at_once_and_the_rest_wait_for_the_sack_timer() {
        let mut r = rx();
        let t = SimTime::ZERO + SimDuration::from_ms(20);
        feed(&mut r, t, 0, 16);
        assert_eq!(r.quick_acks_left(), 0);
        // 16,000 is lost; the next eight arrive 100 us apart.
        let sent = (1..=8u64)
            .filter(|&i| {
                let now = t + SimDuration::from_us(100 * i);
                r.on_segment(now, &data(16_000 + i * 1000, 1000));
                r.poll_transmit(now).is_some()
            })
            .count();
        assert_eq!(sent, 3);
        // The timer is 5 % of the receive-side RTT (lowered to SRTT); with no receive-side
        // sample (these segments carry no timestamps) Linux takes 0, so it fires at once.
        let fire = t + SimDuration::from_us(400);
        assert_eq!(r.poll_timeout(), Some(fire));
        r.on_timeout(fire);
        let ack = r.poll_transmit(fire).unwrap();
        assert_eq!((ack.ack, ack.sack.as_slice()[0]), (16_000, (17_000, 25_000)));
        assert_eq!(r.poll_timeout(), None);
        // With tcp_comp_sack_nr = 0 every one goes at once.
        let mut r = rx();
        r.p.comp_sack_nr = 0;
        feed(&mut r, t, 0, 16);
        let sent = (1..=8u64).filter(|&i| {
            r.on_segment(t, &data(16_000 + i * 1000, 1000));
            r.poll_transmit(t).is_some()
        });
        assert_eq!(sent.count(), 8);
    }

    #[test]
    fn held_sacks_go_before_the_receiver_forgets_a_block() {
        let mut r = rx();
        let t = SimTime::ZERO + SimDuration::from_ms(20);
        feed(&mut r, t, 0, 16);
        let arrive = |r: &mut TcpReceiver, at: SimTime, seq: u64| {
            r.on_segment(at, &data(seq, 1000));
            std::iter::from_fn(|| r.poll_transmit(at)).collect::<Vec<_>>()
        };
        // Four blocks behind four holes (16,000, 18,000, 20,000, 22,000 lost): three duplicate
        // ACKs go at once, the fourth is held.
        for (i, seq) in [17_000u64, 19_000, 21_000].into_iter().enumerate() {
            assert_eq!(arrive(&mut r, t + SimDuration::from_us(i as u64), seq).len(), 1);
        }
        assert!(arrive(&mut r, t + SimDuration::from_us(3), 23_000).is_empty());
        // Extending a listed block forgets nothing: still held.
        assert!(arrive(&mut r, t + SimDuration::from_us(4), 24_000).is_empty());
        // A fifth block would push the oldest (17,000) out of the list: the held SACK goes
        // first, with the blocks before this segment; this one's is held anew.
        let now = t + SimDuration::from_us(5);
        let acks = arrive(&mut r, now, 26_000);
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].sack.as_slice(), &[(23_000, 25_000), (21_000, 22_000), (19_000, 20_000)]);
        assert_eq!(r.poll_timeout(), Some(now));
        r.on_timeout(now);
        assert_eq!(r.poll_transmit(now).unwrap().sack.as_slice()[0], (26_000, 27_000));
        // With nothing held, a new block sends nothing early.
        assert!(arrive(&mut r, now, 28_000).is_empty());
    }

    #[test]
    fn filling_the_hole_acks_everything_at_once() {
        let mut r = rx();
        r.on_segment(SimTime::ZERO, &data(1000, 1000));
        r.poll_transmit(SimTime::ZERO);
        r.on_segment(SimTime::ZERO, &data(0, 1000));
        let ack = r.poll_transmit(SimTime::ZERO).unwrap();
        assert_eq!(ack.ack, 2000);
        assert_eq!(ack.sack.len, 0);
        assert_eq!(r.delivered_bytes(), 2000);
    }

    #[test]
    fn fin_in_order_closes_and_is_acked_past_the_data() {
        let mut r = rx();
        r.on_segment(SimTime::ZERO, &data(0, 500));
        r.on_segment(
            SimTime(5),
            &TcpSegment { flags: TcpFlags(TcpFlags::FIN | TcpFlags::ACK), seq: 500, ..Default::default() },
        );
        assert_eq!(r.state(), ReceiverState::Closed);
        assert_eq!(r.poll_transmit(SimTime(5)).unwrap().ack, 501);
        assert_eq!(r.delivered_bytes(), 500);
        assert_eq!(r.completed_at, Some(SimTime(5)));
    }

    fn marked(seq: u64, len: u32, ce: bool, flags: u8) -> TcpSegment {
        TcpSegment { flags: TcpFlags(TcpFlags::ACK | flags), seq, len, ce, ..Default::default() }
    }

    #[test]
    fn classic_echo_latches_ece_until_cwr() {
        let mut r = rx_with(EcnEcho::Classic { latched: false });
        r.on_segment(SimTime::ZERO, &marked(0, 1000, true, 0));
        r.on_segment(SimTime::ZERO, &marked(1000, 1000, false, 0));
        assert!(r.poll_transmit(SimTime::ZERO).unwrap().flags.has(TcpFlags::ECE));
        r.on_segment(SimTime::ZERO, &marked(2000, 1000, false, TcpFlags::CWR));
        r.on_segment(SimTime::ZERO, &marked(3000, 1000, false, 0));
        assert!(!r.poll_transmit(SimTime::ZERO).unwrap().flags.has(TcpFlags::ECE));
    }

    #[test]
    fn accurate_echo_acks_at_once_when_the_ce_state_flips() {
        let mut r = rx_with(EcnEcho::Accurate { ce: false });
        r.on_segment(SimTime::ZERO, &marked(0, 1000, false, 0));
        // A CE packet arrives while one unmarked segment waits for its delayed ACK:
        // that segment is ACKed first without ECE, then the marked one with ECE.
        r.on_segment(SimTime::ZERO, &marked(1000, 1000, true, 0));
        let first = r.poll_transmit(SimTime::ZERO).unwrap();
        assert_eq!((first.ack, first.flags.has(TcpFlags::ECE)), (1000, false));
        r.on_segment(SimTime::ZERO, &marked(2000, 1000, true, 0));
        let second = r.poll_transmit(SimTime::ZERO).unwrap();
        assert_eq!((second.ack, second.flags.has(TcpFlags::ECE)), (3000, true));
    }

    #[test]
    fn segments_that_grow_the_window_are_acked_at_once() {
        // Linux defaults, MSS 1448, the sender at 10 Mbit/s (one segment per 1.2 ms) echoing
        // the SYN-ACK's TSval (t = 0) from 40 ms on: the receiver's RTT is 40 ms.
        let mut r = TcpReceiver::new(TcpSpec::default().resolve(), 1448, EcnEcho::Off);
        r.on_segment(SimTime::ZERO, &TcpSegment { flags: TcpFlags(TcpFlags::SYN), ..Default::default() });
        let synack = r.poll_transmit(SimTime::ZERO).unwrap();
        assert_eq!(synack.wnd_bytes, 65_160, "rounddown(131072 / 2, 1448)");
        let t = |i: u64| SimTime::ZERO + SimDuration::from_ns(40_000_000 + i * 1_200_000);
        let seg = |i: u64| TcpSegment { ts_ecr: Some(SimTime::ZERO), timestamps: true, ..data(i * 1448, 1448) };
        let acks = |r: &mut TcpReceiver, from: u64, to: u64| {
            (from..to)
                .filter(|&i| {
                    r.on_segment(t(i), &seg(i));
                    r.on_app_read(t(i));
                    r.poll_transmit(t(i)).is_some()
                })
                .count()
        };
        // tcp_incr_quickack: min(65160 / 2896, 16) = 16 quick ACKs; the first six segments grow
        // rcv_ssthresh to min(clamp, free space) = 80480 (rwnd.rs) and each sets `quick |= 1`,
        // a bitwise OR on the count: 16 | 1 = 17, one more ACK each, so 22 in all.
        assert_eq!(acks(&mut r, 0, 16), 16);
        assert_eq!(r.quick_acks_left(), 6);
        // Segments 16..34 (up to 80 ms, one receiver RTT): six quick, then every second of
        // the twelve left (RFC 5681 §4.2): 6 + 6 ACKs.
        assert_eq!(acks(&mut r, 16, 34), 12);
        // Segment 34 (80.8 ms) is read an RTT after the start: autotuning sets the clamp to
        // 35 x 1448 = 50680 bytes' worth (rwnd.rs), so every later segment grows rcv_ssthresh
        // by 2 advmss and is ACKed at once (icsk_ack.quick |= 1): ten segments, ten ACKs.
        acks(&mut r, 34, 35);
        assert!(r.window().window_clamp() > 500_000);
        assert_eq!(acks(&mut r, 35, 45), 10);
        assert_eq!(r.window().rcv_ssthresh(), 80_480 + 10 * 2_896);
    }

    /// A receiver whose window is bound by its memory: a fixed 128 KiB buffer (no autotuning),
    /// MSS 1448, past its quick ACKs and with rcv_ssthresh grown as far as the buffer allows,
    /// each segment read before the next arrives.
    fn memory_bound_receiver() -> (TcpReceiver, u64) {
        let spec = TcpSpec {
            tcp_rmem: Some([4096, 131_072, 131_072]),
            tcp_moderate_rcvbuf: Some(false),
            ..Default::default()
        };
        let mut r = TcpReceiver::new(spec.resolve(), 1448, EcnEcho::Off);
        r.on_segment(SimTime::ZERO, &TcpSegment { flags: TcpFlags(TcpFlags::SYN), ..Default::default() });
        r.poll_transmit(SimTime::ZERO);
        let mut seq = 0;
        for i in 0..60 {
            let now = SimTime::ZERO + SimDuration::from_ms(i);
            r.on_segment(now, &data(seq, 1448));
            r.on_app_read(now);
            r.poll_transmit(now);
            seq += 1448;
        }
        // tcp_grow_window stops at the free space with one segment held: scaling_ratio 160/256
        // (1448 B in a 2304 B truesize), (131072 - 2304) x 160 / 256 = 80480.
        assert_eq!((r.quick_acks_left(), r.window().rcv_ssthresh()), (0, 80_480));
        (r, seq)
    }

    #[test]
    fn segments_read_one_by_one_are_acked_every_second() {
        let (mut r, seq) = memory_bound_receiver();
        let acks = (0..6u64)
            .filter(|&i| {
                let now = SimTime::ZERO + SimDuration::from_ms(100 + i);
                r.on_segment(now, &data(seq + i * 1448, 1448));
                r.on_app_read(now);
                r.poll_transmit(now).is_some()
            })
            .count();
        assert_eq!(acks, 3);
    }

    #[test]
    fn a_burst_taken_in_before_the_read_is_acked_once_by_the_read() {
        let (mut r, seq) = memory_bound_receiver();
        let now = SimTime::ZERO + SimDuration::from_ms(100);
        // Six segments in one instant, unread: from the second on, the free space with them held
        // is below the 80480 last offered ((131072 - 2 x 2304) x 160 / 256 = 79040), so
        // __tcp_ack_snd_check leaves the ACK to the read.
        for i in 0..6u64 {
            r.on_segment(now, &data(seq + i * 1448, 1448));
            assert!(r.poll_transmit(now).is_none(), "segment {i}");
        }
        assert!(r.wants_read());
        // __tcp_cleanup_rbuf: more than one segment unacknowledged, so the read ACKs all six,
        // the sixth too, which reading one by one would have left to the delayed-ACK timer.
        r.on_app_read(now);
        assert_eq!(r.poll_transmit(now).unwrap().ack, seq + 6 * 1448);
        assert!(!r.wants_read());
    }

    #[test]
    fn without_delayed_acks_every_segment_of_a_burst_is_acked_at_once() {
        let (mut r, seq) = memory_bound_receiver();
        r.p.delayed_ack_count = 1;
        let now = SimTime::ZERO + SimDuration::from_ms(100);
        for i in 0..6u64 {
            r.on_segment(now, &data(seq + i * 1448, 1448));
            assert_eq!(r.poll_transmit(now).map(|a| a.ack), Some(seq + (i + 1) * 1448), "segment {i}");
        }
    }

    #[test]
    fn every_third_segment_with_a_count_of_three() {
        let (mut r, seq) = memory_bound_receiver();
        r.p.delayed_ack_count = 3;
        let now = SimTime::ZERO + SimDuration::from_ms(100);
        // A burst of six, unread: the window test holds the ACKs back; the read sends one for all.
        let acks = (0..6u64).filter(|&i| {
            r.on_segment(now, &data(seq + i * 1448, 1448));
            r.poll_transmit(now).is_some()
        });
        assert_eq!(acks.count(), 0);
        assert!(r.on_app_read(now));
        assert_eq!(r.poll_transmit(now).unwrap().ack, seq + 6 * 1448);
        // Read one by one: an ACK at every third segment, none from the reads between.
        let later = now + SimDuration::from_ms(1);
        let acks: Vec<u64> = (6..12u64)
            .filter(|&i| {
                r.on_segment(later, &data(seq + i * 1448, 1448));
                r.on_app_read(later);
                r.poll_transmit(later).is_some()
            })
            .collect();
        assert_eq!(acks, vec![8, 11]);
    }

    #[test]
    fn a_lone_segment_is_not_acked_by_its_read() {
        let (mut r, seq) = memory_bound_receiver();
        let now = SimTime::ZERO + SimDuration::from_ms(100);
        r.on_segment(now, &data(seq, 1448));
        r.on_app_read(now);
        assert!(r.poll_transmit(now).is_none());
        assert_eq!(r.poll_timeout(), Some(now + SimDuration::from_ms(40)));
    }
}
