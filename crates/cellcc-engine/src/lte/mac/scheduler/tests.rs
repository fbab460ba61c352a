//! Scheduler tests: expected RB counts worked out from TS 36.213 Table 7.1.6.1-1 (RBG size)
//! and Table 7.1.7.2.1-1 (TBS), the policies' definitions, and a property test of the
//! allocation invariants.

use super::*;
use proptest::prelude::*;

const SATURATED_BYTES: u32 = 10_000_000;

fn want(ue: u16, bytes: u32, mcs: u8) -> UeDemand {
    UeDemand {
        ue: UeIndex(ue),
        buffered_bytes: bytes,
        mcs,
        out_of_range: RbMask::default(),
        has_free_harq: true,
        rbg_mcs: None,
    }
}

fn run(s: &mut Scheduler, busy: RbMask, demand: &[UeDemand]) -> Vec<NewTb> {
    let mut out = Vec::new();
    s.schedule(busy, demand, &mut out);
    out
}

fn rbs_of(out: &[NewTb], ue: u16) -> u32 {
    out.iter().filter(|t| t.ue == UeIndex(ue)).map(|t| t.rbs.count()).sum()
}

/// 25 RBs: P = 2, 13 RBGs (the last is RB 24 alone). Three saturated UEs: 13 / 3 = 4 RBGs
/// each, the remainder RBG to the first in turn. TTI 1 starts at UE 0 (RBGs 0–4 = RBs 0..10),
/// then UE 1 (RBGs 5–8), UE 2 (RBGs 9–12 = RBs 18..25, 7 RBs); TTI 2 starts at UE 1.
#[test]
fn round_robin_splits_rbgs_evenly_and_rotates_the_first_ue() {
    let mut s = Scheduler::new(SchedulerKind::RoundRobin, LinkDir::Downlink, 25, 3);
    let d: Vec<_> = (0..3).map(|u| want(u, SATURATED_BYTES, 10)).collect();
    let out = run(&mut s, RbMask::default(), &d);
    assert_eq!(
        out.iter().map(|t| t.rbs).collect::<Vec<_>>(),
        [(0, 10), (10, 8), (18, 7)].map(|(f, n)| RbMask::range(f, n))
    );
    assert_eq!(out[0].tbs_bits, tbs_bits(LinkDir::Downlink, 10, 10));
    let out = run(&mut s, RbMask::default(), &d);
    assert_eq!([rbs_of(&out, 1), rbs_of(&out, 2), rbs_of(&out, 0)], [10, 8, 7], "UE 1 first, lowest RBGs");
    let out = run(&mut s, RbMask::default(), &d);
    assert_eq!([rbs_of(&out, 2), rbs_of(&out, 0), rbs_of(&out, 1)], [10, 8, 7], "UE 2 first");
}

/// LENA's RR test (lte-test-rr-ff-mac-scheduler.cc): at equal SINR each of N saturated UEs
/// gets 1/N of the resources. 100 RBs = 25 RBGs of 4; over 300 TTIs each of N UEs gets
/// 2500 / N RBs per TTI on average, within one RBG.
#[test]
fn round_robin_share_falls_as_one_over_n() {
    for n in [1u16, 2, 3, 6, 12] {
        let mut s = Scheduler::new(SchedulerKind::RoundRobin, LinkDir::Downlink, 100, n as usize);
        let d: Vec<_> = (0..n).map(|u| want(u, SATURATED_BYTES, 15)).collect();
        let mut total = vec![0u32; n as usize];
        for _ in 0..300 {
            for t in run(&mut s, RbMask::default(), &d) {
                total[t.ue.index()] += t.rbs.count();
            }
        }
        for (u, got) in total.iter().enumerate() {
            let per_tti = f64::from(*got) / 300.0;
            assert!((per_tti - 100.0 / f64::from(n)).abs() <= 4.0, "N = {n}, UE {u}: {per_tti} RBs/TTI");
        }
    }
}

/// UE 0 holds 100 bytes: need (100 + 1 MAC byte) × 8 = 808 bits. At MCS 10 (I_TBS 9) TS 36.213
/// Table 7.1.7.2.1-1 gives 616 bits on 4 PRBs and 936 on 6, so 3 RBGs; the other 10 RBGs go
/// to UE 1.
#[test]
fn round_robin_gives_no_more_than_the_buffer_needs() {
    assert_eq!((tbs_bits(LinkDir::Downlink, 10, 4), tbs_bits(LinkDir::Downlink, 10, 6)), (616, 936));
    let mut s = Scheduler::new(SchedulerKind::RoundRobin, LinkDir::Downlink, 25, 2);
    let out = run(&mut s, RbMask::default(), &[want(0, 100, 10), want(1, SATURATED_BYTES, 10)]);
    assert_eq!((rbs_of(&out, 0), rbs_of(&out, 1)), (6, 19));
}

/// Fresh averages are equal, so PF's first TTI serves the better MCS first: all 13 RBGs to
/// UE 1 (MCS 20, 25 RBs), where RR gives it the last 6 RBGs (RBs 14..25, 11 RBs).
#[test]
fn proportional_fair_favours_the_better_channel_within_a_tti() {
    let d = [want(0, SATURATED_BYTES, 5), want(1, SATURATED_BYTES, 20)];
    let mut pf = Scheduler::new(SchedulerKind::ProportionalFair, LinkDir::Downlink, 25, 2);
    let mut rr = Scheduler::new(SchedulerKind::RoundRobin, LinkDir::Downlink, 25, 2);
    let (pf_out, rr_out) = (run(&mut pf, RbMask::default(), &d), run(&mut rr, RbMask::default(), &d));
    assert_eq!((rbs_of(&pf_out, 1), rbs_of(&rr_out, 1)), (25, 11));
}

/// PF's defining property with wideband CQI: n saturated UEs share the TTIs equally, so each
/// average converges to (its own full-band rate) / n, whatever the other UEs' channels.
#[test]
fn proportional_fair_average_converges_to_own_rate_over_n() {
    let mcs = [3u8, 12, 20, 27];
    let d: Vec<_> = mcs.iter().enumerate().map(|(u, m)| want(u as u16, SATURATED_BYTES, *m)).collect();
    let mut s = Scheduler::new(SchedulerKind::ProportionalFair, LinkDir::Downlink, 50, 4);
    let mut tti_share = [0u32; 4];
    for tti in 0..4000 {
        for t in run(&mut s, RbMask::default(), &d) {
            if tti >= 1000 {
                tti_share[t.ue.index()] += t.rbs.count();
            }
        }
    }
    for (u, m) in mcs.iter().enumerate() {
        let own_rate = f64::from(tbs_bits(LinkDir::Downlink, *m, 50)) / 8.0 / 0.001;
        let avg = s.average_throughput_bytes_per_s(UeIndex(u as u16));
        assert!((avg / (own_rate / 4.0) - 1.0).abs() < 0.1, "UE {u}: avg {avg} vs {}", own_rate / 4.0);
        let share = f64::from(tti_share[u]) / (3000.0 * 50.0);
        assert!((share - 0.25).abs() < 0.03, "UE {u}: RB share {share}");
    }
}

/// One TTI of the average (ns-3 pf-ff-mac-scheduler.cc): τ = 99, avg₀ = 1 byte/s. UE 0 is
/// served TBS bits, so avg = (98/99)·1 + (1/99)·(TBS/8)/0.001; UE 1 (no data) decays to 98/99.
/// With τ = 10 the step is 1/10.
#[test]
fn proportional_fair_average_is_ns3_ewma() {
    for (tau, step) in [(None, 1.0 / 99.0), (Some(10.0), 0.1)] {
        let mut s = Scheduler::new(SchedulerKind::ProportionalFair, LinkDir::Downlink, 6, 2);
        if let Some(t) = tau {
            s = s.with_pf_time_window_ttis(t);
        }
        let out = run(&mut s, RbMask::default(), &[want(0, SATURATED_BYTES, 28), want(1, 0, 28)]);
        let tbs = tbs_bits(LinkDir::Downlink, 28, 6);
        assert_eq!(out, vec![NewTb { ue: UeIndex(0), rbs: RbMask::range(0, 6), mcs: 28, tbs_bits: tbs }]);
        let expect = (1.0 - step) + step * f64::from(tbs / 8) / 0.001;
        assert!((s.average_throughput_bytes_per_s(UeIndex(0)) - expect).abs() < 1e-9);
        assert!((s.average_throughput_bytes_per_s(UeIndex(1)) - (1.0 - step)).abs() < 1e-12);
    }
}

/// Equal MCS: over time PF gives each of 3 UEs a third of the RBs.
#[test]
fn proportional_fair_shares_equally_at_equal_cqi() {
    let d: Vec<_> = (0..3).map(|u| want(u, SATURATED_BYTES, 15)).collect();
    let mut s = Scheduler::new(SchedulerKind::ProportionalFair, LinkDir::Downlink, 25, 3);
    let mut total = [0u32; 3];
    for _ in 0..3000 {
        for t in run(&mut s, RbMask::default(), &d) {
            total[t.ue.index()] += t.rbs.count();
        }
    }
    for got in total {
        assert!((f64::from(got) / (3000.0 * 25.0) - 1.0 / 3.0).abs() < 0.02, "{total:?}");
    }
}

/// 50 RBs: P = 3, 17 RBGs (the last RBs 48-49). UE 0 reports the sub-bands of RBGs 2 and 16
/// out of range (CQI 0): PF gives it the other 15 RBGs, 45 RBs, and leaves those two empty
/// (ns-3 pf-ff-mac-scheduler.cc: an RBG whose sub-band CQI is 0 gets no UE). A second UE
/// without that report takes them.
#[test]
fn proportional_fair_leaves_out_of_range_subbands_to_others() {
    let mut s = Scheduler::new(SchedulerKind::ProportionalFair, LinkDir::Downlink, 50, 2);
    let gaps = RbMask::range(6, 3).union(RbMask::range(48, 2));
    let d0 = UeDemand { out_of_range: gaps, ..want(0, SATURATED_BYTES, 10) };
    let out = run(&mut s, RbMask::default(), &[d0]);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].rbs, RbMask(RbMask::range(0, 50).0 & !gaps.0), "every RBG but the two");
    assert_eq!(out[0].tbs_bits, tbs_bits(LinkDir::Downlink, 10, 45));
    let mut s = Scheduler::new(SchedulerKind::ProportionalFair, LinkDir::Downlink, 50, 2);
    let out = run(&mut s, RbMask::default(), &[d0, want(1, SATURATED_BYTES, 10)]);
    assert!(out.iter().all(|t| t.ue == UeIndex(1) || !t.rbs.overlaps(gaps)));
    assert_eq!(out.iter().find(|t| t.ue == UeIndex(1)).map(|t| t.rbs.overlaps(gaps)), Some(true));
}

/// Sub-band MCSs of a 12-RBG band (25 RBs, P = 2, LENA's last partial RBG unused).
fn rbg_mcs(per_rbg: &[u8]) -> RbgMcs {
    let mut m = [SUBBAND_OUT_OF_RANGE; MAX_SUBBANDS];
    m[..per_rbg.len()].copy_from_slice(per_rbg);
    m
}

/// LENA's PF scheduler as the lena profile sets it up: 25 RBs, whole shares, last RBG unused.
fn lena_pf(n_ues: usize) -> Scheduler {
    Scheduler::new(SchedulerKind::ProportionalFair, LinkDir::Downlink, 25, n_ues)
        .with_grant_sizing(GrantSizing::WholeShare)
        .with_last_rbg(rbg::LastRbg::Unused)
}

/// Complementary sub-bands: UE 0 at MCS 20 on RBGs 0-5 (RBs 0..12) and MCS 4 above, UE 1 the
/// other way round. LENA's PF ranks per RBG on each UE's own sub-band (pf-ff-mac-scheduler.cc
/// `DoSchedDlTriggerReq`): at equal averages each takes its good half, in the same TTI, and its
/// TB's MCS is the worst of its own RBGs, 20. (Ranked on the worst sub-band of the whole band,
/// MCS 4 for both, UE 0 took all 12 RBGs at MCS 4.)
#[test]
fn proportional_fair_gives_each_ue_its_good_subbands() {
    let mut s = lena_pf(2);
    let (good, bad) = (20, 4);
    let low_half = rbg_mcs(&[good, good, good, good, good, good, bad, bad, bad, bad, bad, bad]);
    let high_half = rbg_mcs(&[bad, bad, bad, bad, bad, bad, good, good, good, good, good, good]);
    let d0 = UeDemand { rbg_mcs: Some(low_half), ..want(0, SATURATED_BYTES, bad) };
    let d1 = UeDemand { rbg_mcs: Some(high_half), ..want(1, SATURATED_BYTES, bad) };
    let out = run(&mut s, RbMask::default(), &[d0, d1]);
    let got: Vec<_> = out.iter().map(|t| (t.ue, t.rbs, t.mcs, t.tbs_bits)).collect();
    let tbs = tbs_bits(LinkDir::Downlink, good, 12);
    assert_eq!(
        got,
        vec![(UeIndex(0), RbMask::range(0, 12), good, tbs), (UeIndex(1), RbMask::range(12, 12), good, tbs)]
    );
}

/// The metric against values worked out by hand from pf-ff-mac-scheduler.cc: `achievableRate =
/// TBS(sub-band MCS, one RBG of 2 PRBs) / 8 / 0.001`, `rcqi = achievableRate /
/// lastAveragedThroughput`, each RBG to the highest; the TB at the worst MCS of the UE's RBGs;
/// then `avg = (1 - 1/99) avg + (1/99) TB bytes / 0.001`.
/// TBS on 2 PRBs (Table 7.1.7.2.1-1): MCS 0 (I_TBS 0) 32 bits, MCS 9 (I_TBS 9) 296, MCS 16
/// (I_TBS 15) 600, MCS 28 (I_TBS 26) 1480: rates 4 000, 37 000, 75 000, 185 000 bytes/s.
/// Averages set by one TTI of window 99 from 1 byte/s: UE 0 served 1 000 bytes (10^6 bytes/s) →
/// 98/99 + 10^6/99 = 10 102.00 bytes/s; UE 1 500 bytes → 98/99 + 500 000/99 = 5 051.49;
/// UE 2 nothing → 98/99 = 0.9899. Per RBG:
///   RBG 0: UE 0 MCS 28 185 000/10 102.00 = 18.31, UE 1 MCS 9 37 000/5 051.49 = 7.32 → UE 0
///   RBGs 1, 2: UE 0 MCS 16 (1) 7.42, MCS 9 (2) 3.66; UE 1 MCS 16 14.85 → UE 1
///   RBG 3: UE 0 3.66, UE 1 7.32, UE 2 (in range only here) MCS 0 4 000/0.9899 = 4 041 → UE 2
///   RBG 4: UE 0 7.42, UE 1 MCS 28 36.62 → UE 1
///   RBGs 5-11: UE 0 MCS 16 75 000/10 102.00 = 7.4243, UE 1 MCS 9 37 000/5 051.49 = 7.3246 → UE 0
/// TBs: UE 0 RBGs 0, 5-11 (16 PRBs) at min(28, 16) = 16; UE 1 RBGs 1, 2, 4 (6 PRBs) at 16;
/// UE 2 RBG 3 (2 PRBs) at 0.
#[test]
fn proportional_fair_metric_per_rbg_matches_lena_by_hand() {
    let dl = LinkDir::Downlink;
    let rates: Vec<_> = [0, 9, 16, 28].iter().map(|&m| tbs_bits(dl, m, 2)).collect();
    assert_eq!(rates, [32, 296, 600, 1480], "the premise: Table 7.1.7.2.1-1, 2 PRBs");
    let mut s = lena_pf(3);
    let served = |ue, bytes: u32| NewTb { ue: UeIndex(ue), rbs: RbMask::range(0, 2), mcs: 0, tbs_bits: bytes * 8 };
    s.pf.update(&[served(0, 1_000), served(1, 500)]);
    let avgs: Vec<_> = (0..3).map(|u| s.average_throughput_bytes_per_s(UeIndex(u))).collect();
    for (got, hand) in avgs.iter().zip([10_102.00, 5_051.49, 0.9899]) {
        assert!((got - hand).abs() < 0.01, "average {got} vs {hand} by hand");
    }
    let oor = SUBBAND_OUT_OF_RANGE;
    let d = [
        UeDemand {
            rbg_mcs: Some(rbg_mcs(&[28, 16, 9, 9, 16, 16, 16, 16, 16, 16, 16, 16])),
            ..want(0, SATURATED_BYTES, 9)
        },
        UeDemand { rbg_mcs: Some(rbg_mcs(&[9, 16, 16, 9, 28, 9, 9, 9, 9, 9, 9, 9])), ..want(1, SATURATED_BYTES, 9) },
        UeDemand { rbg_mcs: Some(rbg_mcs(&[oor, oor, oor, 0])), ..want(2, SATURATED_BYTES, 0) },
    ];
    let out = run(&mut s, RbMask::default(), &d);
    let rbgs = |ids: &[u32]| ids.iter().fold(RbMask::default(), |m, &i| m.union(RbMask::range(2 * i, 2)));
    let got: Vec<_> = out.iter().map(|t| (t.ue, t.rbs, t.mcs, t.tbs_bits)).collect();
    assert_eq!(
        got,
        vec![
            (UeIndex(0), rbgs(&[0, 5, 6, 7, 8, 9, 10, 11]), 16, tbs_bits(dl, 16, 16)),
            (UeIndex(1), rbgs(&[1, 2, 4]), 16, tbs_bits(dl, 16, 6)),
            (UeIndex(2), rbgs(&[3]), 0, 32),
        ]
    );
    // The averages move by what each TB carried.
    let w = 1.0 / 99.0;
    let bytes_per_s = |bits: u32| f64::from(bits) / 8.0 / 0.001;
    let expect0 = (1.0 - w) * avgs[0] + w * bytes_per_s(tbs_bits(dl, 16, 16));
    assert!((s.average_throughput_bytes_per_s(UeIndex(0)) - expect0).abs() < 1e-9);
    let expect2 = (1.0 - w) * avgs[2] + w * bytes_per_s(32);
    assert!((s.average_throughput_bytes_per_s(UeIndex(2)) - expect2).abs() < 1e-9);
}

/// MT with sub-band MCSs (fdmt-ff-mac-scheduler.cc: per RBG the highest `achievableRate`): each
/// RBG to the UE with the best sub-band there, whatever its average.
#[test]
fn max_throughput_ranks_each_rbg_by_its_subband() {
    let mut s = Scheduler::new(SchedulerKind::MaxThroughput, LinkDir::Downlink, 25, 2)
        .with_grant_sizing(GrantSizing::WholeShare)
        .with_last_rbg(rbg::LastRbg::Unused);
    let d0 = UeDemand {
        rbg_mcs: Some(rbg_mcs(&[10, 12, 10, 12, 10, 12, 10, 12, 10, 12, 10, 12])),
        ..want(0, SATURATED_BYTES, 10)
    };
    let d1 = UeDemand { rbg_mcs: Some(rbg_mcs(&[11; 12])), ..want(1, SATURATED_BYTES, 11) };
    let out = run(&mut s, RbMask::default(), &[d0, d1]);
    let odd = (0..6).fold(RbMask::default(), |m, i| m.union(RbMask::range(4 * i + 2, 2)));
    let even = (0..6).fold(RbMask::default(), |m, i| m.union(RbMask::range(4 * i, 2)));
    let got: Vec<_> = out.iter().map(|t| (t.ue, t.rbs, t.mcs)).collect();
    assert_eq!(got, vec![(UeIndex(0), odd, 12), (UeIndex(1), even, 11)]);
}

/// MT: everything to the highest MCS (UE 1); once its small buffer is covered, the next best
/// (UE 2, MCS 12) takes the rest and UE 0 (MCS 5) gets nothing.
#[test]
fn max_throughput_serves_the_best_channel_first() {
    let mut s = Scheduler::new(SchedulerKind::MaxThroughput, LinkDir::Downlink, 25, 3);
    let sat = [want(0, SATURATED_BYTES, 5), want(1, SATURATED_BYTES, 20), want(2, SATURATED_BYTES, 12)];
    let out = run(&mut s, RbMask::default(), &sat);
    assert_eq!((out.len(), rbs_of(&out, 1)), (1, 25));
    let out = run(&mut s, RbMask::default(), &[sat[0], want(1, 200, 20), sat[2]]);
    // 200 bytes + 1 MAC subheader byte (one SDU: no L field) = 201 bytes = 1608 bits;
    // MCS 20 (I_TBS 18) carries 1544 bits on 4 PRBs (Table 7.1.7.2.1-1), 2344 on 6: 3 RBGs.
    assert_eq!((tbs_bits(LinkDir::Downlink, 20, 4), tbs_bits(LinkDir::Downlink, 20, 6)), (1544, 2344));
    assert_eq!((rbs_of(&out, 1), rbs_of(&out, 2), rbs_of(&out, 0)), (6, 19, 0));
}

#[test]
fn ties_go_to_the_lowest_ue_index() {
    let mut s = Scheduler::new(SchedulerKind::MaxThroughput, LinkDir::Downlink, 25, 3);
    let out = run(&mut s, RbMask::default(), &[want(2, SATURATED_BYTES, 9), want(1, SATURATED_BYTES, 9)]);
    assert_eq!(out.iter().map(|t| t.ue).collect::<Vec<_>>(), vec![UeIndex(1)]);
}

/// Busy RBGs (HARQ retransmissions) are skipped; UEs without data or a free HARQ process wait.
#[test]
fn respects_busy_rbs_and_skips_ues_without_data_or_free_harq() {
    for kind in [SchedulerKind::RoundRobin, SchedulerKind::ProportionalFair, SchedulerKind::MaxThroughput] {
        let mut s = Scheduler::new(kind, LinkDir::Downlink, 25, 4);
        let busy = RbMask::range(0, 4).union(RbMask::range(10, 2));
        let mut no_harq = want(2, SATURATED_BYTES, 28);
        no_harq.has_free_harq = false;
        let d = [want(0, 0, 28), want(1, SATURATED_BYTES, 7), no_harq, want(3, SATURATED_BYTES, 9)];
        let out = run(&mut s, busy, &d);
        assert!(out.iter().all(|t| t.ue == UeIndex(1) || t.ue == UeIndex(3)), "{kind:?}: {out:?}");
        let used = out.iter().fold(RbMask::default(), |m, t| m.union(t.rbs));
        assert!(!used.overlaps(busy), "{kind:?}");
        assert_eq!(used.count(), 25 - 6, "{kind:?}: saturated UEs fill every free RBG");
    }
}

/// Uplink: 25 RBs, 3 UEs: 25 / 3 = 8 RBs each, the remainder to the first: contiguous 9, 8, 8.
/// With 10 UEs the share would be 2 RBs, raised to ns-3's 3: eight UEs get 3 RBs and the
/// last RB is left (fewer than 3).
#[test]
fn uplink_splits_contiguous_blocks_with_at_least_three_rbs() {
    for kind in [SchedulerKind::RoundRobin, SchedulerKind::ProportionalFair, SchedulerKind::MaxThroughput] {
        let mut s = Scheduler::new(kind, LinkDir::Uplink, 25, 10);
        let d: Vec<_> = (0..3).map(|u| want(u, SATURATED_BYTES, 10)).collect();
        let out = run(&mut s, RbMask::default(), &d);
        assert_eq!(
            out.iter().map(|t| t.rbs).collect::<Vec<_>>(),
            [(0, 9), (9, 8), (17, 8)].map(|(f, n)| RbMask::range(f, n))
        );
        assert_eq!(out[1].tbs_bits, tbs_bits(LinkDir::Uplink, 10, 8));
        let d: Vec<_> = (0..10).map(|u| want(u, SATURATED_BYTES, 10)).collect();
        let out = run(&mut s, RbMask::default(), &d);
        assert_eq!(out.len(), 8, "{kind:?}");
        assert!(out.iter().all(|t| t.rbs.count() == 3));
    }
}

/// Uplink around a retransmission on RBs 5..10: blocks go in the free runs.
#[test]
fn uplink_places_blocks_around_busy_rbs() {
    let mut s = Scheduler::new(SchedulerKind::RoundRobin, LinkDir::Uplink, 15, 2);
    let out = run(&mut s, RbMask::range(5, 5), &[want(0, SATURATED_BYTES, 10), want(1, SATURATED_BYTES, 10)]);
    assert_eq!(out.iter().map(|t| t.rbs).collect::<Vec<_>>(), vec![RbMask::range(0, 5), RbMask::range(10, 5)]);
}

/// A TCP ACK's worth of uplink data (56 bytes + BSR + MAC = 59 bytes = 472 bits): MCS 10 (UL
/// I_TBS 10) carries 328 bits on 2 PRBs and 504 on 3 (Table 7.1.7.2.1-1): 3 RBs, not 25.
#[test]
fn uplink_grant_is_capped_at_the_reported_buffer() {
    assert_eq!((tbs_bits(LinkDir::Uplink, 10, 2), tbs_bits(LinkDir::Uplink, 10, 3)), (328, 504));
    let mut s = Scheduler::new(SchedulerKind::ProportionalFair, LinkDir::Uplink, 25, 1);
    let out = run(&mut s, RbMask::default(), &[want(0, 56, 10)]);
    assert_eq!(out[0].rbs, RbMask::range(0, 3));
}

/// The downlink's RBG masks, built once per scheduler, are TS 36.213 §7.1.6.1's RBGs at every
/// bandwidth (the last one partial where P does not divide the band).
#[test]
fn unit_masks_are_the_bands_rbgs() {
    for n_rbs in 1..=RbMask::MAX_RBS {
        let s = Scheduler::new(SchedulerKind::ProportionalFair, LinkDir::Downlink, n_rbs, 1);
        let p = rbg::rbg_size(n_rbs);
        for i in 0..rbg::rbg_count(n_rbs) {
            assert_eq!(s.unit_mask(i), rbg::rbg_mask(i, p, n_rbs), "{n_rbs} RBs, RBG {i}");
        }
    }
}

/// A buffer no band can carry (MCS 28 on 100 PRBs is 75376 bits) takes every free RBG, one no
/// larger than an RBG takes one: a bulk candidate is never full, a light one is at its first RBG.
#[test]
fn a_bulk_candidate_takes_the_band_and_a_light_one_its_need() {
    let mut s = Scheduler::new(SchedulerKind::ProportionalFair, LinkDir::Downlink, 100, 2);
    let busy = RbMask::range(8, 4);
    let out = run(&mut s, busy, &[want(0, SATURATED_BYTES, 28)]);
    assert_eq!(out[0].rbs, RbMask::range(0, 100).intersection(RbMask(!busy.0)));
    let out = run(&mut s, RbMask::default(), &[want(1, 20, 28)]);
    assert_eq!(out[0].rbs, RbMask::range(0, 4));
}

/// (policy, direction, band RBs, busy RB bits, per UE (buffered bytes, MCS, free HARQ)).
type Case = (SchedulerKind, LinkDir, u32, u128, Vec<(u32, u8, bool)>);

fn arb_case() -> impl Strategy<Value = Case> {
    let kind = prop_oneof![
        Just(SchedulerKind::RoundRobin),
        Just(SchedulerKind::ProportionalFair),
        Just(SchedulerKind::MaxThroughput)
    ];
    let dir = prop_oneof![Just(LinkDir::Downlink), Just(LinkDir::Uplink)];
    let n_rbs = prop_oneof![Just(6u32), Just(15), Just(25), Just(50), Just(75), Just(100), 1u32..=110];
    let ues =
        prop::collection::vec((prop_oneof![Just(0u32), 1u32..200, 1u32..2_000_000], 0u8..=28, any::<bool>()), 1..20);
    (kind, dir, n_rbs, any::<u128>(), ues)
}

proptest! {
    /// For any demand: masks are disjoint from each other and from `busy`, inside the band,
    /// one TB per UE, only UEs with data and a free HARQ process, TBS from the table, uplink
    /// blocks contiguous; over several TTIs (so PF/RR state moves).
    #[test]
    fn allocations_never_overlap_and_fit_the_band((kind, dir, n_rbs, busy_bits, ues) in arb_case()) {
        let mut s = Scheduler::new(kind, dir, n_rbs, ues.len());
        let band = RbMask::range(0, n_rbs);
        let d: Vec<_> = ues.iter().enumerate().map(|(u, (b, m, h))| UeDemand { ue: UeIndex(u as u16), buffered_bytes: *b, mcs: *m, out_of_range: RbMask::default(), has_free_harq: *h, rbg_mcs: None }).collect();
        for tti in 0..4u32 {
            let busy = RbMask(busy_bits.rotate_left(tti * 7) & band.0);
            let out = run(&mut s, busy, &d);
            let mut used = RbMask::default();
            for t in &out {
                let dem = d[t.ue.index()];
                prop_assert!(dem.buffered_bytes > 0 && dem.has_free_harq);
                prop_assert!(!t.rbs.is_empty() && !t.rbs.overlaps(used) && !t.rbs.overlaps(busy));
                prop_assert_eq!(t.rbs.0 & !band.0, 0);
                prop_assert_eq!(t.tbs_bits, tbs_bits(dir, t.mcs, t.rbs.count()));
                prop_assert_eq!(t.mcs, dem.mcs);
                if dir == LinkDir::Uplink {
                    let first = t.rbs.iter().next().unwrap();
                    prop_assert_eq!(t.rbs, RbMask::range(first, t.rbs.count()), "contiguous");
                }
                used = used.union(t.rbs);
            }
            prop_assert!(used.count() + busy.count() <= n_rbs);
            prop_assert!(out.windows(2).all(|w| w[0].ue < w[1].ue), "one TB per UE, by UE");
        }
    }
}

/// The allocation as first written, kept to check the faster one against: every RBG scans every
/// candidate (PF, MT), every need is a binary search, the cyclic order is a sort.
mod reference {
    use super::*;

    fn rotate(s: &mut Scheduler) {
        let (n, next) = (s.n_ues, s.next_ue);
        s.candidates.sort_unstable_by_key(|c| (c.ue.index() + n - next) % n);
    }

    fn best_per_rbg(s: &mut Scheduler, busy: RbMask, metric: impl Fn(UeIndex, f64) -> f64) {
        for i in 0..s.n_units() {
            let mask = s.unit_mask(i);
            if mask.overlaps(busy) {
                continue;
            }
            let mut best: Option<(usize, f64)> = None;
            for (k, c) in s.candidates.iter().enumerate() {
                if c.satisfied(s.dir) || mask.overlaps(c.out_of_range) {
                    continue;
                }
                let m = metric(c.ue, c.rbg_rate_bytes_per_s);
                match best {
                    Some((_, bm)) if m <= bm => {}
                    _ => best = Some((k, m)),
                }
            }
            let Some((k, _)) = best else { continue };
            s.candidates[k].rbs = s.candidates[k].rbs.union(mask);
        }
    }

    fn split_evenly(s: &mut Scheduler, free_units: u32, unit_rbs: u32, min_share: u32) {
        for k in 0..s.candidates.len() {
            let need = s.units_needed(&s.candidates[k], unit_rbs, free_units);
            let c = &mut s.candidates[k];
            c.target_units = need;
            c.split = Split::Open;
        }
        let (mut left, mut open) = (free_units, s.candidates.len() as u32);
        let share = loop {
            let share = (left / open.max(1)).max(min_share);
            let mut capped_now = 0;
            for c in s.candidates.iter_mut().filter(|c| c.split == Split::Open && c.target_units <= share) {
                c.split = Split::CappedAtNeed;
                left = left.saturating_sub(c.target_units);
                capped_now += 1;
            }
            open -= capped_now;
            if capped_now == 0 || open == 0 {
                break (left / open.max(1)).max(min_share);
            }
        };
        let mut extra = left.saturating_sub(share * open);
        for c in s.candidates.iter_mut().filter(|c| c.split == Split::Open) {
            c.target_units = share + u32::from(extra > 0);
            extra = extra.saturating_sub(1);
        }
    }

    fn round_robin(s: &mut Scheduler, busy: RbMask) {
        rotate(s);
        let free_rbgs = (0..s.n_units()).filter(|i| !s.unit_mask(*i).overlaps(busy)).count() as u32;
        split_evenly(s, free_rbgs, s.rbg_size, 1);
        let mut rbg = 0;
        for k in 0..s.candidates.len() {
            let mut want = s.candidates[k].target_units;
            while want > 0 && rbg < s.n_units() {
                let mask = s.unit_mask(rbg);
                rbg += 1;
                if !mask.overlaps(busy) && !mask.overlaps(s.candidates[k].out_of_range) {
                    s.candidates[k].rbs = s.candidates[k].rbs.union(mask);
                    want -= 1;
                }
            }
        }
    }

    fn uplink(s: &mut Scheduler, busy: RbMask) {
        rotate(s);
        let band = RbMask::range(0, s.n_rbs);
        let mut taken = RbMask(busy.0 & band.0);
        split_evenly(s, s.n_rbs - taken.count(), 1, contiguous::MIN_UL_RBS_PER_UE);
        for k in 0..s.candidates.len() {
            let want = s.candidates[k].target_units;
            let (first, len) = contiguous::place(s.n_rbs, taken, want);
            if len == 0 || len < want.min(contiguous::MIN_UL_RBS_PER_UE) {
                return;
            }
            let rbs = RbMask::range(first, len);
            s.candidates[k].rbs = rbs;
            taken = taken.union(rbs);
        }
    }

    /// `Scheduler::schedule` with the allocation above.
    pub(super) fn schedule(s: &mut Scheduler, busy: RbMask, demand: &[UeDemand], out: &mut Vec<NewTb>) {
        s.collect_candidates(demand);
        if !s.candidates.is_empty() {
            match (s.dir, s.kind) {
                (LinkDir::Uplink, _) => uplink(s, busy),
                (LinkDir::Downlink, SchedulerKind::RoundRobin) => round_robin(s, busy),
                (LinkDir::Downlink, SchedulerKind::ProportionalFair) => {
                    let pf = std::mem::take(&mut s.pf);
                    best_per_rbg(s, busy, |ue, rate| pf.metric(ue, rate));
                    s.pf = pf;
                }
                (LinkDir::Downlink, SchedulerKind::MaxThroughput) => best_per_rbg(s, busy, max_throughput::metric),
            }
        }
        // The pointer as first written: the candidates ranked by their distance from it.
        let (n, next) = (s.n_ues, s.next_ue);
        let key = |c: &Candidate| (c.ue.index() + n - next) % n;
        let unserved = s.candidates.iter().filter(|c| c.rbs.is_empty()).min_by_key(|c| key(c));
        let first = s.candidates.iter().min_by_key(|c| key(c));
        s.next_ue = match (unserved, first) {
            (Some(c), _) => c.ue.index(),
            (None, Some(c)) => (c.ue.index() + 1) % n,
            (None, None) => next,
        };
        s.candidates.sort_unstable_by_key(|c| c.ue);
        s.rotated_by = 0;
        let first_out = out.len();
        for c in s.candidates.iter().filter(|c| !c.rbs.is_empty()) {
            out.push(NewTb { ue: c.ue, rbs: c.rbs, mcs: c.mcs, tbs_bits: tbs_bits(s.dir, c.mcs, c.rbs.count()) });
        }
        s.pf.update(&out[first_out..]);
    }
}

proptest! {
    /// The allocation equals the one first written (reference above) TTI after TTI, for every
    /// policy, direction, grant sizing and last-RBG rule, with busy RBs and out-of-range
    /// sub-bands, and more UEs than RBGs.
    #[test]
    fn allocation_equals_the_reference(
        (kind, dir, n_rbs, busy_bits, ues) in arb_case(),
        whole_share in any::<bool>(),
        last_unused in any::<bool>(),
        oor_bits in prop::collection::vec(any::<u128>(), 1..4),
        extra_ues in 0usize..40,
    ) {
        let sizing = if whole_share { GrantSizing::WholeShare } else { GrantSizing::ToNeed };
        let last = if last_unused { rbg::LastRbg::Unused } else { rbg::LastRbg::Used };
        let n = ues.len() + extra_ues;
        let make = || Scheduler::new(kind, dir, n_rbs, n).with_grant_sizing(sizing).with_last_rbg(last);
        let (mut fast, mut slow) = (make(), make());
        let band = RbMask::range(0, n_rbs);
        let d: Vec<_> = (0..n).map(|u| {
            let (b, m, h) = ues.get(u).copied().unwrap_or((1_000 + 37 * u as u32, (u % 29) as u8, true));
            // Sparse out-of-range sub-bands (one in four bits), downlink only.
            let oor = if dir == LinkDir::Downlink { RbMask(oor_bits[u % oor_bits.len()] & (oor_bits[0] >> 1) & (oor_bits[0] >> 2) & band.0) } else { RbMask::default() };
            UeDemand { ue: UeIndex(u as u16), buffered_bytes: b, mcs: m, out_of_range: oor, has_free_harq: h, rbg_mcs: None }
        }).collect();
        for tti in 0..5u32 {
            let busy = RbMask(busy_bits.rotate_left(tti * 11) & band.0 & (busy_bits >> 3));
            let (mut a, mut b) = (Vec::new(), Vec::new());
            fast.schedule(busy, &d, &mut a);
            reference::schedule(&mut slow, busy, &d, &mut b);
            prop_assert_eq!(&a, &b, "TTI {}", tti);
            prop_assert_eq!(fast.next_ue, slow.next_ue, "TTI {}", tti);
        }
    }
}

/// (PF or MT, band RBs, busy RB bits, per UE (data, free HARQ, per-RBG MCS, `None` = out of range)).
type SubbandCase = (SchedulerKind, u32, u128, Vec<(bool, bool, Vec<Option<u8>>)>);

fn arb_subband_case() -> impl Strategy<Value = SubbandCase> {
    let kind = prop_oneof![Just(SchedulerKind::ProportionalFair), Just(SchedulerKind::MaxThroughput)];
    let n_rbs = prop_oneof![Just(6u32), Just(25), Just(50), Just(100), 1u32..=110];
    let sb = prop::collection::vec(prop::option::weighted(0.9, 0u8..=28), MAX_SUBBANDS);
    (kind, n_rbs, any::<u128>(), prop::collection::vec((any::<bool>(), any::<bool>(), sb), 1..12))
}

proptest! {
    /// Sub-band ranking, whole shares, over several TTIs (PF averages move): each granted RBG
    /// went to a UE in range there whose metric on that RBG (its own sub-band's rate, over its
    /// average before the TTI for PF) is the highest of the eligible UEs' (ties: lowest index);
    /// no free RBG with an eligible UE stays empty; a TB's MCS is the lowest of its RBGs'.
    #[test]
    fn per_subband_allocation_gives_each_rbg_to_the_best_metric((kind, n_rbs, busy_bits, ues) in arb_subband_case()) {
        let mut s = Scheduler::new(kind, LinkDir::Downlink, n_rbs, ues.len()).with_grant_sizing(GrantSizing::WholeShare);
        let band = RbMask::range(0, n_rbs);
        let p = rbg::rbg_size(n_rbs);
        let d: Vec<_> = ues.iter().enumerate().map(|(u, (data, harq, sb))| {
            let per_rbg: Vec<u8> = sb.iter().map(|m| m.unwrap_or(SUBBAND_OUT_OF_RANGE)).collect();
            let mcs = per_rbg.iter().copied().filter(|&m| m != SUBBAND_OUT_OF_RANGE).min().unwrap_or(0);
            UeDemand { rbg_mcs: Some(per_rbg.try_into().unwrap()), has_free_harq: *harq, ..want(u as u16, if *data { SATURATED_BYTES } else { 0 }, mcs) }
        }).collect();
        let rate = |m: u8| f64::from(tbs_bits(LinkDir::Downlink, m, p)) / 8.0 / 0.001;
        for tti in 0..4u32 {
            let busy = RbMask(busy_bits.rotate_left(tti * 7) & band.0);
            let avg: Vec<f64> = (0..ues.len()).map(|u| s.average_throughput_bytes_per_s(UeIndex(u as u16))).collect();
            let metric = |u: usize, i: u32| -> Option<f64> {
                let m = d[u].rbg_mcs.unwrap()[i as usize];
                let eligible = d[u].buffered_bytes > 0 && d[u].has_free_harq && m != SUBBAND_OUT_OF_RANGE;
                eligible.then(|| match kind {
                    SchedulerKind::ProportionalFair => rate(m) / avg[u],
                    _ => rate(m),
                })
            };
            let out = run(&mut s, busy, &d);
            for i in 0..n_rbs.div_ceil(p) {
                let mask = rbg::rbg_mask(i, p, n_rbs);
                let owner = out.iter().find(|t| t.rbs.overlaps(mask)).map(|t| t.ue.index());
                let best = (0..ues.len()).filter_map(|u| metric(u, i).map(|m| (u, m)))
                    .fold(None, |b: Option<(usize, f64)>, (u, m)| if b.is_none_or(|(_, bm)| m > bm) { Some((u, m)) } else { b });
                if mask.overlaps(busy) {
                    prop_assert_eq!(owner, None);
                } else {
                    prop_assert_eq!(owner, best.map(|(u, _)| u), "RBG {}", i);
                }
            }
            for t in &out {
                let rbg_mcs = d[t.ue.index()].rbg_mcs.unwrap();
                let lowest = (0..n_rbs.div_ceil(p)).filter(|&i| t.rbs.overlaps(rbg::rbg_mask(i, p, n_rbs))).map(|i| rbg_mcs[i as usize]).min();
                prop_assert_eq!(Some(t.mcs), lowest);
                prop_assert_eq!(t.tbs_bits, tbs_bits(LinkDir::Downlink, t.mcs, t.rbs.count()));
            }
        }
    }
}
