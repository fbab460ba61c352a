"""The driver's plan format (one record a line: `kind key=value ...`) and the refusal every
part of the ns-3 plan raises. Shared by plan.py (wired, flows) and lte.py (the LENA cell)."""

from __future__ import annotations


class NotSupported(ValueError):
    """The scenario uses something the ns-3 backend cannot run; names the field and why."""

    def __init__(self, path: str, value: object, why: str):
        super().__init__(f"the ns3 backend cannot run this scenario: {path} = {value!r}: {why}")
        self.path, self.value, self.why = path, value, why


def fmt(v: object) -> str:
    """A value as the driver parses it: booleans 1/0, floats round-trip exact."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def record(kind: str, **kv: object) -> str:
    """One plan line."""
    return " ".join([kind, *(f"{k}={fmt(v)}" for k, v in kv.items())])
