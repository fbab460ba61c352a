//! pcap capture that Wireshark opens: the classic libpcap format with
//! nanosecond timestamps (magic 0xa1b23c4d) and LINKTYPE_RAW (101, raw IPv4),
//! per <https://www.tcpdump.org/manpages/pcap-savefile.5.txt> and linktypes.html.
//!
//! Headers are written in full (IPv4 with checksum, TCP with its options,
//! UDP); payload is not simulated, so records are cut at `SNAPLEN_BYTES`
//! and keep the true `orig_len`, which Wireshark shows as a short capture.
//! Node n has address 10.0.(n >> 8).(n & 255) + 1; flow f uses source port
//! 49152 + f and destination port 5201. Both ends' ISN is 0.

use crate::packet::{FlowDir, Packet, Payload, TcpFlags, TcpSegment, IPV4_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::sim::{SimTime, NS_PER_MS, NS_PER_S};

/// pcap magic for nanosecond-resolution timestamps.
const PCAP_MAGIC_NS: u32 = 0xa1b2_3c4d;
const PCAP_VERSION: (u16, u16) = (2, 4);
/// LINKTYPE_RAW: packets begin with an IPv4 header.
const LINKTYPE_RAW: u32 = 101;
/// Enough for IPv4 (20) + TCP with 40 bytes of options (60).
pub const SNAPLEN_BYTES: u32 = 80;
/// IANA ephemeral port range start (RFC 6335).
const EPHEMERAL_PORT_BASE: u16 = 49152;
/// iperf3's well-known port, for readability in Wireshark.
const SINK_PORT: u16 = 5201;
const IP_PROTO_TCP: u8 = 6;
const IP_PROTO_UDP: u8 = 17;
/// Linux default IP TTL (net.ipv4.ip_default_ttl).
const DEFAULT_TTL: u8 = 64;
/// Window scale the capture assumes (Linux's usual 7 for a 6 MB buffer).
const WINDOW_SCALE_SHIFT: u32 = 7;
/// IPv4 flags: more fragments.
const IP_MF: u16 = 0x2000;

/// Largest pcap kept in memory per captured link direction: ~2.8 million records of
/// `RECORD_HEADER_BYTES + SNAPLEN_BYTES`. Capture stops there (as `tcpdump -c` does) so memory
/// stays bounded whatever the run's length (issue 13); the summary counts the records left out.
pub const PCAP_MAX_BYTES: usize = 256 << 20;
/// Per-record header of the classic format: seconds, nanoseconds, incl_len, orig_len.
const RECORD_HEADER_BYTES: usize = 16;

/// An in-memory pcap file, capped at `PCAP_MAX_BYTES`.
pub struct PcapWriter {
    buf: Vec<u8>,
    scratch: Vec<u8>,
    max_bytes: usize,
    dropped_records: u64,
}

impl Default for PcapWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl PcapWriter {
    pub fn new() -> Self {
        Self::with_limit(PCAP_MAX_BYTES)
    }

    /// A writer that keeps at most `max_bytes` (global header included).
    pub fn with_limit(max_bytes: usize) -> Self {
        let mut buf = Vec::with_capacity(1 << 16);
        buf.extend_from_slice(&PCAP_MAGIC_NS.to_le_bytes());
        buf.extend_from_slice(&PCAP_VERSION.0.to_le_bytes());
        buf.extend_from_slice(&PCAP_VERSION.1.to_le_bytes());
        buf.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        buf.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        buf.extend_from_slice(&SNAPLEN_BYTES.to_le_bytes());
        buf.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        PcapWriter { buf, scratch: Vec::with_capacity(SNAPLEN_BYTES as usize), max_bytes, dropped_records: 0 }
    }

    pub fn record(&mut self, now: SimTime, p: &Packet) {
        self.scratch.clear();
        encode(now, p, &mut self.scratch);
        let incl = (self.scratch.len() as u32).min(SNAPLEN_BYTES);
        if self.buf.len() + RECORD_HEADER_BYTES + incl as usize > self.max_bytes {
            self.dropped_records += 1;
            return;
        }
        let b = &mut self.buf;
        b.extend_from_slice(&((now.as_ns() / NS_PER_S) as u32).to_le_bytes());
        b.extend_from_slice(&((now.as_ns() % NS_PER_S) as u32).to_le_bytes());
        b.extend_from_slice(&incl.to_le_bytes());
        // libpcap: the captured length never exceeds the original one.
        b.extend_from_slice(&p.ip_bytes.max(self.scratch.len() as u32).to_le_bytes());
        b.extend_from_slice(&self.scratch[..incl as usize]);
    }

    /// Records not written because the capture reached `PCAP_MAX_BYTES`.
    pub fn dropped_records(&self) -> u64 {
        self.dropped_records
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

fn node_addr(n: u32) -> [u8; 4] {
    let host = n + 1;
    [10, 0, (host >> 8) as u8, (host & 0xff) as u8]
}

/// RFC 1071 Internet checksum.
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

fn encode(now: SimTime, p: &Packet, out: &mut Vec<u8>) {
    let proto = match p.payload {
        Payload::Tcp(_) => IP_PROTO_TCP,
        Payload::Udp { .. } => IP_PROTO_UDP,
    };
    let (frag_field, first_fragment) = match p.frag {
        Some(f) => ((f.offset_bytes / 8) as u16 | if f.more { IP_MF } else { 0 }, f.offset_bytes == 0),
        None => (0, true),
    };
    let tos = if p.ecn_ce { 0x03 } else { 0 };
    out.extend_from_slice(&[0x45, tos]);
    out.extend_from_slice(&(p.ip_bytes as u16).to_be_bytes());
    out.extend_from_slice(&(p.datagram as u16).to_be_bytes());
    out.extend_from_slice(&frag_field.to_be_bytes());
    out.extend_from_slice(&[DEFAULT_TTL, proto, 0, 0]);
    out.extend_from_slice(&node_addr(p.src.0));
    out.extend_from_slice(&node_addr(p.dst.0));
    let csum = checksum(&out[..IPV4_HEADER_BYTES as usize]);
    out[10..12].copy_from_slice(&csum.to_be_bytes());
    if !first_fragment {
        return;
    }
    let (sport, dport) = match p.dir {
        FlowDir::Forward => (EPHEMERAL_PORT_BASE + p.flow.0 as u16, SINK_PORT),
        FlowDir::Reverse => (SINK_PORT, EPHEMERAL_PORT_BASE + p.flow.0 as u16),
    };
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    match p.payload {
        Payload::Tcp(seg) => encode_tcp(now, &seg, out),
        Payload::Udp { payload_bytes, .. } => {
            out.extend_from_slice(&((UDP_HEADER_BYTES + payload_bytes) as u16).to_be_bytes());
            out.extend_from_slice(&0u16.to_be_bytes());
        }
    }
    if out.len() > p.ip_bytes as usize {
        say_the_length_held(out);
    }
}

/// The engine sizes a SYN as a data-less segment (timestamps only, 52 bytes) but captures it with
/// Linux's SYN options (20 bytes): the datagram then says the 60 bytes it holds, so the header
/// (IPv4 total length, RFC 791) does not end inside the TCP options a reader decodes.
fn say_the_length_held(out: &mut [u8]) {
    let len = out.len() as u16;
    out[2..4].copy_from_slice(&len.to_be_bytes());
    out[10..12].copy_from_slice(&[0, 0]);
    let csum = checksum(&out[..IPV4_HEADER_BYTES as usize]);
    out[10..12].copy_from_slice(&csum.to_be_bytes());
}

fn encode_tcp(now: SimTime, s: &TcpSegment, out: &mut Vec<u8>) {
    // Data bytes start at wire seq 1 (the SYN takes seq 0).
    let syn = s.flags.has(TcpFlags::SYN);
    let seq = if syn { 0 } else { s.seq as u32 + 1 };
    let ack = if s.flags.has(TcpFlags::ACK) { s.ack as u32 + 1 } else { 0 };
    let hdr = if syn { 40 } else { s.header_bytes() };
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&ack.to_be_bytes());
    out.push(((hdr / 4) as u8) << 4);
    out.push(s.flags.0);
    out.extend_from_slice(&((s.wnd_bytes >> WINDOW_SCALE_SHIFT).min(u16::MAX as u64) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum (payload is not simulated), urgent pointer

    // RFC 7323 §3: TSval is the sender's clock when it sent, TSecr the echoed TS.Recent, both
    // on a 1-ms clock; the engine's SYN carries no TSval, so it shows the capture time.
    let ms = |t: SimTime| (t.as_ns() / NS_PER_MS) as u32;
    let ts_val = if syn { ms(now) } else { ms(s.ts_val) };
    let ts_ecr = s.ts_ecr.map_or(0, ms);
    if syn {
        // MSS, SACK-permitted, timestamps, NOP, window scale: Linux's SYN layout.
        out.extend_from_slice(&[2, 4, 0x05, 0xb4, 4, 2, 8, 10]);
        out.extend_from_slice(&ts_val.to_be_bytes());
        out.extend_from_slice(&ts_ecr.to_be_bytes());
        out.extend_from_slice(&[1, 3, 3, WINDOW_SCALE_SHIFT as u8]);
        return;
    }
    if s.timestamps {
        out.extend_from_slice(&[1, 1, 8, 10]);
        out.extend_from_slice(&ts_val.to_be_bytes());
        out.extend_from_slice(&ts_ecr.to_be_bytes());
    }
    if s.sack.len > 0 {
        out.extend_from_slice(&[1, 1, 5, 2 + 8 * s.sack.len]);
        for &(a, b) in s.sack.as_slice() {
            out.extend_from_slice(&(a as u32 + 1).to_be_bytes());
            out.extend_from_slice(&(b as u32 + 1).to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{FlowId, NodeId};

    #[test]
    fn global_header_and_one_record_have_libpcap_layout() {
        let mut w = PcapWriter::new();
        let seg = TcpSegment { flags: TcpFlags(TcpFlags::ACK), len: 1448, timestamps: true, ..Default::default() };
        let p =
            Packet::datagram(FlowId(0), FlowDir::Forward, NodeId(0), NodeId(1), Payload::Tcp(seg), 1, SimTime::ZERO);
        w.record(SimTime(1_500_000_000), &p);
        let b = w.into_bytes();
        assert_eq!(&b[..4], &PCAP_MAGIC_NS.to_le_bytes());
        assert_eq!(b.len(), 24 + 16 + 52);
        // orig_len = 20 + 32 + 1448.
        assert_eq!(u32::from_le_bytes(b[36..40].try_into().unwrap()), 1500);
        // IPv4 header checksum verifies to zero.
        assert_eq!(checksum(&b[40..60]), 0);
    }

    #[test]
    fn a_syn_record_holds_no_more_than_its_lengths_say() {
        let mut w = PcapWriter::new();
        let seg = TcpSegment { flags: TcpFlags(TcpFlags::SYN), timestamps: true, ..Default::default() };
        let p =
            Packet::datagram(FlowId(0), FlowDir::Forward, NodeId(0), NodeId(1), Payload::Tcp(seg), 1, SimTime::ZERO);
        assert_eq!(p.ip_bytes, 52, "the engine's SYN: 20 + 20 + 12 (timestamps)");
        w.record(SimTime::ZERO, &p);
        let b = w.into_bytes();
        let (incl, orig) =
            (u32::from_le_bytes(b[32..36].try_into().unwrap()), u32::from_le_bytes(b[36..40].try_into().unwrap()));
        let ip = &b[40..];
        let total = u16::from_be_bytes([ip[2], ip[3]]) as u32;
        let tcp_header = (ip[20 + 12] >> 4) as u32 * 4;
        assert_eq!((incl, orig, total), (60, 60, 60));
        assert_eq!(20 + tcp_header, total, "the TCP header (Linux's 20 option bytes) ends where the datagram does");
        assert_eq!(checksum(&ip[..20]), 0);
    }

    #[test]
    fn timestamps_option_carries_the_send_time_and_the_echo_in_ms() {
        let mut w = PcapWriter::new();
        let at = |ms: u64| SimTime::ZERO + crate::sim::SimDuration::from_us(ms * 1000 + 700);
        let seg = TcpSegment {
            flags: TcpFlags(TcpFlags::ACK),
            len: 1448,
            timestamps: true,
            ts_val: at(120),
            ts_ecr: Some(at(61)),
            ..Default::default()
        };
        let p =
            Packet::datagram(FlowId(0), FlowDir::Forward, NodeId(0), NodeId(1), Payload::Tcp(seg), 1, SimTime::ZERO);
        // Captured 30 ms after it was sent (a queue): TSval is still the send time.
        w.record(at(150), &p);
        let b = w.into_bytes();
        // Global header 24, record header 16, IPv4 20, TCP fixed 20, then NOP NOP kind 8 len 10.
        let opt = 24 + 16 + 20 + 20;
        assert_eq!(&b[opt..opt + 4], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes(b[opt + 4..opt + 8].try_into().unwrap()), 120);
        assert_eq!(u32::from_be_bytes(b[opt + 8..opt + 12].try_into().unwrap()), 61);
    }

    #[test]
    fn capture_stops_at_its_byte_limit_and_counts_what_it_left_out() {
        // Room for the 24-byte global header and two 16 + 52 byte records, not a third.
        let limit = 24 + 2 * (16 + 52) + 10;
        let mut w = PcapWriter::with_limit(limit);
        let seg = TcpSegment { flags: TcpFlags(TcpFlags::ACK), len: 1448, timestamps: true, ..Default::default() };
        let p =
            Packet::datagram(FlowId(0), FlowDir::Forward, NodeId(0), NodeId(1), Payload::Tcp(seg), 1, SimTime::ZERO);
        for _ in 0..5 {
            w.record(SimTime::ZERO, &p);
        }
        assert_eq!(w.dropped_records(), 3);
        assert_eq!(w.into_bytes().len(), 24 + 2 * (16 + 52));
    }
}
