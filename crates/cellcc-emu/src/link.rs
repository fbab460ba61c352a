//! The bottleneck server: how packets leave the queue. Either a constant-rate serialiser or a
//! Mahimahi trace of delivery opportunities (`link_queue.cc`, `rationalize` and
//! `use_a_delivery_opportunity`). Both run on a virtual timeline caught up lazily to `now`
//! (Mahimahi's rationalize), so a late wake-up delays the write, never the schedule.

use crate::queue::DropTail;
use crate::{Packet, NS_PER_MS, NS_PER_S};

/// A packet that left the link at `t_ns` (end of serialisation / its delivery opportunity).
pub type Departure = (Packet, u64);

#[derive(Debug)]
pub enum Server {
    Rate(RateServer),
    Trace(TraceServer),
}

impl Server {
    /// Serve the queue up to and including `now_ns`, appending departures in time order.
    pub fn advance(&mut self, now_ns: u64, queue: &mut DropTail, out: &mut Vec<Departure>) {
        match self {
            Server::Rate(s) => s.advance(now_ns, queue, out),
            Server::Trace(s) => s.advance(now_ns, queue, out),
        }
    }

    /// When the next departure can happen, if anything is waiting or in transmission.
    pub fn next_event_ns(&self, queue: &DropTail) -> Option<u64> {
        match self {
            Server::Rate(s) => s.in_transit.as_ref().map(|(_, done)| *done),
            Server::Trace(s) => (s.in_transit.is_some() || !queue.is_empty()).then(|| s.next_opportunity_ns()),
        }
    }
}

/// Constant-rate serialisation: a packet of L bytes occupies the link for 8 L / rate seconds.
#[derive(Debug)]
pub struct RateServer {
    rate_bps: u64,
    /// The packet on the wire and when its last bit leaves.
    in_transit: Option<(Packet, u64)>,
    /// When the link last became free.
    free_at_ns: u64,
    /// Sub-nanosecond remainder of serialisation times (units: bit-ns / rate), so that the
    /// long-run rate is exact rather than rounded per packet.
    carry: u64,
}

impl RateServer {
    pub fn new(rate_bps: u64) -> Self {
        assert!(rate_bps > 0, "rate must be positive");
        RateServer { rate_bps, in_transit: None, free_at_ns: 0, carry: 0 }
    }

    fn tx_time_ns(&mut self, len_bytes: u64) -> u64 {
        let scaled = u128::from(len_bytes) * 8 * u128::from(NS_PER_S) + u128::from(self.carry);
        let rate = u128::from(self.rate_bps);
        self.carry = (scaled % rate) as u64;
        (scaled / rate) as u64
    }

    fn advance(&mut self, now_ns: u64, queue: &mut DropTail, out: &mut Vec<Departure>) {
        loop {
            if let Some((_, done)) = &self.in_transit {
                if *done > now_ns {
                    return;
                }
                let (p, done) = self.in_transit.take().expect("checked above");
                self.free_at_ns = done;
                out.push((p, done));
            }
            let Some(p) = queue.dequeue() else { return };
            // An idle link starts at the arrival; a busy one when the previous packet is out.
            let start = self.free_at_ns.max(p.arrival_ns);
            if start > self.free_at_ns {
                self.carry = 0;
            }
            let done = start + self.tx_time_ns(p.len_bytes());
            self.in_transit = Some((p, done));
        }
    }
}

/// Mahimahi trace link: at each opportunity up to `opportunity_bytes` leave; a packet larger than
/// what is left spans opportunities; unused bytes of an opportunity are lost.
#[derive(Debug)]
pub struct TraceServer {
    schedule_ms: Vec<u64>,
    opportunity_bytes: u64,
    next_index: usize,
    /// Start of the current loop of the schedule.
    base_ns: u64,
    /// The packet being delivered and how many of its bytes are still to go.
    in_transit: Option<(Packet, u64)>,
}

impl TraceServer {
    /// `start_ns`: when opportunity time 0 is (Mahimahi: link creation).
    pub fn new(schedule_ms: Vec<u64>, opportunity_bytes: u64, start_ns: u64) -> Self {
        assert!(schedule_ms.last().is_some_and(|&l| l > 0), "trace must advance when it loops");
        TraceServer { schedule_ms, opportunity_bytes, next_index: 0, base_ns: start_ns, in_transit: None }
    }

    pub fn next_opportunity_ns(&self) -> u64 {
        self.base_ns + self.schedule_ms[self.next_index] * NS_PER_MS
    }

    fn use_opportunity(&mut self) {
        self.next_index = (self.next_index + 1) % self.schedule_ms.len();
        if self.next_index == 0 {
            self.base_ns += self.schedule_ms[self.schedule_ms.len() - 1] * NS_PER_MS;
        }
    }

    fn advance(&mut self, now_ns: u64, queue: &mut DropTail, out: &mut Vec<Departure>) {
        while self.next_opportunity_ns() <= now_ns {
            let t = self.next_opportunity_ns();
            self.use_opportunity();
            let mut budget = self.opportunity_bytes;
            while budget > 0 {
                if self.in_transit.is_none() {
                    let Some(p) = queue.dequeue() else { break };
                    let left = p.len_bytes();
                    self.in_transit = Some((p, left));
                }
                let (_, left) = self.in_transit.as_mut().expect("set above");
                let sent = budget.min(*left);
                *left -= sent;
                budget -= sent;
                if *left == 0 {
                    let (p, _) = self.in_transit.take().expect("set above");
                    debug_assert!(p.arrival_ns <= t, "a packet left before it arrived");
                    out.push((p, t));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::QueueLimit;

    fn pkt(n: usize, at: u64) -> Packet {
        Packet { data: vec![0; n], arrival_ns: at }
    }

    #[test]
    fn rate_server_serialises_back_to_back_at_the_exact_rate() {
        // 1500 B at 12 Mbit/s = 1 ms each.
        let mut s = Server::Rate(RateServer::new(12_000_000));
        let mut q = DropTail::new(QueueLimit::Unlimited);
        for _ in 0..3 {
            q.enqueue(pkt(1500, 0)).unwrap();
        }
        let mut out = Vec::new();
        s.advance(10 * NS_PER_MS, &mut q, &mut out);
        let times: Vec<u64> = out.iter().map(|d| d.1).collect();
        assert_eq!(times, vec![NS_PER_MS, 2 * NS_PER_MS, 3 * NS_PER_MS]);
    }

    #[test]
    fn rate_server_long_run_rate_has_no_rounding_drift() {
        // 1500 B at 7 Mbit/s is 1714285.714... ns: per-packet rounding would drift 0.7 ns each.
        let mut s = Server::Rate(RateServer::new(7_000_000));
        let mut q = DropTail::new(QueueLimit::Unlimited);
        let n = 7000u64;
        for _ in 0..n {
            q.enqueue(pkt(1500, 0)).unwrap();
        }
        let mut out = Vec::new();
        s.advance(u64::MAX / 2, &mut q, &mut out);
        let last = out.last().unwrap().1;
        assert_eq!(last, n * 1500 * 8 * NS_PER_S / 7_000_000);
    }

    #[test]
    fn rate_server_idle_link_starts_at_the_arrival() {
        let mut s = Server::Rate(RateServer::new(12_000_000));
        let mut q = DropTail::new(QueueLimit::Unlimited);
        let mut out = Vec::new();
        q.enqueue(pkt(1500, 5 * NS_PER_MS)).unwrap();
        s.advance(5 * NS_PER_MS, &mut q, &mut out);
        assert!(out.is_empty());
        assert_eq!(s.next_event_ns(&q), Some(6 * NS_PER_MS));
        s.advance(6 * NS_PER_MS, &mut q, &mut out);
        assert_eq!(out[0].1, 6 * NS_PER_MS);
    }

    fn trace(schedule: &[u64]) -> Server {
        Server::Trace(TraceServer::new(schedule.to_vec(), 1500, 0))
    }

    #[test]
    fn trace_delivers_one_mtu_per_opportunity_and_repeats_for_repeated_times() {
        let mut s = trace(&[1, 1, 3]);
        let mut q = DropTail::new(QueueLimit::Unlimited);
        for _ in 0..5 {
            q.enqueue(pkt(1500, 0)).unwrap();
        }
        let mut out = Vec::new();
        s.advance(7 * NS_PER_MS, &mut q, &mut out);
        // Loop period 3 ms: opportunities at 1, 1, 3, 4, 4, 6, 7, 7 ms.
        let times: Vec<u64> = out.iter().map(|d| d.1 / NS_PER_MS).collect();
        assert_eq!(times, vec![1, 1, 3, 4, 4]);
    }

    #[test]
    fn trace_packs_small_packets_and_spans_large_ones_as_mahimahi() {
        let mut s = trace(&[1, 2, 3]);
        let mut q = DropTail::new(QueueLimit::Unlimited);
        for n in [500, 500, 500, 2000] {
            q.enqueue(pkt(n, 0)).unwrap();
        }
        let mut out = Vec::new();
        s.advance(3 * NS_PER_MS, &mut q, &mut out);
        let times: Vec<u64> = out.iter().map(|d| d.1 / NS_PER_MS).collect();
        // Three 500 B packets share the 1 ms opportunity; the 2000 B one needs two more.
        assert_eq!(times, vec![1, 1, 1, 3]);
    }

    #[test]
    fn trace_wastes_opportunities_when_the_queue_is_empty() {
        let mut s = trace(&[1, 2, 3, 4]);
        let mut q = DropTail::new(QueueLimit::Unlimited);
        let mut out = Vec::new();
        s.advance(2 * NS_PER_MS, &mut q, &mut out);
        q.enqueue(pkt(1500, 2 * NS_PER_MS)).unwrap();
        q.enqueue(pkt(1500, 2 * NS_PER_MS)).unwrap();
        assert_eq!(s.next_event_ns(&q), Some(3 * NS_PER_MS));
        s.advance(10 * NS_PER_MS, &mut q, &mut out);
        let times: Vec<u64> = out.iter().map(|d| d.1 / NS_PER_MS).collect();
        assert_eq!(times, vec![3, 4]);
    }
}
