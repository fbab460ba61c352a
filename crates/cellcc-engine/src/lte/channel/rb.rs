//! One LTE resource block in frequency, and the thermal noise a receiver sees in it.

use crate::radio::noise::noise_dbm;

/// One resource block spans 12 subcarriers of 15 kHz = 180 kHz (TS 36.211 §6.2.3).
pub const RB_BANDWIDTH_HZ: f64 = 180e3;

// ns-3 LteSpectrumValueHelper::CreateNoisePowerSpectralDensity: N0 = kT0 * NF over each RB's 180 kHz.
pub fn noise_per_rb_dbm(noise_figure_db: f64) -> f64 {
    noise_dbm(RB_BANDWIDTH_HZ, noise_figure_db)
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
}
