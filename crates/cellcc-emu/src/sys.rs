//! The few system calls the emulator needs that std does not wrap: TUNSETIFF, ppoll with a
//! nanosecond timeout, CLOCK_MONOTONIC as a number (to share a timeline with the Python side's
//! `time.monotonic_ns()`), and the timer-slack knob. All `unsafe` of the crate lives here.
#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

/// include/uapi/linux/if_tun.h: `#define TUNSETIFF _IOW('T', 202, int)`.
const TUNSETIFF: u64 = 0x4004_54ca;
/// include/uapi/linux/if_tun.h: layer-3 device, no packet-information header.
const IFF_TUN: i16 = 0x0001;
const IFF_NO_PI: i16 = 0x1000;
/// include/uapi/linux/if.h.
const IFNAMSIZ: usize = 16;

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags member of the union (40 bytes).
#[repr(C)]
struct IfReq {
    name: [u8; IFNAMSIZ],
    flags: i16,
    pad: [u8; 22],
}

/// Create (or attach to) TUN device `name` in the caller's network namespace, non-blocking.
pub fn open_tun(name: &str) -> io::Result<File> {
    if name.is_empty() || name.len() >= IFNAMSIZ {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("TUN name {name:?}: 1-15 bytes")));
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open("/dev/net/tun")?;
    let mut req = IfReq { name: [0; IFNAMSIZ], flags: IFF_TUN | IFF_NO_PI, pad: [0; 22] };
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: `file` is an open /dev/net/tun descriptor and `req` is a properly sized, initialised
    // `struct ifreq` that outlives the call; TUNSETIFF reads the name and flags and writes back the name.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF as _, &mut req as *mut IfReq) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(file)
}

/// CLOCK_MONOTONIC in nanoseconds.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_MONOTONIC) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Ask for timers that fire within `slack_ns` of their deadline (default slack is 50 us).
pub fn set_timer_slack_ns(slack_ns: u64) -> io::Result<()> {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and touches no memory of ours.
    let rc = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, slack_ns as libc::c_ulong) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Readiness of each fd after waiting at most `timeout_ns` (`None`: forever).
/// Returns which became readable or hung up.
pub fn wait_readable<const N: usize>(fds: [RawFd; N], timeout_ns: Option<u64>) -> io::Result<[bool; N]> {
    let mut pfds = fds.map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
    let ts = timeout_ns.map(|ns| libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    });
    let ts_ptr = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `pfds` is an array of N initialised pollfd that outlives the call; `ts_ptr` is null
    // or points to `ts`, alive for the call; a null sigmask leaves the mask unchanged.
    let rc = unsafe { libc::ppoll(pfds.as_mut_ptr(), N as libc::nfds_t, ts_ptr, std::ptr::null()) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok([false; N]);
        }
        return Err(e);
    }
    Ok(pfds.map(|p| p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0))
}
