//! The 5G NR radio access network, a medium beside the LTE cell: numerologies, FDD and TDD frame
//! structures with mini-slots, TS 38.214 MCS/TBS and LDPC BLER, asynchronous HARQ, and the NR
//! versions of RLC and PDCP, on the shared radio channel (`radio/`).
//!
//! ```text
//!   IP packet ─► pdcp (TS 38.323: COUNT, reordering) ─► rlc um/am (TS 38.322: per-SDU SN, no
//!   concatenation) ─► mac: scheduler over RBGs + HARQ (TS 38.321, 16 processes) ─► phy (TS 38.214
//!   MCS/TBS, TS 38.212 LDPC segmentation, EESM BLER) ◄── SINR (lte::sinr seam / nr::channel)
//!                    frame.rs: slots, occasions, K1/K2 ──┘ numerology.rs: mu, slot and symbol times
//! ```
//! docs/nr.md is the layer map and the life of a segment in TDD.

pub mod cell;
pub mod config;
pub mod frame;
pub mod mac;
pub mod numerology;
pub mod pdcp;
pub mod phy;
pub mod rlc;
