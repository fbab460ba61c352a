//! The send buffer as Linux sizes and fills it: how much of what the application writes the
//! socket takes, and when the application may write again.
//!
//! ```text
//!  Writing ─write finds the buffer full / poll finds it unwritable─► WaitingForSpace
//!  WaitingForSpace ─an ACK─► AckArrived
//!  AckArrived ─after the send loop: expand if cwnd is not full; writable?─► Writing
//!                                                          └─ not yet ─► WaitingForSpace
//! ```
//!
//! Sources: `sk_sndbuf` starts at `tcp_wmem[1]` (net/ipv4/tcp.c `tcp_init_sock`) and grows only
//! in `tcp_sndbuf_expand` (net/ipv4/tcp_input.c), at connection set-up (`tcp_init_buffer_space`)
//! and from `tcp_new_space` when the application found the socket full (SOCK_NOSPACE) and cwnd
//! is not full (`tcp_should_expand_sndbuf`), which `tcp_check_space` calls after every ACK's send
//! loop (since Linux 5.10, "tcp: remove SOCK_QUEUE_SHRUNK"; before, only after ACKs that freed
//! skbs). `sk_wmem_queued` charges each skb's truesize (`tcp_stream_alloc_skb`,
//! `skb_copy_to_page_nocache`, `tso_fragment`); `tcp_sendmsg_locked` opens a new skb only while
//! `sk_wmem_queued < sk_sndbuf`; `tcp_poll` reports writable while `sk_stream_wspace >=
//! sk_stream_min_wspace` (include/net/sock.h), i.e. up to 2/3 full.
//!
//! `tcp.send_buffer = "ns3"` is ns-3.44's `TcpTxBuffer` instead: a fixed `SndBufSize`
//! (`snd_buf_bytes`) of payload, unacknowledged and unsent together, no skb overhead and no
//! growth; the application may write whenever it is not full (`TcpSocketBase::GetTxAvailable`
//! = `MaxBufferSize - Size`), and an ACK that frees room wakes it (`NewAck` -> `NotifySend`).

use std::collections::VecDeque;

use crate::scenario::Stack;

use super::tso::{MAX_TCP_HEADER_BYTES, SK_GSO_MAX_BYTES};

/// Linux `TCP_INIT_CWND` (include/net/tcp.h): the least window `tcp_sndbuf_expand` provisions for.
const TCP_INIT_CWND: u64 = 10;
/// `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` on x86-64 (17 page frags).
const SKB_SHINFO_BYTES: u64 = 320;
/// `SKB_DATA_ALIGN(sizeof(struct sk_buff))` on x86-64.
const SK_BUFF_BYTES: u64 = 256;
/// Truesize of a TCP skb before payload (`tcp_stream_alloc_skb`: a `MAX_TCP_HEADER` head, its
/// shared info and the sk_buff): 832 B, as the Linux backend's kernel charges it (SO_MEMINFO shows
/// 17,808 B queued per 14,480 B write sent as four skbs).
const SKB_OVERHEAD_BYTES: u64 = MAX_TCP_HEADER_BYTES + SKB_SHINFO_BYTES + SK_BUFF_BYTES;
/// Linux `tcp_bound_to_half_wnd`: windows above `TCP_MSS_DEFAULT` bound an skb to half of them.
const TCP_MSS_DEFAULT_BYTES: u64 = 536;

/// Whether the application is waiting for the socket (Linux SOCK_NOSPACE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// The socket took everything offered so far.
    Writing,
    /// The application found the socket full or unwritable and waits.
    WaitingForSpace,
    /// An ACK came while the application waited: `tcp_check_space` runs after the send loop.
    AckArrived,
}

/// The skb new data is leaving in: Linux splits what was written into skbs of `tcp_tso_segs`
/// segments as it sends (`tcp_write_xmit`, `tso_fragment`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendingSkb {
    /// None: the next new segment opens one.
    Closed,
    /// `segs` sent in it so far; `limit` (`tcp_tso_segs`) once it was needed.
    Open { segs: u32, limit: Option<u32> },
}

/// One connection's send buffer.
#[derive(Clone, Debug)]
pub struct SendBuffer {
    /// `net.ipv4.tcp_wmem`.
    wmem: [u64; 3],
    /// `sk_sndbuf`.
    limit_bytes: u64,
    /// `tp->write_seq`: stream bytes the socket has taken.
    write_seq: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// `tp->max_window`: the largest window the peer offered.
    max_peer_wnd: u64,
    /// `tcp_xmit_size_goal` for that window.
    size_goal_bytes: u64,
    mss: u64,
    /// `max(mss_clamp, mss_cache)` of `tcp_sndbuf_expand`.
    mss_for_provision: u64,
    gso_max_segs: u64,
    /// First sequence of each transmitted skb not yet wholly acknowledged.
    sent_skb_starts: VecDeque<u64>,
    sending: SendingSkb,
    writer: Writer,
    /// Linux's socket memory, or ns-3's fixed payload buffer.
    model: Stack,
}

/// Linux `tcp_xmit_size_goal`: the largest skb a write builds (the device's GSO size, at most
/// half the largest window offered), in whole segments.
fn size_goal_bytes(max_peer_wnd: u64, mss: u64, gso_max_segs: u64) -> u64 {
    let half_wnd = if max_peer_wnd > TCP_MSS_DEFAULT_BYTES { max_peer_wnd / 2 } else { max_peer_wnd };
    let bound = if half_wnd > 0 { SK_GSO_MAX_BYTES.min(half_wnd) } else { SK_GSO_MAX_BYTES };
    (bound / mss).min(gso_max_segs).max(1) * mss
}

/// Linux `roundup_pow_of_two`.
fn roundup_pow_of_two(x: u64) -> u64 {
    x.max(1).next_power_of_two()
}

impl SendBuffer {
    /// `mss_clamp` is the peer's MSS option, `mss` the payload per segment; `model` whose
    /// buffer it is (ns-3's holds `wmem[2]`, `snd_buf_bytes`, from the start).
    pub fn new(wmem: [u64; 3], mss: u32, mss_clamp: u32, gso_max_segs: u32, model: Stack) -> Self {
        SendBuffer {
            wmem,
            limit_bytes: match model {
                Stack::Linux => wmem[1],
                Stack::Ns3 => wmem[2],
            },
            write_seq: 0,
            snd_una: 0,
            snd_nxt: 0,
            max_peer_wnd: 0,
            size_goal_bytes: size_goal_bytes(0, mss.max(1) as u64, gso_max_segs.max(1) as u64),
            mss: mss.max(1) as u64,
            mss_for_provision: mss.max(mss_clamp) as u64,
            gso_max_segs: gso_max_segs.max(1) as u64,
            sent_skb_starts: VecDeque::with_capacity(64),
            sending: SendingSkb::Closed,
            writer: Writer::Writing,
            model,
        }
    }

    pub fn limit_bytes(&self) -> u64 {
        self.limit_bytes
    }
    pub fn write_seq(&self) -> u64 {
        self.write_seq
    }
    pub fn writer(&self) -> Writer {
        self.writer
    }

    /// Linux `tcp_sndbuf_expand`: room for `factor` (the algorithm's `sndbuf_expand`, else 2)
    /// windows of worst-case skbs, one per segment, never shrinking, at most `tcp_wmem[2]`.
    pub fn expand(&mut self, cwnd: u32, reordering: u32, factor: u32) {
        if self.model == Stack::Ns3 {
            return;
        }
        let per_mss =
            roundup_pow_of_two(self.mss_for_provision + MAX_TCP_HEADER_BYTES + SKB_SHINFO_BYTES) + SK_BUFF_BYTES;
        let nr_segs = TCP_INIT_CWND.max(cwnd as u64).max(reordering as u64 + 1);
        let wanted = (factor as u64 * nr_segs * per_mss).min(self.wmem[2]);
        self.limit_bytes = self.limit_bytes.max(wanted);
    }

    /// `sk_wmem_queued`: every byte not yet acknowledged plus an skb's overhead per skb, sent
    /// (as split for transmission) or still queued (as written, up to the size goal each).
    pub fn queued_bytes(&self) -> u64 {
        if self.model == Stack::Ns3 {
            return self.write_seq - self.snd_una;
        }
        let unsent = self.write_seq - self.snd_nxt;
        let unsent_skbs = unsent.div_ceil(self.size_goal_bytes);
        let skbs = self.sent_skb_starts.len() as u64 + unsent_skbs;
        self.write_seq - self.snd_una + skbs * SKB_OVERHEAD_BYTES
    }

    /// Linux `__sk_stream_is_writeable`: free space at least half of what is queued.
    fn writable(&self) -> bool {
        let queued = self.queued_bytes();
        match self.model {
            Stack::Linux => self.limit_bytes.saturating_sub(queued) >= queued / 2,
            Stack::Ns3 => queued < self.limit_bytes,
        }
    }

    /// The application offers `backlog` bytes (it writes only when `tcp_poll` says writable):
    /// returns how many the socket takes. The unsent tail skb fills to the size goal freely; a
    /// new skb opens only below `sk_sndbuf` (`tcp_sendmsg_locked`).
    pub fn write(&mut self, backlog: u64) -> u64 {
        if backlog == 0 {
            return 0;
        }
        if self.writer != Writer::Writing || !self.writable() {
            self.writer = Writer::WaitingForSpace;
            return 0;
        }
        if self.model == Stack::Ns3 {
            // TcpSocketBase::Send takes what fits in `GetTxAvailable`.
            let taken = backlog.min(self.limit_bytes - self.queued_bytes());
            self.write_seq += taken;
            if taken < backlog {
                self.writer = Writer::WaitingForSpace;
            }
            return taken;
        }
        let goal = self.size_goal_bytes;
        let start = self.write_seq;
        let unsent = self.write_seq - self.snd_nxt;
        let tail_room = unsent.div_ceil(goal) * goal - unsent;
        self.write_seq += tail_room.min(backlog);
        while self.write_seq - start < backlog && self.queued_bytes() < self.limit_bytes {
            self.write_seq += goal.min(backlog - (self.write_seq - start));
        }
        let taken = self.write_seq - start;
        if taken < backlog {
            self.writer = Writer::WaitingForSpace;
        }
        taken
    }

    pub fn sending_skb(&self) -> SendingSkb {
        self.sending
    }

    /// The skb being sent takes at most `limit` segments (`tcp_tso_segs`).
    pub fn set_skb_limit(&mut self, limit: u32) {
        if let SendingSkb::Open { segs, .. } = self.sending {
            self.sending = SendingSkb::Open { segs, limit: Some(limit.max(1)) };
        }
    }

    /// The next new-data segment opens an skb.
    pub fn open_skb(&mut self) {
        self.sent_skb_starts.push_back(self.snd_nxt);
        self.sending = SendingSkb::Open { segs: 0, limit: None };
    }

    /// A new-data segment of `len` bytes left at `snd_nxt`, in the skb being sent.
    pub fn on_sent_new(&mut self, len: u32) {
        if let SendingSkb::Open { segs, limit } = self.sending {
            self.sending = SendingSkb::Open { segs: segs + 1, limit };
        }
        self.snd_nxt += len as u64;
    }

    /// The send loop ended, or a retransmission went out: the next new segment opens an skb.
    pub fn end_skb(&mut self) {
        self.sending = SendingSkb::Closed;
    }

    /// An ACK: `snd_una` moved to `snd_una` and the peer offers `wnd` bytes. Wholly
    /// acknowledged skbs are freed (Linux `tcp_clean_rtx_queue`).
    pub fn on_ack(&mut self, snd_una: u64, wnd: u64) {
        if wnd > self.max_peer_wnd {
            self.max_peer_wnd = wnd;
            self.size_goal_bytes = size_goal_bytes(wnd, self.mss, self.gso_max_segs);
        }
        if self.writer == Writer::WaitingForSpace {
            self.writer = Writer::AckArrived;
        }
        if snd_una <= self.snd_una {
            return;
        }
        self.snd_una = snd_una;
        while self.sent_skb_starts.get(1).is_some_and(|&next| next <= snd_una) {
            self.sent_skb_starts.pop_front();
        }
        if snd_una >= self.snd_nxt {
            self.sent_skb_starts.clear();
        }
    }

    /// Linux `tcp_check_space` after an ACK's send loop: while the application waits, grow the
    /// buffer if cwnd is not full (`tcp_new_space`) and wake the writer if it is now writable.
    /// Returns whether the application may write.
    #[inline]
    pub fn check_space(&mut self, in_flight: u32, cwnd: u32, reordering: u32, factor: u32) -> bool {
        if self.writer != Writer::AckArrived {
            return false;
        }
        if in_flight < cwnd {
            self.expand(cwnd, reordering, factor);
        }
        self.writer = if self.writable() { Writer::Writing } else { Writer::WaitingForSpace };
        self.writer == Writer::Writing
    }

    /// The application stopped with `end` its last byte: what the socket holds beyond is dropped.
    pub fn truncate(&mut self, end: u64) {
        self.write_seq = self.write_seq.min(end.max(self.snd_nxt));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Linux backend's numbers: MSS 1448 with timestamps, the peer's option 1460, and
    /// `tcp_wmem` at Linux's default.
    fn linux_default() -> SendBuffer {
        SendBuffer::new([4096, 16_384, 4_194_304], 1448, 1460, 65_535, Stack::Linux)
    }

    /// One 1448-byte segment of new data, in skbs of `tso_segs`.
    fn send(b: &mut SendBuffer, tso_segs: u32) {
        match b.sending_skb() {
            SendingSkb::Open { segs, .. } if segs < tso_segs => {}
            _ => {
                b.open_skb();
                b.set_skb_limit(tso_segs);
            }
        }
        b.on_sent_new(1448);
    }

    #[test]
    fn ns3_holds_snd_buf_bytes_of_payload_and_takes_a_write_whenever_there_is_room() {
        let mut b = SendBuffer::new([4096, 16_384, 131_072], 1448, 1460, 1, Stack::Ns3);
        b.expand(10, 3, 2);
        assert_eq!(b.limit_bytes(), 131_072, "no growth, the whole SndBufSize from the start");
        // A greedy write takes the whole buffer of payload (Linux would stop at 2/3 of its
        // memory, each skb charged 832 B more).
        assert_eq!(b.write(u64::MAX), 131_072);
        assert_eq!(b.queued_bytes(), 131_072);
        for _ in 0..50 {
            send(&mut b, 1);
        }
        assert_eq!((b.write(1), b.writer()), (0, Writer::WaitingForSpace));
        // An ACK of one segment frees 1448 B: the woken writer fills exactly that.
        b.on_ack(1448, 1 << 20);
        assert!(b.check_space(49, 50, 3, 2));
        assert_eq!(b.write(u64::MAX), 1448);
    }

    #[test]
    fn set_up_provisions_two_initial_windows_of_2304_byte_skbs() {
        // per_mss = roundup_pow_of_two(1460 + 256 + 320) + 256 = 2304; 2 x 10 x 2304 = 46,080,
        // what SO_MEMINFO shows on the backend's kernel at connection.
        let mut b = linux_default();
        assert_eq!(b.limit_bytes(), 16_384);
        b.expand(10, 3, 2);
        assert_eq!(b.limit_bytes(), 46_080);
        // BBR's sndbuf_expand is 3; the buffer never shrinks and stops at tcp_wmem[2].
        b.expand(42, 3, 3);
        assert_eq!(b.limit_bytes(), 3 * 42 * 2304);
        b.expand(10, 3, 2);
        assert_eq!(b.limit_bytes(), 3 * 42 * 2304);
        b.expand(10_000, 3, 2);
        assert_eq!(b.limit_bytes(), 4_194_304);
    }

    #[test]
    fn a_write_split_in_four_skbs_charges_four_overheads() {
        // The backend measured 17,808 B queued per 14,480 B write sent in skbs of 3, 3, 3, 1.
        let mut b = linux_default();
        b.on_ack(0, 324_000);
        assert_eq!(b.write(14_480), 14_480);
        assert_eq!(b.queued_bytes(), 14_480 + SKB_OVERHEAD_BYTES);
        for _ in 0..10 {
            send(&mut b, 3);
        }
        assert_eq!(b.queued_bytes(), 17_808);
    }

    #[test]
    fn the_writer_stops_above_two_thirds_and_an_ack_with_cwnd_open_wakes_it() {
        // sk_sndbuf 193,536 (2 x 42 x 2304): writable up to 129,024 B queued.
        let mut b = linux_default();
        b.on_ack(0, 324_000);
        b.expand(42, 3, 2);
        let mut sent = 0;
        while b.write(14_480) > 0 {
            for _ in 0..10 {
                send(&mut b, 3);
            }
            b.end_skb();
            sent += 10;
        }
        // Seven writes of 17,808 B reach 124,656 (writable); the eighth reaches 142,464.
        assert_eq!(sent, 80);
        assert_eq!(b.writer(), Writer::WaitingForSpace);
        assert!(!b.check_space(80, 110, 3, 2), "no ACK yet");
        // One skb of three segments acknowledged: 142,464 - 5,176 = 137,288 B, still above 2/3,
        // and with cwnd full after the send loop the buffer does not grow.
        b.on_ack(3 * 1448, 324_000);
        assert!(!b.check_space(77, 77, 3, 2));
        assert_eq!((b.writer(), b.limit_bytes()), (Writer::WaitingForSpace, 193_536));
        // cwnd not full after the next ACK's loop: the buffer grows to 2 x 110 x 2304, the writer wakes.
        b.on_ack(6 * 1448, 324_000);
        assert!(b.check_space(74, 110, 3, 2));
        assert_eq!(b.limit_bytes(), 2 * 110 * 2304);
    }

    #[test]
    fn a_full_cwnd_does_not_expand_the_buffer() {
        let mut b = linux_default();
        b.on_ack(0, 324_000);
        b.expand(10, 3, 2);
        while b.write(u64::MAX) > 0 {}
        for _ in 0..10 {
            send(&mut b, 2);
        }
        b.end_skb();
        b.on_ack(2 * 1448, 324_000);
        b.check_space(10, 10, 3, 2);
        assert_eq!(b.limit_bytes(), 46_080);
    }

    #[test]
    fn a_bulk_writer_takes_whole_skbs_up_to_the_limit() {
        // Half of a 64 KB window bounds each skb: 22 segments (31,856 B). Two skbs queue
        // 65,376 B, above 46,080, so no third opens.
        let mut b = linux_default();
        b.on_ack(0, 65_535);
        b.expand(10, 3, 2);
        assert_eq!(b.write(u64::MAX), 2 * 22 * 1448);
        assert_eq!(b.writer(), Writer::WaitingForSpace);
    }
}
