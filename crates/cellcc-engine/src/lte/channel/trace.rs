//! Record the SINR a source produces as CSV in the format [`crate::lte::sinr::SinrSeries`]
//! reads (`t_s,rb0,rb1,…`), so a channel can be generated once and replayed, plotted,
//! or swapped for a measured trace.

use crate::lte::sap::{LinkDir, UeIndex};
use crate::lte::sinr::SinrSource;
use crate::sim::{SimDuration, SimTime};
use std::fmt::Write;

/// Per-RB SINR of `ue` in `dir` from `from` (inclusive) to `to` (exclusive) every `step`,
/// one CSV row per sample with `n_rb` columns; values with 0.01 dB resolution.
pub fn record_csv(
    src: &mut dyn SinrSource,
    ue: UeIndex,
    dir: LinkDir,
    n_rb: usize,
    from: SimTime,
    to: SimTime,
    step: SimDuration,
) -> String {
    let mut csv = String::from("t_s");
    for k in 0..n_rb {
        let _ = write!(csv, ",rb{k}");
    }
    csv.push('\n');
    let mut row = vec![0.0; n_rb];
    let mut t = from;
    while t < to {
        src.per_rb_sinr_db(ue, dir, t, &mut row);
        let _ = write!(csv, "{:.6}", t.as_secs_f64());
        for v in &row {
            let _ = write!(csv, ",{v:.2}");
        }
        csv.push('\n');
        t = SimTime(t.as_ns() + step.as_ns().max(1));
    }
    csv
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::channel::spec::{ChannelSpec, FadingProfile, FadingSpec, MobilitySpec, UePlacement};
    use crate::lte::channel::ChannelSinr;
    use crate::lte::sinr::SinrSeries;
    use crate::sim::NS_PER_MS;

    #[test]
    fn a_recorded_channel_replays_through_sinr_series() {
        let spec = ChannelSpec {
            fading: FadingSpec {
                profile: FadingProfile::Epa,
                doppler_hz: Some(5.0),
                speed_kmh: None,
                ..FadingSpec::default()
            },
            ..ChannelSpec::default()
        };
        let ue = UePlacement { position_m: [100.0, 0.0], height_m: 1.5, mobility: MobilitySpec::Static };
        let mut ch = ChannelSinr::new(&spec, std::slice::from_ref(&ue), 5, "c").unwrap();
        let (from, to, step) = (SimTime::ZERO, SimTime(200 * NS_PER_MS), SimDuration::from_ms(10));
        let csv = record_csv(&mut ch, UeIndex(0), LinkDir::Downlink, 6, from, to, step);
        assert_eq!(csv.lines().count(), 1 + 20);
        let mut replay = SinrSeries::parse_csv(&csv).unwrap();
        let mut fresh = ChannelSinr::new(&spec, &[ue], 5, "c").unwrap();
        let (mut a, mut b) = ([0.0; 6], [0.0; 6]);
        for t in (0..200).step_by(10) {
            let now = SimTime(t * NS_PER_MS);
            fresh.per_rb_sinr_db(UeIndex(0), LinkDir::Downlink, now, &mut a);
            replay.fill(now, &mut b);
            assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= 0.005 + 1e-9), "{t} ms: {a:?} vs {b:?}");
        }
    }
}
