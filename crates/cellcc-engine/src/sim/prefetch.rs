//! Software prefetch without `unsafe`: read one word of each item of a batch, the loads
//! independent of one another, so that their cache misses overlap (the processor keeps
//! several in flight) instead of each waiting in turn when the batch is then handled one item
//! at a time. `core::arch`'s prefetch instruction would say this directly but needs `unsafe`,
//! which the workspace denies.

/// Bytes per cache line on x86-64 and most ARM cores: a pass that loads one word per line of an
/// array steps by this many bytes.
pub const CACHE_LINE_BYTES: usize = 64;

/// Load every word `words` yields (each a field of an item about to be handled) and keep the
/// loads from being optimised away.
#[inline]
pub fn load_together(words: impl IntoIterator<Item = u64>) {
    std::hint::black_box(words.into_iter().fold(0u64, |seen, w| seen ^ w));
}
