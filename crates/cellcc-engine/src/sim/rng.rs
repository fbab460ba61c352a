//! Per-component random streams.
//!
//! Each component (a link's loss model, a flow's start jitter, ...) draws from
//! its own ChaCha8 stream keyed by (scenario seed, component label). Adding a
//! flow therefore never shifts another component's randomness, and ChaCha's
//! output is specified bit for bit, so streams are identical on every platform.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded, independent random stream.
pub struct RngStream(ChaCha8Rng);

/// 64-bit FNV-1a: a fixed, documented hash (unlike `DefaultHasher`, which may
/// change between Rust releases) to turn a component label into a stream id.
fn fnv1a(bytes: &[u8]) -> u64 {
    const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(FNV_OFFSET, |h, &b| (h ^ b as u64).wrapping_mul(FNV_PRIME))
}

impl RngStream {
    /// The stream for `component` (e.g. `"link:access:fwd:loss"`) under `seed`.
    pub fn new(seed: u64, component: &str) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(fnv1a(component.as_bytes()));
        RngStream(rng)
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    pub fn inner(&mut self) -> &mut ChaCha8Rng {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_component_give_same_stream() {
        let a: Vec<f64> = (0..4)
            .map({
                let mut r = RngStream::new(7, "x");
                move |_| r.uniform()
            })
            .collect();
        let b: Vec<f64> = (0..4)
            .map({
                let mut r = RngStream::new(7, "x");
                move |_| r.uniform()
            })
            .collect();
        assert_eq!(a, b);
    }

    #[test]
    fn components_are_independent() {
        let mut a = RngStream::new(7, "link:a");
        let mut b = RngStream::new(7, "link:b");
        assert_ne!(a.uniform(), b.uniform());
    }
}
