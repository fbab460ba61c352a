//! The radio channel, whatever medium uses it: where terminals are and how they move, what the
//! path between two antennas loses (path loss, shadowing, fast fading, antenna patterns), the
//! thermal noise at a receiver, and the interference geometry of neighbouring sites. LTE
//! (`lte::channel`) and Wi-Fi (issue 31) read it; none owns it.
//!
//! ```text
//!  spec.rs      what a scenario writes: PathLossSpec, ShadowingSpec, FadingSpec, AntennaSpec, Placement
//!  mobility.rs  ─► position(t) ─► pathloss.rs / link_loss.rs + shadowing.rs ─► large-scale gain per link
//!  track.rs     the path sampler: the large-scale gains evaluated every 0.5 m travelled (positions
//!               looked at every 10 ms), not every 10 ms
//!  tr38901.rs   TR 38.901 path loss (UMa, UMi, RMa, InH) and LOS probability, a link's LOS state
//!  antenna.rs   pattern gain towards a point; the hexagonal grid of sites
//!  fading.rs    H_k(t) per frequency block (tap-delay profile, sum of sinusoids); hst.rs, ici.rs:
//!               the high-speed train's Doppler shift and the inter-carrier interference of a Doppler
//!  tdl.rs       TR 38.901 TDL-A..E tap tables (normalised delays, scaled by a delay spread)
//!  small_scale.rs  one link's small-scale channel in one direction (none / multipath / HST)
//!  noise.rs     kT0 B NF;  db.rs: fast dB <-> linear
//!  interference.rs  power received from neighbour sites at their load, per whole band and per block
//!  calibration.rs   the 3GPP 57-cell geometry check of the layout (not used by any medium)
//! ```
//! What stays with a medium: LTE's resource-block glue, TS 36.213 uplink power control, its
//! uplink interference model and the `SinrSource` seam of its PHY (`lte::channel`); Wi-Fi's
//! per-PPDU SNR and the interference of simultaneous transmissions.

pub mod antenna;
pub mod calibration;
pub mod db;
pub mod fading;
pub mod hst;
pub mod ici;
pub mod interference;
pub mod link_loss;
pub mod mobility;
pub mod noise;
pub mod pathloss;
pub mod shadowing;
pub mod small_scale;
pub mod spec;
pub mod tdl;
pub mod tr38901;
pub mod track;

/// Which way across the air interface, for media with a base station: from it to a terminal
/// (LTE eNB to UE, Wi-Fi access point to station) or back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkDir {
    /// Base station (eNB, access point) to terminal (UE, station).
    Downlink,
    /// Terminal to base station.
    Uplink,
}

impl LinkDir {
    /// Its index in a (downlink, uplink) pair.
    pub const fn index(self) -> usize {
        match self {
            LinkDir::Downlink => 0,
            LinkDir::Uplink => 1,
        }
    }
}
