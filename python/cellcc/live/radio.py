"""The modem's radio readings during a live run: RAT, band, cell id, RSRP, RSRQ, SINR/SNR and
CQI, from whichever interface the host has. Every field may be unavailable; each reading says
which ones are and why, and the run's summary keeps that (the seed kept no radio data, so its
"bad place" stayed speculation).

- `ModemManagerProvider`: ModemManager's D-Bus API (org.freedesktop.ModemManager1, its Modem,
  Modem3gpp, Signal and Location interfaces; ModemManager's API reference, mm-modem*.xml), read
  with jeepney. ModemManager gives no serving band, no SINR (its Signal.Lte has `snr`) and no CQI.
- `QmicliProvider`: `qmicli --nas-get-signal-info` / `--nas-get-serving-system` /
  `--nas-get-cell-location-info` / `--dms-get-model|revision` (libqmi's command-line tool).
- `AtProvider`: AT commands over the modem's serial port (pyserial): 3GPP TS 27.007 +CESQ
  (§8.69: RSRP and RSRQ as TS 36.133 §9.1 report indices), +COPS? (§7.3, the RAT as AcT),
  +CEREG? after +CEREG=2 (§10.1.22, TAC and cell id), +CGMI/+CGMM/+CGMR (§5.1-5.3); and, where the
  modem answers it, Quectel's AT+QENG="servingcell" (Quectel EC2x and RM5xxQ AT Commands Manuals:
  the band, and on RM5xxQ the CQI, which no 3GPP command gives).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import time
from typing import Any, Protocol

FIELDS = ("rat", "band", "cell_id", "rsrp_dbm", "rsrq_db", "sinr_db", "snr_db", "cqi")
#: How often the radio is read: modems refresh these about once a second.
PERIOD_S = 1.0


class Provider(Protocol):
    name: str

    def identity(self) -> dict[str, Any]: ...

    def sample(self) -> tuple[dict[str, Any], dict[str, str]]:
        """(values by FIELDS, why each missing field is missing)."""
        ...


def _split(values: dict[str, Any], reasons: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Every field present: a value, or None with its reason."""
    out = {f: values.get(f) for f in FIELDS}
    why = {f: reasons.get(f, "not reported") for f in FIELDS if out[f] is None}
    return out, why


# -- ModemManager ------------------------------------------------------------------------------

MM_BUS_NAME = "org.freedesktop.ModemManager1"
MM_PATH = "/org/freedesktop/ModemManager1"
MM_MODEM = "org.freedesktop.ModemManager1.Modem"
MM_3GPP = "org.freedesktop.ModemManager1.Modem.Modem3gpp"
MM_SIGNAL = "org.freedesktop.ModemManager1.Modem.Signal"
MM_LOCATION = "org.freedesktop.ModemManager1.Modem.Location"
#: MMModemAccessTechnology bits (ModemManager-enums.h), newest first.
MM_ACCESS = (
    (1 << 15, "5GNR"),
    (1 << 14, "LTE"),
    (1 << 9, "HSPA+"),
    (1 << 8, "HSPA"),
    (1 << 5, "UMTS"),
    (1 << 4, "EDGE"),
    (1 << 3, "GPRS"),
    (1 << 1, "GSM"),
)
#: MM_MODEM_LOCATION_SOURCE_3GPP_LAC_CI: "MCC,MNC,LAC,CI,TAC" (hex LAC, CI and TAC).
MM_LOCATION_3GPP = 1
#: Signal.Setup's refresh rate, s.
MM_SIGNAL_RATE_S = 1


class ModemManagerProvider:
    name = "modemmanager"

    def __init__(self, bus: str = "SYSTEM"):
        from jeepney.io.blocking import open_dbus_connection

        self.conn = open_dbus_connection(bus=bus)
        self.modem = self._first_modem()
        self._call(MM_SIGNAL, "Setup", "u", (MM_SIGNAL_RATE_S,), quiet=True)
        self._call(MM_LOCATION, "Setup", "ub", (MM_LOCATION_3GPP, False), quiet=True)

    def _first_modem(self) -> str:
        from jeepney import DBusAddress, new_method_call

        addr = DBusAddress(MM_PATH, bus_name=MM_BUS_NAME, interface="org.freedesktop.DBus.ObjectManager")
        objects = self.conn.send_and_get_reply(new_method_call(addr, "GetManagedObjects")).body[0]
        modems = sorted(path for path, ifaces in objects.items() if MM_MODEM in ifaces)
        if not modems:
            raise RuntimeError("ModemManager knows no modem")
        return modems[0]

    def _call(self, interface: str, method: str, sig: str = "", args: tuple = (), quiet: bool = False) -> Any:
        from jeepney import DBusAddress, MessageType, new_method_call

        addr = DBusAddress(self.modem, bus_name=MM_BUS_NAME, interface=interface)
        reply = self.conn.send_and_get_reply(new_method_call(addr, method, sig, args))
        if reply.header.message_type == MessageType.error:
            if quiet:
                return None
            raise RuntimeError(f"{interface}.{method}: {reply.body[0] if reply.body else 'error'}")
        return reply.body[0] if reply.body else None

    def _props(self, interface: str) -> dict[str, Any]:
        from jeepney import DBusAddress, MessageType, Properties

        addr = DBusAddress(self.modem, bus_name=MM_BUS_NAME, interface=interface)
        reply = self.conn.send_and_get_reply(Properties(addr).get_all())
        if reply.header.message_type == MessageType.error:
            return {}
        return {k: v[1] for k, v in reply.body[0].items()}

    def identity(self) -> dict[str, Any]:
        modem, g3 = self._props(MM_MODEM), self._props(MM_3GPP)
        return {
            "manufacturer": modem.get("Manufacturer"),
            "model": modem.get("Model"),
            "firmware": modem.get("Revision"),
            "operator": g3.get("OperatorName"),
            "operator_code": g3.get("OperatorCode"),
        }

    def sample(self) -> tuple[dict[str, Any], dict[str, str]]:
        values: dict[str, Any] = {}
        reasons = {
            "band": "ModemManager reports no serving band",
            "sinr_db": "ModemManager reports SNR, not SINR",
            "cqi": "ModemManager reports no CQI",
        }
        access = self._props(MM_MODEM).get("AccessTechnologies")
        if isinstance(access, int):
            values["rat"] = next((name for bit, name in MM_ACCESS if access & bit), None)
        lte = self._props(MM_SIGNAL).get("Lte") or {}
        lte = {k: v[1] if isinstance(v, tuple) else v for k, v in lte.items()}
        if lte:
            values |= {"rsrp_dbm": lte.get("rsrp"), "rsrq_db": lte.get("rsrq"), "snr_db": lte.get("snr")}
        else:
            reasons |= {
                f: "Signal.Lte is empty (not on LTE, or Signal.Setup not allowed)"
                for f in ("rsrp_dbm", "rsrq_db", "snr_db")
            }
        location = self._call(MM_LOCATION, "GetLocation", quiet=True) or {}
        lac_ci = location.get(MM_LOCATION_3GPP)
        lac_ci = lac_ci[1] if isinstance(lac_ci, tuple) else lac_ci
        parts = lac_ci.split(",") if isinstance(lac_ci, str) else []
        if len(parts) >= 4 and parts[3]:
            values["cell_id"] = parts[3]
        else:
            reasons["cell_id"] = "Location.GetLocation gave no 3GPP cell (location gathering off?)"
        return _split(values, reasons)


# -- qmicli ------------------------------------------------------------------------------------

_QMI_VALUE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 /()-]*?):\s*'([^']*)'", re.M)


def _number(text: str | None) -> float | None:
    m = re.match(r"^\s*(-?\d+(?:\.\d+)?)", text or "")
    return float(m.group(1)) if m else None


def _qmi_section(text: str, name: str) -> dict[str, str]:
    """The `key: 'value'` lines under a `NAME:` heading of qmicli's output."""
    m = re.search(rf"^{re.escape(name)}:\s*$(.*?)(?=^\S|\Z)", text, re.M | re.S)
    return dict(_QMI_VALUE.findall(m.group(1))) if m else {}


def parse_qmi_signal(text: str) -> dict[str, Any]:
    """`qmicli --nas-get-signal-info` (its LTE section; `5G` is read when LTE is absent)."""
    for rat, section in (("LTE", "LTE"), ("5GNR", "5G")):
        s = _qmi_section(text, section)
        if s:
            return {
                "rat": rat,
                "rsrp_dbm": _number(s.get("RSRP")),
                "rsrq_db": _number(s.get("RSRQ")),
                "snr_db": _number(s.get("SNR")),
                "sinr_db": _number(s.get("SINR")),
            }
    return {}


def parse_qmi_cell(text: str) -> dict[str, Any]:
    """`qmicli --nas-get-cell-location-info`: the serving LTE cell's global id and band."""
    values = dict(_QMI_VALUE.findall(text))
    band = re.search(r"E-UTRA band (\d+)", text)
    return {"cell_id": values.get("Global Cell ID"), "band": f"B{band.group(1)}" if band else None}


class QmicliProvider:
    name = "qmicli"

    def __init__(self, device: str = "/dev/cdc-wdm0", binary: str = "qmicli"):
        if not shutil.which(binary):
            raise RuntimeError(f"no `{binary}` here (Debian: apt-get install libqmi-utils)")
        self.argv = [binary, "-d", device, "-p"]

    def _run(self, option: str) -> str:
        r = subprocess.run([*self.argv, option], capture_output=True, text=True, timeout=10, check=False)
        if r.returncode != 0:
            raise RuntimeError(f"qmicli {option}: {(r.stderr or r.stdout).strip().splitlines()[-1:]}")
        return r.stdout

    def identity(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, option, label in (
            ("model", "--dms-get-model", "Model"),
            ("firmware", "--dms-get-revision", "Revision"),
            ("operator", "--nas-get-serving-system", "Description"),
        ):
            try:
                out[key] = dict(_QMI_VALUE.findall(self._run(option))).get(label)
            except (RuntimeError, subprocess.TimeoutExpired):
                out[key] = None
        return out

    def sample(self) -> tuple[dict[str, Any], dict[str, str]]:
        values: dict[str, Any] = {}
        reasons = {"cqi": "qmicli's NAS service reports no CQI"}
        for option, parse in (
            ("--nas-get-signal-info", parse_qmi_signal),
            ("--nas-get-cell-location-info", parse_qmi_cell),
        ):
            try:
                got = parse(self._run(option))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                reasons |= {f: str(e) for f in FIELDS if f not in values}
                continue
            values |= {k: v for k, v in got.items() if v is not None}
        return _split(values, reasons)


# -- AT commands -------------------------------------------------------------------------------

#: How long an AT command may take to answer.
AT_TIMEOUT_S = 1.0
#: TS 27.007 §7.3 +COPS <AcT>.
AT_ACT = {
    0: "GSM",
    2: "UMTS",
    3: "EDGE",
    4: "HSDPA",
    5: "HSUPA",
    6: "HSPA",
    7: "LTE",
    9: "LTE",
    10: "LTE",
    11: "5GNR",
    12: "5GNR",
    13: "LTE+5GNR",
}
#: TS 27.007 §8.69 +CESQ: 255 means "not known or not detectable".
CESQ_UNKNOWN = 255
_FINAL = re.compile(r"^(OK|ERROR|\+CME ERROR.*|\+CMS ERROR.*)$")


def cesq_rsrp_dbm(index: int) -> float | None:
    """TS 36.133 §9.1.4 RSRP_00..97: index n stands for [-141 + n, -140 + n) dBm; the lower bound."""
    return None if not 0 <= index <= 97 else -141.0 + index


def cesq_rsrq_db(index: int) -> float | None:
    """TS 36.133 §9.1.7 RSRQ_00..34: index n stands for [-20 + n/2, -19.5 + n/2) dB; the lower bound."""
    return None if not 0 <= index <= 34 else -20.0 + index / 2


def parse_cesq(reply: str) -> dict[str, Any]:
    m = re.search(r"\+CESQ:\s*(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)", reply)
    if not m:
        raise ValueError(f"garbled +CESQ reply {reply.strip()!r}")
    rsrq, rsrp = int(m.group(5)), int(m.group(6))
    return {"rsrq_db": cesq_rsrq_db(rsrq), "rsrp_dbm": cesq_rsrp_dbm(rsrp)}


def parse_cops(reply: str) -> dict[str, Any]:
    m = re.search(r'\+COPS:\s*\d+(?:,\d+,"([^"]*)"(?:,(\d+))?)?', reply)
    if not m:
        raise ValueError(f"garbled +COPS reply {reply.strip()!r}")
    act = int(m.group(2)) if m.group(2) else None
    return {"operator": m.group(1), "rat": AT_ACT.get(act) if act is not None else None}


def parse_cereg(reply: str) -> dict[str, Any]:
    m = re.search(r'\+CEREG:\s*\d+,\d+(?:,"?([0-9A-Fa-f]+)"?,"?([0-9A-Fa-f]+)"?)?', reply)
    if not m:
        raise ValueError(f"garbled +CEREG reply {reply.strip()!r}")
    return {"cell_id": m.group(2)}


def parse_qeng(reply: str) -> dict[str, Any]:
    """Quectel +QENG: "servingcell",<state>,"LTE",<is_tdd>,<MCC>,<MNC>,<cellID>,<PCID>,<earfcn>,
    <freq_band_ind>,<UL_bw>,<DL_bw>,<TAC>,<RSRP>,<RSRQ>,<RSSI>,<SINR>, then <srxlev> (EC2x/EG2x
    manuals) or <CQI>,<tx_power>,<srxlev> (RG50xQ/RM5xxQ manual). SINR is left out: its unit
    differs between those modules (EC2x: 1/5 dB steps from -20 dB; RM5xxQ: dB)."""
    m = re.search(r'\+QENG:\s*"servingcell",([^\r\n]*)', reply)
    fields = [f.strip().strip('"') for f in m.group(1).split(",")] if m else []
    if len(fields) < 16 or fields[1] != "LTE":
        raise ValueError(f"no LTE serving cell in {reply.strip()!r}")
    return {
        "cell_id": fields[5],
        "band": f"B{fields[8]}",
        "rsrp_dbm": _number(fields[12]),
        "rsrq_db": _number(fields[13]),
        "cqi": _number(fields[16]) if len(fields) >= 19 else None,
    }


class AtProvider:
    name = "at"

    def __init__(self, port: str, baudrate: int = 115200):
        import serial

        self.port = port
        self.ser = serial.Serial(port, baudrate, timeout=0.05)
        self._ask("AT+CEREG=2")

    def _ask(self, command: str) -> str:
        """Send one command; the reply up to its final result code, or ValueError on silence."""
        self.ser.reset_input_buffer()
        self.ser.write(command.encode() + b"\r")
        lines: list[str] = []
        deadline = time.monotonic() + AT_TIMEOUT_S
        buf = b""
        while time.monotonic() < deadline:
            buf += self.ser.read(256)
            *done, buf = buf.split(b"\n")
            for raw in done:
                line = raw.decode("ascii", "replace").strip()
                if not line or line == command:
                    continue
                if _FINAL.match(line):
                    if line != "OK":
                        raise ValueError(f"{command} answered {line}")
                    return "\n".join(lines)
                lines.append(line)
        raise ValueError(f"no reply to {command} within {AT_TIMEOUT_S:g} s")

    def _try(self, command: str, parse, reasons: dict[str, str], fields: tuple[str, ...]) -> dict[str, Any]:
        try:
            return parse(self._ask(command))
        except ValueError as e:
            for f in fields:
                reasons.setdefault(f, str(e))
            return {}

    def identity(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, command in (("manufacturer", "AT+CGMI"), ("model", "AT+CGMM"), ("firmware", "AT+CGMR")):
            try:
                out[key] = self._ask(command).splitlines()[0].split(":")[-1].strip() or None
            except (ValueError, IndexError):
                out[key] = None
        out["operator"] = self._try("AT+COPS?", parse_cops, {}, ()).get("operator")
        return out

    def sample(self) -> tuple[dict[str, Any], dict[str, str]]:
        reasons: dict[str, str] = {}
        values = self._try('AT+QENG="servingcell"', parse_qeng, reasons, ("band", "cqi"))
        values = {k: v for k, v in values.items() if v is not None}
        for command, parse, fields in (
            ("AT+CESQ", parse_cesq, ("rsrp_dbm", "rsrq_db")),
            ("AT+COPS?", parse_cops, ("rat",)),
            ("AT+CEREG?", parse_cereg, ("cell_id",)),
        ):
            if all(f in values for f in fields):
                continue
            got = self._try(command, parse, reasons, fields)
            values |= {k: v for k, v in got.items() if k in fields and v is not None and k not in values}
        reasons.setdefault("sinr_db", "no 3GPP AT command reports SINR (Quectel's +QENG unit varies by module)")
        reasons.setdefault("snr_db", "no 3GPP AT command reports SNR")
        reasons.setdefault("cqi", "no 3GPP AT command reports CQI")
        return _split(values, reasons)


class NoRadio:
    name = "none"

    def __init__(self, why: str = "the plan names no radio provider"):
        self.why = why

    def identity(self) -> dict[str, Any]:
        return {}

    def sample(self) -> tuple[dict[str, Any], dict[str, str]]:
        return _split({}, dict.fromkeys(FIELDS, self.why))


def provider_from(spec: dict[str, Any]) -> Provider:
    """The plan's `radio` table as a provider; one that cannot start becomes NoRadio saying why."""
    kind = spec.get("provider", "none")
    try:
        if kind == "modemmanager":
            return ModemManagerProvider(spec.get("bus", "SYSTEM"))
        if kind == "qmicli":
            return QmicliProvider(spec.get("device", "/dev/cdc-wdm0"))
        if kind == "at":
            return AtProvider(spec["port"], int(spec.get("baudrate", 115200)))
    except Exception as e:  # a missing modem, bus or port is reported, not fatal to the run
        return NoRadio(f"{kind}: {e}")
    return NoRadio()


class RadioSampler:
    """Reads `provider` every PERIOD_S in a thread: rows (mono ns, real ns, *FIELDS) and, per
    field, why it was missing (the last reason seen)."""

    def __init__(self, provider: Provider):
        self.provider = provider
        self.rows: list[list[Any]] = []
        self.missing: dict[str, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> RadioSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                values, why = self.provider.sample()
            except Exception as e:  # one failed reading must not end the run
                values, why = _split({}, dict.fromkeys(FIELDS, f"reading failed: {e}"))
            self.rows.append([time.monotonic_ns(), time.time_ns(), *(values[f] for f in FIELDS)])
            self.missing.update(why)
            self._stop.wait(PERIOD_S)

    def unavailable(self) -> dict[str, str]:
        """Fields never read in the run, with why."""
        seen = {f for row in self.rows for f, v in zip(FIELDS, row[2:], strict=True) if v is not None}
        return {f: self.missing.get(f, "not reported") for f in FIELDS if f not in seen}
