//! Transport block size determination (TS 38.214 §5.1.3.2 for the PDSCH; §6.1.4.2 applies the
//! same steps to the PUSCH), from the resource elements of the allocation.
//!
//! ```text
//!  N'_RE = 12 N_symb - N_DMRS - N_oh            per PRB (N_DMRS counts the DM-RS CDM groups without data)
//!  N_RE  = min(156, N'_RE) n_PRB
//!  N_info = N_RE R Q_m v
//!  N_info <= 3824: n = max(3, floor(log2 N_info) - 6), N'_info = max(24, 2^n floor(N_info / 2^n)),
//!                  TBS = the smallest entry of Table 5.1.3.2-1 >= N'_info
//!  N_info  > 3824: n = floor(log2(N_info - 24)) - 5, N'_info = max(3840, 2^n round((N_info - 24) / 2^n)),
//!                  C = ceil((N'_info + 24) / 3816) if R <= 1/4, ceil((N'_info + 24) / 8424) if N'_info > 8424, else 1,
//!                  TBS = 8 C ceil((N'_info + 24) / (8 C)) - 24
//! ```

use super::mcs::McsEntry;
use crate::nr::numerology::SUBCARRIERS_PER_PRB;

/// TS 38.214 Table 5.1.3.2-1: TBS for N_info <= 3824.
pub const TBS_TABLE: [u32; 93] = [
    24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 208, 224, 240,
    256, 272, 288, 304, 320, 336, 352, 368, 384, 408, 432, 456, 480, 504, 528, 552, 576, 608, 640, 672, 704, 736, 768,
    808, 848, 888, 928, 984, 1032, 1064, 1128, 1160, 1192, 1224, 1256, 1288, 1320, 1352, 1416, 1480, 1544, 1608, 1672,
    1736, 1800, 1864, 1928, 2024, 2088, 2152, 2216, 2280, 2408, 2472, 2536, 2600, 2664, 2728, 2792, 2856, 2976, 3104,
    3240, 3368, 3496, 3624, 3752, 3824,
];

/// The cap on REs per PRB in the TBS (TS 38.214 §5.1.3.2 step 1: min(156, N'_RE)).
pub const MAX_RE_PER_PRB: u32 = 156;
/// The boundary between the table (step 3) and the formula (step 4), bits.
pub const TABLE_LIMIT_BITS: f64 = 3824.0;

/// The allocation a TBS is computed for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Allocation {
    pub n_prb: u32,
    /// N_symb^sh: symbols of the PDSCH/PUSCH.
    pub symbols: u32,
    /// N_DMRS^PRB: DM-RS REs per PRB over those symbols, with the CDM groups without data.
    pub dmrs_re_per_prb: u32,
    /// N_oh^PRB: `xOverhead` (0, 6, 12 or 18; TS 38.331 `PDSCH-ServingCellConfig`).
    pub overhead_re_per_prb: u32,
    /// v: layers.
    pub layers: u32,
}

impl Allocation {
    /// N_RE of step 1.
    pub fn n_re(&self) -> u32 {
        let per_prb =
            (SUBCARRIERS_PER_PRB * self.symbols).saturating_sub(self.dmrs_re_per_prb + self.overhead_re_per_prb);
        per_prb.min(MAX_RE_PER_PRB) * self.n_prb
    }
}

/// The TBS, bits, of `mcs` on `a` (0 when the allocation has no data RE).
pub fn tbs_bits(mcs: McsEntry, a: &Allocation) -> u32 {
    let n_info = f64::from(a.n_re()) * mcs.rate() * f64::from(mcs.qm) * f64::from(a.layers);
    tbs_from_n_info(n_info, mcs.rate())
}

/// Steps 3 and 4 from N_info and the target code rate R.
pub fn tbs_from_n_info(n_info: f64, rate: f64) -> u32 {
    if n_info <= 0.0 {
        return 0;
    }
    if n_info <= TABLE_LIMIT_BITS {
        let n = (n_info.log2().floor() as i32 - 6).max(3);
        let step = f64::from(1u32 << n);
        let n_info_q = ((n_info / step).floor() * step).max(24.0) as u32;
        return *TBS_TABLE.iter().find(|&&t| t >= n_info_q).expect("N'_info <= 3824 is in the table");
    }
    let n = (n_info - 24.0).log2().floor() as i32 - 5;
    let step = f64::from(1u32 << n);
    let n_info_q = (((n_info - 24.0) / step).round() * step).max(3840.0) as u32;
    let c = if rate <= 0.25 {
        (n_info_q + 24).div_ceil(3816)
    } else if n_info_q > 8424 {
        (n_info_q + 24).div_ceil(8424)
    } else {
        1
    };
    8 * c * (n_info_q + 24).div_ceil(8 * c) - 24
}

#[cfg(test)]
mod tests {
    use super::super::mcs::McsTable;
    use super::*;

    fn alloc(n_prb: u32, symbols: u32, dmrs: u32, oh: u32, layers: u32) -> Allocation {
        Allocation { n_prb, symbols, dmrs_re_per_prb: dmrs, overhead_re_per_prb: oh, layers }
    }

    /// The standard's own worked values: the fixed reference channels of TS 38.108 Table A.1-1
    /// (= TS 38.104 Table A.1-1; PUSCH, 14 symbols, DM-RS l0 = 2 and l = 11 with both CDM groups
    /// empty: 24 REs; MCS 4 of table 1, QPSK 308/1024) and TS 38.176-1 Tables A.3.1-1, A.3.1-2 (FR2)
    /// and A.3.2-1 (PDSCH, 1-4 layers, 16QAM 490/1024 and 64QAM 517/1024).
    #[test]
    fn tbs_matches_the_reference_channels_of_ts_38_108_and_38_176() {
        let t1 = McsTable::Qam64;
        // (PRBs, payload bits): G-FR1-A1-1..9.
        for (n_prb, payload) in [(25, 2152), (11, 984), (106, 9224), (51, 4352), (24, 2088), (15, 1320), (6, 528)] {
            assert_eq!(tbs_bits(t1.entry(4), &alloc(n_prb, 14, 24, 0, 1)), payload, "{n_prb} PRBs");
        }
        // M-FR1-A.3.1-1..5: 106 PRBs, 12 symbols, MCS 13; DM-RS REs 12 or 24; 1, 3, 4, 1, 2 layers.
        for (dmrs, layers, payload) in [(12, 1, 26632), (24, 3, 73776), (24, 4, 98376), (24, 1, 24576), (24, 2, 49176)]
        {
            assert_eq!(tbs_bits(t1.entry(13), &alloc(106, 12, dmrs, 0, layers)), payload, "{layers} layers");
        }
        // M-FR2-A.3.1-1..3: 66 PRBs, 13 symbols, DM-RS 12, xOverhead 6, 1 and 2 layers.
        assert_eq!(tbs_bits(t1.entry(13), &alloc(66, 13, 12, 6, 1)), 17424);
        assert_eq!(tbs_bits(t1.entry(13), &alloc(66, 13, 12, 6, 2)), 34816);
        // M-FR1-A.3.2-1: MCS 19 (64QAM 517/1024), 2 layers.
        assert_eq!(tbs_bits(t1.entry(19), &alloc(106, 12, 12, 0, 2)), 83976);
    }

    /// The steps worked by hand. 25 PRBs, 14 symbols, 24 DM-RS REs: N_RE = 144 x 25 = 3600, N_info =
    /// 3600 x 308/1024 x 2 = 2165.6; n = max(3, 11 - 6) = 5; N'_info = 32 floor(67.67) = 2144; the
    /// smallest table entry >= 2144 is 2152. 273 PRBs of table 2's MCS 27 (256QAM 948/1024) on 12
    /// symbols with 18 DM-RS REs: N_RE = 126 x 273 = 34398, N_info = 254760.2; n = 17 - 5 = 12;
    /// N'_info = 4096 round(62.19) = 253952; C = ceil(253976 / 8424) = 31; TBS = 248 x
    /// ceil(253976 / 248) - 24 = 248 x 1025 - 24 = 254176.
    #[test]
    fn tbs_steps_worked_by_hand() {
        let a = alloc(25, 14, 24, 0, 1);
        assert_eq!(a.n_re(), 3600);
        assert_eq!(tbs_from_n_info(2165.6, 308.0 / 1024.0), 2152);
        let big = alloc(273, 12, 18, 0, 1);
        assert_eq!(big.n_re(), 34398);
        assert_eq!(tbs_bits(McsTable::Qam256.entry(27), &big), 254_176);
        // N'_RE capped at 156: 14 symbols without DM-RS would be 168 per PRB.
        assert_eq!(alloc(1, 14, 0, 0, 1).n_re(), 156);
        // R <= 1/4 segments into 3816-bit blocks: N_info = 10000 at R = 0.2 -> n = 8, N'_info =
        // 256 round(38.97) = 9984, C = ceil(10008 / 3816) = 3, TBS = 24 ceil(10008 / 24) - 24 = 9984.
        assert_eq!(tbs_from_n_info(10_000.0, 0.2), 9984);
        assert_eq!(tbs_from_n_info(0.0, 0.5), 0);
        assert_eq!(tbs_from_n_info(10.0, 0.5), 24, "the smallest TBS");
    }

    /// An independent computation in integers: N_info in exact rationals (R x 1024 is a
    /// multiple of 0.5, so 2048 N_info is an integer), the table step by a bit scan, the formula
    /// step by integer rounding; agrees with `tbs_bits` on every table, MCS, 1-275 PRBs and 2-14
    /// symbols.
    #[test]
    fn tbs_agrees_with_an_integer_recomputation() {
        fn exact(mcs: McsEntry, a: &Allocation) -> u32 {
            let x2048 = u64::from(a.n_re()) * (mcs.rate_x1024 * 2.0) as u64 * u64::from(mcs.qm) * u64::from(a.layers);
            if x2048 == 0 {
                return 0;
            }
            if x2048 <= 3824 * 2048 {
                let log2 = 63 - (x2048 / 2048).max(1).leading_zeros() as i32;
                let n = (log2 - 6).max(3) as u32;
                let q = ((x2048 / 2048) >> n << n).max(24) as u32;
                return *TBS_TABLE.iter().find(|&&t| t >= q).unwrap();
            }
            let m = x2048 - 24 * 2048;
            let n = (63 - (m / 2048).leading_zeros() as i32 - 5) as u32;
            let unit = 2048u64 << n;
            let q = (((m + unit / 2) / unit) << n).max(3840) as u32;
            let c = if mcs.rate_x1024 <= 256.0 {
                (q + 24).div_ceil(3816)
            } else if q > 8424 {
                (q + 24).div_ceil(8424)
            } else {
                1
            };
            8 * c * (q + 24).div_ceil(8 * c) - 24
        }
        for t in [McsTable::Qam64, McsTable::Qam256, McsTable::Qam64LowSe] {
            for m in 0..=t.max_mcs() {
                for n_prb in [1, 2, 3, 7, 24, 51, 106, 133, 162, 217, 273, 275] {
                    for symbols in [2, 4, 7, 10, 12, 13, 14] {
                        let a = alloc(n_prb, symbols, 6 * symbols.min(3), 0, 1);
                        assert_eq!(
                            tbs_bits(t.entry(m), &a),
                            exact(t.entry(m), &a),
                            "{t:?} MCS {m} {n_prb} PRBs {symbols} sym"
                        );
                    }
                }
            }
        }
    }
}
