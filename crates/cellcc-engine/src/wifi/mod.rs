//! IEEE 802.11ac Wi-Fi (docs/wifi.md): a BSS of an access point and its stations as a medium of
//! the world, one module per layer.
//!
//! ```text
//!  world ─► bss (the medium: stations, air, frame exchanges)
//!             ├── mac: edca (AIFS, CW, backoff), queue, ampdu, block_ack (windows, reordering), frames
//!             ├── phy: vht (MCS x width x GI x NSS), ppdu (durations), error_model (tables), reception (SINR chunks)
//!             └── rate_control: constant, ideal, minstrel_ht
//!  radio (shared with LTE): placement, mobility, path loss, shadowing, noise
//! ```

pub mod bss;
pub mod mac;
pub mod phy;
pub mod rate_control;
