//! Code block segmentation of a transport block: TS 36.212 §5.1.1 (TB CRC) and §5.1.2.
//!
//! The TB of A bits gets a 24-bit CRC (B = A + 24); if B exceeds Z = 6144 bits it is split into
//! C code blocks that each carry another 24-bit CRC. The code block sizes K come from the turbo
//! interleaver sizes of TS 36.212 Table 5.1.3-3: two adjacent sizes K+ and K- (C+ and C- blocks of
//! each) so that the filler bits F = C+·K+ + C-·K- - B' are fewest.
//!
//! What differs from ns-3 LENA (`LteMiErrorModel::GetTbDecodificationStats`): ns-3 segments
//! B = A (it leaves out the TB CRC of §5.1.1); we follow the standard. The result differs only
//! for sizes near a K or segment boundary (e.g. A = 6144: ns-3 one block, the standard two).

/// Z: the largest code block, bits (TS 36.212 §5.1.2).
pub const MAX_CB_BITS: u32 = 6144;
/// L: the CRC attached to each code block when C > 1, bits (TS 36.212 §5.1.2, gCRC24B).
pub const CB_CRC_BITS: u32 = 24;
/// The CRC attached to the transport block before segmentation, bits (TS 36.212 §5.1.1, gCRC24A).
pub const TB_CRC_BITS: u32 = 24;
/// The smallest turbo interleaver size K, bits (TS 36.212 Table 5.1.3-3, i = 1).
pub const MIN_CB_BITS: u32 = 40;

/// How a transport block is cut into code blocks (TS 36.212 §5.1.2 notation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeBlocks {
    /// C+: blocks of K+ bits.
    pub c_plus: u32,
    /// K+, bits (CB CRC included).
    pub k_plus: u32,
    /// C-: blocks of K- bits (0 when C = 1).
    pub c_minus: u32,
    /// K-, bits (0 when C- = 0 and C = 1).
    pub k_minus: u32,
    /// F: filler bits at the start of the first block.
    pub filler_bits: u32,
}

impl CodeBlocks {
    /// C: the number of code blocks.
    pub fn count(&self) -> u32 {
        self.c_plus + self.c_minus
    }
}

/// Spacing of the turbo interleaver sizes K around `k` (TS 36.212 Table 5.1.3-3: steps of 8 up
/// to 512, 16 up to 1024, 32 up to 2048, 64 up to 6144).
fn k_step_below(k: u32) -> u32 {
    match k {
        0..=512 => 8,
        513..=1024 => 16,
        1025..=2048 => 32,
        _ => 64,
    }
}

/// The smallest turbo interleaver size K >= `bits` (TS 36.212 Table 5.1.3-3).
fn smallest_k_at_least(bits: u32) -> u32 {
    debug_assert!(bits <= MAX_CB_BITS);
    if bits <= MIN_CB_BITS {
        return MIN_CB_BITS;
    }
    // Round up to the step of the range that holds `bits`; a range's upper end is itself a K,
    // so rounding never leaves the range.
    let step = k_step_below(bits);
    bits.div_ceil(step) * step
}

/// Segment a transport block of `tbs_bits` (A) into code blocks (TS 36.212 §5.1.1-5.1.2).
pub fn segment_tb(tbs_bits: u32) -> CodeBlocks {
    let b = tbs_bits + TB_CRC_BITS;
    let (c, b_prime) = if b <= MAX_CB_BITS {
        (1, b)
    } else {
        let c = b.div_ceil(MAX_CB_BITS - CB_CRC_BITS);
        (c, b + c * CB_CRC_BITS)
    };
    // K+ = minimum K in Table 5.1.3-3 such that C·K >= B'.
    let k_plus = smallest_k_at_least(b_prime.div_ceil(c));
    let (c_plus, c_minus, k_minus) = if c == 1 {
        (1, 0, 0)
    } else {
        // K- = maximum K in the table below K+; C- = floor((C·K+ - B') / ΔK).
        let k_minus = k_plus - k_step_below(k_plus - 1);
        let c_minus = (c * k_plus - b_prime) / (k_plus - k_minus);
        (c - c_minus, c_minus, k_minus)
    };
    CodeBlocks { c_plus, k_plus, c_minus, k_minus, filler_bits: c_plus * k_plus + c_minus * k_minus - b_prime }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TS 36.212 Table 5.1.3-3, K column, built from its rows (188 sizes).
    fn table_5_1_3_3() -> Vec<u32> {
        let mut k: Vec<u32> = (0..60).map(|i| 40 + 8 * i).collect(); // i = 1..60: 40..512
        k.extend((1..=32).map(|i| 512 + 16 * i)); // 528..1024
        k.extend((1..=32).map(|i| 1024 + 32 * i)); // 1056..2048
        k.extend((1..=64).map(|i| 2048 + 64 * i)); // 2112..6144
        k
    }

    #[test]
    fn k_rounding_matches_table_5_1_3_3() {
        let table = table_5_1_3_3();
        assert_eq!(table.len(), 188);
        for bits in 1..=MAX_CB_BITS {
            let want = *table.iter().find(|&&k| k >= bits).unwrap();
            assert_eq!(smallest_k_at_least(bits), want, "{bits} bits");
        }
        for w in table.windows(2) {
            assert_eq!(w[1] - k_step_below(w[1] - 1), w[0]);
        }
    }

    #[test]
    fn peak_tb_75376_is_13_blocks_of_5824() {
        // A = 75376 (MCS 28, 100 PRBs). B = A + 24 = 75400 > Z = 6144, so L = 24 and
        // C = ceil(75400 / (6144 - 24)) = ceil(12.32) = 13; B' = 75400 + 13·24 = 75712.
        // B'/C = 5824 exactly and 5824 = 2048 + 59·64 is in Table 5.1.3-3, so K+ = 5824,
        // K- = 5760, C- = floor((13·5824 - 75712) / 64) = 0, C+ = 13, F = 0.
        let cbs = segment_tb(75_376);
        assert_eq!(cbs, CodeBlocks { c_plus: 13, k_plus: 5824, c_minus: 0, k_minus: 5760, filler_bits: 0 });
        assert_eq!(cbs.count(), 13);
    }

    #[test]
    fn ns3_test_vector_7272_bits_is_two_unequal_blocks() {
        // A = 7272 (lte-testing.rst PHY error model test 6). B = 7296, C = ceil(7296/6120) = 2,
        // B' = 7344, B'/C = 3672 -> K+ = 3712 (58·64), K- = 3648, ΔK = 64,
        // C- = floor((2·3712 - 7344)/64) = floor(80/64) = 1, C+ = 1, F = 3712 + 3648 - 7344 = 16.
        assert_eq!(
            segment_tb(7272),
            CodeBlocks { c_plus: 1, k_plus: 3712, c_minus: 1, k_minus: 3648, filler_bits: 16 }
        );
    }

    #[test]
    fn small_blocks_are_one_block_with_filler() {
        // A = 16 (I_TBS 0, 1 PRB): B = 40 = smallest K, no filler.
        assert_eq!(segment_tb(16), CodeBlocks { c_plus: 1, k_plus: 40, c_minus: 0, k_minus: 0, filler_bits: 0 });
        // A = 100: B = 124 -> K+ = 128 (step 8), F = 4.
        assert_eq!(segment_tb(100).k_plus, 128);
        assert_eq!(segment_tb(100).filler_bits, 4);
        // A = 1544 (I_TBS 9, 10 PRBs): B = 1568 = 49·32 is a K -> one block, F = 0.
        assert_eq!(segment_tb(1544).k_plus, 1568);
        assert_eq!(segment_tb(1544).filler_bits, 0);
    }

    #[test]
    fn the_segment_boundary_sits_at_b_equal_z() {
        // A = 6120: B = 6144 = Z -> one block of 6144.
        assert_eq!(segment_tb(6120).count(), 1);
        assert_eq!(segment_tb(6120).k_plus, 6144);
        // A = 6128: B = 6152 > Z -> C = 2, B' = 6200, B'/C = 3100 -> K+ = 3136, K- = 3072,
        // C- = floor((6272 - 6200)/64) = 1, C+ = 1, F = 3136 + 3072 - 6200 = 8.
        assert_eq!(segment_tb(6128), CodeBlocks { c_plus: 1, k_plus: 3136, c_minus: 1, k_minus: 3072, filler_bits: 8 });
    }

    #[test]
    fn segmentation_invariants_hold_for_every_size() {
        for a in (8..=75_376).step_by(8) {
            let cbs = segment_tb(a);
            let b = a + TB_CRC_BITS;
            let crc = if cbs.count() > 1 { cbs.count() * CB_CRC_BITS } else { 0 };
            let carried = cbs.c_plus * cbs.k_plus + cbs.c_minus * cbs.k_minus;
            assert_eq!(carried, b + crc + cbs.filler_bits, "A = {a}");
            assert!(cbs.k_plus <= MAX_CB_BITS && cbs.c_plus >= 1);
            // Fewer filler bits than one K step per block.
            assert!(cbs.filler_bits < k_step_below(cbs.k_plus).max(MIN_CB_BITS) * cbs.count());
        }
    }
}
