//! `cellcc-emu CONFIG.json`: forward IP packets between two TUN devices through the emulated path.
//!
//! Protocol with the parent (cellcc's Linux backend): the emulator creates both TUN devices in its
//! own network namespace, prints `ready` on stdout, and runs until its stdin reaches end-of-file;
//! then it writes the summary and departure log and exits 0. The parent moves the devices into
//! the sender and receiver namespaces after `ready` (the open descriptors follow the devices).
//!
//! Timing: each direction keeps an exact virtual timeline (see `direction.rs`); this loop only has
//! to write each packet at its due time. It sleeps in `ppoll` with 1 ns timer slack until
//! `spin_us` before the next deadline, then polls without sleeping. How late writes were is
//! recorded in the summary (`lateness_us`), so every run reports its own accuracy.

use cellcc_emu::config::Config;
use cellcc_emu::direction::Direction;
use cellcc_emu::sys;
use serde_json::json;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::AsRawFd;
use std::process::ExitCode;

/// Larger than any IPv4 datagram (RFC 791 total length is 16 bits).
const READ_BUF_BYTES: usize = 65_536;
const DIRECTION_NAMES: [&str; 2] = ["forward", "reverse"];
/// Lateness histogram resolution: 1 us buckets up to 10 ms, the rest in the last bucket.
const LATENESS_BUCKETS: usize = 10_001;
/// Linux reports /proc/self/stat times in USER_HZ ticks, 100 per second on every architecture.
const USER_HZ: f64 = 100.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 || args[1] == "--help" {
        eprintln!("usage: cellcc-emu CONFIG.json   (see crates/cellcc-emu/src/config.rs for the fields)");
        return ExitCode::from(2);
    }
    let config = match std::fs::read_to_string(&args[1])
        .map_err(|e| format!("{}: {e}", args[1]))
        .and_then(|t| Config::from_json(&t).map_err(|e| e.to_string()))
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cellcc-emu: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cellcc-emu: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Distribution of how late packets were written relative to their due time.
struct Lateness {
    counts: Vec<u64>,
    max_ns: u64,
}

impl Lateness {
    fn record(&mut self, late_ns: u64) {
        self.max_ns = self.max_ns.max(late_ns);
        let bucket = ((late_ns / 1000) as usize).min(LATENESS_BUCKETS - 1);
        self.counts[bucket] += 1;
    }
    fn quantile_us(&self, q: f64) -> u64 {
        let total: u64 = self.counts.iter().sum();
        let target = (q * total as f64).ceil() as u64;
        let mut seen = 0;
        for (us, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= target.max(1) {
                return us as u64;
            }
        }
        0
    }
}

struct Emulator {
    tuns: [File; 2],
    dirs: [Direction; 2],
    lateness: Lateness,
    write_errors: u64,
    buf: Vec<u8>,
}

impl Emulator {
    /// Write every packet due by `now` to the egress device of its direction.
    fn flush_due(&mut self, now: u64) {
        for i in 0..2 {
            self.dirs[i].advance(now);
            while let Some((due, data)) = self.dirs[i].pop_due(now) {
                self.lateness.record(now.saturating_sub(due));
                if (&self.tuns[1 - i]).write(&data).is_err() {
                    self.write_errors += 1;
                }
            }
        }
    }

    /// Read everything waiting on device `i` into its direction.
    fn read_all(&mut self, i: usize) -> io::Result<()> {
        loop {
            match (&self.tuns[i]).read(&mut self.buf) {
                Ok(n) => {
                    let now = sys::monotonic_ns();
                    self.dirs[i].arrive(now, self.buf[..n].to_vec());
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn next_deadline(&self) -> Option<u64> {
        self.dirs.iter().filter_map(Direction::next_event_ns).min()
    }
}

fn run(config: &Config) -> io::Result<()> {
    sys::set_timer_slack_ns(1)?;
    let tuns = [sys::open_tun(&config.tun[0])?, sys::open_tun(&config.tun[1])?];
    let start = sys::monotonic_ns();
    let trace_zero = config.trace_start_ns.unwrap_or(start);
    let mut dirs = config.build(trace_zero).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.0))?;
    if config.departures_path.is_some() {
        for d in &mut dirs {
            d.stats.departure_log = Some(Vec::new());
        }
    }
    let mut emu = Emulator {
        tuns,
        dirs,
        lateness: Lateness { counts: vec![0; LATENESS_BUCKETS], max_ns: 0 },
        write_errors: 0,
        buf: vec![0; READ_BUF_BYTES],
    };
    let mut stats_out = config.stats_path.as_ref().map(File::create).transpose()?.map(BufWriter::new);
    if let Some(w) = &mut stats_out {
        writeln!(w, "direction,t_ns,bytes,packets,max_bytes,drops,delivered_bytes,delivered_packets,delay_sum_ns")?;
    }
    let interval_ns = (config.stats_interval_ms * 1e6).round().max(1.0) as u64;
    let mut next_stats = start + interval_ns;
    let spin_ns = config.spin_us * 1000;
    println!("ready");
    io::stdout().flush()?;

    let stdin_fd = io::stdin().as_raw_fd();
    loop {
        let now = sys::monotonic_ns();
        emu.flush_due(now);
        if now >= next_stats {
            if let Some(w) = &mut stats_out {
                write_interval(w, &mut emu.dirs, next_stats)?;
            }
            next_stats += interval_ns;
        }
        let deadline = emu.next_deadline().map_or(next_stats, |d| d.min(next_stats));
        let timeout = deadline.saturating_sub(now).saturating_sub(spin_ns);
        let ready = sys::wait_readable([emu.tuns[0].as_raw_fd(), emu.tuns[1].as_raw_fd(), stdin_fd], Some(timeout))?;
        if ready[2] && stdin_at_eof()? {
            break;
        }
        for (i, r) in ready[..2].iter().enumerate() {
            if *r {
                emu.read_all(i)?;
            }
        }
    }
    if let Some(w) = &mut stats_out {
        w.flush()?;
    }
    finish(config, &emu, start)
}

/// Any byte on stdin is ignored; end-of-file is the stop request.
fn stdin_at_eof() -> io::Result<bool> {
    let mut b = [0u8; 64];
    Ok(io::stdin().read(&mut b)? == 0)
}

fn write_interval(w: &mut impl Write, dirs: &mut [Direction; 2], t_ns: u64) -> io::Result<()> {
    for (name, d) in DIRECTION_NAMES.iter().zip(dirs.iter_mut()) {
        let (bytes, packets) = (d.queue_bytes(), d.queue_packets());
        let (max_bytes, drops) = d.stats.take_interval(bytes);
        let t = &d.stats.total;
        let (dbytes, dpackets, delay) = (t.delivered_bytes, t.delivered_packets, t.delay_sum_ns);
        writeln!(w, "{name},{t_ns},{bytes},{packets},{max_bytes},{drops},{dbytes},{dpackets},{delay}")?;
    }
    w.flush()
}

/// User + system CPU seconds of this process, from /proc/self/stat (fields 14 and 15).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_comm = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after_comm.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / USER_HZ)
}

fn finish(config: &Config, emu: &Emulator, start: u64) -> io::Result<()> {
    let end = sys::monotonic_ns();
    if let Some(path) = &config.departures_path {
        let mut w = BufWriter::new(File::create(path)?);
        writeln!(w, "direction,t_ns,arrival_ns,bytes")?;
        for (name, d) in DIRECTION_NAMES.iter().zip(&emu.dirs) {
            for (t, arrival, len) in d.stats.departure_log.iter().flatten() {
                writeln!(w, "{name},{t},{arrival},{len}")?;
            }
        }
        w.flush()?;
    }
    if let Some(path) = &config.summary_path {
        let summary = json!({
            "start_ns": start,
            "end_ns": end,
            "forward": emu.dirs[0].stats.total,
            "reverse": emu.dirs[1].stats.total,
            "write_errors": emu.write_errors,
            "lateness_us": {
                "p50": emu.lateness.quantile_us(0.5),
                "p99": emu.lateness.quantile_us(0.99),
                "p999": emu.lateness.quantile_us(0.999),
                "max": emu.lateness.max_ns / 1000,
            },
            "cpu_s": cpu_seconds(),
        });
        std::fs::write(path, serde_json::to_string_pretty(&summary)? + "\n")?;
    }
    Ok(())
}
