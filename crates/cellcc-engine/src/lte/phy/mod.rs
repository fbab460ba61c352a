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
pub mod tbs;

pub use amc::{
    cqi_below_mcs, mcs_at_bler_target, mcs_at_bler_target_flat, mcs_from_cqi, mcs_info, wideband_cqi,
    wideband_cqi_flat, CqiEntry, McsInfo, Modulation, CQI_BLER_TARGET, CQI_TABLE, MAX_CQI, MAX_MCS,
};
pub use bler::{decode_tb, tb_bler, tb_bler_harq, HarqHistory, TbDecodeStats, HARQ_MAX_STORED};
pub use control_channel::{pcfich_pdcch_error_rate, pcfich_pdcch_error_rate_flat, ControlRegion};
pub use mi::{effective_mi, mi_per_rb};
pub use segmentation::{segment_tb, CodeBlocks};
pub use tbs::{tbs_bits, tbs_bits_for_itbs};
