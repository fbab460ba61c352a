"""Backends other than the engine: `linux` runs a scenario over real Linux TCP (issue 4)."""
