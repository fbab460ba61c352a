//! Discrete-event kernel: time, the event queue and random streams.
//!
//! Knows nothing about TCP or radio. Everything that happens in a run is an
//! event `(time, seq)` popped in order; ties break by insertion order, so a
//! run is a pure function of (scenario, seed).

pub mod id;
pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod simd;
pub mod stall;
pub mod time;

pub use id::{BssId, CellId, FlowId, LinkId, NodeId, NrCellId};
pub use queue::EventQueue;
pub use rng::RngStream;
pub use stall::{StallGuard, Stalled};
pub use time::{SimDuration, SimTime, NS_PER_MS, NS_PER_S, NS_PER_US};
