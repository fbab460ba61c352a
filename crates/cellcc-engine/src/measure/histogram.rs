//! A log-linear histogram of durations (the bucket layout of HdrHistogram,
//! Gil Tene, <http://hdrhistogram.org>): exact below 2^SUB_BITS ns, and above
//! that [`SUB_BUCKETS`] equal buckets per power of two, so a percentile read
//! from it is within 1 / (2 x SUB_BUCKETS) ≈ 0.1% of the true sample. Memory is
//! bounded whatever the run's length: one block of counters per octave used
//! (an RTT between 20 and 200 ms touches 4 octaves, 16 KiB).
//!
//! ```text
//!   v < 512 ns            bucket v                       (exact)
//!   2^e <= v < 2^(e+1)    octave e, sub-bucket (v >> (e - 9)) - 512, width 2^(e-9) ns
//! ```

/// log2 of the sub-buckets per octave.
const SUB_BITS: u32 = 9;
/// Sub-buckets per octave: bucket width / value <= 1/512.
pub const SUB_BUCKETS: u64 = 1 << SUB_BITS;
/// Octaves above the exact range: values up to 2^64 ns.
const OCTAVES: usize = (64 - SUB_BITS) as usize;

/// Counts of nanosecond values, with their exact count and sum.
#[derive(Clone, Debug, Default)]
pub struct DurationHistogram {
    /// Values below `SUB_BUCKETS`, one bucket per ns.
    exact: Vec<u64>,
    /// Octave `e` (values in `[2^(e+SUB_BITS), 2^(e+SUB_BITS+1))`), allocated on first use.
    octaves: Vec<Option<Box<[u64]>>>,
    count: u64,
    sum_ns: u128,
}

impl DurationHistogram {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.count += 1;
        self.sum_ns += u128::from(ns);
        if ns < SUB_BUCKETS {
            if self.exact.is_empty() {
                self.exact = vec![0; SUB_BUCKETS as usize];
            }
            self.exact[ns as usize] += 1;
            return;
        }
        let octave = (63 - ns.leading_zeros() - SUB_BITS) as usize;
        let sub = ((ns >> octave) - SUB_BUCKETS) as usize;
        if self.octaves.is_empty() {
            self.octaves = vec![None; OCTAVES];
        }
        self.octaves[octave].get_or_insert_with(|| vec![0; SUB_BUCKETS as usize].into_boxed_slice())[sub] += 1;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact mean, ns (None when empty).
    pub fn mean_ns(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_ns as f64 / self.count as f64)
    }

    /// Nearest-rank percentile `q` in [0, 1], ns: the midpoint of the bucket that holds
    /// the sample of rank ceil(q n) (exact below 512 ns). None when empty.
    pub fn percentile_ns(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (v, &n) in self.exact.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some(v as f64);
            }
        }
        for (octave, block) in self.octaves.iter().enumerate() {
            let Some(block) = block else { continue };
            for (sub, &n) in block.iter().enumerate() {
                seen += n;
                if seen >= rank {
                    let low = (SUB_BUCKETS + sub as u64) << octave;
                    let width = 1u64 << octave;
                    return Some(low as f64 + (width - 1) as f64 / 2.0);
                }
            }
        }
        unreachable!("the counts add up to `count`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact_and_nearest_rank_percentiles_follow_the_definition() {
        // Nearest rank: p50 of 1..=10 is the 5th value, p95 the 10th (as world/report.rs did exactly).
        let mut h = DurationHistogram::default();
        for v in (1..=10).rev() {
            h.record(v);
        }
        assert_eq!(h.percentile_ns(0.5), Some(5.0));
        assert_eq!(h.percentile_ns(0.95), Some(10.0));
        assert_eq!(h.mean_ns(), Some(5.5));
        assert_eq!(DurationHistogram::default().percentile_ns(0.5), None);
    }

    #[test]
    fn a_large_value_lands_in_a_bucket_within_one_part_in_a_thousand() {
        // 40 ms = 40e6 ns lies in octave 2^25 (33.5e6 ..), bucket width 2^(25-9) = 65536 ns:
        // low = 40_000_000 - (40_000_000 % 65536) = 39_976_960; midpoint + 32767.5.
        let mut h = DurationHistogram::default();
        h.record(40_000_000);
        let p = h.percentile_ns(0.5).unwrap();
        assert_eq!(p, 39_976_960.0 + 32_767.5);
        assert!((p - 40e6).abs() / 40e6 < 1.0 / SUB_BUCKETS as f64);
    }

    #[test]
    fn memory_is_one_block_per_octave_used() {
        let mut h = DurationHistogram::default();
        for k in 0..1_000_000u64 {
            h.record(20_000_000 + k * 100);
        }
        // 20 ms .. 120 ms: octaves 2^24 .. 2^26.
        assert_eq!(h.octaves.iter().filter(|b| b.is_some()).count(), 3);
        assert_eq!(h.count(), 1_000_000);
    }
}
