//! The sender's loss recovery, as Linux `tcp_fastretrans_alert` and its
//! helpers (net/ipv4/tcp_input.c): loss detection (RACK, RFC 8985, or the
//! RFC 6675 / RFC 6582 dupthresh rules), the CA-state machine, undo of
//! spurious reductions (RFC 3708 DSACK, RFC 3522 Eifel), the Tail Loss
//! Probe and the three timers (RTO, RACK reordering, loss probe).
//!
//! ```text
//!  ACK ─► episode over? (Recovery/CWR/Loss end: try undo, cwnd = ssthresh)
//!      ─► per state: Recovery: partial undo / DSACK undo, detect losses
//!                    Loss:     undo on progress, detect (lost retransmission -> Recovery)
//!                    Open/Disorder/CWR: DSACK undo, detect, losses -> Recovery
//! ```

use super::{Fin, SenderState, TcpSender};
use crate::cc::{CaState, CwndEvent, INFINITE_SSTHRESH};
use crate::packet::TcpSegment;
use crate::scenario::Stack;
use crate::sim::{SimDuration, SimTime};
use crate::tcp::recovery::{Prr, PrrAck};
use crate::tcp::tlp::{self, Episode, Probe, ProbeAck, ProbeOutcome};

/// F-RTO after an RTO (RFC 5682 §3.1, SACK-enhanced; Linux `tp->frto`, `tcp_process_loss`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Frto {
    Off,
    /// Waiting for the first ACK that advances snd_una after the RTO (step 2).
    Armed,
    /// Step 2.b: that ACK came; new data goes out before any retransmission.
    SendingNew,
}

/// What the ACK being processed showed, for the state machine.
#[derive(Clone, Copy, Debug)]
pub(super) struct AckFacts {
    pub una_advanced: bool,
    /// A pure duplicate ACK (no progress, no data, same window).
    pub dupack: bool,
    /// Never-retransmitted data at or below the recovery point was (S)ACKed (FLAG_ORIG_SACK_ACKED).
    pub orig_acked: bool,
    pub ece: bool,
    /// TSecr of the ACK when timestamps are on (Eifel, RFC 3522).
    pub ts_ecr: Option<SimTime>,
    /// TSval of the ACK (the receiver's clock) when timestamps are on.
    pub ts_val: Option<SimTime>,
    pub sacked_new: u32,
}

impl TcpSender {
    /// RFC 2883 §4 / Linux `tcp_check_dsack`: the first SACK block reports a duplicate
    /// when it lies below the cumulative ACK or inside the second block.
    pub(super) fn check_dsack(&self, seg: &TcpSegment) -> Option<(u64, u64)> {
        let blocks = seg.sack.as_slice();
        let &(s0, e0) = blocks.first()?;
        let inside_second = blocks.get(1).is_some_and(|&(s1, e1)| s0 >= s1 && e0 <= e1);
        (self.p.sack && (s0 < seg.ack || inside_second)).then_some((s0, e0))
    }

    /// Linux `tcp_dsack_seen` and the undo accounting of `tcp_check_dsack`.
    /// Returns whether the DSACK reports exactly the loss probe (FLAG_DSACK_TLP).
    pub(super) fn on_dsack(&mut self, (start, end): (u64, u64)) -> bool {
        let len = end.saturating_sub(start);
        if len == 0 {
            return false;
        }
        let dup_segs = len.div_ceil(self.mss as u64).max(1) as u32;
        let for_probe = dup_segs == 1 && self.probe.high_seq() == Some(end);
        self.stats.dsack_segments += dup_segs as u64;
        // Linux skips DSACKs for more duplicates than it ever retransmitted.
        if self.stats.dsack_segments > self.stats.retransmits {
            return for_probe;
        }
        self.rack.on_dsack(for_probe);
        self.undo.on_dsack(end, dup_segs);
        for_probe
    }

    /// Linux `tcp_process_tlp_ack`.
    pub(super) fn process_probe_ack(&mut self, now: SimTime, a: &ProbeAck) {
        if self.probe.on_ack(a) == ProbeOutcome::RepairedLoss {
            self.stats.probe_recoveries += 1;
            self.init_cwnd_reduction(now, CaState::Cwr);
            self.end_cwnd_reduction(now);
            self.try_keep_open(now);
        }
    }

    /// Linux `tcp_identify_packet_loss`: RACK with SACK when enabled, NewReno's
    /// head rule without SACK, else RFC 6675 IsLost plus the dupthresh head rule.
    pub(super) fn identify_loss(&mut self, now: SimTime, f: &AckFacts) -> u32 {
        if self.board.is_empty() {
            return 0;
        }
        let newly = if !self.p.sack {
            self.newreno_mark_lost(f.una_advanced)
        } else if self.rack.enabled() {
            self.rack_mark_lost(now)
        } else {
            self.dupthresh_mark_lost(f.sacked_new)
        };
        self.lost_total += newly as u64;
        newly
    }

    /// Linux `tcp_newreno_mark_lost` (RFC 6582 §3.2): the head is lost on the
    /// dupthresh-th duplicate ACK, and on each partial ACK in recovery.
    fn newreno_mark_lost(&mut self, una_advanced: bool) -> u32 {
        let opening = self.ca_state < CaState::Recovery && self.dupacks >= self.p.dupack_threshold;
        let partial = self.ca_state == CaState::Recovery && una_advanced;
        if opening || partial {
            self.board.mark_head_lost()
        } else {
            0
        }
    }

    /// RFC 6675 §4 IsLost with the dupthresh-th duplicate ACK rule (`tcp_recovery` without RACK).
    fn dupthresh_mark_lost(&mut self, sacked_new: u32) -> u32 {
        let thresh = self.p.dupack_threshold;
        let mut newly = if sacked_new > 0 { self.board.mark_lost_by_sack(thresh) } else { 0 };
        if self.ca_state < CaState::Recovery && self.dupacks >= thresh && self.board.lost() == 0 {
            newly += self.board.mark_head_lost();
        }
        newly
    }

    fn current_reo_wnd(&self) -> SimDuration {
        let min_rtt = self.rtt.min_rtt().unwrap_or(SimDuration::ZERO);
        let srtt = self.rtt.srtt().unwrap_or(min_rtt);
        self.rack.reo_wnd(self.ca_state, self.board.sacked(), self.p.dupack_threshold, min_rtt, srtt)
    }

    /// Linux `tcp_rack_mark_lost`: scan, and arm the reordering timer for what is not yet due.
    fn rack_mark_lost(&mut self, now: SimTime) -> u32 {
        if self.rack.scan_ends_at_head(&self.board) {
            // The scan would stop at its first step: nothing is lost or waiting, so neither
            // the scan nor the reordering window is needed, and no timer is armed.
            self.rack.scan_skipped();
            self.reo_at = None;
            return 0;
        }
        let reo_wnd = self.current_reo_wnd();
        let d = self.rack.mark_lost(&mut self.board, now, reo_wnd);
        self.stats.lost_retransmits += d.lost_retransmits as u64;
        // Each scan sees every segment still waiting, so its answer replaces the timer.
        self.reo_at = d.reo_timeout.map(|t| now + t);
        d.newly_lost
    }

    /// Linux `tcp_fastretrans_alert`: the CA-state machine run on every ACK.
    pub(super) fn fastretrans_alert(&mut self, now: SimTime, f: &AckFacts) -> u32 {
        self.end_episode_if_done(now, f);
        match self.ca_state {
            CaState::Recovery => self.alert_in_recovery(now, f),
            CaState::Loss => {
                self.process_loss(now, f);
                let before = self.stats.lost_retransmits;
                let newly = self.identify_loss(now, f);
                let lost_retransmission = self.stats.lost_retransmits > before;
                if self.ca_state == CaState::Open || lost_retransmission {
                    newly + self.alert_open(now, f)
                } else {
                    newly
                }
            }
            _ => self.alert_open(now, f),
        }
    }

    /// The part of `tcp_fastretrans_alert` run once snd_una passed the recovery point.
    fn end_episode_if_done(&mut self, now: SimTime, f: &AckFacts) {
        match self.ca_state {
            CaState::Open => self.undo.clear_retrans_stamp(),
            // Linux ends CWR only once snd_una moved strictly past high_seq.
            CaState::Cwr if self.snd_una > self.high_seq => {
                self.end_cwnd_reduction(now);
                self.set_ca_state(now, CaState::Open);
            }
            CaState::Recovery if self.snd_una >= self.high_seq => {
                self.reset_dupacks();
                self.try_undo_recovery(now, f.ts_ecr);
                self.end_cwnd_reduction(now);
            }
            _ => {}
        }
    }

    fn alert_in_recovery(&mut self, now: SimTime, f: &AckFacts) -> u32 {
        if f.una_advanced && !self.p.sack && self.cc.exits_recovery_on_partial_ack() {
            // RFC 5681 classic Reno: any advancing ACK ends fast recovery.
            self.end_cwnd_reduction(now);
            self.reset_dupacks();
            self.try_keep_open(now);
            return 0;
        }
        if f.una_advanced && self.try_undo_partial(now, f.ts_ecr) {
            return 0;
        }
        if self.try_undo_dsack(now) {
            self.try_keep_open(now);
        }
        let newly = self.identify_loss(now, f);
        // Linux `tcp_time_to_recover`: `lost_out`, which counts retransmitted lost segments too.
        if self.ca_state != CaState::Recovery && self.board.lost_out() > 0 {
            self.enter_recovery(now, f.ece);
        }
        newly
    }

    /// The `default:` branch of `tcp_fastretrans_alert` (Open, Disorder, CWR).
    fn alert_open(&mut self, now: SimTime, f: &AckFacts) -> u32 {
        if self.ca_state <= CaState::Disorder {
            self.try_undo_dsack(now);
        }
        let newly = self.identify_loss(now, f);
        // Linux `tcp_time_to_recover` tests `lost_out`: a recovery that ends while segments
        // marked lost (even retransmitted ones) are outstanding starts a new one.
        if self.board.lost_out() == 0 {
            self.try_to_open(now, f.ece);
        } else {
            self.enter_recovery(now, f.ece);
        }
        newly
    }

    /// Linux `tcp_process_loss`: undo on progress (Eifel), F-RTO (RFC 5682 §3.1), Open once recovered.
    fn process_loss(&mut self, now: SimTime, f: &AckFacts) {
        if self.frto == Frto::SendingNew {
            self.frto = Frto::Armed;
        }
        if f.una_advanced && self.try_undo_loss(now, f.ts_ecr, false) {
            return;
        }
        if self.frto != Frto::Off && self.frto_step(now, f) {
            return;
        }
        if self.snd_una >= self.high_seq {
            self.try_undo_recovery(now, f.ts_ecr);
        }
    }

    /// RFC 5682 §3.1 steps 2-3 as `tcp_process_loss`: returns true when this ACK is handled.
    fn frto_step(&mut self, now: SimTime, f: &AckFacts) -> bool {
        // Step 3.b: never-retransmitted data was delivered, so not all was lost: spurious.
        if f.orig_acked && self.try_undo_loss(now, f.ts_ecr, true) {
            return true;
        }
        if self.snd_nxt > self.high_seq {
            // Step 3.a: a duplicate ACK or new SACK after the new data: the loss was real.
            if f.sacked_new > 0 || f.dupack {
                self.frto = Frto::Off;
            }
        } else if f.una_advanced && self.snd_una < self.high_seq {
            // Step 2.b: send new data instead of retransmitting, if there is any to send.
            self.high_seq = self.snd_nxt;
            let window_end = self.snd_una + self.peer_wnd;
            if self.snd_nxt < self.data_end() && window_end > self.snd_nxt {
                self.frto = Frto::SendingNew;
                return true;
            }
            self.frto = Frto::Off;
        }
        false
    }

    /// Linux `tcp_xmit_recovery` with REXMIT_NEW: new data as cwnd allows; if none went
    /// out beyond the recovery point, fall back to conventional recovery.
    pub(super) fn frto_send_new(&mut self, now: SimTime) -> Option<TcpSegment> {
        let can_send = self.board.packets_in_flight() < self.cc.window().cwnd;
        let end = self.data_end();
        let window_end = self.snd_una + self.peer_wnd;
        let len = (end.saturating_sub(self.snd_nxt)).min(self.mss as u64) as u32;
        if can_send && len > 0 && self.snd_nxt + len as u64 <= window_end {
            return Some(self.send_new(now, len));
        }
        if self.snd_nxt > self.high_seq {
            self.frto = Frto::Armed;
            None
        } else {
            self.frto = Frto::Off;
            self.poll_transmit(now)
        }
    }

    /// Linux `tcp_try_undo_recovery`: at the end of an episode, undo if it was spurious.
    fn try_undo_recovery(&mut self, now: SimTime, ts_ecr: Option<SimTime>) {
        if self.p.undo && self.undo.may_undo(ts_ecr) {
            self.undo_cwnd_reduction(now, false);
        } else {
            self.rack.on_real_recovery();
        }
        self.set_ca_state(now, CaState::Open);
    }

    /// Linux `tcp_try_undo_dsack`: every retransmission of the episode was DSACKed.
    fn try_undo_dsack(&mut self, now: SimTime) -> bool {
        if !(self.p.undo && self.undo.all_dsacked()) {
            return false;
        }
        self.rack.on_dsack_undo();
        self.undo_cwnd_reduction(now, false);
        true
    }

    /// Linux `tcp_try_undo_partial`: a partial ACK echoing a timestamp older than the
    /// first retransmission shows the "loss" was reordering (Eifel).
    fn try_undo_partial(&mut self, now: SimTime, ts_ecr: Option<SimTime>) -> bool {
        if !(self.p.undo && self.undo.active() && self.undo.packet_delayed(ts_ecr)) {
            return false;
        }
        self.rack.note_reordering();
        if self.board.retrans_out() > 0 {
            // Wait for the retransmissions' fate (DSACKs) before undoing.
            return true;
        }
        self.undo_cwnd_reduction(now, true);
        self.try_keep_open(now);
        false
    }

    /// Linux `tcp_try_undo_loss`: after an RTO shown spurious by Eifel (RFC 3522) or,
    /// with `frto_undo`, by F-RTO (RFC 5682).
    fn try_undo_loss(&mut self, now: SimTime, ts_ecr: Option<SimTime>, frto_undo: bool) -> bool {
        if !(self.p.undo && (frto_undo || self.undo.may_undo(ts_ecr))) {
            return false;
        }
        self.stats.spurious_rtos += 1;
        self.undo_cwnd_reduction(now, true);
        if frto_undo || self.p.sack {
            self.set_ca_state(now, CaState::Open);
        }
        true
    }

    /// Linux `tcp_undo_cwnd_reduction`: cwnd from the algorithm's `undo_cwnd`,
    /// ssthresh back to what it was, optionally forgetting the loss marks.
    fn undo_cwnd_reduction(&mut self, now: SimTime, unmark_loss: bool) {
        if unmark_loss {
            self.board.unmark_lost();
        }
        if self.undo.prior_ssthresh > 0 {
            let v = self.view(now);
            let cwnd = self.cc.undo_cwnd(&v, self.undo.prior_cwnd);
            let w = self.cc.window_mut();
            w.set_cwnd(cwnd);
            if self.undo.prior_ssthresh > w.ssthresh {
                w.ssthresh = self.undo.prior_ssthresh;
                self.cwr_pending = false;
            }
        }
        self.undo.clear_marker();
        self.rack.force_scan();
        self.stats.undos += 1;
    }

    /// Linux `tcp_current_ssthresh`: ssthresh, or 3/4 of cwnd when that is more, outside reductions.
    fn current_ssthresh(&self) -> u32 {
        let w = self.cc.window();
        if matches!(self.ca_state, CaState::Cwr | CaState::Recovery) {
            w.ssthresh
        } else {
            w.ssthresh.max((w.cwnd >> 1) + (w.cwnd >> 2))
        }
    }

    /// Linux `tcp_init_cwnd_reduction` then `tcp_set_ca_state`: the algorithm's
    /// ssthresh, and PRR from the current window, before the state changes.
    pub(super) fn init_cwnd_reduction(&mut self, now: SimTime, state: CaState) {
        self.high_seq = self.snd_nxt;
        self.probe = Episode::Idle;
        let prior_cwnd = self.cc.window().cwnd;
        let v = self.view(now);
        let ssthresh = self.cc.ssthresh(&v);
        let w = self.cc.window_mut();
        w.ssthresh = ssthresh;
        w.cwnd_cnt = 0;
        self.prr = Prr::new(self.p.fast_recovery, prior_cwnd, self.board.packets_in_flight());
        self.partial_ack_restarted_rto = false;
        self.cwr_pending = self.p.ecn;
        self.set_ca_state(now, state);
    }

    /// Linux `tcp_enter_recovery`: a loss during CWR keeps the reduction already under way.
    pub(super) fn enter_recovery(&mut self, now: SimTime, ece: bool) {
        self.stats.recoveries += 1;
        let prior_ssthresh = if ece { 0 } else { self.current_ssthresh() };
        let prior_cwnd = self.cc.window().cwnd;
        self.undo.init(self.snd_una, self.board.retrans_out(), 0, prior_cwnd);
        if self.ca_state == CaState::Cwr {
            self.set_ca_state(now, CaState::Recovery);
        } else {
            self.undo.prior_ssthresh = prior_ssthresh;
            self.init_cwnd_reduction(now, CaState::Recovery);
        }
    }

    /// Linux `tcp_enter_cwr` on ECN-Echo (RFC 3168 §6.1.2): one reduction per
    /// window, announced by CWR on the next new data segment; never undone.
    fn enter_cwr(&mut self, now: SimTime) {
        self.stats.ecn_reductions += 1;
        self.undo.forbid();
        self.undo.clear_marker();
        self.init_cwnd_reduction(now, CaState::Cwr);
        self.cwr_pending = true;
    }

    /// Linux `tcp_end_cwnd_reduction`: cwnd = ssthresh at the end of CWR or of a recovery
    /// that was not undone, then `CA_EVENT_COMPLETE_CWR` (Westwood+ sets its window there).
    pub(super) fn end_cwnd_reduction(&mut self, now: SimTime) {
        if self.cc.owns_recovery() {
            return;
        }
        let w = self.cc.window_mut();
        let reduce = self.ca_state == CaState::Cwr || self.undo.active();
        if w.ssthresh < INFINITE_SSTHRESH && reduce {
            let ss = w.ssthresh;
            w.set_cwnd(ss);
        }
        let v = self.view(now);
        self.cc.cwnd_event(&v, CwndEvent::CompleteCwr);
    }

    fn reset_dupacks(&mut self) {
        self.dupacks = 0;
        self.board.set_dupacks(0);
    }

    /// Linux `tcp_try_keep_open`: Disorder while anything is SACKed, lost or retransmitted.
    fn try_keep_open(&mut self, now: SimTime) {
        let disorder = self.board.sacked() > 0
            || self.board.lost() > 0
            || self.board.retrans_out() > 0
            || (!self.p.sack && self.dupacks > 0);
        let next = if disorder { CaState::Disorder } else { CaState::Open };
        if self.ca_state != next {
            self.set_ca_state(now, next);
            self.high_seq = self.snd_nxt;
        }
    }

    /// Linux `tcp_try_to_open`: ECN-Echo starts CWR, else Open or Disorder.
    fn try_to_open(&mut self, now: SimTime, ece: bool) {
        if self.board.retrans_out() == 0 {
            self.undo.clear_retrans_stamp();
        }
        if ece && self.ca_state < CaState::Cwr {
            self.enter_cwr(now);
        }
        if self.ca_state != CaState::Cwr {
            self.try_keep_open(now);
        }
    }

    // ---- timers ----------------------------------------------------------

    /// Linux `tcp_schedule_loss_probe`: in Open or CWR with SACK and data out, probe
    /// after the PTO; `advancing_rto` = the RTO was just restarted in full.
    pub(super) fn schedule_probe(&mut self, now: SimTime, advancing_rto: bool) {
        self.probe_at = None;
        let state_ok = matches!(self.ca_state, CaState::Open | CaState::Cwr);
        if !self.tlp_enabled || !self.p.sack || self.board.is_empty() || !state_ok {
            return;
        }
        let rto_left = if advancing_rto { self.rtt.rto() } else { self.rto_delta(now) };
        let packets_out = self.board.packets_out();
        let pto = tlp::probe_timeout(self.rtt.srtt(), packets_out, self.p.min_rto, self.p.initial_rto, rto_left);
        self.probe_at = Some(now + pto);
    }

    /// Linux `tcp_rto_delta_us`: how far ahead the RTO falls when counted from the head's last
    /// transmission (zero once passed), which is what caps a loss probe.
    fn rto_delta(&self, now: SimTime) -> SimDuration {
        let head_sent = if self.board.is_empty() { now } else { self.board.get(0).sent_at };
        (head_sent + self.rtt.rto()).saturating_since(now)
    }

    /// The next instant the sender needs to run: its RTO, reordering or probe
    /// timer, or the pacing release of a segment that cwnd already allows.
    pub fn poll_timeout(&self, now: SimTime) -> Option<SimTime> {
        let paced = self.next_send_at > now
            && self.pacing_rate_bps().is_some()
            && self.has_something_to_send()
            && self.board.packets_in_flight() < self.cc.window().cwnd;
        let pacing = paced.then_some(self.next_send_at);
        // A pending probe stands in for the RTO (`on_timeout` skips the RTO while one waits), so
        // the RTO is no deadline then: asking to wake for it would wake the sender at the same
        // instant again and again once it is due.
        let rto = if self.probe_at.is_some() { None } else { self.rto_at };
        SimTime::earliest(SimTime::earliest(rto, pacing), SimTime::earliest(self.reo_at, self.probe_at))
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        if self.reo_at.is_some_and(|t| now >= t) {
            self.reo_at = None;
            self.on_reo_timeout(now);
        }
        // Linux keeps one timer: a pending loss probe stands in for the RTO, and the probe (or,
        // without one, the timer re-armed from the head) restarts it.
        if self.probe_at.is_some_and(|t| now >= t) {
            self.probe_at = None;
            self.on_probe_timeout(now);
            return;
        }
        if self.probe_at.is_some() {
            return;
        }
        let Some(at) = self.rto_at else { return };
        if now < at {
            return;
        }
        match self.state {
            SenderState::SynSent { attempts, .. } if attempts >= self.p.syn_retries => {
                self.state = SenderState::Failed;
                self.rto_at = None;
            }
            SenderState::SynSent { attempts, .. } => {
                self.rtt.back_off();
                self.state = SenderState::SynSent { attempts: attempts + 1, pending: true, sent_at: now };
                self.rto_at = Some(now + self.rtt.rto());
            }
            SenderState::Established => self.on_rto(now),
            _ => self.rto_at = None,
        }
    }

    /// Linux `tcp_rack_reo_timeout`: the reordering window passed; what is due is lost.
    fn on_reo_timeout(&mut self, now: SimTime) {
        if self.state != SenderState::Established {
            return;
        }
        let reo_wnd = self.current_reo_wnd();
        let d = self.rack.detect_loss(&mut self.board, now, reo_wnd);
        self.stats.lost_retransmits += d.lost_retransmits as u64;
        self.lost_total += d.newly_lost as u64;
        if d.newly_lost > 0 && self.ca_state != CaState::Recovery {
            self.enter_recovery(now, false);
            if !self.cc.owns_recovery() {
                let (ssthresh, in_flight) = (self.cc.window().ssthresh, self.board.packets_in_flight());
                let a = PrrAck { ssthresh, in_flight, newly_acked: 1, in_recovery: true, ..PrrAck::default() };
                if let Some(cwnd) = self.prr.on_ack(&a) {
                    self.cc.window_mut().set_cwnd(cwnd);
                }
            }
        }
    }

    /// Linux `tcp_send_loss_probe`: one probe per episode, new data if the window
    /// allows, else the last segment again; with none, the RTO is re-armed from the head
    /// (`tcp_rearm_rto` with the probe pending: `tcp_rto_delta_us`).
    fn on_probe_timeout(&mut self, now: SimTime) {
        let open = matches!(self.ca_state, CaState::Open | CaState::Cwr);
        if self.state != SenderState::Established || !open || self.probe != Episode::Idle || self.board.is_empty() {
            if !self.board.is_empty() {
                self.rto_at = Some(now + self.rto_delta(now).max(SimDuration::from_us(1)));
            }
            return;
        }
        let end = self.data_end();
        let window_end = self.snd_una + self.peer_wnd;
        let new_len = (end.saturating_sub(self.snd_nxt)).min(self.mss as u64);
        let probe =
            if new_len > 0 && self.snd_nxt + new_len <= window_end { Probe::NewData } else { Probe::RetransmitLast };
        self.probe_due = Some(probe);
    }

    /// Send the probe `on_probe_timeout` decided on (cwnd and pacing do not hold it back).
    pub(super) fn send_probe(&mut self, now: SimTime, probe: Probe) -> TcpSegment {
        let (seg, retransmitted) = match probe {
            Probe::NewData => {
                let len = (self.data_end() - self.snd_nxt).min(self.mss as u64) as u32;
                (self.send_new(now, len), false)
            }
            Probe::RetransmitLast => {
                let last = self.board.packets_out() as usize - 1;
                (self.retransmit(now, last), true)
            }
        };
        self.probe = Episode::Probing { high_seq: self.snd_nxt, retransmitted };
        self.stats.loss_probes += 1;
        // Linux tcp_send_loss_probe sends with push_one = 2, which re-plans no probe.
        self.probe_at = None;
        self.probe_replan_due = false;
        self.rto_at = Some(now + self.rtt.rto());
        seg
    }

    /// RFC 6298 §5.4-5.6 and Linux `tcp_enter_loss` / `tcp_retransmit_timer`.
    fn on_rto(&mut self, now: SimTime) {
        self.stats.timeouts += 1;
        // Linux tcp_enter_loss: F-RTO unless a recovery other than a recurring timeout is under way.
        let frto = self.p.frto > 0 && (self.ca_state < CaState::Recovery || self.ca_state == CaState::Loss);
        let new_episode = self.ca_state <= CaState::Disorder || self.snd_una >= self.high_seq;
        let recent = self.rack.not_yet_due_on_timeout();
        let in_flight_before = self.board.packets_in_flight();
        self.lost_total += self.board.mark_lost_on_timeout(now, recent) as u64;
        if new_episode {
            let prior_ssthresh = self.current_ssthresh();
            let prior_cwnd = self.cc.window().cwnd;
            let mut v = self.view(now);
            if self.p.reno_rules == Stack::Ns3 {
                // ns-3.44 ReTxTimeout: GetSsThresh(tcb, inFlightBeforeRto).
                v.packets_in_flight = in_flight_before;
            }
            let ssthresh = self.cc.ssthresh(&v);
            self.cc.window_mut().ssthresh = ssthresh;
            self.cc.cwnd_event(&v, CwndEvent::Loss);
            self.undo.init(self.snd_una, self.board.retrans_out(), prior_ssthresh, prior_cwnd);
        }
        self.set_ca_state(now, CaState::Loss);
        self.frto = if frto { Frto::Armed } else { Frto::Off };
        // Linux tcp_enter_loss: room for one retransmission beyond what is still in flight.
        let cwnd = self.board.packets_in_flight() + 1;
        let w = self.cc.window_mut();
        w.set_cwnd(cwnd);
        w.cwnd_cnt = 0;
        self.reset_dupacks();
        self.high_seq = self.snd_nxt;
        self.probe = Episode::Idle;
        self.probe_at = None;
        self.reo_at = None;
        if self.fin == Fin::Sent && self.board.is_empty() {
            self.fin = Fin::NotSent;
        }
        self.rtt.back_off();
        self.rto_at = Some(now + self.rtt.rto());
        self.next_send_at = now;
        if self.p.rtt_sampling == Stack::Ns3 {
            self.rtt_history_start = self.snd_nxt;
        }
    }
}
