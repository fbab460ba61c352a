//! Which UEs of a cell have work, and when each UE's RLC timers next fire.
//!
//! The TTI pipeline visits only the UEs with work (data buffered at either end, HARQ busy, TBs
//! or feedback in flight, uplink requests pending): its cost is linear in them and no idle UE
//! costs anything per TTI. A wake-up for RLC timers visits only the UEs whose timer is due.
//!
//! ```text
//!  enqueue / timer / TB sent ──► set(ue) ──► bits ──► list(): ascending UE indices for the TTI
//!  end of the TTI: each listed UE re-checked ──► clear(ue) when idle
//!  RLC timers: timer_at[ue] (authoritative) + min-heap of (time, ue), stale entries skipped
//! ```

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::sim::SimTime;

const WORD_BITS: usize = u64::BITS as usize;

#[derive(Debug, Default)]
pub(super) struct ActiveUes {
    /// Bit i: UE i has work.
    bits: Vec<u64>,
    /// Per UE, its earliest RLC timer.
    timer_at: Vec<Option<SimTime>>,
    /// (timer, UE) for every timer set; an entry whose time is no longer the UE's is stale.
    timers: BinaryHeap<Reverse<(SimTime, u32)>>,
}

impl ActiveUes {
    pub(super) fn new(n_ues: usize) -> Self {
        ActiveUes { bits: vec![0; n_ues.div_ceil(WORD_BITS)], timer_at: vec![None; n_ues], timers: BinaryHeap::new() }
    }

    pub(super) fn set(&mut self, i: usize) {
        self.bits[i / WORD_BITS] |= 1 << (i % WORD_BITS);
    }

    pub(super) fn clear(&mut self, i: usize) {
        self.bits[i / WORD_BITS] &= !(1 << (i % WORD_BITS));
    }

    #[cfg(test)]
    fn is_set(&self, i: usize) -> bool {
        self.bits[i / WORD_BITS] & (1 << (i % WORD_BITS)) != 0
    }

    /// Whether any UE has work.
    pub(super) fn any(&self) -> bool {
        self.bits.iter().any(|&w| w != 0)
    }

    /// The UEs with work, ascending, into `out` (cleared first).
    pub(super) fn list(&self, out: &mut Vec<u32>) {
        out.clear();
        for (w, &word) in self.bits.iter().enumerate() {
            let mut m = word;
            while m != 0 {
                out.push((w * WORD_BITS) as u32 + m.trailing_zeros());
                m &= m - 1;
            }
        }
    }

    /// UE `i`'s earliest RLC timer is now `at`.
    pub(super) fn set_timer(&mut self, i: usize, at: Option<SimTime>) {
        if self.timer_at[i] != at {
            self.timer_at[i] = at;
            if let Some(t) = at {
                self.timers.push(Reverse((t, i as u32)));
            }
        }
    }

    /// The earliest RLC timer of any UE (stale heap entries are dropped on the way).
    pub(super) fn next_timer(&mut self) -> Option<SimTime> {
        while let Some(&Reverse((t, i))) = self.timers.peek() {
            if self.timer_at[i as usize] == Some(t) {
                return Some(t);
            }
            self.timers.pop();
        }
        None
    }

    /// The UEs whose RLC timer is due by `now`, ascending, into `out` (cleared first); their
    /// entries leave the heap (the caller sets each UE's new timer after running it).
    pub(super) fn due_timers(&mut self, now: SimTime, out: &mut Vec<u32>) {
        out.clear();
        while let Some(&Reverse((t, i))) = self.timers.peek() {
            if t > now {
                break;
            }
            self.timers.pop();
            if self.timer_at[i as usize] == Some(t) {
                self.timer_at[i as usize] = None;
                out.push(i);
            }
        }
        out.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_ascending_and_follows_set_and_clear() {
        let mut a = ActiveUes::new(130);
        for i in [129, 3, 64, 0] {
            a.set(i);
        }
        a.clear(3);
        let mut out = Vec::new();
        a.list(&mut out);
        assert_eq!(out, vec![0, 64, 129]);
        assert!(a.any() && a.is_set(64) && !a.is_set(3));
        for i in [0, 64, 129] {
            a.clear(i);
        }
        assert!(!a.any());
    }

    #[test]
    fn timers_come_out_due_once_and_moved_ones_are_stale() {
        let ms = |x: u64| SimTime(x * crate::sim::NS_PER_MS);
        let mut a = ActiveUes::new(4);
        a.set_timer(2, Some(ms(5)));
        a.set_timer(1, Some(ms(9)));
        a.set_timer(2, Some(ms(7)));
        a.set_timer(3, Some(ms(7)));
        assert_eq!(a.next_timer(), Some(ms(7)), "UE 2's 5 ms entry is stale");
        let mut due = Vec::new();
        a.due_timers(ms(7), &mut due);
        assert_eq!(due, vec![2, 3]);
        assert_eq!(a.next_timer(), Some(ms(9)));
        a.set_timer(1, None);
        assert_eq!(a.next_timer(), None);
    }
}
