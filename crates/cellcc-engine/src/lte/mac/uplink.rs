//! The eNB's view of UE uplink buffers: scheduling request (TS 36.321 §5.4.4), buffer status
//! report (§5.4.5, Short BSR §6.1.3.1, levels Table 6.1.3.1-1) and UL grant timing
//! (TS 36.213 §8.0: a grant received in subframe n is used in n + 4 in FDD).
//!
//! ```text
//!  UE buffer > 0, nothing granted,        SR occasion            scheduler grants     TB at n+4 carries
//!  eNB believes 0 ──► SrState::Pending ──► SrState::Received ──► (SR_GRANT_BYTES) ──► a BSR: reported =
//!                                          (reported ≥ SR grant)   at n                BSR level (rounded up)
//! ```
//! What differs from ns-3 LENA: ns-3 has no SR; its UE MAC sends an ideal BSR control
//! message every TTI its buffer changed (`LteUeMac::m_bsrPeriodicity` = 1 ms, "ideal
//! behavior"), which reaches the scheduler [`IDEAL_BSR_DELAY_MS`] later, so the eNB knows each
//! buffer (at its BSR level) a few TTIs late, at no cost ([`UplinkRequestsMode::IdealBsr`], the
//! LENA profile's). By default a UE whose buffer the eNB believes empty must wait for its SR
//! occasion, gets a small first grant, and the BSR then rides in the uplink TB itself
//! (quantized as the standard says).
//! The SR is seen by the eNB in its occasion's TTI (no PUCCH decoding delay), so the
//! shortest SR-to-data time is the grant delay, 4 ms.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::scheduler::NewTb;
use super::LENA_MAC_TO_CHANNEL_TTIS;
use crate::error::ScenarioError;
use crate::lte::phy::SRS_PERIODS_MS;
use crate::lte::sap::UeIndex;
use crate::sim::{SimDuration, SimTime, NS_PER_MS};

/// SR periodicities of TS 36.213 Table 10.1.5-1 (I_SR 157: 1, 155–156: 2, 0–4: 5, 5–14: 10,
/// 15–34: 20, 35–74: 40, 75–154: 80 ms).
pub const SR_PERIODS_MS: [u32; 7] = [1, 2, 5, 10, 20, 40, 80];
/// FDD: an uplink grant in subframe n is used in subframe n + 4 (TS 36.213 §8.0, k = 4).
pub const DEFAULT_GRANT_DELAY_MS: u32 = 4;
/// Grant delays accepted: 1 (the grant precedes its use) to 8 (the FDD uplink HARQ round trip,
/// TS 36.213 §8: synchronous HARQ, 8 processes).
pub const MAX_GRANT_DELAY_MS: u32 = 8;

/// What an SR with no BSR yet counts as: room for one pure TCP ACK with timestamps
/// (20 IP + 32 TCP bytes, RFC 7323) behind a 2-byte PDCP header (TS 36.323 §6.2.3, 12-bit
/// SN), a 2-byte RLC AM header (TS 36.322 §6.2.1.4) and the TB's own Short BSR, so the
/// commonest uplink packet of a download goes out in the first grant. ns-3 needs no such
/// guess (its ideal BSR tells the eNB the exact buffer); the BSR in this TB corrects it.
pub const SR_GRANT_BYTES: u32 = 20 + 32 + 2 + 2;

/// BSR buffer size levels (TS 36.321 Table 6.1.3.1-1): the upper bound, bytes, of index 0..=62
/// (index i means `LEVELS[i-1] < BS <= LEVELS[i]`); index 63 is `BS > 150000`. Cross-checked
/// with other public LTE stacks; ns-3 `lte-common.cc` has 93749 for index 59 (typo for 93479).
pub const BSR_LEVELS_BYTES: [u32; 63] = [
    0, 10, 12, 14, 17, 19, 22, 26, 31, 36, 42, 49, 57, 67, 78, 91, 107, 125, 146, 171, 200, 234, 274, 321, 376, 440,
    515, 603, 706, 826, 967, 1132, 1326, 1552, 1817, 2127, 2490, 2915, 3413, 3995, 4677, 5476, 6411, 7505, 8787, 10287,
    12043, 14099, 16507, 19325, 22624, 26487, 31009, 36304, 42502, 49759, 58255, 68201, 79846, 93479, 109439, 128125,
    150000,
];
/// Index 63: more than the last level.
pub const BSR_INDEX_ABOVE_MAX: u8 = 63;

/// The 6-bit Buffer Size index of `bytes` (TS 36.321 §6.1.3.1, Table 6.1.3.1-1).
pub fn bsr_index(bytes: u32) -> u8 {
    BSR_LEVELS_BYTES.iter().position(|level| bytes <= *level).map_or(BSR_INDEX_ABOVE_MAX, |i| i as u8)
}

/// What the eNB takes a BSR index to mean: the upper bound of its range; index 63 reads as
/// 150000 bytes, the most the table can say (ns-3 `BsrId2BufferSize(63)` likewise).
pub fn bsr_index_bytes(index: u8) -> u32 {
    let last = BSR_LEVELS_BYTES.len() - 1;
    BSR_LEVELS_BYTES[usize::from(index).min(last)]
}

/// `bytes` as the eNB learns it from a BSR: rounded up to its level.
pub fn bsr_quantized_bytes(bytes: u32) -> u32 {
    bsr_index_bytes(bsr_index(bytes))
}

/// ns-3.44 LENA's UE PHY holds a control message `UL_PUSCH_TTIS_DELAY` = 4 TTIs before sending
/// it (lte-ue-phy.cc `m_macChTtiDelay`, lte-phy.cc `SetControlMessages`/`GetControlMessages`).
pub const LENA_UE_CONTROL_QUEUE_TTIS: u64 = 4;
/// The eNB MAC hands the BSRs it received to the scheduler at its next subframe
/// (lte-enb-mac.cc `DoSubframeIndication`, "Send BSR reports to the scheduler").
pub const LENA_ENB_MAC_FORWARD_TTIS: u64 = 1;
/// How long LENA's ideal BSR takes to count in the engine's grants: the UE PHY's queue, the eNB
/// MAC's forwarding, and the [`LENA_MAC_TO_CHANNEL_TTIS`] LENA's scheduler decides before the
/// engine's would (it grants for the subframe `MacToChannelDelay` + `UL_PUSCH_TTIS_DELAY` ahead,
/// lte-enb-mac.cc `DoSubframeIndication`, where the engine's grant delay is TS 36.213 §8.0's 4). From a
/// buffer change to its PUSCH: 7 + 4 TTIs, as LENA's own traces show (a TCP ACK queued at the end
/// of subframe n leaves in subframe n + 11: docs/ns3.md).
pub const IDEAL_BSR_DELAY_MS: u64 = LENA_UE_CONTROL_QUEUE_TTIS + LENA_ENB_MAC_FORWARD_TTIS + LENA_MAC_TO_CHANNEL_TTIS;

/// How the eNB learns what a UE has to send (a cell's `uplink.requests`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UplinkRequestsMode {
    /// TS 36.321 §5.4.4-5.4.5: a scheduling request on PUCCH at the UE's SR occasion, a small
    /// first grant, then a Short BSR (quantized, Table 6.1.3.1-1) in every uplink TB.
    SrBsr,
    /// ns-3 LENA: the buffer at its BSR level, [`IDEAL_BSR_DELAY_MS`] late, whenever it changed;
    /// no SR; a UE with nothing to send leaves its grant unused.
    IdealBsr,
}

/// Uplink request settings of a cell, resolved (the scenario's `uplink` table with the
/// profile's defaults filled in: `lte::profile`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UplinkConfig {
    /// SR period, ms: one of 1, 2, 5, 10, 20, 40, 80 (TS 36.213 Table 10.1.5-1).
    pub sr_period_ms: u32,
    /// From UL grant to its PUSCH transmission, ms, 1..=8 (TS 36.213 §8.0, FDD: 4).
    pub grant_delay_ms: u32,
    /// SRS period, ms: one of 2, 5, 10, 20, 40, 80, 160, 320 (TS 36.213 Table 8.2-1).
    pub srs_period_ms: u32,
    /// SR and BSR, or LENA's ideal BSR.
    pub requests: UplinkRequestsMode,
}

impl UplinkConfig {
    /// The operator profile's settings (`lte::profile::OPERATOR`), for tests of this module.
    #[cfg(test)]
    fn standard() -> Self {
        UplinkConfig {
            sr_period_ms: 10,
            grant_delay_ms: DEFAULT_GRANT_DELAY_MS,
            srs_period_ms: crate::lte::phy::DEFAULT_SRS_PERIOD_MS,
            requests: UplinkRequestsMode::SrBsr,
        }
    }
}

impl UplinkConfig {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if !SR_PERIODS_MS.contains(&self.sr_period_ms) {
            return Err(ScenarioError::new(
                format!("{path}.sr_period_ms"),
                self.sr_period_ms,
                "one of 1, 2, 5, 10, 20, 40, 80 (TS 36.213 Table 10.1.5-1)",
            ));
        }
        if !(1..=MAX_GRANT_DELAY_MS).contains(&self.grant_delay_ms) {
            return Err(ScenarioError::new(format!("{path}.grant_delay_ms"), self.grant_delay_ms, "1..=8 ms"));
        }
        if !SRS_PERIODS_MS.contains(&self.srs_period_ms) {
            return Err(ScenarioError::new(
                format!("{path}.srs_period_ms"),
                self.srs_period_ms,
                "one of 2, 5, 10, 20, 40, 80, 160, 320 (TS 36.213 Table 8.2-1)",
            ));
        }
        Ok(())
    }
}

/// A UE's scheduling request (TS 36.321 §5.4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SrState {
    /// No SR outstanding.
    Idle,
    /// Triggered (data, no grant, eNB believes nothing buffered): waits for the SR occasion.
    Pending,
    /// Sent on PUCCH: the eNB owes the UE a grant.
    Received,
}

#[derive(Clone, Debug)]
struct UeRequests {
    sr: SrState,
    /// Last BSR level, less what was granted since.
    reported_bytes: u32,
    /// Grants issued and not yet used.
    grants_in_flight: u32,
    /// Their TB bytes: data they will take from the buffer a BSR describes.
    in_flight_bytes: u32,
    /// Ideal BSR: the buffer last sent, the reports on their way (arrival, bytes), the UE RLC's
    /// buffer changes last seen and whether one came since the last report.
    ideal_sent: u32,
    ideal_in_flight: VecDeque<(SimTime, u32)>,
    rlc_changes_seen: u64,
    rlc_changed: bool,
}

impl UeRequests {
    /// A UE the eNB has heard nothing from: no SR, no BSR, no grant, no RLC change seen.
    const IDLE: UeRequests = UeRequests {
        sr: SrState::Idle,
        reported_bytes: 0,
        grants_in_flight: 0,
        in_flight_bytes: 0,
        ideal_sent: 0,
        ideal_in_flight: VecDeque::new(),
        rlc_changes_seen: 0,
        rlc_changed: false,
    };
}

/// SR/BSR state of every UE of a cell and the grants waiting for their transmission TTI.
#[derive(Debug)]
pub struct UplinkRequests {
    mode: UplinkRequestsMode,
    sr_period_ms: u64,
    grant_delay: SimDuration,
    ues: Vec<UeRequests>,
    /// (transmission time, grant), in issue order = time order.
    grants: VecDeque<(SimTime, NewTb)>,
}

impl UplinkRequests {
    pub fn new(cfg: &UplinkConfig, n_ues: usize) -> Self {
        UplinkRequests {
            mode: cfg.requests,
            sr_period_ms: u64::from(cfg.sr_period_ms),
            grant_delay: SimDuration::from_ms(u64::from(cfg.grant_delay_ms)),
            ues: vec![UeRequests::IDLE; n_ues],
            grants: VecDeque::with_capacity(n_ues * cfg.grant_delay_ms as usize),
        }
    }

    /// Each TTI, before [`Self::ue_buffer`]: the UE RLC's count of buffer changes
    /// (`RlcCounters::buffer_changes`). With LENA's ideal BSR a change since the last report asks
    /// for a new one even if the level is the same (an ACK granted away and the next one queued
    /// within one TTI).
    pub fn ue_rlc_changes(&mut self, ue: UeIndex, changes: u64) {
        let u = &mut self.ues[ue.index()];
        if changes != u.rlc_changes_seen {
            u.rlc_changes_seen = changes;
            u.rlc_changed = true;
        }
    }

    /// Each TTI: the UE's RLC buffer, bytes.
    pub fn ue_buffer(&mut self, now: SimTime, ue: UeIndex, bytes: u32) {
        match self.mode {
            UplinkRequestsMode::SrBsr => self.scheduling_request(now, ue, bytes),
            UplinkRequestsMode::IdealBsr => self.ideal_bsr(now, ue, bytes),
        }
    }

    /// LENA's ideal BSR: a changed buffer is reported at its level (`LteUeMac::SendReportBufferStatus`,
    /// `BufferSizeLevelBsr::BufferSize2BsrId`, rounding up as Table 6.1.3.1-1) and overwrites the
    /// eNB's belief [`IDEAL_BSR_DELAY_MS`] later (`PfFfMacScheduler::DoSchedUlMacCtrlInfoReq`).
    fn ideal_bsr(&mut self, now: SimTime, ue: UeIndex, bytes: u32) {
        let u = &mut self.ues[ue.index()];
        if bytes != u.ideal_sent || u.rlc_changed {
            u.ideal_sent = bytes;
            u.rlc_changed = false;
            let level = bsr_quantized_bytes(bytes);
            u.ideal_in_flight.push_back((now + SimDuration::from_ms(IDEAL_BSR_DELAY_MS), level));
        }
        while let Some(&(at, reported)) = u.ideal_in_flight.front() {
            if at > now {
                break;
            }
            u.ideal_in_flight.pop_front();
            u.reported_bytes = reported;
        }
    }

    /// A UE with data, no grant coming and nothing the eNB knows of triggers an SR (TS 36.321
    /// §5.4.4: a regular BSR with no UL-SCH resources), sent at its next SR occasion: subframes
    /// where `ms mod period == ue mod period` (the per-UE offset of Table 10.1.5-1). With no
    /// data left, a pending SR is cancelled.
    fn scheduling_request(&mut self, now: SimTime, ue: UeIndex, bytes: u32) {
        let period = self.sr_period_ms;
        let u = &mut self.ues[ue.index()];
        let idle_link = u.grants_in_flight == 0 && u.reported_bytes == 0;
        u.sr = match (u.sr, bytes > 0) {
            (SrState::Pending, false) => SrState::Idle,
            (SrState::Idle, true) if idle_link => SrState::Pending,
            (s, _) => s,
        };
        // Only a pending SR asks for its occasion: the two divisions were a third of this
        // function's samples for a thousand UEs every TTI, nearly all of them with no SR.
        let occasion = || (now.as_ns() / NS_PER_MS) % period == ue.index() as u64 % period;
        if u.sr == SrState::Pending && occasion() {
            u.sr = SrState::Received;
        }
    }

    /// The eNB decoded a TB from `ue` carrying a BSR of `bytes_after` (the UE's buffer after
    /// building that TB): the eNB now believes the BSR level (rounded up, Table 6.1.3.1-1)
    /// less the TB bytes of grants it issued that are still to be used, since those will
    /// carry part of that buffer. (ns-3 overwrites its belief with the BSR and so grants the
    /// in-flight bytes twice; the surplus goes out as padding.)
    pub fn bsr_received(&mut self, ue: UeIndex, bytes_after: u32) {
        if self.mode == UplinkRequestsMode::IdealBsr {
            return;
        }
        let u = &mut self.ues[ue.index()];
        u.reported_bytes = bsr_quantized_bytes(bytes_after).saturating_sub(u.in_flight_bytes);
    }

    /// What the eNB scheduler believes `ue` has buffered: the last BSR less grants since, and
    /// at least [`SR_GRANT_BYTES`] while an SR waits for its grant.
    pub fn reported_bytes(&self, ue: UeIndex) -> u32 {
        let u = &self.ues[ue.index()];
        match u.sr {
            SrState::Received => u.reported_bytes.max(SR_GRANT_BYTES),
            SrState::Idle | SrState::Pending => u.reported_bytes,
        }
    }

    /// The scheduler issued `grants` at `now`; each is used at `now + grant_delay`, answers the
    /// UE's SR, and lowers what the eNB believes buffered by the TB size.
    pub fn granted(&mut self, now: SimTime, grants: &[NewTb]) {
        for g in grants {
            let u = &mut self.ues[g.ue.index()];
            u.sr = SrState::Idle;
            u.reported_bytes = u.reported_bytes.saturating_sub(g.tbs_bits / 8);
            u.grants_in_flight += 1;
            u.in_flight_bytes += g.tbs_bits / 8;
            self.grants.push_back((now + self.grant_delay, *g));
        }
    }

    /// Grants whose transmission time is `now` (or earlier, should a TTI have been skipped), pushed to `out`.
    pub fn grants_due(&mut self, now: SimTime, out: &mut Vec<NewTb>) {
        while let Some((at, g)) = self.grants.front().copied() {
            if at > now {
                break;
            }
            self.grants.pop_front();
            let u = &mut self.ues[g.ue.index()];
            u.grants_in_flight -= 1;
            u.in_flight_bytes -= g.tbs_bits / 8;
            out.push(g);
        }
    }

    /// UE `ue` left the cell: its requests and the grants issued to it are void, and the next UE
    /// in its place starts as one the eNB has heard nothing from (TS 36.321 §5.9: a MAC reset
    /// clears the triggered SR and BSR), its RLC's change count included.
    pub fn forget(&mut self, ue: UeIndex) {
        self.ues[ue.index()] = UeRequests::IDLE;
        self.grants.retain(|(_, g)| g.ue != ue);
    }

    /// Whether UE `ue` has an SR outstanding, a grant on its way, an ideal BSR in flight, or a
    /// buffer the eNB believes non-empty: the eNB has work for it even if its buffer is empty.
    pub fn ue_busy(&self, ue: UeIndex) -> bool {
        let u = &self.ues[ue.index()];
        u.sr != SrState::Idle || u.grants_in_flight > 0 || !u.ideal_in_flight.is_empty() || u.reported_bytes > 0
    }

    /// Whether a UE with nothing buffered leaves its grant unused: LENA's UE MAC returns without
    /// a MAC PDU when no logical channel has data ("No active flows for this UL-DCI", lte-ue-mac.cc
    /// `DoReceiveLteControlMessage`); under SR/BSR the UE sends its padding and BSR (TS 36.321 §5.4.3.1).
    pub fn skips_empty_grants(&self) -> bool {
        self.mode == UplinkRequestsMode::IdealBsr
    }

    /// Whether a grant is waiting for its TTI or an SR for its grant (the cell is not idle).
    pub fn is_busy(&self) -> bool {
        !self.grants.is_empty() || self.ues.iter().any(|u| u.sr != SrState::Idle || !u.ideal_in_flight.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::sap::RbMask;

    fn ms(t: u64) -> SimTime {
        SimTime(t * NS_PER_MS)
    }

    fn grant(ue: u16, tbs_bits: u32) -> NewTb {
        NewTb { ue: UeIndex(ue), rbs: RbMask::range(0, 3), mcs: 10, tbs_bits }
    }

    /// Table 6.1.3.1-1: index i covers (LEVELS[i-1], LEVELS[i]]; the eNB reads the upper bound.
    #[test]
    fn bsr_rounds_up_to_the_table_level() {
        assert_eq!((bsr_index(0), bsr_quantized_bytes(0)), (0, 0));
        assert_eq!((bsr_index(1), bsr_quantized_bytes(1)), (1, 10), "0 < BS <= 10");
        assert_eq!((bsr_index(10), bsr_quantized_bytes(10)), (1, 10));
        assert_eq!((bsr_index(11), bsr_quantized_bytes(11)), (2, 12), "10 < BS <= 12");
        assert_eq!((bsr_index(60), bsr_quantized_bytes(60)), (13, 67), "57 < BS <= 67");
        assert_eq!((bsr_index(1500), bsr_quantized_bytes(1500)), (33, 1552), "1326 < BS <= 1552");
        assert_eq!((bsr_index(90_000), bsr_quantized_bytes(90_000)), (59, 93_479), "79846 < BS <= 93479");
        assert_eq!((bsr_index(150_000), bsr_quantized_bytes(150_000)), (62, 150_000));
        assert_eq!((bsr_index(1_000_000), bsr_quantized_bytes(1_000_000)), (63, 150_000), "BS > 150000");
        assert!(BSR_LEVELS_BYTES.windows(2).all(|w| w[0] < w[1]), "levels increase");
    }

    /// SR period 10 ms: UE 3's occasions are at 3, 13, 23 ms. Data at 5 ms waits until 13.
    #[test]
    fn sr_waits_for_the_occasion_then_counts_as_a_small_grant() {
        let mut u = UplinkRequests::new(&UplinkConfig::standard(), 4);
        let ue = UeIndex(3);
        for t in 5..13 {
            u.ue_buffer(ms(t), ue, 500);
            assert_eq!(u.reported_bytes(ue), 0, "t = {t} ms: no SR occasion yet");
        }
        u.ue_buffer(ms(13), ue, 500);
        assert_eq!(u.reported_bytes(ue), SR_GRANT_BYTES);
        assert!(u.is_busy());
    }

    /// Grant at 13 ms is used at 17 ms (k = 4), and only then.
    #[test]
    fn grant_is_used_grant_delay_later_and_bsr_takes_over() {
        let mut u = UplinkRequests::new(&UplinkConfig::standard(), 4);
        let ue = UeIndex(3);
        u.ue_buffer(ms(13), ue, 500);
        u.granted(ms(13), &[grant(3, 56 * 8)]);
        assert_eq!(u.reported_bytes(ue), 0, "the SR grant used up what the SR stood for");
        let mut out = Vec::new();
        for t in 14..17 {
            u.ue_buffer(ms(t), ue, 500);
            u.grants_due(ms(t), &mut out);
            assert!(out.is_empty(), "t = {t} ms: the grant is for 17 ms");
            assert_eq!(u.reported_bytes(ue), 0, "t = {t} ms: a grant is coming, so no new SR");
        }
        u.grants_due(ms(17), &mut out);
        assert_eq!(out, vec![grant(3, 56 * 8)]);
        u.bsr_received(ue, 444);
        assert_eq!(u.reported_bytes(ue), 515, "444 bytes read as the level 440 < BS <= 515");
        u.granted(ms(18), &[grant(3, 300 * 8)]);
        assert_eq!(u.reported_bytes(ue), 215);
        assert!(u.is_busy());
    }

    /// Grants at 13 ms (56 B) and 14 ms (100 B); the TB of the first, at 17 ms, reports 444
    /// bytes (level 515), of which the grant due at 18 ms will carry 100: belief 415.
    #[test]
    fn bsr_discounts_grants_still_in_flight() {
        let mut u = UplinkRequests::new(&UplinkConfig::standard(), 4);
        let ue = UeIndex(3);
        u.ue_buffer(ms(13), ue, 500);
        u.granted(ms(13), &[grant(3, 56 * 8)]);
        u.granted(ms(14), &[grant(3, 100 * 8)]);
        let mut out = Vec::new();
        u.grants_due(ms(17), &mut out);
        assert_eq!(out.len(), 1);
        u.bsr_received(ue, 444);
        assert_eq!(u.reported_bytes(ue), 415);
        u.grants_due(ms(18), &mut out);
        u.bsr_received(ue, 344);
        assert_eq!(u.reported_bytes(ue), 376, "344 → level 376, nothing in flight");
    }

    /// A UE whose BSR said "empty" and which gets new data raises an SR again.
    #[test]
    fn new_data_after_an_empty_bsr_triggers_a_new_sr() {
        let cfg = UplinkConfig { sr_period_ms: 5, grant_delay_ms: 4, ..UplinkConfig::standard() };
        let mut u = UplinkRequests::new(&cfg, 2);
        let ue = UeIndex(1);
        u.bsr_received(ue, 0);
        u.ue_buffer(ms(20), ue, 0);
        assert!(!u.is_busy());
        u.ue_buffer(ms(22), ue, 52);
        u.ue_buffer(ms(26), ue, 52);
        assert_eq!(u.reported_bytes(ue), SR_GRANT_BYTES, "occasion at 26 ms = 1 mod 5");
    }

    #[test]
    fn pending_sr_is_cancelled_when_the_buffer_empties() {
        let mut u = UplinkRequests::new(&UplinkConfig::standard(), 1);
        u.ue_buffer(ms(1), UeIndex(0), 10);
        u.ue_buffer(ms(2), UeIndex(0), 0);
        u.ue_buffer(ms(10), UeIndex(0), 0);
        assert_eq!(u.reported_bytes(UeIndex(0)), 0);
        assert!(!u.is_busy());
    }

    #[test]
    fn config_validation_names_the_field() {
        let d = UplinkConfig::standard();
        assert!(d.validate("cells[0].uplink").is_ok());
        let e = UplinkConfig { sr_period_ms: 3, ..d }.validate("cells[0].uplink").unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str()), ("cells[0].uplink.sr_period_ms", "3"));
        let e = UplinkConfig { grant_delay_ms: 0, ..d }.validate("u").unwrap_err();
        assert_eq!(e.path, "u.grant_delay_ms");
        // 30 ms is no T_SRS of Table 8.2-1 (40 and 20 are).
        let e = UplinkConfig { srs_period_ms: 30, ..d }.validate("u").unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str()), ("u.srs_period_ms", "30"));
        assert!(UplinkConfig { grant_delay_ms: 9, ..d }.validate("u").is_err());
    }

    /// LENA's ideal BSR: the buffer's level, 7 TTIs late (4 in the UE PHY, 1 in the eNB MAC, 2 of
    /// LENA's earlier scheduling), overwriting the belief; no SR needed.
    #[test]
    fn the_ideal_bsr_reports_the_buffer_level_seven_ttis_late() {
        let cfg = UplinkConfig { requests: UplinkRequestsMode::IdealBsr, ..UplinkConfig::standard() };
        let mut u = UplinkRequests::new(&cfg, 2);
        let ue = UeIndex(1);
        u.ue_buffer(ms(7), ue, 444);
        for t in 7..14 {
            u.ue_buffer(ms(t), ue, 444);
            assert_eq!(u.reported_bytes(ue), 0, "t = {t} ms");
            assert!(u.is_busy());
        }
        u.ue_buffer(ms(14), ue, 444);
        assert_eq!(u.reported_bytes(ue), 515, "the level of 444 bytes (376 < BS <= 515), as LENA reads its BSR");
        u.granted(ms(14), &[grant(1, 100 * 8)]);
        assert_eq!(u.reported_bytes(ue), 415);
        u.bsr_received(ue, 0);
        assert_eq!(u.reported_bytes(ue), 415, "no BSR rides in LENA's TBs");
        // A later report overwrites what the grant left (LENA's scheduler stores the BSR as received).
        u.ue_buffer(ms(15), ue, 60);
        (15..22).for_each(|t| u.ue_buffer(ms(t), ue, 60));
        assert_eq!(u.reported_bytes(ue), 415);
        u.ue_buffer(ms(22), ue, 60);
        assert_eq!(u.reported_bytes(ue), 67);
        u.granted(ms(22), &[grant(1, 100 * 8)]);
        assert_eq!(u.reported_bytes(ue), 0);
        // The 60 bytes go out and another 60 arrive within one TTI: the level reads as before, but
        // the RLC changed, so LENA's UE reports again.
        u.ue_rlc_changes(ue, 2);
        u.ue_buffer(ms(23), ue, 60);
        (24..30).for_each(|t| u.ue_buffer(ms(t), ue, 60));
        assert_eq!(u.reported_bytes(ue), 0);
        u.ue_buffer(ms(30), ue, 60);
        assert_eq!(u.reported_bytes(ue), 67);
    }

    /// A UE that leaves the cell takes its RLC change count along: the next UE in its place
    /// reports only its own changes (TS 36.321 §5.9 MAC reset), not a change the first left seen.
    #[test]
    fn a_forgotten_ue_leaves_no_rlc_change_behind() {
        let cfg = UplinkConfig { requests: UplinkRequestsMode::IdealBsr, ..UplinkConfig::standard() };
        let mut u = UplinkRequests::new(&cfg, 2);
        let ue = UeIndex(0);
        u.ue_rlc_changes(ue, 9);
        u.forget(ue);
        u.ue_rlc_changes(ue, 0);
        u.ue_buffer(ms(3), ue, 0);
        assert!(!u.ue_busy(ue), "an empty buffer with no change of its own sends no report");
        u.ue_rlc_changes(ue, 1);
        u.ue_buffer(ms(4), ue, 0);
        assert!(u.ue_busy(ue), "its own change is reported");
    }
}
