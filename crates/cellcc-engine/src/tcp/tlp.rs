//! Tail Loss Probe (RFC 8985 §7), as Linux `tcp_schedule_loss_probe`,
//! `tcp_send_loss_probe` (net/ipv4/tcp_output.c) and `tcp_process_tlp_ack`
//! (net/ipv4/tcp_input.c).
//!
//! ```text
//!  Open/CWR, data outstanding ──PTO──► send one new segment (cwnd ignored),
//!                                      else retransmit the last one; remember snd_nxt
//!  ACK above that point:  new data probed            -> episode over
//!                         retransmission DSACKed     -> nothing was lost
//!                         retransmission, no DSACK   -> the probe repaired a loss: CWR
//! ```
//!
//! What differs from Linux: the probe timer runs beside the RTO timer (Linux
//! keeps one timer and switches its kind); the probe never fires later than
//! the RTO, as in Linux.

use crate::sim::SimDuration;

/// Linux `TCP_TIMEOUT_MIN_US` (include/net/tcp.h): added to 2*SRTT when several segments are out.
pub const PTO_SLACK: SimDuration = SimDuration::from_ms(2);

/// `net.ipv4.tcp_early_retrans` values that enable TLP (ip-sysctl.rst: 3 and 4; default 3).
pub fn enabled_by_sysctl(early_retrans: u32) -> bool {
    matches!(early_retrans, 3 | 4)
}

/// Linux `tcp_schedule_loss_probe` (RFC 8985 §7.2 PTO): 2*SRTT, plus the minimum RTO
/// (room for a delayed ACK) when one segment is out, else plus 2 ms; the initial RTO
/// without an RTT sample; never later than `rto_left`.
pub fn probe_timeout(
    srtt: Option<SimDuration>,
    packets_out: u32,
    min_rto: SimDuration,
    initial_rto: SimDuration,
    rto_left: SimDuration,
) -> SimDuration {
    let pto = match srtt {
        Some(s) => {
            let extra = if packets_out == 1 { min_rto } else { PTO_SLACK };
            SimDuration::from_ns(2 * s.as_ns()) + extra
        }
        None => initial_rto,
    };
    if rto_left > SimDuration::ZERO {
        SimDuration::from_ns(pto.as_ns().min(rto_left.as_ns()))
    } else {
        pto
    }
}

/// What to send when the probe timer fires (`tcp_send_loss_probe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// A new segment, if the receive window allows.
    NewData,
    /// Retransmit the highest outstanding segment.
    RetransmitLast,
}

/// One probe episode (`tp->tlp_high_seq`, `tp->tlp_retrans`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Episode {
    Idle,
    /// A probe went out when snd_nxt was `high_seq`.
    Probing {
        high_seq: u64,
        retransmitted: bool,
    },
}

/// What an ACK means for the episode (`tcp_process_tlp_ack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// Still waiting, or no episode.
    Pending,
    /// The episode is over without a loss.
    Ended,
    /// The probe repaired a loss: reduce cwnd once (CWR) and end the episode.
    RepairedLoss,
}

/// How one ACK relates to the episode.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProbeAck {
    pub ack: u64,
    /// A DSACK reported exactly the probe's segment (Linux FLAG_DSACK_TLP).
    pub dsack_for_probe: bool,
    /// The ACK advanced snd_una, carried new SACK information, or changed the window.
    pub news: bool,
}

impl Episode {
    /// Linux `tcp_process_tlp_ack`.
    pub fn on_ack(&mut self, a: &ProbeAck) -> ProbeOutcome {
        let Episode::Probing { high_seq, retransmitted } = *self else { return ProbeOutcome::Pending };
        if a.ack < high_seq {
            return ProbeOutcome::Pending;
        }
        let outcome = if !retransmitted || a.dsack_for_probe {
            ProbeOutcome::Ended
        } else if a.ack > high_seq {
            ProbeOutcome::RepairedLoss
        } else if !a.news {
            // A pure duplicate ACK at high_seq: the original and the probe both arrived.
            ProbeOutcome::Ended
        } else {
            return ProbeOutcome::Pending;
        };
        *self = Episode::Idle;
        outcome
    }

    pub fn high_seq(&self) -> Option<u64> {
        match *self {
            Episode::Idle => None,
            Episode::Probing { high_seq, .. } => Some(high_seq),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> SimDuration = SimDuration::from_ms;

    #[test]
    fn pto_is_two_srtt_plus_slack_or_plus_min_rto_for_one_segment() {
        // SRTT 50 ms, 10 segments out: 2*50 + 2 = 102 ms (tcp_schedule_loss_probe).
        assert_eq!(probe_timeout(Some(MS(50)), 10, MS(200), MS(1000), MS(300)), MS(102));
        // One segment out: 2*50 + TCP_RTO_MIN 200 = 300 ms, capped by the RTO 250 ms left.
        assert_eq!(probe_timeout(Some(MS(50)), 1, MS(200), MS(1000), MS(250)), MS(250));
        // No RTT sample yet: the initial RTO, 1 s.
        assert_eq!(probe_timeout(None, 3, MS(200), MS(1000), MS(5000)), MS(1000));
    }

    #[test]
    fn an_ack_beyond_a_retransmitted_probe_without_dsack_means_a_repaired_loss() {
        let mut e = Episode::Probing { high_seq: 10_000, retransmitted: true };
        assert_eq!(e.on_ack(&ProbeAck { ack: 9_000, news: true, ..Default::default() }), ProbeOutcome::Pending);
        assert_eq!(e.on_ack(&ProbeAck { ack: 11_000, news: true, ..Default::default() }), ProbeOutcome::RepairedLoss);
        assert_eq!(e, Episode::Idle);
    }

    #[test]
    fn a_dsack_of_the_probe_ends_the_episode_without_reduction() {
        let mut e = Episode::Probing { high_seq: 10_000, retransmitted: true };
        let a = ProbeAck { ack: 10_000, dsack_for_probe: true, news: false };
        assert_eq!(e.on_ack(&a), ProbeOutcome::Ended);
        let mut new_data = Episode::Probing { high_seq: 10_000, retransmitted: false };
        assert_eq!(new_data.on_ack(&ProbeAck { ack: 10_000, ..Default::default() }), ProbeOutcome::Ended);
    }
}
