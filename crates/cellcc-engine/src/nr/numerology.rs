//! NR numerology: subcarrier spacing, slots and OFDM symbols in time (TS 38.211 §4.1, §4.2,
//! §4.3.2, §5.3.1), and the carrier bandwidths with their resource-block counts
//! (TS 38.101-1 Table 5.3.2-1 for FR1, TS 38.101-2 Table 5.3.2-1 for FR2).
//!
//! ```text
//!  mu  SCS      slots/subframe  slot      symbol (normal CP, 14 per slot)
//!  0   15 kHz   1               1 ms      71.875 us first of each half-subframe, 71.354 us others
//!  1   30 kHz   2               0.5 ms    36.198 / 35.677 us
//!  2   60 kHz   4               ~0.25 ms  18.359 / 17.839 us  (slots 0 and 2 of a subframe are 520 ns longer)
//!  3   120 kHz  8               ~0.125 ms  9.440 /  8.919 us  (slots 0 and 4 longer)
//! ```
//! Time is counted in the basic unit T_c = 1 / (480 kHz x 4096) (TS 38.211 §4.1); a symbol lasts
//! N_u + N_CP samples of T_c with N_u = 2048 kappa 2^-mu and N_CP = 144 kappa 2^-mu, plus 16 kappa for
//! the first symbol of each half-subframe (kappa = 64). A subframe is exactly 1 ms at every
//! numerology; within it the slot and symbol boundaries are floored to whole nanoseconds.

use serde::{Deserialize, Serialize};

/// Highest numerology modelled: 120 kHz (FR2); 240 kHz carries no data (TS 38.211 Table 4.2-1, SS/PBCH only).
pub const MAX_MU: u8 = 3;
/// OFDM symbols per slot with the normal cyclic prefix (TS 38.211 Table 4.3.2-1).
pub const SYMBOLS_PER_SLOT: u32 = 14;
/// Subcarriers per resource block (TS 38.211 §4.4.4.1).
pub const SUBCARRIERS_PER_PRB: u32 = 12;
/// Subcarrier spacing at mu = 0, Hz (TS 38.211 §4.2: delta f = 2^mu x 15 kHz).
pub const BASE_SCS_HZ: f64 = 15_000.0;
/// T_c per millisecond: delta f_max N_f = 480 kHz x 4096 = 1.96608e9 per second (TS 38.211 §4.1).
pub const TC_PER_MS: u64 = 1_966_080;
/// kappa = T_s / T_c = 64 (TS 38.211 §4.1).
const KAPPA: u64 = 64;
/// Nanoseconds per millisecond (a subframe, TS 38.211 §4.3.1).
const NS_PER_SUBFRAME: u64 = 1_000_000;

/// A numerology mu in 0..=3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Numerology(u8);

impl Numerology {
    pub fn new(mu: u8) -> Option<Numerology> {
        (mu <= MAX_MU).then_some(Numerology(mu))
    }

    pub fn mu(self) -> u8 {
        self.0
    }

    /// Subcarrier spacing, Hz.
    pub fn scs_hz(self) -> f64 {
        BASE_SCS_HZ * f64::from(1u32 << self.0)
    }

    /// One resource block's width, Hz.
    pub fn prb_hz(self) -> f64 {
        self.scs_hz() * f64::from(SUBCARRIERS_PER_PRB)
    }

    /// Slots per 1 ms subframe (TS 38.211 Table 4.3.2-1).
    pub fn slots_per_subframe(self) -> u64 {
        1 << self.0
    }

    /// Start of symbol `l` (0..=14, 14 = the slot's end) of slot `slot` (counted from t = 0), ns.
    pub fn symbol_start_ns(self, slot: u64, l: u32) -> u64 {
        debug_assert!(l <= SYMBOLS_PER_SLOT);
        let per = self.slots_per_subframe();
        let (subframe, in_sf) = (slot / per, slot % per);
        subframe * NS_PER_SUBFRAME + tc_to_ns(self.tc_into_subframe(in_sf as u32, l))
    }

    /// Start of slot `slot`, ns.
    pub fn slot_start_ns(self, slot: u64) -> u64 {
        self.symbol_start_ns(slot, 0)
    }

    /// The slot containing time `t_ns` (the last slot starting at or before it).
    pub fn slot_at(self, t_ns: u64) -> u64 {
        let per = self.slots_per_subframe();
        let subframe = t_ns / NS_PER_SUBFRAME;
        let mut s = subframe * per + per - 1;
        while self.slot_start_ns(s) > t_ns {
            s -= 1;
        }
        s
    }

    /// The nominal slot length, ns (a subframe's share; at mu >= 2 individual slots differ by
    /// 16 kappa T_c, see the module doc).
    pub fn nominal_slot_ns(self) -> u64 {
        NS_PER_SUBFRAME >> self.0
    }

    /// T_c from the start of the subframe to symbol `l` of slot `in_sf` (TS 38.211 §5.3.1).
    fn tc_into_subframe(self, in_sf: u32, l: u32) -> u64 {
        let before = in_sf * SYMBOLS_PER_SLOT + l;
        let (n_u, n_cp) = ((2048 * KAPPA) >> self.0, (144 * KAPPA) >> self.0);
        // Symbols whose index within the subframe is 0 or 7 x 2^mu carry 16 kappa more CP.
        let half = 7 << self.0;
        let long = u64::from(before.div_ceil(half));
        u64::from(before) * (n_u + n_cp) + long * 16 * KAPPA
    }

    /// Length of symbol `l` of slot `in_subframe`, in T_c (for tests and docs).
    pub fn symbol_tc(self, in_subframe: u32, l: u32) -> u64 {
        self.tc_into_subframe(in_subframe, l + 1) - self.tc_into_subframe(in_subframe, l)
    }
}

/// T_c to ns, floored (1 T_c = 0.5086 ns).
fn tc_to_ns(tc: u64) -> u64 {
    tc * NS_PER_SUBFRAME / TC_PER_MS
}

/// The frequency range a carrier lies in (TS 38.104 Table 5.1-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrequencyRange {
    /// 410 MHz - 7125 MHz.
    Fr1,
    /// 24250 MHz - 52600 MHz (FR2-1).
    Fr2,
}

/// FR1's and FR2-1's carrier ranges, GHz (TS 38.104 Table 5.1-1).
pub const FR1_GHZ: (f64, f64) = (0.41, 7.125);
pub const FR2_GHZ: (f64, f64) = (24.25, 52.6);

impl FrequencyRange {
    /// The range holding `carrier_ghz`, if any.
    pub fn of(carrier_ghz: f64) -> Option<FrequencyRange> {
        if (FR1_GHZ.0..=FR1_GHZ.1).contains(&carrier_ghz) {
            Some(FrequencyRange::Fr1)
        } else if (FR2_GHZ.0..=FR2_GHZ.1).contains(&carrier_ghz) {
            Some(FrequencyRange::Fr2)
        } else {
            None
        }
    }
}

/// TS 38.101-1 Table 5.3.2-1, maximum transmission bandwidth configuration N_RB, FR1:
/// (channel bandwidth MHz, N_RB at 15 / 30 / 60 kHz; 0 = not defined).
const FR1_N_RB: [(f64, [u32; 3]); 15] = [
    (5.0, [25, 11, 0]),
    (10.0, [52, 24, 11]),
    (15.0, [79, 38, 18]),
    (20.0, [106, 51, 24]),
    (25.0, [133, 65, 31]),
    (30.0, [160, 78, 38]),
    (35.0, [188, 92, 44]),
    (40.0, [216, 106, 51]),
    (45.0, [242, 119, 58]),
    (50.0, [270, 133, 65]),
    (60.0, [0, 162, 79]),
    (70.0, [0, 189, 93]),
    (80.0, [0, 217, 107]),
    (90.0, [0, 245, 121]),
    (100.0, [0, 273, 135]),
];

/// TS 38.101-2 Table 5.3.2-1, FR2: (channel bandwidth MHz, N_RB at 60 / 120 kHz; 0 = not defined).
const FR2_N_RB: [(f64, [u32; 2]); 4] = [(50.0, [66, 32]), (100.0, [132, 66]), (200.0, [264, 132]), (400.0, [0, 264])];

/// Resource blocks of a `mhz` carrier at numerology `mu` in `fr` (None where the tables define none).
pub fn n_rb(fr: FrequencyRange, mu: Numerology, mhz: f64) -> Option<u32> {
    let same = |m: f64| (m - mhz).abs() < 1e-9;
    let n = match (fr, mu.mu()) {
        (FrequencyRange::Fr1, m @ 0..=2) => FR1_N_RB.iter().find(|(b, _)| same(*b)).map(|(_, n)| n[usize::from(m)]),
        (FrequencyRange::Fr2, m @ 2..=3) => FR2_N_RB.iter().find(|(b, _)| same(*b)).map(|(_, n)| n[usize::from(m - 2)]),
        _ => None,
    };
    n.filter(|&n| n > 0)
}

/// The bandwidths, MHz, that `fr` defines at `mu` (for error messages).
pub fn bandwidths_mhz(fr: FrequencyRange, mu: Numerology) -> Vec<f64> {
    let all: Vec<f64> = match fr {
        FrequencyRange::Fr1 => FR1_N_RB.iter().map(|(b, _)| *b).collect(),
        FrequencyRange::Fr2 => FR2_N_RB.iter().map(|(b, _)| *b).collect(),
    };
    all.into_iter().filter(|&b| n_rb(fr, mu, b).is_some()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mu(m: u8) -> Numerology {
        Numerology::new(m).unwrap()
    }

    /// TS 38.211 §5.3.1 worked by hand: at mu = 0 the first symbol of each half-subframe is
    /// (2048 + 144 + 16) x 64 = 141312 T_c = 71.875 us, the others (2048 + 144) x 64 = 140288 T_c =
    /// 71.354 us; seven of them fill 0.5 ms = 983040 T_c. Each numerology halves the symbol but not
    /// the 16 kappa extension.
    #[test]
    fn symbol_lengths_follow_ts_38_211_5_3_1() {
        assert_eq!((mu(0).symbol_tc(0, 0), mu(0).symbol_tc(0, 1), mu(0).symbol_tc(0, 7)), (141_312, 140_288, 141_312));
        assert_eq!(tc_to_ns(141_312), 71_875);
        assert_eq!(tc_to_ns(140_288), 71_354);
        // mu = 1: 65536 + 4608 (+ 1024 on the first symbol of each slot).
        assert_eq!((mu(1).symbol_tc(0, 0), mu(1).symbol_tc(0, 5), mu(1).symbol_tc(1, 0)), (71_168, 70_144, 71_168));
        // mu = 2: the long symbol opens slots 0 and 2 only.
        assert_eq!((mu(2).symbol_tc(0, 0), mu(2).symbol_tc(1, 0), mu(2).symbol_tc(2, 0)), (36_096, 35_072, 36_096));
        // mu = 3: slots 0 and 4.
        assert_eq!((mu(3).symbol_tc(4, 0), mu(3).symbol_tc(3, 0)), (18_560, 17_536));
        for m in 0..=MAX_MU {
            let per = mu(m).slots_per_subframe() as u32;
            assert_eq!(mu(m).tc_into_subframe(per, 0), TC_PER_MS, "mu {m}: a subframe is 1 ms");
        }
    }

    /// Slots: 1 ms / 2^mu nominally; at mu = 2 slot 0 is 492032 T_c = 250260 ns and slot 1
    /// 491008 T_c (slot 1 ends at the half-subframe, 500000 ns); every subframe starts on a ms.
    #[test]
    fn slot_boundaries_per_numerology() {
        assert_eq!((mu(0).slot_start_ns(1), mu(0).slot_start_ns(7)), (1_000_000, 7_000_000));
        assert_eq!((mu(1).slot_start_ns(1), mu(1).slot_start_ns(3)), (500_000, 1_500_000));
        assert_eq!(
            (mu(2).slot_start_ns(1), mu(2).slot_start_ns(2), mu(2).slot_start_ns(3)),
            (250_260, 500_000, 750_260)
        );
        assert_eq!((mu(3).slot_start_ns(1), mu(3).slot_start_ns(8)), (125_390, 1_000_000));
        // Symbol 1 of slot 3 at mu = 1: 1.5 ms + 71168 T_c = 1_536_197 ns (floored).
        assert_eq!(mu(1).symbol_start_ns(3, 1), 1_500_000 + 36_197);
        assert_eq!(mu(1).symbol_start_ns(3, 14), 2_000_000, "symbol 14 is the next slot's start");
        for m in 0..=MAX_MU {
            let n = mu(m);
            for s in 0..40u64 {
                assert_eq!(n.slot_at(n.slot_start_ns(s)), s);
                assert_eq!(n.slot_at(n.slot_start_ns(s + 1) - 1), s);
            }
        }
        assert_eq!((mu(0).scs_hz(), mu(3).scs_hz(), mu(1).prb_hz()), (15e3, 120e3, 360e3));
    }

    /// TS 38.101-1/-2 Table 5.3.2-1 at their corners: 100 MHz at 30 kHz is 273 RBs, 50 MHz at
    /// 15 kHz 270, 400 MHz at 120 kHz 264; 60 kHz differs between FR1 (50 MHz: 65) and FR2 (66).
    #[test]
    fn resource_blocks_per_bandwidth() {
        use FrequencyRange::*;
        assert_eq!(n_rb(Fr1, mu(1), 100.0), Some(273));
        assert_eq!(n_rb(Fr1, mu(0), 50.0), Some(270));
        assert_eq!(n_rb(Fr1, mu(0), 5.0), Some(25));
        assert_eq!(n_rb(Fr1, mu(0), 100.0), None, "15 kHz stops at 50 MHz");
        assert_eq!(n_rb(Fr1, mu(2), 50.0), Some(65));
        assert_eq!(n_rb(Fr2, mu(2), 50.0), Some(66));
        assert_eq!(n_rb(Fr2, mu(3), 400.0), Some(264));
        assert_eq!(n_rb(Fr2, mu(2), 400.0), None);
        assert_eq!(n_rb(Fr1, mu(3), 100.0), None, "120 kHz is FR2 only");
        assert_eq!(bandwidths_mhz(Fr2, mu(3)), vec![50.0, 100.0, 200.0, 400.0]);
        assert_eq!(FrequencyRange::of(3.5), Some(Fr1));
        assert_eq!(FrequencyRange::of(28.0), Some(Fr2));
        assert_eq!(FrequencyRange::of(10.0), None);
    }
}
