//! The originator's side of a frame exchange: what a TXOP sends, the PPDUs it puts on the air,
//! and what an acknowledgement or its absence does (IEEE 802.11-2020 §10.23.2, §10.25).
//!
//! ```text
//!  TXOP:  [BlockAckReq if an MPDU was discarded] | PSDU for the receiver with the oldest frame
//!  PSDU:  MPDUs to send again (sequence order), then new MSDUs, while the A-MPDU limits hold
//!         (mac::ampdu); RTS/CTS first when longer than the RTS threshold
//!  Ack / BlockAck: acknowledged MPDUs leave, the others wait for the next PSDU; CW = CWmin;
//!         the TXOP goes on SIFS later if its limit leaves room, else ends with a post-backoff
//!  none:  every MPDU of the PSDU waits for the next one; CW doubles; a new backoff
//! ```

use super::air::{AirMpdu, Frame, Mode, Ppdu, Sta};
use super::station::{Exchange, FollowUp, Phy, Response, Txop};
use super::{peer_at, peer_slot, Bss, Ev};
use crate::sim::{SimDuration, SimTime};
use crate::wifi::mac::ampdu::{Limits, Sizer};
use crate::wifi::mac::block_ack::AckOutcome;
use crate::wifi::mac::edca::Ac;
use crate::wifi::mac::frames::{mpdu_bytes, ACK_BYTES, BLOCK_ACK_BYTES, BLOCK_ACK_REQ_BYTES, CTS_BYTES, RTS_BYTES};
use crate::wifi::phy::ppdu::{ampdu_subframe_bytes, non_ht_ppdu_ns, vht_ppdu_ns, vht_preamble_ns};
use crate::wifi::phy::vht::{response_rate, LegacyRate, TxVector};
use crate::wifi::phy::{RX_PHY_START_DELAY_NS, SIFS_NS, SLOT_NS};
use crate::wifi::rate_control::TxReport;

/// RTS and BlockAckReq go at the lowest basic rate, 6 Mb/s (§10.6.6.2 leaves the choice among the
/// basic rates; ns-3's `ConstantRateWifiManager::ControlMode` default).
const CONTROL_RATE: LegacyRate = LegacyRate::Mbps6;
/// Non-HT preamble and SIGNAL field, ns (§17.4.3).
const NON_HT_HEADER_NS: u64 = 20_000;

fn ns(t: u64) -> SimDuration {
    SimDuration::from_ns(t)
}

/// How long after a PPDU ends its response must have begun (§10.3.2.11: aSIFSTime + aSlotTime +
/// aRxPHYStartDelay).
fn response_timeout(end: SimTime) -> SimTime {
    end + ns(SIFS_NS + SLOT_NS + RX_PHY_START_DELAY_NS)
}

/// How many MPDUs (resent, new) a PSDU takes, and its A-MPDU length.
struct Plan {
    resent: usize,
    new: usize,
    apep_bytes: u32,
}

impl Bss {
    /// Station `s` won access for AC `ac` at `now`: open a TXOP and send its first frame.
    pub(super) fn start_txop(&mut self, s: Sta, ac: usize, now: SimTime) {
        self.expire(s, ac, now);
        let limit_ns = u64::from(self.stations[s].edca[ac].params.txop_limit_us) * 1000;
        self.stations[s].txop = Some(Txop { ac: Ac::ALL[ac], start: now, limit_ns });
        if !self.send_next(s, ac, now, true) {
            // Everything it held expired: the TXOP ends unused, the backoff stays at 0.
            self.stations[s].txop = None;
        }
    }

    /// Send the TXOP's next frame: a due BlockAckReq, else the PSDU of the receiver whose oldest
    /// frame is the oldest. False if nothing could be sent.
    fn send_next(&mut self, s: Sta, ac: usize, now: SimTime, opens: bool) -> bool {
        if let Some(k) = self.bar_due(s, ac) {
            self.send_bar(s, k, now);
            return true;
        }
        match self.oldest_peer(s, ac) {
            Some(peer) => self.send_psdu(s, peer, ac, now, opens),
            None => false,
        }
    }

    /// Discard what outlived its lifetime at `s` in AC `ac`: queued MSDUs and MPDUs waiting to go again.
    fn expire(&mut self, s: Sta, ac: usize, now: SimTime) {
        let Some(oldest) = now.as_ns().checked_sub(self.cfg.lifetime.as_ns()).map(SimTime) else { return };
        let n_peers = if s == 0 { self.stations.len() - 1 } else { 1 };
        for slot in 0..n_peers {
            let peer = peer_at(s, slot);
            let mut gone = 0u64;
            let dropped = &mut self.dropped;
            self.stations[s].queues[ac].expire_peer(slot, oldest, &mut |m| {
                dropped.push(m.id);
                gone += 1;
            });
            if gone > 0 {
                self.link_slot(s, peer, now).queue_drops += gone;
                self.note_queue(s, peer, now);
            }
            let k = self.agreement(s, peer, ac);
            if !self.agreements[k as usize].flagged {
                // Only MPDUs waiting to go again can expire (`Originator::expire`).
                continue;
            }
            let before = self.agreements[k as usize].orig.held();
            let dropped = &mut self.dropped;
            let lost = self.agreements[k as usize].orig.expire(oldest, &mut |id| dropped.push(id));
            if lost > 0 {
                self.link_slot(s, peer, now).mpdu_losses += u64::from(lost);
                self.sync_held(k, before);
            }
        }
    }

    /// An agreement of `s` in AC `ac` whose recipient must hear of a discarded MPDU.
    fn bar_due(&self, s: Sta, ac: usize) -> Option<u32> {
        if self.waiting[s][ac] == 0 {
            return None;
        }
        let n_peers = if s == 0 { self.stations.len() - 1 } else { 1 };
        (0..n_peers)
            .map(|slot| self.agreement(s, peer_at(s, slot), ac))
            .find(|&k| self.agreements[k as usize].orig.bar_needed)
    }

    /// The peer whose oldest frame (queued, or waiting to go again) is the oldest (FCFS).
    fn oldest_peer(&self, s: Sta, ac: usize) -> Option<Sta> {
        let st = &self.stations[s];
        let n_peers = if s == 0 { self.stations.len() - 1 } else { 1 };
        (0..n_peers)
            .filter_map(|slot| {
                let peer = peer_at(s, slot);
                let a = &self.agreements[self.agreement(s, peer, ac) as usize];
                // Only a flagged agreement has MPDUs to send again (`reflag`).
                let retx = if a.flagged { a.orig.retransmissions().map(|m| m.queued_at).min() } else { None };
                let queued = st.queues[ac].front(slot).map(|m| m.queued_at);
                SimTime::earliest(retx, queued).map(|t| (t, peer))
            })
            .min()
            .map(|(_, p)| p)
    }

    /// How many MPDUs a PSDU to `peer` would carry within `limits`, without taking them.
    fn plan(&self, s: Sta, peer: Sta, k: u32, tx: TxVector, limits: Limits) -> Plan {
        let mut sizer = Sizer::new(tx, self.cfg.fec, self.cfg.sig_b, limits);
        let orig = &self.agreements[k as usize].orig;
        let resent = orig.retransmissions().take_while(|m| sizer.try_add(m.ip_bytes)).count();
        let full = resent < orig.retransmissions().count();
        let room = usize::from(orig.room());
        let new = if full {
            0
        } else {
            let queue = &self.stations[s].queues[self.agreements[k as usize].ac.index()];
            queue.iter(peer_slot(s, peer)).take(room).take_while(|m| sizer.try_add(m.ip_bytes)).count()
        };
        Plan { resent, new, apep_bytes: sizer.apep_bytes() }
    }

    /// Build and send (or protect with RTS) the PSDU for `peer`; false if not even one MPDU fits.
    fn send_psdu(&mut self, s: Sta, peer: Sta, ac: usize, now: SimTime, opens: bool) -> bool {
        let k = self.agreement(s, peer, ac);
        let tx = self.stations[s].rates[peer_slot(s, peer)].choose(now);
        let resp = response_rate(&tx, self.cfg.response_vs_data_rate);
        let txop = self.stations[s].txop.expect("a PSDU is sent inside a TXOP");
        let budget_ns = if txop.limit_ns > 0 {
            (txop.start + ns(txop.limit_ns)).as_ns().saturating_sub(now.as_ns())
        } else {
            u64::MAX
        };
        let mut limits = Limits {
            max_ampdu_bytes: self.cfg.max_ampdu_bytes,
            budget_ns,
            after_ns: SIFS_NS + non_ht_ppdu_ns(resp, BLOCK_ACK_BYTES),
            opens_txop: opens,
        };
        let mut plan = self.plan(s, peer, k, tx, limits);
        let rts = plan.apep_bytes > self.cfg.rts_threshold_bytes;
        if rts {
            limits.after_ns +=
                2 * SIFS_NS + non_ht_ppdu_ns(CONTROL_RATE, RTS_BYTES) + non_ht_ppdu_ns(CONTROL_RATE, CTS_BYTES);
            plan = self.plan(s, peer, k, tx, limits);
        }
        if plan.resent + plan.new == 0 {
            return false;
        }
        self.take_mpdus(s, peer, k, &plan, now);
        if rts {
            self.send_rts(s, peer, k, tx, now);
        } else {
            self.send_data(s, k, tx, now);
        }
        true
    }

    /// Commit `plan`: mark the retransmissions in flight and give the new MSDUs sequence numbers.
    fn take_mpdus(&mut self, s: Sta, peer: Sta, k: u32, plan: &Plan, now: SimTime) {
        let mut sns = std::mem::take(&mut self.stations[s].psdu_sns);
        sns.clear();
        let a = &mut self.agreements[k as usize];
        let before = a.orig.held();
        sns.extend(a.orig.retransmissions().take(plan.resent).map(|m| m.sn));
        for &sn in &sns {
            a.orig.resend(sn);
        }
        let (ac, slot) = (a.ac.index(), peer_slot(s, peer));
        for _ in 0..plan.new {
            let m = self.stations[s].queues[ac].pop(slot).expect("planned from the queue");
            sns.push(self.agreements[k as usize].orig.assign(m.id, m.ip_bytes, m.queued_at));
        }
        self.stations[s].psdu_sns = sns;
        self.stations[s].psdu_apep_bytes = plan.apep_bytes;
        self.sync_held(k, before);
        self.note_queue(s, peer, now);
    }

    /// The duration of the data PPDU station `s` has planned, and of its acknowledgement.
    fn data_and_response_ns(&self, s: Sta, tx: &TxVector) -> (u64, u64) {
        let st = &self.stations[s];
        let resp = response_rate(tx, self.cfg.response_vs_data_rate);
        let resp_bytes = if st.psdu_sns.len() == 1 { ACK_BYTES } else { BLOCK_ACK_BYTES };
        (vht_ppdu_ns(tx, st.psdu_apep_bytes, self.cfg.fec, self.cfg.sig_b), non_ht_ppdu_ns(resp, resp_bytes))
    }

    fn send_rts(&mut self, s: Sta, peer: Sta, k: u32, tx: TxVector, now: SimTime) {
        let rts_ns = non_ht_ppdu_ns(CONTROL_RATE, RTS_BYTES);
        let cts_ns = non_ht_ppdu_ns(CONTROL_RATE, CTS_BYTES);
        let (data_ns, resp_ns) = self.data_and_response_ns(s, &tx);
        let end = now + ns(rts_ns);
        let nav_end = end + ns(3 * SIFS_NS + cts_ns + data_ns + resp_ns);
        self.start_control(s, Frame::Rts { ra: peer }, CONTROL_RATE, now, rts_ns, nav_end);
        self.await_response(s, Exchange::AwaitCts { agreement: k, tx, deadline: response_timeout(end) });
    }

    /// Send the PSDU planned in `s.psdu_sns` under agreement `k` at `tx`.
    pub(super) fn send_data(&mut self, s: Sta, k: u32, tx: TxVector, now: SimTime) {
        let (data_ns, resp_ns) = self.data_and_response_ns(s, &tx);
        let end = now + ns(data_ns);
        let header_end = now + ns(vht_preamble_ns(tx.nss, self.cfg.sig_b));
        let ra = self.agreements[k as usize].rx;
        let normal_ack = self.stations[s].psdu_sns.len() == 1;
        let mut mpdus = self.air.spare_mpdus();
        self.lay_out_mpdus(s, k, &tx, header_end, end, &mut mpdus);
        let resent = self.stations[s]
            .psdu_sns
            .iter()
            .filter(|&&sn| self.agreements[k as usize].orig.get(sn).is_some_and(|m| m.tries > 1))
            .count() as u64;
        let (n, apep) = (mpdus.len() as u64, u64::from(self.stations[s].psdu_apep_bytes));
        self.start_ppdu(
            Ppdu {
                tx: s,
                start: now,
                end,
                header_end,
                frame: Frame::Data { ra, agreement: k, normal_ack },
                mode: Mode::Vht(tx),
                nav_end: end + ns(SIFS_NS + resp_ns),
                mpdus,
                ended: false,
            },
            now,
        );
        self.await_response(s, Exchange::AwaitAck { agreement: k, tx, normal_ack, deadline: response_timeout(end) });
        let x = self.link_slot(s, ra, now);
        x.ppdus += 1;
        x.mcs_sum += u64::from(tx.mcs);
        x.mpdus_sum += n;
        x.ampdu_bytes_sum += apep;
        x.retries += resent;
        self.add_airtime(s, ra, now, end);
    }

    /// Where each MPDU of the PSDU lies in the data field (its share of the bits after SERVICE).
    fn lay_out_mpdus(&self, s: Sta, k: u32, tx: &TxVector, header_end: SimTime, end: SimTime, out: &mut Vec<AirMpdu>) {
        let orig = &self.agreements[k as usize].orig;
        let payload_ns = (end - header_end).as_ns() as f64;
        let total_bits = f64::from(self.stations[s].psdu_apep_bytes) * 8.0;
        let mut offset_bits = 0.0;
        let _ = tx;
        for &sn in &self.stations[s].psdu_sns {
            let bytes = ampdu_subframe_bytes(mpdu_bytes(orig.get(sn).expect("planned MPDU").ip_bytes));
            let at = |bits: f64| header_end + ns((payload_ns * bits / total_bits) as u64);
            let next = offset_bits + f64::from(bytes) * 8.0;
            out.push(AirMpdu { sn, bytes, start: at(offset_bits), end: at(next).min(end) });
            offset_bits = next;
        }
    }

    fn send_bar(&mut self, s: Sta, k: u32, now: SimTime) {
        let bar_ns = non_ht_ppdu_ns(CONTROL_RATE, BLOCK_ACK_REQ_BYTES);
        let ba_ns = non_ht_ppdu_ns(CONTROL_RATE, BLOCK_ACK_BYTES);
        let a = &self.agreements[k as usize];
        let frame = Frame::BlockAckReq { ra: a.rx, agreement: k, ssn: a.orig.win_start() };
        let end = now + ns(bar_ns);
        self.start_control(s, frame, CONTROL_RATE, now, bar_ns, end + ns(SIFS_NS + ba_ns));
        self.await_response(s, Exchange::AwaitBarAck { agreement: k, deadline: response_timeout(end) });
    }

    /// A non-HT control frame from `s`.
    fn start_control(&mut self, s: Sta, frame: Frame, rate: LegacyRate, now: SimTime, dur_ns: u64, nav_end: SimTime) {
        let ppdu = Ppdu {
            tx: s,
            start: now,
            end: now + ns(dur_ns),
            header_end: now + ns(NON_HT_HEADER_NS),
            frame,
            mode: Mode::NonHt(rate),
            nav_end,
            mpdus: Vec::new(),
            ended: false,
        };
        self.start_ppdu(ppdu, now);
    }

    fn await_response(&mut self, s: Sta, exchange: Exchange) {
        let deadline = match exchange {
            Exchange::AwaitCts { deadline, .. }
            | Exchange::AwaitAck { deadline, .. }
            | Exchange::AwaitBarAck { deadline, .. } => deadline,
            Exchange::Idle => return,
        };
        let st = &mut self.stations[s];
        st.exchange = exchange;
        st.exchange_seq = st.exchange_seq.wrapping_add(1);
        let seq = st.exchange_seq;
        self.schedule(deadline, Ev::Timeout(s as u16, seq));
    }

    /// Put a PPDU on the air: its sender transmits, every station that hears it above the CCA
    /// threshold finds the medium busy until it ends.
    pub(super) fn start_ppdu(&mut self, ppdu: Ppdu, now: SimTime) -> u32 {
        self.links.update(now);
        let (tx, end) = (ppdu.tx, ppdu.end);
        let id = self.air.alloc(ppdu);
        let st = &mut self.stations[tx];
        st.phy = Phy::Tx(id);
        st.medium_busy(now, end);
        for r in (0..self.stations.len()).filter(|&r| r != tx) {
            let p_mw = self.links.rx_mw(tx, r);
            // An idle receiver detects the preamble's energy at the CCA sensitivity; one already
            // busy with another PPDU only by energy detection.
            let threshold = if self.stations[r].phy == Phy::Idle { self.cfg.cca_mw } else { self.cfg.ed_mw };
            if p_mw >= threshold {
                self.stations[r].medium_busy(now, end);
            }
        }
        self.scratch.new_ppdus.push(id);
        self.schedule(end, Ev::PpduEnd(id));
        id
    }

    /// The owed response of station `s` goes on the air.
    pub(super) fn send_response(&mut self, s: Sta, now: SimTime) {
        let Some(resp) = self.stations[s].response.take() else { return };
        match resp {
            Response::Ack { ra, snr_db, rate } => {
                let d = non_ht_ppdu_ns(rate, ACK_BYTES);
                self.start_control(s, Frame::Ack { ra, snr_db }, rate, now, d, now + ns(d));
            }
            Response::BlockAck { ra, agreement, snr_db, rate } => {
                let (ssn, bitmap) = self.agreements[agreement as usize].recip.scoreboard();
                let d = non_ht_ppdu_ns(rate, BLOCK_ACK_BYTES);
                self.start_control(s, Frame::BlockAck { ra, ssn, bitmap, snr_db }, rate, now, d, now + ns(d));
            }
            Response::Cts { ra, nav_end, rate } => {
                let d = non_ht_ppdu_ns(rate, CTS_BYTES);
                self.start_control(s, Frame::Cts { ra }, rate, now, d, nav_end);
            }
        }
    }

    /// SIFS after its own exchange's last frame: the data after a CTS, or the TXOP's next PSDU.
    pub(super) fn follow_up(&mut self, s: Sta, now: SimTime) {
        match self.stations[s].follow_up.take() {
            Some(FollowUp::DataAfterCts { agreement, tx }) => self.send_data(s, agreement, tx, now),
            Some(FollowUp::ContinueTxop) => {
                let ac = self.stations[s].txop.expect("continuing a TXOP").ac.index();
                self.expire(s, ac, now);
                if !self.send_next(s, ac, now, false) {
                    self.end_txop(s, true);
                }
            }
            None => {}
        }
    }

    /// The response timeout of exchange `seq` of station `s`.
    pub(super) fn on_timeout(&mut self, s: Sta, seq: u32, now: SimTime) {
        let st = &self.stations[s];
        if st.exchange_seq != seq || st.exchange == Exchange::Idle {
            return;
        }
        let deadline = match st.exchange {
            Exchange::AwaitCts { deadline, .. }
            | Exchange::AwaitAck { deadline, .. }
            | Exchange::AwaitBarAck { deadline, .. } => deadline,
            Exchange::Idle => return,
        };
        // A PPDU that started within the timeout is awaited to its end (§10.3.2.11: PHY-RXSTART in time).
        if let Phy::Rx(p) = st.phy {
            if self.air.get(p).start <= deadline {
                return;
            }
        }
        self.fail_exchange(s, now);
    }

    /// No valid response came: every MPDU of the PSDU goes again, the window doubles.
    pub(super) fn fail_exchange(&mut self, s: Sta, now: SimTime) {
        let exchange = std::mem::replace(&mut self.stations[s].exchange, Exchange::Idle);
        let sns = std::mem::take(&mut self.stations[s].psdu_sns);
        match exchange {
            Exchange::AwaitAck { agreement, tx, .. } => {
                let before = self.agreements[agreement as usize].orig.held();
                self.agreements[agreement as usize].orig.on_no_response(&sns);
                self.sync_held(agreement, before);
                let ra = self.agreements[agreement as usize].rx;
                self.link_slot(s, ra, now).ba_timeouts += 1;
                let report = TxReport { tx, mpdus: sns.len() as u32, acked: 0, rx_snr_db: None };
                self.stations[s].rates[peer_slot(s, ra)].report(now, &report);
            }
            Exchange::AwaitCts { agreement, .. } => {
                let before = self.agreements[agreement as usize].orig.held();
                self.agreements[agreement as usize].orig.on_no_response(&sns);
                self.sync_held(agreement, before);
            }
            Exchange::AwaitBarAck { .. } | Exchange::Idle => {}
        }
        self.stations[s].psdu_sns = sns;
        self.end_txop(s, false);
    }

    /// Station `s` received `frame`, addressed to it, as the response its exchange awaited (or not).
    pub(super) fn on_response(&mut self, s: Sta, frame: Frame, now: SimTime) {
        match (self.stations[s].exchange, frame) {
            (Exchange::AwaitAck { agreement, tx, normal_ack: true, .. }, Frame::Ack { snr_db, .. }) => {
                self.data_acknowledged(s, agreement, tx, None, snr_db, now);
            }
            (
                Exchange::AwaitAck { agreement, tx, normal_ack: false, .. },
                Frame::BlockAck { ssn, bitmap, snr_db, .. },
            ) => {
                self.data_acknowledged(s, agreement, tx, Some((ssn, bitmap)), snr_db, now);
            }
            (Exchange::AwaitCts { agreement, tx, .. }, Frame::Cts { .. }) => {
                let st = &mut self.stations[s];
                st.exchange = Exchange::Idle;
                st.follow_up = Some(FollowUp::DataAfterCts { agreement, tx });
                self.schedule(now + ns(SIFS_NS), Ev::FollowUp(s as u16));
            }
            (Exchange::AwaitBarAck { agreement, .. }, Frame::BlockAck { .. }) => {
                self.agreements[agreement as usize].orig.bar_needed = false;
                self.reflag(agreement);
                self.stations[s].exchange = Exchange::Idle;
                self.continue_or_end(s, now);
            }
            (Exchange::Idle, _) => {}
            _ => self.fail_exchange(s, now),
        }
    }

    /// The PSDU's Ack or BlockAck came back.
    fn data_acknowledged(&mut self, s: Sta, k: u32, tx: TxVector, ba: Option<(u16, u64)>, snr_db: f64, now: SimTime) {
        let sns = std::mem::take(&mut self.stations[s].psdu_sns);
        let mut outcomes = std::mem::take(&mut self.scratch.outcomes);
        let a = &mut self.agreements[k as usize];
        let before = a.orig.held();
        match ba {
            Some((ssn, bitmap)) => a.orig.on_block_ack(&sns, ssn, bitmap, &mut outcomes),
            None => {
                outcomes.clear();
                outcomes.push(a.orig.on_ack(sns[0]));
            }
        }
        let ra = a.rx;
        let (mut acked, mut lost) = (0u32, 0u64);
        for o in &outcomes {
            match *o {
                AckOutcome::Acked => acked += 1,
                AckOutcome::Skipped(id) => {
                    self.dropped.push(id);
                    lost += 1;
                }
                AckOutcome::Missing => {}
            }
        }
        self.sync_held(k, before);
        self.link_slot(s, ra, now).mpdu_losses += lost;
        let report = TxReport { tx, mpdus: sns.len() as u32, acked, rx_snr_db: Some(snr_db) };
        self.stations[s].rates[peer_slot(s, ra)].report(now, &report);
        self.scratch.outcomes = outcomes;
        self.stations[s].psdu_sns = sns;
        let st = &mut self.stations[s];
        st.exchange = Exchange::Idle;
        let ac = st.txop.expect("an exchange inside a TXOP").ac.index();
        st.edca[ac].cw = st.edca[ac].params.cw_min;
        self.continue_or_end(s, now);
    }

    /// Another exchange if the TXOP limit leaves room and there is something to send, else end it.
    fn continue_or_end(&mut self, s: Sta, now: SimTime) {
        let txop = self.stations[s].txop.expect("an exchange inside a TXOP");
        let ac = txop.ac.index();
        let room = txop.limit_ns > 0 && now + ns(SIFS_NS) < txop.start + ns(txop.limit_ns);
        if room && self.has_frames(s, ac) {
            self.stations[s].follow_up = Some(FollowUp::ContinueTxop);
            self.schedule(now + ns(SIFS_NS), Ev::FollowUp(s as u16));
        } else {
            self.end_txop(s, true);
        }
    }

    /// The TXOP is over: after success the window resets and the post-backoff starts; after a
    /// failure it doubles (§10.23.2.2).
    pub(super) fn end_txop(&mut self, s: Sta, success: bool) {
        let st = &mut self.stations[s];
        let Some(txop) = st.txop.take() else { return };
        let ac = txop.ac.index();
        let rng = &mut st.rng;
        if success {
            st.edca[ac].on_success(rng);
        } else {
            st.edca[ac].on_failure(rng);
        }
    }
}
