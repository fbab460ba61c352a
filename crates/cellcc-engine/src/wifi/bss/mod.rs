//! One BSS as a medium of the world: an access point and its stations contending for one
//! channel with EDCA, sending A-MPDUs answered by Block Acks, on the shared radio channel.
//!
//! ```text
//!  world ──enqueue(from, next, packet)──► station's MAC queue (per AC, per receiver)
//!  access:  idle AIFS + backoff slots ─► TXOP ─► [RTS ─SIFS─ CTS ─SIFS─] A-MPDU ─SIFS─ BlockAck / Ack
//!  air:     every PPDU adds its power at every station (links.rs); a receiver locks onto a preamble it
//!           detects and decodes each MPDU at the SINR of its stretch (phy::reception)
//!  recipient: reordering buffer ─► in-order MSDUs ─► world.on_arrive(station or AP)
//!  originator: BlockAck ─► retransmit the missing; no response ─► CW doubles, retry later
//! ```
//! The world sees `enqueue`, a next deadline and what came out ([`BssOutput`]); internal events
//! (PPDU ends, SIFS responses, timeouts) live in the BSS's own queue. Contention is computed, not
//! ticked: each station's next access instant follows from when the medium fell idle, its AIFS and
//! its backoff, so a BSS without frames to send asks for no wake-up.
//! Simplifications (docs/wifi.md): no propagation delay; Block Ack agreements exist from the start
//! (no ADDBA exchange), as do associations (no beacons or management frames); a single TXOP
//! holder's NAV covers one frame exchange at a time.

mod air;
mod links;
mod rx;
mod station;
pub mod stats;
mod tx;

pub use stats::{wifi_table, WifiSlot, WifiSlots};

use self::air::{Air, Sta};
use self::links::{LinkSpec, Links};
use self::station::{CarrierSense, Exchange, Phy, Station};
use crate::packet::PacketId;
use crate::scenario::{BssSpec, FecSpec, WifiProfile};
use crate::sim::{FlowId, NodeId, RngStream, SimDuration, SimTime};
use crate::wifi::mac::block_ack::{Originator, Recipient};
use crate::wifi::mac::edca::{Ac, Edcaf};
use crate::wifi::mac::queue::{MacQueue, Msdu};
use crate::wifi::phy::ppdu::Fec;
use crate::wifi::phy::reception::Overlap;
use crate::wifi::phy::vht::{GuardInterval, Width};
use crate::wifi::phy::{CCA_ENERGY_DETECT_DBM, CCA_SENSITIVITY_20MHZ_DBM, PREAMBLE_DETECT_RSSI_DBM};
use crate::wifi::rate_control::{LinkCaps, RateManager};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What an enqueue did.
#[derive(Debug, PartialEq, Eq)]
pub enum BssEnqueued {
    /// The MAC queue of the packet's access category is full: handed back to be dropped.
    Dropped(PacketId),
    Accepted,
}

/// What the BSS hands back to the world (reused buffers).
#[derive(Debug, Default)]
pub struct BssOutput {
    /// Packets that crossed the air, with the node they reached.
    pub delivered: Vec<(NodeId, PacketId)>,
    /// Packets lost in the BSS (lifetime, or given up by the recipient's window).
    pub dropped: Vec<PacketId>,
}

/// An internal event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    PpduEnd(u32),
    Respond(u16),
    FollowUp(u16),
    Timeout(u16, u32),
}

/// One Block Ack agreement: both its ends (each end reads only its own half).
pub(crate) struct Agreement {
    pub tx: Sta,
    pub rx: Sta,
    pub ac: Ac,
    pub orig: Originator,
    pub recip: Recipient,
    /// Counted in its originator's `waiting` (retransmissions or a BlockAckReq pending).
    flagged: bool,
}

/// The settings every station of the BSS shares, resolved from the scenario.
pub(crate) struct Config {
    pub width: Width,
    pub gi: GuardInterval,
    pub fec: Fec,
    /// VHT-SIG-B in SU PPDUs (the standard) or not (ns-3 3.44).
    pub sig_b: bool,
    /// Control responses chosen against the data rate (ns-3) rather than the non-HT reference rate.
    pub response_vs_data_rate: bool,
    pub max_ampdu_bytes: u32,
    pub rts_threshold_bytes: u32,
    pub queue_packets: u32,
    pub lifetime: SimDuration,
    /// CCA sensitivity for a PPDU of the BSS's width, energy detection, preamble detection RSSI (mW).
    pub cca_mw: f64,
    pub ed_mw: f64,
    pub preamble_rssi_mw: f64,
}

/// Reused buffers.
#[derive(Default)]
struct Scratch {
    overlaps: Vec<Overlap>,
    cuts: Vec<u64>,
    outcomes: Vec<crate::wifi::mac::block_ack::AckOutcome>,
    ok: Vec<bool>,
    due: Vec<(Sta, usize)>,
    new_ppdus: Vec<u32>,
}

pub struct Bss {
    pub name: String,
    nodes: Vec<NodeId>,
    /// Station index by world node index (`u16::MAX`: not in this BSS); saves a search per packet.
    sta_by_node: Vec<u16>,
    names: Vec<String>,
    mtu_bytes: u32,
    cfg: Config,
    stations: Vec<Station>,
    agreements: Vec<Agreement>,
    /// Agreement index of (originator, peer slot, AC).
    agreement_of: Vec<u32>,
    max_peers: usize,
    air: Air,
    links: Links,
    events: BinaryHeap<Reverse<(SimTime, u64, Ev)>>,
    seq: u64,
    /// The access category of each flow's packets.
    flow_ac: Vec<Ac>,
    /// Per station (1..): [dl, ul].
    slots: Vec<[WifiSlots; 2]>,
    deadline: Option<SimTime>,
    end: SimTime,
    scratch: Scratch,
    /// Per station, per AC: agreements with MPDUs to resend or a BlockAckReq due.
    waiting: Vec<[u32; 4]>,
    /// What went up or was lost since the world last collected it.
    delivered: Vec<(NodeId, PacketId)>,
    dropped: Vec<PacketId>,
    /// Per error curve: the SNR above which every frame decodes (filled on first use).
    clear_bcc: [Option<f64>; 12],
    clear_ldpc: [Option<f64>; 12],
}

fn dbm_mw(dbm: f64) -> f64 {
    crate::radio::noise::dbm_to_mw(dbm)
}

impl Bss {
    /// Build BSS `spec` (validated by the scenario); `flow_ac[f]` is flow f's AC.
    pub fn build(
        spec: &BssSpec,
        node: &dyn Fn(&str) -> NodeId,
        flow_ac: Vec<Ac>,
        seed: u64,
        slot: SimDuration,
        end: SimTime,
    ) -> Bss {
        let label = format!("bss:{}", spec.id);
        let names: Vec<String> =
            std::iter::once(spec.ap.clone()).chain(spec.stations.iter().map(|s| s.node.clone())).collect();
        let nodes: Vec<NodeId> = names.iter().map(|n| node(n)).collect();
        let cfg = config(spec);
        let n = names.len();
        let nss: Vec<u8> = std::iter::once(spec.ap_radio.spatial_streams)
            .chain(spec.stations.iter().map(|s| s.spatial_streams))
            .collect();
        let stations = (0..n).map(|s| new_station(spec, &cfg, s, &names, &nss, seed, &label)).collect();
        let max_peers = n - 1;
        let (agreements, agreement_of) = agreements(n);
        let links = links(spec, &cfg, &names, seed, &label);
        let duration = end - SimTime::ZERO;
        Bss {
            name: spec.id.clone(),
            mtu_bytes: spec.mtu_bytes,
            slots: (1..n).map(|_| [WifiSlots::new(slot, duration), WifiSlots::new(slot, duration)]).collect(),
            waiting: vec![[0; 4]; n],
            sta_by_node: sta_by_node(&nodes),
            nodes,
            names,
            cfg,
            stations,
            agreements,
            agreement_of,
            max_peers,
            air: Air::default(),
            links,
            events: BinaryHeap::with_capacity(64),
            seq: 0,
            flow_ac,
            deadline: None,
            end,
            scratch: Scratch::default(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            clear_bcc: [None; 12],
            clear_ldpc: [None; 12],
        }
    }

    pub fn ap(&self) -> NodeId {
        self.nodes[0]
    }

    pub fn sta_nodes(&self) -> &[NodeId] {
        &self.nodes[1..]
    }

    pub fn mtu_bytes(&self) -> u32 {
        self.mtu_bytes
    }

    fn sta_of(&self, node: NodeId) -> Sta {
        let s = self.sta_by_node[node.index()];
        debug_assert!(s != u16::MAX, "routes only name this BSS's stations");
        usize::from(s)
    }

    /// The agreement for `tx` sending to `peer` in `ac`.
    fn agreement(&self, tx: Sta, peer: Sta, ac: usize) -> u32 {
        self.agreement_of[(tx * self.max_peers + peer_slot(tx, peer)) * 4 + ac]
    }

    /// A packet at `from` (the AP or a station) for `next` joins its MAC queue.
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        from: NodeId,
        next: NodeId,
        id: PacketId,
        ip_bytes: u32,
        flow: FlowId,
    ) -> BssEnqueued {
        let (s, r) = (self.sta_of(from), self.sta_of(next));
        let ac = self.flow_ac[flow.index()].index();
        let limit = self.cfg.queue_packets;
        let had = self.has_frames(s, ac);
        let st = &mut self.stations[s];
        if st.queues[ac].len() + st.held[ac] >= limit {
            self.link_slot(s, r, now).queue_drops += 1;
            return BssEnqueued::Dropped(id);
        }
        st.queues[ac].push(peer_slot(s, r), Msdu { id, ip_bytes, queued_at: now });
        // §10.23.2.2 b: a frame that finds the AC idle (backoff 0) and the medium busy starts a backoff.
        if !had {
            st.count_to(now);
            if st.edca[ac].backoff_slots == 0 && (st.medium_busy_at(now) || !st.may_contend()) {
                let rng = &mut st.rng;
                st.edca[ac].draw(rng);
            }
        }
        self.note_queue(s, r, now);
        // Only `s`'s access can have come (or moved) earlier: the others' stand.
        let access = self.next_access(s, now).map(|(t, _)| t);
        self.deadline = SimTime::earliest(self.deadline, access).filter(|&t| t < self.end);
        BssEnqueued::Accepted
    }

    /// When the BSS next needs the world to wake it, if ever.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.deadline
    }

    /// Run what is due at `now`: internal events, then the accesses that fall due.
    pub fn handle_timeout(&mut self, now: SimTime, out: &mut BssOutput) {
        let next_access = loop {
            while let Some(&Reverse((t, _, ev))) = self.events.peek() {
                if t > now {
                    break;
                }
                self.events.pop();
                self.dispatch(ev, now);
            }
            let (started, next_access) = self.start_due_accesses(now);
            self.settle_new_ppdus(now);
            if !started && self.events.peek().is_none_or(|&Reverse((t, _, _))| t > now) {
                // Nothing started and nothing else is due now: the pass's next access stands.
                break next_access;
            }
        };
        out.delivered.append(&mut self.delivered);
        out.dropped.append(&mut self.dropped);
        self.set_deadline(next_access);
    }

    fn dispatch(&mut self, ev: Ev, now: SimTime) {
        match ev {
            Ev::PpduEnd(id) => self.on_ppdu_end(id, now),
            Ev::Respond(s) => self.send_response(usize::from(s), now),
            Ev::FollowUp(s) => self.follow_up(usize::from(s), now),
            Ev::Timeout(s, seq) => self.on_timeout(usize::from(s), seq, now),
        }
    }

    fn schedule(&mut self, t: SimTime, ev: Ev) {
        self.seq += 1;
        self.events.push(Reverse((t, self.seq, ev)));
    }

    /// Whether station `s` has anything to send in AC `ac`.
    fn has_frames(&self, s: Sta, ac: usize) -> bool {
        !self.stations[s].queues[ac].is_empty() || self.waiting[s][ac] > 0
    }

    /// The earliest instant station `s` may start a TXOP, and in which AC: the highest-priority AC
    /// among those due first (an internal collision goes to the higher AC, §10.23.2.4).
    fn next_access(&self, s: Sta, now: SimTime) -> Option<(SimTime, usize)> {
        let st = &self.stations[s];
        if !st.may_contend() {
            return None;
        }
        // A plain loop, highest AC first so that a tie keeps it: this runs for every station on
        // every pass of `handle_timeout`.
        let waiting = &self.waiting[s];
        let mut best: Option<(SimTime, usize)> = None;
        for ac in (0..4).rev() {
            if st.queues[ac].is_empty() && waiting[ac] == 0 {
                continue;
            }
            let t = st.access_time(ac).max(now);
            if best.is_none_or(|(b, _)| t < b) {
                best = Some((t, ac));
            }
        }
        best
    }

    /// The next wake-up: the next internal event or `access`, whichever comes first, within the run.
    fn set_deadline(&mut self, access: Option<SimTime>) {
        let events = self.events.peek().map(|Reverse((t, _, _))| *t);
        self.deadline = SimTime::earliest(events, access).filter(|&t| t < self.end);
    }

    /// Start every TXOP due at `now`; whether any started, and the earliest access after `now`.
    fn start_due_accesses(&mut self, now: SimTime) -> (bool, Option<SimTime>) {
        let mut due = std::mem::take(&mut self.scratch.due);
        due.clear();
        let mut next = None;
        for s in 0..self.stations.len() {
            if let Some((t, ac)) = self.next_access(s, now) {
                if t <= now {
                    due.push((s, ac));
                } else {
                    next = SimTime::earliest(next, Some(t));
                }
            }
        }
        for &(s, ac) in &due {
            self.internal_collisions(s, ac, now);
            self.start_txop(s, ac, now);
        }
        let started = !due.is_empty();
        self.scratch.due = due;
        (started, next)
    }

    /// Lower ACs of `s` due at the same instant as `ac` lose the internal collision: they back off
    /// as after a failure (§10.23.2.4).
    fn internal_collisions(&mut self, s: Sta, ac: usize, now: SimTime) {
        for other in 0..ac {
            if self.has_frames(s, other) && self.stations[s].access_time(other) <= now {
                let st = &mut self.stations[s];
                let rng = &mut st.rng;
                st.edca[other].on_failure(rng);
                st.counted_until[other] = now;
            }
        }
    }

    /// The slot of the link (station, direction) a frame from `tx` to `rx` belongs to.
    fn link_slot(&mut self, tx: Sta, rx: Sta, now: SimTime) -> &mut WifiSlot {
        let (sta, dir) = if tx == 0 { (rx, 0) } else { (tx, 1) };
        self.slots[sta - 1][dir].at(now.min(SimTime(self.end.as_ns().saturating_sub(1))))
    }

    /// Credit the air time `[start, end)` of a data PPDU from `tx` to `rx` to the slots it spans.
    fn add_airtime(&mut self, tx: Sta, rx: Sta, start: SimTime, end: SimTime) {
        let (sta, dir) = if tx == 0 { (rx, 0) } else { (tx, 1) };
        let slots = &mut self.slots[sta - 1][dir];
        let width_ns = slots.width().as_ns();
        let mut t = start.as_ns();
        while t < end.as_ns() {
            let slot_end = (t / width_ns + 1) * width_ns;
            let until = slot_end.min(end.as_ns());
            slots.at(SimTime(t)).airtime_ns += until - t;
            t = until;
        }
    }

    /// Note the bytes queued at `s` for `r` in the link's slot.
    fn note_queue(&mut self, s: Sta, r: Sta, now: SimTime) {
        let slot = peer_slot(s, r);
        let bytes: u64 = self.stations[s].queues.iter().map(|q| q.peer_bytes(slot)).sum();
        let x = self.link_slot(s, r, now);
        x.queue_bytes = bytes;
        x.queue_seen = true;
    }

    /// Close the books at the end of the run.
    pub fn finish(&mut self, _end: SimTime) {}

    /// The `wifi` table rows of this BSS.
    pub fn slots(&self) -> impl Iterator<Item = (&str, &str, &'static str, &WifiSlots)> {
        self.names[1..].iter().zip(&self.slots).flat_map(move |(name, s)| {
            [("dl", &s[0]), ("ul", &s[1])].map(|(d, x)| (self.name.as_str(), name.as_str(), d, x))
        })
    }

    /// Update station `s`'s count of agreements waiting to send, after agreement `k` changed.
    fn reflag(&mut self, k: u32) {
        let a = &mut self.agreements[k as usize];
        let now_flagged = a.orig.bar_needed || a.orig.retransmissions().next().is_some();
        if now_flagged != a.flagged {
            a.flagged = now_flagged;
            let w = &mut self.waiting[a.tx][a.ac.index()];
            if now_flagged {
                *w += 1;
            } else {
                *w -= 1;
            }
        }
    }

    /// Bring station `tx`'s count of held MPDUs in sync after agreement `k`'s originator changed
    /// from holding `before`.
    fn sync_held(&mut self, k: u32, before: u32) {
        let a = &self.agreements[k as usize];
        let (tx, ac, after) = (a.tx, a.ac.index(), a.orig.held());
        let held = &mut self.stations[tx].held[ac];
        *held = *held - before + after;
        self.reflag(k);
    }
}

/// Station `s` of the BSS (0: the AP) before anything happens, with its seeded streams.
fn new_station(spec: &BssSpec, cfg: &Config, s: Sta, names: &[String], nss: &[u8], seed: u64, label: &str) -> Station {
    let n = names.len();
    let peers: Vec<Sta> = peers_of(s, n).collect();
    let stream = |what: &str| RngStream::new(seed, &format!("{label}:{}:{what}", names[s]));
    let rate = |p: Sta| {
        let caps = LinkCaps { width: cfg.width, gi: cfg.gi, nss: nss[s].min(nss[p]), fec: cfg.fec };
        RateManager::new(spec.rate_manager, caps, stream(&format!("rate:{}", names[p])))
    };
    Station {
        nss: nss[s],
        edca: Ac::ALL.map(|ac| Edcaf::new(spec.ac_params(ac))),
        counted_until: [SimTime::ZERO; 4],
        queues: [0; 4].map(|_| MacQueue::new(peers.len())),
        held: [0; 4],
        cs: CarrierSense::default(),
        phy: Phy::Idle,
        exchange: Exchange::Idle,
        txop: None,
        response: None,
        follow_up: None,
        psdu_sns: Vec::with_capacity(64),
        psdu_apep_bytes: 0,
        rates: peers.iter().map(|&p| rate(p)).collect(),
        rng: stream("backoff"),
        rx_rng: stream("rx"),
        exchange_seq: 0,
    }
}

/// One Block Ack agreement per (sender, peer, AC) of `n` members, and the index of each by
/// `(sender * (n - 1) + peer slot) * 4 + AC`.
fn agreements(n: usize) -> (Vec<Agreement>, Vec<u32>) {
    let max_peers = n - 1;
    let mut agreements = Vec::new();
    let mut agreement_of = vec![u32::MAX; n * max_peers * 4];
    for s in 0..n {
        for (slot_i, p) in peers_of(s, n).enumerate() {
            for ac in Ac::ALL {
                agreement_of[(s * max_peers + slot_i) * 4 + ac.index()] = agreements.len() as u32;
                let (orig, recip) = (Originator::default(), Recipient::default());
                agreements.push(Agreement { tx: s, rx: p, ac, orig, recip, flagged: false });
            }
        }
    }
    (agreements, agreement_of)
}

/// The radio links between every pair of members, from the shared channel models.
fn links(spec: &BssSpec, cfg: &Config, names: &[String], seed: u64, label: &str) -> Links {
    let placements: Vec<&crate::radio::spec::Placement> =
        std::iter::once(&spec.ap_radio.placement).chain(spec.stations.iter().map(|s| &s.placement)).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let link_spec = LinkSpec {
        pathloss: &spec.pathloss,
        shadowing: spec.shadowing.as_ref(),
        carrier_mhz: spec.carrier_mhz(),
        bandwidth_hz: cfg.width.hz(),
        tx_power_dbm: spec.tx_power_dbm,
        noise_figure_db: spec.noise_figure_db,
    };
    Links::new(&link_spec, &placements, &name_refs, seed, label)
}

/// The station index of each world node of the BSS, by node index.
fn sta_by_node(nodes: &[NodeId]) -> Vec<u16> {
    let len = nodes.iter().map(|n| n.index() + 1).max().unwrap_or(0);
    let mut by_node = vec![u16::MAX; len];
    for (s, n) in nodes.iter().enumerate() {
        by_node[n.index()] = u16::try_from(s).expect("the schema caps a BSS at MAX_STATIONS");
    }
    by_node
}

/// The stations `s` exchanges data with: the AP with every station, a station with the AP.
fn peers_of(s: Sta, n: usize) -> impl Iterator<Item = Sta> {
    if s == 0 {
        1..n
    } else {
        0..1
    }
}

/// `peer`'s index among `s`'s peers.
fn peer_slot(s: Sta, peer: Sta) -> usize {
    if s == 0 {
        peer - 1
    } else {
        0
    }
}

/// The station that is peer slot `slot` of `s`.
fn peer_at(s: Sta, slot: usize) -> Sta {
    if s == 0 {
        slot + 1
    } else {
        0
    }
}

fn config(spec: &BssSpec) -> Config {
    let width = spec.width();
    let ns3 = spec.profile == WifiProfile::Ns3;
    // A PPDU of width W spreads its power over W: its share in the primary 20 MHz is 20 / W.
    let primary_share_db = 10.0 * (f64::from(width.mhz()) / 20.0).log10();
    Config {
        width,
        gi: spec.guard_interval(),
        fec: match spec.fec {
            FecSpec::Bcc => Fec::Bcc,
            FecSpec::Ldpc => Fec::Ldpc,
        },
        sig_b: !ns3,
        response_vs_data_rate: ns3,
        max_ampdu_bytes: spec.max_ampdu_bytes,
        rts_threshold_bytes: spec.rts_cts_threshold_bytes,
        queue_packets: spec.queue_packets,
        lifetime: SimDuration::from_ms_f64(spec.lifetime_ms()),
        cca_mw: dbm_mw(CCA_SENSITIVITY_20MHZ_DBM + primary_share_db),
        ed_mw: dbm_mw(CCA_ENERGY_DETECT_DBM + primary_share_db),
        preamble_rssi_mw: dbm_mw(PREAMBLE_DETECT_RSSI_DBM + primary_share_db),
    }
}

#[cfg(test)]
mod tests;
