//! Per-flow statistics with ns-3 FlowMonitor's definitions
//! (src/flow-monitor/model/flow-monitor.cc, `ReportFirstTx` / `ReportLastRx` / `ReportDrop`),
//! so a cellcc result compares number for number with an ns-3 study:
//! - tx/rx packets and bytes are IP datagrams (headers included), counted at
//!   the source's and destination's IP layer; a fragmented datagram counts once,
//!   when reassembled;
//! - delay = rx time - tx time; jitter = |delay_i - delay_{i-1}| of consecutive
//!   received packets; mean jitter = jitterSum / (rxPackets - 1);
//! - lost = datagrams dropped in the network (queue, random loss, reassembly
//!   timeout). Unlike ns-3 (which also declares packets lost after
//!   `MaxPerHopDelay`), packets still in flight at the end are not counted lost.

use crate::sim::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, Default)]
pub struct FlowStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub lost_packets: u64,
    pub first_tx: Option<SimTime>,
    pub last_rx: Option<SimTime>,
    delay_sum_ns: u128,
    jitter_sum_ns: u128,
    last_delay: Option<SimDuration>,
}

impl FlowStats {
    pub fn on_tx(&mut self, now: SimTime, ip_bytes: u32) {
        self.tx_packets += 1;
        self.tx_bytes += ip_bytes as u64;
        self.first_tx.get_or_insert(now);
    }

    /// A datagram arrived whole; returns its one-way delay.
    pub fn on_rx(&mut self, now: SimTime, ip_bytes: u32, sent_at: SimTime) -> SimDuration {
        let delay = now - sent_at;
        if let Some(last) = self.last_delay {
            self.jitter_sum_ns += delay.as_ns().abs_diff(last.as_ns()) as u128;
        }
        self.last_delay = Some(delay);
        self.delay_sum_ns += delay.as_ns() as u128;
        self.rx_packets += 1;
        self.rx_bytes += ip_bytes as u64;
        self.last_rx = Some(now);
        delay
    }

    pub fn on_lost(&mut self) {
        self.lost_packets += 1;
    }

    pub fn mean_delay(&self) -> Option<SimDuration> {
        (self.rx_packets > 0).then(|| SimDuration((self.delay_sum_ns / self.rx_packets as u128) as u64))
    }

    pub fn mean_jitter(&self) -> Option<SimDuration> {
        (self.rx_packets > 1).then(|| SimDuration((self.jitter_sum_ns / (self.rx_packets - 1) as u128) as u64))
    }

    /// lost / tx, as FlowMonitor users compute it.
    pub fn loss_ratio(&self) -> f64 {
        if self.tx_packets == 0 {
            0.0
        } else {
            self.lost_packets as f64 / self.tx_packets as f64
        }
    }

    /// rxBytes * 8 / (timeLastRxPacket - timeFirstTxPacket), the usual FlowMonitor throughput.
    pub fn throughput_bps(&self) -> f64 {
        match (self.first_tx, self.last_rx) {
            (Some(a), Some(b)) if b > a => self.rx_bytes as f64 * 8.0 / (b - a).as_secs_f64(),
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_is_mean_absolute_difference_of_consecutive_delays() {
        let mut s = FlowStats::default();
        s.on_tx(SimTime(0), 100);
        // Delays 10, 14, 11 ms -> jitter sum 4 + 3 = 7 ms over 2 -> 3.5 ms; mean delay 35/3 ms.
        s.on_rx(SimTime(10_000_000), 100, SimTime(0));
        s.on_rx(SimTime(24_000_000), 100, SimTime(10_000_000));
        s.on_rx(SimTime(31_000_000), 100, SimTime(20_000_000));
        assert_eq!(s.mean_jitter(), Some(SimDuration::from_us(3_500)));
        assert_eq!(s.mean_delay(), Some(SimDuration(35_000_000 / 3)));
        // 300 bytes over 31 ms.
        assert!((s.throughput_bps() - 2400.0 / 0.031).abs() < 1e-6);
    }
}
