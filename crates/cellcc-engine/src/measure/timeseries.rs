//! Time series in fixed slots (100 ms in the seeds): everything that happens
//! is added to the slot its time falls in; nothing is interpolated.

use crate::sim::{SimDuration, SimTime};

/// One flow's accumulators for one slot.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowSlot {
    pub rx_bytes: u64,
    pub app_bytes: u64,
    pub delay_sum_ns: u64,
    pub delay_n: u64,
    pub retransmits: u64,
    pub lost_packets: u64,
    /// cwnd at the last change within (or before) the slot; `None` until one is seen.
    pub cwnd_bytes: Option<u64>,
    pub rtt_sum_ns: u64,
    pub rtt_n: u64,
}

/// One queue's sample for one slot.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueSlot {
    pub bytes: u64,
    pub packets: u64,
    pub max_bytes: u64,
    pub drops: u64,
}

/// Fixed-width slots over a run's duration.
#[derive(Clone, Debug)]
pub struct Slots<T> {
    width: SimDuration,
    pub slots: Vec<T>,
    /// The last slot `at` looked up and the time range it covers, `[start_ns, end_ns)`:
    /// most lookups fall in it (an event's several counters, consecutive packets), so the
    /// division is skipped. Only a cache: the index is the same either way.
    last: (u64, u64, usize),
}

impl<T: Default + Clone> Slots<T> {
    pub fn new(width: SimDuration, duration: SimDuration) -> Self {
        let n = duration.as_ns().div_ceil(width.as_ns().max(1)).max(1) as usize;
        Slots { width, slots: vec![T::default(); n], last: (0, 0, 0) }
    }

    pub fn index(&self, t: SimTime) -> usize {
        ((t.as_ns() / self.width.as_ns().max(1)) as usize).min(self.slots.len() - 1)
    }

    #[inline]
    pub fn at(&mut self, t: SimTime) -> &mut T {
        let i = self.locate(t);
        &mut self.slots[i]
    }

    /// The index of the slot holding `t`, as [`Self::index`], through the cache of the last one.
    #[inline]
    pub fn locate(&mut self, t: SimTime) -> usize {
        let (start_ns, end_ns, i) = self.last;
        let ns = t.as_ns();
        if ns >= start_ns && ns < end_ns {
            return i;
        }
        let i = self.index(t);
        let w = self.width.as_ns().max(1);
        // The last slot also takes every later time (`index` clamps).
        let end_ns = if i + 1 == self.slots.len() { u64::MAX } else { (i as u64 + 1) * w };
        self.last = (i as u64 * w, end_ns, i);
        i
    }

    pub fn width(&self) -> SimDuration {
        self.width
    }

    /// The end of the last slot.
    pub fn end(&self) -> SimTime {
        SimTime(self.width.as_ns() * self.slots.len() as u64)
    }

    /// Start time of slot `i`, seconds.
    pub fn start_s(&self, i: usize) -> f64 {
        (self.width.as_ns() as f64 * i as f64) / 1e9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_fall_into_their_slot_and_the_end_is_clamped() {
        let mut s: Slots<FlowSlot> = Slots::new(SimDuration::from_ms(100), SimDuration::from_secs(1));
        assert_eq!(s.slots.len(), 10);
        assert_eq!(s.index(SimTime(99_999_999)), 0);
        assert_eq!(s.index(SimTime(100_000_000)), 1);
        assert_eq!(s.index(SimTime(5_000_000_000)), 9);
        s.at(SimTime(150_000_000)).rx_bytes += 5;
        assert_eq!(s.slots[1].rx_bytes, 5);
    }
}
