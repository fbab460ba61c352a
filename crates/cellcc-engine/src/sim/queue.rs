//! The event queue: a binary min-heap keyed by `(time, seq)`.
//!
//! `seq` is a counter stamped at insertion, so events at the same instant pop
//! in the order they were scheduled (FIFO). This one rule makes every run
//! reproducible regardless of heap internals.

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

/// Priority queue of future events: a binary min-heap on `key` in a vector.
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    next_seq: u64,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(1024)
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue { heap: Vec::with_capacity(n), next_seq: 0, popped: 0 }
    }

    pub fn schedule(&mut self, time: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { key: (time.0 as u128) << 64 | seq as u128, event });
        self.sift_up(self.heap.len() - 1);
    }

    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let last = self.heap.pop()?;
        let top = match self.heap.first() {
            Some(&root) => {
                self.sift_down_from_root(last);
                root
            }
            None => last,
        };
        self.popped += 1;
        Some((top.time(), top.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.first().map(Entry::time)
    }

    /// Move the entry at `i` up past every parent with a larger key.
    fn sift_up(&mut self, mut i: usize) {
        let e = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent].key < e.key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = e;
    }

    /// Put `e` in the root's place (the root was just taken) and move it down past
    /// every child with a smaller key. Keys are unique (`seq`), so no ties.
    fn sift_down_from_root(&mut self, e: Entry<E>) {
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.heap[right].key < self.heap[left].key { right } else { left };
            if e.key < self.heap[child].key {
                break;
            }
            self.heap[i] = self.heap[child];
            i = child;
        }
        self.heap[i] = e;
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
