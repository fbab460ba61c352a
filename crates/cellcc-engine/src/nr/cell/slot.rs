//! The NR cell's occasions: slot tasks (CSI, SRS, SR), uplink grants (K2), downlink and uplink
//! transmissions with the EESM BLER draw, and the HARQ feedback and reports as they arrive
//! (TS 38.321 §5.3, §5.4; TS 38.213 §9.2.3; TS 38.214 §5.2.2, §6.1.2.1).

use super::ue::{Feedback, NrTb, Payload};
use super::{prbs, NrCell, Occ, Pusch, Report, CQI_BEFORE_FIRST_REPORT};
use crate::lte::cell::CellOutput;
use crate::lte::mac::harq::Feedback as HarqFeedback;
use crate::lte::sap::{LinkDir, TbOutcome, TxOpportunity, UeIndex};
use crate::lte::sinr::PuschGrant;
use crate::nr::frame::Occasion;
use crate::nr::mac::rbg::RbgMask;
use crate::nr::mac::scheduler::NrDemand;
use crate::nr::mac::{subheader_bytes, SHORT_BSR_BYTES, SUBHEADER_LONG_BYTES};
use crate::nr::phy::{self, Allocation, HarqHistory};
use crate::nr::rlc::NrRlc;
use crate::sim::SimTime;

impl NrCell {
    /// Event `idx` of `slot` (its time is now).
    pub(super) fn run_event(&mut self, slot: u64, idx: usize) {
        let (_, occ) = self.events_of(slot)[idx];
        if self.tasks_done != Some(slot) {
            self.tasks_done = Some(slot);
            self.slot_tasks(slot);
        }
        match occ {
            Occ::Dl(i) => {
                if self.grants_done != Some(slot) {
                    self.grants_done = Some(slot);
                    self.uplink_grants(slot);
                }
                self.downlink_occasion(slot, i);
            }
            Occ::Ul(i) => self.uplink_occasion(slot, i),
        }
    }

    /// The first event of a slot: sample the buffers, measure CSI (reported on the next PUCCH)
    /// and SRS, trigger and send SRs, and set the capacity rates.
    fn slot_tasks(&mut self, slot: u64) {
        let now = self.now;
        let plan = self.frame.plan(slot).clone();
        for i in 0..self.ues.len() {
            self.ues[i].sample(now);
            let (_, last) = self.cqi[i];
            if !plan.dl.is_empty() && last.is_none_or(|l| slot - l >= self.csi_period_slots) {
                self.sinr.per_rb_sinr_lin(NrCell::ue_index(i), LinkDir::Downlink, now, &mut self.sinr_lin);
                let cqi = self.dl_amc.cqi(&self.sinr_lin);
                // TS 38.214 §5.2.1.4: the report rides the first PUCCH at least one slot after the CSI-RS.
                let report_slot = self.frame.next_pucch_slot(slot + 1);
                self.push_report(SimTime(self.frame.mu.slot_start_ns(report_slot + 1)), Report::Cqi(i, cqi));
                self.cqi[i].1 = Some(slot);
            }
            if plan.pucch && self.ul_est[i].last_srs_slot.is_none_or(|l| slot - l >= self.srs_period_slots) {
                self.sinr.per_rb_sinr_lin(NrCell::ue_index(i), LinkDir::Uplink, now, &mut self.sinr_lin);
                let est = &mut self.ul_est[i];
                est.sinr_lin.copy_from_slice(&self.sinr_lin);
                est.measured = true;
                est.band_mcs = None;
                est.last_srs_slot = Some(slot);
            }
            let ul_bytes = self.ues[i].ue_rlc.buffer_status(now).total_bytes();
            self.uplink.ue_buffer(i, ul_bytes);
            if plan.pucch && self.uplink.sr_sent(i, slot) {
                self.push_report(SimTime(self.frame.mu.slot_start_ns(slot + 1)), Report::Sr(i));
            }
            let dl = self.dl_mcs(i);
            self.capacity_set(i, LinkDir::Downlink, slot, dl);
            let ul = self.ul_band_mcs(i);
            self.capacity_set(i, LinkDir::Uplink, slot, Some(ul));
        }
    }

    fn push_report(&mut self, at: SimTime, r: Report) {
        let pos = self.reports.partition_point(|(t, _)| *t <= at);
        self.reports.insert(pos, (at, r));
    }

    /// Reports read by now.
    pub(super) fn reports(&mut self, now: SimTime) {
        while self.reports.front().is_some_and(|(t, _)| *t <= now) {
            match self.reports.pop_front().expect("front checked").1 {
                Report::Sr(i) => self.uplink.sr_received(i),
                Report::Cqi(i, cqi) => {
                    self.cqi[i].0 = Some(cqi);
                    self.ues[i].dl.slots.at(now).cqi = Some(cqi);
                }
            }
        }
    }

    /// UE `i`'s downlink MCS from its CQI and the outer loop; None when out of range (CQI 0).
    fn dl_mcs(&self, i: usize) -> Option<u8> {
        let cqi = self.cqi[i].0.unwrap_or(CQI_BEFORE_FIRST_REPORT);
        let offset = self.olla.map_or(0.0, |_| self.ues[i].dl.olla.offset_db());
        (cqi > 0).then(|| self.dl_amc.mcs_for_cqi(cqi, offset))
    }

    /// UE `i`'s uplink MCS over the whole band from the gNB's estimate and the outer loop
    /// (MCS 0 before any measurement, or where not even MCS 0 meets the target).
    fn ul_band_mcs(&mut self, i: usize) -> u8 {
        let offset = self.olla.map_or(0.0, |_| self.ues[i].ul.olla.offset_db());
        match self.ul_est[i].band_mcs {
            Some((at, mcs)) if at == offset => mcs,
            _ => {
                let mcs = self.ul_mcs_on(i, self.layout.all());
                if self.ul_est[i].measured {
                    self.ul_est[i].band_mcs = Some((offset, mcs));
                }
                mcs
            }
        }
    }

    fn ul_mcs_on(&self, i: usize, rbgs: RbgMask) -> u8 {
        let est = &self.ul_est[i];
        if !est.measured {
            return 0;
        }
        let offset = self.olla.map_or(0.0, |_| self.ues[i].ul.olla.offset_db());
        self.ul_amc.mcs_on(&est.sinr_lin, prbs(self.layout, rbgs), offset).unwrap_or(0)
    }

    // ---- feedback ------------------------------------------------------------------------

    /// HARQ feedback due by now, both directions: free the process, queue a retransmission, or give
    /// the TB up; a first transmission's outcome moves the outer loop.
    pub(super) fn feedback(&mut self, now: SimTime, out: &mut CellOutput) {
        let olla = self.olla;
        for (ue, due) in self.ues.iter_mut().zip(&self.ue_due) {
            if due.is_none_or(|t| t > now) {
                continue;
            }
            for dir in [LinkDir::Downlink, LinkDir::Uplink] {
                while let Some(Feedback { harq, outcome, first_tx, .. }) = ue.link(dir).pop_feedback(now) {
                    let link = ue.link(dir);
                    if first_tx {
                        let slot = link.slots.at(now);
                        slot.first_tx += 1;
                        slot.first_tx_nacks += u64::from(outcome != TbOutcome::Decoded);
                        if let Some(cfg) = &olla {
                            link.olla.first_transmission(cfg, outcome == TbOutcome::Decoded);
                        }
                    }
                    if let HarqFeedback::ResidualLoss(payload) = link.harq.on_feedback(harq, outcome) {
                        ue.link(dir).slots.at(now).harq_residual_losses += 1;
                        ue.lose_tb(now, dir, payload, out);
                    }
                }
            }
        }
    }

    // ---- downlink ------------------------------------------------------------------------

    /// A PDSCH occasion: retransmissions on their own RBGs first (one TB per UE), then new TBs.
    fn downlink_occasion(&mut self, slot: u64, i: usize) {
        let occ = self.frame.plan(slot).dl[i];
        let end = SimTime(self.frame.at_ns(slot, occ.end_symbol()));
        let mut busy = RbgMask::default();
        self.retx_ue.fill(false);
        for u in 0..self.ues.len() {
            let pick = self.ues[u]
                .dl
                .harq
                .pending_retransmissions()
                .find(|a| a.symbols <= occ.symbols && !a.rbgs.overlaps(busy));
            if let Some(a) = pick {
                busy = busy.union(a.rbgs);
                self.retx_ue[u] = true;
                let (payload, history) = self.ues[u].dl.harq.take_for_retransmission(a.harq);
                self.send(slot, end, a, payload, history);
            }
        }
        self.demand.clear();
        for u in 0..self.ues.len() {
            let buffered = self.ues[u].gnb_rlc.buffer_status(self.now).total_bytes();
            let mcs = self.dl_mcs(u);
            self.demand.push(NrDemand {
                ue: NrCell::ue_index(u),
                buffered_bytes: if mcs.is_some() { buffered } else { 0 },
                mcs: mcs.unwrap_or(0),
                overhead_bytes: SUBHEADER_LONG_BYTES,
                has_free_harq: !self.retx_ue[u] && self.ues[u].dl.harq.free_process().is_some(),
            });
        }
        self.schedule_new(LinkDir::Downlink, slot, occ, end, busy);
    }

    /// The scheduler on the RBGs `busy` leaves, then each new TB goes out.
    fn schedule_new(&mut self, dir: LinkDir, slot: u64, occ: Occasion, end: SimTime, busy: RbgMask) {
        let free = RbgMask(self.layout.all().0 & !busy.0);
        let start = SimTime(self.frame.at_ns(slot, occ.first_symbol));
        let duration_s = (end - start).as_secs_f64();
        let mut new_tbs = std::mem::take(&mut self.new_tbs);
        new_tbs.clear();
        let (table, dmrs_re, x_overhead) =
            (self.table, self.dmrs_re[usize::from(dir == LinkDir::Uplink)], self.x_overhead);
        let tbs = move |m: u8, n: u32| {
            let a = Allocation {
                n_prb: n,
                symbols: occ.symbols,
                dmrs_re_per_prb: dmrs_re * occ.dmrs_symbols,
                overhead_re_per_prb: x_overhead,
                layers: 1,
            };
            phy::tbs_bits(table.entry(m), &a)
        };
        let sched = match dir {
            LinkDir::Downlink => &mut self.dl_sched,
            LinkDir::Uplink => &mut self.ul_sched,
        };
        sched.schedule(free, &self.demand, duration_s, &tbs, &mut new_tbs);
        for g in &new_tbs {
            let u = g.ue.index();
            match dir {
                LinkDir::Downlink => {
                    let harq = self.ues[u].dl.harq.free_process().expect("the demand had a free process");
                    let tb = NrTb {
                        ue: g.ue,
                        dir,
                        rbgs: g.rbgs,
                        n_prb: g.n_prb,
                        symbols: occ.symbols,
                        mcs: g.mcs,
                        tbs_bits: g.tbs_bits,
                        harq,
                        retx: 0,
                    };
                    let offset = self.ues[u].dl.olla.offset_db();
                    self.ues[u].dl.slots.at(self.now).olla_offset_db_sum += offset;
                    let ue = &mut self.ues[u];
                    let payload = fill(&mut ue.gnb_rlc, tb.tbs_bits / 8, 0, self.now, ue.dl.spare_payloads.pop());
                    self.send(slot, end, tb, payload, HarqHistory::EMPTY);
                }
                LinkDir::Uplink => self.grant(slot, occ, end, g.ue, g.rbgs),
            }
        }
        self.new_tbs = new_tbs;
    }

    /// One downlink TB on the air: EESM BLER over its PRBs at this instant's row, then HARQ.
    fn send(&mut self, slot: u64, end: SimTime, tb: NrTb, payload: Payload, history: HarqHistory) {
        let now = self.now;
        self.sinr.per_rb_sinr_lin(tb.ue, LinkDir::Downlink, now, &mut self.sinr_lin);
        let d = phy::decode(self.table, tb.mcs, tb.tbs_bits, &self.sinr_lin, prbs(self.layout, tb.rbgs), history);
        let ack_at = SimTime(self.frame.mu.slot_start_ns(self.frame.harq_ack_slot(slot) + 1));
        self.finish_tb(tb, payload, d, end, ack_at);
    }

    /// Draw the TB's fate, count it, and queue its arrival and its feedback; true if decoded.
    fn finish_tb(&mut self, tb: NrTb, payload: Payload, d: phy::TbDecode, end: SimTime, feedback_at: SimTime) -> bool {
        let now = self.now;
        self.touched[tb.ue.index()] = true;
        let link = self.ues[tb.ue.index()].link(tb.dir);
        let decoded = link.rng.uniform() >= d.bler;
        let s = link.slots.at(now);
        s.tbs += 1;
        s.mcs_sum += u64::from(tb.mcs);
        s.sinr_eff_db_sum += d.sinr_eff_db;
        s.prbs += u64::from(tb.n_prb);
        s.symbols += u64::from(tb.symbols);
        s.harq_retx += u64::from(tb.retx > 0);
        let outcome = if decoded {
            s.tb_bits_decoded += u64::from(tb.tbs_bits);
            link.arrivals.push_back((end, payload));
            link.harq.transmitted(&tb, Payload::new(), d.history);
            TbOutcome::Decoded
        } else {
            link.harq.transmitted(&tb, payload, d.history);
            TbOutcome::Corrupted
        };
        link.feedback.push_back(Feedback { at: feedback_at, harq: tb.harq, outcome, first_tx: tb.retx == 0 });
        decoded
    }

    // ---- uplink --------------------------------------------------------------------------

    /// The grants this slot's PDCCH carries, for the PUSCH slots it serves (slot + K2).
    fn uplink_grants(&mut self, slot: u64) {
        let mut targets = std::mem::take(&mut self.granted_slots);
        targets.clear();
        targets.extend(self.frame.granted_pusch_slots(slot));
        for &u in &targets {
            for k in 0..self.frame.plan(u).ul.len() {
                self.grant_occasion(u, k);
            }
        }
        self.granted_slots = targets;
    }

    /// One PUSCH occasion's grants: retransmissions first (asynchronous, adaptive HARQ on the same
    /// RBGs), then new grants from the gNB's belief of each buffer.
    fn grant_occasion(&mut self, u: u64, k: usize) {
        let occ = self.frame.plan(u).ul[k];
        let (at, end) =
            (SimTime(self.frame.at_ns(u, occ.first_symbol)), SimTime(self.frame.at_ns(u, occ.end_symbol())));
        let mut busy = RbgMask::default();
        self.retx_ue.fill(false);
        for i in 0..self.ues.len() {
            let pick = self.ues[i]
                .ul
                .harq
                .pending_retransmissions()
                .find(|a| a.symbols <= occ.symbols && !a.rbgs.overlaps(busy));
            if let Some(a) = pick {
                busy = busy.union(a.rbgs);
                self.retx_ue[i] = true;
                let (payload, history) = self.ues[i].ul.harq.take_for_retransmission(a.harq);
                self.pusch.push_back(Pusch { at, end, tb: a, retx: Some((payload, history)) });
            }
        }
        self.demand.clear();
        for i in 0..self.ues.len() {
            let free = self.ues[i].ul.harq.idle_processes().any(|h| self.ul_reserved[i] & (1 << h.0) == 0);
            let mcs = self.ul_band_mcs(i);
            self.demand.push(NrDemand {
                ue: NrCell::ue_index(i),
                buffered_bytes: self.uplink.reported_bytes(i),
                mcs,
                overhead_bytes: SUBHEADER_LONG_BYTES + SHORT_BSR_BYTES,
                has_free_harq: free && !self.retx_ue[i],
            });
        }
        self.schedule_new(LinkDir::Uplink, u, occ, end, busy);
    }

    /// A new uplink grant on `rbgs`: its MCS from the gNB's estimate over those PRBs, a reserved
    /// process, and a PUSCH waiting for its occasion.
    fn grant(&mut self, u: u64, occ: Occasion, end: SimTime, ue: UeIndex, rbgs: RbgMask) {
        let i = ue.index();
        let at = SimTime(self.frame.at_ns(u, occ.first_symbol));
        let mcs = self.ul_mcs_on(i, rbgs);
        let n_prb = self.layout.prb_count(rbgs);
        let tbs_bits = self.tbs(LinkDir::Uplink, mcs, n_prb, occ.symbols, occ.dmrs_symbols);
        let reserved = self.ul_reserved[i];
        let harq = self.ues[i]
            .ul
            .harq
            .idle_processes()
            .find(|h| reserved & (1 << h.0) == 0)
            .expect("demand had a free process");
        self.ul_reserved[i] |= 1 << harq.0;
        self.uplink.granted(i, tbs_bits);
        let tb = NrTb { ue, dir: LinkDir::Uplink, rbgs, n_prb, symbols: occ.symbols, mcs, tbs_bits, harq, retx: 0 };
        // Grants are issued in slot order, so the queue stays in time order.
        debug_assert!(self.pusch.back().is_none_or(|p| p.at <= at));
        self.pusch.push_back(Pusch { at, end, tb, retx: None });
    }

    /// A PUSCH occasion: the TBs granted for it go on the air.
    fn uplink_occasion(&mut self, slot: u64, i: usize) {
        let occ = self.frame.plan(slot).ul[i];
        let at = SimTime(self.frame.at_ns(slot, occ.first_symbol));
        while self.pusch.front().is_some_and(|p| p.at <= at) {
            let p = self.pusch.pop_front().expect("front checked");
            self.transmit_pusch(p);
        }
    }

    /// One PUSCH: a new TB is filled now from the UE's RLC with a BSR of what is left; the gNB
    /// measures its DM-RS and decodes it at the PUSCH's own power (the SRS row shifted).
    fn transmit_pusch(&mut self, p: Pusch) {
        let now = self.now;
        let i = p.tb.ue.index();
        let (payload, history, bsr) = match p.retx {
            Some((payload, history)) => (payload, history, None),
            None => {
                self.ul_reserved[i] &= !(1 << p.tb.harq.0);
                let offset = self.ues[i].ul.olla.offset_db();
                self.ues[i].ul.slots.at(now).olla_offset_db_sum += offset;
                let ue = &mut self.ues[i];
                let payload = fill(&mut ue.ue_rlc, p.tb.tbs_bits / 8, SHORT_BSR_BYTES, now, ue.ul.spare_payloads.pop());
                let left = self.ues[i].ue_rlc.buffer_status(now).total_bytes();
                (payload, HarqHistory::EMPTY, Some(left))
            }
        };
        if p.tb.retx == 0 {
            self.uplink.used(i, p.tb.tbs_bits);
        }
        self.sinr.per_rb_sinr_lin(p.tb.ue, LinkDir::Uplink, now, &mut self.sinr_lin);
        let est = &mut self.ul_est[i];
        for k in prbs(self.layout, p.tb.rbgs) {
            est.sinr_lin[k] = self.sinr_lin[k];
        }
        est.measured = true;
        est.band_mcs = None;
        let gain = self.sinr.pusch_gain_lin(p.tb.ue, now, PuschGrant { prbs: p.tb.n_prb });
        if gain != 1.0 {
            self.sinr_lin.iter_mut().for_each(|x| *x *= gain);
        }
        let d = phy::decode(self.table, p.tb.mcs, p.tb.tbs_bits, &self.sinr_lin, prbs(self.layout, p.tb.rbgs), history);
        let decoded = self.finish_tb(p.tb, payload, d, p.end, p.end);
        if let (Some(left), true) = (bsr, decoded) {
            self.uplink.bsr_received(i, left);
        }
    }
}

/// Ask the transmitting RLC entity for PDUs until a TB of `bytes` is full; every PDU costs a MAC
/// subheader (TS 38.321 §6.1.2), and `ce_bytes` go to a MAC CE (an uplink BSR). The TB's PDUs
/// go into `spare` (an emptied payload of the link's, whose capacity spares an allocation).
fn fill(rlc: &mut NrRlc, bytes: u32, ce_bytes: u32, now: SimTime, spare: Option<Payload>) -> Payload {
    let mut room = bytes.saturating_sub(ce_bytes);
    let mut payload = spare.unwrap_or_default();
    while room > SUBHEADER_LONG_BYTES {
        let Some(pdu) = rlc.notify_tx_opportunity(TxOpportunity { bytes: room - SUBHEADER_LONG_BYTES, now }) else {
            break;
        };
        room = room.saturating_sub(pdu.bytes() + subheader_bytes(pdu.bytes()));
        payload.push(pdu);
    }
    payload
}
