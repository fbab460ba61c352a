//! An LTE network as written: the scenario's cells on one radio channel, each cell's
//! interference on its neighbours being what it actually transmits, and UEs handing over
//! between them (docs/lte/network.md).
//!
//! ```toml
//! [network.channel]                 # a cell's `channel` fields, shared by every cell and UE
//! pathloss = { model = "tr36814_uma" }
//! enb = { tx_power_dbm = 46, height_m = 25 }     # every site's defaults; the layout's centre
//! hex_layout = { rings = 1, isd_m = 500, sectors = 3 }
//! [network.handover]
//! time_to_trigger_ms = 256
//! [[cells]]
//! id = "c0"
//! enb = "enb0"
//! site = { hex_cell = 0 }            # or { position_m = [0, 0], antenna = {...} }
//! ```

use serde::{Deserialize, Serialize};

use super::lte::{CellSpec, SinrSpec};
use super::validate::{ensure, Check};
use super::Scenario;
use crate::lte::channel::spec::{AntennaSpec, ChannelSpec, FadingProfile, InterfererLoad};
use crate::lte::network::handover::{Forwarding, HandoverConfig, HandoverSettings, MeasurementSource};
use crate::lte::profile::RanProfile;
use crate::radio::antenna::hex_layout_all_cells;
use crate::radio::spec::{finite_point, in_range, positive_upto};

/// The network: its shared channel and its handover settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    /// The channel every cell and UE shares: carriers, noise figures, UE power control, path
    /// loss, shadowing, fading, as a cell's `channel` (docs/channel.md). `enb` gives every
    /// site's default height, power, noise figure and antenna, and the centre of `hex_layout`;
    /// the sites of `interferers` and the layout's cells no cell takes are interferer-only, with
    /// their load model.
    #[serde(default)]
    pub channel: ChannelSpec,
    /// Handover between the network's cells.
    #[serde(default)]
    pub handover: HandoverSpec,
}

/// Where a network cell's antenna is: its own position, or a cell of the network's hexagonal
/// layout.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteSpec {
    /// Position (x, y), m. Give this or `hex_cell`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_m: Option<[f64; 2]>,
    /// The layout cell this cell is: its index in the list of every layout cell, site by site
    /// (the grid's rows from the bottom, the centre site among them), sectors at 0, 120 and
    /// -120 degrees; the layout's antenna pattern and sector offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex_cell: Option<usize>,
    /// Antenna height, m, in (0, 200]. Default the network's `enb.height_m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_m: Option<f64>,
    /// Total transmit power, dBm, in [0, 60]. Default the network's `enb.tx_power_dbm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_power_dbm: Option<f64>,
    /// Transmit pattern (with `position_m`). Default the network's `enb.antenna`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub antenna: Option<AntennaSpec>,
}

/// Handover as written; every unset field takes the cells' profile's value
/// (`lte::network::handover`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandoverSpec {
    /// Hand UEs over. Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Event A3's offset Off, dB: -15..15 in steps of 0.5 (TS 36.331 a3-Offset). Default:
    /// operator 3 (srsRAN 4G `a3_offset = 6`), LENA 0 (`A3RsrpHandoverAlgorithm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a3_offset_db: Option<f64>,
    /// Event A3's hysteresis Hys, dB: 0..15 in steps of 0.5 (TS 36.331 hysteresis). Default:
    /// operator 0 (srsRAN 4G), LENA 3 (`A3RsrpHandoverAlgorithm::Hysteresis`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hysteresis_db: Option<f64>,
    /// Time to trigger, ms: one of TS 36.331's TimeToTrigger values. Default: operator 480
    /// (srsRAN 4G), LENA 256 (`A3RsrpHandoverAlgorithm::TimeToTrigger`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_trigger_ms: Option<u32>,
    /// Layer 3 filter coefficient k (TS 36.331 §5.5.3.2, filterCoefficient fc0..fc19).
    /// Default 4 (srsRAN 4G `rsrp_config`; ns-3 `LteEnbRrc::RsrpFilterCoefficient`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_coefficient: Option<u8>,
    /// Layer 1 measurement period, ms, in [1, 1000]. Default 200 (TS 36.133 §8.1.2.2;
    /// ns-3 `LteUePhy::UeMeasurementsFilterPeriod`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurement_period_ms: Option<u32>,
    /// From the measurement report to the handover command at the UE, ms, in [0, 1000].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preparation_ms: Option<f64>,
    /// From the handover command to the UE's first transmission in the target cell (RRC
    /// processing, random access), ms, in [0, 1000].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption_ms: Option<f64>,
    /// What the source eNB forwards over X2: "lossless", "seamless" or "none".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forwarding: Option<Forwarding>,
    /// X2-U one-way delay of forwarded data, ms, in [0, 1000].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x2_delay_ms: Option<f64>,
    /// Where the UEs' layer 1 RSRP samples come from: `{ kind = "channel" }` (default) or a
    /// trace `{ kind = "csv", file }` (columns `t_s,ue,cell,rsrp_dbm`: ns-3's measurements, so
    /// both simulators decide on the same samples).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurements: Option<MeasurementSource>,
}

/// Most cells a network may have (a cell's RB mask per TTI is kept for each).
pub const MAX_NETWORK_CELLS: usize = 512;

impl Scenario {
    /// A network's cells all have a site and share its channel; without a network no cell has a site.
    pub(super) fn validate_network(&self) -> Check {
        let Some(net) = &self.network else {
            for (i, c) in self.cells.iter().enumerate() {
                ensure(
                    c.site.is_none(),
                    || format!("cells[{i}].site"),
                    "{...}",
                    "absent: only a network's cells have a site",
                )?;
            }
            return Ok(());
        };
        ensure(!self.cells.is_empty(), || "cells".into(), "[]", "at least one cell in a network")?;
        ensure(
            self.cells.len() <= MAX_NETWORK_CELLS,
            || "cells".into(),
            self.cells.len(),
            "at most 512 cells in a network",
        )?;
        net.channel.validate("network.channel")?;
        if net.channel.fading.profile == FadingProfile::Hst {
            let allowed = "a multipath profile or none (TS 36.101 B.3's train is one link to one mast)";
            return Err(crate::error::ScenarioError::new("network.channel.fading.profile", "\"hst\"", allowed));
        }
        self.validate_interferer_only_uplink(&net.channel)?;
        let first = self.cells[0].resolve();
        let layout = net.channel.hex_layout.map(|l| hex_layout_all_cells(net.channel.enb.position_m, &l.grid()));
        let mut taken = std::collections::HashSet::new();
        for (i, c) in self.cells.iter().enumerate() {
            let p = |f: &str| format!("cells[{i}].{f}");
            ensure(c.channel.is_none(), || p("channel"), "{...}", "absent: a network's cells share `network.channel`")?;
            ensure(
                c.profile == first.profile,
                || p("profile"),
                format!("{:?}", c.profile),
                "the network's first cell's profile",
            )?;
            let mhz = c.resolve().bandwidth_mhz;
            ensure(
                mhz == first.bandwidth_mhz,
                || p("bandwidth_mhz"),
                mhz,
                "the bandwidth of the network's first cell (one carrier)",
            )?;
            let Some(site) = &c.site else {
                return Err(crate::error::ScenarioError::new(
                    p("site"),
                    "absent",
                    "{ position_m = [x, y] } or { hex_cell = N }",
                ));
            };
            site.validate(&p("site"), layout.as_ref().map(Vec::len))?;
            if let Some(k) = site.hex_cell {
                ensure(taken.insert(k), || p("site.hex_cell"), k, "a layout cell no other cell takes")?;
            }
            for (j, u) in c.ues.iter().enumerate() {
                let up = format!("cells[{i}].ues[{j}].sinr");
                match &u.sinr {
                    SinrSpec::Channel(placement) => net.channel.validate_placement(placement, &up)?,
                    _ => {
                        let allowed =
                            "{kind = \"channel\", position_m, ...} (a network's UEs are placed on its channel)";
                        return Err(crate::error::ScenarioError::new(
                            format!("{up}.kind"),
                            "a fixed, csv, ramp or sweep source",
                            allowed,
                        ));
                    }
                }
            }
        }
        net.handover.resolve(first.profile).validate("network.handover")
    }

    /// The network's own UEs load its cells' uplinks; an interferer-only site's uplink model
    /// (one UE dropped in its cell, `ul_interference.rs`) would stand beside them, and is refused.
    fn validate_interferer_only_uplink(&self, ch: &ChannelSpec) -> Check {
        let idle = InterfererLoad::Idle;
        for (i, f) in ch.interferers.iter().enumerate() {
            let path = || format!("network.channel.interferers[{i}].uplink_load");
            ensure(f.uplink_load == idle, path, format!("{:?}", f.uplink_load), "idle in a network")?;
        }
        if let Some(l) = &ch.hex_layout {
            let path = || "network.channel.hex_layout.uplink_load".to_string();
            ensure(l.uplink_load == idle, path, format!("{:?}", l.uplink_load), "idle in a network")?;
        }
        Ok(())
    }
}

impl SiteSpec {
    fn validate(&self, path: &str, layout_cells: Option<usize>) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        match (self.position_m, self.hex_cell) {
            (Some(xy), None) => finite_point(&xy, || p("position_m"))?,
            (None, Some(k)) => {
                let Some(n) = layout_cells else {
                    return Err(crate::error::ScenarioError::new(
                        p("hex_cell"),
                        k,
                        "absent: `network.channel` has no hex_layout",
                    ));
                };
                ensure(k < n, || p("hex_cell"), k, &format!("a layout cell index in [0, {})", n))?;
                ensure(
                    self.antenna.is_none(),
                    || p("antenna"),
                    "{...}",
                    "absent with hex_cell (the layout's pattern)",
                )?;
            }
            _ => {
                let allowed = "exactly one of position_m and hex_cell";
                return Err(crate::error::ScenarioError::new(path.to_string(), "{...}", allowed));
            }
        }
        if let Some(h) = self.height_m {
            positive_upto(h, 200.0, || p("height_m"), "m in (0, 200]")?;
        }
        if let Some(t) = self.tx_power_dbm {
            in_range(t, 0.0, 60.0, || p("tx_power_dbm"), "dBm in [0, 60]")?;
        }
        self.antenna.as_ref().map_or(Ok(()), |a| a.validate(&p("antenna")))
    }
}

impl HandoverSpec {
    /// The handover as it runs: each unset field from `profile`'s (`lte::profile`).
    pub fn resolve(&self, profile: RanProfile) -> HandoverConfig {
        let d = &profile.defaults().handover;
        let settings = HandoverSettings {
            enabled: self.enabled.unwrap_or(d.enabled),
            a3_offset_db: self.a3_offset_db.unwrap_or(d.a3_offset_db),
            hysteresis_db: self.hysteresis_db.unwrap_or(d.hysteresis_db),
            time_to_trigger_ms: self.time_to_trigger_ms.unwrap_or(d.time_to_trigger_ms),
            filter_coefficient: self.filter_coefficient.unwrap_or(d.filter_coefficient),
            measurement_period_ms: self.measurement_period_ms.unwrap_or(d.measurement_period_ms),
            preparation_ms: self.preparation_ms.unwrap_or(d.preparation_ms),
            interruption_ms: self.interruption_ms.unwrap_or(d.interruption_ms),
            forwarding: self.forwarding.unwrap_or(d.forwarding),
            x2_delay_ms: self.x2_delay_ms.unwrap_or(d.x2_delay_ms),
        };
        HandoverConfig { settings, measurements: self.measurements.clone().unwrap_or(MeasurementSource::Channel) }
    }
}

impl CellSpec {
    /// A cell of a network: where its site is.
    pub fn in_network(&self) -> bool {
        self.site.is_some()
    }
}
