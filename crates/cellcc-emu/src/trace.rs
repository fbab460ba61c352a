//! Mahimahi trace files: one integer per line, the millisecond at which one MTU-sized delivery
//! opportunity occurs; a repeated time means several; the schedule repeats with period = the last
//! value (Mahimahi `link_queue.cc`: `base_timestamp_ += schedule_.back()` on wrap-around).

use std::fmt;

#[derive(Debug, PartialEq, Eq)]
pub struct TraceError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Opportunity times in ms, non-decreasing, with a last value > 0 so that the loop advances.
pub fn parse(text: &str) -> Result<Vec<u64>, TraceError> {
    let mut times = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let s = raw.trim();
        if s.is_empty() {
            continue;
        }
        let err = |message: String| TraceError { line: i + 1, message };
        let ms: u64 = s.parse().map_err(|_| err(format!("{s:?} is not a whole number of ms")))?;
        if let Some(&prev) = times.last() {
            if ms < prev {
                return Err(err(format!("{ms} comes after {prev}: times must not decrease")));
            }
        }
        times.push(ms);
    }
    match times.last() {
        None => Err(TraceError { line: 0, message: "no delivery opportunities".into() }),
        Some(0) => Err(TraceError {
            line: times.len(),
            message: "the last time is 0 ms: the trace would repeat without advancing".into(),
        }),
        Some(_) => Ok(times),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_repeated_times_as_several_opportunities() {
        assert_eq!(parse("0\n0\n1\n5\n").unwrap(), vec![0, 0, 1, 5]);
    }

    #[test]
    fn rejects_decreasing_times_naming_the_line() {
        let e = parse("1\n3\n2\n").unwrap_err();
        assert_eq!(e.line, 3);
    }

    #[test]
    fn rejects_traces_that_cannot_loop() {
        assert!(parse("").is_err());
        assert!(parse("0\n0\n").is_err());
        assert!(parse("x\n").is_err());
    }
}
