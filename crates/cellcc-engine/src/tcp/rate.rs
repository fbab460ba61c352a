//! Delivery-rate sampling, as Linux net/ipv4/tcp_rate.c (Cheng, Cardwell et al.,
//! draft-cheng-iccrg-delivery-rate-estimation).
//!
//! Each segment is stamped at send with the connection's delivery state
//! ([`TxSnapshot`]); when an ACK delivers it, the rate over the interval is
//! delivered / max(send phase, ACK phase) of the most recently sent segment.
//!
//! `tcp.rate_sample = "ns3"` runs ns-3.44's `TcpRateLinux` (src/internet/model/tcp-rate-ops.cc)
//! instead, which differs from tcp_rate.c in what it keeps between ACKs:
//!
//! ```text
//!  Linux  a fresh sample per ACK, from the most recently *sent* segment it delivered
//!  ns-3   one sample kept from ACK to ACK (`m_rateSample`), replaced only by a delivered
//!         segment stamped with more `delivered` than it (`SkbDelivered`); an ACK that
//!         replaces none reuses the kept interval with the connection's newer delivered count
//! ```
//!
//! so a rate can exceed what the link delivers (docs/ns3.md, BBR's standing queue), and ns-3
//! judges the interval against the least smoothed RTT (its `m_minRtt`).

use crate::cc::RateSample;
use crate::scenario::Stack;
use crate::sim::{SimDuration, SimTime};

/// `TCP_SKB_CB(skb)->tx`: the connection's delivery state when a segment was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxSnapshot {
    pub delivered: u64,
    pub delivered_time: SimTime,
    pub first_tx_time: SimTime,
    pub app_limited: bool,
    /// `tx.in_flight`: packets in flight just after this segment was sent, itself included.
    pub in_flight: u32,
    /// `tx.lost`: `tp->lost` when this segment was sent.
    pub lost: u64,
    /// Not yet used for a sample (Linux clears `delivered_mstamp` once SACKed).
    pub pending: bool,
}

/// Per-ACK accumulator (`struct rate_sample` while `tcp_ack` runs).
#[derive(Clone, Copy, Debug, Default)]
struct Accum {
    has_sample: bool,
    prior_delivered: u64,
    prior_time: SimTime,
    send_elapsed: SimDuration,
    sent_at: SimTime,
    is_app_limited: bool,
    is_retrans: bool,
    newest_end: u64,
    tx_in_flight: u32,
    tx_lost: u64,
    /// ns-3: taken this ACK, its ACK phase not yet fixed (`SkbDelivered` fixes `m_ackElapsed`).
    fresh: bool,
    /// ns-3 `m_ackElapsed`.
    ack_elapsed: SimDuration,
}

/// Connection-level delivery state (`tp->delivered`, `delivered_mstamp`, `first_tx_mstamp`, `app_limited`).
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Segments delivered so far (`tp->delivered`).
    pub delivered: u64,
    delivered_time: SimTime,
    first_tx_time: SimTime,
    /// `tp->app_limited`: 0, or the `delivered` count at which the app-limited bubble is gone.
    app_limited_until: u64,
    acc: Accum,
    rule: Stack,
}

impl RateSampler {
    /// A sampler following `rule`'s rate code (`tcp.rate_sample`).
    pub fn new(rule: Stack) -> Self {
        RateSampler { rule, ..RateSampler::default() }
    }

    /// `tcp_rate_skb_sent`: stamp a segment; `packets_out` counts segments outstanding before it,
    /// `in_flight` the packets in flight with it, `lost` the connection's `tp->lost`.
    pub fn on_send(&mut self, now: SimTime, packets_out: u32, in_flight: u32, lost: u64) -> TxSnapshot {
        if packets_out == 0 {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        TxSnapshot {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            app_limited: self.app_limited_until != 0,
            in_flight,
            lost,
            pending: true,
        }
    }

    /// `tcp_rate_skb_delivered` + the `tp->delivered++` of one segment.
    pub fn on_delivered(&mut self, tx: &mut TxSnapshot, sent_at: SimTime, end_seq: u64, retransmitted: bool) {
        self.delivered += 1;
        if !tx.pending {
            return;
        }
        let newer = match self.rule {
            Stack::Linux => {
                !self.acc.has_sample
                    || sent_at > self.acc.sent_at
                    || (sent_at == self.acc.sent_at && end_seq > self.acc.newest_end)
            }
            // TcpRateLinux::SkbDelivered: `m_priorDelivered == 0 || skb.delivered > m_priorDelivered`.
            Stack::Ns3 => self.acc.prior_delivered == 0 || tx.delivered > self.acc.prior_delivered,
        };
        if newer {
            self.acc = Accum {
                has_sample: true,
                prior_delivered: tx.delivered,
                prior_time: tx.delivered_time,
                send_elapsed: sent_at.saturating_since(tx.first_tx_time),
                sent_at,
                is_app_limited: tx.app_limited,
                is_retrans: retransmitted,
                newest_end: end_seq,
                tx_in_flight: tx.in_flight,
                tx_lost: tx.lost,
                fresh: true,
                ack_elapsed: SimDuration::ZERO,
            };
            self.first_tx_time = sent_at;
        }
        tx.pending = false;
    }

    /// `tcp_rate_gen`: close the ACK's sample; `lost` is the connection's `tp->lost` now.
    pub fn generate(
        &mut self,
        now: SimTime,
        acked_sacked: u32,
        losses: u32,
        prior_in_flight: u32,
        lost: u64,
        min_rtt: Option<SimDuration>,
    ) -> RateSample {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        if acked_sacked > 0 {
            self.delivered_time = now;
        }
        let mut rs = RateSample { acked_sacked, losses, prior_in_flight, ..RateSample::default() };
        if self.rule == Stack::Ns3 {
            return self.ns3_sample(now, rs, lost, min_rtt);
        }
        let acc = std::mem::take(&mut self.acc);
        if !acc.has_sample {
            return rs;
        }
        rs.prior_delivered = acc.prior_delivered;
        rs.delivered = (self.delivered - acc.prior_delivered) as u32;
        rs.is_app_limited = acc.is_app_limited;
        rs.is_retrans = acc.is_retrans;
        rs.tx_in_flight = acc.tx_in_flight;
        rs.lost = lost.saturating_sub(acc.tx_lost).min(u32::MAX as u64) as u32;
        rs.rtt = (!acc.is_retrans).then(|| now.saturating_since(acc.sent_at));
        let interval = acc.send_elapsed.max(now.saturating_since(acc.prior_time));
        // Linux: an interval shorter than min_rtt is an artifact (ACK compression, stretched ACKs).
        rs.interval = if min_rtt.is_some_and(|m| interval < m) { SimDuration::ZERO } else { interval };
        rs
    }

    /// ns-3.44 `TcpRateLinux::GenerateSample` on the kept sample: invalid while it has no
    /// prior time (none yet, or invalidated), else delivered since its stamp over max(send
    /// phase, ACK phase fixed when it was taken); an interval below `min_rtt` (ns-3's least
    /// SRTT) invalidates the kept sample until a segment replaces it. It carries no RTT (ns-3's
    /// BBR reads `m_lastRtt`, which the sender supplies).
    fn ns3_sample(&mut self, now: SimTime, mut rs: RateSample, lost: u64, min_rtt: Option<SimDuration>) -> RateSample {
        let acc = &mut self.acc;
        if acc.fresh {
            acc.ack_elapsed = now.saturating_since(acc.prior_time);
            acc.fresh = false;
        }
        if !acc.has_sample {
            return rs;
        }
        rs.prior_delivered = acc.prior_delivered;
        rs.delivered = (self.delivered - acc.prior_delivered) as u32;
        rs.is_app_limited = acc.is_app_limited;
        rs.is_retrans = acc.is_retrans;
        rs.tx_in_flight = acc.tx_in_flight;
        rs.lost = lost.saturating_sub(acc.tx_lost).min(u32::MAX as u64) as u32;
        let interval = acc.send_elapsed.max(acc.ack_elapsed);
        if min_rtt.is_some_and(|m| interval < m) {
            // "m_priorTime = Seconds(0); // To make rate sample invalid"
            acc.has_sample = false;
            return rs;
        }
        rs.interval = interval;
        rs
    }

    /// `tcp_rate_check_app_limited`: the sender ran out of data with room in cwnd.
    pub fn mark_app_limited(&mut self, packets_in_flight: u32) {
        self.app_limited_until = (self.delivered + packets_in_flight as u64).max(1);
    }

    pub fn is_app_limited(&self) -> bool {
        self.app_limited_until != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_of_a_steady_window_is_delivered_over_interval() {
        // Ten segments sent 1 ms apart from t=0, each ACKed 50 ms after its send.
        let mut r = RateSampler::default();
        let mut snaps: Vec<TxSnapshot> =
            (0..10).map(|i| r.on_send(SimTime(i * 1_000_000), i as u32, i as u32 + 1, 0)).collect();
        let mut last = RateSample::default();
        for (i, s) in snaps.iter_mut().enumerate() {
            let sent = SimTime(i as u64 * 1_000_000);
            r.on_delivered(s, sent, (i as u64 + 1) * 1448, false);
            last = r.generate(sent + SimDuration::from_ms(50), 1, 0, 10 - i as u32, 0, Some(SimDuration::from_ms(50)));
        }
        // Last ACK at 59 ms delivers the 10th segment; it was sent when delivered=0 at t=0
        // (delivered_time reset at first send), so 10 segments over max(9 ms, 59 ms) = 59 ms.
        assert_eq!(last.delivered, 10);
        assert_eq!(last.interval, SimDuration::from_ms(59));
        assert_eq!(last.rtt, Some(SimDuration::from_ms(50)));
    }

    #[test]
    fn sample_carries_tx_in_flight_and_losses_since_send() {
        // Sent with 7 in flight (itself included) when 3 had been lost; 5 more lost before its ACK.
        let mut r = RateSampler::default();
        let mut s = r.on_send(SimTime::ZERO, 6, 7, 3);
        r.on_delivered(&mut s, SimTime::ZERO, 1448, false);
        let rs = r.generate(SimTime(60_000_000), 1, 0, 7, 8, Some(SimDuration::from_ms(50)));
        assert_eq!((rs.tx_in_flight, rs.lost), (7, 5));
    }

    /// Segments sent 1 ms apart from t = 0, stamped with `delivered` = `stamps`, then ACKed one
    /// per ACK 50 ms after each send: the rate sample of each ACK.
    fn samples(rule: Stack, stamps: &[u64]) -> Vec<RateSample> {
        let mut r = RateSampler::new(rule);
        let ms = |x: usize| SimTime(x as u64 * 1_000_000);
        let mut txs: Vec<TxSnapshot> = (0..stamps.len())
            .map(|i| {
                r.delivered = stamps[i];
                r.on_send(ms(i), i as u32, i as u32 + 1, 0)
            })
            .collect();
        let min_rtt = Some(SimDuration::from_ms(40));
        (0..stamps.len())
            .map(|i| {
                r.on_delivered(&mut txs[i], ms(i), (i as u64 + 1) * 1448, false);
                r.generate(ms(i + 50), 1, 0, 1, 0, min_rtt)
            })
            .collect()
    }

    #[test]
    fn ns3_keeps_its_sample_while_no_segment_carries_a_larger_delivered_stamp() {
        // Three segments all stamped delivered = 5 (sent before any of their ACKs came back).
        let linux = samples(Stack::Linux, &[5, 5, 5]);
        let ns3 = samples(Stack::Ns3, &[5, 5, 5]);
        // Linux: each ACK samples its own segment, the newest sent.
        assert_eq!(linux.iter().map(|s| s.delivered).collect::<Vec<_>>(), vec![1, 2, 3]);
        // ns-3: the first segment's sample is kept (5 is not more than 5); each ACK reuses its
        // interval, fixed at the first ACK (50 ms), with the connection's newer count.
        assert_eq!(ns3.iter().map(|s| s.delivered).collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!(ns3.iter().map(|s| s.interval.as_ns() / 1_000_000).collect::<Vec<_>>(), vec![50, 50, 50]);
        assert_eq!(linux.iter().map(|s| s.interval.as_ns() / 1_000_000).collect::<Vec<_>>(), vec![50, 51, 52]);
        // So ns-3's rate climbs: 3 segments over 50 ms where Linux has 3 over 52.
        assert!(ns3[2].delivery_rate_bps(1448) > linux[2].delivery_rate_bps(1448));
        // A larger stamp replaces the kept sample.
        let ns3 = samples(Stack::Ns3, &[5, 6]);
        assert_eq!(ns3[1].prior_delivered, 6);
    }

    #[test]
    fn intervals_shorter_than_min_rtt_are_invalid() {
        let mut r = RateSampler::default();
        let mut s = r.on_send(SimTime::ZERO, 0, 1, 0);
        r.on_delivered(&mut s, SimTime::ZERO, 1448, false);
        let rs = r.generate(SimTime(10_000_000), 1, 0, 1, 0, Some(SimDuration::from_ms(50)));
        assert_eq!(rs.interval, SimDuration::ZERO);
        assert_eq!(rs.delivery_rate_bps(1448), None);
    }
}
