//! One UE as the cell sees it: its bearer's two ends (PDCP + RLC at the eNB
//! and at the UE) and, per direction, the radio link state: the SDUs in
//! flight, the HARQ entity, TBs on the air, feedback in flight, CQI.

use super::sdu_store::SduStore;
use super::stats::LteSlots;
use super::{CellOutput, TTI};
use crate::lte::mac::harq::HarqEntity;
use crate::lte::pdcp::Pdcp;
use crate::lte::phy::HarqHistory;
use crate::lte::rlc::{Rlc, RlcEvents, RlcPdu};
use crate::lte::sap::{HarqId, LinkDir, RlcSdu, SduId, TbOutcome};
use crate::packet::PacketId;
use crate::scenario::{CellSpec, UeSpec};
use crate::sim::{RngStream, SimDuration, SimTime};
use std::collections::VecDeque;

/// The RLC PDUs one transport block carries.
pub type TbPayload = Vec<RlcPdu>;

/// HARQ feedback reaches the transmitter 4 subframes after the TB (TS 36.213 §10.1 FDD, §9.1.2 PHICH).
pub const HARQ_FEEDBACK_DELAY: SimDuration = SimDuration::from_ms(4);

/// CQI reports in flight and the one in force (TS 36.213 §7.2).
#[derive(Debug, Default)]
pub struct CqiTracker {
    in_flight: VecDeque<(SimTime, u8)>,
    current: Option<u8>,
    last_measured: Option<SimTime>,
}

impl CqiTracker {
    /// Whether a measurement is due at `now` with reporting period `period`.
    pub fn due(&self, now: SimTime, period: SimDuration) -> bool {
        self.last_measured.is_none_or(|m| now.saturating_since(m) >= period)
    }

    pub fn measured(&mut self, now: SimTime, cqi: u8, usable_at: SimTime) {
        self.last_measured = Some(now);
        self.in_flight.push_back((usable_at, cqi));
    }

    /// The latest report usable at `now`.
    pub fn current(&mut self, now: SimTime) -> Option<u8> {
        while self.in_flight.front().is_some_and(|&(t, _)| t <= now) {
            self.current = self.in_flight.pop_front().map(|(_, c)| c);
        }
        self.current
    }
}

/// One direction of one UE's radio link.
pub struct RadioLink {
    pub dir: LinkDir,
    pub sdus: SduStore,
    pub harq: HarqEntity<TbPayload, HarqHistory>,
    /// Decoded TBs, handed to the receiving RLC when their TTI ends.
    pub arrivals: VecDeque<(SimTime, TbPayload)>,
    /// HARQ feedback in flight: (when it reaches the transmitter, process, outcome).
    pub feedback: VecDeque<(SimTime, HarqId, TbOutcome)>,
    pub cqi: CqiTracker,
    pub rng: RngStream,
    pub slots: LteSlots,
}

impl RadioLink {
    fn new(dir: LinkDir, max_retx: u8, label: &str, seed: u64, slot: SimDuration, duration: SimDuration) -> Self {
        let d = match dir {
            LinkDir::Downlink => "dl",
            LinkDir::Uplink => "ul",
        };
        RadioLink {
            dir,
            sdus: SduStore::default(),
            harq: HarqEntity::new(dir, max_retx),
            arrivals: VecDeque::new(),
            feedback: VecDeque::new(),
            cqi: CqiTracker::default(),
            rng: RngStream::new(seed, &format!("{label}:{d}:phy")),
            slots: LteSlots::new(slot, duration),
        }
    }

    /// Anything on the air or awaiting feedback / retransmission.
    fn busy(&self) -> bool {
        !self.arrivals.is_empty() || !self.feedback.is_empty() || self.harq.busy()
    }
}

pub struct UeContext {
    enb_pdcp: Pdcp,
    /// The eNB's RLC entity: transmits downlink, receives uplink.
    pub enb_rlc: Rlc,
    ue_pdcp: Pdcp,
    /// The UE's RLC entity: transmits uplink, receives downlink.
    pub ue_rlc: Rlc,
    pub dl: RadioLink,
    pub ul: RadioLink,
    /// Reused buffers for what an RLC entity reports.
    pub events: RlcEvents,
}

impl UeContext {
    pub fn new(cell: &CellSpec, ue: &UeSpec, label: &str, seed: u64, slot: SimDuration, duration: SimDuration) -> Self {
        let max_retx = cell.harq.max_retx;
        UeContext {
            enb_pdcp: Pdcp::default(),
            enb_rlc: Rlc::new(&ue.rlc),
            ue_pdcp: Pdcp::default(),
            ue_rlc: Rlc::new(&ue.rlc),
            dl: RadioLink::new(LinkDir::Downlink, max_retx, label, seed, slot, duration),
            ul: RadioLink::new(LinkDir::Uplink, max_retx, label, seed, slot, duration),
            events: RlcEvents::default(),
        }
    }

    pub fn link(&mut self, dir: LinkDir) -> &mut RadioLink {
        match dir {
            LinkDir::Downlink => &mut self.dl,
            LinkDir::Uplink => &mut self.ul,
        }
    }

    /// The transmitting RLC entity of `dir` and that direction's link.
    pub fn tx_side(&mut self, dir: LinkDir) -> (&mut Rlc, &mut RadioLink, &mut RlcEvents) {
        match dir {
            LinkDir::Downlink => (&mut self.enb_rlc, &mut self.dl, &mut self.events),
            LinkDir::Uplink => (&mut self.ue_rlc, &mut self.ul, &mut self.events),
        }
    }

    /// A packet enters the bearer in `dir`: PDCP header, then the RLC buffer.
    pub fn admit(&mut self, now: SimTime, dir: LinkDir, id: PacketId, ip_bytes: u32) -> Result<(), PacketId> {
        let (pdcp, rlc, link) = match dir {
            LinkDir::Downlink => (&mut self.enb_pdcp, &mut self.enb_rlc, &mut self.dl),
            LinkDir::Uplink => (&mut self.ue_pdcp, &mut self.ue_rlc, &mut self.ul),
        };
        let sdu = RlcSdu { id: link.sdus.admit(id, ip_bytes), bytes: pdcp.tx(ip_bytes) };
        match rlc.transmit_sdu(now, sdu) {
            Ok(()) => {
                link.slots.at(now);
                Ok(())
            }
            Err(refused) => {
                link.slots.at(now).rlc_drops += 1;
                Err(link.sdus.resolve(refused).expect("a refused SDU was just admitted"))
            }
        }
    }

    /// Whether the next TTI has work for this UE.
    pub fn needs_tti(&self) -> bool {
        self.dl.busy()
            || self.ul.busy()
            || !self.enb_rlc.buffer_status(SimTime::ZERO).is_empty()
            || !self.ue_rlc.buffer_status(SimTime::ZERO).is_empty()
    }

    /// The earliest RLC timer at either end.
    pub fn rlc_deadline(&self) -> Option<SimTime> {
        match (self.enb_rlc.poll_timeout(), self.ue_rlc.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn handle_rlc_timers(&mut self, now: SimTime, out: &mut CellOutput) {
        if self.enb_rlc.poll_timeout().is_some_and(|t| t <= now) {
            self.enb_rlc.handle_timeout(now, &mut self.events);
            self.settle(now, End::Enb, out);
        }
        if self.ue_rlc.poll_timeout().is_some_and(|t| t <= now) {
            self.ue_rlc.handle_timeout(now, &mut self.events);
            self.settle(now, End::Ue, out);
        }
    }

    /// Hand the TBs whose TTI has ended to the receiving RLC entity.
    pub fn deliver_arrivals(&mut self, now: SimTime, dir: LinkDir, out: &mut CellOutput) {
        while let Some((_, payload)) = pop_due(&mut self.link(dir).arrivals, now) {
            let (rlc, end) = match dir {
                LinkDir::Downlink => (&mut self.ue_rlc, End::Ue),
                LinkDir::Uplink => (&mut self.enb_rlc, End::Enb),
            };
            for pdu in payload {
                rlc.receive_pdu(now, pdu, &mut self.events);
            }
            self.settle(now, end, out);
        }
    }

    /// Resolve what an RLC entity at `end` delivered or discarded.
    pub fn settle(&mut self, now: SimTime, end: End, out: &mut CellOutput) {
        // The entity at `end` receives one direction and transmits the other.
        let (rx, tx) = match end {
            End::Enb => (LinkDir::Uplink, LinkDir::Downlink),
            End::Ue => (LinkDir::Downlink, LinkDir::Uplink),
        };
        let ev = &mut self.events;
        let rx_link = match rx {
            LinkDir::Downlink => &mut self.dl,
            LinkDir::Uplink => &mut self.ul,
        };
        for id in ev.delivered.drain(..) {
            if let Some(p) = rx_link.sdus.resolve(id) {
                out.delivered.push((p, id)).0;
            }
        }
        let _ = (now, tx);
    }

    /// Lose the SDUs `ids` of direction `dir` (if still unresolved).
    pub fn lose(&mut self, now: SimTime, dir: LinkDir, ids: impl IntoIterator<Item = SduId>, out: &mut CellOutput) {
        let link = self.link(dir);
        for id in ids {
            if let Some(p) = link.sdus.resolve(id) {
                link.slots.at(now).rlc_drops += 1;
                out.dropped.push(p);
            }
        }
    }

    pub fn held_bytes(&self) -> u64 {
        self.dl.sdus.held_bytes() + self.ul.sdus.held_bytes()
    }
}

/// Which end of the bearer an RLC entity sits at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Enb,
    Ue,
}

fn pop_due<T>(q: &mut VecDeque<(SimTime, T)>, now: SimTime) -> Option<(SimTime, T)> {
    if q.front().is_some_and(|(t, _)| *t <= now) {
        q.pop_front()
    } else {
        None
    }
}

/// A TB sent in the TTI starting at `now` is decoded when that TTI ends.
pub fn tti_end(now: SimTime) -> SimTime {
    now + TTI
}
