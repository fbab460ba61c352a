//! Simulated time in integer nanoseconds: no floating point on the clock, so
//! runs are bit-identical on every machine.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Nanoseconds per unit, named so conversions read as what they are.
pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// An instant on the simulation clock (ns since the run started).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub fn as_ns(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    pub fn from_secs_f64(s: f64) -> Self {
        SimTime((s * NS_PER_S as f64).round() as u64)
    }
    /// The earlier of two optional deadlines, `None` only if both are (written out: timers
    /// ask this after every event).
    pub fn earliest(a: Option<SimTime>, b: Option<SimTime>) -> Option<SimTime> {
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        }
    }

    /// Time elapsed since `earlier`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);

    pub const fn from_ns(ns: u64) -> Self {
        SimDuration(ns)
    }
    pub const fn from_us(us: u64) -> Self {
        SimDuration(us * NS_PER_US)
    }
    pub const fn from_ms(ms: u64) -> Self {
        SimDuration(ms * NS_PER_MS)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * NS_PER_S)
    }
    pub fn from_secs_f64(s: f64) -> Self {
        SimDuration((s * NS_PER_S as f64).round() as u64)
    }
    pub fn from_ms_f64(ms: f64) -> Self {
        SimDuration((ms * NS_PER_MS as f64).round() as u64)
    }
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    pub fn as_us(self) -> u64 {
        self.0 / NS_PER_US
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    pub fn as_ms_f64(self) -> f64 {
        self.0 as f64 / NS_PER_MS as f64
    }
    /// Time to serialise `bytes` at `rate_bps`, rounded up to the next ns so a
    /// link never exceeds its rate.
    pub fn transmission(bytes: u64, rate_bps: u64) -> Self {
        debug_assert!(rate_bps > 0);
        // Packet-sized inputs fit in 64 bits; 128-bit division is several times slower.
        match bytes.checked_mul(8 * NS_PER_S) {
            Some(bit_ns) => SimDuration(bit_ns.div_ceil(rate_bps)),
            None => SimDuration((bytes as u128 * 8 * NS_PER_S as u128).div_ceil(rate_bps as u128) as u64),
        }
    }
    pub fn mul_f64(self, k: f64) -> Self {
        SimDuration((self.0 as f64 * k).round() as u64)
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    fn sub(self, o: SimTime) -> SimDuration {
        debug_assert!(self >= o, "time went backwards: {self} - {o}");
        SimDuration(self.0 - o.0)
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(o.0))
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(o.0))
    }
}

impl fmt::Display for SimTime {
    /// `h:mm:ss.nnnnnnnnn`, so logs sort and read the same way.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0 / NS_PER_S;
        write!(f, "{}:{:02}:{:02}.{:09}", s / 3600, (s / 60) % 60, s % 60, self.0 % NS_PER_S)
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} ms", self.as_ms_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_of_two_optional_deadlines() {
        let (a, b) = (Some(SimTime(5)), Some(SimTime(3)));
        assert_eq!(SimTime::earliest(a, b), b);
        assert_eq!(SimTime::earliest(a, None), a);
        assert_eq!(SimTime::earliest(None, b), b);
        assert_eq!(SimTime::earliest(None, None), None);
    }

    #[test]
    fn transmission_time_of_1500_bytes_at_10_mbps_is_1_2_ms() {
        assert_eq!(SimDuration::transmission(1500, 10_000_000), SimDuration::from_us(1200));
    }

    #[test]
    fn transmission_time_of_huge_sizes_takes_the_wide_path() {
        // 10^12 bytes * 8e9 bit-ns overflows u64 (8e21): the 128-bit path gives 8 s at 1 Tbit/s.
        assert_eq!(SimDuration::transmission(1_000_000_000_000, 1_000_000_000_000), SimDuration::from_secs(8));
    }

    #[test]
    fn transmission_time_rounds_up() {
        // 1 byte at 3 bit/s = 2.666.. s -> rounded up, never early.
        assert_eq!(SimDuration::transmission(1, 3).0, 2_666_666_667);
    }

    #[test]
    fn display_is_h_mm_ss_ns() {
        assert_eq!(SimTime(3_723_000_000_001).to_string(), "1:02:03.000000001");
    }
}
