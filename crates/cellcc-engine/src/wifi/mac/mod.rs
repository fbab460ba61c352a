//! The VHT MAC: EDCA channel access (`edca`), the MAC queue (`queue`), A-MPDU aggregation
//! (`ampdu`), Block Ack agreements (`block_ack`) and frame sizes (`frames`). The frame exchanges
//! that join them run in `bss`.

pub mod ampdu;
pub mod block_ack;
pub mod edca;
pub mod frames;
pub mod queue;
