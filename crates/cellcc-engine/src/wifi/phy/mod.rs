//! The VHT PHY abstraction: rates and PPDU durations (`vht`, `ppdu`), the error model
//! (`error_model`), and what a receiver makes of a PPDU seen through noise and the other
//! transmissions on the air (`reception`).

pub mod error_model;
pub mod ppdu;
pub mod reception;
pub mod vht;

/// aSlotTime and aSIFSTime of the OFDM PHY with 20 MHz channel spacing (IEEE 802.11-2020
/// Table 17-21; the VHT PHY's, Table 21-28, are the same), ns.
pub const SLOT_NS: u64 = 9_000;
pub const SIFS_NS: u64 = 16_000;
/// aRxPHYStartDelay (Table 17-21, 20 MHz): from the start of a PPDU on the air to its
/// PHY-RXSTART.indication; the Ack and BlockAck timeouts include it (§10.3.2.11), ns.
pub const RX_PHY_START_DELAY_NS: u64 = 25_000;
/// CCA sensitivity for a 20 MHz PPDU on the primary channel, dBm (§21.3.18.5.3 / §17.3.10.6:
/// -82 dBm; 3 dB more per doubling of a wider PPDU's width, -79 / -76 / -73 dBm).
pub const CCA_SENSITIVITY_20MHZ_DBM: f64 = -82.0;
/// CCA energy detection: any signal 20 dB above the sensitivity makes the medium busy (§17.3.10.6).
pub const CCA_ENERGY_DETECT_DBM: f64 = -62.0;
/// Preamble detection (ns-3 3.44 `ThresholdPreambleDetectionModel`, the default of its
/// `WifiPhyHelper`): the first symbol needs an SNR of 4 dB and a power of -82 dBm.
pub const PREAMBLE_DETECT_SNR_DB: f64 = 4.0;
pub const PREAMBLE_DETECT_RSSI_DBM: f64 = -82.0;
/// The PHY header bits decoded before the payload, at BPSK 1/2: L-SIG (24) + VHT-SIG-A (48)
/// of a VHT PPDU (§21.3.8.2.4, §21.3.8.3.3), the SIGNAL field (24) of a non-HT one (§17.3.4).
pub const VHT_HEADER_BITS: f64 = 72.0;
pub const NON_HT_HEADER_BITS: f64 = 24.0;
