//! PHY abstraction (TS 36.213): SINR -> CQI -> MCS -> TBS, BLER, control-channel errors.
//!
//! Pure functions and tables; no randomness (the caller draws u ~ U(0,1) and loses a TB when
//! `u < bler`, as ns-3 `LteSpectrumPhy` does) and no allocation per call (tables are parsed or
//! precomputed once, on first use).
//!
//! ```text
//!            per-RB SINR (dB) from lte::sinr / lte::channel
//!                 │
//!     ┌───────────┼─────────────────────────────┬──────────────────────────────┐
//!     ▼           ▼                             ▼                              ▼
//!  amc.rs      mi.rs: MIB per RB (MIESM)    control_channel.rs           (UE reports CQI)
//!  wideband     │                            PCFICH/PDCCH error
//!  CQI ─► MAC   ▼                            from QPSK effective SINR
//!  picks MCS  bler.rs: mean MIB over the TB's RBs, HARQ IR combining,
//!     │        code blocks (segmentation.rs, TS 36.212 §5.1.2), Gaussian CB BLER curves
//!     ▼
//!  tbs.rs: MCS -> I_TBS -> TBS (TS 36.213 Table 7.1.7.2.1-1)
//! ```
//!
//! Sources: TS 36.213 §7.1.7 (Tables 7.1.7.1-1, 7.1.7.2.1-1), §7.2.3 (Table 7.2.3-1), §8.6.1
//! (Table 8.6.1-1); TS 36.212 §5.1.1-5.1.2 and Table 5.1.3-3; TS 36.211 §6.7 (PCFICH); ns-3 LENA
//! `src/lte/model/lte-amc.cc`, `lte-mi-error-model.cc`, `lte-harq-phy.cc`,
//! `src/lte/doc/source/lte-design.rst` ("MIESM", "HARQ", "Control Channels PHY Error Model");
//! M. Mezzavilla, M. Miozzo, M. Rossi, N. Baldo, M. Zorzi, "A Lightweight and Accurate Link
//! Abstraction Model for the System-Level Simulation of LTE Networks in ns-3", ACM MSWiM 2012.
//! Tables and curves are data files under `data/` with provenance headers. `docs/lte/phy.md`
//! lists what differs from ns-3 and why.

pub mod amc;
pub mod bler;
pub mod control_channel;
mod data;
pub mod mi;
pub mod segmentation;
pub mod sounding;
pub mod tbs;

pub use amc::{
    cqi_below_mcs, flat_sinr_threshold_db, mcs_at_bler_target, mcs_at_bler_target_flat, mcs_at_bler_target_on,
    mcs_from_cqi, mcs_info, uplink_cqi_shannon_gap, wideband_cqi, wideband_cqi_flat, worst_in_range_subband, CqiEntry,
    CqiReport, McsInfo, Modulation, SubbandCqi, CQI_BLER_TARGET, CQI_TABLE, MAX_CQI, MAX_MCS, MAX_SUBBANDS,
};
pub use bler::{decode_tb, tb_bler, tb_bler_harq, HarqHistory, TbDecodeStats, HARQ_MAX_STORED};
pub use control_channel::{
    control_effective_sinr_at_level_db, control_effective_sinr_db, pcfich_pdcch_error_rate,
    pcfich_pdcch_error_rate_flat, pdcch_error_rate_flat_at_level, ControlRegion, REFERENCE_AGGREGATION_LEVEL,
};
pub use mi::{effective_mi, mi_per_rb};
pub use segmentation::{segment_tb, CodeBlocks};
pub use sounding::{UlMeasurement, UplinkSounding, DEFAULT_SRS_PERIOD_MS, SRS_PERIODS_MS};
pub use tbs::{tbs_bits, tbs_bits_for_itbs};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::sap::{LinkDir, RbMask};

    /// One row of the SINR -> CQI -> MCS -> TBS -> BLER chain on a flat channel of `n_prb` RBs:
    /// (CQI, MCS, TBS bits, BLER, goodput bits per TTI = TBS x (1 - BLER)).
    fn chain(sinr_db: f64, n_prb: u32) -> (u8, u8, u32, f64, f64) {
        let cqi = wideband_cqi_flat(sinr_db, n_prb);
        if cqi == 0 {
            // ns-3's schedulers do not serve a UE reporting CQI 0.
            return (0, 0, 0, 1.0, 0.0);
        }
        let mcs = mcs_from_cqi(cqi);
        let tbs = tbs_bits(LinkDir::Downlink, mcs, n_prb);
        let bler = tb_bler(mcs, tbs, RbMask::range(0, n_prb), &mi::lin_row(&[sinr_db; 110]));
        (cqi, mcs, tbs, bler, f64::from(tbs) * (1.0 - bler))
    }

    #[test]
    fn throughput_chain_at_a_few_sinrs() {
        // 30 dB, 100 RBs: every MCS passes -> CQI 15 -> MCS 28 -> TBS 75376 (Table 7.1.7.2.1-1,
        // I_TBS 26); MIB = 1 (past the 64QAM curve's 22 dB end) on curve 0.92 / 4032 bits
        // (b = 0.9339, c = 0.0071): z = (1 - 0.9339) / 0.0071 = 9.3, BLER ~ 1e-20 -> 75376 bits.
        let (cqi, mcs, tbs, bler, goodput) = chain(30.0, 100);
        assert_eq!((cqi, mcs, tbs), (15, 28, 75_376));
        assert!(bler < 1e-15 && (goodput - 75_376.0).abs() < 1e-9);
        // -10 dB: even MCS 0 fails -> CQI 0 -> nothing sent.
        assert_eq!(chain(-10.0, 50).0, 0);
        // In between, the goodput is TBS x (1 - BLER) with BLER <= 10 % and grows with SINR.
        let mut prev = 0.0;
        for db in [0.0, 5.0, 10.0, 15.0, 20.0, 25.0] {
            let (cqi, mcs, tbs, bler, goodput) = chain(db, 50);
            assert!(cqi > 0 && bler <= 0.1, "{db} dB");
            assert_eq!(tbs, tbs_bits(LinkDir::Downlink, mcs, 50));
            assert!((goodput - f64::from(tbs) * (1.0 - bler)).abs() < 1e-9);
            assert!(goodput > prev, "{db} dB");
            prev = goodput;
        }
    }

    /// Prints the table of docs/lte/phy.md:
    /// `cargo test -p cellcc-engine --lib lte::phy::tests::print_phy_table -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn print_phy_table() {
        println!("| SINR (dB) | RBs | CQI | MCS | TBS (bits) | BLER | goodput (Mbit/s) |");
        println!("|---:|---:|---:|---:|---:|---:|---:|");
        for db in (-5..=30).step_by(5) {
            for n_prb in [25u32, 50, 100] {
                let (cqi, mcs, tbs, bler, goodput) = chain(f64::from(db), n_prb);
                // One TB per 1 ms TTI: bits per TTI / 1000 = Mbit/s.
                println!("| {db} | {n_prb} | {cqi} | {mcs} | {tbs} | {bler:.2e} | {:.2} |", goodput / 1000.0);
            }
        }
        println!();
        println!("| MCS | ECR | SINR for 10 % BLER, 1st tx (dB) | after 2 tx (dB) | after 3 tx (dB) |");
        println!("|---:|---:|---:|---:|---:|");
        for mcs in [0u8, 5, 9, 10, 13, 16, 17, 22, 28] {
            let at = |tx| sinr_for_bler(mcs, 25, tx, 0.1);
            println!("| {mcs} | {} | {:.2} | {:.2} | {:.2} |", bler::mcs_ecr(mcs), at(1), at(2), at(3));
        }
    }

    /// SINR (dB, flat on `n_prb` RBs) at which `tx` transmissions of `mcs` reach `target` BLER.
    fn sinr_for_bler(mcs: u8, n_prb: u32, tx: u32, target: f64) -> f64 {
        let bits = tbs_bits(LinkDir::Downlink, mcs, n_prb);
        let rbs = RbMask::range(0, n_prb);
        let bler = |db: f64| {
            let sinr = mi::lin_row(&[db; 110]);
            let mut st = tb_bler_harq(HarqHistory::EMPTY, mcs, bits, rbs, &sinr);
            for _ in 1..tx {
                st = tb_bler_harq(st.history, mcs, bits, rbs, &sinr);
            }
            st.bler
        };
        let (mut lo, mut hi) = (-30.0, 40.0);
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            if bler(mid) <= target {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// Cost per call in a release build, for the lead's TTI budget (14 UEs x 100 RBs):
    /// `cargo test --release -p cellcc-engine --lib lte::phy::tests::cost_per_call -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn cost_per_call() {
        use std::time::Instant;
        let mut sinr = mi::lin_row(&(0..100).map(|i| -2.0 + f64::from(i % 17) * 0.7).collect::<Vec<f64>>());
        // First use builds the tables; keep it out of the timing.
        let _ = wideband_cqi(&sinr);
        let rounds = 20_000u32;
        let mut acc = 0u64;
        let t = Instant::now();
        for r in 0..rounds {
            sinr[(r % 100) as usize] *= 1.0 + 1e-6;
            acc += u64::from(wideband_cqi(&sinr));
        }
        let cqi_ns = t.elapsed().as_nanos() as f64 / f64::from(rounds);
        let flat = mi::lin_row(&[7.0; 100]);
        let t = Instant::now();
        for _ in 0..rounds {
            acc += u64::from(wideband_cqi(std::hint::black_box(&flat)));
        }
        let flat_ns = t.elapsed().as_nanos() as f64 / f64::from(rounds);
        let mut sum = 0.0;
        let mut h = HarqHistory::EMPTY;
        let t = Instant::now();
        for r in 0..rounds {
            let st = tb_bler_harq(h, (r % 29) as u8, 36_696, RbMask::range(0, 100), &sinr);
            h = if r % 4 == 3 { HarqHistory::EMPTY } else { st.history };
            sum += st.bler;
        }
        let tb_ns = t.elapsed().as_nanos() as f64 / f64::from(rounds);
        let t = Instant::now();
        for _ in 0..rounds {
            sum += pcfich_pdcch_error_rate(&sinr);
        }
        let ctrl_ns = t.elapsed().as_nanos() as f64 / f64::from(rounds);
        println!(
            "per call, 100 RBs: wideband_cqi {cqi_ns:.0} ns (flat channel {flat_ns:.0} ns), \
             tb_bler_harq {tb_ns:.0} ns, pcfich_pdcch_error_rate {ctrl_ns:.0} ns ({acc} {sum:.3})"
        );
        // Guards against a regression by an order of magnitude (an allocation or a table rebuilt
        // per call), with room for a loaded 2-core machine.
        assert!(cqi_ns + tb_ns + ctrl_ns < 20_000.0, "PHY calls too slow");
        assert!(flat_ns < 1_000.0, "the flat-channel CQI should cost a few lookups");
    }
}
