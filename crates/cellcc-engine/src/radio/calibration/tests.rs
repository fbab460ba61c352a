//! Checks of the calibration layout: link budget by hand, wrap-around symmetry, shadowing
//! statistics, uniform drops, and the geometry CDF against the 3GPP calibration results.

use super::*;

fn no_shadow(layout: &Layout) -> Vec<f64> {
    vec![0.0; layout.sites.len()]
}

fn centre_site(layout: &Layout) -> usize {
    layout.sites.iter().position(|s| s[0] == 0.0 && s[1] == 0.0).unwrap()
}

#[test]
fn boresight_link_budget_at_100_m_worked_by_hand() {
    // 46 dBm + 14 dBi - (128.1 + 37.6 log10 0.1 = 90.5 dB) - 20 dB penetration = -50.5 dBm from the
    // centre site's 0-degree sector (cell 0); its 120-degree sister sees the UE 120 degrees off
    // boresight: 12 (120/70)^2 = 35.3 > 20, so 20 dB front-to-back: -70.5 dBm.
    let layout = Layout::new(&TR36814_CASE1);
    let mut rx = Vec::new();
    layout.received_mw([100.0, 0.0], &no_shadow(&layout), &mut rx);
    assert_eq!(rx.len(), 57);
    let c = 3 * centre_site(&layout);
    assert!((10.0 * rx[c].log10() - -50.5).abs() < 1e-9, "{}", 10.0 * rx[c].log10());
    assert!((10.0 * rx[c + 1].log10() - -70.5).abs() < 1e-9);
    // Noise over 10 MHz with NF 9 dB: -174 + 70 + 9 = -95 dBm.
    assert!((10.0 * layout.noise_mw.log10() - -95.0).abs() < 1e-9);
}

#[test]
fn with_wrap_around_every_site_sees_the_same_world() {
    // A UE at p from the centre site and one at p from a first-ring site (500, 0) get the same
    // geometry (and the same sector of their own site) only with wrap-around.
    let wrapped = Layout::new(&TR36814_CASE1);
    let open = Layout::new(&CalibrationCase { wrap_around: false, ..TR36814_CASE1 });
    let shadow = no_shadow(&wrapped);
    let mut scratch = Vec::new();
    let site = wrapped.sites.iter().position(|s| (s[0] - 500.0).abs() < 1e-9 && s[1].abs() < 1e-9).unwrap();
    let mut open_differs = false;
    for p in [[100.0, 20.0], [-180.0, 90.0], [60.0, -200.0]] {
        let moved = [p[0] + 500.0, p[1]];
        let (c0, g0) = wrapped.geometry(p, &shadow, &mut scratch);
        let (c1, g1) = wrapped.geometry(moved, &shadow, &mut scratch);
        assert!((g0 - g1).abs() < 1e-9, "{p:?}: {g0} vs {g1}");
        assert_eq!((c0 / 3, c0 % 3), (centre_site(&wrapped), c1 % 3));
        assert_eq!(c1 / 3, site);
        let d = open.geometry(p, &shadow, &mut scratch).1 - open.geometry(moved, &shadow, &mut scratch).1;
        open_differs |= d.abs() > 0.02;
    }
    // Without it the first-ring UE misses the interferers beyond the second ring (0.03-0.14 dB here).
    assert!(open_differs, "without wrap-around the first ring sees fewer interferers on its outer side");
}

#[test]
fn shadowing_has_sigma_8_db_and_correlation_one_half_between_sites() {
    let layout = Layout::new(&TR36814_CASE1);
    let mut rng = RngStream::new(5, "test");
    let (n, mut s) = (4000, Vec::new());
    let (mut s00, mut s11, mut s01) = (0.0, 0.0, 0.0);
    for _ in 0..n {
        layout.draw_shadowing(&mut rng, &mut s);
        s00 += s[0] * s[0];
        s11 += s[7] * s[7];
        s01 += s[0] * s[7];
    }
    // Var = 64 (standard error 64 sqrt(2 / 4000) = 1.4); rho = 0.5 (standard error (1 - rho^2) / sqrt(n) = 0.012).
    assert!((s00 / n as f64 - 64.0).abs() < 5.0 && (s11 / n as f64 - 64.0).abs() < 5.0);
    let rho = s01 / (s00 * s11).sqrt();
    assert!((rho - 0.5).abs() < 0.04, "{rho}");
}

#[test]
fn drops_are_uniform_over_the_site_area_beyond_35_m() {
    // Hexagon of circumradius ISD / sqrt 3: area (sqrt 3 / 2) ISD^2 = 216,506 m^2, less the 35 m
    // disc (3,848 m^2). The 35..100 m annulus holds pi (100^2 - 35^2) = 27,567 m^2: 12.96 %.
    let drops = drop_ues(&TR36814_CASE1, 4000, 9);
    let r = |d: &Drop| d.xy_m[0].hypot(d.xy_m[1]);
    assert!(drops.iter().all(|d| r(d) >= 35.0 && r(d) <= 500.0 / 3f64.sqrt() + 1e-9));
    let near = drops.iter().filter(|d| r(d) < 100.0).count() as f64 / 4000.0;
    // Binomial standard error sqrt(0.13 * 0.87 / 4000) = 0.0053; allow 3 of them.
    assert!((near - 0.1296).abs() < 0.016, "{near}");
}

#[test]
fn the_same_seed_drops_the_same_ues() {
    assert_eq!(drop_ues(&TR36814_CASE1, 50, 3), drop_ues(&TR36814_CASE1, 50, 3));
    assert_ne!(drop_ues(&TR36814_CASE1, 50, 3), drop_ues(&TR36814_CASE1, 50, 4));
}

#[test]
fn uma3d_geometry_matches_the_3gpp_tr36873_phase1_calibration_within_1_db() {
    // Reference: TR 36.873 §8.2 phase 1, 3D-UMa, ISD 500 m, K = M = 1 (median of the companies'
    // curves, uma3d::REFERENCE_GEOMETRY_DB). Tolerance 1 dB at 5, 10, 50, 90 and 95 %: the
    // companies' own curves spread by about that much; with 10,000 UEs the sampling error of these
    // points is below 0.1 dB. (Measured: -2.7 / -1.5 / 5.2 / 19.0 / 22.8 dB against
    // -3.1 / -1.9 / 4.9 / 18.8 / 22.6 dB.)
    let g = uma3d::geometry_sir_db(10_000, 1);
    for (q, i) in [(0.05, 1), (0.1, 2), (0.5, 10), (0.9, 18), (0.95, 19)] {
        let (got, want) = (quantile(&g, q), uma3d::REFERENCE_GEOMETRY_DB[i]);
        assert!((got - want).abs() < 1.0, "{q}: {got:.2} dB vs 3GPP {want} dB");
    }
}

#[test]
fn uma3d_models_worked_by_hand() {
    // TR 36.873 Table 7.2-1 LOS at d3 = 100 m, 2 GHz, before the breakpoint (4 * 24 * 0.5 * 2e9 / c = 320 m):
    // 22 * 2 + 28 + 20 log10 2 = 78.02 dB. NLOS at 1 km, h_UT 1.5 m, h = W = 20 m, h_BS = 25 m:
    // 161.04 - 9.237 + 9.757 - 22.002 * 1.398 (= 30.757) + 0 + 6.021 - (3.2 * 1.2461^2 - 4.97 = -0.001)
    // = 136.82 dB, as TR 36.814's UMa NLOS (pathloss.rs tests) at h_UT = 1.5 m.
    assert!((uma3d::pathloss_db(100.0, 100.0, 1.5, true) - 78.0206).abs() < 1e-3);
    let nlos = uma3d::pathloss_db(1000.0, 1000.0, 1.5, false);
    assert!((nlos - 136.82).abs() < 0.01, "{nlos}");
    // Table 7.2-2: at 18 m or closer LOS is certain (h_UT <= 13 m); at 63 m: 18/63 (1 - e^-1) + e^-1 = 0.5485.
    assert!((uma3d::los_probability(18.0, 1.5) - 1.0).abs() < 1e-12);
    assert!((uma3d::los_probability(63.0, 1.5) - 0.5485).abs() < 1e-4);
    // Table 7.1-1: 65 degrees off in azimuth on the horizon: -12 dB; far behind: -30 dB.
    assert!((uma3d::element_db(65.0, 90.0) + 12.0).abs() < 1e-12);
    assert_eq!(uma3d::element_db(180.0, 90.0), -30.0);
}

/// Prints the CDF points for docs/channel.md:
/// `cargo test -p cellcc-engine --release --lib radio::calibration -- --ignored --nocapture`
#[test]
#[ignore]
fn print_geometry_percentiles() {
    for (name, case) in [
        ("case 1, wrap-around", TR36814_CASE1),
        ("case 1, no wrap-around", CalibrationCase { wrap_around: false, ..TR36814_CASE1 }),
        ("case 1, no shadowing", CalibrationCase { shadowing_sigma_db: 0.0, ..TR36814_CASE1 }),
    ] {
        let g: Vec<f64> = drop_ues(&case, 20_000, 1).iter().map(|d| d.geometry_db).collect();
        let p: Vec<String> = [0.05, 0.1, 0.5, 0.9, 0.95].iter().map(|q| format!("{:.2}", quantile(&g, *q))).collect();
        println!("{name}: 5/10/50/90/95 % = {}", p.join(" / "));
    }
    let g = uma3d::geometry_sir_db(20_000, 1);
    let p: Vec<String> = [0.05, 0.1, 0.5, 0.9, 0.95].iter().map(|q| format!("{:.2}", quantile(&g, *q))).collect();
    println!("TR 36.873 3D-UMa K=M=1 SIR: 5/10/50/90/95 % = {}", p.join(" / "));
}
