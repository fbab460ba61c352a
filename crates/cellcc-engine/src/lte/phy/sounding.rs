//! The eNB's uplink channel measurement: it sees a UE's uplink only where the UE transmits,
//! on its periodic sounding reference signal (SRS, whole band: TS 36.213 §8.2, TS 36.211
//! §5.5.3) and on the DMRS of its PUSCH (the granted RBs: TS 36.211 §5.5.2). The per-RB
//! estimate holds between measurements and the uplink CQI is derived from it, as ns-3 LENA's
//! schedulers keep the last UL CQI per RB (`DoSchedUlCqiInfoReq`, SRS or PUSCH reports from
//! `LteEnbPhy::CreateSrsCqiReport` / `CreatePuschCqiReport`).
//!
//! ```text
//!  TTI n:  n mod T_SRS == offset(ue)?  ──► SRS: every RB measured ─┐
//!          PUSCH of the UE in n?       ──► DMRS: its RBs measured ─┴─► per-RB estimate ─► UL CQI
//!                                                                      (min SINR, Shannon gap)
//! ```
//! SRS occasions (TS 36.213 §8.2, FDD): subframes with `(10 n_f + k_SRS - T_offset) mod T_SRS = 0`,
//! i.e. `ms mod T_SRS == T_offset`. The offset of UE `i` is `i mod T_SRS`: ns-3 `LteEnbRrc`
//! hands out configuration indices in attach order from the lowest of the period's range
//! (`GetNewSrsConfigurationIndex`), and T_offset = I_SRS - (first index of the range)
//! (Table 8.2-1). ns-3 refuses more UEs than T_SRS; here they share offsets.

use super::amc::uplink_cqi_shannon_gap_lin;
use crate::lte::sap::RbMask;

/// SRS periodicities T_SRS of TS 36.213 Table 8.2-1 (FDD, I_SRS 0–1: 2, 2–6: 5, 7–16: 10,
/// 17–36: 20, 37–76: 40, 77–156: 80, 157–316: 160, 317–636: 320 ms).
pub const SRS_PERIODS_MS: [u32; 8] = [2, 5, 10, 20, 40, 80, 160, 320];
/// Default SRS period: ns-3.44 `LteEnbRrc` attribute `SrsPeriodicity` = 40 ms (lte-enb-rrc.cc).
pub const DEFAULT_SRS_PERIOD_MS: u32 = 40;

/// The eNB's per-RB estimate of one UE's uplink SINR.
#[derive(Clone, Debug)]
pub struct UplinkSounding {
    period_ms: u64,
    offset_ms: u64,
    /// Per RB, linear; +inf where nothing was measured yet (ignored by the minimum).
    sinr_lin: Vec<f64>,
    /// The SRS occasion last measured, ms.
    last_srs_ms: Option<u64>,
}

impl UplinkSounding {
    /// UE number `ue` of the cell (its SRS offset), SRS period `period_ms` (one of [`SRS_PERIODS_MS`]).
    pub fn new(ue: usize, period_ms: u32, n_rbs: usize) -> Self {
        let period_ms = u64::from(period_ms.max(1));
        UplinkSounding {
            period_ms,
            offset_ms: ue as u64 % period_ms,
            sinr_lin: vec![f64::INFINITY; n_rbs],
            last_srs_ms: None,
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

    /// The SRS received at `now_ms`: `row_lin` is the UE's per-RB uplink SINR now (linear).
    pub fn sounded(&mut self, now_ms: u64, row_lin: &[f64]) {
        self.sinr_lin.copy_from_slice(row_lin);
        self.last_srs_ms = self.latest_occasion_ms(now_ms);
    }

    /// A PUSCH on `rbs` received with per-RB uplink SINR `row_lin` (linear): its DMRS measures those RBs.
    pub fn pusch(&mut self, rbs: RbMask, row_lin: &[f64]) {
        for rb in rbs.iter() {
            let rb = rb as usize;
            if let (Some(e), Some(&v)) = (self.sinr_lin.get_mut(rb), row_lin.get(rb)) {
                *e = v;
            }
        }
    }

    /// Uplink CQI from the estimate: ns-3's Shannon-gap mapping of the minimum SINR over the band
    /// ([`super::amc::uplink_cqi_shannon_gap`]; the minimum of the linear SINRs is the linear
    /// SINR of the minimum in dB). `None` before any measurement.
    pub fn cqi(&self) -> Option<u8> {
        let min_lin = self.sinr_lin.iter().copied().fold(f64::INFINITY, f64::min);
        min_lin.is_finite().then(|| uplink_cqi_shannon_gap_lin(min_lin))
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
        assert_eq!(s.cqi(), None);
        // A PUSCH on RBs 1-2 before any SRS: the CQI comes from those two RBs' minimum (5 dB).
        s.pusch(RbMask::range(1, 2), &lin([-20.0, 5.0, 9.0, -20.0]));
        assert_eq!(s.cqi(), Some(uplink_cqi_shannon_gap(5.0)));
        // SRS: every RB, minimum 2 dB; a later PUSCH on RB 3 at 0 dB lowers it, RBs 0-2 hold.
        s.sounded(0, &lin([12.0, 2.0, 7.0, 20.0]));
        assert_eq!(s.cqi(), Some(uplink_cqi_shannon_gap(2.0)));
        s.pusch(RbMask::range(3, 1), &lin([99.0, 99.0, 99.0, 0.0]));
        assert_eq!(s.sinr_lin, lin([12.0, 2.0, 7.0, 0.0]));
        assert_eq!(s.cqi(), Some(uplink_cqi_shannon_gap(0.0)));
    }
}
