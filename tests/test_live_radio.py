"""The live mode's radio providers against fakes (issue 33): ModemManager through python-dbusmock
on a private D-Bus, AT commands over a pty pair with canned, garbled and missing replies, and
qmicli's output from a stand-in script. Every field may be unavailable and the reading says why.

python-dbusmock runs on the system Python (Debian's python3-dbusmock, which brings dbus-python);
without it, or without dbus-daemon, the D-Bus test skips and says so (`make test` installs both).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from cellcc.live import radio

SYSTEM_PYTHON = "/usr/bin/python3"
#: How long the private bus and the mock may take to come up.
START_TIMEOUT_S = 10.0


def _dbusmock_missing() -> str | None:
    if not shutil.which("dbus-daemon"):
        return "no dbus-daemon (Debian: apt-get install dbus)"
    r = subprocess.run([SYSTEM_PYTHON, "-c", "import dbusmock"], capture_output=True, check=False)
    return (
        "no python3-dbusmock on the system Python (Debian: apt-get install python3-dbusmock)" if r.returncode else None
    )


DBUSMOCK_MISSING = _dbusmock_missing() if Path(SYSTEM_PYTHON).exists() else "no /usr/bin/python3"


@pytest.fixture
def mm_bus(tmp_path: Path):
    """A private session bus with a ModemManager mock (an ObjectManager) on it; yields its address."""
    if DBUSMOCK_MISSING:
        pytest.skip(DBUSMOCK_MISSING)
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"], stdout=subprocess.PIPE, text=True
    )
    address = bus.stdout.readline().strip()
    env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": address}
    mock = subprocess.Popen(
        [SYSTEM_PYTHON, "-m", "dbusmock", "-m", radio.MM_BUS_NAME, radio.MM_PATH, radio.MM_BUS_NAME],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_name(address)
        yield address
    finally:
        for p in (mock, bus):
            p.terminate()
            p.wait(10)


def _connection(address: str):
    from jeepney.io.blocking import open_dbus_connection

    return open_dbus_connection(bus=address)


def _wait_for_name(address: str) -> None:
    from jeepney import message_bus
    from jeepney.io.blocking import Proxy

    deadline = time.monotonic() + START_TIMEOUT_S
    with _connection(address) as conn:
        dbus = Proxy(message_bus, conn)
        while time.monotonic() < deadline:
            if dbus.NameHasOwner(radio.MM_BUS_NAME)[0]:
                return
            time.sleep(0.05)
    raise RuntimeError("the ModemManager mock did not appear on the bus")


def _mock_call(address: str, path: str, method: str, sig: str, args: tuple) -> None:
    from jeepney import DBusAddress, MessageType, new_method_call

    with _connection(address) as conn:
        target = DBusAddress(path, bus_name=radio.MM_BUS_NAME, interface="org.freedesktop.DBus.Mock")
        reply = conn.send_and_get_reply(new_method_call(target, method, sig, args))
        assert reply.header.message_type != MessageType.error, reply.body


MODEM = "/org/freedesktop/ModemManager1/Modem/0"


def _add_modem(address: str, lte: dict | None, location: str | None) -> None:
    modem_props = {
        "Manufacturer": ("s", "huawei"),
        "Model": ("s", "E392"),
        "Revision": ("s", "11.833.15.00.000"),
        "AccessTechnologies": ("u", 1 << 14),
    }
    _mock_call(address, radio.MM_PATH, "AddObject", "ssa{sv}a(ssss)", (MODEM, radio.MM_MODEM, modem_props, []))
    _mock_call(
        address,
        MODEM,
        "AddProperties",
        "sa{sv}",
        (radio.MM_3GPP, {"OperatorName": ("s", "Sonera"), "OperatorCode": ("s", "24491")}),
    )
    signal = {"Lte": ("a{sv}", {k: ("d", v) for k, v in (lte or {}).items()})}
    _mock_call(address, MODEM, "AddProperties", "sa{sv}", (radio.MM_SIGNAL, signal))
    _mock_call(address, MODEM, "AddMethod", "sssss", (radio.MM_SIGNAL, "Setup", "u", "", ""))
    _mock_call(address, MODEM, "AddProperties", "sa{sv}", (radio.MM_LOCATION, {"Enabled": ("u", 1)}))
    _mock_call(address, MODEM, "AddMethod", "sssss", (radio.MM_LOCATION, "Setup", "ub", "", ""))
    code = f"ret = {{dbus.UInt32(1): dbus.String({location!r}, variant_level=1)}}" if location else "ret = {}"
    _mock_call(address, MODEM, "AddMethod", "sssss", (radio.MM_LOCATION, "GetLocation", "", "a{uv}", code))


def test_modemmanager_readings_through_dbusmock(mm_bus: str) -> None:
    _add_modem(mm_bus, {"rsrp": -95.0, "rsrq": -11.5, "snr": 13.25, "rssi": -67.0}, "244,91,1F4,1A2B3C4,1F4")
    p = radio.ModemManagerProvider(bus=mm_bus)
    assert p.identity() == {
        "manufacturer": "huawei",
        "model": "E392",
        "firmware": "11.833.15.00.000",
        "operator": "Sonera",
        "operator_code": "24491",
    }
    values, why = p.sample()
    assert values["rat"] == "LTE" and values["cell_id"] == "1A2B3C4"
    assert (values["rsrp_dbm"], values["rsrq_db"], values["snr_db"]) == (-95.0, -11.5, 13.25)
    assert set(why) == {"band", "sinr_db", "cqi"} and "no serving band" in why["band"]


def test_modemmanager_without_signal_or_location_says_which_fields_are_missing(mm_bus: str) -> None:
    _add_modem(mm_bus, None, None)
    values, why = radio.ModemManagerProvider(bus=mm_bus).sample()
    assert values["rat"] == "LTE" and values["rsrp_dbm"] is None
    assert "Signal.Lte is empty" in why["rsrp_dbm"] and "no 3GPP cell" in why["cell_id"]


def test_no_modem_on_the_bus_becomes_no_radio_with_the_reason(mm_bus: str) -> None:
    p = radio.provider_from({"provider": "modemmanager", "bus": mm_bus})
    assert isinstance(p, radio.NoRadio)
    values, why = p.sample()
    assert all(v is None for v in values.values()) and "knows no modem" in why["rsrp_dbm"]


# -- AT commands over a pty pair ---------------------------------------------------------------


class FakeModem:
    """The master side of a pty: answers each command from `replies` (None: stays silent)."""

    def __init__(self, replies: dict[str, str | None]):
        self.replies = replies
        self.master, slave = os.openpty()
        self.port = os.ttyname(slave)
        self._slave = slave
        self.seen: list[str] = []
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        buf = b""
        while not self._stop:
            try:
                chunk = os.read(self.master, 256)
            except OSError:
                return
            buf += chunk
            while b"\r" in buf:
                line, buf = buf.split(b"\r", 1)
                cmd = line.decode().strip()
                if not cmd:
                    continue
                self.seen.append(cmd)
                reply = self.replies.get(cmd, "ERROR")
                if reply is not None:
                    os.write(self.master, f"\r\n{reply}\r\n".encode())

    def close(self) -> None:
        self._stop = True
        os.close(self._slave)
        os.close(self.master)


CANNED = {
    "AT+CEREG=2": "OK",
    "AT+CGMI": "huawei\r\nOK",
    "AT+CGMM": "E392\r\nOK",
    "AT+CGMR": "11.833.15.00.000\r\nOK",
    "AT+COPS?": '+COPS: 0,0,"Sonera",7\r\nOK',
    "AT+CESQ": "+CESQ: 99,99,255,255,20,45\r\nOK",
    "AT+CEREG?": '+CEREG: 2,1,"01F4","01A2B3C4",7\r\nOK',
    'AT+QENG="servingcell"': "ERROR",
}


def test_at_commands_canned_replies() -> None:
    modem = FakeModem(CANNED)
    try:
        p = radio.AtProvider(modem.port)
        assert p.identity() == {
            "manufacturer": "huawei",
            "model": "E392",
            "firmware": "11.833.15.00.000",
            "operator": "Sonera",
        }
        values, why = p.sample()
    finally:
        modem.close()
    # TS 36.133 report indices: RSRQ_20 = [-10, -9.5) dB, RSRP_45 = [-96, -95) dBm.
    assert values["rsrq_db"] == -10.0 and values["rsrp_dbm"] == -96.0
    assert values["rat"] == "LTE" and values["cell_id"] == "01A2B3C4"
    assert "answered ERROR" in why["band"] and "answered ERROR" in why["cqi"]


def test_at_commands_garbled_and_missing_replies_leave_fields_unavailable() -> None:
    modem = FakeModem(
        {
            **CANNED,
            "AT+CESQ": "+CESQ: ##garbage##\r\nOK",
            "AT+COPS?": None,
            "AT+CEREG?": '+CEREG: 2,1,"01F4","0000000A",7\r\nOK',
        }
    )
    try:
        started = time.monotonic()
        values, why = radio.AtProvider(modem.port).sample()
        elapsed = time.monotonic() - started
    finally:
        modem.close()
    assert values["rsrp_dbm"] is None and "garbled +CESQ" in why["rsrp_dbm"]
    assert values["rat"] is None and "no reply to AT+COPS?" in why["rat"]
    assert values["cell_id"] == "0000000A"
    assert elapsed < 3 * radio.AT_TIMEOUT_S


def test_at_commands_quectel_serving_cell_gives_band_and_cqi() -> None:
    qeng = '+QENG: "servingcell","NOCONN","LTE","FDD",244,91,1A2B3C4,188,6300,20,3,3,1F4,-104,-9,-78,11,9,23,-32\r\nOK'
    modem = FakeModem({**CANNED, 'AT+QENG="servingcell"': qeng})
    try:
        values, _ = radio.AtProvider(modem.port).sample()
    finally:
        modem.close()
    assert values["band"] == "B20" and values["cqi"] == 9 and values["rsrp_dbm"] == -104
    assert values["cell_id"] == "1A2B3C4"


def test_at_unit_conversions_follow_ts_36_133() -> None:
    assert radio.cesq_rsrp_dbm(0) == -141 and radio.cesq_rsrp_dbm(97) == -44 and radio.cesq_rsrp_dbm(255) is None
    assert radio.cesq_rsrq_db(0) == -20 and radio.cesq_rsrq_db(34) == -3 and radio.cesq_rsrq_db(255) is None


# -- qmicli ------------------------------------------------------------------------------------

QMI_SIGNAL = """[/dev/cdc-wdm0] Successfully got signal info
LTE:
\tRSSI: '-67 dBm'
\tRSRQ: '-11 dB'
\tRSRP: '-95 dBm'
\tSNR: '13.2 dB'
"""
QMI_CELL = """[/dev/cdc-wdm0] Successfully got cell location info
Intrafrequency LTE Info
\tUE In Idle: 'no'
\tPLMN: '24491'
\tTracking Area Code: '500'
\tGlobal Cell ID: '27409348'
\tEUTRA Absolute RF Channel Number: '6300' (E-UTRA band 20: 800 DD)
"""


def test_qmicli_output_is_parsed(tmp_path: Path) -> None:
    fake = tmp_path / "qmicli"
    (tmp_path / "signal.txt").write_text(QMI_SIGNAL)
    (tmp_path / "cell.txt").write_text(QMI_CELL)
    fake.write_text(f"""#!/bin/sh
case "$4" in
  --nas-get-signal-info) cat {tmp_path}/signal.txt ;;
  --nas-get-cell-location-info) cat {tmp_path}/cell.txt ;;
  --dms-get-model) echo "[/dev/cdc-wdm0] Device model retrieved:"; echo "	Model: 'EM7455'" ;;
  *) echo "error: couldn't do $4" >&2; exit 1 ;;
esac
""")
    fake.chmod(0o755)
    p = radio.QmicliProvider(binary=str(fake))
    values, why = p.sample()
    assert values["rat"] == "LTE" and values["rsrp_dbm"] == -95 and values["snr_db"] == 13.2
    assert values["cell_id"] == "27409348" and values["band"] == "B20"
    assert "no CQI" in why["cqi"]
    assert p.identity()["model"] == "EM7455" and p.identity()["firmware"] is None
