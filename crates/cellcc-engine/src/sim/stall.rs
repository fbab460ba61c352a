//! Detecting a clock that stops advancing.
//!
//! A model bug or an input beyond what the validator knows can make events
//! schedule more events at (nearly) the same instant forever: the run would
//! never end and never say why. The guard counts the events dispatched within
//! one [`STALL_WINDOW`] of simulated time and fails the run when there are more
//! than [`MAX_EVENTS_PER_WINDOW`]. Its cost on the hot path is one comparison
//! and one increment per event.
//!
//! ```text
//!   events ─► t < window_end ? count += 1 (> MAX ─► Stalled) : window_end = t + WINDOW, count = 0
//! ```

use super::{SimDuration, SimTime};

/// Width of the window events are counted in: 1 µs of simulated time.
pub const STALL_WINDOW: SimDuration = SimDuration::from_us(1);
/// Most events a run may dispatch within one [`STALL_WINDOW`]. The busiest legitimate
/// instant we model is a start of thousands of flows at once (a start event plus an initial
/// window of 10 segments each, RFC 6928) or a 100 Gbit/s link (8 packets per µs): about
/// 10^5 events. Ten times that is a clock that has stopped, not a busy network.
pub const MAX_EVENTS_PER_WINDOW: u64 = 1_000_000;

/// The run dispatched more than [`MAX_EVENTS_PER_WINDOW`] events within one window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stalled {
    /// Simulated time at which the window opened.
    pub at: SimTime,
    /// Events dispatched in the window.
    pub events: u64,
}

/// Counts events per window of simulated time (see the module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct StallGuard {
    window_end: SimTime,
    events: u64,
}

impl StallGuard {
    /// Account for one event dispatched at `t` (non-decreasing).
    #[inline]
    pub fn observe(&mut self, t: SimTime) -> Result<(), Stalled> {
        if t < self.window_end {
            self.events += 1;
            if self.events > MAX_EVENTS_PER_WINDOW {
                return Err(Stalled {
                    at: SimTime(self.window_end.as_ns() - STALL_WINDOW.as_ns()),
                    events: self.events,
                });
            }
        } else {
            self.window_end = t + STALL_WINDOW;
            self.events = 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_at_one_instant_beyond_the_limit_are_a_stall_named_by_its_time() {
        let mut g = StallGuard::default();
        let t = SimTime(5_000);
        for _ in 0..MAX_EVENTS_PER_WINDOW {
            g.observe(t).unwrap();
        }
        assert_eq!(g.observe(t), Err(Stalled { at: t, events: MAX_EVENTS_PER_WINDOW + 1 }));
    }

    #[test]
    fn a_clock_that_advances_by_a_window_each_event_never_stalls() {
        let mut g = StallGuard::default();
        for k in 0..3 * MAX_EVENTS_PER_WINDOW {
            g.observe(SimTime(k * STALL_WINDOW.as_ns())).unwrap();
        }
    }

    #[test]
    fn the_count_restarts_in_each_window() {
        let mut g = StallGuard::default();
        for w in 0..3 {
            for _ in 0..MAX_EVENTS_PER_WINDOW {
                g.observe(SimTime(w * STALL_WINDOW.as_ns())).unwrap();
            }
        }
    }
}
