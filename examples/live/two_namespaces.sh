#!/usr/bin/env bash
# docs/live.md's worked example, run by tests/test_live_example.py: a live server and a measuring
# client in two network namespaces joined by a veth pair, the downlink shaped to 20 Mbit/s and the
# uplink to 5 Mbit/s (tbf); a plan of one CCA each way; then query, report and replay.
# As root, from the repository:   bash examples/live/two_namespaces.sh /tmp/cellcc-live-example
set -euo pipefail
OUT=${1:-/tmp/cellcc-live-example}
CELLCC=${CELLCC:-$(pwd)/.venv/bin/cellcc}
SRV=cellcc-example-srv
CLI=cellcc-example-cli
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  ip netns del "$SRV" 2>/dev/null || true
  ip netns del "$CLI" 2>/dev/null || true
}
trap cleanup EXIT
cleanup

# Two hosts: the "server" on a wired network and the "laptop"; addresses exist only inside them.
ip netns add "$SRV"
ip netns add "$CLI"
ip link add vsrv netns "$SRV" type veth peer name vcli netns "$CLI"
ip -n "$SRV" addr add 10.201.0.1/24 dev vsrv
ip -n "$CLI" addr add 10.201.0.2/24 dev vcli
for ns in "$SRV" "$CLI"; do
  ip -n "$ns" link set lo up
  ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_no_metrics_save=1   # every run starts clean
done
ip -n "$SRV" link set vsrv up
ip -n "$CLI" link set vcli up
ip netns exec "$SRV" tc qdisc add dev vsrv root tbf rate 20mbit burst 32kbit latency 100ms
ip netns exec "$CLI" tc qdisc add dev vcli root tbf rate 5mbit burst 16kbit latency 100ms

# The key both ends share, the server's file, the server.
rm -rf "$OUT" && mkdir -p "$OUT"
"$CELLCC" live keygen laptop --out "$OUT/laptop-key.toml"
cat > "$OUT/server.toml" <<EOF
listen = "10.201.0.1"
port = 7510
data_port = 7511
log = "sessions.jsonl"
state = "quota.json"
[limits]
max_duration_s = 60

EOF
cat "$OUT/laptop-key.toml" >> "$OUT/server.toml"
ip netns exec "$SRV" "$CELLCC" live serve --config "$OUT/server.toml" > "$OUT/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do grep -q "live server on" "$OUT/server.log" && break; sleep 0.1; done

# The plan: one place, a period whose window is always open, CUBIC down and up.
cat > "$OUT/plan.toml" <<EOF
name = "example"
server = "10.201.0.1:7510"
key = "laptop-key.toml"
ccas = ["cubic"]
directions = ["down", "up"]
repetitions = 1
capacity_s = 1
expected_mbps = { down = 20, up = 5 }
max_run_bytes = 1e8
max_day_bytes = 1e9
transfer.down = { bytes = 10_000_000 }
transfer.up = { bytes = 2_000_000 }
[[places]]
name = "desk"
[[periods]]
name = "any"
window = "00:00-24:00"
EOF
"$CELLCC" live estimate "$OUT/plan.toml"
ip netns exec "$CLI" "$CELLCC" live run "$OUT/plan.toml" --out "$OUT/store"

# The results store answers as an engine sweep's does; the replay sets the engine beside it.
"$CELLCC" query "$OUT/store" "SELECT cca, direction, goodput_mbps, rtt_p95_ms, retransmits FROM metrics ORDER BY direction"
"$CELLCC" report "$OUT/store" --out "$OUT/report.md"
"$CELLCC" live replay "$OUT/store" --no-kernel --out "$OUT/replay.csv"
cat "$OUT/sessions.jsonl"
