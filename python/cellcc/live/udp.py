"""UDP probes of `cellcc live`: the capacity saturator, its receiver, and light packet trains
for the base RTT. Both ends use these functions (the server in a thread, the client inline).

Saturator (Winstein, Sivaraman & Balakrishnan, "Stochastic Forecasts Achieve High Throughput and
Low Delay over Cellular Networks", NSDI 2013, §5.1, the tool that recorded Mahimahi's cellular
traces): keep the bottleneck queue full so that every delivery opportunity carries a packet, and
log when packets arrive. Its sender keeps a window of MTU-sized datagrams in flight, grown while
the RTT stays below base + 750 ms and shrunk above base + 3000 ms (the paper's bounds); unlike
the original it also stops growing once the receiver's acknowledgements show losses, since a
dropping queue is already full (our paths may have short drop-tail queues the original never
met). The receiver acknowledges every datagram and stamps its arrival with the kernel's receive
time (SO_TIMESTAMPNS). Each arrival is one delivery opportunity of a Mahimahi trace.

Safety: every datagram carries the session's 8-byte token; a receiver ignores any other.
`saturate_send` stops when no acknowledgement has come for `ACK_TIMEOUT_S` (the issue: within
about a second of the peer going away), at its duration, byte cap or rate cap.
"""

from __future__ import annotations

import contextlib
import math
import select
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: token (8 B), kind, sequence number, sender's CLOCK_REALTIME at send (ns), and for an ACK the
#: receiver's kernel arrival stamp (ns); data datagrams are padded to the probe size after it.
HEADER = struct.Struct("!8sBIqq")
KIND_DATA, KIND_ACK, KIND_PUNCH, KIND_ECHO, KIND_STOP = 1, 2, 3, 4, 5
#: A sender that stops says so this many times (one may be lost); a receiver also stops on silence.
STOP_COPIES = 3
TOKEN_BYTES = 8
#: IPv4 (20) + UDP (8) header bytes (RFC 791, RFC 768).
IP_UDP_HEADER_BYTES = 28
#: The probe's IP packet size: Ethernet's MTU (RFC 894), the size one Mahimahi opportunity carries;
#: at least the headers, at most a jumbo frame's 9000 bytes.
DEFAULT_PACKET_BYTES = 1500
MIN_PACKET_BYTES = IP_UDP_HEADER_BYTES + HEADER.size
MAX_PACKET_BYTES = 9000
#: Issue 33: a probe stops within about a second once the peer's acknowledgements stop.
ACK_TIMEOUT_S = 1.0
#: Saturator's window bounds (NSDI 2013 §5.1): grow below base + 750 ms, shrink above base + 3 s.
QUEUE_LOW_S = 0.75
QUEUE_HIGH_S = 3.0
#: Window changes per control round: x1.25 up, x0.8 down (ours; the paper gives no step); until the
#: queue is first found full (a loss, or the RTT past base + 750 ms) it doubles, as slow start.
GROW, SHRINK, START_UP = 1.25, 0.8, 2.0
INITIAL_WINDOW_PACKETS = 10
#: A control round lasts at least this long (a loopback RTT would make rounds of microseconds).
MIN_ROUND_S = 0.010
#: How long a receiver waits for the first datagram before giving up.
FIRST_PACKET_TIMEOUT_S = 5.0
#: Kernel receive timestamps (asm-generic/socket.h SO_TIMESTAMPNS, SCM_TIMESTAMPNS).
SO_TIMESTAMPNS = 35
#: Socket buffers: large enough for a window of a few thousand datagrams.
SOCKET_BUFFER_BYTES = 8 << 20
#: Largest datagram an echo reflects: echoes must not amplify (a train's packets are 64 B).
MAX_ECHO_BYTES = 128
NS = 1_000_000_000


def probe_socket(bind: tuple[str, int] = ("0.0.0.0", 0)) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
        s.setsockopt(socket.SOL_SOCKET, opt, SOCKET_BUFFER_BYTES)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind(bind)
    return s


def _kernel_stamp(ancdata: list) -> int:
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            sec, nsec = struct.unpack("qq", data[:16])
            return sec * NS + nsec
    return time.time_ns()


@dataclass
class Limits:
    """What one probe may do: how long, how many bytes, how fast (the server's caps apply)."""

    duration_s: float
    max_bytes: int
    max_rate_bps: float
    packet_bytes: int = DEFAULT_PACKET_BYTES


@dataclass
class SendLog:
    """The saturator sender's record: per datagram its send time and, if acknowledged, the ACK's
    arrival (both CLOCK_MONOTONIC ns of the sender) and the receiver's arrival stamp (realtime)."""

    send_ns: list[int] = field(default_factory=list)
    ack_ns: dict[int, int] = field(default_factory=dict)
    rx_real_ns: dict[int, int] = field(default_factory=dict)
    send_real_ns: list[int] = field(default_factory=list)
    stopped: str = ""
    #: The first datagram sent once the queue was known full: the recording starts with it.
    full_from_seq: int | None = None

    def to_json(self) -> dict[str, Any]:
        acked = sorted(self.ack_ns)
        return {
            "full_from_seq": self.full_from_seq,
            "send_ns": self.send_ns,
            "send_real_ns": self.send_real_ns,
            "acked_seq": acked,
            "ack_ns": [self.ack_ns[s] for s in acked],
            "rx_real_ns": [self.rx_real_ns[s] for s in acked],
            "stopped": self.stopped,
        }


class _Window:
    """The saturator's window, updated once per control round (see the module doc)."""

    def __init__(self, rate_cap_packets: float):
        self.packets = float(INITIAL_WINDOW_PACKETS)
        self.cap = max(float(INITIAL_WINDOW_PACKETS), rate_cap_packets)
        self.round_end_ns = 0
        self.round_min_rtt_ns: int | None = None
        self.round_lost = 0
        self.full = False

    def on_ack(self, rtt_ns: int, lost: int) -> None:
        self.round_min_rtt_ns = rtt_ns if self.round_min_rtt_ns is None else min(self.round_min_rtt_ns, rtt_ns)
        self.round_lost += lost

    def maybe_update(self, now_ns: int, base_rtt_ns: int) -> None:
        if now_ns < self.round_end_ns or self.round_min_rtt_ns is None:
            return
        queue_s = (self.round_min_rtt_ns - base_rtt_ns) / NS
        self.full = self.full or self.round_lost > 0 or queue_s >= QUEUE_LOW_S
        if queue_s > QUEUE_HIGH_S:
            self.packets = max(1.0, self.packets * SHRINK)
        elif queue_s < QUEUE_LOW_S and self.round_lost == 0:
            self.packets = min(self.cap, self.packets * (GROW if self.full else START_UP))
        self.round_end_ns = now_ns + max(int(MIN_ROUND_S * NS), base_rtt_ns)
        self.round_min_rtt_ns, self.round_lost = None, 0


def saturate_send(sock: socket.socket, peer: tuple[str, int], token: bytes, limits: Limits) -> SendLog:
    """Keep the path to `peer` saturated for `limits.duration_s` (see the module doc)."""
    log = SendLog()
    size = limits.packet_bytes - IP_UDP_HEADER_BYTES
    pad = bytes(size - HEADER.size)
    max_packets = limits.max_bytes // limits.packet_bytes
    start = time.monotonic_ns()
    end = start + int(limits.duration_s * NS)
    window = _Window(limits.max_rate_bps / 8 / limits.packet_bytes * (QUEUE_HIGH_S + 1.0))
    highest = -1
    base_rtt = math.inf
    last_ack = start
    sock.setblocking(False)
    while True:
        now = time.monotonic_ns()
        if now >= end:
            log.stopped = "duration"
            break
        if now - last_ack > ACK_TIMEOUT_S * NS:
            log.stopped = f"no acknowledgement for {ACK_TIMEOUT_S:g} s"
            break
        seq = len(log.send_ns)
        if seq >= max_packets:
            log.stopped = "byte cap"
            break
        credit = limits.max_rate_bps * (now - start) / NS / 8 / limits.packet_bytes + INITIAL_WINDOW_PACKETS
        while seq - (highest + 1) < window.packets and seq < min(credit, max_packets):
            real = time.time_ns()
            try:
                sock.sendto(HEADER.pack(token, KIND_DATA, seq, real, 0) + pad, peer)
            except (BlockingIOError, OSError):
                break
            log.send_ns.append(time.monotonic_ns())
            log.send_real_ns.append(real)
            seq += 1
        readable, _, _ = select.select([sock], [], [], 0.002)
        while readable:
            try:
                data = sock.recv(HEADER.size)
            except BlockingIOError:
                break
            if len(data) < HEADER.size:
                continue
            tok, kind, aseq, _, rx_real = HEADER.unpack(data[: HEADER.size])
            if tok != token or kind != KIND_ACK or aseq >= len(log.send_ns) or aseq in log.ack_ns:
                continue
            t = time.monotonic_ns()
            last_ack = t
            log.ack_ns[aseq] = t
            log.rx_real_ns[aseq] = rx_real
            rtt = t - log.send_ns[aseq]
            base_rtt = min(base_rtt, rtt)
            lost = max(0, aseq - highest - 1)
            highest = max(highest, aseq)
            window.on_ack(rtt, lost)
        if base_rtt < math.inf:
            window.maybe_update(time.monotonic_ns(), int(base_rtt))
            if window.full and log.full_from_seq is None:
                log.full_from_seq = len(log.send_ns)
    for _ in range(STOP_COPIES):
        with contextlib.suppress(OSError):
            sock.sendto(HEADER.pack(token, KIND_STOP, len(log.send_ns), time.time_ns(), 0), peer)
    return log


def saturate_receive(
    sock: socket.socket, token: bytes, limits: Limits, allowed_ip: str | None = None, punch: tuple | None = None
) -> dict[str, Any]:
    """Acknowledge and log every data datagram bearing `token` (from `allowed_ip` if given) until
    the sender stops or has been silent for `ACK_TIMEOUT_S`, the duration has passed, or it sent
    more than `limits` allow (bytes; faster than the rate, one second of it as the burst): then
    the acknowledgements stop and so does an honest sender. With `punch` (the sender's address),
    send punch datagrams there until data flows (a NAT's mapping)."""
    arrivals: list[int] = []
    seqs: list[int] = []
    sent_real: list[int] = []
    start = time.monotonic()
    deadline = start + limits.duration_s + FIRST_PACKET_TIMEOUT_S
    last = None
    peer = None
    next_punch = start
    sock.setblocking(False)
    while time.monotonic() < deadline:
        now = time.monotonic()
        if last is None and now - start > FIRST_PACKET_TIMEOUT_S:
            return {"arrival_real_ns": [], "data_seq": [], "send_real_ns": [], "stopped": "no data"}
        if last is not None and now - last > ACK_TIMEOUT_S:
            break
        over = _over_limits(len(arrivals) * limits.packet_bytes, now - start, limits)
        if over:
            return _received(arrivals, seqs, sent_real, over)
        if punch is not None and last is None and now >= next_punch:
            sock.sendto(HEADER.pack(token, KIND_PUNCH, 0, time.time_ns(), 0), punch)
            next_punch = now + 0.1
        readable, _, _ = select.select([sock], [], [], 0.05)
        while readable:
            try:
                data, anc, _, addr = sock.recvmsg(limits.packet_bytes + 64, 64)
            except BlockingIOError:
                break
            if len(data) < HEADER.size:
                continue
            tok, kind, seq, t_send, _ = HEADER.unpack(data[: HEADER.size])
            if tok != token or (allowed_ip is not None and addr[0] != allowed_ip):
                continue
            if kind == KIND_STOP and addr == peer:
                return _received(arrivals, seqs, sent_real, "sender stopped")
            if kind != KIND_DATA:
                continue
            if peer is None:
                peer = addr
            if addr != peer:
                continue
            stamp = _kernel_stamp(anc)
            last = time.monotonic()
            arrivals.append(stamp)
            seqs.append(seq)
            sent_real.append(t_send)
            with contextlib.suppress(BlockingIOError, OSError):
                sock.sendto(HEADER.pack(token, KIND_ACK, seq, t_send, stamp), peer)
    return _received(arrivals, seqs, sent_real, "sender silent")


#: A sender faster than its limit by this factor (over at least a second) is over it.
RATE_TOLERANCE = 1.10


def _over_limits(received_bytes: int, elapsed_s: float, limits: Limits) -> str:
    if limits.max_bytes and received_bytes > limits.max_bytes:
        return f"over-limit bytes: more than {limits.max_bytes}"
    if limits.max_rate_bps and received_bytes * 8 > limits.max_rate_bps * RATE_TOLERANCE * max(elapsed_s, 1.0):
        return f"over-limit rate: above {limits.max_rate_bps / 1e6:g} Mbit/s"
    return ""


def _received(arrivals: list[int], seqs: list[int], sent_real: list[int], why: str) -> dict[str, Any]:
    return {"arrival_real_ns": arrivals, "data_seq": seqs, "send_real_ns": sent_real, "stopped": why}


def echo_serve(sock: socket.socket, token: bytes, allowed_ip: str, count: int, timeout_s: float) -> int:
    """Reflect up to `count` small echo datagrams bearing `token` from `allowed_ip`; returns how many."""
    done = 0
    deadline = time.monotonic() + timeout_s
    sock.setblocking(False)
    while done < count and time.monotonic() < deadline:
        readable, _, _ = select.select([sock], [], [], 0.05)
        if not readable:
            continue
        try:
            data, addr = sock.recvfrom(MAX_ECHO_BYTES + 1)
        except BlockingIOError:
            continue
        if len(data) < HEADER.size or len(data) > MAX_ECHO_BYTES or addr[0] != allowed_ip:
            continue
        tok, kind, _, _, _ = HEADER.unpack(data[: HEADER.size])
        if tok == token and kind == KIND_ECHO:
            sock.sendto(data, addr)
            done += 1
    return done


#: Light packet trains for the base RTT: 3 trains of 5 small datagrams, 2 ms apart within a train,
#: trains 50 ms apart (light: 5 x 64 B cannot build a queue on any cellular link).
TRAINS, TRAIN_LENGTH, TRAIN_GAP_S, TRAIN_SPACING_S, TRAIN_PACKET_BYTES = 3, 5, 0.050, 0.002, 64


def packet_trains(sock: socket.socket, server: tuple[str, int], token: bytes) -> list[float]:
    """RTTs (ms) of the light packet trains to the server's echo; lost ones are left out."""
    sent: dict[int, int] = {}
    rtts: list[float] = []
    pad = bytes(TRAIN_PACKET_BYTES - IP_UDP_HEADER_BYTES - HEADER.size)
    sock.setblocking(False)
    seq = 0
    for _ in range(TRAINS):
        for _ in range(TRAIN_LENGTH):
            sent[seq] = time.monotonic_ns()
            sock.sendto(HEADER.pack(token, KIND_ECHO, seq, 0, 0) + pad, server)
            seq += 1
            _collect_echoes(sock, token, sent, rtts, TRAIN_SPACING_S)
        _collect_echoes(sock, token, sent, rtts, TRAIN_GAP_S)
    _collect_echoes(sock, token, sent, rtts, ACK_TIMEOUT_S, until=lambda: len(rtts) == len(sent))
    return rtts


def _collect_echoes(sock, token, sent, rtts, wait_s, until=lambda: False) -> None:
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and not until():
        readable, _, _ = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
        if not readable:
            continue
        try:
            data = sock.recv(MAX_ECHO_BYTES + 1)
        except BlockingIOError:
            continue
        if len(data) >= HEADER.size:
            tok, kind, seq, _, _ = HEADER.unpack(data[: HEADER.size])
            if tok == token and kind == KIND_ECHO and seq in sent:
                rtts.append((time.monotonic_ns() - sent.pop(seq)) / 1e6)


# -- what the recordings give ------------------------------------------------------------------


def saturated_arrivals(receiver: dict[str, Any], sender: dict[str, Any]) -> list[int]:
    """The receiver's arrival stamps from the first datagram sent with the queue known full (the
    start-up before it left delivery opportunities unused); all of them if it never filled (the
    recording then shows the rate cap, not the path)."""
    first = sender.get("full_from_seq")
    if first is None:
        return list(receiver["arrival_real_ns"])
    return [t for t, seq in zip(receiver["arrival_real_ns"], receiver["data_seq"], strict=True) if seq >= first]


def mahimahi_lines(arrival_ns: list[int] | np.ndarray) -> list[int]:
    """A Mahimahi trace from arrival times: one line per arrival, its millisecond counted from the
    first arrival, plus one (Mahimahi's times must end above 0; the trace then loops with the
    recording's own length)."""
    t = np.sort(np.asarray(arrival_ns, dtype=np.int64))
    if len(t) == 0:
        return []
    return [int(x) for x in (t - t[0]) // 1_000_000 + 1]


def trace_text(lines: list[int]) -> str:
    return "".join(f"{x}\n" for x in lines)


def queue_packets(log: dict[str, Any], quantile: float = 0.5) -> float:
    """The queue the saturator's datagrams saw, in packets: for each acknowledged datagram sent once
    the queue was known full, how many others were delivered (acknowledged) between its entering the
    queue (send + base RTT) and its own acknowledgement; the `quantile` of that, by default the
    median: the saturator keeps a drop-tail buffer full, so the typical datagram meets the whole
    buffer (a deep buffer it never fills: the standing queue it kept). The sender's clock only; a
    late acknowledgement inflates one datagram's count, which the median does not follow."""
    send = np.asarray(log["send_ns"], dtype=np.int64)
    seqs = np.asarray(log["acked_seq"], dtype=np.int64)
    acks = np.asarray(log["ack_ns"], dtype=np.int64)
    if len(acks) < 2:
        return math.nan
    acks_sorted = np.sort(acks)
    base = int((acks - send[seqs]).min())
    ahead = np.searchsorted(acks_sorted, acks, side="left") - np.searchsorted(
        acks_sorted, send[seqs] + base, side="right"
    )
    full = seqs >= (log.get("full_from_seq") or 0)
    return float(np.quantile(np.clip(ahead[full] if full.any() else ahead, 0, None), quantile))


def rtts_ms(log: dict[str, Any]) -> np.ndarray:
    send = np.asarray(log["send_ns"], dtype=np.int64)
    seqs = np.asarray(log["acked_seq"], dtype=np.int64)
    return (np.asarray(log["ack_ns"], dtype=np.int64) - send[seqs]) / 1e6
