//! One UE as the cell sees it: its bearer's two ends (PDCP + RLC at the eNB
//! and at the UE) and, per direction, the radio link state: the SDUs in
//! flight, the HARQ entity, TBs on the air (the HARQ feedback in flight and the CQI are the
//! cell's, beside the other UEs').

use super::link_tti::DemandRecord;
use super::sdu_store::{dir_of, SduStore};
use super::stats::LinkSlots;
use super::{CellOutput, TTI};
use crate::lte::config::{CellConfig, UeConfig};
use crate::lte::mac::harq::HarqEntity;
use crate::lte::pdcp::PdcpTx;
use crate::lte::phy::{self, CqiReport};
use crate::lte::rlc::{Rlc, RlcEvents, RlcPdu};
use crate::lte::sap::{HarqId, LinkDir, RlcSdu};
use crate::packet::PacketId;
use crate::sim::{NodeId, RngStream, SimDuration, SimTime};
use std::collections::VecDeque;

/// The RLC PDUs one transport block carries.
pub type TbPayload = Vec<RlcPdu>;

/// HARQ feedback reaches the transmitter 4 subframes after the TB (TS 36.213 §10.1 FDD, §9.1.2 PHICH).
pub const HARQ_FEEDBACK_DELAY: SimDuration = SimDuration::from_ms(4);

/// What was computed from a UE's last per-RB SINR row: an unchanged row (a fixed
/// or slowly sampled SINR) reuses them instead of recomputing the MIESM lookups.
#[derive(Debug, Default)]
pub struct SinrMemo {
    /// The source's name for the row ([`crate::lte::sinr::SinrSource::row_id`]), if it has one.
    row_id: Option<u64>,
    /// The row itself (linear SINR), kept only when the source gives no id.
    sinr_lin: Vec<f64>,
    pub cqi: Option<CqiReport>,
    /// The control region's effective SINR for a DCI on the level kept with it, dB
    /// (`phy::control_effective_sinr_at_level_db`).
    control_esinr_db: Option<(u8, f64)>,
}

impl SinrMemo {
    /// Whether the control region's effective SINR for a DCI on `level` CCEs is kept.
    pub fn has_control_esinr(&self, level: u8) -> bool {
        matches!(self.control_esinr_db, Some((l, _)) if l == level)
    }

    /// The control region's effective SINR of the row `sinr_lin` (the memo's) for a DCI on
    /// `level` CCEs, dB: kept with the row for the level last asked.
    pub fn control_esinr_db(&mut self, sinr_lin: &[f64], level: u8) -> f64 {
        match self.control_esinr_db {
            Some((l, db)) if l == level => db,
            _ => {
                let db = phy::control_effective_sinr_at_level_db(sinr_lin, level);
                self.control_esinr_db = Some((level, db));
                db
            }
        }
    }

    /// Whether the row named `id` is the one the memo was derived from (never, without an id).
    pub fn holds(&self, id: Option<u64>) -> bool {
        id.is_some() && id == self.row_id
    }

    /// Forget what was derived unless the row (`id`, `sinr_lin`) is the one it was derived from.
    pub fn refresh(&mut self, id: Option<u64>, sinr_lin: &[f64]) {
        let same = match id {
            Some(_) => id == self.row_id,
            None => self.row_id.is_none() && self.sinr_lin == sinr_lin,
        };
        if !same {
            self.row_id = id;
            self.sinr_lin.clear();
            if id.is_none() {
                self.sinr_lin.extend_from_slice(sinr_lin);
            }
            self.cqi = None;
            self.control_esinr_db = None;
        }
    }
}

/// What the whole band would carry to the UE at its current MCS, counted for every TTI of
/// the run: the TTIs an idle cell skips count at the rate last known (the `capacity_bps` column).
#[derive(Debug, Default)]
pub struct CapacityClock {
    /// The first TTI not yet counted.
    next_tti: SimTime,
    bits_per_tti: u64,
    /// The last MCS looked up and its whole-band TBS, bits (the MCS rarely changes).
    last_lookup: Option<(u8, u64)>,
}

impl CapacityClock {
    /// Bits per TTI of the whole band (`n_rbs`) at `mcs`, the TBS table's (TS 36.213 7.1.7.2.1).
    pub fn band_bits(&mut self, dir: LinkDir, mcs: u8, n_rbs: u32) -> u64 {
        match self.last_lookup {
            Some((m, bits)) if m == mcs => bits,
            _ => {
                let bits = crate::lte::phy::tbs_bits(dir, mcs, n_rbs) as u64;
                self.last_lookup = Some((mcs, bits));
                bits
            }
        }
    }

    /// Count the TTIs before `upto` at the rate in force, then switch to `bits_per_tti`. An
    /// unchanged rate counts nothing yet: a later count over the longer span adds the same bits
    /// to each slot (whole TTIs, integer sums), and the cell asks every TTI.
    pub fn set(&mut self, upto: SimTime, bits_per_tti: u64, slots: &mut LinkSlots) {
        if bits_per_tti != self.bits_per_tti {
            self.run_to(upto, slots);
            self.bits_per_tti = bits_per_tti;
        }
    }

    /// Count the TTIs before `upto` at the rate in force (each slot's at once).
    pub fn run_to(&mut self, upto: SimTime, slots: &mut LinkSlots) {
        let tti_ns = TTI.as_ns();
        let width_ns = slots.width().as_ns().max(1);
        let last = slots.slot_count() - 1;
        while self.next_tti < upto {
            let i = slots.index(self.next_tti);
            // The last slot takes every later TTI (`Slots::index` clamps).
            let slot_end_ns = if i == last { u64::MAX } else { (i as u64 + 1) * width_ns };
            let n = (upto.as_ns().min(slot_end_ns) - self.next_tti.as_ns()).div_ceil(tti_ns);
            slots.add_capacity_bits(i, n * self.bits_per_tti);
            self.next_tti = SimTime(self.next_tti.as_ns() + n * tti_ns);
        }
    }
}

/// One direction of one UE's radio link.
pub struct RadioLink {
    pub sdus: SduStore,
    pub harq: HarqEntity<TbPayload>,
    /// Decoded TBs, handed to the receiving RLC when their TTI ends.
    pub arrivals: VecDeque<(SimTime, TbPayload)>,
    /// Uplink only: (when, process) of the synchronous retransmissions NACKed.
    pub synchronous_retx: VecDeque<(SimTime, HarqId)>,
    /// Uplink only, `mac.pipeline = "lena"`: the MAC PDUs built on their grants, in grant order,
    /// each waiting for its PUSCH.
    pub built: VecDeque<TbPayload>,
    /// Emptied payloads of delivered TBs, reused by the next TBs filled (the TTI allocates
    /// nothing once the link has as many as it keeps in flight).
    pub spare_payloads: Vec<TbPayload>,
    /// Downlink only: what the UE derived from its last row (the eNB's uplink measurement is
    /// the MAC's [`crate::lte::phy::UplinkSounding`]).
    pub memo: SinrMemo,
    pub capacity: CapacityClock,
    pub rng: RngStream,
    pub slots: LinkSlots,
    /// The transmitting RLC entity's retransmission count at the last sample.
    rlc_retx_seen: u64,
    /// The slot of the last sample: slots after it, while the UE was idle, take its values.
    sampled_slot: Option<usize>,
}

impl RadioLink {
    fn new(dir: LinkDir, max_retx: u8, label: &str, seed: u64, slot: SimDuration, duration: SimDuration) -> Self {
        let d = match dir {
            LinkDir::Downlink => "dl",
            LinkDir::Uplink => "ul",
        };
        RadioLink {
            sdus: SduStore::new(dir),
            harq: HarqEntity::new(max_retx),
            arrivals: VecDeque::new(),
            synchronous_retx: VecDeque::new(),
            built: VecDeque::new(),
            spare_payloads: Vec::new(),
            memo: SinrMemo::default(),
            capacity: CapacityClock::default(),
            rng: RngStream::new(seed, &format!("{label}:{d}:phy")),
            slots: LinkSlots::new(slot, duration),
            rlc_retx_seen: 0,
            sampled_slot: None,
        }
    }

    /// Anything on the air or awaiting retransmission (the cell asks its
    /// [`super::air::AirStates`]; debug builds check them against this and the cell's HARQ
    /// feedback in flight).
    #[cfg(debug_assertions)]
    pub(super) fn busy(&self) -> bool {
        !self.arrivals.is_empty()
            || !self.built.is_empty()
            || !self.synchronous_retx.is_empty()
            || self.harq.has_pending_retransmissions()
    }

    /// The UE left its cell (a handover command): HARQ processes and TBs in flight are the old
    /// cell's and go (its CQI reports, outer loop and HARQ feedback in flight went with the old
    /// cell's [`super::link_tti::LinkTtiStates`] and [`super::harq_feedback::HarqFeedbacks`]); the SDUs, the link's random stream and its
    /// counters stay with the UE. The payloads dropped here are the old cell's
    /// business (the bearer's re-establishment decides what becomes of their SDUs).
    pub fn reset_for_handover(&mut self) {
        self.harq = HarqEntity::new(self.harq.max_retx());
        self.arrivals.clear();
        self.synchronous_retx.clear();
        self.memo = SinrMemo::default();
        // The bearer's RLC entities are re-established (new ones, counters from zero).
        self.rlc_retx_seen = 0;
    }

    /// The next synchronous uplink retransmission due by `now`.
    pub fn pop_synchronous_retx(&mut self, now: SimTime) -> Option<HarqId> {
        pop_due(&mut self.synchronous_retx, now)
    }
}

pub struct UeContext {
    pub node: NodeId,
    enb: NodeId,
    enb_pdcp: PdcpTx,
    /// The eNB's RLC entity: transmits downlink, receives uplink.
    pub enb_rlc: Rlc,
    ue_pdcp: PdcpTx,
    /// The UE's RLC entity: transmits uplink, receives downlink.
    pub ue_rlc: Rlc,
    pub dl: RadioLink,
    pub ul: RadioLink,
    /// Reused buffers for what an RLC entity reports.
    pub events: RlcEvents,
}

/// Which end of the bearer an RLC entity sits at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Enb,
    Ue,
}

impl End {
    /// The direction this end's entity receives.
    fn receives(self) -> LinkDir {
        match self {
            End::Enb => LinkDir::Uplink,
            End::Ue => LinkDir::Downlink,
        }
    }

    /// The end that receives `dir`.
    fn receiving(dir: LinkDir) -> End {
        match dir {
            LinkDir::Downlink => End::Ue,
            LinkDir::Uplink => End::Enb,
        }
    }

    fn peer(self) -> End {
        match self {
            End::Enb => End::Ue,
            End::Ue => End::Enb,
        }
    }
}

impl UeContext {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cell: &CellConfig,
        ue: &UeConfig,
        node: NodeId,
        enb: NodeId,
        label: &str,
        seed: u64,
        slot: SimDuration,
        duration: SimDuration,
    ) -> Self {
        let harq = cell.harq;
        UeContext {
            node,
            enb,
            enb_pdcp: PdcpTx::new(),
            enb_rlc: Rlc::new(&ue.rlc),
            ue_pdcp: PdcpTx::new(),
            ue_rlc: Rlc::new(&ue.rlc),
            dl: RadioLink::new(LinkDir::Downlink, harq.max_retx, label, seed, slot, duration),
            ul: RadioLink::new(LinkDir::Uplink, harq.ul_max_retx, label, seed, slot, duration),
            events: RlcEvents::default(),
        }
    }

    /// The eNB this UE's uplink SDUs are delivered to (its serving cell's).
    pub fn set_enb(&mut self, enb: NodeId) {
        self.enb = enb;
    }

    pub fn enb(&self) -> NodeId {
        self.enb
    }

    pub fn link(&mut self, dir: LinkDir) -> &mut RadioLink {
        match dir {
            LinkDir::Downlink => &mut self.dl,
            LinkDir::Uplink => &mut self.ul,
        }
    }

    fn rlc(&mut self, end: End) -> &mut Rlc {
        match end {
            End::Enb => &mut self.enb_rlc,
            End::Ue => &mut self.ue_rlc,
        }
    }

    /// The RLC entity at `end`, with the event buffers: borrowed side by side, not taken out and
    /// put back (the put-back dropped a placeholder, a call since the buffers hold spare lists).
    fn rlc_events(&mut self, end: End) -> (&mut Rlc, &mut RlcEvents) {
        match end {
            End::Enb => (&mut self.enb_rlc, &mut self.events),
            End::Ue => (&mut self.ue_rlc, &mut self.events),
        }
    }

    /// The transmitting RLC entity of `dir`, with the event buffers.
    pub fn tx_rlc(&mut self, dir: LinkDir) -> (&mut Rlc, &mut RlcEvents) {
        match dir {
            LinkDir::Downlink => (&mut self.enb_rlc, &mut self.events),
            LinkDir::Uplink => (&mut self.ue_rlc, &mut self.events),
        }
    }

    /// A packet enters the bearer in `dir`: PDCP header, then the RLC buffer.
    pub fn admit(&mut self, now: SimTime, dir: LinkDir, id: PacketId, ip_bytes: u32) -> Result<(), PacketId> {
        let (pdcp, rlc, link) = match dir {
            LinkDir::Downlink => (&mut self.enb_pdcp, &mut self.enb_rlc, &mut self.dl),
            LinkDir::Uplink => (&mut self.ue_pdcp, &mut self.ue_rlc, &mut self.ul),
        };
        let sdu = RlcSdu { id: link.sdus.admit(id, ip_bytes), bytes: pdcp.tx(ip_bytes).bytes };
        rlc.transmit_sdu(now, sdu).map_err(|refused| {
            link.slots.at(now).rlc_drops += 1;
            link.sdus.resolve(refused).expect("a refused SDU was just admitted")
        })
    }

    pub fn handle_rlc_timers(&mut self, now: SimTime, out: &mut CellOutput) {
        for end in [End::Enb, End::Ue] {
            if self.rlc(end).poll_timeout().is_some_and(|t| t <= now) {
                let (rlc, ev) = self.rlc_events(end);
                rlc.handle_timeout(now, ev);
                self.settle(now, end, out);
            }
        }
    }

    /// Hand the TBs whose TTI has ended to the receiving RLC entity.
    pub fn deliver_arrivals(&mut self, now: SimTime, dir: LinkDir, out: &mut CellOutput) {
        let end = End::receiving(dir);
        while let Some(mut payload) = pop_due(&mut self.link(dir).arrivals, now) {
            let (rlc, ev) = self.rlc_events(end);
            for pdu in payload.drain(..) {
                rlc.receive_pdu(now, pdu, ev);
            }
            self.link(dir).spare_payloads.push(payload);
            self.settle(now, end, out);
        }
    }

    /// HARQ gave up on a TB of `dir`: its PDUs are lost to the receiving entity
    /// (UM/TM discard their SDUs; AM waits for ARQ).
    pub fn lose_tb(&mut self, now: SimTime, dir: LinkDir, payload: TbPayload, out: &mut CellOutput) {
        let end = End::receiving(dir);
        let (rlc, ev) = self.rlc_events(end);
        for pdu in payload {
            rlc.notify_pdu_lost(now, pdu, ev);
        }
        self.settle(now, end, out);
    }

    /// Resolve what the RLC entity at `end` just reported: SDUs delivered or
    /// discarded on its receive side, and PDUs it abandoned for its peer.
    fn settle(&mut self, now: SimTime, end: End, out: &mut CellOutput) {
        let to = match end.receives() {
            LinkDir::Downlink => self.node,
            LinkDir::Uplink => self.enb,
        };
        // The fields side by side (the events are read while the links and the peer change).
        let UeContext { dl, ul, events: ev, enb_rlc, ue_rlc, .. } = self;
        for id in ev.delivered.drain(..) {
            let link = match dir_of(id) {
                LinkDir::Downlink => &mut *dl,
                LinkDir::Uplink => &mut *ul,
            };
            if let Some(p) = link.sdus.resolve(id) {
                out.delivered.push((to, p));
            }
        }
        // Receive-side (reassembly, t-Reordering) and transmit-side (AM maxRetx) discards.
        for id in ev.discarded.drain(..) {
            let link = match dir_of(id) {
                LinkDir::Downlink => &mut *dl,
                LinkDir::Uplink => &mut *ul,
            };
            if let Some(p) = link.sdus.resolve(id) {
                link.slots.at(now).rlc_drops += 1;
                out.dropped.push(p);
            }
        }
        let peer = match end.peer() {
            End::Enb => enb_rlc,
            End::Ue => ue_rlc,
        };
        let abandoned: Vec<_> = ev.abandoned.drain(..).collect();
        for pdu in abandoned {
            peer.notify_peer_abandoned(now, pdu, ev);
        }
        if !self.events.discarded.is_empty() || !self.events.delivered.is_empty() {
            self.settle(now, end.peer(), out);
        }
    }

    /// Write this TTI's demand `records` (downlink, uplink) into the links' slots: the CQI in
    /// force, and the whole band's capacity into the capacity clock.
    pub fn record_demand(&mut self, now: SimTime, records: [Option<DemandRecord>; 2]) {
        let [dl, ul] = records;
        for (dir, link, record) in [(LinkDir::Downlink, &mut self.dl, dl), (LinkDir::Uplink, &mut self.ul, ul)] {
            if let Some(r) = record {
                link.slots.set_cqi(now, r.cqi);
                let capacity_bits = r.band.map_or(0, |(mcs, rbs)| link.capacity.band_bits(dir, mcs, rbs));
                link.capacity.set(now, capacity_bits, &mut link.slots);
            }
        }
    }

    /// Sample the RLC buffers and counters into this TTI's slot; `serving` is the network cell
    /// serving the UE (the `lte` table's `cell` of the slot).
    pub fn sample(&mut self, now: SimTime, serving: Option<u16>) {
        let levels =
            [&self.enb_rlc, &self.ue_rlc].map(|r| (r.buffered_sdu_bytes(), r.counters().data_pdus_retransmitted));
        self.sample_levels(now, serving, levels);
    }

    /// [`Self::sample`] with the transmitting entities' (downlink, uplink) SDU bytes and
    /// retransmitted PDUs as the cell last read them.
    pub fn sample_levels(&mut self, now: SimTime, serving: Option<u16>, levels: [(u64, u64); 2]) {
        let [(dl_buf, dl_retx), (ul_buf, ul_retx)] = levels;
        for (link, buf, retx) in [(&mut self.dl, dl_buf, dl_retx), (&mut self.ul, ul_buf, ul_retx)] {
            let i = link.slots.sample(now, buf, serving, retx - link.rlc_retx_seen);
            link.rlc_retx_seen = retx;
            link.sampled_slot = Some(i);
        }
    }

    /// The slots the UE spent idle, from its last sample up to the one holding `upto` (all of
    /// them at the end of the run), keep what it held then: its RLC buffer and the CQI in force.
    pub fn fill_idle_slots(&mut self, upto: SimTime) {
        for link in [&mut self.dl, &mut self.ul] {
            if let Some(last) = link.sampled_slot {
                link.slots.hold(last, upto);
            }
        }
    }

    /// Close the books at the end of the run: the idle slots, the capacity up to `end`, and
    /// what the slots still held written in.
    pub fn finish(&mut self, end: SimTime) {
        self.fill_idle_slots(SimTime(u64::MAX));
        for link in [&mut self.dl, &mut self.ul] {
            link.capacity.run_to(end, &mut link.slots);
            link.slots.flush();
        }
    }

    pub fn held_bytes(&self) -> u64 {
        self.dl.sdus.held_bytes() + self.ul.sdus.held_bytes()
    }
}

fn pop_due<T>(q: &mut VecDeque<(SimTime, T)>, now: SimTime) -> Option<T> {
    if q.front().is_some_and(|(t, _)| *t <= now) {
        q.pop_front().map(|(_, x)| x)
    } else {
        None
    }
}

/// A TB sent in the TTI starting at `now` is decoded when that TTI ends.
pub fn tti_end(now: SimTime) -> SimTime {
    now + TTI
}
