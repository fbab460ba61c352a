//! The BSS driven directly: saturated exchanges against their worked airtime, airtime fairness,
//! and the delivery invariants under random loads and channels (property tests).

use super::*;
use crate::sim::NS_PER_MS;
use proptest::prelude::*;
use std::collections::HashMap;

/// A BSS of `n_sta` stations on a circle of `radius_m` around the AP, built from `extra` JSON fields.
fn bss(n_sta: usize, radius_m: f64, extra: serde_json::Value) -> Bss {
    let stations: Vec<serde_json::Value> = (0..n_sta)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n_sta as f64;
            serde_json::json!({"node": format!("sta{i}"), "placement": {"position_m": [radius_m * a.cos(), radius_m * a.sin()]}})
        })
        .collect();
    let mut doc = serde_json::json!({"id": "b", "ap": "ap", "channel_width_mhz": 20, "stations": stations});
    for (k, v) in extra.as_object().expect("an object") {
        doc[k] = v.clone();
    }
    let spec: BssSpec = serde_json::from_value(doc).expect("a BSS spec");
    let node = |name: &str| match name {
        "ap" => NodeId(0),
        s => NodeId(1 + s.trim_start_matches("sta").parse::<u32>().expect("staN")),
    };
    Bss::build(&spec, &node, vec![Ac::Be], 7, SimDuration::from_ms(100), SimTime::from_secs_f64(100.0))
}

/// Drives a BSS with synthetic packets and records what comes out.
struct Harness {
    bss: Bss,
    now: SimTime,
    out: BssOutput,
    next: u32,
    /// Per packet: (from, to, enqueued at).
    sent: HashMap<u32, (NodeId, NodeId, SimTime)>,
    delivered: Vec<(NodeId, PacketId, SimTime)>,
    dropped: Vec<(PacketId, SimTime)>,
    refused: u32,
    delivered_bytes: HashMap<NodeId, u64>,
}

impl Harness {
    fn new(bss: Bss) -> Self {
        Harness {
            bss,
            now: SimTime::ZERO,
            out: BssOutput::default(),
            next: 0,
            sent: HashMap::new(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            refused: 0,
            delivered_bytes: HashMap::new(),
        }
    }

    fn send(&mut self, from: u32, to: u32, bytes: u32) {
        let id = PacketId(self.next);
        self.next += 1;
        let (from, to) = (NodeId(from), NodeId(to));
        match self.bss.enqueue(self.now, from, to, id, bytes, FlowId(0)) {
            BssEnqueued::Accepted => {
                self.sent.insert(id.0, (from, to, self.now));
            }
            BssEnqueued::Dropped(_) => self.refused += 1,
        }
    }

    /// Run the BSS up to `t`.
    fn run_to(&mut self, t: SimTime) {
        while let Some(d) = self.bss.poll_timeout() {
            if d > t {
                break;
            }
            self.now = d.max(self.now);
            self.bss.handle_timeout(self.now, &mut self.out);
            for (node, id) in self.out.delivered.drain(..) {
                self.delivered.push((node, id, self.now));
            }
            for id in self.out.dropped.drain(..) {
                self.dropped.push((id, self.now));
            }
        }
        self.now = self.now.max(t);
    }

    /// Keep each flow's queue topped up with `bytes`-byte packets (offered faster than any rate
    /// the BSS carries) while running to `t`.
    fn saturate(&mut self, flows: &[(u32, u32)], bytes: u32, t: SimTime) {
        let step = SimDuration::from_ns(NS_PER_MS);
        // 1 Gbit/s offered per flow.
        let per_ms = 1_000_000 / (8 * bytes);
        while self.now < t {
            for &(from, to) in flows {
                for _ in 0..per_ms {
                    self.send(from, to, bytes);
                }
            }
            let next = self.now + step;
            self.run_to(next);
        }
        for (node, _, _) in &self.delivered {
            *self.delivered_bytes.entry(*node).or_default() += u64::from(bytes);
        }
    }
}

#[test]
fn a_saturated_downlink_takes_its_worked_exchange_time() {
    // ns3 profile (BE TXOP 0): one A-MPDU per TXOP. MCS 7, 20 MHz, 1500 B IP packets: 1544-octet
    // subframes; aPPDUMaxTime 5.484 ms holds 28 (43232 octets: (8 x 43232 + 22) / 260 -> 1331
    // symbols, 40 + 5324 = 5364 us). A TXOP: AIFS[BE] 43 us + mean backoff 7.5 x 9 us + PPDU
    // 5364 us + SIFS 16 us + BlockAck at 24 Mb/s 32 us = 5522.5 us for 28 x 1500 B: 60.84 Mbit/s.
    let mut h = Harness::new(bss(
        1,
        5.0,
        serde_json::json!({"profile": "ns3", "rate_manager": {"kind": "constant", "mcs": 7}}),
    ));
    h.saturate(&[(0, 1)], 1500, SimTime::from_secs_f64(2.0));
    let mbps = h.delivered_bytes[&NodeId(1)] as f64 * 8.0 / 2.0 / 1e6;
    assert!((mbps - 60.84).abs() < 0.4, "{mbps} Mbit/s");
    // Past the first slot (while the queue fills), every A-MPDU at the aPPDUMaxTime limit.
    let w = &h.bss.slots[0][0];
    let (mpdus, ppdus): (u64, u64) = w.slots[1..20].iter().fold((0, 0), |(m, p), s| (m + s.mpdus_sum, p + s.ppdus));
    assert_eq!(mpdus, 28 * ppdus);
}

#[test]
fn the_standard_be_txop_limit_caps_each_a_mpdu() {
    // IEEE 802.11-2020 Table 9-155: BE TXOP limit 2.528 ms: 12 MPDUs of 1500 B per A-MPDU
    // (ampdu.rs), one exchange per TXOP (2372 us leave no room for a second).
    let mut h = Harness::new(bss(1, 5.0, serde_json::json!({"rate_manager": {"kind": "constant", "mcs": 7}})));
    h.saturate(&[(0, 1)], 1500, SimTime::from_secs_f64(1.0));
    let w = &h.bss.slots[0][0];
    let (mpdus, ppdus): (u64, u64) = w.slots[1..10].iter().fold((0, 0), |(m, p), s| (m + s.mpdus_sum, p + s.ppdus));
    assert_eq!(mpdus, 12 * ppdus);
}

#[test]
fn a_txop_carries_several_window_limited_a_mpdus_of_small_packets() {
    // 200 B packets at MCS 9 with 3 streams (N_DBPS 1040): an A-MPDU is capped by the 64-MPDU
    // window (64 x 244 octets: 120 symbols, 52 + 480 = 532 us). One exchange per TXOP (ns-3's BE
    // TXOP 0): 43 + 67.5 + 532 + 16 + 32 = 690.5 us per 64 packets, 92.7 k packets/s. BE's
    // 2.528 ms TXOP holds four such exchanges SIFS apart and a fifth of the 5 MPDUs that fit in
    // the 144 us left: 261 packets per ~2.64 ms, ~99 k packets/s.
    let run = |profile: &str| {
        let extra = serde_json::json!({"profile": profile, "rate_manager": {"kind": "constant", "mcs": 9},
            "ap_radio": {"spatial_streams": 3}});
        let mut b = bss(1, 2.0, extra);
        b.stations[1].nss = 3;
        b.stations[0].rates[0] = RateManager::new(
            crate::wifi::rate_control::RateManagerSpec::Constant { mcs: 9 },
            LinkCaps { width: Width::Mhz20, gi: GuardInterval::Normal800, nss: 3, fec: Fec::Bcc },
            RngStream::new(1, "r"),
        );
        let mut h = Harness::new(b);
        h.saturate(&[(0, 1)], 200, SimTime::from_secs_f64(1.0));
        let w = &h.bss.slots[0][0];
        let (mpdus, ppdus) = w.slots[1..].iter().fold((0, 0), |(m, p), s| (m + s.mpdus_sum, p + s.ppdus));
        (h.delivered.len() as f64, mpdus, ppdus)
    };
    let (standard, _, _) = run("standard");
    let (ns3, mpdus, ppdus) = run("ns3");
    assert_eq!(mpdus, 64 * ppdus, "one window-limited A-MPDU per TXOP");
    assert!((ns3 - 92_700.0).abs() < 500.0, "{ns3} packets/s");
    assert!((standard - 99_000.0).abs() < 1_000.0, "{standard} packets/s");
}

#[test]
fn two_saturating_stations_share_the_airtime_equally() {
    // Both stations send uplink: each gets half the TXOPs (DCF fairness). A-MPDUs of 4 MPDUs
    // (~0.8 ms) give ~2700 TXOPs each in 5 s: the shares' sampling error is ~1 %, the bound 3 %.
    let extra =
        serde_json::json!({"profile": "ns3", "rate_manager": {"kind": "constant", "mcs": 7}, "max_ampdu_bytes": 6200});
    let mut h = Harness::new(bss(2, 5.0, extra));
    h.saturate(&[(1, 0), (2, 0)], 1500, SimTime::from_secs_f64(5.0));
    let air = |sta: usize| h.bss.slots[sta][1].slots.iter().map(|s| s.airtime_ns).sum::<u64>() as f64;
    let (a, b) = (air(0), air(1));
    assert!((a - b).abs() / (a + b) < 0.03, "airtime {a} vs {b}");
    let collisions: u64 = (0..2).flat_map(|s| h.bss.slots[s][1].slots.iter().map(|x| x.collisions)).sum();
    assert!(collisions > 0, "two contenders with CWmin 15 collide now and then");
}

#[test]
fn rts_cts_adds_its_worked_overhead_to_each_exchange() {
    // As the saturated downlink above, each PSDU behind RTS (20 octets at 6 Mb/s: 52 us) and CTS
    // (14 octets at 6 Mb/s: 44 us), each SIFS apart: 5522.5 + 52 + 16 + 44 + 16 = 5650.5 us per
    // 28 x 1500 B: 59.47 Mbit/s.
    let extra = serde_json::json!({"profile": "ns3", "rate_manager": {"kind": "constant", "mcs": 7},
        "rts_cts_threshold_bytes": 0});
    let mut h = Harness::new(bss(1, 5.0, extra));
    h.saturate(&[(0, 1)], 1500, SimTime::from_secs_f64(2.0));
    let mbps = h.delivered_bytes[&NodeId(1)] as f64 * 8.0 / 2.0 / 1e6;
    assert!((mbps - 59.47).abs() < 0.4, "{mbps} Mbit/s");
}

/// Two stations 60 m apart on either side of the AP: each hears the AP (-75 dBm, 19 dB of SNR)
/// but not the other (-84 dBm, below the -82 dBm CCA threshold): hidden from each other.
fn hidden_pair(rts_threshold: u32) -> Harness {
    let stations = serde_json::json!([
        {"node": "sta0", "placement": {"position_m": [-30.0, 0.0]}},
        {"node": "sta1", "placement": {"position_m": [30.0, 0.0]}},
    ]);
    let extra = serde_json::json!({"profile": "ns3", "rate_manager": {"kind": "constant", "mcs": 3},
        "rts_cts_threshold_bytes": rts_threshold, "max_ampdu_bytes": 6200, "stations": stations});
    let mut h = Harness::new(bss(2, 30.0, extra));
    h.saturate(&[(1, 0), (2, 0)], 1500, SimTime::from_secs_f64(3.0));
    h
}

#[test]
fn rts_cts_protects_hidden_stations_through_the_nav() {
    let (plain, protected) = (hidden_pair(65_535), hidden_pair(0));
    let collisions =
        |h: &Harness| (0..2).flat_map(|s| h.bss.slots[s][1].slots.iter().map(|x| x.collisions)).sum::<u64>();
    let delivered = |h: &Harness| h.delivered.len();
    // Unprotected, a hidden station's A-MPDU is hit whenever the other starts during it.
    assert!(
        collisions(&plain) > 5 * collisions(&protected).max(1),
        "{} vs {}",
        collisions(&plain),
        collisions(&protected)
    );
    // The CTS sets the other station's NAV: more gets through (seed 7: 5293 against 4122 packets in
    // 3 s, of the ~6500 MCS 3 carries), despite RTS/CTS's own ~6 % and its short RTS collisions.
    assert!(
        delivered(&protected) as f64 > 1.2 * delivered(&plain) as f64,
        "{} vs {}",
        delivered(&protected),
        delivered(&plain)
    );
}

#[test]
fn ideal_and_minstrel_find_a_rate_a_far_station_can_take() {
    // 40 m: 42 - 30 log10(8) = 15 dB of SNR at 20 MHz, too little for MCS 7 (it needs ~20 dB).
    let run = |manager: serde_json::Value| {
        let mut h = Harness::new(bss(1, 40.0, serde_json::json!({"profile": "ns3", "rate_manager": manager})));
        h.saturate(&[(0, 1)], 1500, SimTime::from_secs_f64(2.0));
        let w = &h.bss.slots[0][0];
        let (mcs, ppdus) = w.slots[5..].iter().fold((0, 0), |(m, p), s| (m + s.mcs_sum, p + s.ppdus));
        (h.delivered.len(), mcs as f64 / ppdus as f64)
    };
    let (constant, _) = run(serde_json::json!({"kind": "constant", "mcs": 7}));
    let (ideal, ideal_mcs) = run(serde_json::json!({"kind": "ideal"}));
    let (minstrel, minstrel_mcs) = run(serde_json::json!({"kind": "minstrel_ht"}));
    assert!(ideal > 10 * constant.max(1) && minstrel > 10 * constant.max(1), "{constant} {ideal} {minstrel}");
    assert!((2.0..7.0).contains(&ideal_mcs) && (2.0..7.0).contains(&minstrel_mcs), "{ideal_mcs} {minstrel_mcs}");
}

#[test]
fn an_idle_bss_asks_for_no_wake_up() {
    let mut h = Harness::new(bss(3, 5.0, serde_json::json!({})));
    assert_eq!(h.bss.poll_timeout(), None);
    h.send(0, 2, 1000);
    h.run_to(SimTime::from_secs_f64(1.0));
    assert_eq!(h.delivered.len(), 1);
    assert_eq!(h.bss.poll_timeout(), None, "post-backoff without frames needs no event");
}

/// Every packet is delivered at most once, in order per link; a packet lost in the BSS waited at
/// least its lifetime; what is neither delivered nor lost is still held.
fn check_invariants(h: &Harness, lifetime_ms: f64) {
    let mut seen = HashMap::new();
    for (node, id, _) in &h.delivered {
        assert!(seen.insert(id.0, "delivered").is_none(), "packet {} delivered twice", id.0);
        assert_eq!(h.sent[&id.0].1, *node, "delivered to its next hop");
    }
    for (id, at) in &h.dropped {
        assert!(seen.insert(id.0, "dropped").is_none(), "packet {} delivered and dropped", id.0);
        let queued = h.sent[&id.0].2;
        assert!((*at - queued).as_ns() as f64 >= lifetime_ms * 1e6, "packet {} lost before its lifetime", id.0);
    }
    // Per (from, to), deliveries come in enqueue order (the reordering buffer's job).
    let mut last: HashMap<(NodeId, NodeId), u32> = HashMap::new();
    for (_, id, _) in &h.delivered {
        let (from, to, _) = h.sent[&id.0];
        if let Some(prev) = last.insert((from, to), id.0) {
            assert!(prev < id.0, "link {from:?}->{to:?}: {} after {prev}", id.0);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// Random loads over a channel near MCS 7's threshold (the stations far enough for MPDU
    /// losses), short lifetimes so MPDUs expire: the delivery invariants hold throughout.
    #[test]
    fn no_mpdu_is_delivered_twice_or_lost_before_its_lifetime(
        n_sta in 1usize..4,
        radius_m in 30.0f64..60.0,
        lifetime_ms in 5.0f64..80.0,
        sends in proptest::collection::vec((0u32..4, 0u32..4, 200u32..1500, 0u64..3), 50..400),
        seed_mcs in 5u8..8,
    ) {
        let extra = serde_json::json!({
            "msdu_lifetime_ms": lifetime_ms,
            "rate_manager": {"kind": "constant", "mcs": seed_mcs},
            "queue_packets": 64,
        });
        let mut h = Harness::new(bss(n_sta, radius_m, extra));
        let n = n_sta as u32 + 1;
        for (a, b, bytes, gap_ms) in sends {
            let (from, to) = (a % n, b % n);
            // Data goes AP <-> station only.
            if (from == 0) == (to == 0) {
                continue;
            }
            h.send(from, to, bytes);
            let t = h.now + SimDuration::from_ns(gap_ms * NS_PER_MS);
            h.run_to(t);
        }
        h.run_to(h.now + SimDuration::from_ns(2_000 * NS_PER_MS));
        check_invariants(&h, lifetime_ms);
        let accounted = h.delivered.len() + h.dropped.len();
        prop_assert!(accounted <= h.sent.len());
    }
}
