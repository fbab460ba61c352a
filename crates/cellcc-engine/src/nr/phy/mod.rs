//! NR PHY abstraction: MCS and CQI tables (TS 38.214 §5.1.3.1, §5.2.2.1), transport block size
//! (§5.1.3.2), LDPC base graph and code block segmentation (TS 38.212 §5.2.2, §7.2.2), and the
//! BLER of LDPC-coded blocks from an EESM effective SINR with HARQ incremental redundancy
//! (5G-LENA's L2SM curves, Lagen et al., IEEE ICC 2020).
//!
//! ```text
//!  per-PRB SINR ─► amc.rs: CQI (UE) / MCS over granted PRBs (gNB) ─► MCS
//!                                                                      │  tbs.rs: N_RE, N_info, TBS
//!                  bler.rs: EESM, HARQ IR, curves (data/) ◄── ldpc.rs: base graph, C x K ◄──┘
//! ```
//! Pure functions and tables; no randomness (the cell draws u ~ U(0,1) and loses the TB when
//! u < BLER) and no allocation per call (the curve files are parsed on first use).

pub mod amc;
pub mod bler;
pub mod ldpc;
pub mod mcs;
pub mod tbs;

pub use amc::{NrAmc, CQI_BLER_TARGET};
pub use bler::{decode, HarqHistory, TbDecode};
pub use mcs::{McsEntry, McsTable};
pub use tbs::{tbs_bits, Allocation};
