//! One UE as the NR cell sees it: its bearer's two ends (PDCP and RLC at the gNB and at the UE)
//! and, per direction, the radio link: SDUs in flight, the HARQ entity, TBs on the air, feedback
//! in flight, the outer loop and the counters.

use std::collections::VecDeque;

use super::stats::NrSlots;
use super::CellOutput;
use crate::lte::cell::sdu_store::{dir_of, SduStore};
use crate::lte::mac::harq::{HarqEntity, HarqTb};
use crate::lte::mac::link_adaptation::OuterLoop;
use crate::lte::sap::{HarqId, LinkDir, RlcSdu, SduId, TbOutcome, UeIndex};
use crate::nr::config::NrUeConfig;
use crate::nr::mac::rbg::RbgMask;
use crate::nr::mac::N_HARQ_PROCESSES;
use crate::nr::pdcp::{PdcpEvents, PdcpRx};
use crate::nr::phy::HarqHistory;
use crate::nr::rlc::{NrRlc, NrRlcEvents, NrRlcPdu};
use crate::packet::PacketId;
use crate::sim::{NodeId, RngStream, SimDuration, SimTime};

/// The RLC PDUs one transport block carries.
pub type Payload = Vec<NrRlcPdu>;

/// One NR transport block, as its HARQ process keeps it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NrTb {
    pub ue: UeIndex,
    pub dir: LinkDir,
    pub rbgs: RbgMask,
    pub n_prb: u32,
    /// Data symbols of its first transmission (a retransmission needs an occasion at least as long).
    pub symbols: u32,
    pub mcs: u8,
    pub tbs_bits: u32,
    pub harq: HarqId,
    pub retx: u8,
}

impl HarqTb for NrTb {
    fn harq(&self) -> HarqId {
        self.harq
    }
    fn retx(&self) -> u8 {
        self.retx
    }
    fn next_retx(self) -> Self {
        NrTb { retx: self.retx + 1, ..self }
    }
}

/// A UE's HARQ entity in one direction: 16 processes, IR history per process.
pub type NrHarq = HarqEntity<Payload, NrTb, HarqHistory, N_HARQ_PROCESSES>;

/// HARQ feedback on its way to the transmitter.
#[derive(Clone, Copy, Debug)]
pub struct Feedback {
    pub at: SimTime,
    pub harq: HarqId,
    pub outcome: TbOutcome,
    pub first_tx: bool,
}

/// One direction of one UE's radio link.
pub struct NrLink {
    pub sdus: SduStore,
    pub harq: NrHarq,
    /// Decoded TBs, handed to the receiving RLC when their transmission ends.
    pub arrivals: VecDeque<(SimTime, Payload)>,
    /// Emptied payloads of delivered TBs, reused by the next TBs filled (the slot allocates
    /// nothing once the link has as many as it keeps in flight).
    pub spare_payloads: Vec<Payload>,
    pub feedback: VecDeque<Feedback>,
    pub olla: OuterLoop,
    pub rng: RngStream,
    pub slots: NrSlots,
    rlc_retx_seen: u64,
    /// The receiving PDCP's t-Reordering expiries at the last sample.
    pdcp_gaps_seen: u64,
}

impl NrLink {
    fn new(dir: LinkDir, max_retx: u8, label: &str, seed: u64, slot: SimDuration, duration: SimDuration) -> Self {
        let d = if dir == LinkDir::Downlink { "dl" } else { "ul" };
        NrLink {
            sdus: SduStore::new(dir),
            harq: HarqEntity::new(max_retx),
            arrivals: VecDeque::new(),
            spare_payloads: Vec::new(),
            feedback: VecDeque::new(),
            olla: OuterLoop::default(),
            rng: RngStream::new(seed, &format!("{label}:{d}:phy")),
            slots: NrSlots::new(slot, duration),
            rlc_retx_seen: 0,
            pdcp_gaps_seen: 0,
        }
    }

    fn busy(&self) -> bool {
        !self.arrivals.is_empty() || !self.feedback.is_empty() || self.harq.is_busy()
    }

    pub fn pop_feedback(&mut self, now: SimTime) -> Option<Feedback> {
        if self.feedback.front().is_some_and(|f| f.at <= now) {
            self.feedback.pop_front()
        } else {
            None
        }
    }

    /// The earliest time something on this link is due (a TB's end, a feedback).
    pub fn next_due(&self) -> Option<SimTime> {
        SimTime::earliest(self.arrivals.front().map(|a| a.0), self.feedback.front().map(|f| f.at))
    }
}

/// Which end of the bearer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Gnb,
    Ue,
}

impl End {
    fn receiving(dir: LinkDir) -> End {
        match dir {
            LinkDir::Downlink => End::Ue,
            LinkDir::Uplink => End::Gnb,
        }
    }

    fn peer(self) -> End {
        match self {
            End::Gnb => End::Ue,
            End::Ue => End::Gnb,
        }
    }
}

/// A UE: its bearer's ends and radio links.
pub struct NrUe {
    pub node: NodeId,
    gnb: NodeId,
    pdcp_header_bytes: u32,
    /// The gNB's RLC: transmits downlink, receives uplink.
    pub gnb_rlc: NrRlc,
    /// The UE's RLC: transmits uplink, receives downlink.
    pub ue_rlc: NrRlc,
    gnb_pdcp: PdcpRx,
    ue_pdcp: PdcpRx,
    pub dl: NrLink,
    pub ul: NrLink,
    ev: NrRlcEvents,
    pev: PdcpEvents,
}

impl NrUe {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cfg: &NrUeConfig,
        node: NodeId,
        gnb: NodeId,
        max_retx: u8,
        label: &str,
        seed: u64,
        slot: SimDuration,
        duration: SimDuration,
    ) -> Self {
        let t_reordering = SimDuration::from_ms_f64(cfg.pdcp.t_reordering_ms);
        NrUe {
            node,
            gnb,
            pdcp_header_bytes: cfg.pdcp.header_bytes(),
            gnb_rlc: NrRlc::new(&cfg.rlc),
            ue_rlc: NrRlc::new(&cfg.rlc),
            gnb_pdcp: PdcpRx::new(t_reordering),
            ue_pdcp: PdcpRx::new(t_reordering),
            dl: NrLink::new(LinkDir::Downlink, max_retx, label, seed, slot, duration),
            ul: NrLink::new(LinkDir::Uplink, max_retx, label, seed, slot, duration),
            ev: NrRlcEvents::default(),
            pev: PdcpEvents::default(),
        }
    }

    pub fn link(&mut self, dir: LinkDir) -> &mut NrLink {
        match dir {
            LinkDir::Downlink => &mut self.dl,
            LinkDir::Uplink => &mut self.ul,
        }
    }

    fn rlc(&mut self, end: End) -> &mut NrRlc {
        match end {
            End::Gnb => &mut self.gnb_rlc,
            End::Ue => &mut self.ue_rlc,
        }
    }

    /// A packet enters the bearer in `dir`: refused if the RLC buffer is full (before PDCP
    /// numbers it: the DU's flow control of TS 38.425 holds back what it cannot buffer), else
    /// numbered (its SDU id is its COUNT) and queued with its PDCP header.
    pub fn admit(&mut self, now: SimTime, dir: LinkDir, id: PacketId, ip_bytes: u32) -> Result<(), PacketId> {
        let bytes = ip_bytes + self.pdcp_header_bytes;
        let (rlc, link) = match dir {
            LinkDir::Downlink => (&mut self.gnb_rlc, &mut self.dl),
            LinkDir::Uplink => (&mut self.ue_rlc, &mut self.ul),
        };
        if !rlc.has_room(bytes) {
            link.slots.at(now).rlc_drops += 1;
            return Err(id);
        }
        let sdu = RlcSdu { id: link.sdus.admit(id, ip_bytes), bytes };
        rlc.transmit_sdu(now, sdu).expect("room was checked");
        Ok(())
    }

    /// Whether the cell has work for this UE at its next occasion.
    pub fn needs_slot(&self, now: SimTime) -> bool {
        self.dl.busy()
            || self.ul.busy()
            || !self.gnb_rlc.buffer_status(now).is_empty()
            || !self.ue_rlc.buffer_status(now).is_empty()
    }

    /// The earliest TB end, feedback or RLC/PDCP timer of this UE.
    pub fn next_due(&self) -> Option<SimTime> {
        [self.dl.next_due(), self.ul.next_due(), self.timer_deadline()].into_iter().flatten().min()
    }

    /// The earliest RLC or PDCP timer at either end.
    pub fn timer_deadline(&self) -> Option<SimTime> {
        [
            self.gnb_rlc.poll_timeout(),
            self.ue_rlc.poll_timeout(),
            self.gnb_pdcp.poll_timeout(),
            self.ue_pdcp.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    pub fn handle_timers(&mut self, now: SimTime, out: &mut CellOutput) {
        for end in [End::Gnb, End::Ue] {
            if self.rlc(end).poll_timeout().is_some_and(|t| t <= now) {
                let mut ev = std::mem::take(&mut self.ev);
                self.rlc(end).handle_timeout(now, &mut ev);
                self.ev = ev;
                self.settle(now, end, out);
            }
            let pdcp = match end {
                End::Gnb => &mut self.gnb_pdcp,
                End::Ue => &mut self.ue_pdcp,
            };
            if pdcp.poll_timeout().is_some_and(|t| t <= now) {
                pdcp.handle_timeout(now, &mut self.pev);
                self.settle(now, end, out);
            }
        }
    }

    /// Hand the TBs of `dir` whose transmission has ended to the receiving RLC entity.
    pub fn deliver_arrivals(&mut self, now: SimTime, dir: LinkDir, out: &mut CellOutput) {
        let end = End::receiving(dir);
        while self.link(dir).arrivals.front().is_some_and(|a| a.0 <= now) {
            let (_, mut payload) = self.link(dir).arrivals.pop_front().expect("front checked");
            let mut ev = std::mem::take(&mut self.ev);
            for pdu in payload.drain(..) {
                self.rlc(end).receive_pdu(now, pdu, &mut ev);
            }
            self.ev = ev;
            self.link(dir).spare_payloads.push(payload);
            self.settle(now, end, out);
        }
    }

    /// HARQ gave up on a TB of `dir`: its PDUs are lost to the receiving entity.
    pub fn lose_tb(&mut self, now: SimTime, dir: LinkDir, payload: Payload, out: &mut CellOutput) {
        let end = End::receiving(dir);
        let mut ev = std::mem::take(&mut self.ev);
        for pdu in payload {
            self.rlc(end).notify_pdu_lost(pdu, &mut ev);
        }
        self.ev = ev;
        self.settle(now, end, out);
    }

    /// Resolve what the RLC entity and the PDCP at `end` reported: SDUs up to PDCP and on to IP in
    /// COUNT order, SDUs given up, and SNs the transmitter abandoned for its peer.
    fn settle(&mut self, now: SimTime, end: End, out: &mut CellOutput) {
        let (to, pdcp) = match end {
            End::Gnb => (self.gnb, &mut self.gnb_pdcp),
            End::Ue => (self.node, &mut self.ue_pdcp),
        };
        for id in self.ev.delivered.drain(..) {
            // The SDU store numbers each direction's SDUs in PDCP order: id / 2 is the COUNT.
            pdcp.receive(now, id.0 / 2, id, &mut self.pev);
        }
        for id in std::mem::take(&mut self.pev.delivered) {
            if let Some(p) = self.link(dir_of(id)).sdus.resolve(id) {
                out.delivered.push((to, p));
            }
        }
        let dropped: Vec<SduId> = self.ev.discarded.drain(..).chain(self.pev.discarded.drain(..)).collect();
        for id in dropped {
            let link = self.link(dir_of(id));
            if let Some(p) = link.sdus.resolve(id) {
                link.slots.at(now).rlc_drops += 1;
                out.dropped.push(p);
            }
        }
        if !self.ev.abandoned.is_empty() {
            let abandoned = std::mem::take(&mut self.ev.abandoned);
            let mut ev = std::mem::take(&mut self.ev);
            for sn in abandoned {
                self.rlc(end.peer()).notify_peer_abandoned(now, sn, &mut ev);
            }
            self.ev = ev;
            self.settle(now, end.peer(), out);
        }
    }

    /// Sample the RLC buffers and retransmission counters into this slot's row.
    pub fn sample(&mut self, now: SimTime) {
        let (dl_buf, ul_buf) = (self.gnb_rlc.buffered_sdu_bytes(), self.ue_rlc.buffered_sdu_bytes());
        let (dl_retx, ul_retx) =
            (self.gnb_rlc.counters().data_pdus_retransmitted, self.ue_rlc.counters().data_pdus_retransmitted);
        let (dl_gaps, ul_gaps) = (self.ue_pdcp.gaps_skipped, self.gnb_pdcp.gaps_skipped);
        for (link, buf, retx, gaps) in
            [(&mut self.dl, dl_buf, dl_retx, dl_gaps), (&mut self.ul, ul_buf, ul_retx, ul_gaps)]
        {
            let slot = link.slots.at(now);
            slot.rlc_buffer_bytes = buf;
            slot.rlc_retx_pdus += retx - link.rlc_retx_seen;
            link.rlc_retx_seen = retx;
            slot.pdcp_gaps_skipped += gaps - link.pdcp_gaps_seen;
            link.pdcp_gaps_seen = gaps;
        }
    }

    pub fn held_bytes(&self) -> u64 {
        self.dl.sdus.held_bytes() + self.ul.sdus.held_bytes()
    }
}
