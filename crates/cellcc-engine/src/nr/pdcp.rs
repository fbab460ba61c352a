//! NR PDCP (TS 38.323) of a data radio bearer: the header on every SDU and, on the receiving
//! side, the reordering NR moved here from RLC (§5.2.2): RLC hands up complete SDUs as they
//! arrive, and PDCP delivers them to IP in COUNT order, holding a gap for at most t-Reordering.
//!
//! ```text
//!  receive(COUNT x): x < RX_DELIV or held already -> discard (duplicate or too late)
//!                    hold; x >= RX_NEXT -> RX_NEXT = x + 1
//!                    x == RX_DELIV -> deliver the run from RX_DELIV, RX_DELIV = first not held
//!                    t-Reordering: stop once RX_DELIV >= RX_REORD; start (RX_REORD = RX_NEXT) if RX_DELIV < RX_NEXT
//!  t-Reordering expires: deliver everything held below RX_REORD and the run from it; restart if a gap remains
//! ```
//! COUNT: the cell numbers each direction's SDUs in the order PDCP accepts them (`nr::cell`), so
//! an SDU's sequence number is its COUNT (HFN and SN together; the 12/18-bit SN only sizes the
//! header, §6.2.2.1). No ciphering, integrity or header compression; no out-of-order delivery option.

use std::collections::BTreeMap;

use crate::lte::sap::SduId;
use crate::sim::{SimDuration, SimTime};

/// What a call produced (buffers the caller owns).
#[derive(Clone, Debug, Default)]
pub struct PdcpEvents {
    /// SDUs handed to IP, in COUNT order.
    pub delivered: Vec<SduId>,
    /// SDUs dropped as duplicates or for arriving after their COUNT was passed.
    pub discarded: Vec<SduId>,
}

/// The receiving PDCP entity (TS 38.323 §7.1 state variables).
#[derive(Clone, Debug)]
pub struct PdcpRx {
    t_reordering: SimDuration,
    rx_next: u64,
    rx_deliv: u64,
    rx_reord: u64,
    expiry: Option<SimTime>,
    held: BTreeMap<u64, SduId>,
    /// SDUs delivered past a gap that t-Reordering gave up.
    pub gaps_skipped: u64,
}

impl PdcpRx {
    pub fn new(t_reordering: SimDuration) -> Self {
        PdcpRx {
            t_reordering,
            rx_next: 0,
            rx_deliv: 0,
            rx_reord: 0,
            expiry: None,
            held: BTreeMap::new(),
            gaps_skipped: 0,
        }
    }

    /// §5.2.2.1: an SDU of COUNT `count` from RLC.
    pub fn receive(&mut self, now: SimTime, count: u64, id: SduId, ev: &mut PdcpEvents) {
        if count < self.rx_deliv || self.held.contains_key(&count) {
            ev.discarded.push(id);
            return;
        }
        self.held.insert(count, id);
        if count >= self.rx_next {
            self.rx_next = count + 1;
        }
        if count == self.rx_deliv {
            self.deliver_run(ev);
        }
        if self.expiry.is_some() && self.rx_deliv >= self.rx_reord {
            self.expiry = None;
        }
        if self.expiry.is_none() && self.rx_deliv < self.rx_next {
            self.rx_reord = self.rx_next;
            self.expiry = Some(now + self.t_reordering);
            if self.t_reordering == SimDuration::ZERO {
                self.handle_timeout(now, ev);
            }
        }
    }

    /// Deliver the consecutive run from RX_DELIV.
    fn deliver_run(&mut self, ev: &mut PdcpEvents) {
        while let Some(id) = self.held.remove(&self.rx_deliv) {
            ev.delivered.push(id);
            self.rx_deliv += 1;
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.expiry
    }

    /// §5.2.2.2: t-Reordering expired.
    pub fn handle_timeout(&mut self, now: SimTime, ev: &mut PdcpEvents) {
        if self.expiry.is_none_or(|t| t > now) {
            return;
        }
        self.expiry = None;
        let below = self.held.split_off(&self.rx_reord);
        let older = std::mem::replace(&mut self.held, below);
        if !older.is_empty() || self.rx_deliv < self.rx_reord {
            self.gaps_skipped += 1;
        }
        ev.delivered.extend(older.into_values());
        self.rx_deliv = self.rx_deliv.max(self.rx_reord);
        self.deliver_run(ev);
        if self.rx_deliv < self.rx_next {
            self.rx_reord = self.rx_next;
            self.expiry = Some(now + self.t_reordering);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(ms)
    }

    /// COUNTs 0, 2, 3 arrive, 1 late: 0 goes at once, 2 and 3 wait for 1, then all go in order.
    #[test]
    fn a_gap_holds_later_sdus_until_it_fills() {
        let mut rx = PdcpRx::new(SimDuration::from_ms(100));
        let mut ev = PdcpEvents::default();
        for c in [0, 2, 3] {
            rx.receive(at(1), c, SduId(2 * c), &mut ev);
        }
        assert_eq!(ev.delivered, vec![SduId(0)]);
        assert_eq!(rx.poll_timeout(), Some(at(101)));
        rx.receive(at(5), 1, SduId(2), &mut ev);
        assert_eq!(ev.delivered, vec![SduId(0), SduId(2), SduId(4), SduId(6)]);
        assert_eq!(rx.poll_timeout(), None, "the gap closed: t-Reordering stopped");
        rx.receive(at(6), 2, SduId(4), &mut ev);
        assert_eq!(ev.discarded, vec![SduId(4)], "a duplicate below RX_DELIV");
    }

    /// A gap that never fills: at t-Reordering's expiry the held SDUs go up, and the missing one,
    /// arriving later, is discarded.
    #[test]
    fn t_reordering_gives_up_a_gap_and_discards_the_late_sdu() {
        let mut rx = PdcpRx::new(SimDuration::from_ms(220));
        let mut ev = PdcpEvents::default();
        rx.receive(at(0), 1, SduId(2), &mut ev);
        rx.receive(at(1), 2, SduId(4), &mut ev);
        assert!(ev.delivered.is_empty());
        rx.handle_timeout(at(219), &mut ev);
        assert!(ev.delivered.is_empty(), "not yet");
        rx.handle_timeout(at(220), &mut ev);
        assert_eq!(ev.delivered, vec![SduId(2), SduId(4)]);
        assert_eq!((rx.gaps_skipped, rx.poll_timeout()), (1, None));
        rx.receive(at(300), 0, SduId(0), &mut ev);
        assert_eq!(ev.discarded, vec![SduId(0)]);
    }

    /// t-Reordering 0: nothing is held; a gap is skipped at once.
    #[test]
    fn zero_reordering_delivers_at_once() {
        let mut rx = PdcpRx::new(SimDuration::ZERO);
        let mut ev = PdcpEvents::default();
        rx.receive(at(0), 3, SduId(6), &mut ev);
        assert_eq!(ev.delivered, vec![SduId(6)]);
        assert_eq!(rx.poll_timeout(), None);
    }
}
