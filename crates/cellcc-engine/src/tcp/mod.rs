//! TCP, sans-IO: a data sender and an ACKing receiver per connection.
//! The world feeds segments and timeouts in and drains segments out; nothing
//! here knows about links, packets or the clock beyond the `now` it is given.

pub mod comp_sack;
pub mod delack;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod rwnd;
pub mod sack_list;
pub mod scoreboard;
pub mod sender;
pub mod sndbuf;
pub mod tlp;
pub mod tso;
pub mod undo;

pub use receiver::{EcnEcho, TcpReceiver};
pub use sender::{AppSupply, TcpSender};
