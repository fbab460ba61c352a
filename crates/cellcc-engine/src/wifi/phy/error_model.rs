//! Frame error rate from SNR: the table-based model of ns-3 3.44 (`TableBasedErrorRateModel`,
//! its data in `tables/`, provenance in each file's header) read afresh.
//!
//! ```text
//!  PER_table(mcs, snr): the tabulated AWGN PER of a 32- or 1458-octet PSDU (BCC: 32 below 400
//!                       octets, 1458 from 400 on; LDPC: 1458), at the SNR rounded to 0.01 dB,
//!                       linear between tabulated points, 1 below the first and 0 above the last
//!  PER(size) = 1 - (1 - PER_table)^(size / table size)     (IEEE 802.11 TGax 11-14/0803r1)
//!  PER < 1e-5 counts as 0 (ns-3's precision)
//! ```
//! A frame seen at several SINRs (interference starting or ending during it) succeeds with
//! the product of each chunk's success probability, the chunk's size being its share of the
//! frame's bits (ns-3 `InterferenceHelper`).

use super::ppdu::Fec;
use std::sync::OnceLock;

/// Reference PSDU sizes of the tables, octets, and where BCC switches from the small to the
/// large table (ns-3 `ERROR_TABLE_BCC_SMALL_FRAME_SIZE`, `..._LARGE_FRAME_SIZE`, `SizeThreshold`).
const SMALL_TABLE_BYTES: f64 = 32.0;
const LARGE_TABLE_BYTES: f64 = 1458.0;
const LARGE_TABLE_FROM_BYTES: f64 = 400.0;
/// SNRs are looked up rounded to 10^-2 dB (ns-3 `SNR_PRECISION`).
const SNR_STEPS_PER_DB: f64 = 100.0;
/// A PER below this is 0 (ns-3 `TABLED_BASED_ERROR_MODEL_PRECISION`).
const PER_FLOOR: f64 = 1e-5;

static BCC_32: &str = include_str!("../tables/awgn_per_bcc_32b.csv");
static BCC_1458: &str = include_str!("../tables/awgn_per_bcc_1458b.csv");
static LDPC_1458: &str = include_str!("../tables/awgn_per_ldpc_1458b.csv");

/// One table: per MCS, (SNR dB, PER) in increasing SNR.
struct Table {
    curves: Vec<Vec<(f64, f64)>>,
}

impl Table {
    fn parse(text: &str) -> Table {
        let mut curves: Vec<Vec<(f64, f64)>> = Vec::new();
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.starts_with("mcs")) {
            let mut f = line.split(',');
            let mut next = || f.next().and_then(|v| v.trim().parse::<f64>().ok()).expect("a well-formed table row");
            let (mcs, snr, per) = (next() as usize, next(), next());
            if curves.len() <= mcs {
                curves.resize(mcs + 1, Vec::new());
            }
            curves[mcs].push((snr, per));
        }
        Table { curves }
    }

    /// The tabulated PER of `mcs` at `snr_db` (rounded as ns-3 does), interpolated.
    fn per(&self, mcs: usize, snr_db: f64) -> f64 {
        let curve = &self.curves[mcs.min(self.curves.len() - 1)];
        let snr = (snr_db * SNR_STEPS_PER_DB + 0.5).floor() / SNR_STEPS_PER_DB;
        let (first, last) = (curve[0], curve[curve.len() - 1]);
        if snr < first.0 {
            return 1.0;
        }
        if snr > last.0 {
            return 0.0;
        }
        let i = curve.partition_point(|&(s, _)| s < snr);
        let (s1, p1) = curve[i];
        if s1 == snr || i == 0 {
            return p1;
        }
        let (s0, p0) = curve[i - 1];
        p0 + (snr - s0) * (p1 - p0) / (s1 - s0)
    }

    /// The SNR above which the curve of `mcs` reads 0.
    fn clear_above_db(&self, mcs: usize) -> f64 {
        self.curves[mcs.min(self.curves.len() - 1)].last().expect("non-empty curve").0
    }
}

struct Tables {
    bcc_32: Table,
    bcc_1458: Table,
    ldpc_1458: Table,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables {
        bcc_32: Table::parse(BCC_32),
        bcc_1458: Table::parse(BCC_1458),
        ldpc_1458: Table::parse(LDPC_1458),
    })
}

/// The table and its reference size for a frame of `bytes` coded with `fec`.
fn table_for(fec: Fec, bytes: f64) -> (&'static Table, f64) {
    let t = tables();
    match fec {
        Fec::Ldpc => (&t.ldpc_1458, LARGE_TABLE_BYTES),
        Fec::Bcc if bytes < LARGE_TABLE_FROM_BYTES => (&t.bcc_32, SMALL_TABLE_BYTES),
        Fec::Bcc => (&t.bcc_1458, LARGE_TABLE_BYTES),
    }
}

/// Packet error rate of a frame of `bytes` (at least 1) sent with the error curve `mcs` at
/// `snr_db` (AWGN). `frame_bytes` chooses the table (the whole frame's size, as ns-3 passes
/// each chunk's own size: see [`chunk_success`]).
pub fn per(mcs: u8, fec: Fec, snr_db: f64, bytes: f64) -> f64 {
    let bytes = bytes.max(1.0);
    let (table, ref_bytes) = table_for(fec, bytes);
    let p = table.per(usize::from(mcs), snr_db);
    let p = if bytes == ref_bytes || p == 0.0 || p == 1.0 { p } else { 1.0 - (1.0 - p).powf(bytes / ref_bytes) };
    if p < PER_FLOOR {
        0.0
    } else {
        p
    }
}

/// Success probability of one chunk of a frame: `bits` seen at `snr_db`.
pub fn chunk_success(mcs: u8, fec: Fec, snr_db: f64, bits: f64) -> f64 {
    1.0 - per(mcs, fec, snr_db, (bits / 8.0).floor())
}

/// The SNR from which every frame size decodes for certain with curve `mcs` (the fast path:
/// no draw needed above it).
pub fn clear_snr_db(mcs: u8, fec: Fec) -> f64 {
    let t = tables();
    let small = if fec == Fec::Bcc { t.bcc_32.clear_above_db(usize::from(mcs)) } else { f64::NEG_INFINITY };
    let large = match fec {
        Fec::Bcc => t.bcc_1458.clear_above_db(usize::from(mcs)),
        Fec::Ldpc => t.ldpc_1458.clear_above_db(usize::from(mcs)),
    };
    small.max(large)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabulated_points_are_read_exactly() {
        // error-rate-tables.cc, AwgnErrorTableBcc1458 MCS 0: -0.5 dB -> 0.994, 0 dB -> 0.8185.
        assert_eq!(per(0, Fec::Bcc, -0.5, 1458.0), 0.994);
        assert_eq!(per(0, Fec::Bcc, 0.0, 1458.0), 0.8185);
        // AwgnErrorTableBcc32 MCS 0: -1.5 dB -> 0.5895.
        assert_eq!(per(0, Fec::Bcc, -1.5, 32.0), 0.5895);
    }

    #[test]
    fn between_points_the_per_is_linear_and_outside_saturates() {
        // Halfway between -0.5 (0.994) and 0 dB (0.8185): 0.90625.
        assert!((per(0, Fec::Bcc, -0.25, 1458.0) - 0.90625).abs() < 1e-12);
        assert_eq!(per(0, Fec::Bcc, -30.0, 1458.0), 1.0);
        assert_eq!(per(9, Fec::Bcc, 60.0, 1458.0), 0.0);
    }

    #[test]
    fn other_sizes_scale_from_the_reference_length() {
        // 2916 octets = two 1458-octet frames: 1 - (1 - p)^2.
        let p = per(0, Fec::Bcc, 0.0, 1458.0);
        assert!((per(0, Fec::Bcc, 0.0, 2916.0) - (1.0 - (1.0 - p).powi(2))).abs() < 1e-12);
        // Below 400 octets the 32-octet table: 16 octets = (1 - p32)^0.5.
        let p32 = per(0, Fec::Bcc, -1.5, 32.0);
        assert!((per(0, Fec::Bcc, -1.5, 16.0) - (1.0 - (1.0 - p32).sqrt())).abs() < 1e-12);
    }

    #[test]
    fn higher_mcs_need_more_snr() {
        let at_10_percent =
            |mcs: u8| (0..8000).map(|i| f64::from(i) * 0.01 - 10.0).find(|&s| per(mcs, Fec::Bcc, s, 1458.0) < 0.1);
        let snrs: Vec<f64> = (0..=9).map(|m| at_10_percent(m).unwrap()).collect();
        assert!(snrs.windows(2).all(|w| w[0] < w[1]), "{snrs:?}");
        // MCS 7 (64-QAM 5/6) reaches 10 % PER near 20 dB for 1458 octets.
        assert!((18.0..23.0).contains(&snrs[7]), "{snrs:?}");
    }
}
