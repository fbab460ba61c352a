//! Thermal noise in one resource block at the receiver, dBm.

/// Thermal noise density at 290 K, dBm/Hz: 10 log10(k T0 / 1 mW) = -173.98 (ns-3 LENA uses -174).
pub const THERMAL_NOISE_DBM_PER_HZ: f64 = -174.0;
/// One resource block spans 12 subcarriers of 15 kHz = 180 kHz (TS 36.211 §6.2.3).
pub const RB_BANDWIDTH_HZ: f64 = 180e3;

// ns-3 LteSpectrumValueHelper::CreateNoisePowerSpectralDensity: N0 = kT0 * NF over each RB's 180 kHz.
pub fn noise_per_rb_dbm(noise_figure_db: f64) -> f64 {
    THERMAL_NOISE_DBM_PER_HZ + 10.0 * RB_BANDWIDTH_HZ.log10() + noise_figure_db
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
    fn noise_per_rb_is_kt_times_180_khz_times_nf() {
        // -174 + 10 log10(180e3) = -174 + 52.5527 = -121.4473 dBm; a UE's NF 9 dB gives -112.4473 dBm,
        // an eNB's 5 dB -116.4473 dBm.
        assert!((noise_per_rb_dbm(0.0) - -121.4473).abs() < 1e-4);
        assert!((noise_per_rb_dbm(9.0) - -112.4473).abs() < 1e-4);
        assert!((noise_per_rb_dbm(5.0) - -116.4473).abs() < 1e-4);
    }

    #[test]
    fn dbm_and_db_round_trip() {
        assert!((dbm_to_mw(30.0) - 1000.0).abs() < 1e-9);
        assert!((to_db(dbm_to_mw(-17.5)) - -17.5).abs() < 1e-12);
    }
}
