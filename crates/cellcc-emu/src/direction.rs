//! One direction of the emulated path, sans-IO:
//! arrival -> drop-tail queue -> server (rate or trace) -> Bernoulli loss -> propagation delay.
//! Times are CLOCK_MONOTONIC nanoseconds handed in by the caller; nothing here reads a clock.

use crate::link::{Departure, Server};
use crate::queue::DropTail;
use crate::stats::DirectionStats;
use crate::Packet;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Independent per-packet loss (Bernoulli), from its own seeded stream.
#[derive(Debug)]
pub struct BernoulliLoss {
    p: f64,
    rng: ChaCha8Rng,
}

impl BernoulliLoss {
    /// `stream` separates the directions, so one direction's traffic never shifts the other's draws.
    pub fn new(p: f64, seed: u64, stream: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        BernoulliLoss { p, rng }
    }

    fn drops(&mut self) -> bool {
        self.p > 0.0 && self.rng.random::<f64>() < self.p
    }
}

#[derive(Debug)]
pub struct Direction {
    queue: DropTail,
    server: Server,
    loss: BernoulliLoss,
    delay_ns: u64,
    /// Packets in propagation: when they reach the far end (FIFO: constant delay), when they
    /// entered the emulator, and the datagram.
    in_flight: VecDeque<(u64, u64, Vec<u8>)>,
    departures: Vec<Departure>,
    pub stats: DirectionStats,
}

impl Direction {
    pub fn new(queue: DropTail, server: Server, loss: BernoulliLoss, delay_ns: u64) -> Self {
        Direction {
            queue,
            server,
            loss,
            delay_ns,
            in_flight: VecDeque::new(),
            departures: Vec::new(),
            stats: DirectionStats::default(),
        }
    }

    /// A packet read from the ingress device at `now_ns`.
    pub fn arrive(&mut self, now_ns: u64, data: Vec<u8>) {
        // Serve up to now first, so the queue the arrival meets is the queue at `now` (rationalize).
        self.advance(now_ns);
        let p = Packet { data, arrival_ns: now_ns };
        self.stats.on_arrival(p.len_bytes());
        match self.queue.enqueue(p) {
            Ok(()) => self.stats.on_queue_change(self.queue.len_bytes()),
            Err(dropped) => self.stats.on_queue_drop(dropped.len_bytes()),
        }
        // An idle link starts serving the arrival at once.
        self.advance(now_ns);
    }

    /// Run the link up to `now_ns`; departures go through loss into propagation.
    pub fn advance(&mut self, now_ns: u64) {
        self.server.advance(now_ns, &mut self.queue, &mut self.departures);
        for (p, t) in self.departures.drain(..) {
            self.stats.on_departure(t, p.arrival_ns, p.len_bytes());
            if self.loss.drops() {
                self.stats.on_random_loss(p.len_bytes());
                continue;
            }
            self.in_flight.push_back((t + self.delay_ns, p.arrival_ns, p.data));
        }
        self.stats.on_queue_change(self.queue.len_bytes());
    }

    /// The next packet whose propagation has ended by `now_ns`, with the time it was due. Its
    /// one-way delay through the emulator is counted as `now_ns` - arrival: what it experienced,
    /// including how late it is written.
    pub fn pop_due(&mut self, now_ns: u64) -> Option<(u64, Vec<u8>)> {
        if self.in_flight.front().is_some_and(|(t, _, _)| *t <= now_ns) {
            let (due, arrival, data) = self.in_flight.pop_front()?;
            self.stats.on_delivery(data.len() as u64, now_ns - arrival);
            Some((due, data))
        } else {
            None
        }
    }

    /// The earliest time this direction has something to do.
    pub fn next_event_ns(&self) -> Option<u64> {
        let link = self.server.next_event_ns(&self.queue);
        let wire = self.in_flight.front().map(|(t, _, _)| *t);
        match (link, wire) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn queue_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }

    pub fn queue_packets(&self) -> u64 {
        self.queue.len_packets()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::{RateServer, TraceServer};
    use crate::queue::QueueLimit;
    use crate::{NS_PER_MS, NS_PER_S};

    fn rate_dir(limit: QueueLimit, p: f64, delay_ms: u64) -> Direction {
        Direction::new(
            DropTail::new(limit),
            Server::Rate(RateServer::new(12_000_000)),
            BernoulliLoss::new(p, 7, 0),
            delay_ms * NS_PER_MS,
        )
    }

    fn drain(d: &mut Direction, now: u64) -> usize {
        d.advance(now);
        std::iter::from_fn(|| d.pop_due(now)).count()
    }

    #[test]
    fn a_packet_arrives_after_serialisation_plus_delay() {
        let mut d = rate_dir(QueueLimit::Unlimited, 0.0, 20);
        d.arrive(0, vec![0; 1500]);
        assert_eq!(d.next_event_ns(), Some(NS_PER_MS));
        assert_eq!(drain(&mut d, 21 * NS_PER_MS - 1), 0);
        assert_eq!(d.next_event_ns(), Some(21 * NS_PER_MS));
        assert_eq!(drain(&mut d, 21 * NS_PER_MS), 1);
        assert_eq!(d.next_event_ns(), None);
        assert_eq!(d.stats.total.delay_sum_ns, 21 * NS_PER_MS);
    }

    #[test]
    fn a_full_queue_drops_the_arrival_and_counts_it() {
        let mut d = rate_dir(QueueLimit::Packets(2), 0.0, 0);
        // First goes straight onto the wire, two wait, the fourth is dropped.
        for _ in 0..4 {
            d.arrive(0, vec![0; 1500]);
        }
        assert_eq!(d.queue_packets(), 2);
        assert_eq!(d.stats.total.queue_drops, 1);
        assert_eq!(drain(&mut d, 100 * NS_PER_MS), 3);
    }

    #[test]
    fn bernoulli_loss_rate_matches_p_and_is_seeded() {
        let run = || {
            let mut d = rate_dir(QueueLimit::Unlimited, 0.1, 0);
            for i in 0..20_000u64 {
                d.arrive(i * NS_PER_MS, vec![0; 1500]);
            }
            drain(&mut d, 100 * NS_PER_S);
            d.stats.total.random_losses
        };
        let lost = run();
        assert_eq!(lost, run(), "same seed, same losses");
        // 20000 draws at p = 0.1: mean 2000, sd 42; 5 sd either side.
        assert!((1790..=2210).contains(&lost), "lost {lost}");
    }

    #[test]
    fn trace_direction_delivers_each_opportunity_after_the_delay() {
        let mut d = Direction::new(
            DropTail::new(QueueLimit::Unlimited),
            Server::Trace(TraceServer::new(vec![2, 2, 4], 1500, 0)),
            BernoulliLoss::new(0.0, 1, 0),
            10 * NS_PER_MS,
        );
        for _ in 0..3 {
            d.arrive(0, vec![0; 1500]);
        }
        assert_eq!(drain(&mut d, 11 * NS_PER_MS), 0);
        assert_eq!(drain(&mut d, 12 * NS_PER_MS), 2);
        assert_eq!(drain(&mut d, 14 * NS_PER_MS), 1);
    }
}
