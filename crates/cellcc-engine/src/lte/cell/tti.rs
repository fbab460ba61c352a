//! The cell's 1 ms pipeline: receptions, HARQ feedback, CQI, then downlink
//! and uplink scheduling and transmission (TS 36.321 §5.3, §5.4; TS 36.213 §7, §8).

use super::ue::{tti_end, TbPayload, UeContext, HARQ_FEEDBACK_DELAY};
use super::{Cell, CellOutput};
use crate::lte::mac::harq::Feedback;
use crate::lte::mac::scheduler::rbg::rbg_size;
use crate::lte::mac::scheduler::{NewTb, Scheduler, UeDemand};
use crate::lte::mac::uplink::UplinkRequests;
use crate::lte::mac::{subheader_bytes, BSR_CE_BYTES, MAX_SUBHEADER_BYTES};
use crate::lte::phy::{self, CqiReport, HarqHistory, UplinkSounding};
use crate::lte::sap::{LinkDir, RbMask, TbAssignment, TbOutcome, TxOpportunity, UeIndex};
use crate::lte::sinr::PuschGrant;
use crate::scenario::{CellSpec, DlCqiMode};
use crate::sim::{SimDuration, SimTime, NS_PER_MS};

/// CQI assumed before a UE's first report reaches the eNB: the lowest
/// in-range CQI, as ns-3's schedulers do without feedback (`m_cqiTimersThreshold` expiry → CQI 1).
const CQI_BEFORE_FIRST_REPORT: u8 = 1;

/// The MAC state shared by the cell's UEs, with reused buffers.
pub(super) struct Macs {
    dl: Scheduler,
    ul: Scheduler,
    uplink: UplinkRequests,
    /// Per UE: the eNB's uplink measurement from its SRS and PUSCH.
    sounding: Vec<UplinkSounding>,
    /// An uplink retransmission happens a fixed time after its NACK (synchronous HARQ,
    /// TS 36.213 §8.0: PHICH at n+4, PUSCH retransmission at n+8).
    ul_retx_delay: SimDuration,
    demand: Vec<UeDemand>,
    new_tbs: Vec<NewTb>,
    retx: Vec<TbAssignment>,
}

impl Macs {
    pub fn new(spec: &CellSpec, n_rbs: u32) -> Self {
        let n = spec.ues.len();
        Macs {
            dl: Scheduler::new(spec.scheduler, LinkDir::Downlink, n_rbs, n)
                .with_pf_time_window_ttis(spec.pf_window_ttis),
            ul: Scheduler::new(spec.scheduler, LinkDir::Uplink, n_rbs, n).with_pf_time_window_ttis(spec.pf_window_ttis),
            uplink: UplinkRequests::new(&spec.uplink, n),
            sounding: (0..n).map(|i| UplinkSounding::new(i, spec.uplink.srs_period_ms, n_rbs as usize)).collect(),
            ul_retx_delay: SimDuration::from_ms(spec.uplink.grant_delay_ms as u64),
            demand: Vec::with_capacity(n),
            new_tbs: Vec::with_capacity(n),
            retx: Vec::with_capacity(n),
        }
    }
}

impl Cell {
    pub(super) fn run_tti(&mut self, now: SimTime, out: &mut CellOutput) {
        for ue in &mut self.ues {
            for dir in [LinkDir::Downlink, LinkDir::Uplink] {
                ue.deliver_arrivals(now, dir, out);
            }
        }
        for i in 0..self.ues.len() {
            for dir in [LinkDir::Downlink, LinkDir::Uplink] {
                self.feedback(i, dir, now, out);
            }
        }
        self.measure_cqi(now);
        self.downlink(now);
        self.uplink(now);
        for ue in &mut self.ues {
            ue.sample(now);
        }
    }

    /// HARQ feedback due now: free the process, queue a retransmission, or
    /// give up on the TB (its SDUs are lost unless RLC AM recovers them).
    fn feedback(&mut self, i: usize, dir: LinkDir, now: SimTime, out: &mut CellOutput) {
        let ul_retx_delay = self.macs.ul_retx_delay;
        let ue = &mut self.ues[i];
        while let Some((harq, outcome)) = ue.link(dir).pop_feedback(now) {
            match ue.link(dir).harq.on_feedback(harq, outcome) {
                Feedback::Acked => {}
                Feedback::Retransmit => {
                    if dir == LinkDir::Uplink {
                        ue.ul.synchronous_retx.push_back((now + ul_retx_delay, harq));
                    }
                }
                Feedback::ResidualLoss(payload) => {
                    ue.link(dir).slots.at(now).harq_residual_losses += 1;
                    ue.lose_tb(now, dir, payload, out);
                }
            }
        }
    }

    /// Each UE measures its downlink and reports a wideband CQI (or, with `dl_mcs_from =
    /// "worst_subband"`, its worst sub-band CQI) every CQI period (TS 36.213 §7.2); the eNB
    /// measures a UE's uplink on its SRS occasions (and on its PUSCH, in [`Self::send`]).
    fn measure_cqi(&mut self, now: SimTime) {
        let period = SimDuration::from_ms(self.cqi.period_ms as u64);
        let delay = SimDuration::from_ms(self.cqi.delay_ms as u64);
        let now_ms = now.as_ns() / NS_PER_MS;
        let dl_mode = self.cqi.dl_mcs_from;
        // Mode 3-0 sub-bands of one RBG, as ns-3 LENA's A30 report (phy::worst_in_range_subband).
        let subband_rbs = rbg_size(self.n_rbs) as usize;
        for (i, ue) in self.ues.iter_mut().enumerate() {
            let ue_index = UeIndex(i as u16);
            if ue.dl.cqi.due(now, period) {
                let id = self.sinr.row_id(ue_index, LinkDir::Downlink, now);
                if !ue.dl.memo.holds(id) {
                    self.sinr.per_rb_sinr_lin(ue_index, LinkDir::Downlink, now, &mut self.sinr_lin);
                    ue.dl.memo.refresh(id, &self.sinr_lin);
                }
                let sinr_lin = &self.sinr_lin;
                let cqi = *ue.dl.memo.cqi.get_or_insert_with(|| match dl_mode {
                    DlCqiMode::Wideband => CqiReport::wideband(phy::wideband_cqi(sinr_lin)),
                    DlCqiMode::WorstSubband => phy::worst_in_range_subband(sinr_lin, subband_rbs),
                });
                ue.dl.cqi.measured(now, cqi, now + delay);
            }
            let sounding = &mut self.macs.sounding[i];
            if sounding.srs_due(now_ms) {
                self.sinr.per_rb_sinr_lin(ue_index, LinkDir::Uplink, now, &mut self.sinr_lin);
                sounding.sounded(now_ms, &self.sinr_lin);
                if let Some(cqi) = sounding.cqi() {
                    ue.ul.cqi.measured(now, CqiReport::wideband(cqi), now + delay);
                }
            }
        }
    }

    /// What each UE has for `dir`, as the eNB knows it, and the capacity sample.
    fn gather_demand(&mut self, dir: LinkDir, now: SimTime) {
        let n_rbs = self.n_rbs;
        let demand = &mut self.macs.demand;
        demand.clear();
        for (i, ue) in self.ues.iter_mut().enumerate() {
            let buffered = match dir {
                LinkDir::Downlink => ue.enb_rlc.buffer_status(now).total_bytes(),
                LinkDir::Uplink => self.macs.uplink.reported_bytes(UeIndex(i as u16)),
            };
            let link = ue.link(dir);
            let report = link.cqi.current(now);
            let usable_cqi = report.map_or(CQI_BEFORE_FIRST_REPORT, |r| r.cqi);
            // Sub-bands reported out of range get no data (worst_subband mode; none otherwise).
            let out_of_range = report.map_or(RbMask::default(), |r| r.out_of_range);
            let mcs = phy::mcs_from_cqi(usable_cqi);
            link.slots.at(now).cqi = report.map(|r| r.cqi);
            let usable_rbs = n_rbs - out_of_range.count();
            let capacity_bits = if usable_cqi > 0 { link.capacity.band_bits(dir, mcs, usable_rbs) } else { 0 };
            link.capacity.set(now, capacity_bits, &mut link.slots);
            demand.push(UeDemand {
                ue: UeIndex(i as u16),
                // CQI 0 is out of range: the UE cannot be served (TS 36.213 Table 7.2.3-1).
                buffered_bytes: if usable_cqi == 0 { 0 } else { buffered },
                mcs,
                out_of_range,
                has_free_harq: link.harq.free_process().is_some(),
            });
        }
    }

    /// Downlink: pending HARQ retransmissions first (same RBs), then new data (ns-3's order).
    fn downlink(&mut self, now: SimTime) {
        let mut retx = std::mem::take(&mut self.macs.retx);
        retx.clear();
        let mut busy = RbMask::default();
        for ue in &self.ues {
            for a in ue.dl.harq.pending_retransmissions() {
                if !a.rbs.overlaps(busy) {
                    busy = busy.union(a.rbs);
                    retx.push(a);
                }
            }
        }
        for a in &retx {
            self.retransmit(now, a);
        }
        self.gather_demand(LinkDir::Downlink, now);
        self.one_tb_per_ue(&retx);
        self.macs.retx = retx;
        let mut new_tbs = std::mem::take(&mut self.macs.new_tbs);
        new_tbs.clear();
        self.macs.dl.schedule(busy, &self.macs.demand, &mut new_tbs);
        for tb in &new_tbs {
            self.transmit_new(now, LinkDir::Downlink, tb);
        }
        self.macs.new_tbs = new_tbs;
    }

    /// Uplink: the grants issued `grant_delay` ago and the synchronous
    /// retransmissions due now go on the air; then SR/BSR bookkeeping and the
    /// grants for `now + grant_delay` (TS 36.213 §8.0, TS 36.321 §5.4).
    fn uplink(&mut self, now: SimTime) {
        for (i, ue) in self.ues.iter().enumerate() {
            let bytes = ue.ue_rlc.buffer_status(now).total_bytes();
            self.macs.uplink.ue_buffer(now, UeIndex(i as u16), bytes);
        }
        let mut new_tbs = std::mem::take(&mut self.macs.new_tbs);
        new_tbs.clear();
        self.macs.uplink.grants_due(now, &mut new_tbs);
        for tb in &new_tbs {
            self.transmit_new(now, LinkDir::Uplink, tb);
        }
        let busy_later = self.uplink_retransmissions(now);
        self.gather_demand(LinkDir::Uplink, now);
        let later = now + self.macs.ul_retx_delay;
        for (i, ue) in self.ues.iter().enumerate() {
            if ue.ul.synchronous_retx.iter().any(|&(t, _)| t == later) {
                self.macs.demand[i].buffered_bytes = 0;
            }
        }
        new_tbs.clear();
        self.macs.ul.schedule(busy_later, &self.macs.demand, &mut new_tbs);
        self.macs.uplink.granted(now, &new_tbs);
        self.macs.new_tbs = new_tbs;
    }

    /// Send the uplink retransmissions due now; return the RBs the ones due at
    /// `now + grant_delay` will take, which the grants made now must leave free.
    fn uplink_retransmissions(&mut self, now: SimTime) -> RbMask {
        let later = now + self.macs.ul_retx_delay;
        let mut retx = std::mem::take(&mut self.macs.retx);
        retx.clear();
        let mut busy_later = RbMask::default();
        for ue in &mut self.ues {
            while let Some(harq) = ue.ul.pop_synchronous_retx(now) {
                if let Some(a) = ue.ul.harq.pending_retransmissions().find(|a| a.harq == harq) {
                    retx.push(a);
                }
            }
            for &(t, harq) in &ue.ul.synchronous_retx {
                if t == later {
                    let pending = ue.ul.harq.pending_retransmissions().find(|a| a.harq == harq);
                    busy_later = busy_later.union(pending.map_or(RbMask::default(), |a| a.rbs));
                }
            }
        }
        for a in &retx {
            self.retransmit(now, a);
        }
        self.macs.retx = retx;
        busy_later
    }

    /// A UE decodes one transport block per TTI (SISO, one DCI: TS 36.213 §7.1): a UE
    /// receiving a retransmission gets no new TB in the same TTI (as ns-3's schedulers).
    fn one_tb_per_ue(&mut self, retx: &[TbAssignment]) {
        for a in retx {
            self.macs.demand[a.ue.index()].buffered_bytes = 0;
        }
    }

    /// A new TB on a free HARQ process, filled from the transmitting RLC entity.
    fn transmit_new(&mut self, now: SimTime, dir: LinkDir, tb: &NewTb) {
        let ue = &mut self.ues[tb.ue.index()];
        let Some(harq) = ue.link(dir).harq.free_process() else {
            // Every process awaits feedback: the grant goes unused (counted as no TB).
            return;
        };
        let a = TbAssignment { ue: tb.ue, dir, rbs: tb.rbs, mcs: tb.mcs, tbs_bits: tb.tbs_bits, harq, retx: 0 };
        let payload = fill_tb(ue, &a, now);
        let outcome = self.send(now, &a, payload, HarqHistory::EMPTY);
        if dir == LinkDir::Uplink && outcome == TbOutcome::Decoded {
            // The TB carried a BSR of what the UE still holds (TS 36.321 §5.4.5).
            let left = self.ues[tb.ue.index()].ue_rlc.buffer_status(now).total_bytes();
            self.macs.uplink.bsr_received(tb.ue, left);
        }
    }

    fn retransmit(&mut self, now: SimTime, a: &TbAssignment) {
        let (payload, history) = self.ues[a.ue.index()].link(a.dir).harq.take_for_retransmission(a.harq);
        self.send(now, a, payload, history);
    }

    /// One TB on the air: PDCCH error, then the BLER draw from the HARQ-combined
    /// effective SINR (ns-3 `LteSpectrumPhy::EndRxData`); record it and await feedback.
    fn send(&mut self, now: SimTime, a: &TbAssignment, payload: TbPayload, history: HarqHistory) -> TbOutcome {
        let link = self.ues[a.ue.index()].link(a.dir);
        self.sinr.per_rb_sinr_lin(a.ue, a.dir, now, &mut self.sinr_lin);
        if a.dir == LinkDir::Downlink {
            link.memo.refresh(self.sinr.row_id(a.ue, a.dir, now), &self.sinr_lin);
        } else {
            // The PUSCH's DMRS measures its RBs (TS 36.211 §5.5.2) on the SRS row's scale (the
            // eNB knows the UE's power from its headroom reports): the uplink CQI follows.
            let sounding = &mut self.macs.sounding[a.ue.index()];
            sounding.pusch(a.rbs, &self.sinr_lin);
            if let Some(cqi) = sounding.cqi() {
                link.cqi.measured(now, CqiReport::wideband(cqi), now + SimDuration::from_ms(self.cqi.delay_ms as u64));
            }
            // The transport block is decoded at the PUSCH's own power over its grant (TS 36.213 §5.1.1.1).
            let offset_db = self.sinr.pusch_offset_db(a.ue, now, PuschGrant { prbs: a.rbs.count() });
            let gain = 10f64.powf(offset_db / 10.0);
            self.sinr_lin.iter_mut().for_each(|x| *x *= gain);
        }
        let sinr_lin = &self.sinr_lin;
        // ns-3 models control errors on the downlink only (DCI on PDCCH, TS 36.213 §9.1).
        let control_lost = a.dir == LinkDir::Downlink
            && self.control_errors
            && link.rng.uniform()
                < *link.memo.pdcch_error.get_or_insert_with(|| phy::pcfich_pdcch_error_rate(sinr_lin));
        let decode = phy::decode_tb(a, &self.sinr_lin, history);
        let outcome = if control_lost {
            TbOutcome::ControlLost
        } else if link.rng.uniform() < decode.bler {
            TbOutcome::Corrupted
        } else {
            TbOutcome::Decoded
        };
        record(link.slots.at(now), a, outcome);
        match outcome {
            TbOutcome::Decoded => {
                link.arrivals.push_back((tti_end(now), payload));
                link.harq.transmitted(a, TbPayload::new(), decode.history);
            }
            // Combining (IR) keeps the mutual information of the copies the UE received.
            TbOutcome::Corrupted => link.harq.transmitted(a, payload, decode.history),
            // A UE that missed its DCI received nothing: its soft buffer is as it was.
            TbOutcome::ControlLost => link.harq.transmitted(a, payload, history),
        }
        link.feedback.push_back((now + HARQ_FEEDBACK_DELAY, a.harq, outcome));
        outcome
    }
}

fn record(slot: &mut super::LteSlot, a: &TbAssignment, outcome: TbOutcome) {
    slot.tbs += 1;
    slot.mcs_sum += a.mcs as u64;
    slot.prbs += a.rbs.count() as u64;
    slot.harq_retx += (a.retx > 0) as u64;
    slot.control_losses += (outcome == TbOutcome::ControlLost) as u64;
    if outcome == TbOutcome::Decoded {
        slot.tb_bits_decoded += a.tbs_bits as u64;
    }
}

/// Ask the transmitting RLC entity for PDUs until the TB is full; each PDU
/// costs a MAC subheader, and an uplink TB also carries a BSR control element.
fn fill_tb(ue: &mut UeContext, a: &TbAssignment, now: SimTime) -> TbPayload {
    let bsr = if a.dir == LinkDir::Uplink { BSR_CE_BYTES } else { 0 };
    let mut room = (a.tbs_bits / 8).saturating_sub(bsr);
    let mut payload = TbPayload::new();
    let (rlc, events) = ue.tx_rlc(a.dir);
    // Each PDU is budgeted a full subheader; the last one's is shorter (padding takes the rest).
    while room > MAX_SUBHEADER_BYTES {
        let opp = TxOpportunity { bytes: room - MAX_SUBHEADER_BYTES, now };
        let Some(pdu) = rlc.notify_tx_opportunity(opp, events) else { break };
        room = room.saturating_sub(pdu.bytes() + subheader_bytes(pdu.bytes()));
        payload.push(pdu);
    }
    payload
}
