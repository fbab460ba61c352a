//! The data sender of a TCP connection, sans-IO: `on_segment(now, seg)`,
//! `on_timeout(now)`, `poll_transmit(now)`, `poll_timeout()`.
//!
//! ```text
//!  Closed ─start─► SynSent ─SYN-ACK─► Established ─FIN ACKed─► Finished
//!                     └─ syn_retries exhausted ─► Failed
//! ```
//! Inside Established, loss recovery follows Linux's `tcp_ca_state` machine
//! (Open / Disorder / CWR / Recovery / Loss, in `loss.rs`): RACK-TLP (RFC 8985)
//! or RFC 6675 SACK recovery, RFC 6582 NewReno without SACK, RFC 6937 PRR for
//! the cwnd reduction, RFC 6298 RTO, and undo of spurious reductions.
//! Data flows one way (sender -> receiver), as in every seed study; the
//! receiver only ACKs.

mod loss;

use super::rack::{Rack, RackConfig};
use super::rate::RateSampler;
use super::recovery::{Prr, PrrAck};
use super::rtt::{ns3_tsopt_rtt, tsopt_rtt, RttEstimator};
use super::scoreboard::{Scoreboard, Seg, SegState};
use super::sndbuf::{SendBuffer, SendingSkb};
use super::tlp::{self, Episode, Probe, ProbeAck};
use super::tso::{self, GsoLimits, TsoBurst};
use super::undo::Undo;
use crate::cc::{
    AckSample, AckTimestamps, CaState, CongestionControl, ConnView, CwndEvent, DefaultPacing, SkPacingRate,
};
use crate::packet::{TcpFlags, TcpSegment, IPV4_HEADER_BYTES};
use crate::scenario::{CcRtt, Pacing, Stack, TcpParams};
use crate::sim::{SimDuration, SimTime};
use loss::{AckFacts, Frto};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    Closed,
    /// SYN sent `attempts` times; `pending` = a (re)transmission is due.
    SynSent {
        attempts: u32,
        pending: bool,
        sent_at: SimTime,
    },
    Established,
    /// Every byte and the FIN acknowledged.
    Finished,
    /// The handshake failed after `syn_retries` retransmissions.
    Failed,
}

/// How much data the application has produced; the send buffer takes it as it has room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppSupply {
    /// A greedy source: always more to send.
    Unlimited,
    /// `written` bytes so far, more may come.
    Open { written: u64 },
    /// The stream ends after `total` bytes (then FIN).
    Closed { total: u64 },
}

impl AppSupply {
    /// Bytes produced beyond the first `taken`.
    fn backlog(&self, taken: u64) -> u64 {
        match *self {
            AppSupply::Unlimited => u64::MAX,
            AppSupply::Open { written: end } | AppSupply::Closed { total: end } => end.saturating_sub(taken),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fin {
    NotSent,
    Sent,
    Acked,
}

/// Counters the measurements read.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    pub data_segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub recoveries: u64,
    /// Window reductions in response to ECN-Echo.
    pub ecn_reductions: u64,
    /// Retransmissions found lost again (Linux TCPLostRetransmit).
    pub lost_retransmits: u64,
    /// Tail loss probes sent (Linux TCPLossProbes).
    pub loss_probes: u64,
    /// Probes that repaired a loss (Linux TCPLossProbeRecovery).
    pub probe_recoveries: u64,
    /// Window reductions undone as spurious (Linux TCP*Undo counters together).
    pub undos: u64,
    /// RTOs shown spurious and undone, by Eifel or F-RTO (Linux TCPLossUndo / TCPSpuriousRTOs).
    pub spurious_rtos: u64,
    /// Segments reported duplicate by D-SACK (Linux `dsack_dups`).
    pub dsack_segments: u64,
}

/// One RTT observation: when, the sample, SRTT after it.
#[derive(Clone, Copy, Debug)]
pub struct RttObs {
    pub at: SimTime,
    pub rtt: SimDuration,
    pub srtt: SimDuration,
}

/// Linux `tcp_update_skb_after_send`: "Original sch_fq does not pace first 10 MSS".
const UNPACED_SEGMENTS: u64 = 10;
/// RFC 5681 §3.1: the initial window after a lost SYN is one segment.
const LOSS_OF_SYN_INITIAL_WINDOW: u32 = 1;
/// `tcp_ack_update_rtt` asks `tcp_rtt_tsopt_us` for at least one tick.
const SENDER_MIN_TS_TICKS: u64 = 1;

pub struct TcpSender {
    p: TcpParams,
    mss: u32,
    state: SenderState,
    cc: Box<dyn CongestionControl>,
    ca_state: CaState,
    board: Scoreboard,
    rtt: RttEstimator,
    rate: RateSampler,
    snd_una: u64,
    snd_nxt: u64,
    supply: AppSupply,
    /// What of the application's data the socket holds (Linux `sk_sndbuf`, `sk_wmem_queued`).
    sndbuf: SendBuffer,
    /// The fewest segments `tcp_tso_segs` gives: the sysctl floor within the device's limit, or
    /// 1 when the algorithm sets its own.
    tso_floor: u32,
    fin: Fin,
    peer_wnd: u64,
    /// RFC 7323 TS.Recent: the newest TSval of the receiver's ACKs, echoed in data so the
    /// receiver can time its round trips (its autotuning, Linux `tcp_rcv_rtt_measure_ts`).
    ts_recent: Option<SimTime>,
    dupacks: u32,
    /// Recovery point (`tp->high_seq`, RFC 6582 "recover").
    high_seq: u64,
    prr: Prr,
    rto_at: Option<SimTime>,
    /// `rto_timer = "ns3"`: a partial ACK of this recovery already restarted the timer
    /// (ns-3's `m_isFirstPartialAck` is false).
    partial_ack_restarted_rto: bool,
    /// `fast_recovery = "ns3"`: a partial ACK asked for one segment beyond cwnd (`DoRetransmit`).
    partial_ack_send_due: bool,
    /// `rtt_sampling = "ns3"`: the first sequence of ns-3's RTT history, `snd_nxt` at the last
    /// RTO (`ReTxTimeout` clears `m_history`; only new data sent after it is timed again).
    rtt_history_start: u64,
    next_send_at: SimTime,
    /// The TSO burst leaving now: its segments need no pacing release of their own.
    burst: TsoBurst,
    /// The last send attempt was stopped by cwnd (Linux `is_cwnd_limited`).
    cwnd_blocked: bool,
    /// Most segments outstanding in the current window, and where it ends.
    max_packets_out: u32,
    max_packets_window_end: u64,
    lost_total: u64,
    /// Set CWR on the next new data segment (RFC 3168 §6.1.2).
    cwr_pending: bool,
    /// RACK loss detection (RFC 8985 §6).
    rack: Rack,
    /// RACK reordering timer (Linux ICSK_TIME_REO_TIMEOUT).
    reo_at: Option<SimTime>,
    /// Tail Loss Probe on (`tcp_early_retrans` 3 or 4).
    tlp_enabled: bool,
    /// Loss-probe timer (Linux ICSK_TIME_LOSS_PROBE).
    probe_at: Option<SimTime>,
    /// A probe decided at the timer, sent at the next `poll_transmit`.
    probe_due: Option<Probe>,
    /// New data went out in the current burst of `poll_transmit` calls: the loss probe is
    /// re-planned once when the burst ends (Linux `tcp_write_xmit` calls
    /// `tcp_schedule_loss_probe` after its send loop, not per segment).
    probe_replan_due: bool,
    probe: Episode,
    undo: Undo,
    /// F-RTO after an RTO (RFC 5682).
    frto: Frto,
    pub stats: SenderStats,
    rtt_log: Vec<RttObs>,
}

impl TcpSender {
    /// A sender of `mss`-byte segments. Pacing counts payload bytes only, as Linux
    /// (`tcp_update_skb_after_send`), so header sizes are not needed here.
    pub fn new(p: TcpParams, mss: u32, cc: Box<dyn CongestionControl>, supply: AppSupply) -> Self {
        let rtt = RttEstimator::new(p.rto_estimator, p.initial_rto, p.min_rto, p.max_rto);
        // The peer's MSS option: the payload plus the options every data segment carries.
        let mss_clamp = mss + data_overhead_bytes(p.timestamps) - data_overhead_bytes(false);
        let sndbuf = SendBuffer::new(p.tcp_wmem, mss, mss_clamp, p.gso_max_segs, p.send_buffer);
        let own_tso = cc.min_tso_segs().is_some() || cc.tso_segs(mss, &gso_limits(&p)).is_some();
        let tso_floor = if own_tso { 1 } else { p.min_tso_segs.min(p.gso_max_segs).max(1) };
        TcpSender {
            mss,
            state: SenderState::Closed,
            cc,
            ca_state: CaState::Open,
            board: Scoreboard::default(),
            rtt,
            rate: RateSampler::new(p.rate_sample),
            snd_una: 0,
            snd_nxt: 0,
            supply,
            sndbuf,
            tso_floor,
            fin: Fin::NotSent,
            peer_wnd: p.rcv_buf_bytes,
            ts_recent: None,
            dupacks: 0,
            high_seq: 0,
            prr: Prr::default(),
            rto_at: None,
            partial_ack_restarted_rto: false,
            partial_ack_send_due: false,
            rtt_history_start: 0,
            next_send_at: SimTime::ZERO,
            burst: TsoBurst::default(),
            cwnd_blocked: false,
            max_packets_out: 0,
            max_packets_window_end: 0,
            lost_total: 0,
            cwr_pending: false,
            rack: Rack::new(RackConfig::from_sysctl(p.recovery)),
            reo_at: None,
            tlp_enabled: tlp::enabled_by_sysctl(p.early_retrans),
            probe_at: None,
            probe_due: None,
            probe_replan_due: false,
            probe: Episode::Idle,
            undo: Undo::default(),
            frto: Frto::Off,
            stats: SenderStats::default(),
            rtt_log: Vec::with_capacity(64),
            p,
        }
    }

    /// Active open: the SYN goes out at the next `poll_transmit`.
    pub fn start(&mut self, now: SimTime) {
        debug_assert_eq!(self.state, SenderState::Closed);
        self.state = SenderState::SynSent { attempts: 0, pending: true, sent_at: now };
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// The application wrote `bytes` more.
    pub fn app_write(&mut self, bytes: u64) {
        if let AppSupply::Open { written } = &mut self.supply {
            *written += bytes;
        }
        self.offer_to_socket();
    }

    /// The application closed the stream (stop time reached): FIN after what is written. A
    /// greedy source stops at what has left; what it had queued unsent is dropped.
    pub fn app_close(&mut self) {
        self.supply = match self.supply {
            AppSupply::Unlimited => {
                self.sndbuf.truncate(self.snd_nxt);
                AppSupply::Closed { total: self.snd_nxt }
            }
            AppSupply::Open { written } => AppSupply::Closed { total: written },
            closed => closed,
        };
    }

    /// The application writes what it has produced and the socket not yet taken, if the
    /// connection is up (before, the data waits in the application).
    fn offer_to_socket(&mut self) {
        if self.state == SenderState::Established {
            let backlog = self.supply.backlog(self.sndbuf.write_seq());
            let taken = self.sndbuf.write(backlog);
            if taken > 0 && self.p.rate_sample == Stack::Ns3 {
                self.ns3_check_app_limited();
            }
        }
    }

    /// ns-3.44 `TcpRateLinux::CalculateAppLimited`, which `TcpSocketBase::Send` calls after each
    /// write (and nothing else calls): less than a segment unsent, cwnd not full, every lost
    /// segment retransmitted. A sender that runs out of window therefore never marks itself.
    fn ns3_check_app_limited(&mut self) {
        let in_flight = self.board.packets_in_flight();
        let unsent = self.data_end() - self.snd_nxt;
        if unsent < self.mss as u64 && in_flight < self.cc.window().cwnd && self.board.lost() == 0 {
            self.rate.mark_app_limited(in_flight);
        }
    }

    /// The end of the data the socket holds (Linux `tp->write_seq`).
    fn data_end(&self) -> u64 {
        self.sndbuf.write_seq()
    }

    pub fn state(&self) -> SenderState {
        self.state
    }
    pub fn ca_state(&self) -> CaState {
        self.ca_state
    }
    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }
    pub fn cwnd_bytes(&self) -> u64 {
        self.cc.window().cwnd as u64 * self.mss as u64
    }
    /// ssthresh in bytes; `u64::MAX` while it is still infinite (no loss yet).
    pub fn ssthresh_bytes(&self) -> u64 {
        match self.cc.window().ssthresh {
            s if s >= crate::cc::INFINITE_SSTHRESH => u64::MAX,
            s => s as u64 * self.mss as u64,
        }
    }
    /// The resolved TCP parameters this sender runs with.
    pub fn params(&self) -> &TcpParams {
        &self.p
    }
    pub fn mss(&self) -> u32 {
        self.mss
    }
    /// Data goes out ECN-capable (ECT(0)).
    pub fn ecn(&self) -> bool {
        self.p.ecn
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn srtt(&self) -> Option<SimDuration> {
        self.rtt.srtt()
    }
    pub fn rto(&self) -> SimDuration {
        self.rtt.rto()
    }
    pub fn packets_in_flight(&self) -> u32 {
        self.board.packets_in_flight()
    }
    pub fn is_done(&self) -> bool {
        matches!(self.state, SenderState::Finished | SenderState::Failed)
    }

    /// Hand every RTT observation since the last call to `f`.
    pub fn drain_rtt(&mut self, mut f: impl FnMut(RttObs)) {
        // A plain walk and a clear: cheaper than `Vec::drain` for the one sample per ACK.
        self.rtt_log.iter().copied().for_each(&mut f);
        self.rtt_log.clear();
    }

    #[inline]
    fn view(&self, now: SimTime) -> ConnView {
        let w = self.cc.window();
        let is_cwnd_limited = if w.in_slow_start() { w.cwnd < 2 * self.max_packets_out } else { self.cwnd_blocked };
        // One call to the algorithm per view, and the default rate's division only if a hook
        // reads it: the view is built on every ACK.
        let cc_rate = self.cc.pacing_rate_bps();
        ConnView {
            now,
            mss_bytes: self.mss,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            packets_in_flight: self.board.packets_in_flight(),
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            delivered: self.rate.delivered,
            lost: self.lost_total,
            is_cwnd_limited: is_cwnd_limited || self.cwnd_blocked,
            app_limited: self.rate.is_app_limited(),
            ca_state: self.ca_state,
            pacing_rate: self.sk_pacing_rate(cc_rate),
            paced: Self::paced(self.p.pacing, cc_rate),
        }
    }

    fn set_ca_state(&mut self, now: SimTime, s: CaState) {
        if matches!(s, CaState::Recovery | CaState::Loss) {
            // Linux tcp_schedule_loss_probe: no probe outside Open and CWR.
            self.probe_at = None;
        }
        if s != CaState::Loss {
            self.frto = Frto::Off;
        }
        if s != self.ca_state {
            let v = self.view(now);
            self.cc.set_state(&v, s);
            self.ca_state = s;
        }
    }

    // ---- receiving -------------------------------------------------------

    pub fn on_segment(&mut self, now: SimTime, seg: &TcpSegment) {
        if self.p.timestamps && seg.flags.has(TcpFlags::ACK) {
            self.ts_recent = Some(self.ts_recent.map_or(seg.ts_val, |r| r.max(seg.ts_val)));
        }
        match self.state {
            SenderState::SynSent { attempts, sent_at, .. }
                if seg.flags.has(TcpFlags::SYN) && seg.flags.has(TcpFlags::ACK) =>
            {
                self.establish(now, attempts, sent_at, seg.wnd_bytes)
            }
            SenderState::Established if seg.flags.has(TcpFlags::ACK) && !seg.flags.has(TcpFlags::SYN) => {
                self.on_ack(now, seg)
            }
            _ => {}
        }
    }

    fn establish(&mut self, now: SimTime, attempts: u32, syn_sent_at: SimTime, wnd: u64) {
        // Karn: the SYN's RTT counts only if it was never retransmitted.
        if attempts == 0 {
            self.record_rtt(now, now - syn_sent_at);
        } else {
            self.cc.window_mut().set_cwnd(LOSS_OF_SYN_INITIAL_WINDOW);
        }
        self.peer_wnd = wnd;
        self.state = SenderState::Established;
        self.rto_at = None;
        let v = self.view(now);
        self.cc.init(&v);
        self.cc.cwnd_event(&v, CwndEvent::TxStart);
        // Linux tcp_init_transfer: tcp_init_buffer_space sizes the send buffer for the window.
        self.sndbuf.on_ack(self.snd_una, wnd);
        self.sndbuf.expand(self.cc.window().cwnd, self.p.dupack_threshold, self.cc.sndbuf_expand());
        self.offer_to_socket();
    }

    fn record_rtt(&mut self, now: SimTime, rtt: SimDuration) {
        self.rtt.on_sample(rtt, self.snd_una, self.snd_nxt);
        let srtt = self.rtt.srtt().unwrap_or(rtt);
        self.rtt_log.push(RttObs { at: now, rtt, srtt });
    }

    fn on_ack(&mut self, now: SimTime, seg: &TcpSegment) {
        let fin_seq = match self.fin {
            Fin::NotSent => None,
            _ => Some(self.snd_nxt),
        };
        let max_ack = self.snd_nxt + fin_seq.map_or(0, |_| 1);
        if seg.ack < self.snd_una || seg.ack > max_ack {
            return;
        }
        let prior_in_flight = self.board.packets_in_flight();
        let prior_una = self.snd_una;
        let wnd_changed = seg.wnd_bytes != self.peer_wnd;
        self.peer_wnd = seg.wnd_bytes;
        let data_ack = seg.ack.min(self.snd_nxt);
        let dsack = self.check_dsack(seg);
        let ts_ecr = if self.p.timestamps { seg.ts_ecr } else { None };
        // Linux tcp_tsopt_ecr_before / tcp_ack_update_rtt: an echo of 0 is no echo (zero is what
        // a SYN's timestamp carries here). The algorithm still sees the raw echo (AckFacts).
        let echo = ts_ecr.filter(|&e| e != SimTime::ZERO);
        let d = self.deliver(now, data_ack, seg, echo);
        let rtt = match self.p.rtt_sampling {
            Stack::Linux => d.rtt_samples(now, echo),
            Stack::Ns3 => d.ns3_rtt_samples(now, echo),
        };
        if fin_seq.is_some_and(|f| seg.ack == f + 1) {
            self.fin = Fin::Acked;
        }
        self.snd_una = data_ack;
        self.sndbuf.on_ack(data_ack, seg.wnd_bytes);
        if self.p.send_buffer == Stack::Ns3 && data_ack > prior_una {
            // ns-3.44 `NewAck` -> `NotifySend`: the application refills the buffer before the
            // ACK's send loop, which therefore never finds it empty (and app-limited) first.
            self.check_space();
        }
        let una_advanced = data_ack > prior_una;
        self.count_dupacks(una_advanced, wnd_changed, seg, d.cum_segs);
        // Linux tcp_clean_rtx_queue updates the RTT before loss detection runs.
        if let Some(r) = rtt.for_rto {
            self.record_rtt(now, r);
        }
        if let Some(r) = rtt.for_cc {
            self.rtt.note_min_rtt(r);
        }
        let dsack_for_probe = dsack.is_some_and(|b| self.on_dsack(b));
        if self.probe != Episode::Idle {
            let news = una_advanced || d.sacked_new > 0 || wnd_changed || seg.len > 0;
            self.process_probe_ack(now, &ProbeAck { ack: data_ack, dsack_for_probe, news });
        }
        let facts = AckFacts {
            una_advanced,
            dupack: !una_advanced && !wnd_changed && seg.len == 0,
            orig_acked: d.orig_acked,
            ece: self.p.ecn && seg.flags.has(TcpFlags::ECE),
            ts_ecr,
            ts_val: self.p.timestamps.then_some(seg.ts_val),
            sacked_new: d.sacked_new,
        };
        let newly_lost = self.fastretrans_alert(now, &facts);
        if self.p.fast_recovery == Stack::Ns3 {
            self.note_ns3_partial_ack(una_advanced);
        }
        self.update_window(now, &d, rtt.for_cc, prior_in_flight, newly_lost, &facts);
        // Linux tcp_clean_rtx_queue FLAG_SET_XMIT_TIMER: restart the timers when data was
        // cumulatively ACKed, or when a SACKed original was sent before the head's last
        // (re)transmission (its RTT exceeds the head's age).
        let head_sent_at = self.board.front().map(|h| h.sent_at);
        let rearm = match self.p.rto_timer {
            Stack::Linux => {
                una_advanced || matches!((d.sacked_sent_at, head_sent_at), (Some((t, _)), Some(h)) if t < h)
            }
            Stack::Ns3 => self.ns3_restarts_rto(una_advanced),
        };
        self.after_ack(now, rearm);
    }

    /// Remove cumulatively ACKed segments and mark SACKed ones, feeding the
    /// rate sampler and collecting Karn-safe RTT samples. `ts_ecr`: the ACK's echo (None
    /// without timestamps or when zero).
    fn deliver(&mut self, now: SimTime, data_ack: u64, seg: &TcpSegment, ts_ecr: Option<SimTime>) -> Delivery {
        let mut d = Delivery::default();
        let min_rtt = self.rtt.min_rtt().unwrap_or(SimDuration::ZERO);
        let prior_fack = self.board.highest_sacked_end();
        let high_seq = self.high_seq;
        // ns-3's RTT history, kept only when its sampling rule runs.
        let history_start = (self.p.rtt_sampling == Stack::Ns3).then_some(self.rtt_history_start);
        let TcpSender { board, rate, rack, p, .. } = self;
        let mut reordered = false;
        // `cum_ecr`: the ACK's echo when the segment is cumulatively ACKed, None when SACKed.
        let mut on_delivered = |s: &mut Seg, d: &mut Delivery, cum_ecr: Option<SimTime>| {
            d.newly_bytes += s.len as u64;
            let (sent_at, end, retx) = (s.sent_at, s.end(), s.retransmits > 0);
            rate.on_delivered(&mut s.tx, sent_at, end, retx);
            // Linux tcp_clean_rtx_queue: RACK advances on SACK connections only, and not when
            // the ACK echoes a timestamp older than this retransmission (tcp_skb_spurious_retrans):
            // then it was for the original, whose send time RACK no longer has.
            if p.sack && !(retx && cum_ecr.is_some_and(|e| e < sent_at)) {
                rack.advance(now, (sent_at, s.tx_order), end, retx, min_rtt);
            }
            // Linux FLAG_ORIG_SACK_ACKED: never-retransmitted data below the recovery point.
            d.orig_acked |= !retx && end <= high_seq;
            // Linux tcp_check_sack_reordering: an original delivered below the highest SACK.
            reordered |= !retx && s.start < prior_fack;
        };
        board.ack_cumulative(data_ack, |s| {
            d.cum_bytes += s.len as u64;
            d.cum_segs += 1;
            d.retrans_data_acked |= s.retransmits > 0;
            if history_start.is_some_and(|h| s.start >= h) {
                let timed = (s.sent_at, s.retransmits > 0);
                d.history_first.get_or_insert(timed);
                d.history_last = Some(timed);
            }
            if s.state != SegState::Sacked {
                d.cum_segs_unsacked += 1;
                Delivery::note_sent(&mut d.cum_sent_at, s);
                on_delivered(s, &mut d, ts_ecr);
            }
        });
        if p.sack {
            for &(start, end) in seg.sack.as_slice() {
                board.sack(start, end, |s| {
                    d.sacked_new += 1;
                    Delivery::note_sent(&mut d.sacked_sent_at, s);
                    on_delivered(s, &mut d, None);
                });
            }
        }
        if reordered {
            rack.note_reordering();
        }
        d
    }

    /// RFC 5681 §2 duplicate ACK; without SACK they stand in for SACKed segments (Linux reno_sack).
    fn count_dupacks(&mut self, una_advanced: bool, wnd_changed: bool, seg: &TcpSegment, cum_segs: u32) {
        if una_advanced {
            // Linux tcp_remove_reno_sacks: a cumulative ACK of n segments consumes n-1 dupacks.
            self.dupacks = self.dupacks.saturating_sub(cum_segs.saturating_sub(1));
            if self.ca_state == CaState::Open || self.p.sack {
                self.dupacks = 0;
            }
        } else if !wnd_changed && seg.len == 0 && !self.board.is_empty() {
            self.dupacks += 1;
        }
        let reno_sacks = if self.p.sack { 0 } else { self.dupacks.min(self.board.packets_out().saturating_sub(1)) };
        self.board.set_dupacks(reno_sacks);
    }

    /// Linux `tcp_cong_control`: the algorithm's `cong_control`, else PRR in recovery, else `cong_avoid`.
    fn update_window(
        &mut self,
        now: SimTime,
        d: &Delivery,
        rtt_for_cc: Option<SimDuration>,
        prior_in_flight: u32,
        newly_lost: u32,
        facts: &AckFacts,
    ) {
        let una_advanced = facts.una_advanced;
        let acked_segs = d.cum_segs_unsacked + d.sacked_new;
        // ns-3's sampler judges an interval against its `m_minRtt`, the least SRTT.
        let min_rtt = match self.p.rate_sample {
            Stack::Linux => self.rtt.min_rtt(),
            Stack::Ns3 => self.rtt.min_srtt(),
        };
        let mut rs = self.rate.generate(now, acked_segs, newly_lost, prior_in_flight, self.lost_total, min_rtt);
        if self.p.rate_sample == Stack::Ns3 {
            // ns-3's BBR takes its RTT from `m_lastRtt`, the ACK's newest timed segment.
            rs.rtt = rtt_for_cc;
        }
        self.rack.update_reo_wnd(rs.prior_delivered, self.rate.delivered);
        let sample = AckSample {
            acked_segs,
            acked_bytes: d.newly_bytes,
            cum_acked_bytes: d.cum_bytes,
            rtt: match self.p.cc_rtt {
                CcRtt::Sample => rtt_for_cc,
                CcRtt::Srtt => self.rtt.srtt(),
            },
            prior_in_flight,
            ece: facts.ece,
            rate: rs,
            ts: facts.ts_val.zip(facts.ts_ecr).map(|(ts_val, ts_ecr)| AckTimestamps { ts_val, ts_ecr }),
        };
        let v = self.view(now);
        if acked_segs > 0 {
            self.cc.pkts_acked(&v, &sample);
        }
        if self.cc.cong_control(&v, &sample) {
            return;
        }
        match self.ca_state {
            CaState::Recovery | CaState::Cwr => {
                let a = PrrAck {
                    ssthresh: self.cc.window().ssthresh,
                    in_flight: self.board.packets_in_flight(),
                    newly_acked: acked_segs,
                    una_advanced,
                    newly_lost: newly_lost > 0,
                    dupack: if self.p.sack { d.sacked_new > 0 } else { facts.dupack },
                    retrans_acked: d.retrans_data_acked,
                    in_recovery: self.ca_state == CaState::Recovery,
                };
                if let Some(cwnd) = self.prr.on_ack(&a) {
                    self.cc.window_mut().set_cwnd(cwnd);
                }
            }
            // Linux tcp_may_raise_cwnd: only an ACK that cumulatively acknowledges data
            // (FLAG_DATA_ACKED) grows cwnd; SACK-only ACKs do not.
            _ if acked_segs > 0 && una_advanced => self.cc.cong_avoid(&v, &sample),
            _ => {}
        }
    }

    /// ns-3.44 `TcpSocketBase::ProcessAck` on a partial ACK in recovery: unless the new head was
    /// already retransmitted (`IsRetransmittedDataAcked(ack + SMSS)`), one segment leaves at once,
    /// whatever cwnd and pacing say (`DoRetransmit` -> `SendDataPacket`).
    fn note_ns3_partial_ack(&mut self, una_advanced: bool) {
        let partial = una_advanced && self.ca_state == CaState::Recovery && self.snd_una < self.high_seq;
        let head_resent = self.board.front().is_some_and(|h| h.retransmits > 0 && h.state != SegState::Sacked);
        self.partial_ack_send_due = partial && !head_resent;
    }

    /// ns-3.44 `DoRetransmit`: `NextSeg` without its rule 3, the first lost segment not yet
    /// retransmitted, else new data the receive window allows; failing both, the head again.
    fn ns3_partial_ack_send(&mut self, now: SimTime) -> Option<TcpSegment> {
        if let Some(i) = self.board.next_lost() {
            return Some(self.retransmit(now, i));
        }
        let len = (self.data_end() - self.snd_nxt).min(self.mss as u64) as u32;
        if len > 0 && self.snd_nxt + len as u64 <= self.snd_una + self.peer_wnd {
            return Some(self.send_new(now, len));
        }
        (!self.board.is_empty()).then(|| self.retransmit(now, 0))
    }

    /// ns-3.44 `TcpSocketBase::ProcessAck` / `NewAck`: every ACK that advances snd_una
    /// restarts the timer, except the partial ACKs of a recovery after its first (RFC 6582
    /// §3.2 step 5's "Impatient" variant: `NewAck(ackNumber, m_isFirstPartialAck)`).
    fn ns3_restarts_rto(&mut self, una_advanced: bool) -> bool {
        if !una_advanced {
            return false;
        }
        let partial = self.ca_state == CaState::Recovery && self.snd_una < self.high_seq;
        if !partial {
            return true;
        }
        !std::mem::replace(&mut self.partial_ack_restarted_rto, true)
    }

    /// RFC 6298 §5.2-5.3 timer management (Linux `tcp_set_xmit_timer`: the loss probe
    /// when it applies, beside the RTO), window bookkeeping, completion.
    fn after_ack(&mut self, now: SimTime, delivered: bool) {
        if self.snd_una >= self.max_packets_window_end {
            self.max_packets_out = self.board.packets_out();
            self.max_packets_window_end = self.snd_nxt;
        }
        let outstanding = !self.board.is_empty() || self.fin == Fin::Sent;
        if !outstanding {
            self.rto_at = None;
            self.probe_at = None;
            self.reo_at = None;
        } else if delivered {
            if self.p.rto_timer == Stack::Ns3 {
                self.rtt.clear_backoff();
            }
            self.rto_at = Some(now + self.rtt.rto());
            self.schedule_probe(now, true);
        }
        if self.fin == Fin::Acked && self.board.is_empty() {
            self.state = SenderState::Finished;
            self.rto_at = None;
        }
    }

    // ---- sending ---------------------------------------------------------

    /// The pacing rate in force, if any (Linux `sk_pacing_rate`).
    pub fn pacing_rate_bps(&self) -> Option<u64> {
        let cc_rate = self.cc.pacing_rate_bps();
        Self::paced(self.p.pacing, cc_rate)
            .then(|| cc_rate.map_or_else(|| self.default_pacing_rate_bps(), |r| r.max(1)))
    }

    /// Whether departures are paced: at the algorithm's rate unless pacing is off, at
    /// `tcp_update_pacing_rate`'s when the algorithm sets none and pacing is on.
    fn paced(pacing: Pacing, cc_rate: Option<u64>) -> bool {
        match (pacing, cc_rate) {
            (Pacing::Off, _) | (Pacing::Auto, None) => false,
            (_, Some(_)) | (Pacing::On, None) => true,
        }
    }

    /// Linux `sk_pacing_rate`: the algorithm's rate (`cc_rate`), else `tcp_update_pacing_rate`'s,
    /// which tcp_cong_control keeps current even when nothing paces (HyStart reads it); 0 before
    /// an RTT sample.
    fn sk_pacing_rate(&self, cc_rate: Option<u64>) -> SkPacingRate {
        match (cc_rate, self.rtt.srtt()) {
            (Some(r), _) => SkPacingRate::Known(r),
            (None, Some(_)) => SkPacingRate::Default(self.default_pacing()),
            (None, None) => SkPacingRate::Known(0),
        }
    }

    /// What Linux `tcp_update_pacing_rate` computes its rate from.
    fn default_pacing(&self) -> DefaultPacing {
        let w = self.cc.window();
        DefaultPacing {
            cwnd: w.cwnd,
            ssthresh: w.ssthresh,
            packets_out: self.board.packets_out(),
            mss_bytes: self.mss,
            srtt_ns: self.rtt.srtt().map_or(0, |s| s.as_ns()),
        }
    }

    fn default_pacing_rate_bps(&self) -> u64 {
        self.default_pacing().rate_bps()
    }

    /// Linux `tcp_check_space` after the send loop: wakes the application if ACKs made room;
    /// returns whether it wrote.
    fn check_space(&mut self) -> bool {
        let (in_flight, cwnd) = (self.board.packets_in_flight(), self.cc.window().cwnd);
        if !self.sndbuf.check_space(in_flight, cwnd, self.p.dupack_threshold, self.cc.sndbuf_expand()) {
            return false;
        }
        let end = self.sndbuf.write_seq();
        self.offer_to_socket();
        self.sndbuf.write_seq() > end
    }

    fn has_something_to_send(&self) -> bool {
        self.state == SenderState::Established && (self.board.lost() > 0 || self.snd_nxt < self.data_end())
    }

    /// The next segment to send, if any. Call until it returns `None` (the end of the
    /// burst, as Linux's `tcp_write_xmit` loop): the loss probe is re-planned there. Inline in
    /// the world's send loop, which then puts the segment in its packet without another copy.
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<TcpSegment> {
        let mut seg = self.next_segment(now);
        if seg.is_none() && self.check_space() {
            // The woken application wrote: its data goes out at once (its tcp_push).
            seg = self.next_segment(now);
        }
        if seg.is_none() {
            self.burst.end();
            self.sndbuf.end_skb();
            if std::mem::take(&mut self.probe_replan_due) {
                self.schedule_probe(now, false);
            }
        }
        seg
    }

    fn next_segment(&mut self, now: SimTime) -> Option<TcpSegment> {
        match self.state {
            SenderState::SynSent { attempts, pending: true, .. } => {
                self.state = SenderState::SynSent { attempts, pending: false, sent_at: now };
                return Some(self.control(TcpFlags::SYN, 0));
            }
            SenderState::Established => {}
            _ => return None,
        }
        if let Some(probe) = self.probe_due.take() {
            return Some(self.send_probe(now, probe));
        }
        if std::mem::take(&mut self.partial_ack_send_due) {
            if let Some(seg) = self.ns3_partial_ack_send(now) {
                return Some(seg);
            }
        }
        if self.frto == Frto::SendingNew {
            return self.frto_send_new(now);
        }
        // The clock test first: asking for the pacing rate is a call into the algorithm.
        if now < self.next_send_at && !self.burst.continues(now) && self.pacing_rate_bps().is_some() {
            return None;
        }
        let can_send = self.board.packets_in_flight() < self.cc.window().cwnd;
        if let Some(i) = self.board.next_lost() {
            self.cwnd_blocked = !can_send;
            return can_send.then(|| self.retransmit(now, i));
        }
        let end = self.data_end();
        if self.snd_nxt < end {
            self.cwnd_blocked = !can_send;
            let len = (end - self.snd_nxt).min(self.mss as u64) as u32;
            let window_end = self.snd_una + self.peer_wnd;
            return (can_send && self.snd_nxt + len as u64 <= window_end).then(|| self.send_new(now, len));
        }
        // FIN once the socket has taken the whole stream (the rest may wait for room).
        if let (AppSupply::Closed { total }, Fin::NotSent) = (self.supply, self.fin) {
            if self.sndbuf.write_seq() == total {
                self.fin = Fin::Sent;
                self.rto_at.get_or_insert(now + self.rtt.rto());
                return Some(self.control(TcpFlags::FIN | TcpFlags::ACK, self.snd_nxt));
            }
        }
        if can_send && self.board.lost() == 0 {
            // Linux tcp_rate_check_app_limited (ns-3 checks at the application's writes instead).
            if self.p.rate_sample == Stack::Linux {
                self.rate.mark_app_limited(self.board.packets_in_flight());
            }
            self.cwnd_blocked = false;
        }
        None
    }

    fn control(&self, flags: u8, seq: u64) -> TcpSegment {
        TcpSegment {
            flags: TcpFlags(flags),
            seq,
            ack: 0,
            len: 0,
            wnd_bytes: self.p.rcv_buf_bytes,
            sack: Default::default(),
            timestamps: self.p.timestamps,
            ts_val: SimTime::ZERO,
            ts_ecr: if self.p.timestamps { self.ts_recent } else { None },
            ce: false,
        }
    }

    fn data_segment(&self, seq: u64, len: u32, now: SimTime) -> TcpSegment {
        TcpSegment { len, ts_val: now, ..self.control(TcpFlags::ACK, seq) }
    }

    fn send_new(&mut self, now: SimTime, len: u32) -> TcpSegment {
        if self.board.is_empty() {
            let v = self.view(now);
            self.cc.cwnd_event(&v, CwndEvent::TxStart);
        }
        let in_flight = self.board.packets_in_flight() + 1;
        let tx = self.rate.on_send(now, self.board.packets_out(), in_flight, self.lost_total);
        let seq = self.snd_nxt;
        let cwr = if std::mem::take(&mut self.cwr_pending) { TcpFlags::CWR } else { 0 };
        self.board.push(Seg {
            start: seq,
            len,
            state: SegState::InFlight,
            sent_at: now,
            tx_order: self.stats.data_segments_sent,
            retransmits: 0,
            marked_lost: false,
            tx,
        });
        if self.opens_skb() {
            self.sndbuf.open_skb();
        }
        self.sndbuf.on_sent_new(len);
        self.snd_nxt += len as u64;
        self.on_sent(now, len);
        // Linux tcp_write_xmit: a burst with new data re-plans the loss probe when it ends.
        self.probe_replan_due = true;
        let mut seg = self.data_segment(seq, len, now);
        seg.flags.0 |= cwr;
        seg
    }

    fn retransmit(&mut self, now: SimTime, i: usize) -> TcpSegment {
        let in_flight = self.board.packets_in_flight() + 1;
        let tx = self.rate.on_send(now, self.board.packets_out(), in_flight, self.lost_total);
        self.board.retransmitted(i, now, self.stats.data_segments_sent, tx);
        self.sndbuf.end_skb();
        self.stats.retransmits += 1;
        self.undo.on_retransmit(now);
        if i == 0 && self.p.rto_timer == Stack::Linux {
            // Linux tcp_xmit_retransmit_queue: retransmitting the head re-arms the RTO,
            // so a retransmission queued behind a full buffer gets a whole RTO to return.
            // ns-3's SendDataPacket arms the timer only when it is not running.
            self.rto_at = Some(now + self.rtt.rto());
        }
        let s = *self.board.get(i);
        self.on_sent(now, s.len);
        self.data_segment(s.start, s.len, now)
    }

    /// The bookkeeping of every data segment sent, inline in its two callers (`#[inline]`
    /// alone left it a call).
    #[inline(always)]
    fn on_sent(&mut self, now: SimTime, len: u32) {
        self.stats.data_segments_sent += 1;
        if matches!(self.ca_state, CaState::Recovery | CaState::Cwr) {
            self.prr.out += 1;
        }
        self.max_packets_out = self.max_packets_out.max(self.board.packets_out());
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        if let Some(rate) = self.pacing_rate_bps() {
            let gap_counts = self.stats.data_segments_sent >= UNPACED_SEGMENTS;
            let (cc, p, min_rtt, mss) = (&*self.cc, &self.p, self.rtt.min_rtt(), self.mss);
            let segs = || tso_segs(cc, p, min_rtt, mss, rate);
            self.next_send_at = self.burst.on_sent(now, self.next_send_at, len, rate, gap_counts, segs);
        }
    }

    /// Whether the next new segment needs a new skb. `tcp_tso_segs` is asked only once the skb
    /// holds its floor of segments: an ACK-clocked flow's skbs end at the send loop before that.
    fn opens_skb(&mut self) -> bool {
        match self.sndbuf.sending_skb() {
            SendingSkb::Closed => true,
            SendingSkb::Open { segs, .. } if segs < self.tso_floor => false,
            SendingSkb::Open { segs, limit: Some(limit) } => segs >= limit,
            SendingSkb::Open { segs, limit: None } => {
                let limit = self.tso_segs_now();
                self.sndbuf.set_skb_limit(limit);
                segs >= limit
            }
        }
    }

    /// Linux `tcp_tso_segs` at `sk_pacing_rate` now: how many segments the skb being sent takes.
    fn tso_segs_now(&self) -> u32 {
        let rate = self.sk_pacing_rate(self.cc.pacing_rate_bps()).bps();
        tso_segs(&*self.cc, &self.p, self.rtt.min_rtt(), self.mss, rate)
    }

    /// Payload bytes sent but not yet known delivered (cumulatively or selectively).
    pub fn unsacked_bytes(&self) -> u64 {
        self.board.unsacked_bytes()
    }
}

/// What one ACK delivered.
#[derive(Default)]
struct Delivery {
    cum_segs: u32,
    cum_segs_unsacked: u32,
    cum_bytes: u64,
    sacked_new: u32,
    newly_bytes: u64,
    /// Send times of the oldest and newest cumulatively ACKed never-retransmitted,
    /// not earlier SACKed segments (Linux `first_ackt`, `last_ackt`: Linux walks them in
    /// sequence order, and originals leave in sequence order, so first = oldest).
    cum_sent_at: Option<(SimTime, SimTime)>,
    /// The same for newly SACKed never-retransmitted segments (`first_sackt`, `last_sackt`;
    /// `tcp_sacktag_write_queue` sorts the blocks, the engine takes them as they come).
    sacked_sent_at: Option<(SimTime, SimTime)>,
    /// A retransmitted segment was cumulatively ACKed (Linux FLAG_RETRANS_DATA_ACKED).
    retrans_data_acked: bool,
    /// Never-retransmitted data at or below the recovery point was delivered.
    orig_acked: bool,
    /// Send time and "retransmitted" of the first and last cumulatively ACKed segments of
    /// ns-3's RTT history (sent at or after `rtt_history_start`), SACKed or not.
    history_first: Option<(SimTime, bool)>,
    history_last: Option<(SimTime, bool)>,
}

/// One ACK's RTT samples (Linux `tcp_ack_update_rtt`): `for_rto` feeds SRTT and the RTO
/// (`seq_rtt_us`), `for_cc` the congestion control's rate sample (`ca_rtt_us`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct RttSamples {
    for_rto: Option<SimDuration>,
    for_cc: Option<SimDuration>,
}

impl Delivery {
    fn note_sent(span: &mut Option<(SimTime, SimTime)>, s: &Seg) {
        if s.retransmits == 0 {
            *span =
                Some(span.map_or((s.sent_at, s.sent_at), |(first, last)| (first.min(s.sent_at), last.max(s.sent_at))));
        }
    }

    /// Linux `tcp_clean_rtx_queue` and `tcp_ack_update_rtt` (net/ipv4/tcp_input.c): Karn's
    /// rule drops the cumulative samples when retransmitted data was ACKed; SACKed originals
    /// still give one; failing both, an ACK of new data is timed by its echoed timestamp
    /// (RFC 7323 §4.1 RTTM), so loss recovery does not starve the estimators. `ts_ecr`: the
    /// echo, None without timestamps or when zero (Linux asks for a non-zero TSecr).
    fn rtt_samples(&self, now: SimTime, ts_ecr: Option<SimTime>) -> RttSamples {
        let cum = self.cum_sent_at.filter(|_| !self.retrans_data_acked);
        let mut r = RttSamples { for_rto: cum.map(|(first, _)| now - first), for_cc: cum.map(|(_, last)| now - last) };
        if let Some((first, last)) = self.sacked_sent_at {
            r.for_rto = r.for_rto.or(Some(now - first));
            r.for_cc = Some(now - last);
        }
        if r.for_rto.is_none() && self.cum_bytes > 0 {
            if let Some(ecr) = ts_ecr {
                let ts = Some(tsopt_rtt(now, ecr, SENDER_MIN_TS_TICKS));
                r = RttSamples { for_rto: ts, for_cc: ts };
            }
        }
        r
    }
}

impl Delivery {
    /// ns-3.44 `TcpSocketBase::EstimateRtt` and `CalculateRttSample`: a sample only when the
    /// cumulative ACK covers the oldest segment of the RTT history; with timestamps the time
    /// since the echoed TSval (whole ms, `ns3_tsopt_rtt`) even for a retransmission, without
    /// them its send time unless it was retransmitted (Karn). The algorithm's `m_lastRtt` is
    /// the same rule on the newest segment the ACK took off the history.
    fn ns3_rtt_samples(&self, now: SimTime, ts_ecr: Option<SimTime>) -> RttSamples {
        let ts = ts_ecr.map(|e| ns3_tsopt_rtt(now, e));
        let sample = |(sent_at, retx): (SimTime, bool)| ts.or((!retx).then(|| now - sent_at));
        RttSamples { for_rto: self.history_first.and_then(sample), for_cc: self.history_last.and_then(sample) }
    }
}

/// Linux `tcp_tso_segs` (net/ipv4/tcp_output.c): the algorithm's own burst size, else
/// `tcp_tso_autosize` at the pacing rate with its floor, at most the device's `gso_max_segs`.
fn tso_segs(cc: &dyn CongestionControl, p: &TcpParams, min_rtt: Option<SimDuration>, mss: u32, rate_bps: u64) -> u32 {
    let gso = gso_limits(p);
    let segs = cc.tso_segs(mss, &gso).unwrap_or_else(|| {
        let floor = cc.min_tso_segs().unwrap_or(gso.min_tso_segs);
        tso::autosize(rate_bps / 8, min_rtt, mss, floor, &gso)
    });
    segs.min(gso.max_segs)
}

/// The sysctl floor and the device's limits a burst is sized within.
fn gso_limits(p: &TcpParams) -> GsoLimits {
    GsoLimits { min_tso_segs: p.min_tso_segs, max_segs: p.gso_max_segs, max_bytes: tso::SK_GSO_MAX_BYTES }
}

/// Header bytes of a full data segment (IPv4 + TCP + options), for MSS and pacing.
pub fn data_overhead_bytes(timestamps: bool) -> u32 {
    let probe = TcpSegment { timestamps, ..Default::default() };
    IPV4_HEADER_BYTES + probe.header_bytes()
}

#[cfg(test)]
mod tests {
    //! Scripted sender: the test plays the network and the receiver.
    use super::*;
    use crate::cc::{CcConfig, Window};
    use crate::scenario::TcpSpec;

    const MSS: u32 = 1000;

    fn established(rtt_ms: u64, supply: AppSupply) -> (TcpSender, SimTime) {
        established_with(TcpSpec::default(), rtt_ms, supply)
    }

    fn established_with(spec: TcpSpec, rtt_ms: u64, supply: AppSupply) -> (TcpSender, SimTime) {
        let p = TcpSpec { sack: Some(false), ..spec }.resolve();
        let cc = CcConfig::NewReno(Default::default())
            .build(Window::new(p.initial_cwnd_segs), crate::sim::RngStream::new(0, "test:cc"));
        let mut s = TcpSender::new(p, MSS, cc, supply);
        s.start(SimTime::ZERO);
        assert!(s.poll_transmit(SimTime::ZERO).unwrap().flags.has(TcpFlags::SYN));
        let now = SimTime::ZERO + SimDuration::from_ms(rtt_ms);
        let synack =
            TcpSegment { flags: TcpFlags(TcpFlags::SYN | TcpFlags::ACK), wnd_bytes: 1 << 30, ..Default::default() };
        s.on_segment(now, &synack);
        assert_eq!(s.state(), SenderState::Established);
        (s, now)
    }

    #[test]
    fn an_app_limited_sender_stops_writing_at_two_thirds_of_its_buffer_and_an_ack_leaving_cwnd_open_grows_it() {
        let (mut s, t0) = established(100, AppSupply::Open { written: 0 });
        // tcp_sndbuf_expand at set-up: 2 x 10 x 2,304 (MSS 1000 + 12 B of options, 256 + 320
        // of skb head room, rounded to 2,048, + 256); writable while at most 30,720 B are queued.
        assert_eq!(s.sndbuf.limit_bytes(), 46_080);
        // The first write leaves at once in skbs of two segments (tcp_tso_segs' floor at this
        // rate): 10,000 + 5 x 832 = 14,160 B queued.
        s.app_write(10_000);
        assert_eq!(drain(&mut s, t0).len(), 10);
        assert_eq!(s.sndbuf.queued_bytes(), 14_160);
        // No ACK comes. The second write waits unsent in one skb (24,992 B), the third joins it
        // (34,992 B, above 2/3), and the fourth finds the socket unwritable: it stays in the
        // application (Linux tcp_poll, SOCK_NOSPACE).
        for _ in 0..3 {
            s.app_write(10_000);
        }
        assert_eq!((s.sndbuf.write_seq(), s.sndbuf.queued_bytes()), (30_000, 34_992));
        assert_eq!(s.sndbuf.writer(), crate::tcp::sndbuf::Writer::WaitingForSpace);
        // An ACK of four segments: cwnd 14, the send loop takes 8 of the 20 unsent, in flight 14,
        // cwnd full: the buffer does not grow, and with 30,992 B queued it is not yet writable.
        let t1 = t0 + SimDuration::from_ms(100);
        s.on_segment(t1, &ack(4_000));
        assert_eq!(drain(&mut s, t1).len(), 8);
        assert_eq!((s.sndbuf.limit_bytes(), s.sndbuf.write_seq()), (46_080, 30_000));
        // An ACK of eight more: cwnd 22, the 12 unsent go and leave cwnd open (in flight 18):
        // tcp_new_space expands to 2 x 22 x 2,304, the waiting write is taken, and 4 of it go.
        s.on_segment(t1, &ack(12_000));
        let sent = drain(&mut s, t1);
        assert_eq!(s.sndbuf.limit_bytes(), 2 * 22 * 2304);
        assert_eq!(s.sndbuf.write_seq(), 40_000);
        assert_eq!(sent.len(), 16);
    }

    fn ack(n: u64) -> TcpSegment {
        TcpSegment { flags: TcpFlags(TcpFlags::ACK), ack: n, wnd_bytes: 1 << 30, ..Default::default() }
    }

    fn drain(s: &mut TcpSender, now: SimTime) -> Vec<TcpSegment> {
        std::iter::from_fn(|| s.poll_transmit(now)).collect()
    }

    #[test]
    fn a_paced_sender_lets_a_gso_burst_leave_together_and_waits_for_its_whole_length() {
        // cwnd 40 x 1000 B / SRTT 100 ms x 200 % (slow start) = 800 kB/s: 1.25 ms per segment,
        // and 781 B per ms of data, below one segment, so bursts of tcp_min_tso_segs = 2.
        let spec = TcpSpec { pacing: Some(Pacing::On), initial_cwnd_segs: Some(40), ..Default::default() };
        let (mut s, t0) = established_with(spec.clone(), 100, AppSupply::Unlimited);
        let gap = SimDuration::from_us(1_250);
        assert_eq!(drain(&mut s, t0).len(), 10, "the first 10 segments are not paced");
        assert_eq!(drain(&mut s, t0 + gap).len(), 2);
        assert_eq!(s.poll_timeout(t0 + gap), Some(t0 + gap + gap + gap));
        // A device limit of one segment per GSO skb: one segment per release.
        let spec = TcpSpec { gso_max_segs: Some(1), ..spec };
        let (mut s, t0) = established_with(spec, 100, AppSupply::Unlimited);
        assert_eq!(drain(&mut s, t0).len(), 10);
        assert_eq!(drain(&mut s, t0 + gap).len(), 1);
        assert_eq!(s.poll_timeout(t0 + gap), Some(t0 + gap + gap));
    }

    #[test]
    fn a_blackout_gives_the_rfc6298_backoff_sequence() {
        // SYN RTT 100 ms -> SRTT 100, RTTVAR 50, RTO = 100 + 4*50 = 300 ms (RFC 6298 §2.2).
        let (mut s, t0) = established(100, AppSupply::Unlimited);
        assert_eq!(drain(&mut s, t0).len(), 10);
        let mut expiries = Vec::new();
        let mut now = t0;
        for _ in 0..6 {
            now = s.poll_timeout(now).expect("RTO armed");
            s.on_timeout(now);
            expiries.push(now);
            let resent = drain(&mut s, now);
            // Each expiry retransmits the first unacknowledged segment (RFC 6298 §5.4), cwnd = 1.
            assert_eq!(resent.len(), 1);
            assert_eq!(resent[0].seq, 0);
        }
        let gaps_ms: Vec<u64> = std::iter::once(t0)
            .chain(expiries.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
            .map(|w| (w[1] - w[0]).as_ns() / 1_000_000)
            .collect();
        // §5.5: the RTO doubles after each expiry.
        assert_eq!(gaps_ms, vec![300, 600, 1200, 2400, 4800, 9600]);
        assert_eq!(s.stats.timeouts, 6);
        assert_eq!(s.cc().window().cwnd, 1);
    }

    #[test]
    fn karns_rule_no_rtt_sample_from_a_retransmitted_segment() {
        // Conventional RTO recovery (F-RTO off, tcp_frto = 0): every lost segment is resent.
        let (mut s, t0) = established_with(TcpSpec { frto: Some(0), ..Default::default() }, 100, AppSupply::Unlimited);
        drain(&mut s, t0);
        let rto_at = s.poll_timeout(t0).unwrap();
        s.on_timeout(rto_at);
        drain(&mut s, rto_at);
        let srtt_before = s.srtt();
        let backed_off_rto = s.rto();
        assert_eq!(backed_off_rto, SimDuration::from_ms(600));
        // The ACK of the retransmitted segment arrives 50 ms later: ambiguous, so no sample,
        // and the backed-off RTO stays (RFC 6298 §3 / §5.7).
        let t1 = rto_at + SimDuration::from_ms(50);
        s.on_segment(t1, &ack(MSS as u64));
        assert_eq!(s.srtt(), srtt_before);
        assert_eq!(s.rto(), backed_off_rto);
        // Segments 1..9 were marked lost at the RTO and go out again: their ACKs are
        // ambiguous too. Only once new data is sent does an ACK give a valid sample.
        let mut now = t1;
        let new_data_end = loop {
            let sent = drain(&mut s, now);
            let end = sent.iter().map(|x| x.seq + x.len as u64).max().expect("cwnd allows sending");
            if sent.iter().any(|x| x.seq >= 10 * MSS as u64) {
                break end;
            }
            now += SimDuration::from_ms(50);
            s.on_segment(now, &ack(end));
            assert_eq!(s.srtt(), srtt_before, "no sample from retransmitted segments");
        };
        // Linux FLAG_RETRANS_DATA_ACKED: an ACK that also covers retransmitted data gives
        // no sample even for the new data in it, so the last resent segments are ACKed first.
        s.on_segment(now + SimDuration::from_ms(50), &ack(10 * MSS as u64));
        assert_eq!(s.srtt(), srtt_before);
        now += SimDuration::from_ms(200);
        s.on_segment(now, &ack(new_data_end));
        // SRTT = 7/8 * 100 + 1/8 * 200 = 112.5 ms (RFC 6298 §2.3).
        assert_eq!(s.srtt(), Some(SimDuration::from_us(112_500)));
        assert!(s.rto() < backed_off_rto, "a valid sample clears the back-off");
    }

    /// The ns3 profile's RTO and RTT rules on a Linux-default sender otherwise (200 ms floor).
    fn ns3_timer_rules() -> TcpSpec {
        TcpSpec {
            frto: Some(0),
            rto_timer: Some(Stack::Ns3),
            rtt_sampling: Some(Stack::Ns3),
            undo: Some(false),
            ..Default::default()
        }
    }

    fn ack_echoing(n: u64, ts_ecr: SimTime) -> TcpSegment {
        TcpSegment { timestamps: true, ts_ecr: Some(ts_ecr), ..ack(n) }
    }

    #[test]
    fn ns3_ends_the_back_off_at_the_first_ack_that_moves_snd_una() {
        for (spec, backed_off) in [(TcpSpec { frto: Some(0), ..Default::default() }, true), (ns3_timer_rules(), false)]
        {
            let (mut s, t0) = established_with(spec, 100, AppSupply::Unlimited);
            drain(&mut s, t0);
            let rto_at = s.poll_timeout(t0).unwrap();
            s.on_timeout(rto_at);
            drain(&mut s, rto_at);
            assert_eq!(s.rto(), SimDuration::from_ms(600));
            // The retransmission's ACK: no RTT sample either way (Karn; ns-3's history is empty).
            let t1 = rto_at + SimDuration::from_ms(50);
            s.on_segment(t1, &ack(MSS as u64));
            // Linux keeps the doubled RTO until a valid sample (tcp_ack_update_rtt); ns-3's
            // NewAck restarts the timer at SRTT + 4 RTTVAR: 100 + 4 x 50 = 300 ms.
            let want = if backed_off { 600 } else { 300 };
            assert_eq!(s.rto(), SimDuration::from_ms(want));
            assert_eq!(s.poll_timeout(t1), Some(t1 + SimDuration::from_ms(want)));
        }
    }

    #[test]
    fn ns3_takes_no_rtt_sample_from_data_sent_before_an_rto_and_undoes_nothing() {
        // Ten segments leave at t0 and are only late: the RTO fires, the head goes again, and
        // then one ACK covers all ten, echoing the originals' TSval (t0).
        let run = |spec: TcpSpec| {
            let (mut s, t0) = established_with(spec, 100, AppSupply::Unlimited);
            drain(&mut s, t0);
            let rto_at = s.poll_timeout(t0).unwrap();
            s.on_timeout(rto_at);
            drain(&mut s, rto_at);
            let t1 = rto_at + SimDuration::from_ms(50);
            s.on_segment(t1, &ack_echoing(10 * MSS as u64, t0));
            (s, t1)
        };
        let (linux, _) = run(TcpSpec { frto: Some(0), ..Default::default() });
        let (mut ns3, t1) = run(ns3_timer_rules());
        // Linux times the ACK by its echo (RFC 7323 RTTM): 350 ms, SRTT 7/8 x 100 + 350/8; and
        // Eifel (RFC 3522) finds the RTO spurious: cwnd back to the prior 10, plus growth.
        assert_eq!(linux.srtt(), Some(SimDuration::from_us(131_250)));
        assert_eq!(linux.stats.spurious_rtos, 1);
        assert!(linux.cc().window().cwnd >= 10);
        // ns-3 cleared its RTT history at the RTO: SRTT stays, and it undoes nothing: from
        // cwnd 1 the ten segments take slow start to ssthresh 5, the other six add one in
        // avoidance: 6, where the undo restores 10.
        assert_eq!(ns3.srtt(), Some(SimDuration::from_ms(100)));
        assert_eq!((ns3.stats.spurious_rtos, ns3.cc().window().cwnd), (0, 6));
        // The first segment sent after the RTO is timed again, by its echo in whole ms.
        let sent = drain(&mut ns3, t1);
        assert!(sent[0].seq >= 10 * MSS as u64);
        let t2 = t1 + SimDuration::from_us(120_400);
        ns3.on_segment(t2, &ack_echoing(sent[0].seq + MSS as u64, t1));
        // ns3_tsopt_rtt: 120 ms; SRTT = 7/8 x 100 + 120/8 = 102.5 ms.
        assert_eq!(ns3.srtt(), Some(SimDuration::from_us(102_500)));
    }

    #[test]
    fn three_dupacks_trigger_fast_retransmit_and_halve_the_window() {
        let (mut s, t0) = established(100, AppSupply::Unlimited);
        drain(&mut s, t0);
        let t1 = t0 + SimDuration::from_ms(100);
        // Segment 0 lost: three duplicate ACKs for 0.
        for _ in 0..3 {
            s.on_segment(t1, &ack(0));
        }
        assert_eq!(s.ca_state(), CaState::Recovery);
        assert_eq!(s.cc().window().ssthresh, 5);
        let out = drain(&mut s, t1);
        assert_eq!(out[0].seq, 0, "the hole is retransmitted first");
        assert_eq!(s.stats.retransmits, 1);
        // The full ACK ends recovery with cwnd = ssthresh = 5 (RFC 6582 §3.2 step 3); as in
        // Linux's tcp_ack, the same ACK then feeds cong_avoid: 10 segments ACKed at
        // cwnd 5 in congestion avoidance add 10 / 5 = 2 segments.
        s.on_segment(t1 + SimDuration::from_ms(100), &ack(10 * MSS as u64));
        assert_eq!(s.ca_state(), CaState::Open);
        assert_eq!(s.cc().window().cwnd, 7);
    }

    #[test]
    fn fast_retransmit_of_the_head_rearms_the_rto() {
        let (mut s, t0) = established(100, AppSupply::Unlimited);
        drain(&mut s, t0);
        assert_eq!(s.poll_timeout(t0), Some(t0 + SimDuration::from_ms(300)));
        let t1 = t0 + SimDuration::from_ms(250);
        for _ in 0..3 {
            s.on_segment(t1, &ack(0));
        }
        assert_eq!(drain(&mut s, t1)[0].seq, 0);
        // Linux tcp_xmit_retransmit_queue: the timer restarts from the head's retransmission.
        assert_eq!(s.poll_timeout(t1), Some(t1 + s.rto()));
    }

    #[test]
    fn finite_transfer_ends_with_fin_and_finishes_when_it_is_acked() {
        let (mut s, t0) = established(10, AppSupply::Closed { total: 2500 });
        let out = drain(&mut s, t0);
        let lens: Vec<u32> = out.iter().map(|x| x.len).collect();
        assert_eq!(lens, vec![1000, 1000, 500, 0]);
        assert!(out[3].flags.has(TcpFlags::FIN));
        s.on_segment(t0 + SimDuration::from_ms(10), &ack(2501));
        assert_eq!(s.state(), SenderState::Finished);
        assert_eq!(s.poll_timeout(t0), None);
    }
}

#[cfg(test)]
mod recovery_tests;
