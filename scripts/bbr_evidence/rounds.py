"""BBR's rounds and full-pipe test, replayed from the packets a sender saw.

Usage: python rounds.py RUN [UNTIL_S] [--samples]
RUN is a `run_kernel.py` workdir (its `pkts-snd.csv`, which `sniff.py` writes with SACK blocks) or
an engine run folder written by `cellcc run --out` from a scenario that captures a zero-delay
access link at the sender, as `verizon-bbr-sender-capture.toml` beside this file does
(`access-forward.pcap` holds the data as sent, `access-reverse.pcap` the ACKs as they reach the
sender; that file says why its two rates keep the capture in the order the sender saw).

Prints each round start with the bandwidth max so far and the full-pipe count, the recovery
episodes, and (--samples) every new maximum delivery-rate sample. Times are seconds from the SYN.
The replay follows Linux: delivery-rate samples as net/ipv4/tcp_rate.c makes them (the most
recently sent segment an ACK newly (S)ACKs gives `prior_delivered` and the send phase; the
interval is the longer of the send and ACK phases; shorter than min_rtt is no sample), rounds
as `bbr_update_bw` counts them (a round ends when that segment was sent after the round began;
`bbr_set_cwnd_to_recover_or_restore` restarts the round on entering recovery), and the
full-pipe test as `bbr_check_full_bw_reached` (three rounds without 25 % growth of the max).
Recovery is taken as starting at the first retransmission and ending once the cumulative ACK
passes the highest sequence sent before it. Segments are counted per packet on the wire.
"""

from __future__ import annotations

import csv
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

#: tcp_bbr.c bbr_full_bw_thresh (1.25) and bbr_full_bw_cnt (3).
FULL_BW_THRESH = 1.25
FULL_BW_CNT = 3
#: pcap magic numbers: microsecond and nanosecond timestamps (libpcap's savefile format).
PCAP_MAGIC_US, PCAP_MAGIC_NS = 0xA1B2C3D4, 0xA1B23C4D
LINKTYPE_ETHERNET = 1
IPPROTO_TCP = 6
TCPOPT_EOL, TCPOPT_NOP, TCPOPT_SACK = 0, 1, 5
U32 = 1 << 32


@dataclass
class Packet:
    t_s: float
    outgoing: bool
    seq: int
    ack: int
    payload: int
    sack: list[tuple[int, int]]


@dataclass
class Segment:
    end: int
    tx_delivered: int
    tx_delivered_s: float
    first_tx_s: float
    sent_s: float
    done: bool = False


def sack_blocks(opts: bytes) -> list[tuple[int, int]]:
    """The (start, end) pairs of a TCP header's SACK option (RFC 2018 section 3)."""
    i = 0
    while i < len(opts) and opts[i] != TCPOPT_EOL:
        if opts[i] == TCPOPT_NOP:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            break
        if opts[i] == TCPOPT_SACK:
            body = opts[i + 2 : i + opts[i + 1]]
            return [struct.unpack("!II", body[j : j + 8]) for j in range(0, len(body) - 7, 8)]
        i += opts[i + 1]
    return []


def read_pcap(path: Path, outgoing: bool) -> list[Packet]:
    data = path.read_bytes()
    magic, linktype = struct.unpack("<I", data[:4])[0], struct.unpack("<I", data[20:24])[0]
    scale = 1e-9 if magic == PCAP_MAGIC_NS else 1e-6
    packets, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack("<IIII", data[off : off + 16])
        frame = data[off + 16 : off + 16 + incl]
        off += 16 + incl
        ip = frame[14:] if linktype == LINKTYPE_ETHERNET else frame
        if len(ip) < 40 or ip[9] != IPPROTO_TCP:
            continue
        ihl, total = (ip[0] & 0xF) * 4, struct.unpack("!H", ip[2:4])[0]
        doff = (ip[ihl + 12] >> 4) * 4
        seq, ack = struct.unpack("!II", ip[ihl + 4 : ihl + 12])
        sack = sack_blocks(ip[ihl + 20 : ihl + doff])
        # max(0, ...): engine captures before 2026-11-28 gave a SYN holding 60 bytes a length of 52.
        packets.append(Packet(sec + frac * scale, outgoing, seq, ack, max(0, total - ihl - doff), sack))
    return packets


def read_sniff_csv(path: Path) -> list[Packet]:
    packets = []
    with path.open() as f:
        for r in csv.DictReader(f):
            sack = [tuple(int(x) for x in b.split("-")) for b in r["sack"].split(";") if b]
            packets.append(
                Packet(int(r["t_ns"]) / 1e9, r["dir"] == "out", int(r["seq"]), int(r["ack"]), int(r["payload"]), sack)
            )
    return packets


def load(run: Path) -> list[Packet]:
    """The sender's packets, in time order, with sequence numbers relative to the SYN's."""
    if (run / "pkts-snd.csv").is_file():
        packets = read_sniff_csv(run / "pkts-snd.csv")
    else:
        packets = read_pcap(run / "access-forward.pcap", True) + read_pcap(run / "access-reverse.pcap", False)
    # An ACK and the sends it releases share a timestamp in the engine's capture: ACK first.
    packets.sort(key=lambda p: (p.t_s, p.outgoing))
    syn = packets[0]
    isn, t0 = syn.seq + 1, syn.t_s
    for p in packets:
        p.t_s -= t0
        p.seq, p.ack = (p.seq - isn) % U32, (p.ack - isn) % U32
        p.sack = [((a - isn) % U32, (b - isn) % U32) for a, b in p.sack]
    return packets


class Replay:
    def __init__(self, show_samples: bool) -> None:
        self.show_samples = show_samples
        self.segments: dict[int, Segment] = {}
        self.delivered = 0
        self.delivered_s = 0.0
        self.first_tx_s = 0.0
        self.highest_sent = 0
        self.min_rtt_s = float("inf")
        self.next_rtt_delivered = 0
        self.rounds = 0
        self.max_bw_pps = 0.0
        self.full_bw_pps = 0.0
        self.full_bw_cnt = 0
        self.full_bw_reached = False
        self.recovery_point: int | None = None

    def on_send(self, p: Packet) -> None:
        if p.seq < self.highest_sent and self.recovery_point is None:
            self.recovery_point = self.highest_sent
            self.next_rtt_delivered = self.delivered
            print(f"{p.t_s:.4f} recovery starts (round restarts at delivered {self.delivered})")
        # tcp_rate_skb_sent: an empty pipe restarts both phases' clocks.
        if all(s.done for s in self.segments.values()):
            self.first_tx_s = self.delivered_s = p.t_s
        old = self.segments.get(p.seq)
        if old is None or not old.done:
            self.segments[p.seq] = Segment(p.seq + p.payload, self.delivered, self.delivered_s, self.first_tx_s, p.t_s)
        self.highest_sent = max(self.highest_sent, p.seq + p.payload)

    def on_ack(self, p: Packet) -> None:
        if p.ack >= U32 // 2:
            return
        newly = [
            s
            for start, s in self.segments.items()
            if not s.done and (s.end <= p.ack or any(a <= start and s.end <= b for a, b in p.sack))
        ]
        if not newly:
            return
        for s in newly:
            s.done = True
        self.delivered += len(newly)
        self.delivered_s = p.t_s
        # tcp_rate_skb_delivered: the most recently sent of them decides the sample.
        last = max(newly, key=lambda s: (s.sent_s, s.end))
        self.first_tx_s = last.sent_s
        self.min_rtt_s = min(self.min_rtt_s, p.t_s - last.sent_s)
        interval_s = max(last.sent_s - last.first_tx_s, p.t_s - last.tx_delivered_s)
        if interval_s >= self.min_rtt_s:
            self.sample(p.t_s, last, interval_s)
        if self.recovery_point is not None and p.ack >= self.recovery_point:
            self.recovery_point = None
            print(f"{p.t_s:.4f} recovery ends")

    def sample(self, t_s: float, last: Segment, interval_s: float) -> None:
        round_start = last.tx_delivered >= self.next_rtt_delivered
        if round_start:
            self.rounds += 1
            self.next_rtt_delivered = self.delivered
        bw = (self.delivered - last.tx_delivered) / interval_s
        if bw > self.max_bw_pps:
            self.max_bw_pps = bw
            if self.show_samples:
                print(f"{t_s:.4f}   sample {mbps(bw):.2f} Mbit/s over {interval_s * 1e3:.1f} ms")
        if round_start and not self.full_bw_reached:
            self.check_full_bw(t_s)

    def check_full_bw(self, t_s: float) -> None:
        growth = self.max_bw_pps / self.full_bw_pps if self.full_bw_pps else float("inf")
        if growth >= FULL_BW_THRESH:
            self.full_bw_pps, self.full_bw_cnt = self.max_bw_pps, 0
        else:
            self.full_bw_cnt += 1
            self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT
        print(
            f"{t_s:.4f} round {self.rounds}: max {mbps(self.max_bw_pps):.2f} Mbit/s, growth x{growth:.4f}, "
            f"rounds without growth {self.full_bw_cnt}{', pipe full: Drain' if self.full_bw_reached else ''}"
        )


def mbps(pps: float, mss_bytes: int = 1448) -> float:
    return pps * mss_bytes * 8 / 1e6


def main() -> None:
    run = Path(sys.argv[1])
    until_s = float(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else 1.5
    replay = Replay(show_samples="--samples" in sys.argv)
    for p in load(run):
        if p.t_s > until_s:
            break
        if p.outgoing and p.payload > 0:
            replay.on_send(p)
        elif not p.outgoing:
            replay.on_ack(p)


if __name__ == "__main__":
    main()
