//! The eNB's uplink channel measurement: it sees a UE's uplink only where the UE transmits,
//! on its periodic sounding reference signal (SRS, whole band: TS 36.213 §8.2, TS 36.211
//! §5.5.3) and on the DMRS of its PUSCH (the granted RBs: TS 36.211 §5.5.2). The per-RB
//! estimate holds between measurements and the uplink CQI is derived from it, as ns-3 LENA's
//! schedulers keep the last UL CQI per RB (`DoSchedUlCqiInfoReq`, SRS or PUSCH reports from
//! `LteEnbPhy::CreateSrsCqiReport` / `CreatePuschCqiReport`).
//!
//! ```text
//!  TTI n:  n mod T_SRS == offset(ue)?  ──► SRS: every RB measured ─┐
//!          PUSCH of the UE in n?       ──► DMRS: its RBs measured ─┴─► per-RB estimate + its age
//!                                                                      ├─► effective SINR over a grant's RBs ─► MCS
//!                                                                      └─► LENA: Shannon-gap CQI of the minimum
//! ```
//! The estimate of an RB is its last measurement, however old: with a 40 ms SRS period and fast
//! fading most of it is stale, which the outer loop (`mac::link_adaptation`) absorbs.
//! SRS occasions (TS 36.213 §8.2, FDD): subframes with `(10 n_f + k_SRS - T_offset) mod T_SRS = 0`,
//! i.e. `ms mod T_SRS == T_offset`. The offset of UE `i` is `i mod T_SRS`: ns-3 `LteEnbRrc`
//! hands out configuration indices in attach order from the lowest of the period's range
//! (`GetNewSrsConfigurationIndex`), and T_offset = I_SRS - (first index of the range)
//! (Table 8.2-1). ns-3 refuses more UEs than T_SRS; here they share offsets.

use serde::{Deserialize, Serialize};

use super::amc::{
    mcs_at_bler_target_on, mcs_from_mib, mcs_from_mib_within, mean_mib_on, uplink_cqi_shannon_gap_lin, wideband_cqi,
};
use super::mi::{mi3_per_rb, MIB_MONOTONE_SLACK, MIB_RISE};
use super::tbs::MAX_PRB;
use crate::lte::sap::{LinkDir, RbMask};
use crate::sim::prefetch::CACHE_LINE_BYTES;

/// SRS periodicities T_SRS of TS 36.213 Table 8.2-1 (FDD, I_SRS 0–1: 2, 2–6: 5, 7–16: 10,
/// 17–36: 20, 37–76: 40, 77–156: 80, 157–316: 160, 317–636: 320 ms).
pub const SRS_PERIODS_MS: [u32; 8] = [2, 5, 10, 20, 40, 80, 160, 320];
/// Default SRS period: ns-3.44 `LteEnbRrc` attribute `SrsPeriodicity` = 40 ms (lte-enb-rrc.cc).
pub const DEFAULT_SRS_PERIOD_MS: u32 = 40;

/// Where the eNB measures a UE's uplink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UlMeasurement {
    /// The SRS and the DMRS of every PUSCH (TS 36.211 §5.5.2-5.5.3).
    SrsAndPusch,
    /// The SRS alone: ns-3 LENA's default `FfMacScheduler::UlCqiFilter` = SRS_UL_CQI.
    SrsOnly,
}

/// `f64` values per cache line.
const VALUES_PER_CACHE_LINE: usize = CACHE_LINE_BYTES / std::mem::size_of::<f64>();

/// Marks an RB never measured.
const NEVER_MS: u64 = u64::MAX;

/// How far a kept sum may move from the exact sum of its RBs' MIBs at each RB changed: the
/// difference of two MIBs in [0, 1] rounds by half an ulp of 1, its add into a sum of at most
/// [`MAX_PRB`] by half an ulp of [`MAX_PRB`] + 1; counted in whole ulps (f64 rounding, Higham,
/// "Accuracy and Stability of Numerical Algorithms", 2nd ed., §2.2).
const KEPT_SUM_ERROR_PER_CHANGE: f64 = (MAX_PRB + 2) as f64 * f64::EPSILON;

/// Band RBs per RB the kept sums may move between two band MCSs. A move costs about six RBs
/// of the band's MIESM (two single-RB lookups, ~120 instructions by callgrind, against ~20 per
/// RB in the 4-wide kernel) and the sums decide some three band MCSs in four (the 19-site
/// row): an estimate that moves on more than a 24th of the band between two of them (fast
/// fading: every RB of each PUSCH, the channel cell's ~37) drops its sums rather than pay for
/// moves that save less than they cost.
const BAND_RBS_PER_KEPT_MOVE: u32 = 24;

/// The RBs the kept sums of a band of `n_rbs` RBs may move between two band MCSs.
fn kept_moves_allowed(n_rbs: u32) -> u32 {
    n_rbs / BAND_RBS_PER_KEPT_MOVE
}

/// What [`UplinkSounding::band_mcs`] keeps of its last MIESM over the band, so that an estimate
/// changed on a few RBs since (a PUSCH's DMRS moves about one RB in a network without fast
/// fading) finds the band's MCS without another ([`UplinkSounding::kept_band_mcs`]).
#[derive(Clone, Copy, Debug)]
struct KeptBandMib {
    /// The outer loop's gain the MIBs are taken at.
    gain_lin: f64,
    /// Per modulation, the sum over the band of each RB's MIB at `gain_lin`, moved by each RB's
    /// change of MIB since.
    sum_mib: [f64; 3],
    /// How far `sum_mib` may be from the exact sum of the current RBs' MIBs, each lane.
    error_bound: f64,
    /// The RBs measured (the band's), which stay the same while the sums are kept.
    n_rbs: u32,
    /// RBs the sums may still move before the next band MCS ([`BAND_RBS_PER_KEPT_MOVE`]).
    moves_left: u32,
}

impl KeptBandMib {
    /// The sums of `n_rbs` RBs whose mean MIB (as [`mean_mib_on`] computes it) is `mean_mib`.
    fn of_mean(gain_lin: f64, mean_mib: [f64; 3], n_rbs: u32) -> Self {
        let n = f64::from(n_rbs);
        // The mean is within (n + 1) half-ulps of the exact one (recursive summation of terms in
        // [0, 1], Higham §4.2, then the division); times n, and the product's rounding.
        let sum_mib = mean_mib.map(|m| m * n);
        let moves_left = kept_moves_allowed(n_rbs);
        KeptBandMib { gain_lin, sum_mib, error_bound: n * (n + 2.0) * f64::EPSILON, n_rbs, moves_left }
    }

    /// One RB's estimate moved from `old_lin` to `new_lin`; `false` (the sums to be dropped)
    /// when the moves allowed before the next band MCS are spent.
    fn moved(&mut self, old_lin: f64, new_lin: f64) -> bool {
        let Some(left) = self.moves_left.checked_sub(1) else { return false };
        self.moves_left = left;
        let (old, new) = (mi3_per_rb(old_lin * self.gain_lin), mi3_per_rb(new_lin * self.gain_lin));
        for ((sum, new), old) in self.sum_mib.iter_mut().zip(new).zip(old) {
            *sum += new - old;
        }
        self.error_bound += KEPT_SUM_ERROR_PER_CHANGE;
        true
    }

    /// Bounds, per modulation, on the mean MIB [`mean_mib_on`] would compute over the band at
    /// `gain_lin`. At the kept gain, the kept mean within its rounding. At another gain
    /// every RB's SINR moves by the gains' ratio: towards it each RB's MIB moves by at most its
    /// lookup's rise over that many nepers ([`MIB_RISE`]), away from it by no more than
    /// [`MIB_MONOTONE_SLACK`] (the lookup rises with the SINR); the slack also covers this
    /// bound's own roundings.
    fn mean_bounds(&self, gain_lin: f64) -> ([f64; 3], [f64; 3]) {
        let n = f64::from(self.n_rbs);
        let mean = self.sum_mib.map(|s| s / n);
        // The kept sum's error on the mean, the computed mean's own (n + 1 half-ulps) and this
        // division's, in whole ulps.
        let rounding = self.error_bound / n + (n + 2.0) * f64::EPSILON;
        let (mut below, mut above) = ([rounding; 3], [rounding; 3]);
        if gain_lin != self.gain_lin {
            let nepers = (gain_lin / self.gain_lin).ln();
            let toward = MIB_RISE.map(|r| r.slope_per_neper * nepers.abs() + r.jump);
            // No direction (a NaN gain, a ratio rounded to 1) bounds nothing.
            let (rise, fall) = match nepers.partial_cmp(&0.0) {
                Some(std::cmp::Ordering::Greater) => (toward, [0.0; 3]),
                Some(std::cmp::Ordering::Less) => ([0.0; 3], toward),
                _ => ([f64::NAN; 3], [f64::NAN; 3]),
            };
            for k in 0..3 {
                above[k] += rise[k] + MIB_MONOTONE_SLACK;
                below[k] += fall[k] + MIB_MONOTONE_SLACK;
            }
        }
        (std::array::from_fn(|k| mean[k] - below[k]), std::array::from_fn(|k| mean[k] + above[k]))
    }
}

/// The eNB's per-RB estimate of one UE's uplink SINR, and when each RB was last measured.
#[derive(Clone, Debug)]
pub struct UplinkSounding {
    period_ms: u64,
    offset_ms: u64,
    /// Per RB, linear; +inf where nothing was measured yet (ignored by the minimum).
    sinr_lin: Vec<f64>,
    /// When each RB was last measured: the TTI (ms) of the last SRS for every RB, but those a
    /// PUSCH measured since, whose TTI is in `pusch_ms`. An SRS so writes a time and a mask, not
    /// every RB's time: each UE's SRS every 40 ms filled 800 bytes of times out of the cache,
    /// 0.8 M of the 19-site run's write misses of a 4 or 8 MB LL (docs/performance.md, "Issue 34:
    /// the 19-site network's working set").
    srs_ms: u64,
    /// Per RB, the TTI (ms) of its last PUSCH (meaningful on `since_srs` only).
    pusch_ms: Vec<u64>,
    /// The RBs a PUSCH measured after the last SRS.
    since_srs: RbMask,
    /// The RBs measured at least once.
    measured: RbMask,
    /// The SRS occasion last measured, ms.
    last_srs_ms: Option<u64>,
    /// Counts the changes of the estimate, so what is derived from it can be kept until it changes.
    version: u64,
    /// The last [`Self::effective_cqi`], kept until an RB's value (to the bit) or the RBs measured
    /// change: a UE on a fixed SINR sounds the same row at every SRS, and the MIESM over the band
    /// was ~2,600 instructions per SRS in the 1000-UE cell.
    effective_cqi: Option<Option<u8>>,
    /// The last [`Self::band_mcs`]'s MIB sums, moved with each RB's change until the RBs
    /// measured change.
    kept_band: Option<KeptBandMib>,
}

impl UplinkSounding {
    /// UE number `ue` of the cell (its SRS offset), SRS period `period_ms` (one of [`SRS_PERIODS_MS`]).
    pub fn new(ue: usize, period_ms: u32, n_rbs: usize) -> Self {
        let period_ms = u64::from(period_ms.max(1));
        UplinkSounding {
            period_ms,
            offset_ms: ue as u64 % period_ms,
            sinr_lin: vec![f64::INFINITY; n_rbs],
            srs_ms: NEVER_MS,
            pusch_ms: vec![NEVER_MS; n_rbs],
            since_srs: RbMask::default(),
            measured: RbMask::default(),
            last_srs_ms: None,
            version: 0,
            effective_cqi: None,
            kept_band: None,
        }
    }

    /// The latest SRS occasion at or before `now_ms`.
    fn latest_occasion_ms(&self, now_ms: u64) -> Option<u64> {
        let since = now_ms.checked_sub(self.offset_ms)?;
        Some(now_ms - since % self.period_ms)
    }

    /// Whether an SRS occasion not yet measured has come by `now_ms` (exactly the occasion's
    /// TTI when the cell runs every TTI; the first TTI run after it when the cell slept).
    pub fn srs_due(&self, now_ms: u64) -> bool {
        self.latest_occasion_ms(now_ms).is_some_and(|o| self.last_srs_ms.is_none_or(|m| m < o))
    }

    /// The SRS occasions before `now_ms` not measured (the UE was idle) whose reports matter at
    /// `now_ms`: from the latest one at or before `now_ms - delay_ms` (its report is in force,
    /// `delay_ms` after the measurement) on; none when nothing was missed.
    pub fn missed_occasions_ms(&self, delay_ms: u64, now_ms: u64) -> impl Iterator<Item = u64> {
        let first_missed = match self.last_srs_ms {
            Some(m) => m + self.period_ms,
            None => self.offset_ms,
        };
        let in_force = now_ms.checked_sub(delay_ms).and_then(|t| self.latest_occasion_ms(t));
        let start = in_force.map_or(first_missed, |t| t.max(first_missed));
        (start..now_ms).step_by(self.period_ms as usize)
    }

    /// The SRS received at `now_ms`: `row_lin` is the UE's per-RB uplink SINR now (linear).
    pub fn sounded(&mut self, now_ms: u64, row_lin: &[f64]) {
        let all = RbMask::range(0, self.pusch_ms.len() as u32);
        if self.measured != all {
            self.effective_cqi = None;
            self.kept_band = None;
        }
        let changed = || self.sinr_lin.iter().zip(row_lin).filter(|(old, new)| old.to_bits() != new.to_bits());
        // The RBs changed counted first: an SRS moves a whole band's worth (~17 RBs in the
        // 19-site row), which would spend the sums' moves and drop them anyway.
        let n_changed = changed().count();
        if n_changed > 0 {
            self.effective_cqi = None;
            self.kept_band = self.kept_band.filter(|kept| n_changed <= kept.moves_left as usize);
            if let Some(kept) = &mut self.kept_band {
                for (&old, &new) in changed() {
                    let within_moves = kept.moved(old, new);
                    debug_assert!(within_moves, "counted above");
                }
            }
        }
        self.sinr_lin.copy_from_slice(row_lin);
        self.srs_ms = now_ms;
        self.since_srs = RbMask::default();
        self.measured = all;
        self.last_srs_ms = self.latest_occasion_ms(now_ms);
        self.version += 1;
    }

    /// Which estimate this is: it changes whenever an RB's value changes.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// A PUSCH at `now_ms` on `rbs` received with per-RB uplink SINR `row_lin` (linear): its DMRS
    /// measures those RBs. Whether any RB's estimate changed value.
    pub fn pusch(&mut self, now_ms: u64, rbs: RbMask, row_lin: &[f64]) -> bool {
        let mut changed = false;
        let measured_before = self.measured;
        for rb in rbs.iter() {
            let rb = rb as usize;
            if let (Some(e), Some(&v)) = (self.sinr_lin.get_mut(rb), row_lin.get(rb)) {
                changed |= *e != v;
                if e.to_bits() != v.to_bits() {
                    self.effective_cqi = None;
                    if self.kept_band.as_mut().is_some_and(|kept| !kept.moved(*e, v)) {
                        self.kept_band = None;
                    }
                }
                *e = v;
                self.pusch_ms[rb] = now_ms;
                let this_rb = RbMask::range(rb as u32, 1);
                self.since_srs = self.since_srs.union(this_rb);
                self.measured = self.measured.union(this_rb);
            }
        }
        if self.measured != measured_before {
            self.effective_cqi = None;
            self.kept_band = None;
        }
        self.version += u64::from(changed);
        changed
    }

    /// One value of each cache line of the per-RB estimate, as a word to load (for
    /// [`crate::sim::prefetch::load_together`], before the band MCS reads it all).
    pub fn estimate_words(&self) -> impl Iterator<Item = u64> + '_ {
        self.sinr_lin.iter().step_by(VALUES_PER_CACHE_LINE).map(|x| x.to_bits())
    }

    /// Whether any RB has been measured.
    pub fn has_estimate(&self) -> bool {
        !self.measured.is_empty()
    }

    /// Uplink CQI of the whole band as ns-3 LENA's schedulers would compute it for a grant of
    /// every RB: the Shannon-gap mapping of the minimum SINR over the band
    /// ([`super::amc::uplink_cqi_shannon_gap`]; the minimum of the linear SINRs is the linear SINR
    /// of the minimum in dB); what the `lte` table reports. `None` before any measurement.
    pub fn lena_cqi(&self) -> Option<u8> {
        self.lena_cqi_on(RbMask::range(0, self.sinr_lin.len() as u32))
    }

    /// Uplink CQI of a grant on `rbs` as ns-3 LENA's schedulers compute it: the Shannon-gap
    /// mapping of the minimum SINR over the granted RBs (pf/rr-ff-mac-scheduler.cc
    /// `DoSchedUlTriggerReq`, the loop over `uldci.m_rbStart .. + m_rbLen`). RBs not yet measured
    /// are left out; `None` when none of `rbs` has been.
    pub fn lena_cqi_on(&self, rbs: RbMask) -> Option<u8> {
        let min_lin = rbs.iter().filter_map(|rb| self.sinr_lin.get(rb as usize)).copied().fold(f64::INFINITY, f64::min);
        min_lin.is_finite().then(|| uplink_cqi_shannon_gap_lin(min_lin))
    }

    /// The MCS of a PUSCH on `rbs` from the effective SINR of the estimate over those RBs, each
    /// scaled by `gain_lin` (the outer loop's offset): the highest MCS at the BLER target, MCS 0
    /// when even that misses it (the eNB still grants at its most robust MCS). RBs not yet
    /// measured are left out; `None` when none of `rbs` has been.
    pub fn effective_mcs(&self, rbs: RbMask, gain_lin: f64) -> Option<u8> {
        let measured = rbs.intersection(self.measured);
        if measured.is_empty() {
            return None;
        }
        Some(mcs_at_bler_target_on(LinkDir::Uplink, measured, &self.sinr_lin, gain_lin).unwrap_or(0))
    }

    /// [`Self::effective_mcs`] over the band (every RB of the estimate), keeping what
    /// [`Self::kept_band_mcs`] needs to find it again after the estimate changes.
    pub fn band_mcs(&mut self, gain_lin: f64) -> Option<u8> {
        if self.measured.is_empty() {
            return None;
        }
        let (n_rbs, mean_mib) = (self.measured.count(), mean_mib_on(self.measured, &self.sinr_lin, gain_lin));
        self.kept_band = Some(KeptBandMib::of_mean(gain_lin, mean_mib, n_rbs));
        Some(mcs_from_mib(LinkDir::Uplink, mean_mib, n_rbs).unwrap_or(0))
    }

    /// [`Self::band_mcs`] at `gain_lin` from the sums the last one kept, when their bounds decide
    /// every comparison of its MCS scan (the same MCS, to the bit of every comparison); `None`
    /// when they do not or none are kept. `near`: the band MCS last found (most often the same,
    /// else one step away: only those are tried). A band MCS found restarts the sums' moves.
    pub fn kept_band_mcs(&mut self, gain_lin: f64, near: u8) -> Option<u8> {
        let kept = self.kept_band.as_mut()?;
        let (lo, hi) = kept.mean_bounds(gain_lin);
        let mcs = mcs_from_mib_within(LinkDir::Uplink, lo, hi, kept.n_rbs, near)?;
        kept.moves_left = kept_moves_allowed(kept.n_rbs);
        Some(mcs.unwrap_or(0))
    }

    /// The wideband CQI the estimate stands for (MIESM over every measured RB, as a UE computes
    /// its downlink CQI): what the `lte` table reports for an effective-SINR uplink.
    pub fn effective_cqi(&mut self, scratch: &mut Vec<f64>) -> Option<u8> {
        if let Some(cqi) = self.effective_cqi {
            return cqi;
        }
        scratch.clear();
        if self.measured == RbMask::range(0, self.sinr_lin.len() as u32) {
            scratch.extend_from_slice(&self.sinr_lin);
        } else {
            scratch.extend(self.measured.iter().map(|rb| self.sinr_lin[rb as usize]));
        }
        let cqi = (!scratch.is_empty()).then(|| wideband_cqi(scratch));
        self.effective_cqi = Some(cqi);
        cqi
    }

    /// Sum over `rbs` of each RB's estimate age at `now_ms`, ms, and how many were measured.
    /// The RBs the last SRS measured last share its age.
    pub fn age_ms(&self, now_ms: u64, rbs: RbMask) -> (u64, u32) {
        let measured = rbs.intersection(self.measured);
        let by_pusch = measured.intersection(self.since_srs);
        let by_srs = u64::from(measured.count() - by_pusch.count());
        let pusch_age_ms: u64 = by_pusch.iter().map(|rb| now_ms.saturating_sub(self.pusch_ms[rb as usize])).sum();
        (by_srs * now_ms.saturating_sub(self.srs_ms) + pusch_age_ms, measured.count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_period_is_lenas_and_in_the_table() {
        // ns-3.44 lte-enb-rrc.cc: AddAttribute("SrsPeriodicity", ..., UintegerValue(40)); Table 8.2-1 lists 40.
        assert_eq!(DEFAULT_SRS_PERIOD_MS, 40);
        assert!(SRS_PERIODS_MS.contains(&DEFAULT_SRS_PERIOD_MS));
    }

    #[test]
    fn srs_occasions_are_the_ues_offset_modulo_the_period() {
        // UE 3, T_SRS = 40: occasions at 3, 43, 83 ms (I_SRS = 37 + 3 = 40, T_offset = 40 - 37 = 3).
        let mut s = UplinkSounding::new(3, 40, 4);
        let due: Vec<u64> = (0..100)
            .filter(|&ms| {
                let d = s.srs_due(ms);
                if d {
                    s.sounded(ms, &[1.0; 4]);
                }
                d
            })
            .collect();
        assert_eq!(due, [3, 43, 83]);
        // UE 45 with T_SRS = 40 shares UE 5's offset.
        assert_eq!(UplinkSounding::new(45, 40, 1).offset_ms, 5);
    }

    #[test]
    fn a_missed_occasion_is_measured_at_the_next_tti_run() {
        // UE 0, T_SRS = 10: asleep from 1 to 24 ms, the 10 and 20 ms occasions are taken at 25 ms, once.
        let mut s = UplinkSounding::new(0, 10, 2);
        assert!(s.srs_due(0));
        s.sounded(0, &[0.0; 2]);
        assert!(s.srs_due(25));
        s.sounded(25, &[0.0; 2]);
        assert!(!s.srs_due(26) && !s.srs_due(29) && s.srs_due(30));
    }

    #[test]
    fn pusch_updates_only_its_rbs_and_the_cqi_is_the_minimums() {
        use super::super::amc::uplink_cqi_shannon_gap;
        // Rows given in dB, measured linear (10^(dB/10)); the CQI is the dB function's at the minimum.
        let lin = |db: [f64; 4]| db.map(|x: f64| 10f64.powf(x / 10.0));
        let mut s = UplinkSounding::new(0, 40, 4);
        assert_eq!(s.lena_cqi(), None);
        // A PUSCH on RBs 1-2 before any SRS: the CQI comes from those two RBs' minimum (5 dB).
        s.pusch(0, RbMask::range(1, 2), &lin([-20.0, 5.0, 9.0, -20.0]));
        assert_eq!(s.lena_cqi(), Some(uplink_cqi_shannon_gap(5.0)));
        // SRS: every RB, minimum 2 dB; a later PUSCH on RB 3 at 0 dB lowers it, RBs 0-2 hold.
        s.sounded(0, &lin([12.0, 2.0, 7.0, 20.0]));
        assert_eq!(s.lena_cqi(), Some(uplink_cqi_shannon_gap(2.0)));
        s.pusch(1, RbMask::range(3, 1), &lin([99.0, 99.0, 99.0, 0.0]));
        assert_eq!(s.sinr_lin, lin([12.0, 2.0, 7.0, 0.0]));
        assert_eq!(s.lena_cqi(), Some(uplink_cqi_shannon_gap(0.0)));
    }

    /// A faded row whose deepest RB is at -10 dB but whose effective SINR (MIESM, 64QAM) is
    /// 15 dB: the effective-SINR rule grants the MCS of a flat 15 dB channel, LENA's minimum
    /// rule reports CQI 0 (the UE goes unscheduled).
    #[test]
    fn the_uplink_mcs_comes_from_the_effective_sinr_not_the_minimum() {
        use super::super::amc::{mcs_at_bler_target_flat, Modulation};
        use super::super::mi::{curve, db_to_linear, linear_to_db, mi_per_rb};
        const N: usize = 100;
        // 4 RBs at -10 dB; the other 96 at `high`, set by bisection so the row's effective
        // 64QAM SINR is 15 dB.
        let row = |high_db: f64| -> Vec<f64> {
            (0..N).map(|i| db_to_linear(if i % 25 == 3 { -10.0 } else { high_db })).collect()
        };
        let effective_db = |r: &[f64]| {
            let mib = r.iter().map(|&x| mi_per_rb(Modulation::Qam64, x)).sum::<f64>() / N as f64;
            linear_to_db(curve(Modulation::Qam64).sinr_linear_for_mib(mib))
        };
        let (mut lo, mut hi) = (15.0, 30.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if effective_db(&row(mid)) < 15.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let faded = row(hi);
        assert!((effective_db(&faded) - 15.0).abs() < 1e-3);
        assert_eq!(faded.iter().copied().fold(f64::INFINITY, f64::min), db_to_linear(-10.0));
        let mut s = UplinkSounding::new(0, 40, N);
        s.sounded(0, &faded);
        let flat_15 = mcs_at_bler_target_flat(15.0, N as u32).expect("15 dB carries data");
        let got = s.effective_mcs(RbMask::range(0, N as u32), 1.0).expect("measured");
        assert!(got.abs_diff(flat_15) <= 1, "effective {got} vs flat 15 dB {flat_15}");
        assert_eq!(s.lena_cqi(), Some(0), "LENA: the minimum, -10 dB, is out of range");
        // Over only the RBs at -10 dB: MCS 0, still granted.
        assert_eq!(s.effective_mcs(RbMask::range(3, 1), 1.0), Some(0));
        // A 3 dB offset moves it up.
        assert!(s.effective_mcs(RbMask::range(0, N as u32), db_to_linear(3.0)).unwrap() > got);
    }

    /// LENA's grant CQI is the minimum over the grant's own RBs: a deep fade elsewhere in the band
    /// leaves a grant on good RBs its CQI (pf-ff-mac-scheduler.cc DoSchedUlTriggerReq).
    #[test]
    fn lenas_grant_cqi_is_the_minimum_over_its_own_rbs() {
        use super::super::amc::uplink_cqi_shannon_gap;
        let lin = |db: [f64; 6]| db.map(|x: f64| 10f64.powf(x / 10.0));
        let mut s = UplinkSounding::new(0, 40, 6);
        assert_eq!(s.lena_cqi_on(RbMask::range(0, 3)), None, "nothing measured");
        s.sounded(0, &lin([-15.0, -15.0, -15.0, 9.0, 6.0, 12.0]));
        assert_eq!(s.lena_cqi(), Some(0), "the band's minimum, -15 dB, is out of range");
        assert_eq!(s.lena_cqi_on(RbMask::range(0, 3)), Some(0));
        assert_eq!(s.lena_cqi_on(RbMask::range(3, 3)), Some(uplink_cqi_shannon_gap(6.0)));
        assert_eq!(s.lena_cqi_on(RbMask::range(5, 1)), Some(uplink_cqi_shannon_gap(12.0)));
        assert!(uplink_cqi_shannon_gap(6.0) > 0);
    }

    /// The kept sums give the band MCS of the MIESM over the band whenever they decide it: an
    /// estimate moved RB by RB by PUSCHs and SRSs, the outer loop's gain stepping up and down,
    /// each band MCS (from the kept sums, else from the MIESM, as the cell asks) checked against
    /// [`UplinkSounding::effective_mcs`] over the band.
    #[test]
    fn the_kept_band_mcs_is_the_band_mcs() {
        const N: usize = 100;
        let mut state = 7u64;
        let mut next = move |below: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % below
        };
        let mut row: Vec<f64> = (0..N).map(|i| 10f64.powf(f64::from(i as u32 % 7) / 2.0)).collect();
        let mut s = UplinkSounding::new(0, 40, N);
        s.sounded(0, &row);
        let (mut offset_db, mut decided, mut last) = (0.0f64, 0, 0);
        for ms in 1..3000 {
            let rb = next(N as u64) as usize;
            row[rb] = 10f64.powf((next(400) as f64 - 100.0) / 100.0);
            if ms % 40 == 0 {
                s.sounded(ms, &row);
            } else {
                s.pusch(ms, RbMask::range(rb as u32, 1), &row);
            }
            offset_db = (offset_db + if next(10) == 0 { -1.0 } else { 1.0 / 9.0 }).clamp(-3.0, 3.0);
            let gain_lin = 10f64.powf(offset_db / 10.0);
            let want = s.effective_mcs(RbMask::range(0, N as u32), gain_lin);
            let got = match s.kept_band_mcs(gain_lin, last) {
                Some(kept) => {
                    decided += 1;
                    Some(kept)
                }
                None => s.band_mcs(gain_lin),
            };
            assert_eq!(got, want, "{ms} ms");
            last = want.expect("measured");
        }
        assert!(decided >= 300, "the kept sums decided {decided} of 2999, not a tenth");
    }

    #[test]
    fn ages_count_from_each_rbs_last_measurement() {
        let mut s = UplinkSounding::new(0, 40, 4);
        assert!(!s.has_estimate());
        assert_eq!(s.effective_mcs(RbMask::range(0, 4), 1.0), None);
        s.pusch(5, RbMask::range(1, 2), &[10.0; 4]);
        assert_eq!(s.age_ms(12, RbMask::range(0, 4)), (14, 2), "RBs 1-2 measured at 5 ms: 7 ms old each");
        s.sounded(40, &[10.0; 4]);
        s.pusch(50, RbMask::range(0, 1), &[10.0; 4]);
        assert_eq!(s.age_ms(60, RbMask::range(0, 4)), (10 + 3 * 20, 4));
        // An occasion measured late (a catch-up after an idle time) is the last measurement of
        // every RB, older than the PUSCH before it.
        s.pusch(70, RbMask::range(2, 1), &[10.0; 4]);
        s.sounded(65, &[10.0; 4]);
        assert_eq!(s.age_ms(80, RbMask::range(0, 4)), (4 * 15, 4));
    }
}
