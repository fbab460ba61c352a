//! VHT modulation and coding (IEEE 802.11-2020 §21.5, Tables 21-30 to 21-61): bits per OFDM
//! symbol and data rate of every VHT-MCS by channel width, guard interval and spatial streams,
//! the number of BCC encoders, and which combinations the standard leaves out.
//!
//! ```text
//!  N_CBPS = N_SD x N_BPSCS x N_SS        N_SD = 52 / 108 / 234 / 468 data subcarriers (20/40/80/160 MHz)
//!  N_DBPS = N_CBPS x R                  R = the MCS's code rate
//!  rate   = N_DBPS / T_SYM              T_SYM = 4 us (800 ns GI) or 3.6 us (400 ns GI)
//! ```
//! A combination exists only where N_DBPS, N_CBPS / N_ES and N_DBPS / N_ES are integers
//! (§21.5: the tables omit the others): for 1-4 streams that removes MCS 9 at 20 MHz with 1, 2
//! or 4 streams, MCS 6 at 80 MHz with 3, and MCS 9 at 160 MHz with 3 (ns-3 3.44's
//! `VhtPhy::IsCombinationAllowed` omits the last one).

/// Channel width, MHz.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Width {
    Mhz20,
    Mhz40,
    Mhz80,
    Mhz160,
}

impl Width {
    pub const ALL: [Width; 4] = [Width::Mhz20, Width::Mhz40, Width::Mhz80, Width::Mhz160];

    pub fn from_mhz(mhz: u32) -> Option<Width> {
        Width::ALL.into_iter().find(|w| w.mhz() == mhz)
    }

    pub fn mhz(self) -> u32 {
        match self {
            Width::Mhz20 => 20,
            Width::Mhz40 => 40,
            Width::Mhz80 => 80,
            Width::Mhz160 => 160,
        }
    }

    /// Data subcarriers N_SD (Table 21-6 / §21.3.7.7: 52, 108, 234, 468).
    pub fn data_subcarriers(self) -> u32 {
        match self {
            Width::Mhz20 => 52,
            Width::Mhz40 => 108,
            Width::Mhz80 => 234,
            Width::Mhz160 => 468,
        }
    }

    pub fn hz(self) -> f64 {
        f64::from(self.mhz()) * 1e6
    }
}

/// Guard interval of the data symbols (§21.3.7.1: 800 ns normal, 400 ns short).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GuardInterval {
    Normal800,
    Short400,
}

impl GuardInterval {
    /// Data symbol duration T_SYM, ns (Table 21-5: T_SYML 4 us, T_SYMS 3.6 us).
    pub fn symbol_ns(self) -> u64 {
        match self {
            GuardInterval::Normal800 => 4_000,
            GuardInterval::Short400 => 3_600,
        }
    }
}

/// Highest VHT-MCS index (Table 21-30 onwards: 0..=9).
pub const MAX_MCS: u8 = 9;
/// Most spatial streams this model carries (802.11ac allows 8; the scenario allows 1-4).
pub const MAX_NSS: u8 = 4;

/// (bits per subcarrier per stream N_BPSCS, code rate numerator, denominator) of VHT-MCS 0-9
/// (§21.5: BPSK 1/2, QPSK 1/2, QPSK 3/4, 16-QAM 1/2, 16-QAM 3/4, 64-QAM 2/3, 64-QAM 3/4,
/// 64-QAM 5/6, 256-QAM 3/4, 256-QAM 5/6).
const MCS_PARAMS: [(u32, u32, u32); 10] =
    [(1, 1, 2), (2, 1, 2), (2, 3, 4), (4, 1, 2), (4, 3, 4), (6, 2, 3), (6, 3, 4), (6, 5, 6), (8, 3, 4), (8, 5, 6)];

/// Highest data rate one BCC encoder carries, bit/s, by guard interval: N_ES rises past it
/// (read off Tables 21-30 to 21-61 as ns-3's `VhtPhy::GetNumberBccEncoders` does: 540 Mb/s at
/// 800 ns, 600 Mb/s at 400 ns).
const MAX_RATE_PER_ENCODER_BPS: [f64; 2] = [540e6, 600e6];

/// One PPDU's transmit parameters (the TXVECTOR fields that set its rate and length).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TxVector {
    pub mcs: u8,
    pub width: Width,
    pub nss: u8,
    pub gi: GuardInterval,
}

impl TxVector {
    fn modulation(&self) -> (u32, u32, u32) {
        MCS_PARAMS[usize::from(self.mcs)]
    }

    /// Coded bits per OFDM symbol, N_CBPS.
    pub fn n_cbps(&self) -> u32 {
        self.width.data_subcarriers() * self.modulation().0 * u32::from(self.nss)
    }

    /// Data bits per OFDM symbol, N_DBPS, if an integer (`None` for a combination the standard omits).
    fn n_dbps_exact(&self) -> Option<u32> {
        let (_, num, den) = self.modulation();
        let coded = self.n_cbps() * num;
        coded.is_multiple_of(den).then_some(coded / den)
    }

    /// Data bits per OFDM symbol, N_DBPS (rounded down for an omitted combination).
    pub fn n_dbps(&self) -> u32 {
        let (_, num, den) = self.modulation();
        self.n_cbps() * num / den
    }

    /// PHY data rate, bit/s: N_DBPS / T_SYM.
    pub fn data_rate_bps(&self) -> f64 {
        f64::from(self.n_dbps()) * 1e9 / self.gi.symbol_ns() as f64
    }

    /// BCC encoders N_ES (Tables 21-30 to 21-61; the one entry the per-encoder rule misses for
    /// up to 4 streams is 160 MHz, 4 streams, MCS 7: 6 encoders, Table 21-58).
    pub fn n_es(&self) -> u32 {
        if (self.width, self.nss, self.mcs) == (Width::Mhz160, 4, 7) {
            return 6;
        }
        let per = MAX_RATE_PER_ENCODER_BPS[usize::from(self.gi == GuardInterval::Short400)];
        (self.data_rate_bps() / per).ceil() as u32
    }

    /// Whether the standard defines this VHT-MCS for this width and stream count (§21.5).
    pub fn is_valid(&self) -> bool {
        if self.mcs > MAX_MCS || self.nss == 0 || self.nss > MAX_NSS {
            return false;
        }
        let n_es = self.n_es();
        self.n_dbps_exact().is_some_and(|d| d.is_multiple_of(n_es)) && self.n_cbps().is_multiple_of(n_es)
    }

    /// The non-HT reference rate of this MCS, bit/s (§10.6.6.5.2: the 20 MHz non-HT OFDM rate of
    /// the same modulation and code rate; 54 Mb/s for 64-QAM 5/6 and 256-QAM), the rate a control
    /// response is chosen against.
    pub fn non_ht_reference_bps(&self) -> f64 {
        NON_HT_REFERENCE_MBPS[usize::from(self.mcs)] * 1e6
    }
}

/// Non-HT reference rates of VHT-MCS 0-9, Mb/s (§10.6.6.5.2).
const NON_HT_REFERENCE_MBPS: [f64; 10] = [6.0, 12.0, 18.0, 24.0, 36.0, 48.0, 54.0, 54.0, 54.0, 54.0];

/// A non-HT OFDM rate of the 5 GHz band (§17.3.2.3, Table 17-4), used by control frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LegacyRate {
    Mbps6,
    Mbps9,
    Mbps12,
    Mbps18,
    Mbps24,
    Mbps36,
    Mbps48,
    Mbps54,
}

impl LegacyRate {
    pub const ALL: [LegacyRate; 8] = [
        LegacyRate::Mbps6,
        LegacyRate::Mbps9,
        LegacyRate::Mbps12,
        LegacyRate::Mbps18,
        LegacyRate::Mbps24,
        LegacyRate::Mbps36,
        LegacyRate::Mbps48,
        LegacyRate::Mbps54,
    ];

    /// Data bits per 4 us symbol at 20 MHz (Table 17-4: 24, 36, 48, 72, 96, 144, 192, 216).
    pub fn n_dbps(self) -> u32 {
        match self {
            LegacyRate::Mbps6 => 24,
            LegacyRate::Mbps9 => 36,
            LegacyRate::Mbps12 => 48,
            LegacyRate::Mbps18 => 72,
            LegacyRate::Mbps24 => 96,
            LegacyRate::Mbps36 => 144,
            LegacyRate::Mbps48 => 192,
            LegacyRate::Mbps54 => 216,
        }
    }

    pub fn bps(self) -> f64 {
        f64::from(self.n_dbps()) * 250_000.0
    }

    /// The error-table curve with this modulation and code rate (the tables' MCS 0-6 are
    /// BPSK 1/2 .. 64-QAM 3/4; 9 Mb/s, BPSK 3/4, has none and takes BPSK 1/2's, the more robust).
    pub fn error_curve_mcs(self) -> u8 {
        match self {
            LegacyRate::Mbps6 | LegacyRate::Mbps9 => 0,
            LegacyRate::Mbps12 => 1,
            LegacyRate::Mbps18 => 2,
            LegacyRate::Mbps24 => 3,
            LegacyRate::Mbps36 => 4,
            LegacyRate::Mbps48 => 5,
            LegacyRate::Mbps54 => 6,
        }
    }
}

/// The mandatory rates of the 5 GHz OFDM PHY, which APs advertise as the BSSBasicRateSet
/// (§17.3.2.3: 6, 12 and 24 Mb/s).
pub const BASIC_RATES: [LegacyRate; 3] = [LegacyRate::Mbps6, LegacyRate::Mbps12, LegacyRate::Mbps24];

/// The rate of a control response (Ack, BlockAck, CTS) to a frame sent at `tx`: the highest
/// basic rate not above the frame's non-HT reference rate (§10.6.6.5.2) or, as ns-3 3.44's
/// `GetControlAnswerMode` compares them, not above its actual data rate.
pub fn response_rate(tx: &TxVector, against_data_rate: bool) -> LegacyRate {
    let limit = if against_data_rate { tx.data_rate_bps() } else { tx.non_ht_reference_bps() };
    BASIC_RATES.into_iter().filter(|r| r.bps() <= limit).max().unwrap_or(LegacyRate::Mbps6)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tx(mcs: u8, mhz: u32, nss: u8, gi: GuardInterval) -> TxVector {
        TxVector { mcs, width: Width::from_mhz(mhz).unwrap(), nss, gi }
    }

    #[test]
    fn data_rates_match_the_vht_mcs_tables() {
        use GuardInterval::*;
        // Table 21-30 (20 MHz, 1 SS): MCS 0 6.5 / 7.2, MCS 7 65 / 72.2, MCS 8 78 / 86.7 Mb/s.
        let mbps = |t: TxVector| t.data_rate_bps() / 1e6;
        assert_eq!(mbps(tx(0, 20, 1, Normal800)), 6.5);
        assert!((mbps(tx(0, 20, 1, Short400)) - 7.2222).abs() < 1e-3);
        assert_eq!(mbps(tx(7, 20, 1, Normal800)), 65.0);
        assert!((mbps(tx(7, 20, 1, Short400)) - 72.2222).abs() < 1e-3);
        assert_eq!(mbps(tx(8, 20, 1, Normal800)), 78.0);
        // Table 21-34 (40 MHz, 1 SS): MCS 9 180 / 200 Mb/s.
        assert_eq!(mbps(tx(9, 40, 1, Normal800)), 180.0);
        assert_eq!(mbps(tx(9, 40, 1, Short400)), 200.0);
        // Table 21-38 (80 MHz, 1 SS): MCS 9 390 / 433.3; Table 21-39 (2 SS): 780 / 866.7.
        assert_eq!(mbps(tx(9, 80, 1, Normal800)), 390.0);
        assert!((mbps(tx(9, 80, 2, Short400)) - 866.6667).abs() < 1e-3);
        // Table 21-49 (160 MHz, 4 SS): MCS 9 3120 / 3466.7.
        assert_eq!(mbps(tx(9, 160, 4, Normal800)), 3120.0);
        // Table 21-32 (20 MHz, 3 SS): MCS 9 exists, 260 / 288.9.
        assert_eq!(mbps(tx(9, 20, 3, Normal800)), 260.0);
    }

    #[test]
    fn exactly_the_combinations_the_standard_omits_are_invalid() {
        let mut invalid = Vec::new();
        for w in Width::ALL {
            for nss in 1..=MAX_NSS {
                for mcs in 0..=MAX_MCS {
                    let t = TxVector { mcs, width: w, nss, gi: GuardInterval::Normal800 };
                    let short = TxVector { gi: GuardInterval::Short400, ..t };
                    assert_eq!(t.is_valid(), short.is_valid(), "{t:?}: validity must not depend on the GI");
                    if !t.is_valid() {
                        invalid.push((w.mhz(), nss, mcs));
                    }
                }
            }
        }
        assert_eq!(invalid, vec![(20, 1, 9), (20, 2, 9), (20, 4, 9), (80, 3, 6), (160, 3, 9)]);
    }

    #[test]
    fn bcc_encoders_follow_the_tables() {
        use GuardInterval::*;
        // Table 21-39 (80 MHz, 2 SS, MCS 9, 780 Mb/s): N_ES 2; Table 21-38 (80 MHz 1 SS): 1.
        assert_eq!(tx(9, 80, 2, Normal800).n_es(), 2);
        assert_eq!(tx(9, 80, 1, Normal800).n_es(), 1);
        // Table 21-58 (160 MHz, 4 SS, MCS 7: 2340 Mb/s): 6, not 5.
        assert_eq!(tx(7, 160, 4, Normal800).n_es(), 6);
        assert_eq!(tx(7, 20, 1, Short400).n_es(), 1);
    }

    #[test]
    fn control_responses_take_the_highest_basic_rate_below_the_reference() {
        use GuardInterval::*;
        // MCS 7 (reference 54) -> 24; MCS 2 (18) -> 12; MCS 0 (6) -> 6.
        assert_eq!(response_rate(&tx(7, 20, 1, Normal800), false), LegacyRate::Mbps24);
        assert_eq!(response_rate(&tx(2, 20, 1, Normal800), false), LegacyRate::Mbps12);
        assert_eq!(response_rate(&tx(0, 40, 1, Normal800), false), LegacyRate::Mbps6);
        // ns-3 compares the data rate: MCS 0 at 40 MHz is 13.5 Mb/s, so 12.
        assert_eq!(response_rate(&tx(0, 40, 1, Normal800), true), LegacyRate::Mbps12);
    }
}
