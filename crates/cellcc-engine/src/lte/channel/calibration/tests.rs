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

/// Prints the CDF points for docs/channel.md:
/// `cargo test -p cellcc-engine --release --lib lte::channel::calibration -- --ignored --nocapture`
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
}
