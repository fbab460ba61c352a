//! RACK: time-based loss detection (RFC 8985 §6.2), as Linux
//! `net/ipv4/tcp_recovery.c` does it (`tcp_rack_advance`, `tcp_rack_reo_wnd`,
//! `tcp_rack_detect_loss`, `tcp_rack_update_reo_wnd`).
//!
//! ```text
//!  ACK delivers segment S ──advance──► RACK.xmit = newest send time among delivered,
//!                                      RACK.rtt  = now - S.sent_at
//!  every segment sent before RACK.xmit and not yet delivered:
//!      lost if  now - sent_at >= RACK.rtt + reo_wnd   (else wait: the reordering timer)
//! ```
//! A retransmission is judged by its own send time, so a lost retransmission
//! is found again within recovery instead of by the RTO.
//!
//! What differs from Linux: the scan walks the scoreboard in sequence order
//! (Linux keeps a time-sorted list); it stops early when the reference segment
//! was an original transmission, which gives the same set of candidates.

use super::scoreboard::{RackReference, RackScan, Scoreboard};
use crate::cc::CaState;
use crate::sim::{SimDuration, SimTime};

/// Linux `TCP_RACK_RECOVERY_THRESH` (include/linux/tcp.h): recoveries a widened window persists.
pub const RACK_RECOVERY_THRESH: u32 = 16;
/// Linux caps `reo_wnd_steps` in a u8 (`tcp_rack_update_reo_wnd`).
const MAX_REO_WND_STEPS: u32 = 0xFF;
/// Linux `TCP_TIMEOUT_MIN_US` (include/net/tcp.h): added to the reordering timer (`tcp_rack_mark_lost`).
pub const TIMEOUT_MIN: SimDuration = SimDuration::from_ms(2);

/// `net.ipv4.tcp_recovery` bits (Documentation/networking/ip-sysctl.rst).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RackConfig {
    /// Bit 0x1 `TCP_RACK_LOSS_DETECTION`: RACK replaces the dupthresh rules.
    pub enabled: bool,
    /// Bit 0x2 `TCP_RACK_STATIC_REO_WND`: never widen the window on DSACK.
    pub static_reo_wnd: bool,
    /// Bit 0x4 `TCP_RACK_NO_DUPTHRESH`: no zero window once dupthresh segments are SACKed.
    pub no_dupthresh: bool,
}

impl RackConfig {
    /// Decode the sysctl value (validated to 0..=7 by the scenario).
    pub fn from_sysctl(bits: u32) -> Self {
        RackConfig { enabled: bits & 1 != 0, static_reo_wnd: bits & 2 != 0, no_dupthresh: bits & 4 != 0 }
    }
}

/// RACK state of one connection (`tp->rack` and `tp->reord_seen`).
#[derive(Clone, Copy, Debug)]
pub struct Rack {
    cfg: RackConfig,
    reference: Option<RackReference>,
    /// RACK.rtt.
    rtt: SimDuration,
    /// A delivery arrived since the last scan (`tp->rack.advanced`).
    advanced: bool,
    /// Reordering events seen (`tp->reord_seen`).
    reord_seen: u32,
    /// Window in units of min_rtt/4 (`reo_wnd_steps`).
    steps: u32,
    /// Recoveries left before the window returns to one step (`reo_wnd_persist`).
    persist: u32,
    /// A DSACK arrived since the last widening (`dsack_seen`).
    dsack_seen: bool,
    /// `tp->delivered` at the last widening.
    last_delivered: u64,
}

/// What one scan found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detection {
    pub newly_lost: u32,
    /// Lost segments that had been retransmitted (Linux LINUX_MIB_TCPLOSTRETRANSMIT).
    pub lost_retransmits: u32,
    /// Arm the reordering timer this far ahead (already includes `TIMEOUT_MIN`).
    pub reo_timeout: Option<SimDuration>,
}

impl Rack {
    pub fn new(cfg: RackConfig) -> Self {
        Rack {
            cfg,
            reference: None,
            rtt: SimDuration::ZERO,
            advanced: false,
            reord_seen: 0,
            steps: 1,
            persist: 0,
            dsack_seen: false,
            last_delivered: 0,
        }
    }

    pub fn enabled(&self) -> bool {
        self.cfg.enabled
    }

    /// Linux `tcp_timeout_mark_lost`: with RACK on, an RTO leaves segments sent within RACK.rtt
    /// (`tcp_rack_skb_timeout(tp, skb, 0) > 0`) unmarked; zero without RACK (all are lost).
    pub fn not_yet_due_on_timeout(&self) -> SimDuration {
        if self.cfg.enabled {
            self.rtt
        } else {
            SimDuration::ZERO
        }
    }

    /// Linux `tcp_rack_advance` (RFC 8985 §6.2 step 2): a segment sent at `sent_at`
    /// ending at `end` was delivered now.
    pub fn advance(&mut self, now: SimTime, sent: (SimTime, u64), end: u64, retransmitted: bool, min_rtt: SimDuration) {
        let (sent_at, order) = sent;
        let rtt = now - sent_at;
        // An ACK faster than min_rtt for a retransmitted segment is for the original: ambiguous.
        if retransmitted && rtt < min_rtt {
            return;
        }
        self.advanced = true;
        self.rtt = rtt;
        let newer = self.reference.is_none_or(|r| sent_after(sent_at, order, r.sent_at, r.order));
        if newer {
            self.reference = Some(RackReference { sent_at, order, end, original: !retransmitted });
        }
    }

    /// Linux `tcp_check_sack_reordering`: a never-retransmitted segment was delivered
    /// below the highest SACKed one.
    pub fn note_reordering(&mut self) {
        self.reord_seen = self.reord_seen.saturating_add(1);
    }

    pub fn reordering_seen(&self) -> bool {
        self.reord_seen > 0
    }

    /// Linux `tcp_dsack_seen`: DSACKs widen the window only once reordering was seen
    /// and when the DSACK is not for a loss probe.
    pub fn on_dsack(&mut self, for_probe: bool) {
        if self.reord_seen > 0 && !for_probe {
            self.dsack_seen = true;
        }
    }

    /// Linux `tcp_try_undo_dsack`: an undone recovery keeps the widened window longer.
    pub fn on_dsack_undo(&mut self) {
        self.persist = (self.persist + 1).min(RACK_RECOVERY_THRESH);
    }

    /// Linux `tcp_try_undo_recovery`: a recovery that was real counts down the persistence.
    pub fn on_real_recovery(&mut self) {
        self.persist = self.persist.saturating_sub(1);
    }

    /// Linux `tcp_undo_cwnd_reduction`: force a re-scan after an undo.
    pub fn force_scan(&mut self) {
        self.advanced = true;
    }

    /// Linux `tcp_rack_update_reo_wnd`: on each ACK, widen by one step per round trip
    /// with a DSACK, else fall back to one step once the persistence ran out.
    pub fn update_reo_wnd(&mut self, prior_delivered: u64, delivered: u64) {
        if self.cfg.static_reo_wnd || prior_delivered == 0 {
            return;
        }
        if prior_delivered < self.last_delivered {
            self.dsack_seen = false;
        }
        if self.dsack_seen {
            self.steps = (self.steps + 1).min(MAX_REO_WND_STEPS);
            self.dsack_seen = false;
            self.last_delivered = delivered;
            self.persist = RACK_RECOVERY_THRESH;
        } else if self.persist == 0 {
            self.steps = 1;
        }
    }

    /// Linux `tcp_rack_reo_wnd` (RFC 8985 §6.2 step 4): zero while no reordering was
    /// seen and the connection is recovering or dupthresh segments are SACKed;
    /// else min(min_rtt/4 * steps, SRTT).
    pub fn reo_wnd(
        &self,
        ca_state: CaState,
        sacked: u32,
        dupthresh: u32,
        min_rtt: SimDuration,
        srtt: SimDuration,
    ) -> SimDuration {
        if self.reord_seen == 0 {
            let recovering = matches!(ca_state, CaState::Recovery | CaState::Loss);
            if recovering || (sacked >= dupthresh && !self.cfg.no_dupthresh) {
                return SimDuration::ZERO;
            }
        }
        let quarter = SimDuration::from_ns(min_rtt.as_ns() / 4);
        SimDuration::from_ns((quarter.as_ns() * self.steps as u64).min(srtt.as_ns()))
    }

    /// Linux `tcp_rack_mark_lost`: scan once per new delivery.
    pub fn mark_lost(&mut self, board: &mut Scoreboard, now: SimTime, reo_wnd: SimDuration) -> Detection {
        if !std::mem::take(&mut self.advanced) {
            return Detection::default();
        }
        self.detect_loss(board, now, reo_wnd)
    }

    /// The scan a delivery asked for was not run because it would end at the head
    /// (`scan_ends_at_head`): as `mark_lost` with nothing found, it uses up the delivery.
    pub fn scan_skipped(&mut self) {
        self.advanced = false;
    }

    /// The next scan would stop at the oldest segment (`Scoreboard::head_ends_rack_scan`),
    /// so it marks nothing and needs no reordering window.
    pub fn scan_ends_at_head(&self, board: &Scoreboard) -> bool {
        self.reference.is_some_and(|r| board.head_ends_rack_scan(&r))
    }

    /// Linux `tcp_rack_detect_loss` (RFC 8985 §6.2 step 5), also run by the reordering timer.
    pub fn detect_loss(&self, board: &mut Scoreboard, now: SimTime, reo_wnd: SimDuration) -> Detection {
        let Some(reference) = self.reference else { return Detection::default() };
        let scan = RackScan { now, reference, wait: self.rtt + reo_wnd };
        let found = board.mark_lost_by_time(&scan);
        Detection {
            newly_lost: found.newly_lost,
            lost_retransmits: found.lost_retransmits,
            reo_timeout: found.max_remaining.map(|t| t + TIMEOUT_MIN),
        }
    }
}

/// Linux `tcp_skb_sent_after` (RFC 8985 RACK_sent_after): later send time, ties broken by
/// transmission order. Linux breaks ties of its microsecond clock by sequence, which stands for
/// the order within one write; the engine's clock ties whenever two ACKs of one instant each
/// release data (a retransmission after new data), so it keeps the order itself.
pub fn sent_after(t1: SimTime, order1: u64, t2: SimTime, order2: u64) -> bool {
    t1 > t2 || (t1 == t2 && order1 > order2)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ON: RackConfig = RackConfig { enabled: true, static_reo_wnd: false, no_dupthresh: false };

    #[test]
    fn reo_wnd_is_a_quarter_min_rtt_capped_by_srtt() {
        // tcp_rack_reo_wnd: min(min_rtt/4 * steps, srtt). min_rtt 40 ms -> 10 ms.
        let r = Rack::new(ON);
        let ms = SimDuration::from_ms;
        assert_eq!(r.reo_wnd(CaState::Open, 0, 3, ms(40), ms(50)), ms(10));
        // Dupthresh SACKed segments and no reordering seen: no settling delay.
        assert_eq!(r.reo_wnd(CaState::Open, 3, 3, ms(40), ms(50)), SimDuration::ZERO);
        assert_eq!(r.reo_wnd(CaState::Recovery, 0, 3, ms(40), ms(50)), SimDuration::ZERO);
        let no_dupthresh = Rack::new(RackConfig { no_dupthresh: true, ..ON });
        assert_eq!(no_dupthresh.reo_wnd(CaState::Open, 3, 3, ms(40), ms(50)), ms(10));
    }

    #[test]
    fn a_dsack_after_reordering_widens_the_window_one_step_per_round() {
        let ms = SimDuration::from_ms;
        let mut r = Rack::new(ON);
        r.note_reordering();
        r.on_dsack(false);
        r.update_reo_wnd(100, 120);
        // Two steps of 40/4 = 20 ms; even in recovery once reordering was seen.
        assert_eq!(r.reo_wnd(CaState::Recovery, 5, 3, ms(40), ms(50)), ms(20));
        // A DSACK for data sent before the widening (prior_delivered 110 < 120) is ignored.
        r.on_dsack(false);
        r.update_reo_wnd(110, 130);
        assert_eq!(r.reo_wnd(CaState::Open, 0, 3, ms(40), ms(50)), ms(20));
        // Four steps would be 40 ms, capped by SRTT 30 ms.
        r.on_dsack(false);
        r.update_reo_wnd(125, 140);
        r.on_dsack(false);
        r.update_reo_wnd(145, 150);
        assert_eq!(r.reo_wnd(CaState::Open, 0, 3, ms(40), ms(30)), ms(30));
        // After 16 real recoveries the window returns to one step.
        for _ in 0..RACK_RECOVERY_THRESH {
            r.on_real_recovery();
        }
        r.update_reo_wnd(160, 170);
        assert_eq!(r.reo_wnd(CaState::Open, 0, 3, ms(40), ms(50)), ms(10));
    }

    #[test]
    fn a_fast_ack_of_a_retransmission_does_not_move_the_reference() {
        let mut r = Rack::new(ON);
        let t = |ms| SimTime::ZERO + SimDuration::from_ms(ms);
        r.advance(t(100), (t(0), 0), 1000, false, SimDuration::from_ms(100));
        // Retransmitted at 150, ACKed at 160: 10 ms < min_rtt, so the original was ACKed.
        r.advance(t(160), (t(150), 1), 2000, true, SimDuration::from_ms(100));
        assert_eq!(r.reference.unwrap().end, 1000);
        assert_eq!(r.rtt, SimDuration::from_ms(100));
    }
}
