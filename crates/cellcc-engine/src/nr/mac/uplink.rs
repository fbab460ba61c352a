//! The gNB's view of each UE's uplink buffer: scheduling request on PUCCH at the UE's SR occasion
//! (TS 38.321 §5.4.4, periodicity and offset of TS 38.331 `SchedulingRequestResourceConfig`),
//! then a Short BSR in every PUSCH (§5.4.5, §6.1.3.1, 5-bit levels of Table 6.1.3.1-1).
//!
//! ```text
//!  UE has data, gNB believes 0, no grant coming ─► SR pending ─► SR slot (PUCCH) ─► its end: gNB believes SR_GRANT_BYTES
//!  grant issued at slot d for slot d + K2: belief -= TBS, in flight += TBS ─► PUSCH: in flight -= TBS,
//!  its BSR (the UE's buffer after it, rounded up to its level) read less the grants still in flight
//! ```

/// SR periodicities in slots (TS 38.331 `periodicityAndOffset`: sl1 .. sl640; the sub-slot
/// sym2 and sym6or7 are not modelled).
pub const SR_PERIODS_SLOTS: [u64; 13] = [1, 2, 4, 5, 8, 10, 16, 20, 40, 80, 160, 320, 640];

/// What an SR with no BSR yet counts as: one TCP ACK with timestamps (20 IP + 32 TCP bytes,
/// RFC 7323) behind an 18-bit-SN PDCP header (3, TS 38.323 §6.2.2.1), an 18-bit-SN AMD header
/// (3, TS 38.322 §6.2.2.4), a MAC subheader (2) and the TB's Short BSR (2), so a download's ACK
/// goes out in the first grant; the BSR in that TB corrects the guess (as the LTE cell's).
pub const SR_GRANT_BYTES: u32 = 20 + 32 + 3 + 3 + 2 + 2;

/// TS 38.321 Table 6.1.3.1-1, Buffer Size levels for the 5-bit field: the upper bound of index
/// 0..=30 (index i: LEVELS[i-1] < BS <= LEVELS[i]); index 31 is BS > 150000.
pub const BSR_LEVELS_BYTES: [u32; 31] = [
    0, 10, 14, 20, 28, 38, 53, 74, 102, 142, 198, 276, 384, 535, 745, 1038, 1446, 2014, 2806, 3909, 5446, 7587, 10570,
    14726, 20516, 28581, 39818, 55474, 77284, 107669, 150000,
];

/// `bytes` as the gNB reads it from a Short BSR: rounded up to its level; above the last,
/// 150000 (the most the field says).
pub fn bsr_quantized_bytes(bytes: u32) -> u32 {
    BSR_LEVELS_BYTES.iter().copied().find(|&l| bytes <= l).unwrap_or(BSR_LEVELS_BYTES[30])
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Sr {
    #[default]
    Idle,
    /// Triggered; sent at the next SR occasion.
    Pending,
    /// Sent on a PUCCH; the gNB reads it at the end of that slot.
    Sent,
}

#[derive(Clone, Copy, Debug, Default)]
struct UeUl {
    /// What the gNB believes the UE holds, bytes.
    reported: u32,
    /// Granted and not yet sent, bytes.
    in_flight: u32,
    sr: Sr,
    /// The UE's SR slot offset within the period.
    offset: u64,
}

/// The uplink request state of a cell's UEs.
#[derive(Clone, Debug)]
pub struct UplinkRequests {
    period_slots: u64,
    ues: Vec<UeUl>,
}

impl UplinkRequests {
    /// `sr_offsets[i]`: UE i's SR slot within the period (a slot with a PUCCH).
    pub fn new(period_slots: u64, sr_offsets: &[u64]) -> Self {
        let ues = sr_offsets.iter().map(|&offset| UeUl { offset, ..UeUl::default() }).collect();
        UplinkRequests { period_slots, ues }
    }

    /// The UE's buffer at this slot: an SR is triggered if the gNB knows of nothing and no grant is coming.
    pub fn ue_buffer(&mut self, ue: usize, bytes: u32) {
        let u = &mut self.ues[ue];
        if bytes > 0 && u.reported == 0 && u.in_flight == 0 && u.sr == Sr::Idle {
            u.sr = Sr::Pending;
        }
    }

    /// Slot `slot` is UE `ue`'s SR occasion.
    pub fn sr_occasion(&self, ue: usize, slot: u64) -> bool {
        slot % self.period_slots == self.ues[ue].offset
    }

    /// Whether UE `ue` sends its pending SR on the PUCCH of `slot` (its occasion).
    pub fn sr_sent(&mut self, ue: usize, slot: u64) -> bool {
        let sent = self.ues[ue].sr == Sr::Pending && self.sr_occasion(ue, slot);
        if sent {
            self.ues[ue].sr = Sr::Sent;
        }
        sent
    }

    /// The gNB decoded UE `ue`'s SR.
    pub fn sr_received(&mut self, ue: usize) {
        let u = &mut self.ues[ue];
        u.sr = Sr::Idle;
        u.reported = u.reported.max(SR_GRANT_BYTES);
    }

    pub fn reported_bytes(&self, ue: usize) -> u32 {
        self.ues[ue].reported
    }

    /// A grant of `tbs_bits` was issued.
    pub fn granted(&mut self, ue: usize, tbs_bits: u32) {
        let u = &mut self.ues[ue];
        u.reported = u.reported.saturating_sub(tbs_bits / 8);
        u.in_flight += tbs_bits / 8;
    }

    /// The PUSCH of a grant of `tbs_bits` went out (decoded or not; a failed one is retransmitted
    /// on its own HARQ grant).
    pub fn used(&mut self, ue: usize, tbs_bits: u32) {
        let u = &mut self.ues[ue];
        u.in_flight = u.in_flight.saturating_sub(tbs_bits / 8);
    }

    /// The gNB decoded a PUSCH with a BSR saying `left` bytes.
    pub fn bsr_received(&mut self, ue: usize, left: u32) {
        let u = &mut self.ues[ue];
        u.reported = bsr_quantized_bytes(left).saturating_sub(u.in_flight);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bsr_levels_round_up() {
        assert_eq!(
            [0, 1, 10, 11, 1500, 150_000, 200_000].map(bsr_quantized_bytes),
            [0, 10, 10, 14, 2014, 150_000, 150_000]
        );
    }

    /// SR waits for its occasion; the first grant covers an ACK; the BSR then sets the belief
    /// less what is still in flight.
    #[test]
    fn sr_then_grant_then_bsr() {
        let mut u = UplinkRequests::new(40, &[9]);
        u.ue_buffer(0, 3000);
        assert!(!u.sr_sent(0, 8), "not the UE's occasion");
        assert!(u.sr_sent(0, 49));
        assert_eq!(u.reported_bytes(0), 0, "read at the slot's end");
        u.sr_received(0);
        assert_eq!(u.reported_bytes(0), SR_GRANT_BYTES);
        u.granted(0, 8 * 100);
        assert_eq!(u.reported_bytes(0), 0);
        u.ue_buffer(0, 3000);
        assert!(!u.sr_sent(0, 89), "no SR while a grant is coming");
        u.used(0, 8 * 100);
        u.bsr_received(0, 2900);
        assert_eq!(u.reported_bytes(0), 3909);
    }
}
