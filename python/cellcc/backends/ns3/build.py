"""Compile the ns-3 driver (`driver.cc`, `flows.cc`, `lte.cc`, `channel.cc`, `diag.cc`, `wifi.cc`, `driver.h`)
against the `ns3` wheel's headers and libraries on first use, and cache the binary in the user's
cache dir, keyed by a hash of the sources, the ns-3 version and the compile command. Installs are
atomic (compile to a temp name, rename), so concurrent runs and an interrupted compile never leave
a half-written driver.

The wheel (PyPI `ns3==3.44.post0`) ships `include/ns3/*.h` and `lib64/libns3.44-*.so`. Its
config-store library names GTK symbols the wheel does not ship, hence `--allow-shlib-undefined`;
its compile definitions are ns-3's release profile with logging and asserts compiled in.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).parent
#: Compiled together into one binary; driver.h is included by each.
DRIVER_SOURCES = tuple(
    HERE / name for name in ("driver.cc", "flows.cc", "lte.cc", "channel.cc", "interferers.cc", "diag.cc", "wifi.cc")
)
DRIVER_HEADERS = (HERE / "driver.h",)
#: The ns-3 release the mapping is written for (plan.py's TypeIds and attributes).
NS3_VERSION = "3.44"
#: ns-3 modules the driver uses (libns3.<version>-<module>.so), dependencies first for the linker.
MODULES = (
    "lte",
    "wifi",
    "spectrum",
    "antenna",
    "propagation",
    "buildings",
    "virtual-net-device",
    "config-store",
    "flow-monitor",
    "applications",
    "point-to-point",
    "traffic-control",
    "internet",
    "bridge",
    "mobility",
    "network",
    "stats",
    "core",
)
#: The wheel's own compile definitions (its lib64/cmake/ns3 exported targets).
DEFINES = ("NS3_BUILD_PROFILE_RELEASE", "NS3_LOG_ENABLE", "NS3_ASSERT_ENABLE")
CXX_FLAGS = ("-std=c++20", "-O2")


class DriverUnavailable(RuntimeError):
    """ns-3 or a C++ compiler is missing; says what to install."""


def ns3_prefix() -> Path:
    """The installed `ns3` wheel's root (holding include/ and lib64/)."""
    try:
        version = metadata.version("ns3")
    except metadata.PackageNotFoundError:
        raise DriverUnavailable(
            "the ns3 backend needs ns-3: pip install 'cellcc[ns3]' (ns3==3.44.post0 from PyPI)"
        ) from None
    if not version.startswith(NS3_VERSION):
        raise DriverUnavailable(f"the ns3 backend is written for ns-3 {NS3_VERSION}, found ns3=={version}")
    files = metadata.files("ns3") or []
    header = next((f for f in files if str(f).endswith("include/ns3/core-module.h")), None)
    if header is None:
        raise DriverUnavailable("the installed ns3 package has no include/ns3/core-module.h")
    return Path(header.locate()).parents[2]


def lib_dir(prefix: Path) -> Path:
    return prefix / "lib64" if (prefix / "lib64").is_dir() else prefix / "lib"


def compiler() -> str:
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if not cxx:
        raise DriverUnavailable("the ns3 backend compiles its driver once and needs a C++ compiler (g++)")
    return cxx


def object_commands(prefix: Path, out_dir: Path) -> list[list[str]]:
    """One compile per source (run side by side: the machines here have two cores)."""
    common = [compiler(), *CXX_FLAGS, *(f"-D{d}" for d in DEFINES), f"-I{prefix / 'include'}"]
    return [[*common, "-c", str(s), "-o", str(out_dir / f"{s.stem}.o")] for s in DRIVER_SOURCES]


def link_command(prefix: Path, out_dir: Path, output: Path) -> list[str]:
    libs = lib_dir(prefix)
    return [
        compiler(),
        *(str(out_dir / f"{s.stem}.o") for s in DRIVER_SOURCES),
        "-o",
        str(output),
        f"-L{libs}",
        *(f"-lns{NS3_VERSION}-{m}" for m in MODULES),
        f"-Wl,-rpath,{libs}",
        "-Wl,--allow-shlib-undefined",
    ]


def _run_together(commands: list[list[str]]) -> tuple[int, str]:
    """Run the commands at once; the first failure's exit code and everyone's stderr."""
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for c in commands]
    errors = [p.communicate()[1] for p in procs]
    return next((p.returncode for p in procs if p.returncode), 0), "".join(errors)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cellcc" / "ns3-driver"


def driver_key(prefix: Path) -> str:
    h = hashlib.sha256()
    for source in (*DRIVER_SOURCES, *DRIVER_HEADERS):
        h.update(source.read_bytes())
    h.update(metadata.version("ns3").encode())
    out = Path("out")
    for command in (*object_commands(prefix, out), link_command(prefix, out, out / "driver")):
        h.update(" ".join(command).encode())
    return h.hexdigest()[:16]


def driver_binary() -> Path:
    """The compiled driver, compiling it (one to two minutes) if this source/ns-3 pair is not cached."""
    prefix = ns3_prefix()
    target = cache_dir() / f"cellcc-ns3-driver-{driver_key(prefix)}"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        built = Path(tmp) / target.name
        code, errors = _run_together(object_commands(prefix, Path(tmp)))
        if code == 0:
            code, errors = _run_together([link_command(prefix, Path(tmp), built)])
        if code != 0:
            # The CLI shows one line: it names the log holding the compiler's messages.
            log = target.with_suffix(".log")
            log.write_text(errors)
            raise DriverUnavailable(f"compiling the ns-3 driver failed (exit {code}), see {log}")
        os.replace(built, target)
    return target
