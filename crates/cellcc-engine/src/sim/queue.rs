//! The event queue: a priority queue keyed by `(time, seq)`.
//!
//! `seq` is a counter stamped at insertion, so events at the same instant pop
//! in the order they were scheduled (FIFO). This one rule makes every run
//! reproducible regardless of the queue's internals: keys are unique, so any
//! correct priority queue pops the same sequence.
//!
//! Two parts, and a pop takes the smaller of their heads:
//!
//! ```text
//!   front: a few entries sorted, largest first     [k9 k7 k4 k2] ─pop─► k2
//!   heap:  a 4-ary min-heap of the rest            root k3, ~1,200 entries in a 19-site network
//! ```
//!
//! A few entries (a point-to-point flow keeps ~5: each wire's next arrival, the endpoints'
//! timers, the slot boundary) are all in the front: a pop takes its last entry, and a
//! schedule, usually of the next arrival on a wire and so among the earliest, moves the few
//! smaller entries up by one. Past [`FRONT_MAX_ENTRIES`] the rest go to the heap (many flows,
//! cells with many UEs); then the front takes only an entry earlier than the heap's root, as a
//! packet crossing a wire with no propagation delay schedules its arrival at (nearly) the
//! current instant: a quarter of the 19-site network's schedules, each of which climbed the
//! heap to its root and went down again at the next pop.

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
        key_time(self.key)
    }
}

/// The time a key packs (its upper 64 bits).
fn key_time(key: u128) -> SimTime {
    SimTime((key >> 64) as u64)
}

/// The part of the queue an entry is taken from.
#[derive(Clone, Copy)]
enum Part {
    Front,
    Heap,
}

/// Priority queue of future events: a sorted front and a 4-ary min-heap on `key`. Neither
/// part's keys need be smaller than the other's: a pop compares the two heads.
pub struct EventQueue<E> {
    /// Sorted by `key`, largest first; at most [`FRONT_MAX_ENTRIES`].
    front: Vec<Entry<E>>,
    /// A min-heap on `key`, [`ARITY`] children per node.
    heap: Vec<Entry<E>>,
    /// The next entry's `seq`: the count of events scheduled so far.
    next_seq: u64,
}

/// Most entries in the sorted front. Measured with callgrind on the p2p flow (~5 entries): a
/// schedule and a pop cost ~25 instructions sorted against ~115 in a heap; a schedule far in
/// the future shifts every entry, so the sorted front stays small.
const FRONT_MAX_ENTRIES: usize = 16;
/// A heap that shrinks, with the front, to this many entries is merged into the front (half
/// its limit: no back and forth at its edge; the p2p flow's queue peaks at 86 entries in
/// slow start and is sorted again after).
const SORTED_AGAIN_ENTRIES: usize = FRONT_MAX_ENTRIES / 2;

/// Up to this many entries (three levels of four children) a pop sifts top-down, beyond it
/// bottom-up. Measured with callgrind on a binary heap: a single flow keeps ~6 events queued,
/// where top-down is 20 instructions a pop cheaper; 50 flows keep hundreds, where bottom-up
/// saves ~20 a pop.
const SHALLOW_HEAP_ENTRIES: usize = 1 + ARITY + ARITY * ARITY;

/// Children per heap node. Four, not two: with ~1,200 entries (a 19-site network's 570 flows,
/// nearly all of them endpoint timers) a binary heap is 11 levels deep and most schedules land
/// near its root; four children halve the levels, and a node's four 32-byte children are two
/// cache lines (a pop compares them pairwise, then the two winners).
const ARITY: usize = 4;

/// Move the hole at `i` up past every parent with a key larger than `key`, shifting
/// those parents down; returns where the hole ends.
fn hole_up<E: Copy>(heap: &mut [Entry<E>], mut i: usize, key: u128) -> usize {
    while i > 0 {
        let parent = (i - 1) / ARITY;
        if heap[parent].key < key {
            break;
        }
        heap[i] = heap[parent];
        i = parent;
    }
    i
}

/// The index of the smallest key among the `ARITY` entries from `first` (all present).
#[inline(always)]
fn min_of_full_group<E>(heap: &[Entry<E>], first: usize) -> usize {
    let a = first + (heap[first + 1].key < heap[first].key) as usize;
    let b = first + 2 + (heap[first + 3].key < heap[first + 2].key) as usize;
    if heap[b].key < heap[a].key {
        b
    } else {
        a
    }
}

/// The index of the smallest key among the entries from `first` to the end (at least one).
fn min_of_tail<E>(heap: &[Entry<E>], first: usize) -> usize {
    let mut m = first;
    for c in first + 1..heap.len() {
        if heap[c].key < heap[m].key {
            m = c;
        }
    }
    m
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(1024)
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue { front: Vec::with_capacity(FRONT_MAX_ENTRIES), heap: Vec::with_capacity(n), next_seq: 0 }
    }

    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let key = (time.0 as u128) << 64 | seq as u128;
        if self.front.len() < FRONT_MAX_ENTRIES && self.heap.first().is_none_or(|root| key < root.key) {
            self.insert_sorted(key, event);
        } else {
            self.push_heap(key, event);
        }
    }

    /// `schedule` on the heap. The new entry is written from registers, field by field where it
    /// lands: pushed as one value and written again where it landed, it went through a stack
    /// copy whose 16-byte loads waited on the 8-byte stores just made (perf: a third of
    /// `advance`'s samples on that load).
    #[inline(always)]
    fn push_heap(&mut self, key: u128, event: E) {
        let i = self.heap.len();
        self.heap.push(Entry { key, event });
        let heap = &mut self.heap[..];
        let i = hole_up(heap, i, key);
        heap[i].key = key;
        heap[i].event = event;
    }

    /// Put the entry in the sorted front: past the entries with larger keys, the smaller ones
    /// (at the end) moved up by one.
    #[inline(always)]
    fn insert_sorted(&mut self, key: u128, event: E) {
        let mut i = self.front.len();
        self.front.push(Entry { key, event });
        let v = &mut self.front[..];
        while i > 0 && v[i - 1].key < key {
            v[i] = v[i - 1];
            i -= 1;
        }
        v[i].key = key;
        v[i].event = event;
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_until(SimTime::MAX)
    }

    /// Pop the next event if it is due at or before `limit`: a peek and a pop in one, so the
    /// event loop compares the two heads once per event, not twice.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, E)> {
        // The largest key at `limit`: every event due by then has a key at or below it.
        let last_key = (limit.0 as u128) << 64 | u64::MAX as u128;
        let (part, key) = self.head()?;
        if key > last_key {
            return None;
        }
        let top = match part {
            Part::Front => self.front.pop().expect("a front entry"),
            Part::Heap => self.pop_heap(),
        };
        Some((top.time(), top.event))
    }

    /// Which part holds the earliest entry, and its key: the smaller of the front's last
    /// entry and the heap's root. An empty heap (a point-to-point flow's queue) is tested
    /// first, so that case reads one part.
    #[inline(always)]
    fn head(&self) -> Option<(Part, u128)> {
        match (self.heap.first(), self.front.last()) {
            (None, f) => Some((Part::Front, f?.key)),
            (Some(root), Some(f)) if f.key < root.key => Some((Part::Front, f.key)),
            (Some(root), _) => Some((Part::Heap, root.key)),
        }
    }

    /// Take the heap's root (the heap is not empty); a queue that shrank back to a few entries
    /// is all put in the front.
    fn pop_heap(&mut self) -> Entry<E> {
        let last = self.heap.pop().expect("a heap entry");
        let top = match self.heap.first() {
            Some(&root) => {
                self.sift_down_from_root(last);
                root
            }
            None => last,
        };
        if !self.heap.is_empty() && self.front.len() + self.heap.len() <= SORTED_AGAIN_ENTRIES {
            self.merge_heap_into_front();
        }
        top
    }

    #[cold]
    fn merge_heap_into_front(&mut self) {
        // Largest first, as the front keeps them (both parts are within the front's limit).
        self.front.append(&mut self.heap);
        self.front.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
    }

    /// The earliest entry's time.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.head().map(|(_, key)| key_time(key))
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
    /// (few levels). Keys are unique, so no ties.
    fn sift_down_top(&mut self, e: Entry<E>) {
        let heap = &mut self.heap[..];
        let n = heap.len();
        let mut hole = 0;
        loop {
            let first = ARITY * hole + 1;
            if first >= n {
                break;
            }
            let child = if first + ARITY <= n { min_of_full_group(heap, first) } else { min_of_tail(heap, first) };
            if e.key < heap[child].key {
                break;
            }
            heap[hole] = heap[child];
            hole = child;
        }
        heap[hole] = e;
    }

    /// Bottom-up (Floyd, as std's `BinaryHeap::pop`): the hole goes down along the smallest
    /// children to a leaf, and `e`, usually large, moves up from there.
    fn sift_down_floyd(&mut self, e: Entry<E>) {
        let heap = &mut self.heap[..];
        let n = heap.len();
        let mut hole = 0;
        let mut first = 1;
        while first + ARITY <= n {
            let child = min_of_full_group(heap, first);
            heap[hole] = heap[child];
            hole = child;
            first = ARITY * hole + 1;
        }
        if first < n {
            let child = min_of_tail(heap, first);
            heap[hole] = heap[child];
            hole = child;
        }
        let hole = hole_up(heap, hole, e.key);
        heap[hole] = e;
    }

    /// Events dispatched so far (the benchmark's unit of work).
    pub fn events_processed(&self) -> u64 {
        // Every event scheduled is popped or still queued.
        self.next_seq - self.len() as u64
    }

    pub fn len(&self) -> usize {
        self.front.len() + self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.front.is_empty() && self.heap.is_empty()
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
        // 100 entries, times a permutation of 0..100 (37 is prime to 100): 16 in the front, 84
        // in the heap; the first heap pops sift bottom-up, the last ones top-down
        // (SHALLOW_HEAP_ENTRIES).
        let mut q = EventQueue::default();
        for i in 0..100u64 {
            q.schedule(SimTime(i * 37 % 100), i);
        }
        let times: Vec<u64> = std::iter::from_fn(|| q.pop().map(|(t, _)| t.0)).collect();
        assert_eq!(times, (0..100).collect::<Vec<u64>>());
    }

    #[test]
    fn a_queue_that_grows_past_the_sorted_limit_and_shrinks_back_pops_in_time_order() {
        // Schedule 40 (the front, then the heap), pop 35 (all in the front again at 8 left),
        // schedule 40 more among those left, pop all: every pop is the earliest left.
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
        assert!(q.heap.is_empty(), "a queue of 5 is all in the front");
        for k in 40..80 {
            schedule(&mut q, &mut left, k);
        }
        while let Some((t, n)) = left.pop_first() {
            assert_eq!(q.peek_time(), Some(SimTime(t)));
            assert_eq!(q.pop(), Some((SimTime(t), n)));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn a_schedule_before_the_heaps_root_goes_to_the_front_and_pops_first() {
        // 40 timers fill the front and then the heap; once the front is popped empty (the
        // clock at 1_015, the heap's root at 1_016), an arrival at the current instant goes to
        // the front and pops first; one at the root's time (scheduled after it) or later goes
        // to the heap.
        let mut q = EventQueue::default();
        for i in 0..40u64 {
            q.schedule(SimTime(1_000 + i), i);
        }
        assert_eq!((q.front.len(), q.heap.len()), (16, 24));
        for i in 0..16 {
            assert_eq!(q.pop(), Some((SimTime(1_000 + i), i)));
        }
        q.schedule(SimTime(1_015), 100);
        assert_eq!((q.front.len(), q.heap.len()), (1, 24));
        q.schedule(SimTime(1_016), 101);
        q.schedule(SimTime(1_030), 102);
        assert_eq!((q.front.len(), q.heap.len()), (1, 26));
        assert_eq!(q.peek_time(), Some(SimTime(1_015)));
        assert_eq!(q.pop(), Some((SimTime(1_015), 100)));
        assert_eq!(q.pop(), Some((SimTime(1_016), 16)));
        assert_eq!(q.pop(), Some((SimTime(1_016), 101)));
        assert_eq!(q.pop(), Some((SimTime(1_017), 17)));
    }

    #[test]
    fn pop_until_takes_only_what_is_due_by_the_limit_and_counts_it() {
        // In the front alone, then with a heap: an event at the limit is due, one a nanosecond
        // after it is not and stays queued.
        let mut q = EventQueue::default();
        q.schedule(SimTime(10), 'a');
        q.schedule(SimTime(20), 'b');
        assert_eq!(q.pop_until(SimTime(9)), None);
        assert_eq!(q.pop_until(SimTime(10)), Some((SimTime(10), 'a')));
        assert_eq!(q.pop_until(SimTime(19)), None);
        for i in 0..30 {
            q.schedule(SimTime(100 + i), 'h');
        }
        q.schedule(SimTime(21), 'c');
        assert!(!q.heap.is_empty());
        assert_eq!(q.pop_until(SimTime(20)), Some((SimTime(20), 'b')));
        assert_eq!(q.pop_until(SimTime(21)), Some((SimTime(21), 'c')));
        assert_eq!(q.pop_until(SimTime(99)), None);
        assert_eq!(q.pop_until(SimTime(100)), Some((SimTime(100), 'h')));
        assert_eq!((q.events_processed(), q.len()), (4, 29));
    }

    proptest::proptest! {
        /// A queue that grows to thousands of entries and drains again, with schedules at the
        /// last popped instant or just after (as wire arrivals) and far ahead (as timers):
        /// every pop is the earliest `(time, insertion order)` left, through every size class
        /// (the front alone, the front and a shallow or deep heap, the front again).
        #[test]
        fn pops_follow_time_then_insertion_order_while_growing_and_draining(
            ops in proptest::collection::vec(
                (0u8..4, proptest::prop_oneof![0u64..4, 0u64..1_000_000]),
                1..3000,
            )
        ) {
            let mut q = EventQueue::default();
            let mut reference = std::collections::BTreeMap::new();
            let mut now = 0;
            let half = ops.len() / 2;
            for (n, &(kind, delta)) in ops.iter().enumerate() {
                // Mostly schedules in the first half, mostly pops in the second.
                let pop = if n < half { kind == 0 } else { kind != 0 };
                if pop {
                    let want = reference.pop_first().map(|((t, _), n)| (SimTime(t), n));
                    proptest::prop_assert_eq!(q.pop(), want);
                    now = want.map_or(now, |(t, _)| t.0);
                } else {
                    q.schedule(SimTime(now + delta), n);
                    reference.insert((now + delta, n), n);
                }
                proptest::prop_assert_eq!(q.peek_time(), reference.first_key_value().map(|(&(t, _), _)| SimTime(t)));
            }
            while let Some(((t, _), n)) = reference.pop_first() {
                proptest::prop_assert_eq!(q.pop(), Some((SimTime(t), n)));
            }
            proptest::prop_assert!(q.is_empty());
        }

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
