//! The event queue: a priority queue keyed by `(time, seq)`.
//!
//! `seq` is a counter stamped at insertion, so events at the same instant pop
//! in the order they were scheduled (FIFO). This one rule makes every run
//! reproducible regardless of the queue's internals: keys are unique, so any
//! correct priority queue pops the same sequence.
//!
//! A few entries (a point-to-point flow keeps ~5: each wire's next arrival, the endpoints'
//! timers, the slot boundary) are kept sorted, largest key first: a pop takes the last
//! entry, and a schedule, usually of the next arrival on a wire and so among the earliest,
//! moves the few smaller entries up by one. Past [`SORTED_MAX_ENTRIES`] the same vector
//! becomes a binary min-heap (many flows, cells with many UEs).

use super::time::SimTime;

/// One scheduled event. `key` packs `(time, seq)` as `time << 64 | seq`, so comparing
/// keys as integers is the lexicographic order on `(time, seq)`: one 128-bit compare
/// per heap step instead of two chained ones (the queue is popped once per event).
#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
}

/// Priority queue of future events: sorted by `key`, largest first, or a binary min-heap on
/// `key` (`sorted` false), in one vector.
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    sorted: bool,
    next_seq: u64,
    popped: u64,
}

/// Most entries kept sorted; one more turns the vector into a heap. Measured with callgrind on
/// the p2p flow (~5 entries): a schedule and a pop cost ~25 instructions sorted against ~115 as
/// a heap; a schedule far in the future shifts every entry, so the sorted form stays small.
const SORTED_MAX_ENTRIES: usize = 16;
/// A heap that shrinks to this many entries is sorted again (half the limit: no back and
/// forth at its edge).
const SORTED_AGAIN_ENTRIES: usize = SORTED_MAX_ENTRIES / 2;

/// Up to this many entries (four levels) a pop sifts top-down, beyond it bottom-up. Measured
/// with callgrind: a single flow keeps ~6 events queued, where top-down is 20 instructions a
/// pop cheaper; 50 flows keep hundreds, where bottom-up saves ~20 a pop.
const SHALLOW_HEAP_ENTRIES: usize = 15;

/// Move the hole at `i` up past every parent with a key larger than `key`, shifting
/// those parents down; returns where the hole ends.
fn hole_up<E: Copy>(heap: &mut [Entry<E>], mut i: usize, key: u128) -> usize {
    while i > 0 {
        let parent = (i - 1) / 2;
        if heap[parent].key < key {
            break;
        }
        heap[i] = heap[parent];
        i = parent;
    }
    i
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(1024)
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue { heap: Vec::with_capacity(n), sorted: true, next_seq: 0, popped: 0 }
    }

    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let key = (time.0 as u128) << 64 | seq as u128;
        if self.sorted && self.heap.len() < SORTED_MAX_ENTRIES {
            self.insert_sorted(key, event);
        } else {
            self.push_heap(key, event);
        }
    }

    /// Grow the vector by one entry, to be moved. The new entry is written from registers, field
    /// by field where it lands: pushed as one value and written again where it landed, it went
    /// through a stack copy whose 16-byte loads waited on the 8-byte stores just made (perf: a
    /// third of `advance`'s samples on that load).
    #[inline(always)]
    fn grow(&mut self, key: u128, event: E) {
        self.heap.push(Entry { key, event });
    }

    /// `schedule` on a heap (which the sorted vector becomes when full).
    #[inline(always)]
    fn push_heap(&mut self, key: u128, event: E) {
        if self.sorted {
            // Largest first reversed is smallest first: a valid min-heap.
            self.heap.reverse();
            self.sorted = false;
        }
        let i = self.heap.len();
        self.grow(key, event);
        let heap = &mut self.heap[..];
        let i = hole_up(heap, i, key);
        heap[i].key = key;
        heap[i].event = event;
    }

    /// Put the entry in the sorted vector: past the entries with larger keys, the smaller ones
    /// (at the end) moved up by one.
    #[inline(always)]
    fn insert_sorted(&mut self, key: u128, event: E) {
        let mut i = self.heap.len();
        self.grow(key, event);
        let v = &mut self.heap[..];
        while i > 0 && v[i - 1].key < key {
            v[i] = v[i - 1];
            i -= 1;
        }
        v[i].key = key;
        v[i].event = event;
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.sorted {
            let top = self.heap.pop()?;
            self.popped += 1;
            return Some((top.time(), top.event));
        }
        let last = self.heap.pop()?;
        let top = match self.heap.first() {
            Some(&root) => {
                self.sift_down_from_root(last);
                root
            }
            None => last,
        };
        if self.heap.len() <= SORTED_AGAIN_ENTRIES {
            self.heap.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
            self.sorted = true;
        }
        self.popped += 1;
        Some((top.time(), top.event))
    }

    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        let next = if self.sorted { self.heap.last() } else { self.heap.first() };
        next.map(Entry::time)
    }

    /// Put `e` (the old last entry) in the root's place, the root having been taken.
    fn sift_down_from_root(&mut self, e: Entry<E>) {
        if self.heap.len() <= SHALLOW_HEAP_ENTRIES {
            self.sift_down_top(e);
        } else {
            self.sift_down_floyd(e);
        }
    }

    /// Top-down: `e` goes down past every smaller child and stops as soon as it fits
    /// (two compares per level, few levels). Keys are unique, so no ties.
    fn sift_down_top(&mut self, e: Entry<E>) {
        let heap = &mut self.heap[..];
        let n = heap.len();
        let mut hole = 0;
        loop {
            let left = 2 * hole + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && heap[right].key < heap[left].key { right } else { left };
            if e.key < heap[child].key {
                break;
            }
            heap[hole] = heap[child];
            hole = child;
        }
        heap[hole] = e;
    }

    /// Bottom-up (Floyd, as std's `BinaryHeap::pop`): the hole goes down along the smaller
    /// children to a leaf, one compare per level, and `e`, usually large, moves up from there.
    fn sift_down_floyd(&mut self, e: Entry<E>) {
        let heap = &mut self.heap[..];
        let n = heap.len();
        let mut hole = 0;
        let mut child = 1;
        while child + 1 < n {
            child += (heap[child + 1].key < heap[child].key) as usize;
            heap[hole] = heap[child];
            hole = child;
            child = 2 * hole + 1;
        }
        if child + 1 == n {
            heap[hole] = heap[child];
            hole = child;
        }
        let hole = hole_up(heap, hole, e.key);
        heap[hole] = e;
    }

    /// Events dispatched so far (the benchmark's unit of work).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(5), 'b');
        q.schedule(SimTime(1), 'a');
        q.schedule(SimTime(5), 'c');
        q.schedule(SimTime(5), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    #[test]
    fn a_deep_heap_pops_in_time_order() {
        // 100 entries, times a permutation of 0..100 (37 is prime to 100): the first pops
        // sift bottom-up, the last ones top-down (SHALLOW_HEAP_ENTRIES).
        let mut q = EventQueue::default();
        for i in 0..100u64 {
            q.schedule(SimTime(i * 37 % 100), i);
        }
        let times: Vec<u64> = std::iter::from_fn(|| q.pop().map(|(t, _)| t.0)).collect();
        assert_eq!(times, (0..100).collect::<Vec<u64>>());
    }

    #[test]
    fn a_queue_that_grows_past_the_sorted_limit_and_shrinks_back_pops_in_time_order() {
        // Schedule 40 (sorted, then a heap), pop 35 (back to sorted at 8 left), schedule 40
        // more among those left, pop all: every pop is the earliest left.
        let mut q = EventQueue::default();
        let mut left = std::collections::BTreeSet::new();
        let mut n = 0u64;
        let mut schedule = |q: &mut EventQueue<u64>, left: &mut std::collections::BTreeSet<(u64, u64)>, k: u64| {
            let t = k * 7919 % 1000;
            q.schedule(SimTime(t), n);
            left.insert((t, n));
            n += 1;
        };
        for k in 0..40 {
            schedule(&mut q, &mut left, k);
        }
        for _ in 0..35 {
            assert_eq!(q.pop(), left.pop_first().map(|(t, n)| (SimTime(t), n)));
        }
        for k in 40..80 {
            schedule(&mut q, &mut left, k);
        }
        while let Some((t, n)) = left.pop_first() {
            assert_eq!(q.peek_time(), Some(SimTime(t)));
            assert_eq!(q.pop(), Some((SimTime(t), n)));
        }
        assert!(q.is_empty());
    }

    proptest::proptest! {
        /// Any mix of schedules and pops returns events in `(time, insertion order)`,
        /// the order of a stable sort of everything scheduled.
        #[test]
        fn pops_follow_time_then_insertion_order(ops in proptest::collection::vec((0u64..20, proptest::bool::ANY), 1..200)) {
            let mut q = EventQueue::default();
            let mut reference = std::collections::BTreeMap::new();
            for (n, &(t, pop)) in ops.iter().enumerate() {
                if pop {
                    let want = reference.pop_first().map(|((t, _), n)| (SimTime(t), n));
                    proptest::prop_assert_eq!(q.pop(), want);
                } else {
                    q.schedule(SimTime(t), n);
                    reference.insert((t, n), n);
                }
            }
            proptest::prop_assert_eq!(q.len(), reference.len());
        }
    }
}
