//! Mahimahi trace-driven service (Netravali et al., "Mahimahi", USENIX ATC 2015;
//! mahimahi/src/packet/link_queue.cc).
//!
//! A trace lists, one per line, the millisecond at which one MTU-sized
//! delivery opportunity occurs; a repeated time means several. When the trace
//! ends it repeats, shifted by its last timestamp. Opportunity `k` of the
//! infinite schedule happens at `ms[k % n] + (k / n) * period_ms`.

use crate::sim::{SimTime, NS_PER_MS};
use std::io::Read;
use std::path::Path;

/// Largest trace file read, bytes (32 MiB: about 4 M opportunities of one 1500 B
/// packet at ~8 bytes a line, i.e. 100 Mbit/s for 8 minutes before the trace
/// loops). Parsed times take 4 bytes each, so a trace costs at most ~64 MiB of memory.
pub const MAX_TRACE_BYTES: u64 = 32 * 1024 * 1024;
/// Latest timestamp a trace may hold, ms: a day, the longest run a scenario may ask for
/// (`scenario/validate.rs` MAX_DURATION_S); it also keeps every time in range of `SimTime`.
pub const MAX_TRACE_MS: u32 = 86_400_000;

/// Why a trace file could not be used.
#[derive(Debug)]
pub enum TraceError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// The file is larger than [`MAX_TRACE_BYTES`].
    TooLarge { bytes: u64 },
    /// The text is not a Mahimahi trace (the message names the line).
    Format(String),
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceError::Io(e) => write!(f, "a readable Mahimahi trace file ({e})"),
            TraceError::TooLarge { bytes } => write!(
                f,
                "a Mahimahi trace file of at most {} MiB (this one has {:.1} MiB; a trace loops, so a shorter one will do)",
                MAX_TRACE_BYTES >> 20,
                *bytes as f64 / (1u64 << 20) as f64
            ),
            TraceError::Format(e) => write!(f, "a Mahimahi trace ({e})"),
        }
    }
}

/// The trace files of one run, each read once however many link directions use it.
#[derive(Default)]
pub struct TraceFiles {
    loaded: Vec<(String, TraceSchedule)>,
}

impl TraceFiles {
    /// The schedule in `path`, read on first use.
    pub fn get(&mut self, path: &str) -> Result<TraceSchedule, TraceError> {
        if let Some((_, schedule)) = self.loaded.iter().find(|(p, _)| p == path) {
            return Ok(schedule.clone());
        }
        let schedule = TraceSchedule::load(Path::new(path))?;
        self.loaded.push((path.to_string(), schedule.clone()));
        Ok(schedule)
    }
}

/// A parsed, looping delivery schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSchedule {
    /// Opportunity times within one period, ms, non-decreasing.
    ms: Vec<u32>,
    /// Loop period: the trace's last timestamp (Mahimahi); at least 1 ms.
    period_ms: u64,
}

impl TraceSchedule {
    /// Read and parse a trace file, refusing one larger than [`MAX_TRACE_BYTES`]
    /// (checked on the bytes read, so a file that grows while being read is caught too).
    pub fn load(path: &Path) -> Result<Self, TraceError> {
        let file = std::fs::File::open(path).map_err(TraceError::Io)?;
        let mut bytes = Vec::new();
        file.take(MAX_TRACE_BYTES + 1).read_to_end(&mut bytes).map_err(TraceError::Io)?;
        if bytes.len() as u64 > MAX_TRACE_BYTES {
            let size = std::fs::metadata(path).map_or(bytes.len() as u64, |m| m.len());
            return Err(TraceError::TooLarge { bytes: size });
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            TraceError::Format(format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
        })?;
        Self::parse(&text).map_err(TraceError::Format)
    }

    /// Parse Mahimahi's text format. Errors say which line is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut ms = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let t: u32 = line.parse().ok().filter(|&t| t <= MAX_TRACE_MS).ok_or_else(|| {
                format!("line {}: {line:?} is not a whole number of milliseconds in [0, {MAX_TRACE_MS}]", i + 1)
            })?;
            if ms.last().is_some_and(|&prev| t < prev) {
                return Err(format!("line {}: {t} ms is earlier than the line before; times must not decrease", i + 1));
            }
            ms.push(t);
        }
        let period_ms = *ms.last().ok_or_else(|| "the trace has no delivery opportunities".to_string())?;
        ms.shrink_to_fit();
        Ok(TraceSchedule { ms, period_ms: u64::from(period_ms).max(1) })
    }

    /// Time of opportunity `k`.
    pub fn time_of(&self, k: u64) -> SimTime {
        let n = self.ms.len() as u64;
        SimTime((u64::from(self.ms[(k % n) as usize]) + (k / n) * self.period_ms) * NS_PER_MS)
    }

    /// Index of the first opportunity at or after `t`.
    pub fn first_at_or_after(&self, t: SimTime) -> u64 {
        let n = self.ms.len() as u64;
        let t_ms = t.as_ns().div_ceil(NS_PER_MS);
        let lap = t_ms / self.period_ms;
        let within = t_ms - lap * self.period_ms;
        let mut k = lap * n + self.ms.partition_point(|&m| u64::from(m) < within) as u64;
        // The period equals the last timestamp, so a lap boundary also belongs
        // to the previous lap's last entries: settle on the earliest valid k.
        while k > 0 && self.time_of(k - 1) >= t {
            k -= 1;
        }
        while self.time_of(k) < t {
            k += 1;
        }
        k
    }

    /// Index of the first opportunity strictly after `t`. Mahimahi's `LinkQueue::read_packet`
    /// (link_queue.cc) runs `rationalize(now)`, which uses every opportunity at or before `now`,
    /// before it enqueues the packet: one arriving at an opportunity's millisecond misses it.
    /// Opportunities fall on whole milliseconds, so this equals link_queue.cc's rule on its
    /// millisecond clock (first opportunity after floor(now)) and cellcc-emu's on its ns clock.
    pub fn first_after(&self, t: SimTime) -> u64 {
        self.first_at_or_after(SimTime(t.as_ns() + 1))
    }

    /// Opportunities in one period.
    pub fn per_period(&self) -> u64 {
        self.ms.len() as u64
    }

    pub fn period_ms(&self) -> u64 {
        self.period_ms
    }

    /// Mean capacity of the trace for `mtu_bytes` packets, bit/s.
    pub fn mean_rate_bps(&self, mtu_bytes: u32) -> f64 {
        self.per_period() as f64 * mtu_bytes as f64 * 8.0 / (self.period_ms as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_lines_are_several_opportunities_and_the_trace_loops() {
        let t = TraceSchedule::parse("1\n1\n3\n").unwrap();
        assert_eq!(t.per_period(), 3);
        let times: Vec<u64> = (0..6).map(|k| t.time_of(k).as_ns() / NS_PER_MS).collect();
        assert_eq!(times, vec![1, 1, 3, 4, 4, 6]);
    }

    #[test]
    fn first_opportunity_at_or_after_a_time() {
        let t = TraceSchedule::parse("1\n1\n3\n").unwrap();
        assert_eq!(t.first_at_or_after(SimTime(0)), 0);
        assert_eq!(t.first_at_or_after(SimTime(NS_PER_MS + 1)), 2);
        assert_eq!(t.first_at_or_after(SimTime(3 * NS_PER_MS)), 2);
        assert_eq!(t.first_at_or_after(SimTime(3 * NS_PER_MS + 1)), 3);
        assert_eq!(t.first_at_or_after(SimTime(5 * NS_PER_MS)), 5);
    }

    #[test]
    fn an_arrival_at_an_opportunitys_millisecond_waits_for_the_next() {
        // Opportunities at 1, 1, 3, then 4, 4, 6 (second lap). At exactly 1 ms both of the 1-ms
        // ones are gone (rationalize(1) used them): the one at 3 ms, k = 2. At 1.5 ms also 2;
        // at 3 ms the 4-ms ones, k = 3; at 0 the first, k = 0.
        let t = TraceSchedule::parse("1\n1\n3\n").unwrap();
        assert_eq!(t.first_after(SimTime(NS_PER_MS)), 2);
        assert_eq!(t.first_after(SimTime(NS_PER_MS + NS_PER_MS / 2)), 2);
        assert_eq!(t.first_after(SimTime(3 * NS_PER_MS)), 3);
        assert_eq!(t.first_after(SimTime(0)), 0);
    }

    #[test]
    fn bad_lines_are_named() {
        assert!(TraceSchedule::parse("1\nx\n").unwrap_err().contains("line 2"));
        assert!(TraceSchedule::parse("5\n3\n").unwrap_err().contains("line 2"));
        assert!(TraceSchedule::parse("").is_err());
        assert!(TraceSchedule::parse("86400001\n").unwrap_err().contains("line 1"));
        assert!(TraceSchedule::parse("-1\n").unwrap_err().contains("line 1"));
    }

    #[test]
    fn a_file_over_the_size_limit_is_refused_with_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.trace");
        std::fs::write(&path, "1\n".repeat((MAX_TRACE_BYTES / 2 + 1) as usize)).unwrap();
        let err = TraceSchedule::load(&path).unwrap_err();
        assert!(matches!(err, TraceError::TooLarge { bytes } if bytes == MAX_TRACE_BYTES + 2), "{err}");
        assert!(err.to_string().contains("at most 32 MiB"), "{err}");
    }
}
