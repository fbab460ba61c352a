//! End-to-end checks of [`ChannelSinr`]: link budgets worked by hand, interference,
//! determinism, independence of UEs, and the cost per TTI.

use super::spec::*;
use super::*;
use crate::lte::sinr::PuschGrant;
use crate::radio::{ici, mobility, pathloss};
use crate::sim::NS_PER_MS;

fn ue_at(x: f64, y: f64) -> UePlacement {
    UePlacement { position_m: [x, y], height_m: 1.5, mobility: MobilitySpec::Static }
}

/// eNB and UE both 1.5 m high so the 3-D distance equals the horizontal one.
fn flat_spec() -> ChannelSpec {
    ChannelSpec {
        dl_carrier_mhz: 2100.0,
        ul_carrier_mhz: 1900.0,
        enb: EnbSpec { height_m: 1.5, ..EnbSpec::default() },
        ..ChannelSpec::default()
    }
}

fn sinr(ch: &mut ChannelSinr, ue: u16, dir: LinkDir, t_ms: u64, n_rb: usize) -> Vec<f64> {
    let mut out = vec![0.0; n_rb];
    ch.per_rb_sinr_db(UeIndex(ue), dir, SimTime(t_ms * NS_PER_MS), &mut out);
    out
}

#[test]
fn friis_link_budget_at_100_m_worked_by_hand() {
    let mut ch = ChannelSinr::new(&flat_spec(), &[ue_at(100.0, 0.0)], 1, "cell0").unwrap();
    // DL, 25 RBs: 30 dBm - 10 log10 25 = 16.0206 dBm per RB; Friis 2.1 GHz 100 m = 78.8922 dB;
    // noise -174 + 52.5527 + 9 = -112.4473 dBm. SNR = 16.0206 - 78.8922 + 112.4473 = 49.5757 dB.
    let dl = sinr(&mut ch, 0, LinkDir::Downlink, 0, 25);
    assert!(dl.iter().all(|&x| (x - 49.5757).abs() < 1e-3), "{dl:?}");
    // UL, LENA's power control (P0 = -80 dBm, alpha = 1, SRS offset 0 dB): PL = 78.8922 dB (DL Friis),
    // SRS over 25 RBs wants 13.9794 - 80 + 78.8922 = 12.8716 dBm < 23: -1.1078 dBm per RB;
    // Friis 1.9 GHz 100 m = 78.8922 + 20 log10(1900/2100) = 78.0229 dB; eNB noise -174 + 52.5527 + 5
    // = -116.4473 dBm. SNR = -1.1078 - 78.0229 + 116.4473 = 37.3166 dB.
    let ul = sinr(&mut ch, 0, LinkDir::Uplink, 0, 25);
    assert!(ul.iter().all(|&x| (x - 37.3166).abs() < 1e-3), "{ul:?}");
    // Uncapped, a PUSCH has the same power per PRB whatever its grant.
    assert!(pusch(&mut ch, 5, 25).iter().all(|&x| (x - 37.3166).abs() < 1e-3));
    // Without fading the control region sees the same SINR as every RB.
    assert!((ch.control_sinr_db(UeIndex(0), SimTime::ZERO) - 49.5757).abs() < 1e-3);
    // Fixed 10 dBm (no power control) over the band: 10 - 13.9794 = -3.9794 dBm per RB,
    // SNR = -3.9794 - 78.0229 + 116.4473 = 34.4450 dB; over a 5-PRB grant 10 log10 5 = 6.9897 dB more.
    let fixed = ChannelSpec { ul_power_control: UlPowerControlSpec::Fixed, ..flat_spec() };
    let mut ch = ChannelSinr::new(&fixed, &[ue_at(100.0, 0.0)], 1, "cell0").unwrap();
    assert!(sinr(&mut ch, 0, LinkDir::Uplink, 0, 25).iter().all(|&x| (x - 34.4450).abs() < 1e-3));
    assert!(pusch(&mut ch, 5, 25).iter().all(|&x| (x - 41.4347).abs() < 1e-3));
}

fn pusch(ch: &mut ChannelSinr, prbs: u32, n_rb: usize) -> Vec<f64> {
    let mut out = vec![0.0; n_rb];
    ch.per_rb_sinr_db(UeIndex(0), LinkDir::Uplink, SimTime::ZERO, &mut out);
    let offset_db = ch.pusch_offset_db(UeIndex(0), SimTime::ZERO, PuschGrant { prbs });
    out.iter().map(|x| x + offset_db).collect()
}

#[test]
fn a_far_ue_caps_at_p_cmax_and_a_small_grant_gains_what_the_band_spread_lost() {
    let mut ch = ChannelSinr::new(&flat_spec(), &[ue_at(1000.0, 0.0)], 1, "cell0").unwrap();
    // PL = Friis 2.1 GHz 1 km = 98.8922 dB, UL loss 98.0229 dB, eNB noise -116.4473 dBm per RB.
    // SRS over 25 RBs wants 13.9794 - 80 + 98.8922 = 32.87 dBm: capped at 23, 9.0206 dBm per RB,
    // SNR = 9.0206 - 98.0229 + 116.4473 = 27.4450 dB.
    assert!(sinr(&mut ch, 0, LinkDir::Uplink, 0, 25).iter().all(|&x| (x - 27.4450).abs() < 1e-3));
    // PUSCH over 1 PRB wants -80 + 98.8922 = 18.8922 dBm < 23: SNR = 18.8922 - 98.0229 + 116.4473 = 37.3166 dB.
    assert!(pusch(&mut ch, 1, 25).iter().all(|&x| (x - 37.3166).abs() < 1e-3));
    // Over 5 PRBs it wants 6.9897 + 18.8922 = 25.88 dBm: capped, 23 - 6.9897 = 16.0103 dBm per PRB,
    // SNR = 16.0103 - 98.0229 + 116.4473 = 34.4347 dB.
    assert!(pusch(&mut ch, 5, 25).iter().all(|&x| (x - 34.4347).abs() < 1e-3));
}

#[test]
fn an_equidistant_equal_power_interferer_caps_the_sinr_near_zero_db() {
    let interferer = InterfererSpec {
        uplink_load: InterfererLoad::Idle,
        ..isotropic_interferer([200.0, 0.0], InterfererLoad::FullBuffer)
    };
    let spec = ChannelSpec { interferers: vec![interferer], ..flat_spec() };
    let mut ch = ChannelSinr::new(&spec, &[ue_at(100.0, 0.0)], 1, "cell0").unwrap();
    // S = I = -62.8716 dBm per RB; N = -112.4473 dBm: SINR = -10 log10(1 + N/S) = -4.8e-5 dB.
    let dl = sinr(&mut ch, 0, LinkDir::Downlink, 0, 25);
    assert!(dl.iter().all(|&x| x.abs() < 1e-3 && x < 0.0), "{dl:?}");
    // Its uplink is idle: UL is as without the interferer (the friis test above).
    let ul = sinr(&mut ch, 0, LinkDir::Uplink, 0, 25);
    assert!((ul[0] - 37.3166).abs() < 1e-3);
}

/// An isotropic neighbour eNB at `position_m` with the serving eNB's height and power.
fn isotropic_interferer(position_m: [f64; 2], load: InterfererLoad) -> InterfererSpec {
    InterfererSpec {
        position_m,
        height_m: None,
        tx_power_dbm: None,
        antenna: AntennaSpec::Isotropic,
        load,
        uplink_load: InterfererLoad::FullBuffer,
    }
}

fn one_interferer(load: InterfererLoad) -> ChannelSpec {
    ChannelSpec { interferers: vec![isotropic_interferer([200.0, 0.0], load)], ..flat_spec() }
}

#[test]
fn an_idle_interferer_leaves_the_data_region_clean_but_not_the_control_region() {
    // Idle: the data SINR is the interference-free 49.5757 dB - 10 log10(50/25) = 46.5654 dB per RB of 50;
    // the control region still sees the full-buffer interferer: S = I, SINR ~ 0 dB (previous test).
    let mut ch = ChannelSinr::new(&one_interferer(InterfererLoad::Idle), &[ue_at(100.0, 0.0)], 1, "c").unwrap();
    for t in [0, 1, 17] {
        let dl = sinr(&mut ch, 0, LinkDir::Downlink, t, 50);
        assert!(dl.iter().all(|&x| (x - 46.5654).abs() < 1e-3), "{dl:?}");
        let control = ch.control_sinr_db(UeIndex(0), SimTime(t * NS_PER_MS));
        assert!(control.abs() < 1e-3, "control {control}");
    }
}

#[test]
fn the_wideband_reference_is_the_data_and_control_sinr_worked_by_hand() {
    // The previous test's geometry, 50 RBs: idle -> data 46.5654 dB (noise only), control ~0 dB (S = I).
    let idle = wideband_dl_sinr_db(&one_interferer(InterfererLoad::Idle), &ue_at(100.0, 0.0), 1, "c", 50).unwrap();
    assert!((idle.0 - 46.5654).abs() < 1e-3 && idle.1.abs() < 1e-3, "{idle:?}");
    // Full buffer: both regions see S = I: -10 log10(1 + N/S) ~ -1e-4 dB.
    let full =
        wideband_dl_sinr_db(&one_interferer(InterfererLoad::FullBuffer), &ue_at(100.0, 0.0), 1, "c", 50).unwrap();
    assert!(full.0.abs() < 1e-3 && full.1.abs() < 1e-3, "{full:?}");
}

#[test]
fn the_interfering_cells_are_the_listed_ones_then_the_layout_with_the_serving_enbs_power() {
    let layout = HexLayoutSpec {
        rings: 1,
        isd_m: 500.0,
        sectors: 3,
        beamwidth_deg: 70.0,
        max_attenuation_db: 20.0,
        sector_offset_m: 0.5,
        load: InterfererLoad::Idle,
        uplink_load: InterfererLoad::FullBuffer,
    };
    let listed =
        InterfererSpec { tx_power_dbm: Some(40.0), ..isotropic_interferer([900.0, 0.0], InterfererLoad::FullBuffer) };
    let spec = ChannelSpec { interferers: vec![listed], hex_layout: Some(layout), ..flat_spec() };
    let cells = interfering_cells(&spec);
    // 1 listed + 7 sites x 3 sectors - the serving one = 21.
    assert_eq!(cells.len(), 21);
    assert_eq!((cells[0].xy_m, cells[0].tx_power_dbm, cells[0].load), ([900.0, 0.0], 40.0, InterfererLoad::FullBuffer));
    // The centre site keeps its sister sectors at 120 and -120 degrees, 0.5 m off the site.
    let sisters: Vec<_> = cells.iter().filter(|c| c.xy_m[0].hypot(c.xy_m[1]) < 1.0).collect();
    assert_eq!(sisters.len(), 2);
    for (c, want_deg) in sisters.iter().zip([120.0, -120.0]) {
        let AntennaSpec::Parabolic { orientation_deg, beamwidth_deg, .. } = c.antenna else { panic!("omni") };
        assert_eq!((orientation_deg, beamwidth_deg), (want_deg, 70.0));
        assert!((c.xy_m[0].hypot(c.xy_m[1]) - 0.5).abs() < 1e-12);
    }
    // Layout cells take the serving eNB's height and power (flat_spec: 1.5 m, 30 dBm).
    assert!(cells[1..].iter().all(|c| c.height_m == 1.5 && c.tx_power_dbm == 30.0 && c.load == InterfererLoad::Idle));
}

#[test]
fn a_half_loaded_interferer_halves_the_mean_interference() {
    // 50 RBs, fraction 0.5: 25 RBs per TTI carry I = S (SINR 1/(1 + N/S) ~ 0 dB), 25 carry none
    // (46.5654 dB). Mean interference per RB over RBs and TTIs = I / 2, recovered as S / SINR - N.
    let spec = one_interferer(InterfererLoad::Fraction { fraction: 0.5 });
    let mut ch = ChannelSinr::new(&spec, &[ue_at(100.0, 0.0)], 1, "c").unwrap();
    let snr = 10f64.powf(4.65654); // S / N
    let (mut i_over_s, mut n) = (0.0, 0.0);
    for t in 0..100 {
        let dl = sinr(&mut ch, 0, LinkDir::Downlink, t, 50);
        let hit = dl.iter().filter(|&&x| x < 1.0).count();
        assert_eq!(hit, 25, "t = {t}: {dl:?}");
        for x in dl {
            i_over_s += 1.0 / 10f64.powf(x / 10.0) - 1.0 / snr;
            n += 1.0;
        }
    }
    // I / S = 1 on the loaded RBs, so the mean is 0.5 exactly (up to the 1e-4 dB rounding of the noise term).
    assert!((i_over_s / n - 0.5).abs() < 1e-6, "{}", i_over_s / n);
    // The control region stays at full interference.
    assert!(ch.control_sinr_db(UeIndex(0), SimTime::ZERO).abs() < 1e-3);
}

#[test]
fn hst_without_tracking_caps_a_clean_link_at_the_ici_limit() {
    // 100 m Friis link, 46.5654 dB per RB of 50, TS 36.101 B.3 (scenario 3, f_d 750 Hz) without tracking:
    // at t = 0 the offset is 749.9333 Hz, sinc^2 = 0.991804 (hst.rs), so the SINR is capped near
    // kept / (1 - kept) = 20.83 dB: 0.991804 g / (1 + 0.008196 g) with g = 10^4.65654 = 45 344 -> 20.8165 dB.
    // At t = 1.8 s (abreast of the eNB, no shift) the link is clean again.
    let fading = FadingSpec {
        profile: FadingProfile::Hst,
        scenario: Some(3),
        tracking: Some(FrequencyTracking::None),
        ..FadingSpec::default()
    };
    let mut ch = ChannelSinr::new(&ChannelSpec { fading, ..flat_spec() }, &[ue_at(100.0, 0.0)], 1, "c").unwrap();
    let at0 = sinr(&mut ch, 0, LinkDir::Downlink, 0, 50);
    assert!(at0.iter().all(|&x| (x - 20.8165).abs() < 1e-3), "{at0:?}");
    let abreast = sinr(&mut ch, 0, LinkDir::Downlink, 1800, 50);
    assert!(abreast.iter().all(|&x| (x - 46.5654).abs() < 1e-3), "{abreast:?}");
    // With the default tracking (1 ms lag) the residual at t = 0 is ~0 Hz: the link is clean.
    let tracked = FadingSpec { tracking: None, ..fading };
    let mut ch =
        ChannelSinr::new(&ChannelSpec { fading: tracked, ..flat_spec() }, &[ue_at(100.0, 0.0)], 1, "c").unwrap();
    assert!((sinr(&mut ch, 0, LinkDir::Downlink, 0, 50)[0] - 46.5654).abs() < 1e-3);
}

#[test]
fn hst_fields_are_checked() {
    let hst = |f: FadingSpec| ChannelSpec { fading: f, ..ChannelSpec::default() }.validate("c");
    let base = FadingSpec { profile: FadingProfile::Hst, ..FadingSpec::default() };
    hst(base).unwrap();
    assert_eq!(hst(FadingSpec { scenario: Some(2), ..base }).unwrap_err().path, "c.fading.scenario");
    assert_eq!(hst(FadingSpec { k_factor_db: Some(10.0), ..base }).unwrap_err().path, "c.fading.k_factor_db");
    assert_eq!(hst(FadingSpec { speed_kmh: Some(0.0), ..base }).unwrap_err().path, "c.fading.speed_kmh");
    let bad_lag = FadingSpec { tracking: Some(FrequencyTracking::Lagged { lag_ms: -1.0 }), ..base };
    assert_eq!(hst(bad_lag).unwrap_err().path, "c.fading.tracking.lag_ms");
    let eva_with_scenario = FadingSpec { profile: FadingProfile::Eva, scenario: Some(1), ..FadingSpec::default() };
    let e = hst(eva_with_scenario).unwrap_err();
    assert_eq!((e.path.as_str(), e.allowed.as_str()), ("c.fading.scenario", "only with profile = \"hst\""));
    let parsed: FadingSpec =
        serde_json::from_str(r#"{"profile": "hst", "scenario": 1, "tracking": {"kind": "none"}}"#).unwrap();
    assert_eq!((parsed.scenario, parsed.tracking), (Some(1), Some(FrequencyTracking::None)));
}

fn rich_spec() -> ChannelSpec {
    ChannelSpec {
        shadowing: Some(ShadowingSpec { sigma_db: 8.0, decorrelation_m: 50.0 }),
        fading: FadingSpec {
            profile: FadingProfile::Eva,
            doppler_hz: None,
            speed_kmh: Some(60.0),
            ..FadingSpec::default()
        },
        interferers: vec![isotropic_interferer([500.0, 0.0], InterfererLoad::FullBuffer)],
        pathloss: PathLossSpec::Tr36814Uma { condition: LosCondition::Nlos },
        ..ChannelSpec::default()
    }
}

fn walker(x: f64) -> UePlacement {
    UePlacement {
        position_m: [x, 0.0],
        height_m: 1.5,
        mobility: MobilitySpec::RandomWalk { speed_kmh: 3.0, leg_s: 1.0, bounds_m: [x - 10.0, -10.0, x + 10.0, 10.0] },
    }
}

fn series(ues: &[UePlacement], seed: u64, ue: u16) -> Vec<f64> {
    let mut ch = ChannelSinr::new(&rich_spec(), ues, seed, "cell0").unwrap();
    (0..3000).step_by(7).flat_map(|t| sinr(&mut ch, ue, LinkDir::Downlink, t, 50)).collect()
}

#[test]
fn same_seed_same_series_other_seed_other_series() {
    let ues = [walker(100.0)];
    assert_eq!(series(&ues, 7, 0), series(&ues, 7, 0));
    assert_ne!(series(&ues, 7, 0), series(&ues, 8, 0));
}

#[test]
fn adding_a_ue_leaves_the_others_unchanged() {
    let one = series(&[walker(100.0)], 7, 0);
    let two = series(&[walker(100.0), walker(250.0)], 7, 0);
    assert_eq!(one, two);
}

#[test]
fn the_answer_does_not_depend_on_which_ttis_were_asked() {
    // Shadowing on a fixed grid and fading as a function of time: asking every TTI or only at
    // 2 s gives the same value at 2 s.
    let ues = [walker(100.0)];
    let mut every = ChannelSinr::new(&rich_spec(), &ues, 3, "c").unwrap();
    for t in 0..2000 {
        sinr(&mut every, 0, LinkDir::Downlink, t, 50);
    }
    let mut once = ChannelSinr::new(&rich_spec(), &ues, 3, "c").unwrap();
    assert_eq!(sinr(&mut every, 0, LinkDir::Downlink, 2000, 50), sinr(&mut once, 0, LinkDir::Downlink, 2000, 50));
}

/// radio/track.rs: without fast fading a row is the UE's large-scale epoch's. A UE walking at
/// 3 km/h (8.33 mm a 10 ms step) through 8 dB shadowing keeps its row for 60 steps (0.5 m, a tie
/// decided as reached), then gets a new one; a static UE keeps its first row for good.
#[test]
fn without_fading_a_row_holds_for_each_half_metre_of_the_path() {
    let spec = ChannelSpec {
        shadowing: Some(crate::radio::spec::ShadowingSpec { sigma_db: 8.0, decorrelation_m: 50.0 }),
        ..flat_spec()
    };
    let walking = UePlacement {
        mobility: MobilitySpec::ConstantVelocity { speed_kmh: 3.0, heading_deg: 30.0 },
        ..ue_at(100.0, 0.0)
    };
    let mut ch = ChannelSinr::new(&spec, &[walking, ue_at(150.0, 0.0)], 1, "c").unwrap();
    let (mut rows, mut ids) = (Vec::new(), Vec::new());
    for step in 0..200u64 {
        let now = SimTime(step * 10 * NS_PER_MS + 3 * NS_PER_MS);
        ids.push([0, 1].map(|ue| ch.row_id(UeIndex(ue), LinkDir::Downlink, now).expect("an id")));
        rows.push(sinr(&mut ch, 0, LinkDir::Downlink, step * 10 + 3, 25));
    }
    for (step, [walker, still]) in ids.iter().enumerate() {
        assert_eq!(*walker, step as u64 / 60, "the walker's epoch at step {step}");
        assert_eq!(*still, 0, "the static UE's epoch at step {step}");
    }
    for step in 1..200 {
        assert_eq!(rows[step] == rows[step - 1], step % 60 != 0, "step {step}");
    }
}

#[test]
fn fading_varies_across_rbs_and_averages_to_the_unfaded_sinr() {
    // A low Doppler (5 Hz) keeps the Doppler-spread ICI (ici.rs: 1 - kept = (2 pi 5 / 15000)^2 / 24 = 1.8e-7,
    // a 67 dB cap) out of this 46.6 dB link; at ETU's usual 300 Hz it would cap the SINR at 31.8 dB.
    let faded = ChannelSpec {
        fading: FadingSpec {
            profile: FadingProfile::Etu,
            doppler_hz: Some(5.0),
            speed_kmh: None,
            ..FadingSpec::default()
        },
        ..flat_spec()
    };
    let ues: Vec<UePlacement> = (0..20).map(|_| ue_at(100.0, 0.0)).collect();
    let mut ch = ChannelSinr::new(&faded, &ues, 11, "c").unwrap();
    let (mut mean_lin, mut n) = (0.0, 0.0);
    for ue in 0..20 {
        for t in (0..1000).step_by(50) {
            let s = sinr(&mut ch, ue, LinkDir::Downlink, t, 50);
            let spread = s.iter().cloned().fold(f64::MIN, f64::max) - s.iter().cloned().fold(f64::MAX, f64::min);
            assert!(spread > 3.0, "ETU over 9 MHz is frequency-selective: spread {spread} dB");
            // Unfaded: 49.5757 dB with 25 RBs (first test) - 10 log10(50/25) = 46.5654 dB per RB of 50.
            mean_lin += s.iter().map(|x| 10f64.powf((x - 46.5654) / 10.0)).sum::<f64>();
            n += s.len() as f64;
        }
    }
    // E|H|^2 = 1, so the linear mean SINR equals the unfaded 46.5654 dB (1000 draws, ~20 independent per link).
    assert!((mean_lin / n - 1.0).abs() < 0.1, "mean gain {}", mean_lin / n);
}

#[test]
fn sinr_falls_with_distance_in_an_interference_limited_cell() {
    // Seed 004's walk: 40 m to 300 m from the eNB, a neighbour at 500 m, UMa NLOS, no shadowing/fading.
    let spec = ChannelSpec {
        enb: EnbSpec { tx_power_dbm: 46.0, ..EnbSpec::default() },
        pathloss: PathLossSpec::Tr36814Uma { condition: LosCondition::Nlos },
        interferers: vec![isotropic_interferer([500.0, 0.0], InterfererLoad::FullBuffer)],
        ..ChannelSpec::default()
    };
    let ues: Vec<UePlacement> = (0..14).map(|k| ue_at(40.0 + 20.0 * k as f64, 0.0)).collect();
    let mut ch = ChannelSinr::new(&spec, &ues, 1, "c").unwrap();
    let wideband: Vec<f64> = (0..14).map(|u| sinr(&mut ch, u, LinkDir::Downlink, 0, 50)[0]).collect();
    assert!(wideband.windows(2).all(|w| w[1] < w[0]), "{wideband:?}");
    // At 40 m and 300 m the interferer is 460 m and 200 m away; UMa NLOS slope (43.42 - 3.1 log10 30)
    // = 38.84 dB/decade: S/I = 38.84 log10(460/40) = 41.2 dB and 38.84 log10(200/300) = -6.8 dB
    // (horizontal distances; heights shift these by < 0.5 dB). Interference dominates noise at both.
    assert!((wideband[0] - 41.2).abs() < 1.0 && (wideband[13] - -6.8).abs() < 1.0, "{wideband:?}");
}

#[test]
fn bad_input_is_a_scenario_error_naming_the_field() {
    let mut bad = ue_at(0.0, 0.0);
    bad.height_m = -1.0;
    let Err(e) = ChannelSinr::new(&ChannelSpec::default(), &[ue_at(1.0, 0.0), bad], 1, "cells[0].channel") else {
        panic!("a negative UE height must be refused");
    };
    assert_eq!(e.path, "cells[0].channel.ues[1].placement.height_m");
}

/// Cost per TTI: 14 UEs x 100 RBs, EVA 70 Hz, shadowing, 6 interferers; DL + UL + control per UE per TTI.
/// `cargo test -p cellcc-engine --release --lib lte::channel::tests::cost_per_tti -- --ignored --nocapture`
#[test]
#[ignore]
fn cost_per_tti() {
    let spec = ChannelSpec {
        interferers: (0..6)
            .map(|k| {
                let a = k as f64 * std::f64::consts::FRAC_PI_3;
                isotropic_interferer([500.0 * a.cos(), 500.0 * a.sin()], InterfererLoad::FullBuffer)
            })
            .collect(),
        ..rich_spec()
    };
    let ues: Vec<UePlacement> = (0..14).map(|k| walker(40.0 + 20.0 * k as f64)).collect();
    let mut ch = ChannelSinr::new(&spec, &ues, 1, "c").unwrap();
    let mut out = vec![0.0; 100];
    let ttis = 10_000u64;
    let start = std::time::Instant::now();
    for t in 0..ttis {
        let now = SimTime(t * NS_PER_MS);
        for u in 0..14 {
            ch.per_rb_sinr_db(UeIndex(u), LinkDir::Downlink, now, &mut out);
            ch.per_rb_sinr_db(UeIndex(u), LinkDir::Uplink, now, &mut out);
            std::hint::black_box(ch.control_sinr_db(UeIndex(u), now));
        }
    }
    let per_tti_us = start.elapsed().as_secs_f64() * 1e6 / ttis as f64;
    println!("channel cost: {per_tti_us:.1} us per TTI (14 UEs x 100 RBs, EVA, DL+UL+control)");
}

/// Seed 004's geometry, for docs/channel.md: wideband DL SINR at 40..300 m along the serving
/// sector's boresight from a 46 dBm eNB (50 RBs, 2.1 GHz), alone, with the first ring of six
/// isotropic 46 dBm sites at ISD 500 m, and in seed 004's 57-cell layout (2 rings of 3-sector
/// sites, parabolic 70 degree antennas, the serving cell a sector at 0 degrees); the ns-3 hybrid
/// P.1411 model in the 57 cells with lena-dual-stripe.cc's threshold (1e6 m) and ns-3's default (200 m).
/// `cargo test -p cellcc-engine --release --lib lte::channel::tests::seed004_sinr_vs_distance -- --ignored --nocapture`
#[test]
#[ignore]
fn seed004_sinr_vs_distance() {
    println!(
        "| distance m | P.1411 LOS alone | + omni ring | 57 cells | hybrid 1e6 m, 57 cells | hybrid 200 m, 57 cells \
         | TR 36.814 UMa NLOS alone | + omni ring | 57 cells |"
    );
    for k in 0..14 {
        let d = 40.0 + 20.0 * k as f64;
        let at = |spec: &ChannelSpec| {
            let mut ch = ChannelSinr::new(spec, &[ue_at(d, 0.0)], 1, "c").unwrap();
            format!(" {:.1} |", sinr(&mut ch, 0, LinkDir::Downlink, 0, 50)[0])
        };
        let mut row = format!("| {d} |");
        seed004_variants(PathLossSpec::ItuR1411Los).iter().for_each(|s| row += &at(s));
        for threshold_m in [1e6, 200.0] {
            row += &at(&seed004_variants(hybrid_p1411(threshold_m))[2]);
        }
        seed004_variants(PathLossSpec::Tr36814Uma { condition: LosCondition::Nlos }).iter().for_each(|s| row += &at(s));
        println!("{row}");
    }
}

/// ns-3 `HybridBuildingsPropagationLossModel` with its attribute defaults but the LOS threshold.
fn hybrid_p1411(los_threshold_m: f64) -> PathLossSpec {
    let json = format!(r#"{{"model": "itu_r1411_hybrid", "los_threshold_m": {los_threshold_m}}}"#);
    serde_json::from_str(&json).unwrap()
}

#[test]
fn the_hybrid_p1411_cuts_far_interferers_and_steps_at_its_threshold() {
    // 57 cells, along the serving boresight. Sites of the second ring are 866-1000 m from the
    // centre, so some links pass 1 km and leave P.1411 LOS (~103 dB at 1 km) for COST-231 Hata
    // (~141 dB): with LOS up to 1 km (lena-dual-stripe) the SINR can only be higher than with
    // LOS on every link. With the 200 m default the serving link turns NLOS past 200 m (+33 dB
    // loss, pathloss tests) while the neighbours already are: a step between 180 and 220 m.
    let at = |pl: PathLossSpec, d: f64| {
        let mut ch = ChannelSinr::new(&seed004_variants(pl)[2], &[ue_at(d, 0.0)], 1, "c").unwrap();
        sinr(&mut ch, 0, LinkDir::Downlink, 0, 50)[0]
    };
    for d in [40.0, 160.0, 300.0] {
        let (los, hybrid) = (at(PathLossSpec::ItuR1411Los, d), at(hybrid_p1411(1e6), d));
        assert!(hybrid > los, "{d} m: hybrid {hybrid} vs LOS {los}");
    }
    let (before, after) = (at(hybrid_p1411(200.0), 180.0), at(hybrid_p1411(200.0), 220.0));
    assert!(before > after + 10.0, "180 m {before} dB, 220 m {after} dB");
}

/// Alone, + an isotropic first ring, the 57-cell sectorised layout.
fn seed004_variants(pathloss: PathLossSpec) -> [ChannelSpec; 3] {
    let alone = ChannelSpec {
        enb: EnbSpec { tx_power_dbm: 46.0, ..EnbSpec::default() },
        dl_carrier_mhz: 2100.0,
        ul_carrier_mhz: 1900.0,
        pathloss,
        ..ChannelSpec::default()
    };
    let ring = ChannelSpec {
        hex_layout: Some(HexLayoutSpec {
            rings: 1,
            isd_m: 500.0,
            sectors: 1,
            beamwidth_deg: 70.0,
            max_attenuation_db: 20.0,
            sector_offset_m: 0.5,
            load: InterfererLoad::FullBuffer,
            uplink_load: InterfererLoad::FullBuffer,
        }),
        ..alone.clone()
    };
    let sectored = ChannelSpec {
        enb: EnbSpec {
            antenna: AntennaSpec::Parabolic { orientation_deg: 0.0, beamwidth_deg: 70.0, max_attenuation_db: 20.0 },
            ..alone.enb.clone()
        },
        hex_layout: Some(HexLayoutSpec { rings: 2, sectors: 3, ..ring.hex_layout.unwrap() }),
        ..alone.clone()
    };
    [alone, ring, sectored]
}

#[test]
fn the_second_ring_of_sectors_adds_interference_and_the_edge_is_worse_than_the_centre() {
    // Seed 004's 57 cells (2 rings of 3-sector sites) against 1 ring of 3-sector sites: the 12
    // more sites can only add interference. Along the serving boresight the SINR falls by
    // ~20 dB from 40 m to 300 m (table in docs/channel.md: 17.0 -> -2.5 dB with UMa NLOS).
    let [_, _, two_rings] = seed004_variants(PathLossSpec::Tr36814Uma { condition: LosCondition::Nlos });
    let one_ring =
        ChannelSpec { hex_layout: two_rings.hex_layout.map(|l| HexLayoutSpec { rings: 1, ..l }), ..two_rings.clone() };
    let at = |spec: &ChannelSpec, d: f64| {
        let mut ch = ChannelSinr::new(spec, &[ue_at(d, 0.0)], 1, "c").unwrap();
        sinr(&mut ch, 0, LinkDir::Downlink, 0, 50)[0]
    };
    for d in [40.0, 300.0] {
        assert!(at(&two_rings, d) < at(&one_ring, d), "{d} m: {} vs {}", at(&two_rings, d), at(&one_ring, d));
    }
    assert!(at(&two_rings, 40.0) > at(&two_rings, 300.0) + 15.0);
}

/// The shape `scenario::lte` can wire: a per-UE `sinr` enum tagged by `kind` whose
/// `channel` variant carries a `UePlacement` and `sweep` a `SweepSpec` (newtype variants),
/// and a per-cell `channel: ChannelSpec`. Checked here so the wiring cannot drift.
#[test]
fn the_scenario_shape_parses_as_documented() {
    #[derive(serde::Deserialize, Debug)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    enum Sinr {
        Channel(UePlacement),
        Sweep(super::sweep::SweepSpec),
    }
    let ue: Sinr = serde_json::from_str(
        r#"{"kind": "channel", "position_m": [100, 0],
            "mobility": {"kind": "random_walk", "speed_kmh": 3, "bounds_m": [90, -10, 110, 10]}}"#,
    )
    .unwrap();
    assert!(matches!(ue, Sinr::Channel(UePlacement { height_m: 1.5, .. })));
    let sweep: Sinr = serde_json::from_str(
        r#"{"kind": "sweep", "from_db": 20, "to_db": 5, "duration_s": 30, "fading": {"profile": "eva", "speed_kmh": 60}}"#,
    )
    .unwrap();
    assert!(matches!(sweep, Sinr::Sweep(s) if s.to_db == 5.0 && s.start_s == 0.0));
    assert!(serde_json::from_str::<Sinr>(r#"{"kind": "channel", "position_m": [1, 0], "heigth_m": 2}"#).is_err());
    let cell: ChannelSpec = serde_json::from_str(
        r#"{"enb": {"tx_power_dbm": 46, "antenna": {"kind": "parabolic", "beamwidth_deg": 70}},
            "pathloss": {"model": "itu_r1411_nlos_over_rooftop"}, "shadowing": {"sigma_db": 1},
            "fading": {"profile": "epa"}, "hex_layout": {"rings": 2}}"#,
    )
    .unwrap();
    cell.validate("cells[0].channel").unwrap();
}

#[test]
fn the_fading_trace_is_the_channels_own_fading() {
    // A static UE under Friis: the per-RB SINR is the constant link budget of
    // `friis_link_budget_at_100_m_worked_by_hand` (49.5757 dB) times the fading gain, less the
    // inter-carrier interference of EPA's Doppler spread (ici.rs), so the trace handed to ns-3
    // must be the gain that, through that ICI, gives the channel's SINR on every RB and TTI.
    let fading = FadingSpec {
        profile: FadingProfile::Epa,
        doppler_hz: None,
        speed_kmh: Some(3.0),
        k_factor_db: None,
        scenario: None,
        tracking: None,
        delay_spread_ns: None,
    };
    let spec = ChannelSpec { fading, ..flat_spec() };
    let fd_hz = 3.0 * mobility::MPS_PER_KMH * spec.dl_carrier_mhz * 1e6 / pathloss::SPEED_OF_LIGHT_MPS;
    let kept = ici::doppler_spread_kept_share(fd_hz);
    let trace = downlink_fading_trace_db(&spec, 9, "cell:c0", 0, 25, 40).unwrap();
    assert_eq!((trace.len(), trace[0].len()), (25, 40));
    let mut ch = ChannelSinr::new(&spec, &[ue_at(100.0, 0.0)], 9, "cell:c0").unwrap();
    for t_ms in [0, 1, 17, 39] {
        let dl = sinr(&mut ch, 0, LinkDir::Downlink, t_ms, 25);
        for (rb, row) in trace.iter().enumerate() {
            let want_db = to_db(ici::with_ici(10f64.powf((49.5757 + row[t_ms as usize]) / 10.0), kept));
            assert!((dl[rb] - want_db).abs() < 1e-3, "rb {rb} t {t_ms}");
        }
    }
    assert!(downlink_fading_trace_db(&flat_spec(), 9, "cell:c0", 0, 25, 40).is_none());
}

#[test]
fn rows_have_the_same_bits_at_both_vector_widths() {
    // The CellRow kernel at the baseline width and at AVX2: bands of awkward lengths, both
    // directions, the data and control regions, a full-buffer and a partly loaded interferer near
    // enough to fade, TTIs in a row, after gaps and across the 10 ms and anchor steps.
    use crate::sim::simd::{self, Width};
    let spec = ChannelSpec {
        interferers: vec![
            isotropic_interferer([300.0, 0.0], InterfererLoad::FullBuffer),
            InterfererSpec {
                uplink_load: InterfererLoad::Fraction { fraction: 0.3 },
                ..isotropic_interferer([-250.0, 100.0], InterfererLoad::Fraction { fraction: 0.4 })
            },
        ],
        ..rich_spec()
    };
    crate::sim::simd::tests::with_avx2("lte::channel CellRow", |avx2| {
        for n_rb in (1..=13).chain([15, 25, 50, 75, 100]) {
            let ues = [walker(120.0), walker(60.0)];
            let mut chs = [0, 1].map(|_| ChannelSinr::new(&spec, &ues, n_rb as u64, "c").unwrap());
            chs.iter_mut().for_each(|ch| ch.fit(n_rb));
            for t in [0u64, 1, 2, 5, 8, 9, 10, 17, 40, 1023, 1024, 1030, 2500] {
                for (ue, dir, region) in [
                    (0, LinkDir::Downlink, Region::Data),
                    (1, LinkDir::Downlink, Region::Data),
                    (0, LinkDir::Downlink, Region::Control),
                    (0, LinkDir::Uplink, Region::Data),
                ] {
                    let now = SimTime(t * NS_PER_MS);
                    let [plain, wide] = &mut chs;
                    simd::run_on(Width::BASELINE, CellRow { ch: plain, ue: UeIndex(ue), dir, now, region, rbs: None });
                    simd::run_on(avx2, CellRow { ch: wide, ue: UeIndex(ue), dir, now, region, rbs: None });
                    let bits = |g: &[f64]| g.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
                    assert_eq!(
                        bits(&plain.gains),
                        bits(&wide.gains),
                        "{n_rb} RBs, t {t} ms, UE {ue}, {dir:?} {region:?}"
                    );
                }
            }
        }
    });
}

#[test]
fn an_uplink_row_on_a_grants_rbs_has_the_bands_bits_there() {
    // A PUSCH's decode asks its grant's RBs (`per_rb_sinr_lin_on`): one or a few RBs are faded
    // RB by RB, more take the band; either way each asked RB holds the full row's bits, on the
    // lower half, the upper (mirrored) half and an odd band's middle RB; the band asked after
    // the grant in the same TTI is the full row (both widths: `rb_gains_on_a_few_rbs_have_the_bands_bits`).
    let spec = ChannelSpec {
        interferers: vec![isotropic_interferer([300.0, 0.0], InterfererLoad::FullBuffer)],
        ..rich_spec()
    };
    for n_rb in [1, 6, 15, 25, 50, 75, 100] {
        let ues = [walker(120.0)];
        let mut full = ChannelSinr::new(&spec, &ues, n_rb as u64, "on").unwrap();
        let mut masked = ChannelSinr::new(&spec, &ues, n_rb as u64, "on").unwrap();
        let last = n_rb as u32 - 1;
        let grants = [
            RbMask::range(0, 1),
            RbMask::range(last, 1),
            RbMask::range(last / 2, 1),
            RbMask::range(last / 2, (n_rb as u32 - last / 2).min(2)),
            RbMask::range(0, (n_rb as u32).min(8)),
            RbMask::range(0, n_rb as u32),
        ];
        for (t, grant) in [0u64, 1, 2, 9, 17, 40, 1023, 1024, 1031].into_iter().zip(grants.into_iter().cycle()) {
            let now = SimTime(t * NS_PER_MS);
            let (mut want, mut got) = (vec![0.0; n_rb], vec![f64::NAN; n_rb]);
            full.per_rb_sinr_lin(UeIndex(0), LinkDir::Uplink, now, &mut want);
            masked.per_rb_sinr_lin_on(UeIndex(0), LinkDir::Uplink, now, grant, &mut got);
            for rb in grant.iter().map(|rb| rb as usize) {
                assert_eq!(got[rb].to_bits(), want[rb].to_bits(), "{n_rb} RBs, t {t} ms, RB {rb} of {grant:?}");
            }
            // The band asked after the grant in the same TTI (an SRS): computed whole, the same row.
            let mut band = vec![0.0; n_rb];
            masked.per_rb_sinr_lin(UeIndex(0), LinkDir::Uplink, now, &mut band);
            assert_eq!(
                band.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
    }
}
