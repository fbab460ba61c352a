//! Counters of one direction: totals for the run summary and per-interval queue records
//! (the `queues` table of cellcc's output: bytes, packets, max_bytes, drops per slot).

use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub arrived_packets: u64,
    pub arrived_bytes: u64,
    pub queue_drops: u64,
    pub queue_drop_bytes: u64,
    pub departed_packets: u64,
    pub departed_bytes: u64,
    pub random_losses: u64,
    pub random_loss_bytes: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    /// Sum of delivered packets' one-way delays through the emulator (FlowMonitor delaySum).
    pub delay_sum_ns: u64,
    /// Sum of |delay_i - delay_{i-1}| of consecutive deliveries (FlowMonitor jitterSum).
    pub jitter_sum_ns: u64,
}

#[derive(Debug, Default)]
pub struct DirectionStats {
    pub total: Totals,
    /// Largest queue backlog since the last interval record.
    pub interval_max_bytes: u64,
    /// Drops (queue + random) since the last interval record.
    pub interval_drops: u64,
    /// (departure, arrival, bytes) of every packet served, when a departure log is kept.
    pub departure_log: Option<Vec<(u64, u64, u64)>>,
    last_delay_ns: Option<u64>,
}

impl DirectionStats {
    pub fn on_arrival(&mut self, len: u64) {
        self.total.arrived_packets += 1;
        self.total.arrived_bytes += len;
    }
    pub fn on_queue_drop(&mut self, len: u64) {
        self.total.queue_drops += 1;
        self.total.queue_drop_bytes += len;
        self.interval_drops += 1;
    }
    pub fn on_queue_change(&mut self, bytes: u64) {
        self.interval_max_bytes = self.interval_max_bytes.max(bytes);
    }
    pub fn on_departure(&mut self, t_ns: u64, arrival_ns: u64, len: u64) {
        self.total.departed_packets += 1;
        self.total.departed_bytes += len;
        if let Some(log) = &mut self.departure_log {
            log.push((t_ns, arrival_ns, len));
        }
    }
    pub fn on_random_loss(&mut self, len: u64) {
        self.total.random_losses += 1;
        self.total.random_loss_bytes += len;
        self.interval_drops += 1;
    }
    pub fn on_delivery(&mut self, len: u64, delay_ns: u64) {
        self.total.delivered_packets += 1;
        self.total.delivered_bytes += len;
        self.total.delay_sum_ns += delay_ns;
        if let Some(last) = self.last_delay_ns {
            self.total.jitter_sum_ns += delay_ns.abs_diff(last);
        }
        self.last_delay_ns = Some(delay_ns);
    }

    /// Close an interval: (max backlog bytes, drops) since the previous call; the window restarts
    /// from the current backlog.
    pub fn take_interval(&mut self, current_bytes: u64) -> (u64, u64) {
        let out = (self.interval_max_bytes.max(current_bytes), self.interval_drops);
        self.interval_max_bytes = current_bytes;
        self.interval_drops = 0;
        out
    }
}
