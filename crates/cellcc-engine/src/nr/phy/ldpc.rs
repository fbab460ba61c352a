//! LDPC base graph selection and code block segmentation of a transport block (TS 38.212 §7.2.2
//! for the DL-SCH, §6.2.2 for the UL-SCH: the same rule; §5.2.2 segmentation; Table 5.3.2-1
//! lifting sizes). The BLER model (`bler.rs`) picks its curves by base graph and code block size.
//!
//! ```text
//!  A = TBS; L_TB = 16 if A <= 3824 else 24 (TS 38.212 §7.2.1); B = A + L_TB
//!  BG2 if A <= 292, or A <= 3824 and R <= 0.67, or R <= 0.25; else BG1
//!  K_cb = 8448 (BG1), 3840 (BG2); B <= K_cb: C = 1, B' = B; else C = ceil(B / (K_cb - 24)), B' = B + 24 C
//!  K' = B' / C; K_b = 22 (BG1), 10 / 9 / 8 / 6 for B > 640 / > 560 / > 192 / else (BG2)
//!  Z_c = the smallest lifting size with K_b Z_c >= K'; K = 22 Z_c (BG1), 10 Z_c (BG2)
//! ```

/// LDPC base graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BaseGraph {
    Bg1,
    Bg2,
}

/// TB CRC of a small transport block, bits (TS 38.212 §7.2.1: A <= 3824).
pub const TB_CRC_SMALL_BITS: u32 = 16;
/// TB CRC otherwise, bits.
pub const TB_CRC_BITS: u32 = 24;
/// Code block CRC when the TB is segmented, bits (TS 38.212 §5.2.2).
pub const CB_CRC_BITS: u32 = 24;
/// Largest code block, bits: K_cb (TS 38.212 §5.2.2).
pub const KCB_BG1: u32 = 8448;
pub const KCB_BG2: u32 = 3840;

/// TS 38.212 Table 5.3.2-1: the lifting sizes Z of the eight sets, merged and sorted.
pub const LIFTING_SIZES: [u32; 51] = [
    2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 26, 28, 30, 32, 36, 40, 44, 48, 52, 56, 60, 64,
    72, 80, 88, 96, 104, 112, 120, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384,
];

/// TS 38.212 §7.2.2 (DL-SCH) / §6.2.2 (UL-SCH): the base graph of a TB of `tbs_bits` at code rate `rate`.
pub fn base_graph(tbs_bits: u32, rate: f64) -> BaseGraph {
    if tbs_bits <= 292 || (tbs_bits <= 3824 && rate <= 0.67) || rate <= 0.25 {
        BaseGraph::Bg2
    } else {
        BaseGraph::Bg1
    }
}

/// A transport block cut into code blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segmentation {
    pub base_graph: BaseGraph,
    /// C: code blocks.
    pub blocks: u32,
    /// K': bits per code block with its CRC (TS 38.212 §5.2.2).
    pub k_prime: u32,
    /// K: bits per code block after filler bits, K_b Z_c.
    pub k: u32,
}

/// TS 38.212 §7.2.1 and §5.2.2: segmentation of a TB of `tbs_bits` at code rate `rate`.
pub fn segment(tbs_bits: u32, rate: f64) -> Segmentation {
    let bg = base_graph(tbs_bits, rate);
    let b = tbs_bits + if tbs_bits > 3824 { TB_CRC_BITS } else { TB_CRC_SMALL_BITS };
    let k_cb = match bg {
        BaseGraph::Bg1 => KCB_BG1,
        BaseGraph::Bg2 => KCB_BG2,
    };
    let (c, b_prime) = if b <= k_cb {
        (1, b)
    } else {
        let c = b.div_ceil(k_cb - CB_CRC_BITS);
        (c, b + c * CB_CRC_BITS)
    };
    let k_prime = b_prime / c;
    let (k_b, n_cols) = match bg {
        BaseGraph::Bg1 => (22, 22),
        BaseGraph::Bg2 if b > 640 => (10, 10),
        BaseGraph::Bg2 if b > 560 => (9, 10),
        BaseGraph::Bg2 if b > 192 => (8, 10),
        BaseGraph::Bg2 => (6, 10),
    };
    let z = *LIFTING_SIZES.iter().find(|&&z| k_b * z >= k_prime).expect("K' <= K_cb fits the largest lifting size");
    Segmentation { base_graph: bg, blocks: c, k_prime, k: n_cols * z }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TS 38.212 §7.2.2's three conditions at their edges.
    #[test]
    fn base_graph_follows_ts_38_212_7_2_2() {
        assert_eq!(base_graph(292, 0.9), BaseGraph::Bg2, "A <= 292");
        assert_eq!(base_graph(293, 0.9), BaseGraph::Bg1);
        assert_eq!(base_graph(3824, 0.67), BaseGraph::Bg2, "A <= 3824 and R <= 0.67");
        assert_eq!(base_graph(3824, 0.68), BaseGraph::Bg1);
        assert_eq!(base_graph(3840, 0.67), BaseGraph::Bg1, "above 3824 only R <= 1/4 keeps BG2");
        assert_eq!(base_graph(100_000, 0.25), BaseGraph::Bg2);
        assert_eq!(base_graph(100_000, 0.26), BaseGraph::Bg1);
    }

    /// The code blocks the reference channels tabulate (TS 38.108 Table A.1-1: TB CRC, C and K';
    /// TS 38.176-1 Table A.3.1-1: C), and K worked from Table 5.3.2-1.
    #[test]
    fn segmentation_matches_the_reference_channels() {
        let r = 308.0 / 1024.0;
        // G-FR1-A1-1: A = 2152, CRC 16, BG2, C = 1, K' = 2168; K_b = 10, Z = 224 (>= 216.8), K = 2240.
        assert_eq!(segment(2152, r), Segmentation { base_graph: BaseGraph::Bg2, blocks: 1, k_prime: 2168, k: 2240 });
        // G-FR1-A1-4: A = 9224, CRC 24, BG1, C = 2, K' = (9248 + 48) / 2 = 4648; Z = 224, K = 4928.
        assert_eq!(segment(9224, r), Segmentation { base_graph: BaseGraph::Bg1, blocks: 2, k_prime: 4648, k: 4928 });
        // G-FR1-A1-5 (4352: C 1, K' 4376), -2 (984: K' 1000), -8 (528: K' 544).
        assert_eq!((segment(4352, r).blocks, segment(4352, r).k_prime), (1, 4376));
        assert_eq!((segment(984, r).k_prime, segment(528, r).k_prime), (1000, 544));
        // M-FR1-A.3.1-1/-2/-3: 26632 -> 4, 73776 -> 9, 98376 -> 12 code blocks (16QAM 490/1024).
        let r16 = 490.0 / 1024.0;
        assert_eq!([26632, 73776, 98376].map(|a| segment(a, r16).blocks), [4, 9, 12]);
        // A small BG2 block: A = 100 -> B = 116 <= 192: K_b = 6, Z = 20 (6 x 20 = 120 >= 116), K = 200.
        assert_eq!(segment(100, 0.5).k, 200);
    }
}
