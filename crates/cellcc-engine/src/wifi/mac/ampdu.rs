//! How many MPDUs one PSDU carries (IEEE 802.11-2020 §10.12): MPDUs are added in order while
//! the A-MPDU stays within every limit.
//!
//! ```text
//!  A-MPDU length <= min(own maximum, the recipient's: VHT Maximum A-MPDU Length Exponent 7 =
//!                   2^20 - 1 octets, §9.4.2.157.2); 0 = no aggregation (one MPDU per PSDU)
//!  MPDUs         <= the Block Ack window (64), enforced by the agreement's sequence numbers
//!  PPDU duration <= aPPDUMaxTime (5.484 ms for VHT, Table 21-28)
//!  TXOP limit    :  PPDU + SIFS + its acknowledgement (+ RTS/CTS) must end within the TXOP
//!                   (§10.23.2.9); the first MPDU of a TXOP goes whatever its length
//! ```

use crate::wifi::phy::ppdu::{ampdu_subframe_bytes, vht_ppdu_ns, Fec};
use crate::wifi::phy::vht::TxVector;

use super::frames::mpdu_bytes;

/// The largest A-MPDU a VHT STA may accept: 2^(13 + 7) - 1 octets (§9.4.2.157.2).
pub const VHT_MAX_AMPDU_BYTES: u32 = (1 << 20) - 1;
/// aPPDUMaxTime of the VHT PHY, ns (Table 21-28).
pub const PPDU_MAX_NS: u64 = 5_484_000;

/// The limits one PSDU must keep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Largest A-MPDU, octets; 0 = one MPDU per PSDU.
    pub max_ampdu_bytes: u32,
    /// Longest the exchange (PPDU + `after_ns`) may last, ns (`u64::MAX`: no TXOP limit).
    pub budget_ns: u64,
    /// What follows the PPDU in the exchange: SIFS + acknowledgement, ns.
    pub after_ns: u64,
    /// The PSDU opens its TXOP: its first MPDU goes even if it alone breaks the budget.
    pub opens_txop: bool,
}

/// An A-MPDU being filled: its length and duration so far.
#[derive(Clone, Copy, Debug)]
pub struct Sizer {
    tx: TxVector,
    fec: Fec,
    sig_b: bool,
    limits: Limits,
    apep_bytes: u32,
    mpdus: u32,
}

impl Sizer {
    pub fn new(tx: TxVector, fec: Fec, sig_b: bool, limits: Limits) -> Self {
        Sizer { tx, fec, sig_b, limits, apep_bytes: 0, mpdus: 0 }
    }

    /// Add an MPDU carrying `ip_bytes` if every limit still holds.
    pub fn try_add(&mut self, ip_bytes: u32) -> bool {
        let apep = self.apep_bytes + ampdu_subframe_bytes(mpdu_bytes(ip_bytes));
        let first = self.mpdus == 0;
        let fits = if first {
            self.limits.opens_txop || self.exchange_ns(apep) <= self.limits.budget_ns
        } else {
            let max = self.limits.max_ampdu_bytes.min(VHT_MAX_AMPDU_BYTES);
            let ppdu_ns = vht_ppdu_ns(&self.tx, apep, self.fec, self.sig_b);
            max > 0 && apep <= max && ppdu_ns <= PPDU_MAX_NS && ppdu_ns + self.limits.after_ns <= self.limits.budget_ns
        };
        if fits {
            self.apep_bytes = apep;
            self.mpdus += 1;
        }
        fits
    }

    fn exchange_ns(&self, apep: u32) -> u64 {
        vht_ppdu_ns(&self.tx, apep, self.fec, self.sig_b) + self.limits.after_ns
    }

    pub fn mpdus(&self) -> u32 {
        self.mpdus
    }

    pub fn apep_bytes(&self) -> u32 {
        self.apep_bytes
    }

    pub fn ppdu_ns(&self) -> u64 {
        vht_ppdu_ns(&self.tx, self.apep_bytes, self.fec, self.sig_b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::phy::vht::{GuardInterval, Width};

    fn mcs(m: u8, width: Width) -> TxVector {
        TxVector { mcs: m, width, nss: 1, gi: GuardInterval::Normal800 }
    }

    fn fill(tx: TxVector, limits: Limits, ip_bytes: u32) -> Sizer {
        let mut s = Sizer::new(tx, Fec::Bcc, true, limits);
        while s.mpdus() < 64 && s.try_add(ip_bytes) {}
        s
    }

    const NO_TXOP: Limits = Limits { max_ampdu_bytes: 65_535, budget_ns: u64::MAX, after_ns: 0, opens_txop: true };

    #[test]
    fn a_65535_octet_limit_holds_42_mpdus_of_1500_octets() {
        // 1538-octet MPDUs take 1544 octets each: 42 x 1544 = 64848 <= 65535 < 43 x 1544.
        let s = fill(mcs(9, Width::Mhz80), NO_TXOP, 1500);
        assert_eq!((s.mpdus(), s.apep_bytes()), (42, 64_848));
    }

    #[test]
    fn at_low_rates_the_ppdu_duration_limits_first() {
        // MCS 0, 20 MHz: 6.5 Mb/s; 5.484 ms carries ~4440 octets: 2 MPDUs of 1544 (3088 octets,
        // 3.84 ms), not 3 (4632 octets, 5.74 ms).
        let s = fill(mcs(0, Width::Mhz20), NO_TXOP, 1500);
        assert_eq!(s.mpdus(), 2);
        assert!(s.ppdu_ns() <= PPDU_MAX_NS);
    }

    #[test]
    fn a_txop_limit_caps_the_exchange_and_no_aggregation_sends_one() {
        // MCS 7 20 MHz with the 2.528 ms BE TXOP, after = SIFS + BlockAck (16 + 32 us):
        // 40 us preamble + data <= 2480 us: 12 MPDUs of 1544 octets (2324 us), not 13 (2512 us).
        let txop = Limits { max_ampdu_bytes: 65_535, budget_ns: 2_528_000, after_ns: 48_000, opens_txop: true };
        let s = fill(mcs(7, Width::Mhz20), txop, 1500);
        assert_eq!(s.mpdus(), 12);
        assert!(s.ppdu_ns() + 48_000 <= 2_528_000);
        let single = fill(mcs(7, Width::Mhz20), Limits { max_ampdu_bytes: 0, ..NO_TXOP }, 1500);
        assert_eq!(single.mpdus(), 1);
    }
}
