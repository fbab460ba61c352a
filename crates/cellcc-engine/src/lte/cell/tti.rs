//! The cell's 1 ms pipeline: receptions, HARQ feedback, CQI, then downlink
//! and uplink scheduling and transmission (TS 36.321 §5.3, §5.4; TS 36.213 §7, §8).

use super::ue::{tti_end, End, TbPayload, UeContext, HARQ_FEEDBACK_DELAY};
use super::{Cell, CellOutput};
use crate::lte::mac::harq::Feedback;
use crate::lte::mac::scheduler::{Scheduler, UeDemand};
use crate::lte::mac::uplink::UplinkRequests;
use crate::lte::mac::mac_pdu_overhead_bytes;
use crate::lte::phy::{self, HarqHistory};
use crate::lte::sap::{LinkDir, TbAssignment, TbOutcome, TxOpportunity, UeIndex};
use crate::scenario::CellSpec;
use crate::sim::{SimDuration, SimTime};

/// The MAC state shared by the cell's UEs.
pub(super) struct Macs {
    dl: Scheduler,
    ul: Scheduler,
    uplink: UplinkRequests,
    /// Reused buffers.
    demand: Vec<UeDemand>,
    assignments: Vec<TbAssignment>,
}

impl Macs {
    pub fn new(spec: &CellSpec, n_rbs: u32) -> Self {
        Macs {
            dl: Scheduler::new(&spec.scheduler, LinkDir::Downlink, n_rbs, spec.ues.len()),
            ul: Scheduler::new(&spec.scheduler, LinkDir::Uplink, n_rbs, spec.ues.len()),
            uplink: UplinkRequests::new(&spec.uplink, spec.ues.len()),
            demand: Vec::with_capacity(spec.ues.len()),
            assignments: Vec::with_capacity(spec.ues.len()),
        }
    }
}

impl Cell {
    pub(super) fn run_tti(&mut self, now: SimTime, out: &mut CellOutput) {
        for i in 0..self.ues.len() {
            for dir in [LinkDir::Downlink, LinkDir::Uplink] {
                self.deliver(i, dir, now, out);
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

    fn deliver(&mut self, i: usize, dir: LinkDir, now: SimTime, out: &mut CellOutput) {
        let node = match dir {
            LinkDir::Downlink => self.ue_nodes[i],
            LinkDir::Uplink => self.enb,
        };
        self.ues[i].deliver_arrivals(now, dir, node, out);
    }

    /// HARQ feedback due now: free the process, queue a retransmission, or
    /// give up on the TB (its SDUs are lost unless RLC AM recovers them).
    fn feedback(&mut self, i: usize, dir: LinkDir, now: SimTime, out: &mut CellOutput) {
        let ue = &mut self.ues[i];
        loop {
            let link = ue.link(dir);
            let Some(&(t, harq, outcome)) = link.feedback.front() else { break };
            if t > now {
                break;
            }
            link.feedback.pop_front();
            if let Feedback::ResidualLoss(payload) = link.harq.on_feedback(now, harq, outcome) {
                link.slots.at(now).harq_residual_losses += 1;
                ue.lose_unless_arq(now, dir, &payload, out);
            }
        }
    }

    fn measure_cqi(&mut self, now: SimTime) {
        let period = SimDuration::from_ms(self.cqi.period_ms as u64);
        let delay = SimDuration::from_ms(self.cqi.delay_ms as u64);
        for (i, ue) in self.ues.iter_mut().enumerate() {
            if !ue.needs_tti() {
                continue;
            }
            for dir in [LinkDir::Downlink, LinkDir::Uplink] {
                if ue.link(dir).cqi.due(now, period) {
                    self.sinr.per_rb_sinr_db(UeIndex(i as u16), dir, now, &mut self.sinr_db);
                    let cqi = phy::wideband_cqi(&self.sinr_db);
                    ue.link(dir).cqi.measured(now, cqi, now + delay);
                }
            }
        }
    }

    /// What each UE wants in `dir`, as the eNB knows it.
    fn gather_demand(&mut self, dir: LinkDir, now: SimTime) {
        let demand = &mut self.macs.demand;
        demand.clear();
        for (i, ue) in self.ues.iter_mut().enumerate() {
            let buffered = match dir {
                LinkDir::Downlink => ue.enb_rlc.buffer_status(now).total_bytes(),
                LinkDir::Uplink => self.macs.uplink.reported_bytes(UeIndex(i as u16)),
            };
            let link = ue.link(dir);
            let cqi = link.cqi.current(now);
            demand.push(UeDemand {
                ue: UeIndex(i as u16),
                buffered_bytes: buffered,
                mcs: cqi.map_or(0, phy::mcs_for_cqi),
                harq_free: link.harq.free_process(now).is_some(),
            });
        }
    }

    fn downlink(&mut self, now: SimTime) {
        self.gather_demand(LinkDir::Downlink, now);
        let mut assignments = std::mem::take(&mut self.macs.assignments);
        assignments.clear();
        let retx = self.ues.iter_mut().flat_map(|u| u.dl.harq.due_retransmissions(now));
        self.macs.dl.schedule(now, &self.macs.demand, retx, &mut assignments);
        for a in &assignments {
            self.transmit(now, a);
        }
        self.macs.assignments = assignments;
    }

    fn uplink(&mut self, now: SimTime) {
        for (i, ue) in self.ues.iter_mut().enumerate() {
            let pending = ue.ue_rlc.buffer_status(now);
            self.macs.uplink.ue_buffer(now, UeIndex(i as u16), pending);
        }
        let mut assignments = std::mem::take(&mut self.macs.assignments);
        assignments.clear();
        self.macs.uplink.grants_due(now, &mut assignments);
        for a in &assignments {
            self.transmit(now, a);
        }
        self.gather_demand(LinkDir::Uplink, now);
        let retx = self.ues.iter_mut().flat_map(|u| u.ul.harq.due_retransmissions(now));
        assignments.clear();
        self.macs.ul.schedule(now, &self.macs.demand, retx, &mut assignments);
        self.macs.uplink.granted(now, &assignments);
        self.macs.assignments = assignments;
    }

    /// Send one TB: fill it (or take the HARQ copy), decide its fate, record it.
    fn transmit(&mut self, now: SimTime, a: &TbAssignment) {
        let ue = &mut self.ues[a.ue.index()];
        let (payload, history) = match a.retx {
            0 => (fill_tb(ue, a, now), HarqHistory::default()),
            _ => ue.link(a.dir).harq.take_for_retransmission(a.harq),
        };
        self.sinr.per_rb_sinr_db(a.ue, a.dir, now, &mut self.sinr_db);
        let control_lost = a.dir == LinkDir::Downlink
            && self.control_errors
            && ue.dl.rng.uniform() < phy::pdcch_error(self.sinr.control_sinr_db(a.ue, now));
        let (bler, history) = phy::tb_bler(&self.sinr_db, a.rbs, a.mcs, a.tbs_bits, history);
        let link = ue.link(a.dir);
        let outcome = if control_lost {
            TbOutcome::ControlLost
        } else if link.rng.uniform() < bler {
            TbOutcome::Corrupted
        } else {
            TbOutcome::Decoded
        };
        let slot = link.slots.at(now);
        slot.tbs += 1;
        slot.mcs_sum += a.mcs as u64;
        slot.prbs += a.rbs.count() as u64;
        slot.harq_retx += (a.retx > 0) as u64;
        slot.control_losses += control_lost as u64;
        if outcome == TbOutcome::Decoded {
            slot.tb_bits_decoded += a.tbs_bits as u64;
            link.arrivals.push_back((tti_end(now), payload));
            link.harq.transmitted(now, a, None, history);
        } else {
            link.harq.transmitted(now, a, Some(payload), history);
        }
        link.feedback.push_back((now + HARQ_FEEDBACK_DELAY, a.harq, outcome));
    }
}

/// Ask the transmitting RLC entity for PDUs until the TB is full.
fn fill_tb(ue: &mut UeContext, a: &TbAssignment, now: SimTime) -> TbPayload {
    let (rlc, _, events) = ue.tx_side(a.dir);
    let mut room = (a.tbs_bits / 8).saturating_sub(mac_pdu_overhead_bytes(a.tbs_bits / 8));
    let mut payload = TbPayload::new();
    while let Some(pdu) = rlc.notify_tx_opportunity(TxOpportunity { bytes: room, now }, events) {
        room = room.saturating_sub(pdu.bytes());
        payload.push(pdu);
    }
    let _ = End::Enb;
    payload
}
