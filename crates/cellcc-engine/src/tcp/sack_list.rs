//! The receiver's list of SACK blocks, as Linux keeps it (`tp->selective_acks`,
//! net/ipv4/tcp_input.c: `tcp_sack_new_ofo_skb`, `tcp_sack_extend`, `tcp_sack_maybe_coalesce`,
//! `tcp_sack_remove`). RFC 2018 §4 asks for the most recently received block first and as many
//! others as fit; Linux lists at most `TCP_NUM_SACKS` blocks, most recently changed first. A
//! segment that overlaps or abuts a listed block extends it (it moves to the front and absorbs
//! any other it now reaches); one that reaches none opens a new block at the front, and with the
//! list full the oldest is forgotten. A forgotten range is not listed again until new data
//! touches it, and then only from that data on: the sender learns of it from later ACKs.
//!
//! ```text
//!  out-of-order [s, e) ─► extends a listed block? ─► grow it, move it first, merge reached ones
//!                                    └─ no ─► list full? forget the oldest ─► [s, e) first
//!  rcv_nxt advances ─► drop the blocks it reached (all, once nothing waits out of order)
//! ```

/// Linux `TCP_NUM_SACKS` (include/linux/tcp.h): blocks the receiver keeps listed.
pub const LINUX_TCP_NUM_SACKS: usize = 4;

/// `tp->selective_acks[]` and `tp->rx_opt.num_sacks`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackList {
    blocks: [(u64, u64); LINUX_TCP_NUM_SACKS],
    len: usize,
}

/// `tcp_sack_extend`'s test: the ranges overlap or abut.
fn touches(block: (u64, u64), start: u64, end: u64) -> bool {
    start <= block.1 && block.0 <= end
}

impl SackList {
    /// The listed blocks, most recently changed first.
    pub fn blocks(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len]
    }

    /// Whether out-of-order data [start, end) would make the list forget a block: it extends
    /// none of them and the list is full (Linux sends held SACKs first then).
    pub fn would_forget(&self, start: u64, end: u64) -> bool {
        self.len == LINUX_TCP_NUM_SACKS && !self.blocks().iter().any(|&b| touches(b, start, end))
    }

    /// Out-of-order data [start, end) arrived (`tcp_sack_new_ofo_skb`).
    pub fn on_out_of_order(&mut self, start: u64, end: u64) {
        if let Some(i) = self.blocks().iter().position(|&b| touches(b, start, end)) {
            let b = self.blocks[i];
            self.blocks[i] = (b.0.min(start), b.1.max(end));
            self.blocks[..=i].rotate_right(1);
            self.coalesce_first();
            return;
        }
        self.len = (self.len + 1).min(LINUX_TCP_NUM_SACKS);
        self.blocks[..self.len].rotate_right(1);
        self.blocks[0] = (start, end);
    }

    /// `tcp_sack_maybe_coalesce`: the first block absorbs every other it now reaches.
    fn coalesce_first(&mut self) {
        let mut i = 1;
        while i < self.len {
            let (first, b) = (self.blocks[0], self.blocks[i]);
            if touches(first, b.0, b.1) {
                self.blocks[0] = (first.0.min(b.0), first.1.max(b.1));
                self.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Drop block `i`, keeping the others in order.
    fn remove(&mut self, i: usize) {
        self.blocks[i..self.len].rotate_left(1);
        self.len -= 1;
    }

    /// `rcv_nxt` advanced (`tcp_sack_remove`): blocks it reached go; all of them once nothing
    /// waits out of order.
    pub fn on_rcv_nxt(&mut self, rcv_nxt: u64, nothing_out_of_order: bool) {
        if nothing_out_of_order {
            self.len = 0;
            return;
        }
        let mut i = 0;
        while i < self.len {
            if self.blocks[i].0 <= rcv_nxt {
                self.remove(i);
            } else {
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(segments: &[(u64, u64)]) -> SackList {
        let mut l = SackList::default();
        segments.iter().for_each(|&(s, e)| l.on_out_of_order(s, e));
        l
    }

    #[test]
    fn the_newest_block_is_first_and_extending_one_moves_it_first() {
        let mut l = list(&[(10, 20), (30, 40), (50, 60)]);
        assert_eq!(l.blocks(), &[(50, 60), (30, 40), (10, 20)]);
        l.on_out_of_order(20, 25);
        assert_eq!(l.blocks(), &[(10, 25), (50, 60), (30, 40)]);
    }

    #[test]
    fn a_fifth_block_forgets_the_oldest_and_a_forgotten_range_returns_only_from_new_data() {
        let mut l = list(&[(10, 20), (30, 40), (50, 60), (70, 80)]);
        assert!(l.would_forget(90, 100) && !l.would_forget(80, 85));
        l.on_out_of_order(90, 100);
        assert_eq!(l.blocks(), &[(90, 100), (70, 80), (50, 60), (30, 40)]);
        // (10, 20) is forgotten: data next to it opens a block of its own.
        l.on_out_of_order(20, 25);
        assert_eq!(l.blocks(), &[(20, 25), (90, 100), (70, 80), (50, 60)]);
    }

    #[test]
    fn filling_the_gap_between_two_blocks_merges_them() {
        let mut l = list(&[(10, 20), (30, 40), (50, 60)]);
        l.on_out_of_order(20, 30);
        assert_eq!(l.blocks(), &[(10, 40), (50, 60)]);
    }

    #[test]
    fn rcv_nxt_drops_the_blocks_it_reaches_and_all_once_nothing_waits() {
        let mut l = list(&[(10, 20), (30, 40)]);
        l.on_rcv_nxt(20, false);
        assert_eq!(l.blocks(), &[(30, 40)]);
        l.on_rcv_nxt(40, true);
        assert!(l.blocks().is_empty());
    }
}
