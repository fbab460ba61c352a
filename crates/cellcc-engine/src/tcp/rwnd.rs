//! The receive window as the Linux 6.18 receiver computes it: the initial window
//! from `tcp_rmem[1]`, `rcv_ssthresh` growing per arriving segment, receive-buffer
//! autotuning (Dynamic Right-Sizing) up to `tcp_rmem[2]`, what each ACK advertises,
//! and when a read frees enough window to send an update at once.
//!
//! ```text
//!  SYN-ACK: rcv_wnd = rounddown(win(tcp_rmem[1]), mss)          tcp_select_initial_window
//!  established: window_clamp = win(rcvbuf) - advmss             tcp_init_buffer_space
//!  each segment >= 128 B: rcv_ssthresh += 2 advmss, up to       tcp_grow_window
//!      min(window_clamp, win(rcvbuf - held)); and one quick ACK
//!  each read, once per receiver RTT, after its first segment:   tcp_recvmsg_locked,
//!      copied = read - still queued; if > space:                tcp_rcv_space_adjust,
//!      rcvbuf = space(2 copied + 4 copied (copied-space)/space) tcp_rcvbuf_grow
//!  advertised: min(win(rcvbuf - held), rcv_ssthresh), aligned   __tcp_select_window
//!      to 2^wscale, never below the right edge already offered  tcp_select_window
//!  read: an ACK at once if the window at least doubles          __tcp_cleanup_rbuf
//! ```
//!
//! Sources: net/ipv4/tcp_output.c (`tcp_select_initial_window`, `__tcp_select_window`,
//! `tcp_select_window`), net/ipv4/tcp_input.c (`tcp_init_buffer_space`, `tcp_measure_rcv_mss`,
//! `tcp_grow_window`, `tcp_rcv_rtt_update`, `tcp_rcv_rtt_measure`, `tcp_rcv_rtt_measure_ts`,
//! `tcp_rcv_space_adjust`, `tcp_rcvbuf_grow`), net/ipv4/tcp.c (`__tcp_cleanup_rbuf`,
//! `tcp_set_window_clamp`), include/net/tcp.h (`tcp_win_from_space`, `tcp_space`).
//!
//! `tcp.receive_window = "ns3"` offers ns-3.44's window instead: the free space of a fixed
//! buffer of `tcp_rmem[2]` (`rcv_buf_bytes`, ns-3's `RcvBufSize`), out-of-order data not
//! counted (`TcpRxBuffer::MaxRxSequence`), scaled by the shift that brings the buffer under
//! 65535 (`TcpSocketBase::CalculateWScale`), the SYN-ACK's unscaled and capped at 65535
//! (`AdvertisedWindowSize(false)`). In-order data the application has not read would count,
//! but ns-3 calls its receive callback before it sends the ACK (`ReceivedData`:
//! `NotifyDataRecv`, then `SendEmptyPacket`) and cellcc's ns-3 sink reads all there, as the
//! engine's application reads all it is given: so the window is the whole buffer, always.
//! No autotuning, no per-segment growth, no window-update ACK after a read.
//!
//! What is simplified: no memory pressure (`tcp_under_memory_pressure`, `tcp_clamp_window`,
//! pruning), no `SO_RCVBUF` lock, `net.core.rmem_max` is not part of the window-scale choice
//! (it is below `tcp_rmem[2]` on the hosts the defaults come from), and every segment's memory
//! is the truesize of a linear skb from a TUN device (`skb_truesize_bytes`), the receive path
//! of the Linux backend's crosscheck.

use super::rtt::tsopt_rtt;
use crate::scenario::Stack;
use crate::sim::{SimDuration, SimTime};

/// Where a receiver RTT sample comes from (`tcp_rcv_rtt_update`'s `win_dep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RttSource {
    /// An echoed timestamp; `queue_empty` when all data received before it had been read.
    Timestamp { queue_empty: bool },
    /// The time taken to receive one window (`tcp_rcv_rtt_measure`).
    Window,
}

/// `tcp_rcv_rtt_measure_ts` calls `tcp_rtt_tsopt_us(tp, 0)`: a sample of no tick is none.
const RECEIVER_MIN_TS_TICKS: u64 = 0;

/// include/net/tcp.h `TCP_RMEM_TO_WIN_SCALE`: `scaling_ratio` is a fraction of 256.
const RMEM_TO_WIN_SCALE: u32 = 8;
/// include/net/tcp.h `TCP_DEFAULT_SCALING_RATIO` = 1 << (TCP_RMEM_TO_WIN_SCALE - 1): 50 %
/// until the first full segment is measured.
const DEFAULT_SCALING_RATIO: u64 = 1 << (RMEM_TO_WIN_SCALE - 1);
/// include/net/tcp.h `TCP_INIT_CWND`: the first DRS measure's floor (`tcp_init_buffer_space`).
const INIT_CWND_SEGS: u64 = 10;
/// `net.ipv4.tcp_app_win` default (Documentation/networking/ip-sysctl.rst): 31.
const TCP_APP_WIN: u32 = 31;
/// include/net/tcp.h `TCP_MAX_WSCALE` (RFC 7323 §2.3).
const MAX_WSCALE: u32 = 14;
/// RFC 7323 §2.2: the window field is 16 bits; the SYN-ACK's is not scaled.
const MAX_UNSCALED_WINDOW_BYTES: u64 = 65_535;
/// net/ipv4/tcp_input.c `tcp_event_data_recv`: only segments of at least 128 bytes grow the window.
const GROW_MIN_SEGMENT_BYTES: u32 = 128;
/// include/net/sock.h `SOCK_MIN_RCVBUF` / 2: the smallest window clamp `tcp_set_window_clamp` sets
/// (SOCK_MIN_RCVBUF = 2048 + sizeof(struct sk_buff) 232, rounded as there: 2 * 2304 / 2).
const MIN_WINDOW_CLAMP_BYTES: u64 = 2_304;

/// The TCP and IPv4 header bytes in front of a segment's payload (RFC 791, RFC 9293).
const IPV4_TCP_HEADER_BYTES: u64 = 40;
/// drivers/net/tun.c `tun_get_user`: a TUN skb's head room, NET_SKB_PAD (max(32, L1_CACHE_BYTES
/// = 64) on x86-64, include/linux/skbuff.h) + NET_IP_ALIGN (0 on x86-64).
const TUN_HEADROOM_BYTES: u64 = 64;
/// include/linux/skbuff.h `SKB_DATA_ALIGN`: SMP_CACHE_BYTES = 64 on x86-64.
const SKB_ALIGN_BYTES: u64 = 64;
/// SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) on x86-64 6.x (MAX_SKB_FRAGS 17): 320.
const SHINFO_BYTES: u64 = 320;
/// SKB_DATA_ALIGN(sizeof(struct sk_buff)) on x86-64 6.x (232 bytes): 256.
const SKB_STRUCT_BYTES: u64 = 256;

/// The memory a received segment of `payload_bytes` is charged for (`skb->truesize`): TUN
/// copies each packet into one linear skb (drivers/net/tun.c `tun_alloc_skb`), `__alloc_skb`
/// (net/core/skbuff.c) rounds head room + packet + shared info up to a kmalloc bucket (a power
/// of two from 512 bytes) and charges SKB_TRUESIZE(bucket - shared info) = bucket + sk_buff.
/// A 1448-byte segment with timestamps (1500-byte packet): 64 + 1500 -> 1600, + 320 = 1920 ->
/// the 2048 bucket, truesize 2048 + 256 = 2304.
pub fn skb_truesize_bytes(payload_bytes: u32, timestamps: bool) -> u64 {
    let options = if timestamps { crate::packet::tcp::TCP_TIMESTAMP_OPTION_BYTES as u64 } else { 0 };
    let packet = payload_bytes as u64 + IPV4_TCP_HEADER_BYTES + options;
    let head = (TUN_HEADROOM_BYTES + packet).div_ceil(SKB_ALIGN_BYTES) * SKB_ALIGN_BYTES + SHINFO_BYTES;
    head.next_power_of_two().max(512) + SKB_STRUCT_BYTES
}

/// The receiver-side window settings, named after their sysctls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RmemConfig {
    /// `net.ipv4.tcp_rmem`: [min, default, max] receive-buffer bytes.
    pub tcp_rmem: [u64; 3],
    /// `net.ipv4.tcp_moderate_rcvbuf`: autotune the buffer (DRS).
    pub moderate_rcvbuf: bool,
    pub timestamps: bool,
    /// Linux's window, or ns-3's free buffer (`tcp.receive_window`).
    pub model: Stack,
}

/// ns-3.44 `TcpSocketBase::CalculateWScale` and `AdvertisedWindowSize`: the window scale that
/// brings `buffer` under the 16-bit field, and the window the peer reads back, in bytes.
fn ns3_window(buffer: u64) -> (u64, u32) {
    let mut wscale = 0;
    while (buffer >> wscale) > MAX_UNSCALED_WINDOW_BYTES && wscale < MAX_WSCALE {
        wscale += 1;
    }
    ((buffer >> wscale).min(MAX_UNSCALED_WINDOW_BYTES) << wscale, wscale)
}

/// One connection's receive window (Linux `tcp_sock` receive-side fields).
#[derive(Clone, Debug)]
pub struct RcvWindow {
    cfg: RmemConfig,
    /// `tp->advmss` once established: the MSS announced less the timestamp option
    /// (`tcp_rcv_state_process`: `advmss -= TCPOLEN_TSTAMP_ALIGNED`), i.e. the segment payload.
    advmss: u64,
    /// `rx_opt.rcv_wscale`, from `tcp_select_initial_window`.
    wscale: u32,
    /// `sk->sk_rcvbuf`.
    rcvbuf: u64,
    /// `tp->scaling_ratio`: payload / truesize of the last full segment, in 1/256.
    ratio: u64,
    window_clamp: u64,
    rcv_ssthresh: u64,
    /// `tp->rcv_wnd`: the window last advertised, from `rcv_wup`.
    rcv_wnd: u64,
    rcv_wup: u64,
    /// `icsk_ack.rcv_mss` as `tcp_measure_rcv_mss` keeps it (536 before data, then the segment size).
    rcv_mss: u64,
    /// `rcvq_space`: bytes read in the last measured RTT, and where that RTT began.
    space_bytes: u64,
    space_seq: u64,
    space_time: SimTime,
    /// `rcv_rtt_est.rtt_us` in ns, x8 as Linux keeps it; 0 = no sample yet.
    rtt8_ns: u64,
    /// `rcv_rtt_last_tsecr`, and the window-based measure's `rcv_rtt_est.{seq,time}`.
    last_tsecr: Option<SimTime>,
    win_rtt: Option<(u64, SimTime)>,
    segment_truesize: u64,
}

/// include/net/tcp.h `TCP_MSS_DEFAULT`: `tcp_initialize_rcv_mss` starts at most here.
const MSS_DEFAULT_BYTES: u64 = 536;

impl RcvWindow {
    /// The listener's choice at the SYN-ACK (`tcp_openreq_init_rwin`, `tcp_select_initial_window`)
    /// and the child's (`tcp_create_openreq_child`: rcv_ssthresh = rcv_wnd).
    pub fn new(cfg: RmemConfig, mss_bytes: u32) -> Self {
        let mss = mss_bytes.max(1) as u64;
        if cfg.model == Stack::Ns3 {
            return Self::ns3(cfg, mss_bytes);
        }
        let rcvbuf = cfg.tcp_rmem[1];
        let full = win_from_space(DEFAULT_SCALING_RATIO, rcvbuf);
        let rcv_wnd = (full / mss * mss).max(mss);
        // tcp_select_initial_window: the scale that lets the largest buffer be offered.
        let wscale = (cfg.tcp_rmem[2].max(1).ilog2()).saturating_sub(15).min(MAX_WSCALE);
        RcvWindow {
            cfg,
            advmss: mss,
            wscale,
            rcvbuf,
            ratio: DEFAULT_SCALING_RATIO,
            window_clamp: (MAX_UNSCALED_WINDOW_BYTES) << MAX_WSCALE,
            rcv_ssthresh: rcv_wnd,
            rcv_wnd,
            rcv_wup: 0,
            rcv_mss: MSS_DEFAULT_BYTES.min(mss).min(rcv_wnd / 2),
            space_bytes: 0,
            space_seq: 0,
            space_time: SimTime::ZERO,
            rtt8_ns: 0,
            last_tsecr: None,
            win_rtt: None,
            segment_truesize: skb_truesize_bytes(mss_bytes, cfg.timestamps),
        }
    }

    /// ns-3's fixed window (`ns3_window`), held for the whole connection.
    fn ns3(cfg: RmemConfig, mss_bytes: u32) -> Self {
        let (window, wscale) = ns3_window(cfg.tcp_rmem[2]);
        let mss = mss_bytes.max(1) as u64;
        RcvWindow {
            cfg,
            advmss: mss,
            wscale,
            rcvbuf: cfg.tcp_rmem[2],
            ratio: 1 << RMEM_TO_WIN_SCALE,
            window_clamp: window,
            rcv_ssthresh: window,
            rcv_wnd: window,
            rcv_wup: 0,
            rcv_mss: mss,
            space_bytes: 0,
            space_seq: 0,
            space_time: SimTime::ZERO,
            rtt8_ns: 0,
            last_tsecr: None,
            win_rtt: None,
            segment_truesize: skb_truesize_bytes(mss_bytes, cfg.timestamps),
        }
    }

    fn is_ns3(&self) -> bool {
        self.cfg.model == Stack::Ns3
    }

    /// The SYN-ACK's window field (tcp_make_synack: never scaled, at most 65535).
    pub fn synack_window_bytes(&self) -> u64 {
        self.rcv_wnd.min(MAX_UNSCALED_WINDOW_BYTES)
    }

    /// `tcp_init_buffer_space` when the connection is established at `now` (rcv_nxt = `seq`).
    pub fn on_established(&mut self, now: SimTime, seq: u64) {
        if self.is_ns3() {
            return;
        }
        let maxwin = self.full_space();
        if self.window_clamp >= maxwin {
            self.window_clamp = maxwin;
            if maxwin > 4 * self.advmss {
                self.window_clamp = (maxwin - (maxwin >> TCP_APP_WIN)).max(4 * self.advmss);
            }
        }
        // "Force reservation of one segment."
        if self.window_clamp > 2 * self.advmss && self.window_clamp + self.advmss > maxwin {
            self.window_clamp = (2 * self.advmss).max(maxwin.saturating_sub(self.advmss));
        }
        self.rcv_ssthresh = self.rcv_ssthresh.min(self.window_clamp);
        self.space_bytes = self.rcv_ssthresh.min(self.rcv_wnd).min(INIT_CWND_SEGS * self.advmss);
        self.space_seq = seq;
        self.space_time = now;
        self.rcv_wup = seq;
    }

    fn full_space(&self) -> u64 {
        win_from_space(self.ratio, self.rcvbuf)
    }

    /// include/net/tcp.h `tcp_space`: the window the free memory could back (may be < 0).
    fn space(&self, held_bytes: u64) -> i64 {
        let free = self.rcvbuf as i64 - held_bytes as i64;
        (free * self.ratio as i64) >> RMEM_TO_WIN_SCALE
    }

    /// The memory `bytes` of held (unread or out-of-order) data is charged for.
    pub fn held_memory_bytes(&self, bytes: u64) -> u64 {
        // Nothing held, or the one segment just received (each segment of an ACK-clocked flow
        // arrives alone and is read at the end of its instant), are the common cases: the
        // division they skip was the hottest instruction of `on_data` (perf: half its samples).
        let mss = self.rcv_mss.max(1);
        match bytes {
            0 => 0,
            b if b <= mss => self.segment_truesize,
            b => b.div_ceil(mss) * self.segment_truesize,
        }
    }

    /// `bytes` rounded up to the window-scale unit (`ALIGN(x, 1 << rcv_wscale)`).
    fn align_up(&self, bytes: u64) -> u64 {
        ((bytes + (1 << self.wscale) - 1) >> self.wscale) << self.wscale
    }

    /// `tcp_rcv_rtt_measure_ts`: a data segment echoing `tsecr` (our ACK's TSval) at `now`,
    /// `queue_empty` when everything received before it has been read. The sample counts whole
    /// ticks of the millisecond TS clock; none is taken when no tick has passed (commit
    /// d59fc95be9d0, "tcp: remove zero TCP TS samples for autotuning").
    pub fn on_tsecr(&mut self, now: SimTime, tsecr: Option<SimTime>, len_bytes: u32, queue_empty: bool) {
        let Some(ts) = tsecr.filter(|_| !self.is_ns3()) else { return };
        if self.last_tsecr == Some(ts) {
            return;
        }
        self.last_tsecr = Some(ts);
        let sample = tsopt_rtt(now, ts, RECEIVER_MIN_TS_TICKS).as_ns();
        if len_bytes as u64 >= self.rcv_mss && sample > 0 {
            self.rtt_update(sample, RttSource::Timestamp { queue_empty });
        }
    }

    /// `tcp_rcv_rtt_update`: a new minimum is taken at once; a timestamp sample above it is
    /// smoothed in with gain 1/8, but only while nothing received waits to be read (commit
    /// a00f135cd986, "tcp: skip big rtt sample if receive queue is not empty"); a window-based
    /// one only ever lowers it.
    fn rtt_update(&mut self, sample_ns: u64, source: RttSource) {
        let m = sample_ns << 3;
        if self.rtt8_ns == 0 || m < self.rtt8_ns {
            self.rtt8_ns = m;
        } else if source == (RttSource::Timestamp { queue_empty: true }) {
            self.rtt8_ns = self.rtt8_ns - (self.rtt8_ns >> 3) + sample_ns;
        }
    }

    /// The receiver's RTT estimate (`rcv_rtt_est.rtt_us >> 3`), once measured.
    pub fn rtt(&self) -> Option<SimDuration> {
        (self.rtt8_ns > 0).then(|| SimDuration::from_ns(self.rtt8_ns >> 3))
    }

    /// `tcp_event_data_recv` for in-order data of `len_bytes` (rcv_nxt now `rcv_nxt`, `held_bytes`
    /// of data not yet read or out of order): `tcp_measure_rcv_mss`, `tcp_rcv_rtt_measure`,
    /// `tcp_grow_window`. True when the window grew, which grants one quick ACK
    /// (`icsk_ack.quick |= 1`).
    #[inline]
    pub fn on_data(&mut self, now: SimTime, len_bytes: u32, rcv_nxt: u64, held_bytes: u64) -> bool {
        if self.is_ns3() {
            return false;
        }
        self.measure_rcv_mss(len_bytes);
        self.measure_rtt_by_window(now, rcv_nxt);
        len_bytes >= GROW_MIN_SEGMENT_BYTES && self.grow(len_bytes, held_bytes)
    }

    /// `tcp_data_queue_ofo` (SACK flows): an out-of-order segment grows the window too.
    pub fn on_out_of_order(&mut self, len_bytes: u32, held_bytes: u64) {
        if len_bytes >= GROW_MIN_SEGMENT_BYTES && !self.is_ns3() {
            self.grow(len_bytes, held_bytes);
        }
    }

    /// `tcp_measure_rcv_mss`: a full segment of a new size re-measures `scaling_ratio`
    /// (len / truesize) and moves the clamp to the buffer's window (`tcp_set_window_clamp`).
    fn measure_rcv_mss(&mut self, len_bytes: u32) {
        let len = len_bytes as u64;
        if len < self.rcv_mss {
            return;
        }
        if len != self.rcv_mss {
            let ratio = ((len << RMEM_TO_WIN_SCALE) / self.segment_truesize).max(1);
            if ratio != self.ratio {
                self.ratio = ratio;
                self.set_window_clamp(self.full_space());
                self.space_bytes = self.space_bytes.min(self.window_clamp);
            }
        }
        self.rcv_mss = len.min(self.advmss);
    }

    /// net/ipv4/tcp.c `tcp_set_window_clamp`: a larger clamp lets rcv_ssthresh catch up with
    /// the window already offered, a smaller one pulls rcv_ssthresh down.
    fn set_window_clamp(&mut self, val: u64) {
        let new = val.max(MIN_WINDOW_CLAMP_BYTES);
        if new == self.window_clamp {
            return;
        }
        let old = self.window_clamp;
        self.window_clamp = new;
        if new < old {
            self.rcv_ssthresh = self.rcv_ssthresh.min(new);
        } else {
            self.rcv_ssthresh = self.rcv_ssthresh.max(self.rcv_wnd.min(new));
        }
    }

    /// `tcp_rcv_rtt_measure`: the time to receive one advertised window, a minimum only.
    fn measure_rtt_by_window(&mut self, now: SimTime, rcv_nxt: u64) {
        if let Some((seq, at)) = self.win_rtt {
            if rcv_nxt < seq {
                return;
            }
            self.rtt_update((now - at).as_ns().max(1), RttSource::Window);
        }
        self.win_rtt = Some((rcv_nxt + self.rcv_wnd, now));
    }

    /// `tcp_grow_window`: when the segment's memory would fit the window it offers
    /// (win(truesize) <= len, true for every full segment since the ratio is measured on
    /// one), rcv_ssthresh grows by max(2 advmss, 2 len) up to min(clamp, tcp_space).
    fn grow(&mut self, len_bytes: u32, held_bytes: u64) -> bool {
        let limit = (self.window_clamp as i64).min(self.space(self.held_memory_bytes(held_bytes)));
        let room = limit - self.rcv_ssthresh as i64;
        if room <= 0 {
            return false;
        }
        let incr = if win_from_space(self.ratio, self.segment_truesize) <= len_bytes as u64 {
            2 * self.advmss
        } else {
            self.grow_slow(len_bytes)
        };
        if incr == 0 {
            return false;
        }
        let incr = incr.max(2 * len_bytes as u64);
        self.rcv_ssthresh += incr.min(room as u64);
        true
    }

    /// `__tcp_grow_window`: a segment whose overhead is large grows the window only while
    /// rcv_ssthresh is small against the largest buffer, halving both until it fits.
    fn grow_slow(&self, len_bytes: u32) -> u64 {
        let mut truesize = win_from_space(self.ratio, self.segment_truesize) >> 1;
        let mut window = win_from_space(self.ratio, self.cfg.tcp_rmem[2]) >> 1;
        while self.rcv_ssthresh <= window {
            if truesize <= len_bytes as u64 {
                return 2 * self.rcv_mss;
            }
            truesize >>= 1;
            window >>= 1;
        }
        0
    }

    /// `tcp_rcv_space_adjust` in a read of everything up to `rcv_nxt` whose first segment ends
    /// at `first_end`. The read calls it after each segment it copies (`tcp_recvmsg_locked`),
    /// all at one time, so only the first call can measure: once a receiver RTT has passed,
    /// the bytes read since the last measure, less those still queued behind that first
    /// segment (commit ea33537d8292, "tcp: add receive queue awareness in
    /// tcp_rcv_space_adjust()"), become the new measure, and if they grew, `tcp_rcvbuf_grow`
    /// sizes the buffer for twice that plus the slow-start growth.
    pub fn on_read(&mut self, now: SimTime, first_end: u64, rcv_nxt: u64) {
        if self.is_ns3() || self.rtt8_ns == 0 || now.saturating_since(self.space_time).as_ns() < self.rtt8_ns >> 3 {
            return;
        }
        let queued = rcv_nxt - first_end;
        let copied = (first_end - self.space_seq).saturating_sub(queued);
        if copied > self.space_bytes {
            self.rcvbuf_grow(copied);
        }
        self.space_seq = first_end;
        self.space_time = now;
    }

    /// `tcp_rcvbuf_grow`: rcvwin = 2 copied ("DRS is always one RTT late") + 2 x that x the
    /// relative growth ("slow start: allow the sender to double its rate"), as memory, capped
    /// by tcp_rmem[2]; the clamp follows.
    fn rcvbuf_grow(&mut self, copied: u64) {
        let old = self.space_bytes.max(1);
        self.space_bytes = copied;
        if !self.cfg.moderate_rcvbuf {
            return;
        }
        let mut rcvwin = copied << 1;
        rcvwin += ((rcvwin as u128 * (copied - old) as u128 / old as u128) << 1) as u64;
        let rcvbuf = space_from_win(self.ratio, rcvwin).min(self.cfg.tcp_rmem[2]);
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            self.window_clamp = win_from_space(self.ratio, rcvbuf);
        }
    }

    /// `__tcp_select_window`: the free space, at most rcv_ssthresh, rounded up to the scale
    /// unit; 0 when less than 1/16 of the buffer or one segment is free. The flag asks to
    /// leave quick-ACK mode (free space below half the buffer).
    fn select(&self, held_bytes: u64) -> (u64, bool) {
        let allowed = self.full_space() as i64;
        let full = (self.window_clamp as i64).min(allowed);
        let mss = (self.rcv_mss as i64).min(full);
        let mut free = self.space(self.held_memory_bytes(held_bytes));
        let mut leave_quick = false;
        if free < full >> 1 {
            leave_quick = true;
            free = (free >> self.wscale) << self.wscale;
            if free < allowed >> 4 || free < mss || free <= 0 {
                return (0, leave_quick);
            }
        }
        let window = free.min(self.rcv_ssthresh as i64) as u64;
        (self.align_up(window), leave_quick)
    }

    /// `__tcp_ack_snd_check`'s window test, `__tcp_select_window(sk) >= tp->rcv_wnd`, with
    /// `held_bytes` unread or out of order; and whether computing it ends quick-ACK mode.
    pub fn advances(&self, held_bytes: u64) -> (bool, bool) {
        if self.is_ns3() {
            return (true, false);
        }
        let (new, leave_quick) = self.select(held_bytes);
        (new >= self.rcv_wnd, leave_quick)
    }

    /// `tcp_receive_window`: what is left of the window last offered.
    fn remaining(&self, rcv_nxt: u64) -> u64 {
        (self.rcv_wup + self.rcv_wnd).saturating_sub(rcv_nxt)
    }

    /// `tcp_select_window`, for an ACK sent with rcv_nxt = `rcv_nxt`: never less than what is
    /// left of the last offer (RFC 7323 §2.4; net.ipv4.tcp_shrink_window = 0). Returns the
    /// bytes advertised and whether quick-ACK mode ends.
    #[inline]
    pub fn advertise(&mut self, rcv_nxt: u64, held_bytes: u64) -> (u64, bool) {
        if self.is_ns3() {
            return (self.rcv_wnd, false);
        }
        let cur = self.remaining(rcv_nxt);
        let (mut new, leave_quick) = self.select(held_bytes);
        if new < cur {
            new = self.align_up(cur);
        }
        self.rcv_wnd = new;
        self.rcv_wup = rcv_nxt;
        (new.min(MAX_UNSCALED_WINDOW_BYTES << self.wscale) >> self.wscale << self.wscale, leave_quick)
    }

    /// `__tcp_cleanup_rbuf` after a read: an ACK now if the window could at least double
    /// ("Lots means at least twice") and the remaining offer is at most half the clamp.
    pub fn update_due(&self, rcv_nxt: u64, held_bytes: u64) -> bool {
        if self.is_ns3() {
            return false;
        }
        let now = self.remaining(rcv_nxt);
        if 2 * now > self.window_clamp {
            return false;
        }
        let (new, _) = self.select(held_bytes);
        new > 0 && new >= 2 * now
    }

    /// `tp->rcv_wnd`, the window last offered (`tcp_incr_quickack` sizes quick ACKs by it).
    pub fn rcv_wnd(&self) -> u64 {
        self.rcv_wnd
    }

    pub fn rcv_ssthresh(&self) -> u64 {
        self.rcv_ssthresh
    }

    pub fn window_clamp(&self) -> u64 {
        self.window_clamp
    }

    pub fn rcvbuf_bytes(&self) -> u64 {
        self.rcvbuf
    }

    pub fn scaling_ratio(&self) -> u64 {
        self.ratio
    }

    pub fn wscale(&self) -> u32 {
        self.wscale
    }

    /// The right edge last offered (rcv_wup + rcv_wnd).
    pub fn right_edge(&self) -> u64 {
        self.rcv_wup + self.rcv_wnd
    }
}

/// include/net/tcp.h `__tcp_win_from_space`: the window `space` bytes of memory back.
fn win_from_space(ratio: u64, space: u64) -> u64 {
    (space * ratio) >> RMEM_TO_WIN_SCALE
}

/// include/net/tcp.h `__tcp_space_from_win`: the memory a window of `win` bytes needs.
fn space_from_win(ratio: u64, win: u64) -> u64 {
    (win << RMEM_TO_WIN_SCALE) / ratio.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Linux's defaults: tcp_rmem = [4096, 131072, 6291456], autotuning, timestamps; MSS 1448.
    fn linux() -> RcvWindow {
        let cfg = RmemConfig {
            tcp_rmem: [4096, 131_072, 6_291_456],
            moderate_rcvbuf: true,
            timestamps: true,
            model: Stack::Linux,
        };
        RcvWindow::new(cfg, 1448)
    }

    const MS: u64 = 1_000_000;

    fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ns(ms * MS)
    }

    #[test]
    fn a_full_segment_is_charged_2304_bytes() {
        // 64 + 1500 -> 1600 (64-byte aligned), + 320 = 1920 -> kmalloc-2048; + 256 = 2304.
        assert_eq!(skb_truesize_bytes(1448, true), 2304);
        // 536 B without options: 64 + 576 = 640, + 320 = 960 -> 1024; + 256 = 1280.
        assert_eq!(skb_truesize_bytes(536, false), 1280);
    }

    #[test]
    fn the_first_window_is_the_default_buffer_share_in_whole_segments() {
        let mut w = linux();
        // tcp_select_initial_window: win(131072) at the default ratio 128/256 = 65536,
        // rounded down to 45 segments of 1448 = 65160 (the kernel's tcpi_snd_wnd at the
        // sender, docs/crosscheck.md); scale: ilog2(6291456) - 15 = 22 - 15 = 7.
        assert_eq!(w.synack_window_bytes(), 65_160);
        assert_eq!(w.wscale(), 7);
        // tcp_init_buffer_space: clamp 65536 less one advmss (1448 once timestamps are agreed)
        // = 64088 ("force reservation of one segment"), rcv_ssthresh = min(65160, 64088); space
        // = 10 x 1448 (the kernel's tcpi_rcv_space at the receiver: 14480).
        w.on_established(SimTime::ZERO, 0);
        assert_eq!((w.window_clamp(), w.rcv_ssthresh(), w.space_bytes), (64_088, 64_088, 14_480));
    }

    #[test]
    fn rcv_ssthresh_grows_two_advmss_per_segment_up_to_the_free_space() {
        let mut w = linux();
        w.on_established(SimTime::ZERO, 0);
        let mut grew = Vec::new();
        for k in 1..=7u64 {
            grew.push(w.on_data(at_ms(k), 1448, k * 1448, 1448));
            if k == 1 {
                // tcp_measure_rcv_mss: ratio = 1448 x 256 / 2304 = 160 (62.5 %); the clamp
                // follows the buffer: 131072 x 160 / 256 = 81920; tcp_set_window_clamp raises
                // rcv_ssthresh to the window already offered, 65160, then +2896 (the kernel's
                // tcpi_rcv_ssthresh after one segment: 68056).
                assert_eq!((w.scaling_ratio(), w.window_clamp()), (160, 81_920));
                assert_eq!(w.rcv_ssthresh(), 68_056);
            }
        }
        // Room: min(81920, win(131072 - 2304 held) = 128768 x 160 / 256 = 80480) - 65160 = 15320:
        // five steps of 2896 (79640, as the kernel after five), a sixth of 840, then none.
        assert_eq!(grew, [true, true, true, true, true, true, false]);
        assert_eq!(w.rcv_ssthresh(), 80_480);
    }

    #[test]
    fn each_ack_offers_rcv_ssthresh_rounded_up_to_the_scale_unit() {
        let mut w = linux();
        w.on_established(SimTime::ZERO, 0);
        w.on_data(at_ms(1), 1448, 1448, 1448);
        // min(free 81920, rcv_ssthresh 68056) -> 532 x 128 = 68096 (the kernel's tcpi_rcv_wnd);
        // more than the 63712 left.
        assert_eq!(w.advertise(1448, 0), (68_096, false));
        assert_eq!(w.right_edge(), 1448 + 68_096);
    }

    #[test]
    fn one_receiver_rtt_after_start_the_buffer_is_sized_for_four_times_the_read() {
        let mut w = linux();
        w.on_established(SimTime::ZERO, 0);
        // Our ACK of t = 0 is echoed by data arriving at 40 ms: the receiver's RTT.
        w.on_tsecr(at_ms(40), Some(SimTime::ZERO), 1448, true);
        w.on_data(at_ms(40), 1448, 1448, 1448);
        assert_eq!(w.rtt(), Some(SimDuration::from_ns(40 * MS)));
        w.on_read(at_ms(39), 40 * 1448, 40 * 1448);
        assert_eq!(w.rcvbuf_bytes(), 131_072, "less than one RTT: no measure");
        w.on_read(at_ms(50), 40 * 1448, 40 * 1448);
        // tcp_rcvbuf_grow(57920) from space 14480: rcvwin = 2 x 57920 = 115840; grow =
        // 115840 x 43440 / 14480 = 347520; rcvwin += 2 x grow = 810880; rcvbuf = 810880 x 256 / 160
        // = 1297408; clamp = 1297408 x 160 / 256 = 810880.
        assert_eq!((w.rcvbuf_bytes(), w.window_clamp(), w.space_bytes), (1_297_408, 810_880, 57_920));
    }

    /// The first 32 segments of a kernel 6.18 receiver on a 106-ms path (Verizon LTE trace,
    /// docs/crosscheck.md), its tcp_info read every millisecond: segments arrive one to three
    /// per millisecond, and the reader copies each burst segment by segment.
    #[test]
    fn the_measure_counts_what_was_read_less_what_waits_behind_the_first_segment() {
        const SEG: u64 = 1448;
        let mut w = linux();
        // The handshake's ACK arrives at 105 ms, the first segment at 106 ms echoes the
        // SYN-ACK sent at 0 (tcpi_rcv_rtt 106000).
        w.on_established(at_ms(105), 0);
        w.on_tsecr(at_ms(106), Some(SimTime::ZERO), 1448, true);
        for k in 1..=10 {
            w.on_data(at_ms(106), 1448, k * SEG, SEG);
            w.on_read(at_ms(106), k * SEG, k * SEG);
        }
        // One RTT on, three segments in one burst: the measure after the first copied finds
        // 11 read, 2 queued: 9 segments, not above the 10 of the first measure: no growth,
        // a new measure from 11 (the kernel's tcpi_rcv_space stays 14480).
        for k in 11..=13 {
            w.on_data(at_ms(215), 1448, k * SEG, SEG);
        }
        w.on_read(at_ms(215), 11 * SEG, 13 * SEG);
        assert_eq!((w.space_bytes, w.rcvbuf_bytes()), (14_480, 131_072));
        for k in 14..=30 {
            w.on_data(at_ms(216), 1448, k * SEG, SEG);
            w.on_read(at_ms(216), k * SEG, k * SEG);
        }
        // Next RTT, a burst of two: 31 - 11 read less 1 queued = 19 segments = 27512 (the
        // kernel's). tcp_rcvbuf_grow: rcvwin = 55024 + 2 x (55024 x 13032 / 14480 = 49521) =
        // 154066, rcvbuf = 154066 x 256 / 160 = 246505, clamp = 154065.
        w.on_data(at_ms(322), 1448, 31 * SEG, SEG);
        w.on_data(at_ms(322), 1448, 32 * SEG, 2 * SEG);
        w.on_read(at_ms(322), 31 * SEG, 32 * SEG);
        assert_eq!((w.space_bytes, w.rcvbuf_bytes(), w.window_clamp()), (27_512, 246_505, 154_065));
        // rcv_ssthresh now climbs 2896 per segment to win(246505 - 2304) = 152625, the
        // kernel's tcpi_rcv_ssthresh at the end of that round.
        for k in 33..=70 {
            w.on_data(at_ms(323), 1448, k * SEG, SEG);
        }
        assert_eq!(w.rcv_ssthresh(), 152_625);
    }

    #[test]
    fn a_timestamp_sample_needs_a_tick_and_a_larger_one_an_empty_queue() {
        let mut w = linux();
        w.on_established(SimTime::ZERO, 0);
        w.on_data(at_ms(1), 1448, 1448, 1448);
        // Echo of 40.2 ms at 40.9 ms: no tick has passed, no sample.
        let us = |v: u64| SimTime::ZERO + SimDuration::from_us(v);
        w.on_tsecr(us(40_900), Some(us(40_200)), 1448, true);
        assert_eq!(w.rtt(), None);
        w.on_tsecr(at_ms(40), Some(SimTime::ZERO), 1448, true);
        assert_eq!(w.rtt(), Some(SimDuration::from_ns(40 * MS)));
        // 48 ms with data still unread: skipped; with the queue empty: 7/8 x 40 + 48 / 8 = 41.
        w.on_tsecr(at_ms(60), Some(at_ms(12)), 1448, false);
        assert_eq!(w.rtt(), Some(SimDuration::from_ns(40 * MS)));
        w.on_tsecr(at_ms(61), Some(at_ms(13)), 1448, true);
        assert_eq!(w.rtt(), Some(SimDuration::from_ns(41 * MS)));
        // A lower sample is taken at once, unread data or not.
        w.on_tsecr(at_ms(90), Some(at_ms(60)), 1448, false);
        assert_eq!(w.rtt(), Some(SimDuration::from_ns(30 * MS)));
    }

    #[test]
    fn without_autotuning_the_buffer_stays_at_the_default() {
        let cfg = RmemConfig {
            tcp_rmem: [4096, 131_072, 6_291_456],
            moderate_rcvbuf: false,
            timestamps: true,
            model: Stack::Linux,
        };
        let mut w = RcvWindow::new(cfg, 1448);
        w.on_established(SimTime::ZERO, 0);
        w.on_tsecr(at_ms(40), Some(SimTime::ZERO), 1448, true);
        w.on_data(at_ms(40), 1448, 1448, 1448);
        w.on_read(at_ms(50), 40 * 1448, 40 * 1448);
        assert_eq!((w.rcvbuf_bytes(), w.space_bytes), (131_072, 57_920));
    }

    #[test]
    fn a_read_announces_the_window_once_it_would_double_what_is_left() {
        let mut w = linux();
        w.on_established(SimTime::ZERO, 0);
        // No ACK since the SYN-ACK (rcv_wup 0, rcv_wnd 65160); the sender fills that window.
        // After six segments rcv_ssthresh is 80480, offer ALIGN(80480, 128) = 80512.
        // __tcp_cleanup_rbuf after k segments read: left = 65160 - 1448 k; due when
        // 2 left <= clamp 81920 and 80512 >= 2 left: k = 17 leaves 40544 (81088 > 80512), k = 18
        // leaves 39096 (78192).
        for k in 1..=17u64 {
            w.on_data(at_ms(k), 1448, k * 1448, 1448);
            assert!(!w.update_due(k * 1448, 0), "k = {k}");
        }
        w.on_data(at_ms(18), 1448, 18 * 1448, 1448);
        assert!(w.update_due(18 * 1448, 0));
    }

    proptest! {
        /// RFC 7323 §2.4 / tcp_select_window: the right edge offered never moves left, whatever
        /// arrives (bursts read after their last segment), is held out of order or read, and the
        /// window is a multiple of 2^wscale; the autotuned buffer only grows, up to tcp_rmem[2].
        #[test]
        fn the_right_edge_never_shrinks(
            steps in proptest::collection::vec(
                (1u32..3000, 1u64..5, 0u64..400_000, 0u64..60, any::<bool>()), 1..200),
        ) {
            let mut w = linux();
            w.on_established(SimTime::ZERO, 0);
            let (mut rcv_nxt, mut now_ms, mut edge, mut rcvbuf) = (0u64, 0u64, w.right_edge(), w.rcvbuf_bytes());
            for (len, burst, held, dt_ms, ack) in steps {
                now_ms += dt_ms;
                let first_end = rcv_nxt + len as u64;
                for k in 1..=burst {
                    rcv_nxt += len as u64;
                    let unread = k * len as u64;
                    w.on_tsecr(at_ms(now_ms), Some(at_ms(now_ms.saturating_sub(40 + k))), len, k == 1);
                    w.on_data(at_ms(now_ms), len, rcv_nxt, held + unread);
                }
                w.on_out_of_order(len, held);
                w.on_read(at_ms(now_ms), first_end, rcv_nxt);
                prop_assert!(w.rcvbuf_bytes() >= rcvbuf && w.rcvbuf_bytes() <= 6_291_456);
                rcvbuf = w.rcvbuf_bytes();
                if ack {
                    let (wnd, _) = w.advertise(rcv_nxt, held);
                    prop_assert_eq!(wnd % (1 << w.wscale()), 0);
                    prop_assert!(w.right_edge() >= edge, "edge {} -> {}", edge, w.right_edge());
                    edge = w.right_edge();
                }
            }
        }
    }
}
