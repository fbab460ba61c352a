//! The Wi-Fi part of the scenario: basic service sets (an access point and its stations) and
//! how each runs 802.11ac.
//!
//! ```toml
//! [[nodes]]  id = "ap"    kind = "ap"
//! [[nodes]]  id = "sta0"  kind = "sta"
//! [[bsses]]
//! id = "bss0"
//! ap = "ap"
//! channel_width_mhz = 20
//! rate_manager = { kind = "constant", mcs = 7 }
//! [[bsses.stations]]
//! node = "sta0"
//! placement = { position_m = [5, 0] }
//! ```
//! Defaults are IEEE 802.11-2020's (and real devices') where the standard has one, ns-3 3.44's
//! where it leaves the choice open; `profile = "ns3"` switches the few places where ns-3 departs
//! from the standard (docs/wifi.md). Each field's doc gives unit, default and range.

use super::validate::{ensure, Check};
use super::{NodeKind, Scenario};
use crate::radio::spec::{in_range, PathLossSpec, Placement, ShadowingSpec, DEFAULT_LOG_DISTANCE_EXPONENT};
use crate::radio::spec::{DEFAULT_LOG_DISTANCE_REF_LOSS_DB, DEFAULT_LOG_DISTANCE_REF_M};
use crate::wifi::mac::edca::{Ac, AcParams};
use crate::wifi::mac::frames::MAX_IP_BYTES;
use crate::wifi::phy::vht::{GuardInterval, TxVector, Width, MAX_MCS, MAX_NSS};
use crate::wifi::rate_control::RateManagerSpec;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// One BSS: an access point and the stations associated with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BssSpec {
    pub id: String,
    /// The access point: a node of kind "ap"; it forwards between the BSS and its links.
    pub ap: String,
    /// The amendment: "ac" (VHT, IEEE 802.11-2020 clause 21). "n" and "ax" are not modelled yet.
    #[serde(default)]
    pub standard: Standard,
    /// The band: "5ghz" (802.11ac operates only there, §21.1.1).
    #[serde(default)]
    pub band: Band,
    /// Channel width, MHz: 20, 40, 80 or 160. Default 80 (the widest width every VHT device
    /// supports, §21.1.1; ns-3's default for 802.11ac).
    #[serde(default = "default_width_mhz")]
    pub channel_width_mhz: u32,
    /// Guard interval of the data symbols, ns: 800 or 400 (short GI). Default 800 (ns-3
    /// `HtConfiguration::ShortGuardIntervalSupported` false).
    #[serde(default = "default_gi_ns")]
    pub guard_interval_ns: u32,
    /// Forward error correction: "bcc" (mandatory, §21.3.10.5.2; ns-3's default) or "ldpc".
    #[serde(default)]
    pub fec: FecSpec,
    /// Rate control: `{ kind = "constant", mcs = 0..9 }`, `{ kind = "ideal" }` or
    /// `{ kind = "minstrel_ht" }` (default: Linux mac80211's).
    #[serde(default)]
    pub rate_manager: RateManagerSpec,
    /// RTS/CTS before any PSDU longer than this, octets, in [0, 1048575]. Default 65535
    /// (dot11RTSThreshold, IEEE 802.11-2020 Annex C: with A-MPDUs of at most 65535 octets, never).
    #[serde(default = "default_rts_threshold")]
    pub rts_cts_threshold_bytes: u32,
    /// Largest A-MPDU, octets, in [0, 1048575]; 0 sends one MPDU per PSDU. Default 65535
    /// (ns-3 `WifiMac::BE_MaxAmpduSize`; VHT allows up to 2^20 - 1, §9.4.2.157.2).
    #[serde(default = "default_max_ampdu")]
    pub max_ampdu_bytes: u32,
    /// Each station's MAC queue per access category, packets (MSDUs waiting plus MPDUs sent and
    /// not yet acknowledged), in [1, 1000000]. Default 500 (ns-3 `WifiMacQueue::MaxSize`).
    #[serde(default = "default_queue_packets")]
    pub queue_packets: u32,
    /// An MSDU not delivered this long after it entered the queue is discarded, ms, in (0, 60000].
    /// Default 512 (dot11EDCATableMSDULifetime 500 TU, Annex C); the ns3 profile's is 500.
    #[serde(default)]
    pub msdu_lifetime_ms: Option<f64>,
    /// Largest IP datagram the BSS carries, bytes, in [68, 2296] (an MSDU is at most 2304 octets
    /// with 8 of LLC/SNAP, §9.2.4.7). Default 1500 (Ethernet, to which an AP bridges).
    #[serde(default = "default_mtu")]
    pub mtu_bytes: u32,
    /// Transmit power of every station and the AP, dBm, in [-10, 30]. Default 16.0206 (ns-3
    /// `WifiPhy::TxPowerStart`/`TxPowerEnd`, 40 mW).
    #[serde(default = "default_tx_power")]
    pub tx_power_dbm: f64,
    /// Receiver noise figure, dB, in [0, 20]. Default 7 (ns-3 `WifiPhy::RxNoiseFigure`).
    #[serde(default = "default_noise_figure")]
    pub noise_figure_db: f64,
    /// Path loss between any two of the BSS's antennas, any model of the shared channel (indoors:
    /// `tgac` B-F, `itu_r1238`). Default log-distance with exponent 3 and 46.6777 dB at 1 m (ns-3
    /// `YansWifiChannelHelper::Default`'s `LogDistancePropagationLossModel`).
    #[serde(default = "default_pathloss")]
    pub pathloss: PathLossSpec,
    /// Log-normal shadowing per pair of stations; absent (default) = none.
    #[serde(default)]
    pub shadowing: Option<ShadowingSpec>,
    /// EDCA parameters per access category; each absent one is IEEE 802.11-2020 Table 9-155's
    /// (ns3 profile: TXOP limit 0 for BE and BK).
    #[serde(default)]
    pub edca: EdcaSpec,
    /// "standard" (default) or "ns3": ns-3 3.44's departures from the standard (BE/BK TXOP 0, no
    /// VHT-SIG-B in SU PPDUs, control responses chosen against the data rate, 500 ms lifetime).
    #[serde(default)]
    pub profile: WifiProfile,
    /// Where the AP stands and how many streams it has.
    #[serde(default)]
    pub ap_radio: ApRadio,
    /// The stations associated with the AP: 1 to 2007 (the association IDs, §9.4.1.8).
    pub stations: Vec<StationSpec>,
}

/// The AP's radio.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApRadio {
    /// Position, height (default 1.5 m) and mobility (default static). Default the origin.
    #[serde(default = "default_ap_placement")]
    pub placement: Placement,
    /// Spatial streams (= antennas), 1-4. Default 1 (ns-3 `WifiPhy::Antennas`,
    /// `MaxSupportedTxSpatialStreams`).
    #[serde(default = "one")]
    pub spatial_streams: u8,
}

impl Default for ApRadio {
    fn default() -> Self {
        ApRadio { placement: default_ap_placement(), spatial_streams: 1 }
    }
}

/// A station associated with the BSS.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StationSpec {
    /// A node of kind "sta": an end system that sources and sinks flows.
    pub node: String,
    /// Where it starts and how it moves (`position_m` required; height 1.5 m, static by default).
    pub placement: Placement,
    /// Spatial streams, 1-4, at most the AP's. Default 1.
    #[serde(default = "one")]
    pub spatial_streams: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standard {
    N,
    #[default]
    Ac,
    Ax,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Band {
    #[serde(rename = "2.4ghz")]
    Ghz2_4,
    #[default]
    #[serde(rename = "5ghz")]
    Ghz5,
    #[serde(rename = "6ghz")]
    Ghz6,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FecSpec {
    #[default]
    Bcc,
    Ldpc,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WifiProfile {
    #[default]
    Standard,
    Ns3,
}

/// Per-AC EDCA overrides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdcaSpec {
    #[serde(default)]
    pub bk: Option<AcParams>,
    #[serde(default)]
    pub be: Option<AcParams>,
    #[serde(default)]
    pub vi: Option<AcParams>,
    #[serde(default)]
    pub vo: Option<AcParams>,
}

impl EdcaSpec {
    fn get(&self, ac: Ac) -> Option<AcParams> {
        match ac {
            Ac::Bk => self.bk,
            Ac::Be => self.be,
            Ac::Vi => self.vi,
            Ac::Vo => self.vo,
        }
    }
}

/// 802.11ac's default width (see [`BssSpec::channel_width_mhz`]).
pub const DEFAULT_WIDTH_MHZ: u32 = 80;
/// ns-3 3.44 `WifiMacQueue::MaxSize` "500p".
pub const DEFAULT_QUEUE_PACKETS: u32 = 500;
/// dot11EDCATableMSDULifetime 500 TU (IEEE 802.11-2020 Annex C; 1 TU = 1024 us), ms.
pub const STANDARD_MSDU_LIFETIME_MS: f64 = 512.0;
/// ns-3 3.44 `WifiMacQueue::MaxDelay`, ms.
pub const NS3_MSDU_LIFETIME_MS: f64 = 500.0;
/// dot11RTSThreshold (Annex C), octets.
pub const DEFAULT_RTS_THRESHOLD_BYTES: u32 = 65_535;
/// ns-3 `WifiMac::BE_MaxAmpduSize`, octets.
pub const DEFAULT_MAX_AMPDU_BYTES: u32 = 65_535;
/// ns-3 `WifiPhy::TxPowerStart` / `TxPowerEnd`, dBm.
pub const DEFAULT_TX_POWER_DBM: f64 = 16.0206;
/// ns-3 `WifiPhy::RxNoiseFigure`, dB.
pub const DEFAULT_NOISE_FIGURE_DB: f64 = 7.0;
/// Antenna height of the AP and of a station unless given, m (radio::spec's terminal default).
const DEFAULT_AP_HEIGHT_M: f64 = crate::radio::spec::DEFAULT_UE_HEIGHT_M;
/// Largest A-MPDU of a VHT PPDU (§9.4.2.157.2), octets; also the largest RTS threshold.
const MAX_AMPDU_BYTES: u32 = (1 << 20) - 1;
/// Stations one AP can associate: AIDs run from 1 to 2007 (IEEE 802.11-2020 §9.4.1.8).
pub const MAX_STATIONS: usize = 2007;
const MAX_QUEUE_PACKETS: u32 = 1_000_000;
const MAX_LIFETIME_MS: f64 = 60_000.0;
const MIN_MTU_BYTES: u32 = 68;

fn default_width_mhz() -> u32 {
    DEFAULT_WIDTH_MHZ
}
fn default_gi_ns() -> u32 {
    800
}
fn default_rts_threshold() -> u32 {
    DEFAULT_RTS_THRESHOLD_BYTES
}
fn default_max_ampdu() -> u32 {
    DEFAULT_MAX_AMPDU_BYTES
}
fn default_queue_packets() -> u32 {
    DEFAULT_QUEUE_PACKETS
}
fn default_mtu() -> u32 {
    super::ETHERNET_MTU_BYTES
}
fn default_tx_power() -> f64 {
    DEFAULT_TX_POWER_DBM
}
fn default_noise_figure() -> f64 {
    DEFAULT_NOISE_FIGURE_DB
}
fn default_pathloss() -> PathLossSpec {
    PathLossSpec::LogDistance {
        exponent: DEFAULT_LOG_DISTANCE_EXPONENT,
        reference_distance_m: DEFAULT_LOG_DISTANCE_REF_M,
        reference_loss_db: DEFAULT_LOG_DISTANCE_REF_LOSS_DB,
    }
}
fn default_ap_placement() -> Placement {
    Placement { position_m: [0.0, 0.0], height_m: DEFAULT_AP_HEIGHT_M, mobility: Default::default() }
}
fn one() -> u8 {
    1
}

impl BssSpec {
    pub fn width(&self) -> Width {
        Width::from_mhz(self.channel_width_mhz).expect("validated width")
    }

    pub fn guard_interval(&self) -> GuardInterval {
        if self.guard_interval_ns == 400 {
            GuardInterval::Short400
        } else {
            GuardInterval::Normal800
        }
    }

    /// The EDCA parameters of `ac` as they run (an override, else the profile's default).
    pub fn ac_params(&self, ac: Ac) -> AcParams {
        self.edca.get(ac).unwrap_or(match self.profile {
            WifiProfile::Standard => AcParams::standard(ac),
            WifiProfile::Ns3 => AcParams::ns3(ac),
        })
    }

    /// The MSDU lifetime as it runs, ms.
    pub fn lifetime_ms(&self) -> f64 {
        self.msdu_lifetime_ms.unwrap_or(match self.profile {
            WifiProfile::Standard => STANDARD_MSDU_LIFETIME_MS,
            WifiProfile::Ns3 => NS3_MSDU_LIFETIME_MS,
        })
    }

    /// The centre frequency, MHz: the lowest channel of each width in U-NII-1 (channel 36 / 38 /
    /// 42 / 50: 5180 / 5190 / 5210 / 5250 MHz, §21.3.14; ns-3's default channel for each width).
    pub fn carrier_mhz(&self) -> f64 {
        match self.width() {
            Width::Mhz20 => 5180.0,
            Width::Mhz40 => 5190.0,
            Width::Mhz80 => 5210.0,
            Width::Mhz160 => 5250.0,
        }
    }
}

impl Scenario {
    pub(super) fn validate_bsses(&self) -> Check {
        let mut ids = HashSet::new();
        let mut attached = HashSet::new();
        for (i, b) in self.bsses.iter().enumerate() {
            super::validate::unique_id(&mut ids, &b.id, || format!("bsses[{i}].id"))?;
            b.validate(self, &format!("bsses[{i}]"), &mut attached)?;
        }
        for (i, n) in self.nodes.iter().enumerate() {
            let why = match n.kind {
                NodeKind::Ap if !self.bsses.iter().any(|b| b.ap == n.id) => "an AP is the `ap` of one BSS",
                NodeKind::Sta if !attached.contains(n.id.as_str()) => "a station is listed in one BSS's `stations`",
                _ => continue,
            };
            return Err(super::ScenarioError::new(format!("nodes[{i}].kind"), format!("{:?}", n.id), why));
        }
        for (i, f) in self.flows.iter().enumerate() {
            if let Some(ac) = f.access_category {
                let over_wifi = [&f.src, &f.dst].iter().any(|n| attached.contains(n.as_str()));
                ensure(
                    over_wifi,
                    || format!("flows[{i}].access_category"),
                    ac.name(),
                    "absent: the flow crosses no BSS",
                )?;
            }
        }
        Ok(())
    }
}

impl BssSpec {
    fn validate<'a>(&'a self, sc: &Scenario, path: &str, attached: &mut HashSet<&'a str>) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        let kind = sc.node_ref(&self.ap, || p("ap"))?;
        ensure(kind == NodeKind::Ap, || p("ap"), format!("{:?}", self.ap), "a node of kind \"ap\"")?;
        ensure(
            sc.bsses.iter().filter(|b| b.ap == self.ap).count() == 1,
            || p("ap"),
            format!("{:?}", self.ap),
            "an AP no other BSS uses",
        )?;
        self.validate_phy(path)?;
        self.validate_mac(path)?;
        in_range(self.tx_power_dbm, -10.0, 30.0, || p("tx_power_dbm"), "dBm in [-10, 30]")?;
        in_range(self.noise_figure_db, 0.0, 20.0, || p("noise_figure_db"), "dB in [0, 20]")?;
        self.validate_radio(path)?;
        for ac in Ac::ALL {
            if let Some(a) = self.edca.get(ac) {
                validate_ac(&a, &format!("{path}.edca.{}", ac.name()))?;
            }
        }
        self.validate_ap(path)?;
        self.validate_stations(sc, path, attached)
    }

    /// Standard, band, channel width and guard interval.
    fn validate_phy(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        let standard = match self.standard {
            Standard::N => "\"n\"",
            Standard::Ac => "\"ac\"",
            Standard::Ax => "\"ax\"",
        };
        ensure(
            self.standard == Standard::Ac,
            || p("standard"),
            standard,
            "\"ac\" (802.11n and 802.11ax are not modelled yet)",
        )?;
        let band = match self.band {
            Band::Ghz2_4 => "\"2.4ghz\"",
            Band::Ghz5 => "\"5ghz\"",
            Band::Ghz6 => "\"6ghz\"",
        };
        ensure(self.band == Band::Ghz5, || p("band"), band, "\"5ghz\" (802.11ac operates in the 5 GHz band only)")?;
        ensure(
            Width::from_mhz(self.channel_width_mhz).is_some(),
            || p("channel_width_mhz"),
            self.channel_width_mhz,
            "20, 40, 80 or 160 (MHz)",
        )?;
        ensure(
            matches!(self.guard_interval_ns, 400 | 800),
            || p("guard_interval_ns"),
            self.guard_interval_ns,
            "800 or 400 (ns)",
        )?;
        Ok(())
    }

    /// RTS threshold, aggregation, queue, lifetime and MTU.
    fn validate_mac(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        ensure(
            self.rts_cts_threshold_bytes <= MAX_AMPDU_BYTES,
            || p("rts_cts_threshold_bytes"),
            self.rts_cts_threshold_bytes,
            "octets in [0, 1048575]",
        )?;
        ensure(
            self.max_ampdu_bytes <= MAX_AMPDU_BYTES,
            || p("max_ampdu_bytes"),
            self.max_ampdu_bytes,
            "octets in [0, 1048575] (0: no aggregation)",
        )?;
        ensure(
            (1..=MAX_QUEUE_PACKETS).contains(&self.queue_packets),
            || p("queue_packets"),
            self.queue_packets,
            "packets in [1, 1000000]",
        )?;
        if let Some(ms) = self.msdu_lifetime_ms {
            ensure(
                ms.is_finite() && ms > 0.0 && ms <= MAX_LIFETIME_MS,
                || p("msdu_lifetime_ms"),
                ms,
                "ms in (0, 60000]",
            )?;
        }
        ensure(
            (MIN_MTU_BYTES..=MAX_IP_BYTES).contains(&self.mtu_bytes),
            || p("mtu_bytes"),
            self.mtu_bytes,
            "bytes in [68, 2296]",
        )?;
        Ok(())
    }

    /// The stations: each a "sta" node in this BSS only, placed, with streams the AP has.
    fn validate_stations<'a>(&'a self, sc: &Scenario, path: &str, attached: &mut HashSet<&'a str>) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        ensure(!self.stations.is_empty(), || p("stations"), "[]", "at least one station")?;
        ensure(
            self.stations.len() <= MAX_STATIONS,
            || p("stations"),
            format!("{} stations", self.stations.len()),
            "at most 2007 stations (association IDs 1-2007, IEEE 802.11-2020 9.4.1.8)",
        )?;
        for (j, s) in self.stations.iter().enumerate() {
            let sp = format!("{path}.stations[{j}]");
            let kind = sc.node_ref(&s.node, || format!("{sp}.node"))?;
            ensure(kind == NodeKind::Sta, || format!("{sp}.node"), format!("{:?}", s.node), "a node of kind \"sta\"")?;
            ensure(
                attached.insert(s.node.as_str()),
                || format!("{sp}.node"),
                format!("{:?}", s.node),
                "a station not in any other BSS or twice",
            )?;
            s.placement.validate(&format!("{sp}.placement"))?;
            self.pathloss.validate_ue_height(s.placement.height_m, &format!("{sp}.placement.height_m"))?;
            ensure(
                (1..=self.ap_radio.spatial_streams).contains(&s.spatial_streams),
                || format!("{sp}.spatial_streams"),
                s.spatial_streams,
                &format!("streams in [1, {}] (at most the AP's)", self.ap_radio.spatial_streams),
            )?;
            self.validate_constant_mcs(s.spatial_streams, path)?;
        }
        Ok(())
    }

    fn validate_ap(&self, path: &str) -> Check {
        let ap = &self.ap_radio;
        ap.placement.validate(&format!("{path}.ap_radio.placement"))?;
        ensure(
            (1..=MAX_NSS).contains(&ap.spatial_streams),
            || format!("{path}.ap_radio.spatial_streams"),
            ap.spatial_streams,
            "streams in [1, 4]",
        )
    }

    fn validate_radio(&self, path: &str) -> Check {
        let ctx = crate::radio::pathloss::LossContext {
            carriers_mhz: vec![(format!("{path}.channel_width_mhz"), self.carrier_mhz())],
            serving_height_m: (format!("{path}.ap_radio.placement.height_m"), self.ap_radio.placement.height_m),
            other_heights_m: Vec::new(),
        };
        self.pathloss.validate(path, &ctx)?;
        if let Some(s) = &self.shadowing {
            s.validate(&format!("{path}.shadowing"))?;
        }
        Ok(())
    }

    /// A constant MCS must exist at this width for a station's streams (§21.5, e.g. MCS 9 at 20 MHz
    /// needs 3 streams).
    fn validate_constant_mcs(&self, nss: u8, path: &str) -> Check {
        let RateManagerSpec::Constant { mcs } = self.rate_manager else { return Ok(()) };
        let p = || format!("{path}.rate_manager.mcs");
        ensure(mcs <= MAX_MCS, p, mcs, "a VHT-MCS in [0, 9]")?;
        let tx = TxVector { mcs, width: self.width(), nss, gi: self.guard_interval() };
        ensure(
            tx.is_valid(),
            p,
            format!("VhtMcs{mcs}"),
            &format!(
                "an MCS that exists at {} MHz with {nss} spatial stream(s): IEEE 802.11-2020 §21.5 omits VhtMcs{mcs} there",
                self.channel_width_mhz
            ),
        )
    }
}

/// §9.4.2.28: AIFSN 2..15 for a non-AP STA; CW = 2^ECW - 1 with ECW 0..15, CWmin <= CWmax;
/// TXOP limit in 32 us units up to 255 (8160 us).
fn validate_ac(a: &AcParams, path: &str) -> Check {
    let p = |f: &str| format!("{path}.{f}");
    let pow2_minus_1 = |cw: u32| cw <= 32_767 && (cw + 1).is_power_of_two();
    ensure((2..=15).contains(&a.aifsn), || p("aifsn"), a.aifsn, "slots in [2, 15]")?;
    ensure(pow2_minus_1(a.cw_min), || p("cw_min"), a.cw_min, "2^n - 1 in [0, 32767]")?;
    ensure(pow2_minus_1(a.cw_max) && a.cw_max >= a.cw_min, || p("cw_max"), a.cw_max, "2^n - 1 in [cw_min, 32767]")?;
    ensure(a.txop_limit_us <= 8160, || p("txop_limit_us"), a.txop_limit_us, "us in [0, 8160]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_bss_takes_the_defaults() {
        let b: BssSpec = serde_json::from_str(r#"{"id": "b", "ap": "ap", "stations": []}"#).unwrap();
        assert_eq!((b.channel_width_mhz, b.guard_interval_ns, b.queue_packets), (80, 800, 500));
        assert_eq!(b.rate_manager, RateManagerSpec::MinstrelHt);
        assert_eq!(b.ac_params(Ac::Be).txop_limit_us, 2528);
        assert_eq!(b.lifetime_ms(), 512.0);
        let ns3 = BssSpec { profile: WifiProfile::Ns3, ..b };
        assert_eq!((ns3.ac_params(Ac::Be).txop_limit_us, ns3.lifetime_ms()), (0, 500.0));
    }

    #[test]
    fn unknown_fields_are_refused() {
        assert!(serde_json::from_str::<BssSpec>(r#"{"id": "b", "ap": "ap", "stations": [], "widht": 20}"#).is_err());
    }
}
