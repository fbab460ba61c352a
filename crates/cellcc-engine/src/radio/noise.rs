//! Thermal noise at a receiver over a bandwidth, dBm, and the dB / mW conversions.

/// Thermal noise density at 290 K, dBm/Hz: 10 log10(k T0 / 1 mW) = -173.98 (ns-3 LENA uses -174).
pub const THERMAL_NOISE_DBM_PER_HZ: f64 = -174.0;

/// kT0 B NF in dBm: thermal noise over `bandwidth_hz` at a receiver of noise figure
/// `noise_figure_db` (ns-3 `LteSpectrumValueHelper::CreateNoisePowerSpectralDensity` per RB,
/// `WifiPhy` `RxNoiseFigure` over the channel: the same kT0 * NF density).
pub fn noise_dbm(bandwidth_hz: f64, noise_figure_db: f64) -> f64 {
    THERMAL_NOISE_DBM_PER_HZ + 10.0 * bandwidth_hz.log10() + noise_figure_db
}

/// dBm to mW.
pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// A linear power ratio to dB (without libm: [`super::db`]).
pub fn to_db(lin: f64) -> f64 {
    super::db::lin_to_db(lin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_is_kt_times_bandwidth_times_nf() {
        // -174 + 10 log10(20e6) = -174 + 73.0103 = -100.9897 dBm; a receiver's NF 7 dB gives -93.9897 dBm.
        assert!((noise_dbm(20e6, 0.0) - -100.9897).abs() < 1e-4);
        assert!((noise_dbm(20e6, 7.0) - -93.9897).abs() < 1e-4);
    }

    #[test]
    fn dbm_and_db_round_trip() {
        assert!((dbm_to_mw(30.0) - 1000.0).abs() < 1e-9);
        assert!((to_db(dbm_to_mw(-17.5)) - -17.5).abs() < 1e-12);
    }
}
