//! Semantic checks beyond what the types say: ranges, references, combinations.
//! Each failure names the field path, the value and what is allowed.

use super::{
    AppSpec, DirectionSpec, LinkSpec, LossSpec, NodeKind, QueueSpec, Scenario, TcpSpec, Transport, DEFAULT_CCA,
    SCHEMA_VERSION,
};
use crate::cc::{CcConfig, REGISTRY};
use crate::error::ScenarioError;
use std::collections::{HashMap, HashSet};

/// Smallest MTU IPv4 allows (RFC 791).
pub(super) const MIN_MTU_BYTES: u32 = 68;
/// Largest IPv4 datagram (RFC 791 total-length field).
pub(super) const MAX_MTU_BYTES: u32 = 65_535;
/// A day of simulated time: beyond it a typo is likelier than intent.
pub const MAX_DURATION_S: f64 = 86_400.0;
/// Slowest rate a link or application may have, Mbit/s: 1 kbit/s, below any data
/// service a CCA is studied on (GSM circuit data is 9.6 kbit/s, 3GPP TS 22.002).
pub const MIN_RATE_MBPS: f64 = 0.001;
/// Fastest rate, Mbit/s: 100 Gbit/s, the fastest Ethernet rate of IEEE 802.3ba.
pub const MAX_RATE_MBPS: f64 = 100_000.0;
/// Longest one-way propagation delay, ms: 10 s, beyond any terrestrial or satellite
/// path (a geostationary hop is ~270 ms one way).
pub const MAX_DELAY_MS: f64 = 10_000.0;
/// Largest queue limit, packets and bytes: a full queue must fit in memory
/// (a queued packet costs ~100 B of engine memory whatever its size).
pub const MAX_QUEUE_PACKETS: u32 = 1_000_000;
pub const MAX_QUEUE_BYTES: u64 = 1 << 30;
/// Shortest interval between an application's writes (rate-limited) or datagrams (CBR), ns:
/// a 100 Gbit/s link carries a 1500 B packet every 120 ns, so a faster tick is a
/// mistake (e.g. a rate in bit/s written as Mbit/s), and ticks of 1 ns would stop the clock.
pub const MIN_APP_TICK_NS: f64 = 100.0;
/// Shortest and longest TCP timer setting (RTO bounds, delayed-ACK timer), ms:
/// 1 µs, and 10 minutes (5 x Linux TCP_RTO_MAX, include/net/tcp.h).
pub const MIN_TIMER_MS: f64 = 0.001;
pub const MAX_TIMER_MS: f64 = 600_000.0;
/// Smallest MSS, bytes: Linux TCP_MIN_MSS (include/net/tcp.h).
pub const MIN_MSS_BYTES: u32 = 88;
/// Largest socket buffer, bytes: the largest TCP window with window scaling, 2^30 (RFC 7323 §2.3).
pub const MAX_SOCKET_BUF_BYTES: u64 = 1 << 30;
/// Largest initial window, segments (RFC 6928 recommends 10; CDNs use tens to hundreds).
pub const MAX_INITIAL_CWND_SEGS: u32 = 100_000;
/// Most SYN retransmissions: Linux MAX_TCP_SYNCNT (include/net/tcp.h).
pub const MAX_SYN_RETRIES: u32 = 127;
/// Largest application write, bytes (1 GiB).
pub const MAX_WRITE_BYTES: u32 = 1 << 30;
/// Most rows the slotted tables (`timeseries`: one per flow and slot; `queues`: one per
/// link direction and slot) may have together: 2 M rows are ~200 MB in Python.
/// A run asking for more must use wider slots (`output.slot_ms`).
pub const MAX_SLOT_ROWS: f64 = 2_000_000.0;
/// Narrowest slot, ms (1 µs).
pub const MIN_SLOT_MS: f64 = 0.001;

/// Largest `finite` application transfer, bytes: what the fastest link carries in the
/// longest run (MAX_RATE_MBPS x MAX_DURATION_S / 8, ~1.08 x 10^15 B); more could never finish.
pub const MAX_FINITE_BYTES: u64 = 1_080_000_000_000_000;

pub(super) type Check = Result<(), ScenarioError>;

/// A number as a message shows it: plain when it reads well, else in exponent form
/// (`1e300`, not three hundred digits).
struct Num(f64);

/// Magnitudes shown plainly: [1e-4, 1e16).
const PLAIN_MIN: f64 = 1e-4;
const PLAIN_MAX: f64 = 1e16;

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || !a.is_finite() || (PLAIN_MIN..PLAIN_MAX).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// `x` rounded up to three significant digits, so that a bound shown to the user is itself allowed.
fn round_up_3(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(2 - x.log10().floor() as i32);
    (x * scale).ceil() / scale
}

pub(super) fn ensure(ok: bool, path: impl FnOnce() -> String, value: impl std::fmt::Display, allowed: &str) -> Check {
    if ok {
        Ok(())
    } else {
        Err(ScenarioError::new(path(), value, allowed))
    }
}

pub(super) fn positive(x: f64, path: impl FnOnce() -> String) -> Check {
    ensure(x.is_finite() && x > 0.0, path, Num(x), "a finite number > 0")
}

/// `x` in `[lo, hi]` (finite), else an error naming the range and its unit.
fn within(x: f64, lo: f64, hi: f64, unit: &str, path: impl FnOnce() -> String) -> Check {
    ensure(x.is_finite() && (lo..=hi).contains(&x), path, Num(x), &format!("{unit} in [{}, {}]", Num(lo), Num(hi)))
}

fn rate(x: f64, path: impl FnOnce() -> String) -> Check {
    within(x, MIN_RATE_MBPS, MAX_RATE_MBPS, "Mbit/s", path)
}

fn probability(x: f64, path: impl FnOnce() -> String) -> Check {
    ensure((0.0..=1.0).contains(&x), path, Num(x), "a probability in [0, 1]")
}

pub(super) fn unique_id(seen: &mut HashSet<String>, id: &str, path: impl Fn() -> String) -> Check {
    ensure(!id.is_empty(), &path, "\"\"", "a non-empty id")?;
    ensure(seen.insert(id.to_string()), path, format!("{id:?}"), "an id not used before")
}

impl Scenario {
    pub fn validate(&self) -> Check {
        ensure(self.version == SCHEMA_VERSION, || "version".into(), self.version, "1")?;
        ensure(
            self.duration_s.is_finite() && self.duration_s > 0.0 && self.duration_s <= MAX_DURATION_S,
            || "duration_s".into(),
            Num(self.duration_s),
            "seconds in (0, 86400]",
        )?;
        let mut node_ids = HashSet::new();
        for (i, n) in self.nodes.iter().enumerate() {
            unique_id(&mut node_ids, &n.id, || format!("nodes[{i}].id"))?;
        }
        ensure(!self.nodes.is_empty(), || "nodes".into(), "[]", "at least two nodes")?;
        self.tcp.validate("tcp")?;
        let mut link_ids = HashSet::new();
        for (i, l) in self.links.iter().enumerate() {
            unique_id(&mut link_ids, &l.id, || format!("links[{i}].id"))?;
            self.validate_link(i, l)?;
        }
        self.validate_cells()?;
        self.validate_network()?;
        self.validate_bsses()?;
        ensure(!self.flows.is_empty(), || "flows".into(), "[]", "at least one flow")?;
        let mut flow_ids = HashSet::new();
        let components = self.components();
        for i in 0..self.flows.len() {
            unique_id(&mut flow_ids, &self.flow_id(i), || format!("flows[{i}].id"))?;
            self.validate_flow(i, &components)?;
        }
        self.validate_output(&link_ids)
    }

    pub(super) fn node_ref(&self, name: &str, path: impl FnOnce() -> String) -> Result<NodeKind, ScenarioError> {
        self.nodes.iter().find(|n| n.id == name).map(|n| n.kind).ok_or_else(|| {
            let known: Vec<&str> = self.nodes.iter().map(|n| n.id.as_str()).collect();
            ScenarioError::new(path(), format!("{name:?}"), format!("one of the node ids {known:?}"))
        })
    }

    /// Every (a, b) pair a link or a cell joins, both ways.
    fn adjacencies(&self) -> impl Iterator<Item = (&str, &str)> {
        let links = self.links.iter().map(|l| (l.a.as_str(), l.b.as_str()));
        let cells = self.cells.iter().flat_map(|c| c.ues.iter().map(move |u| (c.enb.as_str(), u.node.as_str())));
        let bsses = self.bsses.iter().flat_map(|b| b.stations.iter().map(move |s| (b.ap.as_str(), s.node.as_str())));
        let nr = self.nr_cells.iter().flat_map(|c| c.ues.iter().map(move |u| (c.gnb.as_str(), u.node.as_str())));
        links.chain(cells).chain(bsses).chain(nr).flat_map(|(a, b)| [(a, b), (b, a)])
    }

    /// Each node's connected component (links and cells are full duplex, so reachability is
    /// undirected): one labelling for every flow's check, linear in nodes and joins.
    fn components(&self) -> HashMap<&str, usize> {
        let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
        for (from, to) in self.adjacencies() {
            next.entry(from).or_default().push(to);
        }
        let mut label: HashMap<&str, usize> = HashMap::new();
        for (c, n) in self.nodes.iter().enumerate() {
            if label.contains_key(n.id.as_str()) {
                continue;
            }
            label.insert(n.id.as_str(), c);
            let mut frontier = vec![n.id.as_str()];
            while let Some(u) = frontier.pop() {
                for &to in next.get(u).into_iter().flatten() {
                    if label.insert(to, c).is_none() {
                        frontier.push(to);
                    }
                }
            }
        }
        label
    }

    fn validate_link(&self, i: usize, l: &LinkSpec) -> Check {
        let p = |f: &str| format!("links[{i}].{f}");
        self.node_ref(&l.a, || p("a"))?;
        self.node_ref(&l.b, || p("b"))?;
        ensure(l.a != l.b, || p("b"), format!("{:?}", l.b), "a node other than `a`")?;
        ensure(
            (MIN_MTU_BYTES..=MAX_MTU_BYTES).contains(&l.mtu_bytes),
            || p("mtu_bytes"),
            l.mtu_bytes,
            "bytes in [68, 65535]",
        )?;
        if let Some(t) = l.tunnel {
            let least = MIN_MTU_BYTES + t.overhead_bytes();
            ensure(l.mtu_bytes >= least, || p("mtu_bytes"), l.mtu_bytes, &format!("bytes >= {least} with a tunnel"))?;
        }
        for (dir, over) in [("forward", &l.forward), ("reverse", &l.reverse)] {
            let d = l.direction(over);
            let dp = |f: &str| format!("links[{i}].{dir}.{f}");
            match (d.rate_mbps, &d.trace) {
                (Some(_), Some(_)) => {
                    return Err(ScenarioError::new(
                        dp("trace"),
                        "both rate_mbps and trace",
                        "exactly one of rate_mbps or trace",
                    ))
                }
                (None, None) => {
                    return Err(ScenarioError::new(
                        p("rate_mbps"),
                        "",
                        "missing: give rate_mbps or trace (for both directions, or in forward/reverse)",
                    ))
                }
                (Some(r), None) => rate(r, || dp("rate_mbps"))?,
                (None, Some(t)) => ensure(!t.is_empty(), || dp("trace"), "\"\"", "a path to a Mahimahi trace file")?,
            }
            validate_rate_changes(&d, &dp("rate_changes"))?;
            within(d.delay_ms.unwrap_or(0.0), 0.0, MAX_DELAY_MS, "ms", || dp("delay_ms"))?;
            if let Some(q) = &d.queue {
                validate_queue(q, &dp("queue"))?;
            }
            if let Some(loss) = &d.loss {
                validate_loss(loss, &dp("loss"))?;
            }
        }
        Ok(())
    }

    fn validate_flow(&self, i: usize, components: &HashMap<&str, usize>) -> Check {
        let f = &self.flows[i];
        let p = |s: &str| format!("flows[{i}].{s}");
        for (field, name) in [("src", &f.src), ("dst", &f.dst)] {
            let kind = self.node_ref(name, || p(field))?;
            ensure(
                kind.is_end_system(),
                || p(field),
                format!("{name:?} (a {})", kind_name(kind)),
                "a host, ue or sta node",
            )?;
        }
        ensure(f.src != f.dst, || p("dst"), format!("{:?}", f.dst), "a host other than `src`")?;
        ensure(
            components.get(f.src.as_str()).is_some_and(|c| components.get(f.dst.as_str()) == Some(c)),
            || p("dst"),
            format!("{:?}", f.dst),
            "a host joined to `src` by links, cells or BSSes (no chain of them reaches it)",
        )?;
        ensure(
            f.start_s.is_finite() && f.start_s >= 0.0 && f.start_s < self.duration_s,
            || p("start_s"),
            Num(f.start_s),
            "seconds in [0, duration_s)",
        )?;
        if let Some(stop) = f.stop_s {
            ensure(
                stop.is_finite() && stop > f.start_s && stop <= MAX_DURATION_S,
                || p("stop_s"),
                Num(stop),
                "seconds in (start_s, 86400]",
            )?;
        }
        match (&f.transport, &f.app) {
            (Transport::Udp, AppSpec::Cbr { .. })
            | (Transport::Tcp, AppSpec::Bulk | AppSpec::Finite { .. } | AppSpec::RateLimited { .. }) => {}
            (Transport::Udp, _) => {
                return Err(ScenarioError::new(p("app.kind"), "a TCP application", "\"cbr\" for transport = \"udp\""))
            }
            (Transport::Tcp, _) => {
                return Err(ScenarioError::new(
                    p("app.kind"),
                    "\"cbr\"",
                    "\"bulk\", \"finite\" or \"rate_limited\" for transport = \"tcp\" (cbr needs transport = \"udp\")",
                ))
            }
        }
        validate_app(&f.app, &p("app"))?;
        if f.transport == Transport::Udp {
            ensure(f.cca.is_none() && f.cca_params.is_none(), || p("cca"), "set", "no cca for a UDP flow")?;
            return Ok(());
        }
        if let Some(t) = &f.tcp {
            t.validate(&p("tcp"))?;
        }
        self.flow_cca(i).map(|_| ())
    }

    /// The flow's congestion control with its parameters, checked against the registry.
    pub fn flow_cca(&self, i: usize) -> Result<CcConfig, ScenarioError> {
        let f = &self.flows[i];
        let name = f.cca.as_deref().unwrap_or(DEFAULT_CCA);
        if CcConfig::doc(name).is_none() {
            let names: Vec<&str> = REGISTRY.iter().map(|d| d.name).collect();
            return Err(ScenarioError::new(
                format!("flows[{i}].cca"),
                format!("{name:?}"),
                format!("one of {}", names.join(", ")),
            ));
        }
        let mut obj = f.cca_params.clone().unwrap_or_default();
        if obj.contains_key("name") {
            return Err(ScenarioError::new(
                format!("flows[{i}].cca_params.name"),
                "set",
                "no `name` here: the algorithm is chosen by `cca`",
            ));
        }
        obj.insert("name".into(), serde_json::Value::String(name.into()));
        let text = serde_json::Value::Object(obj).to_string();
        let de = &mut serde_json::Deserializer::from_str(&text);
        let cfg = serde_path_to_error::deserialize::<_, CcConfig>(de).map_err(|e| {
            let field = e.path().to_string();
            let params = CcConfig::default_params(name).map(|v| v.to_string()).unwrap_or_default();
            let path =
                if field == "." { format!("flows[{i}].cca_params") } else { format!("flows[{i}].cca_params.{field}") };
            let msg = e.inner().to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            ScenarioError::new(path, "", format!("{msg}; parameters of {name} with defaults: {params}"))
        })?;
        cfg.validate()
            .map_err(|e| ScenarioError::new(format!("flows[{i}].cca_params.{}", e.field), e.value, e.allowed))?;
        Ok(cfg)
    }

    fn validate_output(&self, link_ids: &HashSet<String>) -> Check {
        within(self.output.slot_ms, MIN_SLOT_MS, MAX_DURATION_S * 1e3, "ms", || "output.slot_ms".into())?;
        // One timeseries row per flow and slot, one queues row per link direction and slot.
        // One series per flow, per link direction, and per LTE UE direction (the `lte` table).
        let ue_dirs: usize = self.cells.iter().map(|c| 2 * c.ues.len()).sum::<usize>()
            + self.bsses.iter().map(|b| 2 * b.stations.len()).sum::<usize>()
            + self.nr_cells.iter().map(|c| 2 * c.ues.len()).sum::<usize>();
        let series = (self.flows.len() + 2 * self.links.len() + ue_dirs) as f64;
        let slots_ms = |slot_ms: f64| (self.duration_s * 1e3 / slot_ms).ceil();
        // The narrowest slot within the budget: duration / floor(rows / series), shown rounded up.
        let min_slot_ms = round_up_3(self.duration_s * 1e3 / (MAX_SLOT_ROWS / series).floor());
        ensure(
            slots_ms(self.output.slot_ms) * series <= MAX_SLOT_ROWS,
            || "output.slot_ms".into(),
            Num(self.output.slot_ms),
            &format!(
                "ms >= {} for this scenario: duration_s / slot x (flows + 2 x links + 2 x UEs + 2 x stations) must be at most \
                 {MAX_SLOT_ROWS} output rows",
                Num(min_slot_ms)
            ),
        )?;
        for (i, cap) in self.output.pcap.iter().enumerate() {
            let (id, dir) = cap.split_once(':').unwrap_or((cap.as_str(), "both"));
            ensure(
                link_ids.contains(id) && matches!(dir, "both" | "forward" | "reverse"),
                || format!("output.pcap[{i}]"),
                format!("{cap:?}"),
                "a link id, optionally with \":forward\" or \":reverse\"",
            )?;
        }
        Ok(())
    }
}

impl LinkSpec {
    /// One direction's settings: its override, else the link's own.
    pub fn direction(&self, over: &DirectionSpec) -> DirectionSpec {
        DirectionSpec {
            rate_mbps: over.rate_mbps.or(if over.trace.is_some() { None } else { self.rate_mbps }),
            rate_changes: over.rate_changes.clone().or_else(|| {
                if over.trace.is_some() {
                    None
                } else {
                    self.rate_changes.clone()
                }
            }),
            delay_ms: over.delay_ms.or(self.delay_ms),
            queue: over.queue.clone().or_else(|| self.queue.clone()),
            loss: over.loss.clone().or_else(|| self.loss.clone()),
            trace: over.trace.clone().or_else(|| if over.rate_mbps.is_some() { None } else { self.trace.clone() }),
        }
    }
}

fn kind_name(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Host => "host",
        NodeKind::Router => "router",
        NodeKind::Enb => "enb",
        NodeKind::Ue => "ue",
        NodeKind::Ap => "ap",
        NodeKind::Sta => "sta",
        NodeKind::Gnb => "gnb",
    }
}

fn validate_rate_changes(d: &DirectionSpec, path: &str) -> Check {
    let Some(changes) = &d.rate_changes else { return Ok(()) };
    ensure(d.trace.is_none(), || path.to_string(), "set with a trace", "rate_changes only on a rate_mbps link")?;
    let mut last = 0.0;
    for (i, c) in changes.iter().enumerate() {
        ensure(
            c.at_s.is_finite() && c.at_s > last && c.at_s <= MAX_DURATION_S,
            || format!("{path}[{i}].at_s"),
            Num(c.at_s),
            "seconds in (0, 86400], increasing",
        )?;
        rate(c.rate_mbps, || format!("{path}[{i}].rate_mbps"))?;
        last = c.at_s;
    }
    Ok(())
}

fn validate_queue(q: &QueueSpec, path: &str) -> Check {
    let QueueSpec::DropTail { limit_packets, limit_bytes, ecn_threshold_packets } = q;
    let packets = format!("packets in [1, {MAX_QUEUE_PACKETS}]");
    if let Some(k) = ecn_threshold_packets {
        ensure((1..=MAX_QUEUE_PACKETS).contains(k), || format!("{path}.ecn_threshold_packets"), k, &packets)?;
    }
    match (limit_packets, limit_bytes) {
        (Some(n), None) => ensure((1..=MAX_QUEUE_PACKETS).contains(n), || format!("{path}.limit_packets"), n, &packets),
        (None, Some(b)) => ensure(
            (1..=MAX_QUEUE_BYTES).contains(b),
            || format!("{path}.limit_bytes"),
            b,
            &format!("bytes in [1, {MAX_QUEUE_BYTES}]"),
        ),
        _ => Err(ScenarioError::new(path, "", "exactly one of limit_packets or limit_bytes")),
    }
}

fn validate_loss(l: &LossSpec, path: &str) -> Check {
    match l {
        LossSpec::None => Ok(()),
        LossSpec::Bernoulli { p } => probability(*p, || format!("{path}.p")),
        LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
            probability(*p_good_to_bad, || format!("{path}.p_good_to_bad"))?;
            probability(*p_bad_to_good, || format!("{path}.p_bad_to_good"))?;
            probability(*loss_good, || format!("{path}.loss_good"))?;
            probability(*loss_bad, || format!("{path}.loss_bad"))
        }
    }
}

fn validate_app(a: &AppSpec, path: &str) -> Check {
    match a {
        AppSpec::Bulk => Ok(()),
        AppSpec::Finite { bytes } => ensure(
            (1..=MAX_FINITE_BYTES).contains(bytes),
            || format!("{path}.bytes"),
            bytes,
            &format!("bytes in [1, {MAX_FINITE_BYTES}] (what the fastest link carries in the longest run)"),
        ),
        AppSpec::RateLimited { rate_mbps, write_bytes } => {
            rate(*rate_mbps, || format!("{path}.rate_mbps"))?;
            let w = write_bytes.unwrap_or(MAX_MTU_BYTES);
            ensure(
                (1..=MAX_WRITE_BYTES).contains(&w),
                || format!("{path}.write_bytes"),
                w,
                &format!("bytes in [1, {MAX_WRITE_BYTES}]"),
            )?;
            // Without write_bytes a write is one MSS, and the rate bound keeps its tick >= 7 ns.
            write_bytes.map_or(Ok(()), |w| app_tick(w, *rate_mbps, || format!("{path}.rate_mbps")))
        }
        AppSpec::Cbr { rate_mbps, packet_bytes } => {
            rate(*rate_mbps, || format!("{path}.rate_mbps"))?;
            ensure(
                (1..=MAX_MTU_BYTES - 28).contains(packet_bytes),
                || format!("{path}.packet_bytes"),
                packet_bytes,
                "bytes in [1, 65507] (IPv4 + UDP headers take 28)",
            )?;
            app_tick(*packet_bytes, *rate_mbps, || format!("{path}.rate_mbps"))
        }
    }
}

/// One write (or datagram) of `bytes` at `rate_mbps` must take at least [`MIN_APP_TICK_NS`].
fn app_tick(bytes: u32, rate_mbps: f64, path: impl FnOnce() -> String) -> Check {
    let tick_ns = f64::from(bytes) * 8.0 / (rate_mbps * 1e6) * 1e9;
    let max_mbps = f64::from(bytes) * 8.0 / MIN_APP_TICK_NS * 1e3;
    ensure(
        tick_ns >= MIN_APP_TICK_NS,
        path,
        Num(rate_mbps),
        &format!("at most {} Mbit/s for {bytes} B writes (at most one write per {MIN_APP_TICK_NS} ns)", Num(max_mbps)),
    )
}

impl TcpSpec {
    pub fn validate(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        if let Some(m) = self.mss_bytes {
            ensure(
                (MIN_MSS_BYTES..=MAX_MTU_BYTES - 40).contains(&m),
                || p("mss_bytes"),
                m,
                &format!("bytes in [{MIN_MSS_BYTES}, 65495]"),
            )?;
        }
        for (name, v) in [
            ("min_rto_ms", self.min_rto_ms),
            ("initial_rto_ms", self.initial_rto_ms),
            ("max_rto_ms", self.max_rto_ms),
            ("delayed_ack_timeout_ms", self.delayed_ack_timeout_ms),
        ] {
            if let Some(x) = v {
                within(x, MIN_TIMER_MS, MAX_TIMER_MS, "ms", || p(name))?;
            }
        }
        if let (Some(lo), Some(hi)) = (self.min_rto_ms, self.max_rto_ms) {
            ensure(lo <= hi, || p("min_rto_ms"), Num(lo), "at most max_rto_ms")?;
        }
        for (name, v) in [
            ("delayed_ack_count", self.delayed_ack_count),
            ("initial_cwnd_segs", self.initial_cwnd_segs),
            ("dupack_threshold", self.dupack_threshold),
        ] {
            if let Some(x) = v {
                ensure(x >= 1, || p(name), x, "an integer >= 1")?;
            }
        }
        if let Some(r) = self.recovery {
            ensure(r <= super::tcp::MAX_TCP_RECOVERY, || p("recovery"), r, "a tcp_recovery bitmask in [0, 7]")?;
        }
        if let Some(e) = self.early_retrans {
            ensure(
                e <= super::tcp::MAX_TCP_EARLY_RETRANS,
                || p("early_retrans"),
                e,
                "a tcp_early_retrans value in [0, 4]",
            )?;
        }
        if let Some(f) = self.frto {
            ensure(f <= super::tcp::MAX_TCP_FRTO, || p("frto"), f, "a tcp_frto value in [0, 2]")?;
        }
        if let Some(m) = self.min_tso_segs {
            let ok = (1..=super::tcp::MAX_TCP_MIN_TSO_SEGS).contains(&m);
            ensure(ok, || p("min_tso_segs"), m, "a tcp_min_tso_segs value in [1, 255]")?;
        }
        if let Some(n) = self.comp_sack_nr {
            let ok = n <= crate::tcp::comp_sack::MAX_TCP_COMP_SACK_NR;
            ensure(ok, || p("comp_sack_nr"), n, "a tcp_comp_sack_nr value in [0, 255]")?;
        }
        if let Some(g) = self.gso_max_segs {
            let ok = (1..=crate::tcp::tso::LINUX_GSO_MAX_SEGS).contains(&g);
            ensure(ok, || p("gso_max_segs"), g, "a gso_max_segs value in [1, 65535]")?;
        }
        for (name, v, lo) in [
            ("rcv_buf_bytes", self.rcv_buf_bytes, MIN_RMEM_DEFAULT_BYTES),
            ("snd_buf_bytes", self.snd_buf_bytes, MIN_SNDBUF_BYTES),
        ] {
            if let Some(x) = v {
                ensure(
                    (lo..=MAX_SOCKET_BUF_BYTES).contains(&x),
                    || p(name),
                    x,
                    &format!("bytes in [{lo}, {MAX_SOCKET_BUF_BYTES}] (Linux SOCK_MIN_RCVBUF order; RFC 7323 largest window)"),
                )?;
            }
        }
        check_socket_buffer(
            &p,
            ("tcp_rmem", self.tcp_rmem),
            ("rcv_buf_bytes", self.rcv_buf_bytes),
            MIN_RMEM_DEFAULT_BYTES,
        )?;
        check_socket_buffer(&p, ("tcp_wmem", self.tcp_wmem), ("snd_buf_bytes", self.snd_buf_bytes), MIN_SNDBUF_BYTES)?;
        if let Some(n) = self.initial_cwnd_segs {
            ensure(
                n <= MAX_INITIAL_CWND_SEGS,
                || p("initial_cwnd_segs"),
                n,
                &format!("segments in [1, {MAX_INITIAL_CWND_SEGS}]"),
            )?;
        }
        if let Some(n) = self.syn_retries {
            ensure(n <= MAX_SYN_RETRIES, || p("syn_retries"), n, &format!("an integer in [0, {MAX_SYN_RETRIES}]"))?;
        }
        Ok(())
    }
}

/// Smallest `tcp_rmem[1]` the engine accepts: four 1500-byte packets of memory (4 x 2304 B truesize,
/// `tcp/rwnd.rs`), the floor Linux's old `tcp_fixup_rcvbuf` kept so that fast retransmit can work.
pub const MIN_RMEM_DEFAULT_BYTES: u64 = 4 * 2304;

/// Smallest send buffer the engine accepts, as before `tcp_wmem` was modelled: a buffer below one
/// skb still takes one write's skb (`tcp/sndbuf.rs`), so smaller values mean nothing more.
pub const MIN_SNDBUF_BYTES: u64 = 2048;

/// A Linux `[min, default, max]` buffer sysctl (`name`, `tcp_rmem` or `tcp_wmem`), ordered and in
/// range, its default at least `min_default`; `alias` (the field that is another name for its max,
/// `alias_name`) not contradicting it.
fn check_socket_buffer(
    p: &dyn Fn(&str) -> String,
    (name, buf): (&str, Option<[u64; 3]>),
    (alias_name, alias): (&str, Option<u64>),
    min_default: u64,
) -> Check {
    let Some(b) = buf else { return Ok(()) };
    let shown = format!("[{}, {}, {}]", b[0], b[1], b[2]);
    ensure(b[0] <= b[1] && b[1] <= b[2], || p(name), shown.as_str(), "[min, default, max] with min <= default <= max")?;
    ensure(
        (min_default..=MAX_SOCKET_BUF_BYTES).contains(&b[1]) && b[2] <= MAX_SOCKET_BUF_BYTES,
        || p(name),
        shown.as_str(),
        &format!("default in [{min_default}, {MAX_SOCKET_BUF_BYTES}] bytes, max at most {MAX_SOCKET_BUF_BYTES}"),
    )?;
    if let Some(a) = alias {
        ensure(a == b[2], || p(alias_name), a, &format!("{} ({name}[2]; it is another name for it)", b[2]))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::Scenario;
    use serde_json::json;

    fn base() -> serde_json::Value {
        json!({
            "version": 1, "duration_s": 1,
            "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}, {"id": "c", "kind": "host"}],
            "links": [{"id": "ab", "a": "a", "b": "b", "rate_mbps": 10}],
            "flows": [{"src": "a", "dst": "b", "app": {"kind": "bulk"}}]
        })
    }

    #[test]
    fn a_destination_no_link_reaches_is_named() {
        let mut v = base();
        v["flows"][0]["dst"] = json!("c");
        let e = Scenario::from_json(&v.to_string()).unwrap_err();
        assert_eq!(e.path, "flows[0].dst");
        assert!(e.allowed.contains("no chain of them reaches it"), "{e}");
    }

    #[test]
    fn reachability_follows_links_in_either_direction() {
        let mut v = base();
        v["links"] = json!([{"id": "ba", "a": "b", "b": "a", "rate_mbps": 10}]);
        assert!(Scenario::from_json(&v.to_string()).is_ok());
    }

    fn error_of(v: &serde_json::Value) -> crate::ScenarioError {
        Scenario::from_json(&v.to_string()).unwrap_err()
    }

    #[test]
    fn absurd_rates_and_delays_are_refused_with_the_value_and_the_allowed_range() {
        // The examples: delay_ms = 1e300 and rate_mbps = 1e-9 were accepted.
        let mut v = base();
        v["links"][0]["delay_ms"] = json!(1e300);
        let e = error_of(&v);
        assert_eq!(
            (e.path.as_str(), e.value.as_str(), e.allowed.as_str()),
            ("links[0].forward.delay_ms", "1e300", "ms in [0, 10000]")
        );
        let mut v = base();
        v["links"][0]["rate_mbps"] = json!(1e-9);
        let e = error_of(&v);
        assert_eq!(
            (e.path.as_str(), e.value.as_str(), e.allowed.as_str()),
            ("links[0].forward.rate_mbps", "1e-9", "Mbit/s in [0.001, 100000]")
        );
    }

    #[test]
    fn durations_and_sizes_beyond_the_longest_run_are_refused() {
        let mut v = base();
        v["flows"][0]["stop_s"] = json!(1e300);
        let e = error_of(&v);
        assert_eq!((e.path.as_str(), e.allowed.as_str()), ("flows[0].stop_s", "seconds in (start_s, 86400]"));
        let mut v = base();
        v["flows"][0]["app"] = json!({"kind": "finite", "bytes": super::MAX_FINITE_BYTES + 1});
        assert_eq!(error_of(&v).path, "flows[0].app.bytes");
        v["flows"][0]["app"] = json!({"kind": "finite", "bytes": super::MAX_FINITE_BYTES});
        assert!(Scenario::from_json(&v.to_string()).is_ok());
    }

    #[test]
    fn tcp_wmem_must_be_ordered_and_agree_with_snd_buf_bytes() {
        let mut v = base();
        v["flows"][0]["tcp"] = json!({"tcp_wmem": [4096, 16384, 8192]});
        let e = error_of(&v);
        assert_eq!((e.path.as_str(), e.value.as_str()), ("flows[0].tcp.tcp_wmem", "[4096, 16384, 8192]"));
        v["flows"][0]["tcp"] = json!({"tcp_wmem": [4096, 16384, 4194304], "snd_buf_bytes": 1000000});
        let e = error_of(&v);
        assert_eq!((e.path.as_str(), e.value.as_str()), ("flows[0].tcp.snd_buf_bytes", "1000000"));
        v["flows"][0]["tcp"] = json!({"tcp_wmem": [4096, 16384, 1000000], "snd_buf_bytes": 1000000});
        assert!(Scenario::from_json(&v.to_string()).is_ok());
    }

    #[test]
    fn tcp_rmem_must_be_ordered_and_agree_with_rcv_buf_bytes() {
        let mut v = base();
        v["flows"][0]["tcp"] = json!({"tcp_rmem": [4096, 131072, 65536]});
        let e = error_of(&v);
        assert_eq!((e.path.as_str(), e.value.as_str()), ("flows[0].tcp.tcp_rmem", "[4096, 131072, 65536]"));
        // A default below four full segments' memory (4 x 2304 B, tcp/rwnd.rs) is refused.
        v["flows"][0]["tcp"] = json!({"tcp_rmem": [4096, 8192, 65536]});
        assert_eq!(error_of(&v).path, "flows[0].tcp.tcp_rmem");
        v["flows"][0]["tcp"] = json!({"tcp_rmem": [4096, 131072, 6291456], "rcv_buf_bytes": 1000000});
        let e = error_of(&v);
        assert_eq!(
            (e.path.as_str(), e.allowed.as_str()),
            ("flows[0].tcp.rcv_buf_bytes", "6291456 (tcp_rmem[2]; it is another name for it)")
        );
        v["flows"][0]["tcp"] = json!({"tcp_rmem": [4096, 131072, 1000000], "rcv_buf_bytes": 1000000});
        assert!(Scenario::from_json(&v.to_string()).is_ok());
    }

    #[test]
    fn numbers_in_messages_are_plain_unless_very_large_or_small() {
        use super::Num;
        let shown: Vec<String> = [0.0, 0.001, 1e-9, 20.5, 1e15, 1e300, -1e300].map(|x| Num(x).to_string()).into();
        assert_eq!(shown, ["0", "0.001", "1e-9", "20.5", "1000000000000000", "1e300", "-1e300"]);
    }

    #[test]
    fn an_application_faster_than_one_write_per_100_ns_is_refused() {
        let mut v = base();
        v["flows"][0]["app"] = json!({"kind": "rate_limited", "rate_mbps": 1e300});
        assert_eq!(error_of(&v).path, "flows[0].app.rate_mbps");
        // 1000 B every 100 ns is 80 Gbit/s: allowed; 81 Gbit/s is not.
        v["flows"][0]["app"] = json!({"kind": "rate_limited", "rate_mbps": 80_000.0, "write_bytes": 1000});
        assert!(Scenario::from_json(&v.to_string()).is_ok());
        v["flows"][0]["app"] = json!({"kind": "rate_limited", "rate_mbps": 81_000.0, "write_bytes": 1000});
        let e = error_of(&v);
        assert!(e.allowed.starts_with("at most 80000 Mbit/s for 1000 B writes"), "{e}");
    }

    #[test]
    fn a_slot_too_narrow_for_the_row_budget_names_the_smallest_slot_allowed() {
        // 1 s x (1 flow + 2 link directions): at most floor(2e6 / 3) = 666666 slots, so a slot of
        // 1000 ms / 666666 = 0.0015000015 ms, shown rounded up to 3 digits: 0.00151 (itself allowed).
        let mut v = base();
        v["output"] = json!({"slot_ms": 1e-4});
        let e = error_of(&v);
        assert_eq!(e.path, "output.slot_ms");
        assert!(e.allowed.starts_with("ms in [0.001,"), "{e}");
        v["output"] = json!({"slot_ms": 0.001});
        let e = error_of(&v);
        assert!(e.allowed.starts_with("ms >= 0.00151 for this scenario"), "{e}");
        v["output"] = json!({"slot_ms": 0.00151});
        assert!(Scenario::from_json(&v.to_string()).is_ok());
        v["output"] = json!({"slot_ms": 0.0015});
        assert!(Scenario::from_json(&v.to_string()).is_err());
        v["output"] = json!({"slot_ms": 1.0});
        assert!(Scenario::from_json(&v.to_string()).is_ok());
    }
}
