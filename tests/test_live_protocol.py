"""The live mode's control protocol and limits against a real `cellcc live serve` process on
loopback (issue 33): the happy path both ways, and every refusal in bounded time: wrong key,
replayed authentication, malformed and oversize frames, idle connections, a second concurrent
client, over-limit bytes, duration and rate, the daily quota, the per-source session rate; the
saturator stopping within about a second once acknowledgements stop; every session logged."""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from pathlib import Path

import pytest

from cellcc.live import tcp, udp
from cellcc.live.client import LiveClient, LiveError
from cellcc.live.config import load_client_key
from cellcc.live.protocol import MAX_REQUEST_BYTES, encode, recv_frame

from .live_helpers import ServerProcess, server_toml, write_keys

#: Every refusal must come within this long (the auth/idle timeouts below are 1 s).
BOUNDED_S = 5.0
LOOPBACK = "127.0.0.1"


@pytest.fixture(scope="module")
def keyed(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("live")
    return folder, write_keys(folder)


@pytest.fixture(scope="module")
def server(keyed):
    folder, key_file = keyed
    sub = folder / "main"
    sub.mkdir()
    with ServerProcess(server_toml(sub, key_file, max_bytes=50_000_000, max_duration_s=20, max_rate_mbps=500)) as s:
        yield s


def client(server: ServerProcess, key_file: Path) -> LiveClient:
    key_id, key = load_client_key(key_file)
    return LiveClient((LOOPBACK, server.port), key_id, key)


def test_download_and_upload_run_with_the_senders_congestion_control(server, keyed) -> None:
    _, key_file = keyed
    with client(server, key_file) as c:
        assert {"reno", "cubic"} <= set(c.info()["ccas"])
        down = c.tcp_test("down", "reno", 3_000_000, 10, None, 10)
        up = c.tcp_test("up", "cubic", 2_000_000, 10, None, 10)
    # Download: the server sends, so the algorithm in force is the server's; the client only receives.
    assert down["remote"]["role"] == "send" and down["remote"]["cca"] == "reno"
    assert down["local"]["bytes"] == 3_000_000 and down["remote"]["moved_bytes"] == 3_000_000
    assert len(down["remote"]["samples"]["rows"]) >= 1
    assert up["local"]["role"] == "send" and up["local"]["cca"] == "cubic"
    assert up["remote"]["bytes"] == 2_000_000
    mine = _logged(server, lambda x: x["tests"] == 2)
    assert mine["key_id"] == "laptop" and mine["peer"] == LOOPBACK and mine["bytes"] == 5_000_000
    assert mine["end"] == "bye" and mine["duration_s"] > 0


def _logged(server: ServerProcess, want) -> dict:
    """The last session log line `want` accepts (the server writes it as the session closes)."""
    deadline = time.monotonic() + BOUNDED_S
    while time.monotonic() < deadline:
        found = [x for x in map(json.loads, server.log_lines()) if want(x)]
        if found:
            return found[-1]
        time.sleep(0.05)
    raise AssertionError("no such session in the log")


def _raw(server: ServerProcess) -> socket.socket:
    s = socket.create_connection((LOOPBACK, server.port), timeout=BOUNDED_S)
    return s


def _refused(s: socket.socket) -> str:
    """The server's error frame, then the connection closes."""
    started = time.monotonic()
    msg = recv_frame(s, 1 << 20)
    assert msg["type"] == "error", msg
    assert s.recv(1) == b""
    assert time.monotonic() - started < BOUNDED_S
    return msg["message"]


def test_wrong_key_is_refused(server, keyed, tmp_path) -> None:
    other = write_keys(tmp_path, "laptop")  # same id, another secret
    with pytest.raises(LiveError, match="authentication failed"), client(server, other):
        pass


def test_a_replayed_authentication_is_refused(server, keyed) -> None:
    _, key_file = keyed
    key_id, key = load_client_key(key_file)
    from cellcc.live.protocol import client_mac

    first = _raw(server)
    hello = recv_frame(first, 1 << 16)
    nonce_c = bytes(32)
    auth = {
        "type": "auth",
        "key_id": key_id,
        "nonce": nonce_c.hex(),
        "mac": client_mac(key, bytes.fromhex(hello["nonce"]), nonce_c, key_id),
    }
    first.sendall(encode(auth))
    assert recv_frame(first, 1 << 20)["type"] == "welcome"
    first.close()
    second = _raw(server)
    assert recv_frame(second, 1 << 16)["nonce"] != hello["nonce"]
    second.sendall(encode(auth))  # the recorded frame, on a new connection
    assert _refused(second) == "authentication failed"


def test_malformed_and_oversize_frames_are_refused(server) -> None:
    s = _raw(server)
    recv_frame(s, 1 << 16)
    s.sendall(struct.pack("!I", 9) + b"not json!")
    assert _refused(s).startswith("malformed frame")
    s = _raw(server)
    recv_frame(s, 1 << 16)
    s.sendall(struct.pack("!I", 4) + b"[1,2")
    assert _refused(s).startswith("malformed frame")
    s = _raw(server)
    recv_frame(s, 1 << 16)
    s.sendall(struct.pack("!I", MAX_REQUEST_BYTES + 1))  # the header alone: refused before the body
    assert _refused(s).startswith("oversize frame")


def test_a_second_concurrent_client_is_refused(server, keyed) -> None:
    _, key_file = keyed
    with client(server, key_file):
        started = time.monotonic()
        with pytest.raises(LiveError, match="busy"):
            client(server, key_file).open()
        assert time.monotonic() - started < BOUNDED_S
        # A connection that has not authenticated holds nothing: the session above goes on.
        stranger = _raw(server)
        recv_frame(stranger, 1 << 16)
        stranger.close()
    with client(server, key_file) as c:  # free again once the first has gone
        assert c.info()["type"] == "info"


@pytest.mark.parametrize(
    ("test", "message"),
    [
        ({"kind": "tcp", "direction": "down", "cca": "cubic", "bytes": 60_000_000}, "over-limit bytes"),
        ({"kind": "tcp", "direction": "down", "cca": "cubic", "duration_s": 21}, "over-limit duration"),
        ({"kind": "saturate", "direction": "up", "duration_s": 1, "rate_mbps": 501}, "over-limit rate"),
        (
            {"kind": "tcp", "direction": "down", "cca": "vegas", "bytes": 1000},
            "the server lacks the congestion control",
        ),
        ({"kind": "tcp", "direction": "sideways", "bytes": 1000}, "direction"),
        ({"kind": "shell", "direction": "down"}, "test kind"),
        ({"kind": "saturate", "direction": "down", "duration_s": 1, "packet_bytes": 20}, "packet_bytes"),
        ({"kind": "tcp", "direction": "down", "cca": "cubic", "bytes": 1000, "sample_ms": 0.01}, "sample_ms"),
    ],
)
def test_requests_over_a_limit_are_refused_and_the_session_goes_on(server, keyed, test, message) -> None:
    _, key_file = keyed
    with client(server, key_file) as c:
        started = time.monotonic()
        with pytest.raises(LiveError, match=message):
            c.request({"type": "test", **test})
        assert time.monotonic() - started < BOUNDED_S
        assert c.info()["type"] == "info"


def test_an_upload_beyond_its_declared_bytes_or_rate_is_stopped(server, keyed) -> None:
    _, key_file = keyed
    with client(server, key_file) as c:
        for test, payload, message in (
            ({"bytes": 1_000_000}, 4_000_000, "over-limit bytes"),
            ({"duration_s": 5, "rate_mbps": 2}, 40_000_000, "over-limit rate"),
        ):
            ready = c.request({"type": "test", "kind": "tcp", "direction": "up", **test})
            conn = tcp.connect((LOOPBACK, ready["port"]), bytes.fromhex(ready["token"]), None)
            started = time.monotonic()
            # The server may close on us mid-way: that is the refusal.
            with conn, contextlib.suppress(OSError):
                conn.sendall(bytes(payload))
            result = c.receive(timeout_s=BOUNDED_S + 5)
            assert message in result["stopped"]
            assert time.monotonic() - started < BOUNDED_S


def test_unauthenticated_and_idle_connections_are_closed_within_seconds(keyed, tmp_path) -> None:
    _, key_file = keyed
    with ServerProcess(server_toml(tmp_path, key_file, auth_timeout_s=1, idle_timeout_s=1)) as s:
        raw = _raw(s)
        recv_frame(raw, 1 << 16)
        assert "no authentication" in _refused(raw)
        with client(s, key_file) as c:
            time.sleep(1.5)
            with pytest.raises((LiveError, ConnectionError, OSError)):
                c.info()
        assert _logged(s, lambda x: "no authentication" in x["end"])
        assert _logged(s, lambda x: "idle" in x["end"])["key_id"] == "laptop"


def test_daily_quota_and_session_rate_are_enforced(keyed, tmp_path) -> None:
    _, key_file = keyed
    with ServerProcess(server_toml(tmp_path, key_file, daily_quota_bytes=3_000_000, sessions_per_minute=3)) as s:
        with client(s, key_file) as c:
            c.tcp_test("down", "cubic", 2_000_000, 5, None, 10)
            with pytest.raises(LiveError, match="daily quota"):
                c.tcp_test("down", "cubic", 2_000_000, 5, None, 10)
        with client(s, key_file):
            pass
        with client(s, key_file):
            pass
        raw = _raw(s)
        assert _refused(raw).startswith("too many new sessions")
    quota = json.loads((tmp_path / "quota.json").read_text())
    assert next(iter(quota.values()))["laptop"] == 2_000_000


def test_the_servers_saturator_stops_within_a_second_of_the_last_acknowledgement(server, keyed) -> None:
    _, key_file = keyed
    with client(server, key_file) as c:
        ready = c.request({"type": "test", "kind": "saturate", "direction": "down", "duration_s": 15, "rate_mbps": 20})
        token, addr = bytes.fromhex(ready["token"]), (LOOPBACK, ready["port"])
        sock = udp.probe_socket((LOOPBACK, 0))
        sock.settimeout(0.05)
        acked, deadline = 0, time.monotonic() + 1.0
        while time.monotonic() < deadline:
            sock.sendto(udp.HEADER.pack(token, udp.KIND_PUNCH, 0, 0, 0), addr) if acked == 0 else None
            try:
                data = sock.recv(2048)
            except TimeoutError:
                continue
            _, kind, seq, t_send, _ = udp.HEADER.unpack(data[: udp.HEADER.size])
            if kind == udp.KIND_DATA:
                sock.sendto(udp.HEADER.pack(token, udp.KIND_ACK, seq, t_send, time.time_ns()), addr)
                acked += 1
        sock.close()  # the peer disappears
        gone = time.monotonic()
        result = c.receive(timeout_s=10)
        stopped_after = time.monotonic() - gone
    assert acked > 100
    assert "no acknowledgement" in result["stopped"]
    assert stopped_after < udp.ACK_TIMEOUT_S + 0.5, stopped_after


def test_the_clients_saturator_stops_within_a_second_when_the_receiver_goes() -> None:
    rx = udp.probe_socket((LOOPBACK, 0))
    tx = udp.probe_socket((LOOPBACK, 0))
    token = bytes(8)
    stop_acking = threading.Event()

    def receiver() -> None:
        rx.settimeout(0.05)
        while not stop_acking.is_set():
            try:
                data, addr = rx.recvfrom(2048)
            except TimeoutError:
                continue
            _, _, seq, t_send, _ = udp.HEADER.unpack(data[: udp.HEADER.size])
            rx.sendto(udp.HEADER.pack(token, udp.KIND_ACK, seq, t_send, time.time_ns()), addr)

    t = threading.Thread(target=receiver, daemon=True)
    t.start()
    threading.Timer(0.5, stop_acking.set).start()
    started = time.monotonic()
    log = udp.saturate_send(tx, rx.getsockname(), token, udp.Limits(20, 10**9, 50e6))
    elapsed = time.monotonic() - started
    t.join()
    rx.close()
    tx.close()
    assert "no acknowledgement" in log.stopped
    assert elapsed < 0.5 + udp.ACK_TIMEOUT_S + 0.5


def test_an_upload_saturator_faster_than_agreed_gets_no_more_acknowledgements(server, keyed) -> None:
    _, key_file = keyed
    with client(server, key_file) as c:
        ready = c.request({"type": "test", "kind": "saturate", "direction": "up", "duration_s": 5, "rate_mbps": 1})
        token, addr = bytes.fromhex(ready["token"]), (LOOPBACK, ready["port"])
        sock = udp.probe_socket((LOOPBACK, 0))
        pad = bytes(udp.DEFAULT_PACKET_BYTES - udp.IP_UDP_HEADER_BYTES - udp.HEADER.size)
        started = time.monotonic()
        for seq in range(400):  # 600 kB at once: 4.8 Mbit in well under a second, against 1 Mbit/s
            sock.sendto(udp.HEADER.pack(token, udp.KIND_DATA, seq, time.time_ns(), 0) + pad, addr)
        result = c.receive(timeout_s=10)
        sock.close()
    assert "over-limit rate" in result["stopped"]
    assert time.monotonic() - started < BOUNDED_S
