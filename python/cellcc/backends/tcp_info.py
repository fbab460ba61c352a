"""Parse Linux `struct tcp_info` (getsockopt TCP_INFO) with `struct`.

Source: include/uapi/linux/tcp.h. Offsets below were checked with offsetof() against the
uapi header on the dev machine (kernel 6.18 headers: sizeof = 232 there; the kernel itself
returns up to 248 bytes since 6.7, which added tcpi_total_rto at 240). The kernel copies
min(optlen, its own size), so fields past the returned length are absent (None).
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

#: socket option numbers from include/uapi/linux/tcp.h
TCP_INFO = 11
TCP_CONGESTION = 13
#: Ask for more than any kernel returns today.
TCP_INFO_REQUEST_BYTES = 256
#: tcpi_snd_ssthresh before the first loss: TCP_INFINITE_SSTHRESH (include/net/tcp.h).
INFINITE_SSTHRESH = 0x7FFFFFFF

#: (field, struct format, byte offset) in struct tcp_info (native byte order).
FIELDS: tuple[tuple[str, str, int], ...] = (
    ("state", "B", 0),
    ("ca_state", "B", 1),
    ("retransmits", "B", 2),
    ("backoff", "B", 4),
    ("rto_us", "I", 8),
    ("snd_mss", "I", 16),
    ("unacked", "I", 24),
    ("lost", "I", 32),
    ("retrans", "I", 36),
    ("rcv_ssthresh", "I", 64),
    ("rtt_us", "I", 68),
    ("rttvar_us", "I", 72),
    ("snd_ssthresh", "I", 76),
    ("snd_cwnd", "I", 80),
    ("advmss", "I", 84),
    ("rcv_rtt_us", "I", 92),
    ("rcv_space", "I", 96),
    ("total_retrans", "I", 100),
    ("pacing_rate_Bps", "Q", 104),
    ("bytes_acked", "Q", 120),
    ("bytes_received", "Q", 128),
    ("segs_out", "I", 136),
    ("segs_in", "I", 140),
    ("min_rtt_us", "I", 148),
    ("data_segs_in", "I", 152),
    ("data_segs_out", "I", 156),
    ("delivery_rate_Bps", "Q", 160),
    ("busy_time_us", "Q", 168),
    ("rwnd_limited_us", "Q", 176),
    ("sndbuf_limited_us", "Q", 184),
    ("delivered", "I", 192),
    ("bytes_sent", "Q", 200),
    ("bytes_retrans", "Q", 208),
    ("dsack_dups", "I", 216),
    ("reord_seen", "I", 220),
    ("snd_wnd", "I", 228),
    ("rcv_wnd", "I", 232),
    ("total_rto", "H", 240),
)

#: tcpi_ca_state values (enum tcp_ca_state, include/uapi/linux/tcp.h), named as the engine's CaState.
CA_STATES = ("Open", "Disorder", "CWR", "Recovery", "Loss")


@dataclass(frozen=True)
class TcpInfo:
    """The fields of one TCP_INFO reading that cellcc uses; None where the kernel returned fewer bytes."""

    values: dict[str, int | None]

    def __getitem__(self, name: str) -> int | None:
        return self.values[name]


def parse(raw: bytes) -> TcpInfo:
    out: dict[str, int | None] = {}
    for name, fmt, off in FIELDS:
        size = struct.calcsize(fmt)
        out[name] = struct.unpack_from("=" + fmt, raw, off)[0] if off + size <= len(raw) else None
    return TcpInfo(out)


def read(sock: socket.socket) -> TcpInfo:
    return parse(sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCP_INFO_REQUEST_BYTES))
