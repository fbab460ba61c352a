//! One direction of a link: queue, server (rate or trace), propagation delay,
//! random loss. The channel is passive: the world calls it on enqueue and on
//! its own events, and it answers when its next event is due.
//!
//! A rate server is FIFO at a constant rate, so a packet's departure is known
//! the moment it is queued: start = max(now, transmitter free), departure =
//! start + size / rate. The channel records start times and catches up lazily
//! ("rationalize(now)", as Mahimahi's link queue does) instead of scheduling an
//! event per transmission; queue occupancy at `now` is the packets not yet started.

use super::loss::LossModel;
use super::queue::{DropTail, QueueDiscipline};
use super::trace::TraceSchedule;
use crate::packet::{PacketId, Routing};
use crate::sim::{NodeId, RngStream, SimDuration, SimTime};
use std::collections::VecDeque;

/// A rate that changes in steps: `(from, rate_bps)` in increasing time, the first from 0.
/// A packet is serialised at the rate in force when its transmission starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateSchedule(Vec<(SimTime, u64)>);

impl RateSchedule {
    pub fn constant(rate_bps: u64) -> Self {
        RateSchedule(vec![(SimTime::ZERO, rate_bps)])
    }

    /// `initial_bps` from time 0, then each `(at, bps)` step.
    pub fn steps(initial_bps: u64, steps: impl IntoIterator<Item = (SimTime, u64)>) -> Self {
        let mut v = vec![(SimTime::ZERO, initial_bps)];
        v.extend(steps);
        debug_assert!(v.windows(2).all(|w| w[0].0 < w[1].0), "rate steps must increase in time");
        RateSchedule(v)
    }

    pub fn at(&self, t: SimTime) -> u64 {
        // A constant rate (every link without steps): no search, this runs per packet.
        if let [(_, rate_bps)] = self.0.as_slice() {
            return *rate_bps;
        }
        let i = self.0.partition_point(|&(from, _)| from <= t);
        self.0[i.max(1) - 1].1
    }
}

/// How the channel takes packets off its queue.
pub enum Server {
    /// Serialise each packet at a constant rate (ns-3 `PointToPointNetDevice`).
    /// `free_at`: when the transmitter finishes what it has accepted (each packet still in
    /// `queue` holds its transmission start).
    Rate { rate: RateSchedule, free_at: SimTime },
    /// Deliver up to one MTU of bytes at each trace opportunity (Mahimahi).
    /// `same_instant`: the latest arrival time and how many packets (at the queue's tail)
    /// arrived then; an opportunity at that very time does not serve them (link_queue.cc).
    Trace {
        schedule: TraceSchedule,
        next_k: u64,
        head_bytes_left: u32,
        state: TraceState,
        same_instant: (SimTime, u32),
    },
}

impl Server {
    /// A trace server before its first packet.
    pub fn trace(schedule: TraceSchedule) -> Self {
        Server::Trace {
            schedule,
            next_k: 0,
            head_bytes_left: 0,
            state: TraceState::Idle,
            same_instant: (SimTime::ZERO, 0),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceState {
    Idle,
    /// An `Opportunity` event is scheduled for opportunity `k`.
    Waiting(u64),
}

/// Counters of one channel.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChannelStats {
    pub queue_drops: u64,
    pub loss_drops: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    /// Drops since the last time-series slot.
    pub slot_drops: u64,
    /// Largest queue occupancy since the last slot, bytes.
    pub slot_max_bytes: u64,
}

pub struct Channel {
    /// `"<link id>:forward"` or `"<link id>:reverse"`.
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub mtu_bytes: u32,
    /// Encapsulation added to every packet on this link, bytes (GTP-U/UDP/IPv4 on an S1-U).
    pub overhead_bytes: u32,
    pub delay: SimDuration,
    pub queue: DropTail,
    pub server: Server,
    pub loss: LossModel,
    pub rng: RngStream,
    pub stats: ChannelStats,
    /// CE-mark ECN-capable arrivals when this many packets are queued (DCTCP's K).
    pub ecn_threshold_packets: Option<u32>,
    /// Packets propagating, in arrival order: the delay is constant, so the wire
    /// is FIFO and only its head needs an event (keeps the event heap small).
    /// Each packet's routing fields ride with it, so a router forwards it without its slot.
    pub wire: VecDeque<(SimTime, PacketId, Routing)>,
    /// The rate server's last serialisation time.
    pub tx_time: TxTimeMemo,
}

/// The last serialisation time computed and its inputs. A link mostly carries one packet
/// size each way (full segments one way, ACKs the other), so the division behind
/// `SimDuration::transmission` is rarely needed; the value is the same either way.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxTimeMemo {
    bytes: u64,
    rate_bps: u64,
    time: SimDuration,
}

impl TxTimeMemo {
    /// `SimDuration::transmission(bytes, rate_bps)`.
    pub fn get(&mut self, bytes: u64, rate_bps: u64) -> SimDuration {
        if bytes != self.bytes || rate_bps != self.rate_bps {
            *self = TxTimeMemo { bytes, rate_bps, time: SimDuration::transmission(bytes, rate_bps) };
        }
        self.time
    }
}

/// What an enqueue did.
#[derive(Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// The queue was full: the packet is handed back for the drop accounting.
    Dropped(PacketId),
    /// Queued behind others: nothing to schedule.
    Queued,
    /// The server was idle: schedule its next event at this time.
    Wake(SimTime),
    /// Rate server: the packet will leave the transmitter at this time.
    Departs(SimTime),
}

impl Channel {
    /// Largest inner IP datagram the link carries once encapsulated, bytes.
    #[inline]
    pub fn payload_mtu_bytes(&self) -> u32 {
        self.mtu_bytes - self.overhead_bytes
    }

    /// Queue a packet of `ip_bytes`; the link serialises it with its encapsulation. Inline in
    /// the world's one caller (every packet crosses it).
    #[inline(always)]
    pub fn enqueue(&mut self, now: SimTime, id: PacketId, ip_bytes: u32) -> Enqueued {
        let bytes = ip_bytes + self.overhead_bytes;
        self.rationalize(now);
        // A rate server starts it once the transmitter is free; a trace server ignores starts.
        let start = match &self.server {
            Server::Rate { free_at, .. } => now.max(*free_at),
            Server::Trace { .. } => now,
        };
        if let Err(id) = self.queue.enqueue_starting(id, bytes, start) {
            self.stats.queue_drops += 1;
            self.stats.slot_drops += 1;
            return Enqueued::Dropped(id);
        }
        self.stats.slot_max_bytes = self.stats.slot_max_bytes.max(self.queue.len_bytes());
        match &mut self.server {
            Server::Rate { rate, free_at } => {
                *free_at = start + self.tx_time.get(bytes as u64, rate.at(start));
                Enqueued::Departs(*free_at)
            }
            Server::Trace { schedule, next_k, state, same_instant, .. } => {
                *same_instant = if same_instant.0 == now { (now, same_instant.1 + 1) } else { (now, 1) };
                if *state != TraceState::Idle {
                    return Enqueued::Queued;
                }
                // link_queue.cc read_packet: rationalize(now) before the enqueue.
                let k = (*next_k).max(schedule.first_after(now));
                *state = TraceState::Waiting(k);
                Enqueued::Wake(schedule.time_of(k))
            }
        }
    }

    /// Step marking (RFC 8257 §3.1): an ECN-capable packet arriving now is
    /// CE-marked when the queue holds at least K packets.
    pub fn marks_ce(&mut self, now: SimTime) -> bool {
        let Some(k) = self.ecn_threshold_packets else { return false };
        self.rationalize(now);
        self.queue.len_packets() >= k as usize
    }

    /// Rate server: packets whose transmission has started by `now` leave the queue.
    pub fn rationalize(&mut self, now: SimTime) {
        if let Server::Rate { free_at, .. } = self.server {
            // The transmitter is free once the last packet queued has been sent, so every
            // queued packet has started: all leave, without reading the queue's entries (the
            // head's load missed the cache on most enqueues of a network's S1-U links).
            if free_at <= now {
                self.queue.clear();
                return;
            }
            while self.queue.front_start().is_some_and(|s| s <= now) {
                self.queue.dequeue();
            }
        }
    }

    /// Trace server's opportunity: serve up to one MTU of bytes, calling
    /// `deliver` for each packet completed; returns the next opportunity time.
    pub fn on_opportunity(&mut self, mut deliver: impl FnMut(PacketId)) -> Option<SimTime> {
        let mtu = self.mtu_bytes;
        let Server::Trace { schedule, next_k, head_bytes_left, state, same_instant } = &mut self.server else {
            panic!("Opportunity on a rate channel")
        };
        let TraceState::Waiting(k) = *state else { panic!("Opportunity while idle") };
        // Packets that arrived at this opportunity's own time came after its rationalize (link_queue.cc).
        let held = if same_instant.0 == schedule.time_of(k) { same_instant.1 as usize } else { 0 };
        // link_queue.cc use_a_delivery_opportunity(): a packet may span opportunities.
        let mut budget = mtu;
        while budget > 0 && self.queue.len_packets() > held {
            let Some((id, bytes)) = self.queue.front() else {
                break;
            };
            let left = if *head_bytes_left == 0 { bytes } else { *head_bytes_left };
            if left <= budget {
                budget -= left;
                *head_bytes_left = 0;
                self.queue.dequeue();
                deliver(id);
            } else {
                *head_bytes_left = left - budget;
                budget = 0;
            }
        }
        *next_k = k + 1;
        if self.queue.is_empty() {
            *state = TraceState::Idle;
            None
        } else {
            *state = TraceState::Waiting(k + 1);
            Some(schedule.time_of(k + 1))
        }
    }

    /// Apply random loss to a packet leaving the wire; true = lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        let lost = self.loss.lose(&mut self.rng);
        if lost {
            self.stats.loss_drops += 1;
            self.stats.slot_drops += 1;
        }
        lost
    }

    /// Put a packet on the wire as it leaves the server at `departs`; returns its
    /// arrival time if it is the head (the caller then schedules the wire's next arrival).
    #[inline]
    pub fn launch(&mut self, departs: SimTime, id: PacketId, routing: Routing) -> Option<SimTime> {
        let at = departs + self.delay;
        self.wire.push_back((at, id, routing));
        (self.wire.len() == 1).then_some(at)
    }

    /// The head packet arrived; returns it and the next arrival time, if any.
    #[inline]
    pub fn land(&mut self) -> (PacketId, Routing, Option<SimTime>) {
        let (_, id, routing) = self.wire.pop_front().expect("an arrival event implies a packet on the wire");
        (id, routing, self.wire.front().map(|&(t, _, _)| t))
    }

    /// Nominal capacity, bit/s (a trace's mean rate, a rate link's initial rate).
    pub fn capacity_bps(&self) -> f64 {
        match &self.server {
            Server::Rate { rate, .. } => rate.at(SimTime::ZERO) as f64,
            Server::Trace { schedule, .. } => schedule.mean_rate_bps(self.mtu_bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::queue::drop_tail::Limit;

    fn channel(server: Server) -> Channel {
        Channel {
            name: "l:forward".into(),
            from: NodeId(0),
            to: NodeId(1),
            mtu_bytes: 1500,
            overhead_bytes: 0,
            delay: SimDuration::from_ms(10),
            queue: DropTail::new(Limit::Packets(100)),
            server,
            loss: LossModel::None,
            rng: RngStream::new(1, "l"),
            stats: ChannelStats::default(),
            ecn_threshold_packets: None,
            wire: VecDeque::new(),
            tx_time: TxTimeMemo::default(),
        }
    }

    #[test]
    fn rate_server_serialises_back_to_back_and_catches_up_lazily() {
        let mut c = channel(Server::Rate { rate: RateSchedule::constant(12_000_000), free_at: SimTime::ZERO });
        // 1500 B at 12 Mbit/s = 1 ms each.
        assert_eq!(c.enqueue(SimTime::ZERO, PacketId(1), 1500), Enqueued::Departs(SimTime(1_000_000)));
        assert_eq!(c.enqueue(SimTime::ZERO, PacketId(2), 1500), Enqueued::Departs(SimTime(2_000_000)));
        // Packet 1 is on the transmitter, packet 2 waits.
        assert_eq!(c.queue.len_packets(), 1);
        c.rationalize(SimTime(1_000_000));
        assert_eq!(c.queue.len_packets(), 0);
        assert_eq!(c.enqueue(SimTime(5_000_000), PacketId(3), 1500), Enqueued::Departs(SimTime(6_000_000)));
    }

    #[test]
    fn a_rate_step_applies_to_packets_starting_after_it() {
        let rate = RateSchedule::steps(12_000_000, [(SimTime(1_500_000), 6_000_000)]);
        let mut c = channel(Server::Rate { rate, free_at: SimTime::ZERO });
        assert_eq!(c.enqueue(SimTime::ZERO, PacketId(1), 1500), Enqueued::Departs(SimTime(1_000_000)));
        // Starts at 1 ms, before the step: still 1 ms long.
        assert_eq!(c.enqueue(SimTime::ZERO, PacketId(2), 1500), Enqueued::Departs(SimTime(2_000_000)));
        // Starts at 2 ms, after the step to 6 Mbit/s: 2 ms long.
        assert_eq!(c.enqueue(SimTime::ZERO, PacketId(3), 1500), Enqueued::Departs(SimTime(4_000_000)));
    }

    #[test]
    fn an_encapsulating_link_serialises_the_outer_packet() {
        let mut c = channel(Server::Rate { rate: RateSchedule::constant(12_000_000), free_at: SimTime::ZERO });
        c.overhead_bytes = 36;
        // (1464 + 36) B at 12 Mbit/s = 1 ms.
        assert_eq!(c.enqueue(SimTime::ZERO, PacketId(1), 1464), Enqueued::Departs(SimTime(1_000_000)));
        assert_eq!(c.payload_mtu_bytes(), 1464);
    }

    #[test]
    fn a_full_rate_queue_drops_arrivals() {
        let mut c = channel(Server::Rate { rate: RateSchedule::constant(12_000_000), free_at: SimTime::ZERO });
        c.queue = DropTail::new(Limit::Packets(1));
        c.enqueue(SimTime::ZERO, PacketId(1), 1500);
        c.enqueue(SimTime::ZERO, PacketId(2), 1500);
        assert_eq!(c.enqueue(SimTime::ZERO, PacketId(3), 1500), Enqueued::Dropped(PacketId(3)));
    }

    #[test]
    fn trace_server_fits_small_packets_into_one_opportunity_and_splits_big_ones() {
        let schedule = TraceSchedule::parse("1\n2\n").unwrap();
        let mut c = channel(Server::trace(schedule));
        assert_eq!(c.enqueue(SimTime::ZERO, PacketId(1), 1000), Enqueued::Wake(SimTime(1_000_000)));
        c.enqueue(SimTime::ZERO, PacketId(2), 400);
        c.enqueue(SimTime::ZERO, PacketId(3), 1000);
        let mut out = Vec::new();
        // Opportunity 0: 1000 + 400 fit, 100 bytes of packet 3 start.
        assert_eq!(c.on_opportunity(|id| out.push(id)), Some(SimTime(2_000_000)));
        assert_eq!(out, vec![PacketId(1), PacketId(2)]);
        // Opportunity 1: the remaining 900 bytes of packet 3.
        assert_eq!(c.on_opportunity(|id| out.push(id)), None);
        assert_eq!(out, vec![PacketId(1), PacketId(2), PacketId(3)]);
    }

    #[test]
    fn a_packet_arriving_at_an_opportunitys_time_is_not_served_by_it() {
        // link_queue.cc read_packet: rationalize(now) uses the opportunities at `now` before the
        // packet is queued. Idle, arriving at exactly 1 ms: the 1-ms opportunity is gone, 2 ms.
        let schedule = TraceSchedule::parse("1\n2\n3\n").unwrap();
        let mut c = channel(Server::trace(schedule.clone()));
        assert_eq!(c.enqueue(SimTime(1_000_000), PacketId(1), 1000), Enqueued::Wake(SimTime(2_000_000)));
        // Busy: packet 1 waits for the 1-ms opportunity and packet 2 arrives at 1 ms. The
        // opportunity serves packet 1 only (500 bytes of it unused); packet 2 leaves at 2 ms.
        let mut c = channel(Server::trace(schedule));
        assert_eq!(c.enqueue(SimTime::ZERO, PacketId(1), 1000), Enqueued::Wake(SimTime(1_000_000)));
        assert_eq!(c.enqueue(SimTime(1_000_000), PacketId(2), 500), Enqueued::Queued);
        let mut out = Vec::new();
        assert_eq!(c.on_opportunity(|id| out.push(id)), Some(SimTime(2_000_000)));
        assert_eq!(out, vec![PacketId(1)]);
        assert_eq!(c.on_opportunity(|id| out.push(id)), None);
        assert_eq!(out, vec![PacketId(1), PacketId(2)]);
    }

    #[test]
    fn unused_trace_opportunities_are_not_saved_up() {
        let schedule = TraceSchedule::parse("1\n2\n3\n4\n").unwrap();
        let mut c = channel(Server::trace(schedule));
        // Arriving at 2.5 ms, the first usable opportunity is the one at 3 ms.
        assert_eq!(c.enqueue(SimTime(2_500_000), PacketId(1), 1500), Enqueued::Wake(SimTime(3_000_000)));
    }

    #[test]
    fn the_memo_gives_the_transmission_time_of_its_inputs() {
        let mut m = TxTimeMemo::default();
        // 1500 B at 10 Mbit/s = 1.2 ms; 52 B = 41.6 us; back to 1500 B at 100 Mbit/s = 120 us.
        assert_eq!(m.get(1500, 10_000_000), SimDuration::from_us(1200));
        assert_eq!(m.get(1500, 10_000_000), SimDuration::from_us(1200));
        assert_eq!(m.get(52, 10_000_000), SimDuration::from_ns(41_600));
        assert_eq!(m.get(1500, 100_000_000), SimDuration::from_us(120));
    }
}
