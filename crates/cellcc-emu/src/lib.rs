//! cellcc-emu: a userspace link emulator in the manner of Mahimahi (Netravali et al., USENIX ATC 2015),
//! rebuilt for cellcc's Linux backend.
//!
//! ```text
//!   sender netns            emulator (middle netns)                 receiver netns
//!   tun A  ==read==>  forward: [loss?]->[drop-tail queue]->[link: rate | trace]->[loss]->[delay]  ==write==> tun B
//!   tun A <==write==  reverse: the same pipeline, configured separately                          <==read=== tun B
//! ```
//!
//! Each direction is a sans-IO state machine ([`direction::Direction`]) driven by
//! `arrive(now, packet)`, `advance(now)` and drained by `pop_due(now)`; it keeps its own virtual
//! timeline (serialisation end times, trace opportunities) and never reads a clock, so its
//! arithmetic is exact and unit-tested without I/O. Only `main.rs` and [`sys`] touch devices and time.
//!
//! Differences from Mahimahi: one process for both directions and all stages (Mahimahi chains
//! `mm-delay`, `mm-link`, `mm-loss` shells); the trace opportunity is the link MTU in IP bytes
//! (Mahimahi: 1504 bytes = 1500 IP + 4 bytes of TUN packet-information header, the same budget);
//! random loss is applied at link egress, after serialisation (as ns-3's receive error model),
//! where `mm-loss` drops on ingress.

pub mod config;
pub mod direction;
pub mod link;
pub mod queue;
pub mod stats;
pub mod sys;
pub mod trace;

/// One IP packet in flight through a direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The IP datagram as read from the TUN device (no packet-information header).
    pub data: Vec<u8>,
    /// When it was read, in the emulator's clock (CLOCK_MONOTONIC ns).
    pub arrival_ns: u64,
}

impl Packet {
    pub fn len_bytes(&self) -> u64 {
        self.data.len() as u64
    }
}

/// Nanoseconds per millisecond.
pub const NS_PER_MS: u64 = 1_000_000;
/// Nanoseconds per second.
pub const NS_PER_S: u64 = 1_000_000_000;
