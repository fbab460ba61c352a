//! The LTE radio access network: one module per 3GPP layer, joined by the
//! small typed primitives in [`sap`] (ns-3 LENA's SAP provider/user split).
//!
//! ```text
//!   IP packet ─► pdcp (TS 36.323) ─► rlc tm/um/am (TS 36.322) ─► mac: scheduler + harq (TS 36.321)
//!                                                                      │ TB descriptor
//!                                                                      ▼
//!                         phy: SINR -> CQI -> MCS -> TBS, BLER (TS 36.213, MIESM) ◄── sinr / channel
//! ```
//! Every layer is a sans-IO state machine: it is driven by `handle_*(now, …)`
//! calls and reports its next deadline; the cell (`cell`) owns the TTI clock.

pub mod cell;
pub mod channel;
pub mod config;
pub mod mac;
pub mod network;
pub mod pdcp;
pub mod phy;
pub mod profile;
pub mod ran;
pub mod rlc;
pub mod sap;
pub mod sinr;
