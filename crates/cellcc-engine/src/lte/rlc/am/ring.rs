//! Per-SN storage of one side's window, indexed by SN but holding only the SNs from the window's
//! lower edge (VT(A) or VR(R)) up to the highest one written: a window spans at most
//! AM_Window_Size = 512 of the 1024 SNs (TS 36.322 §7.2), and a bearer's PDUs in flight are
//! usually far fewer, so a UE's four windows cost what they hold, not 4 x 1024 slots.

use std::collections::VecDeque;
use std::ops::{Index, IndexMut};

use super::AM_SN;

#[derive(Clone, Debug)]
pub(super) struct SnRing<T> {
    /// The SN of `items[0]`: the window's lower edge.
    base: u16,
    items: VecDeque<T>,
    /// What an SN outside the stored range holds.
    empty: T,
}

impl<T: Default> SnRing<T> {
    pub(super) fn new() -> Self {
        SnRing { base: 0, items: VecDeque::new(), empty: T::default() }
    }

    /// The window's lower edge moved to `base`: the SNs below it are gone (they hold nothing:
    /// acknowledged, or delivered).
    pub(super) fn set_base(&mut self, base: u16) {
        let gone = usize::from(AM_SN.offset(base, self.base));
        if gone >= self.items.len() {
            self.items.clear();
        } else {
            self.items.drain(..gone);
        }
        self.base = base;
    }
}

impl<T> Index<usize> for SnRing<T> {
    type Output = T;

    fn index(&self, sn: usize) -> &T {
        self.items.get(usize::from(AM_SN.offset(sn as u16, self.base))).unwrap_or(&self.empty)
    }
}

impl<T: Default> IndexMut<usize> for SnRing<T> {
    /// An SN in the window (at most AM_Window_Size above its lower edge); the range grows to it.
    fn index_mut(&mut self, sn: usize) -> &mut T {
        let off = usize::from(AM_SN.offset(sn as u16, self.base));
        debug_assert!(off < usize::from(AM_SN.window()), "SN {sn} outside the window at {}", self.base);
        if off >= self.items.len() {
            self.items.resize_with(off + 1, T::default);
        }
        &mut self.items[off]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_was_written_from_the_base_on_and_wraps() {
        let mut r: SnRing<Option<u32>> = SnRing::new();
        r.set_base(1020);
        r[1022] = Some(7);
        r[1] = Some(9);
        assert_eq!((r[1020], r[1022], r[1], r[5], r[600]), (None, Some(7), Some(9), None, None));
        assert_eq!(r.items.len(), 6);
        r.set_base(1023);
        assert_eq!((r[1022], r[1]), (None, Some(9)));
        r.set_base(10);
        assert!(r.items.is_empty());
        assert_eq!(r[1], None);
    }
}
