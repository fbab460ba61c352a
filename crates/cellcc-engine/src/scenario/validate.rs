//! Semantic checks beyond what the types say: ranges, references, combinations.
//! Each failure names the field path, the value and what is allowed.

use super::{
    AppSpec, DirectionSpec, LinkSpec, LossSpec, NodeKind, QueueSpec, Scenario, TcpSpec, Transport, DEFAULT_CCA,
    SCHEMA_VERSION,
};
use crate::cc::{CcConfig, REGISTRY};
use crate::error::ScenarioError;
use std::collections::HashSet;

/// Smallest MTU IPv4 allows (RFC 791).
const MIN_MTU_BYTES: u32 = 68;
/// Largest IPv4 datagram (RFC 791 total-length field).
const MAX_MTU_BYTES: u32 = 65_535;
/// A day of simulated time: beyond it a typo is likelier than intent.
const MAX_DURATION_S: f64 = 86_400.0;

type Check = Result<(), ScenarioError>;

fn ensure(ok: bool, path: impl FnOnce() -> String, value: impl std::fmt::Display, allowed: &str) -> Check {
    if ok {
        Ok(())
    } else {
        Err(ScenarioError::new(path(), value, allowed))
    }
}

fn positive(x: f64, path: impl FnOnce() -> String) -> Check {
    ensure(x.is_finite() && x > 0.0, path, x, "a finite number > 0")
}

fn non_negative(x: f64, path: impl FnOnce() -> String) -> Check {
    ensure(x.is_finite() && x >= 0.0, path, x, "a finite number >= 0")
}

fn probability(x: f64, path: impl FnOnce() -> String) -> Check {
    ensure((0.0..=1.0).contains(&x), path, x, "a probability in [0, 1]")
}

fn unique_id(seen: &mut HashSet<String>, id: &str, path: impl Fn() -> String) -> Check {
    ensure(!id.is_empty(), &path, "\"\"", "a non-empty id")?;
    ensure(seen.insert(id.to_string()), path, format!("{id:?}"), "an id not used before")
}

impl Scenario {
    pub fn validate(&self) -> Check {
        ensure(self.version == SCHEMA_VERSION, || "version".into(), self.version, "1")?;
        ensure(
            self.duration_s.is_finite() && self.duration_s > 0.0 && self.duration_s <= MAX_DURATION_S,
            || "duration_s".into(),
            self.duration_s,
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
        ensure(!self.flows.is_empty(), || "flows".into(), "[]", "at least one flow")?;
        let mut flow_ids = HashSet::new();
        for i in 0..self.flows.len() {
            unique_id(&mut flow_ids, &self.flow_id(i), || format!("flows[{i}].id"))?;
            self.validate_flow(i)?;
        }
        self.validate_output(&link_ids)
    }

    fn node_ref(&self, name: &str, path: impl FnOnce() -> String) -> Result<NodeKind, ScenarioError> {
        let known: Vec<&str> = self.nodes.iter().map(|n| n.id.as_str()).collect();
        self.nodes
            .iter()
            .find(|n| n.id == name)
            .map(|n| n.kind)
            .ok_or_else(|| ScenarioError::new(path(), format!("{name:?}"), format!("one of the node ids {known:?}")))
    }

    /// Links are full duplex, so reachability is undirected.
    fn connected(&self, a: &str, b: &str) -> bool {
        let mut seen = HashSet::from([a]);
        let mut frontier = vec![a];
        while let Some(n) = frontier.pop() {
            for l in &self.links {
                let next = if l.a == n {
                    &l.b
                } else if l.b == n {
                    &l.a
                } else {
                    continue;
                };
                if seen.insert(next.as_str()) {
                    frontier.push(next);
                }
            }
        }
        seen.contains(b)
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
                (Some(r), None) => positive(r, || dp("rate_mbps"))?,
                (None, Some(t)) => ensure(!t.is_empty(), || dp("trace"), "\"\"", "a path to a Mahimahi trace file")?,
            }
            validate_rate_changes(&d, &dp("rate_changes"))?;
            non_negative(d.delay_ms.unwrap_or(0.0), || dp("delay_ms"))?;
            if let Some(q) = &d.queue {
                validate_queue(q, &dp("queue"))?;
            }
            if let Some(loss) = &d.loss {
                validate_loss(loss, &dp("loss"))?;
            }
        }
        Ok(())
    }

    fn validate_flow(&self, i: usize) -> Check {
        let f = &self.flows[i];
        let p = |s: &str| format!("flows[{i}].{s}");
        for (field, name) in [("src", &f.src), ("dst", &f.dst)] {
            let kind = self.node_ref(name, || p(field))?;
            ensure(kind == NodeKind::Host, || p(field), format!("{name:?} (a router)"), "a host node")?;
        }
        ensure(f.src != f.dst, || p("dst"), format!("{:?}", f.dst), "a host other than `src`")?;
        ensure(
            self.connected(&f.src, &f.dst),
            || p("dst"),
            format!("{:?}", f.dst),
            "a host joined to `src` by links (no chain of links reaches it)",
        )?;
        ensure(
            f.start_s.is_finite() && f.start_s >= 0.0 && f.start_s < self.duration_s,
            || p("start_s"),
            f.start_s,
            "seconds in [0, duration_s)",
        )?;
        if let Some(stop) = f.stop_s {
            ensure(stop.is_finite() && stop > f.start_s, || p("stop_s"), stop, "seconds > start_s")?;
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
        positive(self.output.slot_ms, || "output.slot_ms".into())?;
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

fn validate_rate_changes(d: &DirectionSpec, path: &str) -> Check {
    let Some(changes) = &d.rate_changes else { return Ok(()) };
    ensure(d.trace.is_none(), || path.to_string(), "set with a trace", "rate_changes only on a rate_mbps link")?;
    let mut last = 0.0;
    for (i, c) in changes.iter().enumerate() {
        ensure(c.at_s.is_finite() && c.at_s > last, || format!("{path}[{i}].at_s"), c.at_s, "seconds > 0, increasing")?;
        positive(c.rate_mbps, || format!("{path}[{i}].rate_mbps"))?;
        last = c.at_s;
    }
    Ok(())
}

fn validate_queue(q: &QueueSpec, path: &str) -> Check {
    let QueueSpec::DropTail { limit_packets, limit_bytes, ecn_threshold_packets } = q;
    if let Some(k) = ecn_threshold_packets {
        ensure(*k >= 1, || format!("{path}.ecn_threshold_packets"), k, "packets >= 1")?;
    }
    match (limit_packets, limit_bytes) {
        (Some(n), None) => ensure(*n > 0, || format!("{path}.limit_packets"), n, "packets >= 1"),
        (None, Some(b)) => ensure(*b > 0, || format!("{path}.limit_bytes"), b, "bytes >= 1"),
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
        AppSpec::Finite { bytes } => ensure(*bytes > 0, || format!("{path}.bytes"), bytes, "bytes >= 1"),
        AppSpec::RateLimited { rate_mbps, write_bytes } => {
            positive(*rate_mbps, || format!("{path}.rate_mbps"))?;
            ensure(
                write_bytes.is_none_or(|w| w > 0),
                || format!("{path}.write_bytes"),
                write_bytes.unwrap_or(0),
                "bytes >= 1",
            )
        }
        AppSpec::Cbr { rate_mbps, packet_bytes } => {
            positive(*rate_mbps, || format!("{path}.rate_mbps"))?;
            ensure(
                (1..=MAX_MTU_BYTES - 28).contains(packet_bytes),
                || format!("{path}.packet_bytes"),
                packet_bytes,
                "bytes in [1, 65507] (IPv4 + UDP headers take 28)",
            )
        }
    }
}

impl TcpSpec {
    pub fn validate(&self, path: &str) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        if let Some(m) = self.mss_bytes {
            ensure((1..=MAX_MTU_BYTES - 40).contains(&m), || p("mss_bytes"), m, "bytes in [1, 65495]")?;
        }
        for (name, v) in [
            ("min_rto_ms", self.min_rto_ms),
            ("initial_rto_ms", self.initial_rto_ms),
            ("max_rto_ms", self.max_rto_ms),
            ("delayed_ack_timeout_ms", self.delayed_ack_timeout_ms),
        ] {
            if let Some(x) = v {
                positive(x, || p(name))?;
            }
        }
        if let (Some(lo), Some(hi)) = (self.min_rto_ms, self.max_rto_ms) {
            ensure(lo <= hi, || p("min_rto_ms"), lo, "at most max_rto_ms")?;
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
        for (name, v) in [("rcv_buf_bytes", self.rcv_buf_bytes), ("snd_buf_bytes", self.snd_buf_bytes)] {
            if let Some(x) = v {
                ensure(x >= 2048, || p(name), x, "bytes >= 2048 (Linux SOCK_MIN_RCVBUF/SNDBUF order)")?;
            }
        }
        Ok(())
    }
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
        assert!(e.allowed.contains("no chain of links"), "{e}");
    }

    #[test]
    fn reachability_follows_links_in_either_direction() {
        let mut v = base();
        v["links"] = json!([{"id": "ba", "a": "b", "b": "a", "rate_mbps": 10}]);
        assert!(Scenario::from_json(&v.to_string()).is_ok());
    }
}
