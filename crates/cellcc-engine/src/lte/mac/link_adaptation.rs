//! Link adaptation: the MCS of each transport block, from what the eNB knows of the link (the
//! UE's CQI downlink, its own measurement of the SRS and PUSCH DMRS uplink), corrected by an
//! outer loop that moves an offset on the HARQ outcomes of first transmissions so that their
//! BLER converges on a target.
//!
//! ```text
//!  DL: CQI ─► SINR of the MCS it maps to (flat-channel 10 % point) ─┐
//!  UL: per-RB estimate (SRS, DMRS) over the granted RBs (MIESM) ─────┼─► + OLLA offset (dB) ─► highest MCS at 10 % BLER
//!                                        HARQ ACK: offset += Δ_ACK ◄─┘   NACK: offset -= Δ_NACK
//! ```
//! Inner loop: the CQI of TS 36.213 §7.2.3 is defined for 10 % BLER, so a CQI is read as the
//! SINR at which its MCS (`amc::mcs_from_cqi`) meets that BLER on the band; the uplink has no
//! CQI and the eNB computes the effective SINR of its estimate over the RBs it grants. Outer
//! loop (OLLA): the classic offset controller (sionna.sys.OuterLoopLinkAdaptation, after
//! Pedersen et al. 2005): on a NACK the offset falls by Δ_NACK, on an ACK it rises by
//! Δ_ACK = Δ_NACK · T / (1 - T), so it settles where the first-transmission BLER is T
//! (Sampath et al. 1997: the fixed point of E[Δ] = 0).

use serde::{Deserialize, Serialize};

use crate::error::ScenarioError;
use crate::lte::phy::{flat_sinr_threshold_db, mcs_from_cqi, MAX_MCS};
use crate::lte::sap::LinkDir;

/// How the eNB picks the MCS of an uplink grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UlMcsRule {
    /// The effective SINR (MIESM, the BLER model's own) of the eNB's per-RB estimate over the
    /// RBs granted, plus the outer loop's offset.
    EffectiveSinr,
    /// ns-3 LENA's schedulers: the Shannon-gap CQI of the minimum estimated SINR over the
    /// grant's RBs (`DoSchedUlTriggerReq`), CQI 0 withdrawing the grant.
    LenaMinimumSinr,
}

/// The outer loop's settings (a cell's `link_adaptation.olla`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OllaConfig {
    /// First-transmission BLER the loop aims at, in (0, 0.5). Default 0.1: the 10 % of the CQI
    /// definition (TS 36.213 §7.2.3) and of sionna.sys.OuterLoopLinkAdaptation's `bler_target`.
    #[serde(default = "default_target_bler")]
    pub target_bler: f64,
    /// Δ_NACK: the offset's fall on a NACK, dB, in (0, 10]. Default 1 dB (sionna's `delta_up`,
    /// its name for this step); Δ_ACK follows from the target.
    #[serde(default = "default_nack_step_db")]
    pub nack_step_db: f64,
    /// The offset stays within ±this, dB, in [0, 30]. Default 20 dB (sionna's `offset_min/max`).
    #[serde(default = "default_max_offset_db")]
    pub max_offset_db: f64,
}

fn default_target_bler() -> f64 {
    OllaConfig::DEFAULT.target_bler
}
fn default_nack_step_db() -> f64 {
    OllaConfig::DEFAULT.nack_step_db
}
fn default_max_offset_db() -> f64 {
    OllaConfig::DEFAULT.max_offset_db
}

/// Largest offset bound accepted, dB: beyond it the loop no longer describes an estimate error.
const MAX_OFFSET_BOUND_DB: f64 = 30.0;
/// Largest NACK step accepted, dB.
const MAX_NACK_STEP_DB: f64 = 10.0;

impl OllaConfig {
    pub const DEFAULT: OllaConfig = OllaConfig { target_bler: 0.1, nack_step_db: 1.0, max_offset_db: 20.0 };

    /// Δ_ACK, dB: the step on an ACK that balances Δ_NACK at the target BLER.
    pub fn ack_step_db(&self) -> f64 {
        self.nack_step_db * self.target_bler / (1.0 - self.target_bler)
    }

    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let bad = |f: &str, v: f64, allowed: &str| Err(ScenarioError::new(format!("{path}.{f}"), v, allowed));
        if !(self.target_bler > 0.0 && self.target_bler < 0.5) {
            return bad("target_bler", self.target_bler, "a probability in (0, 0.5)");
        }
        if !(self.nack_step_db > 0.0 && self.nack_step_db <= MAX_NACK_STEP_DB) {
            return bad("nack_step_db", self.nack_step_db, "dB in (0, 10]");
        }
        if !(0.0..=MAX_OFFSET_BOUND_DB).contains(&self.max_offset_db) {
            return bad("max_offset_db", self.max_offset_db, "dB in [0, 30]");
        }
        Ok(())
    }
}

/// ln(10) / 10: a dB value times this is the natural log of its linear ratio.
const DB_TO_NEPER: f64 = std::f64::consts::LN_10 / 10.0;

/// One link's outer loop: the offset, dB, added to the inner loop's SINR, and its linear gain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OuterLoop {
    offset_db: f64,
    gain_lin: f64,
}

impl Default for OuterLoop {
    fn default() -> Self {
        OuterLoop { offset_db: 0.0, gain_lin: 1.0 }
    }
}

impl OuterLoop {
    pub fn offset_db(&self) -> f64 {
        self.offset_db
    }

    /// The offset as a linear power gain (kept with it: the uplink scales its estimate by it).
    pub fn gain_lin(&self) -> f64 {
        self.gain_lin
    }

    /// The HARQ outcome of a first transmission: decoded or not.
    pub fn first_transmission(&mut self, cfg: &OllaConfig, decoded: bool) {
        let step = if decoded { cfg.ack_step_db() } else { -cfg.nack_step_db };
        self.offset_db = (self.offset_db + step).clamp(-cfg.max_offset_db, cfg.max_offset_db);
        // 10^(x/10) as exp(x ln(10)/10): the same to a few ulp, a third of powf's cost (every HARQ ACK).
        self.gain_lin = (self.offset_db * DB_TO_NEPER).exp();
    }
}

/// The inner loop's ladder, for any RAT: per MCS index, the flat-channel SINR (dB) at which that
/// MCS meets the BLER target. Link adaptation reads a report (a CQI, an effective SINR) as a SINR,
/// adds the outer loop's offset and climbs the ladder to the highest MCS at or below it. The LTE
/// cell builds it from TS 36.213's MCS table and the MIESM curves ([`DlMcsMap`]), the NR cell from
/// TS 38.214's tables and the LDPC curves (`nr::phy::amc`).
#[derive(Clone, Debug, PartialEq)]
pub struct McsLadder {
    threshold_db: Vec<f64>,
    /// The thresholds do not decrease (no NaN): the highest rung at or below a SINR is found by
    /// bisection (a downlink UE's MCS is looked up every TTI).
    sorted: bool,
}

impl McsLadder {
    /// `threshold_db[m]`: the SINR at which MCS `m` meets the target (non-decreasing in `m` for
    /// the ladder to mean anything; the search does not rely on it).
    pub fn new(threshold_db: Vec<f64>) -> Self {
        assert!(!threshold_db.is_empty() && threshold_db.len() <= 256, "an MCS ladder of {} rungs", threshold_db.len());
        let sorted = threshold_db.windows(2).all(|w| w[0] <= w[1]);
        McsLadder { threshold_db, sorted }
    }

    /// The highest MCS whose threshold lies at or below `sinr_db`, else MCS 0.
    pub fn highest_at(&self, sinr_db: f64) -> u8 {
        let at_or_below = |t: &f64| *t <= sinr_db;
        let highest = if self.sorted {
            // The rungs at or below `sinr_db` are a prefix: the last of them, as the scan finds it.
            self.threshold_db.partition_point(at_or_below).checked_sub(1)
        } else {
            self.threshold_db.iter().rposition(at_or_below)
        };
        highest.map_or(0, |m| m as u8)
    }

    /// The SINR, dB, at which `mcs` meets the target.
    pub fn threshold_db(&self, mcs: u8) -> f64 {
        self.threshold_db[usize::from(mcs)]
    }

    /// The highest MCS index on the ladder.
    pub fn max_mcs(&self) -> u8 {
        (self.threshold_db.len() - 1) as u8
    }
}

/// The downlink inner loop of one cell: per MCS, the flat SINR at which it meets the BLER target
/// on the whole band (a CQI describes the band).
#[derive(Clone, Debug)]
pub struct DlMcsMap {
    ladder: McsLadder,
}

impl DlMcsMap {
    pub fn new(n_rbs: u32) -> Self {
        let thresholds = (0..=MAX_MCS).map(|m| flat_sinr_threshold_db(LinkDir::Downlink, m, n_rbs)).collect();
        DlMcsMap { ladder: McsLadder::new(thresholds) }
    }

    /// The MCS for a UE that reported `cqi` (1..=15), with the outer loop's `offset_db`: the
    /// highest MCS whose threshold lies at or below the CQI's SINR plus the offset, else MCS 0.
    /// With no offset it is the CQI's own MCS.
    pub fn mcs(&self, cqi: u8, offset_db: f64) -> u8 {
        self.ladder.highest_at(self.ladder.threshold_db(mcs_from_cqi(cqi)) + offset_db)
    }

    /// The SINR, dB, the eNB reads a CQI as (for the control channel's aggregation level).
    pub fn cqi_sinr_db(&self, cqi: u8) -> f64 {
        self.ladder.threshold_db(mcs_from_cqi(cqi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::phy::MAX_CQI;

    /// The last rung at or below `sinr_db` by the plain scan from the top.
    fn scanned(ladder: &[f64], sinr_db: f64) -> u8 {
        ladder.iter().rposition(|&t| t <= sinr_db).map_or(0, |m| m as u8)
    }

    #[test]
    fn the_bisection_finds_the_rung_the_scan_finds() {
        let inf = f64::INFINITY;
        let ladders: [&[f64]; 4] = [
            &[-6.0, -4.0, -4.0, -1.5, 0.0, 3.0, 7.0, inf, inf],
            &[2.0],
            // Not sorted: the scan itself.
            &[-6.0, 1.0, -2.0, 4.0],
            &[-1.0, f64::NAN, 3.0],
        ];
        for t in ladders {
            let ladder = McsLadder::new(t.to_vec());
            for x in [-inf, -7.0, -6.0, -4.0, -3.9, -2.0, 0.0, 1.0, 2.0, 3.0, 6.99, 7.0, 1e300, inf, f64::NAN] {
                assert_eq!(ladder.highest_at(x), scanned(t, x), "{t:?} at {x}");
            }
        }
        let dl = DlMcsMap::new(100);
        for cqi in 0..=MAX_CQI {
            for offset_db in [-20.0, -3.3, 0.0, 0.7, 20.0] {
                let want = scanned(&dl.ladder.threshold_db, dl.cqi_sinr_db(cqi) + offset_db);
                assert_eq!(dl.mcs(cqi, offset_db), want);
            }
        }
    }

    /// Δ_ACK = Δ_NACK T / (1 - T): 1 dB at 10 % gives 1/9 dB, so nine ACKs undo one NACK.
    #[test]
    fn the_ack_step_balances_the_nack_step_at_the_target() {
        let c = OllaConfig::DEFAULT;
        assert!((c.ack_step_db() - 1.0 / 9.0).abs() < 1e-12);
        let mut l = OuterLoop::default();
        l.first_transmission(&c, false);
        for _ in 0..9 {
            l.first_transmission(&c, true);
        }
        assert!(l.offset_db().abs() < 1e-12, "{}", l.offset_db());
        let bounded = OllaConfig { max_offset_db: 2.0, ..c };
        for _ in 0..10 {
            l.first_transmission(&bounded, false);
        }
        assert_eq!(l.offset_db(), -2.0);
    }

    /// With no offset a CQI gives the MCS TS 36.213's mapping gives it; every offset moves the
    /// MCS the same way, and +3 dB is enough for a higher one at every CQI below 15.
    #[test]
    fn offset_zero_reproduces_the_cqi_mapping_and_offsets_move_it_monotonically() {
        for n_rbs in [25, 50, 100] {
            let map = DlMcsMap::new(n_rbs);
            for cqi in 1..=MAX_CQI {
                assert_eq!(map.mcs(cqi, 0.0), mcs_from_cqi(cqi), "{n_rbs} RBs, CQI {cqi}");
                assert!(map.mcs(cqi, -2.0) <= map.mcs(cqi, 0.0) && map.mcs(cqi, 0.0) <= map.mcs(cqi, 2.0));
                if cqi < MAX_CQI {
                    assert!(map.mcs(cqi, 3.0) > mcs_from_cqi(cqi), "{n_rbs} RBs, CQI {cqi}");
                }
            }
            assert_eq!(map.mcs(1, -20.0), 0);
            assert_eq!(map.mcs(15, 20.0), MAX_MCS);
        }
    }

    #[test]
    fn validation_names_the_field() {
        let ok = OllaConfig::DEFAULT;
        assert!(ok.validate("c.olla").is_ok());
        let e = OllaConfig { target_bler: 0.5, ..ok }.validate("c.olla").unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str()), ("c.olla.target_bler", "0.5"));
        assert_eq!(OllaConfig { nack_step_db: 0.0, ..ok }.validate("o").unwrap_err().path, "o.nack_step_db");
        assert_eq!(OllaConfig { max_offset_db: f64::NAN, ..ok }.validate("o").unwrap_err().path, "o.max_offset_db");
    }
}
