//! Wired paths: one [`Channel`] per link direction.
//!
//! ```text
//!  node ──enqueue──► [ queue ] ──server──► wire (delay, loss) ──arrive──► next node
//!                     drop-tail   rate: serialise at rate_bps
//!                                 trace: Mahimahi delivery opportunities
//! ```

pub mod channel;
pub mod loss;
pub mod queue;
pub mod trace;

pub use channel::{Channel, Server};
