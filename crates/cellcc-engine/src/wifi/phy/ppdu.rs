//! How long a PPDU is on the air, and how its A-MPDU is laid out in it.
//!
//! ```text
//!  VHT SU PPDU (§21.3.4, Eq. 21-105/21-106):
//!   | L-STF 8 | L-LTF 8 | L-SIG 4 | VHT-SIG-A 8 | VHT-STF 4 | N_LTF x VHT-LTF 4 | VHT-SIG-B 4 | data: N_SYM x T_SYM |
//!   N_SYM = ceil((8 APEP_LENGTH + N_service + N_tail N_ES) / N_DBPS)   (BCC, Eq. 21-107; N_service 16, N_tail 6)
//!   400 ns GI: data = T_SYML ceil(T_SYMS N_SYM / T_SYML)
//!  non-HT PPDU (control frames, §17.4.3 Eq. 17-29): 20 us + 4 us x ceil((16 + 8 LENGTH + 6) / N_DBPS)
//!  A-MPDU (§10.12, §9.7): per MPDU a 4-octet delimiter, the MPDU, padding to a multiple of 4
//!  octets (every subframe of a VHT A-MPDU, so APEP_LENGTH is the sum; a single MPDU is an S-MPDU)
//! ```

use super::vht::{LegacyRate, TxVector};

/// Forward error correction of the data field (§21.3.10.5: BCC mandatory, LDPC optional).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fec {
    Bcc,
    Ldpc,
}

/// SERVICE field bits before the PSDU (§21.3.10.2).
const SERVICE_BITS: u64 = 16;
/// Tail bits per BCC encoder (§21.3.10.5.3).
const TAIL_BITS_PER_ENCODER: u64 = 6;
/// L-STF + L-LTF (T_LEG_PREAMBLE) and L-SIG, ns (Table 21-5).
const LEGACY_PREAMBLE_NS: u64 = 16_000;
const L_SIG_NS: u64 = 4_000;
/// VHT-SIG-A (two symbols), VHT-STF, one VHT-LTF, VHT-SIG-B, ns (Table 21-5).
const VHT_SIG_A_NS: u64 = 8_000;
const VHT_STF_NS: u64 = 4_000;
const VHT_LTF_NS: u64 = 4_000;
const VHT_SIG_B_NS: u64 = 4_000;
/// T_SYML, the 800 ns GI symbol that 400 ns GI data are counted in (Eq. 21-106), ns.
const LONG_SYMBOL_NS: u64 = 4_000;
/// Non-HT preamble + SIGNAL (T_PREAMBLE 16 us + T_SIGNAL 4 us, §17.4.3) and its symbol, ns.
const NON_HT_HEADER_NS: u64 = 20_000;
const NON_HT_SYMBOL_NS: u64 = 4_000;
/// A-MPDU delimiter, octets (§9.7.1).
pub const MPDU_DELIMITER_BYTES: u32 = 4;

/// VHT-LTFs for `nss` streams without STBC (Table 21-13: 1, 2, 4, 4).
pub fn vht_ltfs(nss: u8) -> u64 {
    match nss {
        1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// Everything before the data symbols, ns. `sig_b`: whether the PPDU carries VHT-SIG-B (every
/// VHT PPDU does, §21.3.8.3.6; ns-3 3.44 counts it only in MU PPDUs).
pub fn vht_preamble_ns(nss: u8, sig_b: bool) -> u64 {
    LEGACY_PREAMBLE_NS
        + L_SIG_NS
        + VHT_SIG_A_NS
        + VHT_STF_NS
        + vht_ltfs(nss) * VHT_LTF_NS
        + if sig_b { VHT_SIG_B_NS } else { 0 }
}

/// Data symbols carrying `apep_bytes` (Eq. 21-107 for BCC; LDPC carries no tail bits, and its
/// possible extra symbol, §21.3.10.5.4, is not modelled).
pub fn vht_symbols(tx: &TxVector, apep_bytes: u32, fec: Fec) -> u64 {
    let tail = match fec {
        Fec::Bcc => TAIL_BITS_PER_ENCODER * u64::from(tx.n_es()),
        Fec::Ldpc => 0,
    };
    (8 * u64::from(apep_bytes) + SERVICE_BITS + tail).div_ceil(u64::from(tx.n_dbps()))
}

/// Duration of the data field of `n_sym` symbols, ns (Eq. 21-105 / 21-106).
pub fn vht_data_ns(tx: &TxVector, n_sym: u64) -> u64 {
    let t_sym = tx.gi.symbol_ns();
    if t_sym == LONG_SYMBOL_NS {
        n_sym * t_sym
    } else {
        LONG_SYMBOL_NS * (t_sym * n_sym).div_ceil(LONG_SYMBOL_NS)
    }
}

/// TXTIME of a VHT SU PPDU carrying an A-MPDU of `apep_bytes`, ns.
pub fn vht_ppdu_ns(tx: &TxVector, apep_bytes: u32, fec: Fec, sig_b: bool) -> u64 {
    vht_preamble_ns(tx.nss, sig_b) + vht_data_ns(tx, vht_symbols(tx, apep_bytes, fec))
}

/// TXTIME of a non-HT PPDU of `bytes` at `rate` (20 MHz, or a non-HT duplicate over a wider channel), ns.
pub fn non_ht_ppdu_ns(rate: LegacyRate, bytes: u32) -> u64 {
    let bits = SERVICE_BITS + 8 * u64::from(bytes) + TAIL_BITS_PER_ENCODER;
    NON_HT_HEADER_NS + NON_HT_SYMBOL_NS * bits.div_ceil(u64::from(rate.n_dbps()))
}

/// Octets an MPDU of `mpdu_bytes` takes in a VHT A-MPDU: delimiter + MPDU, padded to 4.
pub fn ampdu_subframe_bytes(mpdu_bytes: u32) -> u32 {
    (MPDU_DELIMITER_BYTES + mpdu_bytes).next_multiple_of(4)
}

#[cfg(test)]
mod tests {
    use super::super::vht::{GuardInterval, Width};
    use super::*;

    fn mcs7_20(gi: GuardInterval) -> TxVector {
        TxVector { mcs: 7, width: Width::Mhz20, nss: 1, gi }
    }

    #[test]
    fn control_frames_at_basic_rates_take_their_standard_durations() {
        // §17.4.3: Ack (14 octets) at 24 Mb/s: 16 + 112 + 6 = 134 bits -> 2 symbols -> 28 us;
        // at 6 Mb/s: 6 symbols -> 44 us (the EIFS's Ack time); BlockAck (32) at 24: 3 -> 32 us;
        // RTS (20) at 6 Mb/s: 182 bits -> 8 symbols -> 52 us.
        assert_eq!(non_ht_ppdu_ns(LegacyRate::Mbps24, 14), 28_000);
        assert_eq!(non_ht_ppdu_ns(LegacyRate::Mbps6, 14), 44_000);
        assert_eq!(non_ht_ppdu_ns(LegacyRate::Mbps24, 32), 32_000);
        assert_eq!(non_ht_ppdu_ns(LegacyRate::Mbps6, 20), 52_000);
    }

    #[test]
    fn vht_ppdu_durations_are_worked_from_eq_21_105() {
        // One 1538-octet MPDU (1500 B IP + 38 B MAC) as an S-MPDU: 1544 octets after delimiter and padding.
        let apep = ampdu_subframe_bytes(1538);
        assert_eq!(apep, 1544);
        // MCS 7, 20 MHz, 1 SS: N_DBPS 260; 8 x 1544 + 16 + 6 = 12374 bits -> 48 symbols (47.6).
        let t = mcs7_20(GuardInterval::Normal800);
        assert_eq!(vht_symbols(&t, apep, Fec::Bcc), 48);
        // Preamble 16 + 4 + 8 + 4 + 4 + 4 = 40 us; data 48 x 4 = 192 us.
        assert_eq!(vht_preamble_ns(1, true), 40_000);
        assert_eq!(vht_ppdu_ns(&t, apep, Fec::Bcc, true), 232_000);
        // 400 ns GI: 48 x 3.6 = 172.8 us, counted in 4 us symbols: 44 x 4 = 176 us.
        assert_eq!(vht_ppdu_ns(&mcs7_20(GuardInterval::Short400), apep, Fec::Bcc, true), 216_000);
        // ns-3 3.44 leaves VHT-SIG-B out of an SU PPDU: 4 us less.
        assert_eq!(vht_ppdu_ns(&t, apep, Fec::Bcc, false), 228_000);
        // Two streams: two VHT-LTFs; three or four: four (Table 21-13).
        assert_eq!(vht_preamble_ns(2, true), 44_000);
        assert_eq!(vht_preamble_ns(3, true), 52_000);
    }

    #[test]
    fn subframes_pad_to_four_octets() {
        assert_eq!(ampdu_subframe_bytes(1), 8);
        assert_eq!(ampdu_subframe_bytes(4), 8);
        assert_eq!(ampdu_subframe_bytes(5), 12);
        assert_eq!(ampdu_subframe_bytes(1038), 1044);
    }
}
