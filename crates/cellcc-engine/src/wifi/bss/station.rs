//! One station's MAC and PHY state: its EDCA functions and queues, what it senses of the medium
//! (physical carrier sense, NAV, EIFS), what its PHY is doing, and the frame exchange it leads.
//!
//! ```text
//!  medium idle from     = max(end of the last busy period it sensed, NAV)        (§10.3.2.1)
//!  an AC counts from    = max(idle from + AIFS[AC] (+ EIFS - DIFS after an error), what it counted)
//!  it may transmit at   = counting start + backoff slots x aSlotTime              (§10.23.2.2)
//!  the medium turns busy at t: the AC keeps floor((t - counting start) / slot) slots counted
//! ```

use super::air::Sta;
use crate::sim::{RngStream, SimTime};
use crate::wifi::mac::edca::{Ac, Edcaf};
use crate::wifi::mac::queue::MacQueue;
use crate::wifi::phy::vht::{LegacyRate, TxVector};
use crate::wifi::phy::{SIFS_NS, SLOT_NS};
use crate::wifi::rate_control::RateManager;

/// What the station senses of the medium.
#[derive(Clone, Copy, Debug, Default)]
pub struct CarrierSense {
    /// End of the last period its CCA reported busy (its own transmissions included).
    pub busy_until: SimTime,
    /// Its NAV (virtual carrier sense).
    pub nav_until: SimTime,
    /// End of a reception that failed, which delays the next access by EIFS - DIFS (§10.3.2.3.7);
    /// cleared by a frame received correctly.
    pub eifs_from: Option<SimTime>,
}

impl CarrierSense {
    pub fn idle_from(&self) -> SimTime {
        self.busy_until.max(self.nav_until)
    }
}

/// What the station's PHY is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phy {
    Idle,
    /// Sending PPDU `slot`.
    Tx(u32),
    /// Synchronised to PPDU `slot` (its preamble was detected).
    Rx(u32),
}

/// The frame exchange a station leads, as originator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Exchange {
    Idle,
    /// RTS sent; a CTS is due by `deadline`.
    AwaitCts {
        agreement: u32,
        tx: TxVector,
        deadline: SimTime,
    },
    /// Data sent; an Ack (`normal_ack`) or a BlockAck is due by `deadline`.
    AwaitAck {
        agreement: u32,
        tx: TxVector,
        normal_ack: bool,
        deadline: SimTime,
    },
    /// BlockAckReq sent; a BlockAck is due by `deadline`.
    AwaitBarAck {
        agreement: u32,
        deadline: SimTime,
    },
}

/// A response the station owes, sent SIFS after the frame that asked for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Response {
    Ack { ra: Sta, snr_db: f64, rate: LegacyRate },
    BlockAck { ra: Sta, agreement: u32, snr_db: f64, rate: LegacyRate },
    Cts { ra: Sta, nav_end: SimTime, rate: LegacyRate },
}

/// A transmission the station makes SIFS after a frame of its own exchange.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FollowUp {
    /// The data PPDU its RTS reserved the medium for.
    DataAfterCts { agreement: u32, tx: TxVector },
    /// The next PSDU of its TXOP.
    ContinueTxop,
}

/// The TXOP a station holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Txop {
    pub ac: Ac,
    pub start: SimTime,
    /// TXOP limit, ns; 0 = one frame exchange.
    pub limit_ns: u64,
}

pub struct Station {
    /// Spatial streams (= antennas).
    pub nss: u8,
    pub edca: [Edcaf; 4],
    /// Per AC: the instant up to which its backoff has been counted down.
    pub counted_until: [SimTime; 4],
    pub queues: [MacQueue; 4],
    /// Per AC: MPDUs held by its agreements (sent, not yet acknowledged or discarded).
    pub held: [u32; 4],
    pub cs: CarrierSense,
    pub phy: Phy,
    pub exchange: Exchange,
    pub txop: Option<Txop>,
    pub response: Option<Response>,
    pub follow_up: Option<FollowUp>,
    /// Sequence numbers of the PSDU in the current exchange (reused), and its A-MPDU length.
    pub psdu_sns: Vec<u16>,
    pub psdu_apep_bytes: u32,
    /// Per peer slot.
    pub rates: Vec<RateManager>,
    /// Backoff draws; reception draws.
    pub rng: RngStream,
    pub rx_rng: RngStream,
    /// Bumps with every exchange so a stale timeout is recognised.
    pub exchange_seq: u32,
}

/// EIFS - DIFS: aSIFSTime + the time of an Ack at the lowest mandatory rate, 6 Mb/s (44 us)
/// (§10.3.2.3.7), ns.
pub const EIFS_MINUS_DIFS_NS: u64 = SIFS_NS + 44_000;

/// AIFS[AC] (§10.3.2.3.6), ns.
pub fn aifs_ns(aifsn: u8) -> u64 {
    SIFS_NS + u64::from(aifsn) * SLOT_NS
}

impl Station {
    /// Free to start a frame exchange: not sending, not receiving, owing nothing, leading nothing.
    pub fn may_contend(&self) -> bool {
        self.phy == Phy::Idle
            && self.exchange == Exchange::Idle
            && self.response.is_none()
            && self.follow_up.is_none()
            && self.txop.is_none()
    }

    /// Where AC `ac`'s countdown stands: from when it counts slots.
    pub fn counting_start(&self, ac: usize) -> SimTime {
        let aifs = aifs_ns(self.edca[ac].params.aifsn);
        let mut start = self.cs.idle_from() + crate::sim::SimDuration::from_ns(aifs);
        if let Some(e) = self.cs.eifs_from {
            start = start.max(e + crate::sim::SimDuration::from_ns(EIFS_MINUS_DIFS_NS + aifs));
        }
        start.max(self.counted_until[ac])
    }

    /// When AC `ac` may transmit, if the medium stays idle: its counting start plus its backoff.
    pub fn access_time(&self, ac: usize) -> SimTime {
        self.counting_start(ac) + crate::sim::SimDuration::from_ns(u64::from(self.edca[ac].backoff_slots) * SLOT_NS)
    }

    /// The medium turns busy for this station at `t` until `until`: every AC keeps the whole
    /// idle slots it counted before `t` (§10.23.2.2), then the busy period is noted.
    pub fn medium_busy(&mut self, t: SimTime, until: SimTime) {
        self.count_to(t);
        self.cs.busy_until = self.cs.busy_until.max(until);
    }

    /// The NAV is set until `until` at `t`.
    pub fn set_nav(&mut self, t: SimTime, until: SimTime) {
        if until > self.cs.nav_until {
            self.count_to(t);
            self.cs.nav_until = until;
        }
    }

    /// Count every AC's backoff down by the idle slots completed before `t`.
    pub fn count_to(&mut self, t: SimTime) {
        for ac in 0..4 {
            if self.edca[ac].backoff_slots == 0 {
                continue;
            }
            let start = self.counting_start(ac);
            if t > start {
                let slots = (t - start).as_ns() / SLOT_NS;
                let n = slots.min(u64::from(self.edca[ac].backoff_slots));
                self.edca[ac].count_down(n);
                self.counted_until[ac] = start + crate::sim::SimDuration::from_ns(n * SLOT_NS);
            }
        }
    }

    /// Whether the medium is busy for this station at `now` (physical or virtual carrier sense,
    /// or its own PHY at work).
    pub fn medium_busy_at(&self, now: SimTime) -> bool {
        now < self.cs.idle_from() || self.phy != Phy::Idle
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::mac::edca::AcParams;

    fn station() -> Station {
        Station {
            nss: 1,
            edca: Ac::ALL.map(|ac| Edcaf::new(AcParams::standard(ac))),
            counted_until: [SimTime::ZERO; 4],
            queues: [0; 4].map(|_| MacQueue::new(1)),
            held: [0; 4],
            cs: CarrierSense::default(),
            phy: Phy::Idle,
            exchange: Exchange::Idle,
            txop: None,
            response: None,
            follow_up: None,
            psdu_sns: Vec::new(),
            psdu_apep_bytes: 0,
            rates: Vec::new(),
            rng: RngStream::new(1, "s"),
            rx_rng: RngStream::new(1, "r"),
            exchange_seq: 0,
        }
    }

    fn us(t: u64) -> SimTime {
        SimTime(t * 1000)
    }

    #[test]
    fn backoff_slots_count_only_while_idle_and_freeze_while_busy() {
        let be = Ac::Be.index();
        let mut s = station();
        s.cs.busy_until = us(100);
        s.edca[be].backoff_slots = 5;
        // AIFS[BE] = 16 + 3 x 9 = 43 us: counting starts at 143 us; access at 143 + 45 = 188 us.
        assert_eq!(s.access_time(be), us(188));
        // Busy at 170 us (27 us = 3 whole slots counted), until 300 us.
        s.medium_busy(us(170), us(300));
        assert_eq!(s.edca[be].backoff_slots, 2);
        // Counting resumes 43 us after the busy period: 343 + 2 x 9 = 361 us.
        assert_eq!(s.access_time(be), us(361));
    }

    #[test]
    fn a_slot_cut_short_by_a_busy_medium_does_not_count() {
        let be = Ac::Be.index();
        let mut s = station();
        s.edca[be].backoff_slots = 3;
        // Counting from 43 us; busy at 60 us: one whole slot (43..52), the one from 52 us unfinished.
        s.medium_busy(us(60), us(80));
        assert_eq!(s.edca[be].backoff_slots, 2);
    }

    #[test]
    fn eifs_after_an_error_delays_access_by_eifs_minus_difs() {
        let be = Ac::Be.index();
        let mut s = station();
        s.cs.busy_until = us(100);
        s.cs.eifs_from = Some(us(100));
        // 100 + (16 + 44) + 43 = 203 us, not 143.
        assert_eq!(s.access_time(be), us(203));
        s.cs.eifs_from = None;
        assert_eq!(s.access_time(be), us(143));
    }

    #[test]
    fn the_nav_holds_access_like_a_busy_medium() {
        let vo = Ac::Vo.index();
        let mut s = station();
        s.set_nav(us(0), us(500));
        // AIFS[VO] = 16 + 2 x 9 = 34 us.
        assert_eq!(s.access_time(vo), us(534));
    }
}
