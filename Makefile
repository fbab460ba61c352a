# cellcc: the two commands first.
#   make run    build everything into .venv and rank every CCA on the bundled default scenarios
#   make test   build, then cargo test + pytest
# Also: make bench, make lint, make docs. Installation is stamped: a second call reinstalls nothing
# unless Rust sources, Cargo files or pyproject.toml changed (Python sources are installed editable).

VENV    := .venv
BIN     := $(VENV)/bin
PYTHON  ?= python3
# Rebuild the extension when any of these change.
RUST_INPUTS := Cargo.toml Cargo.lock rustfmt.toml $(shell find crates -name '*.rs' -o -name Cargo.toml)
TOOLS_STAMP := $(VENV)/.stamp-tools
BUILD_STAMP := $(VENV)/.stamp-cellcc
APT_STAMP   := $(VENV)/.stamp-apt

.PHONY: run test bench lint docs install studies chromium

run: $(BUILD_STAMP)
	$(BIN)/cellcc compare

test: $(BUILD_STAMP) chromium $(APT_STAMP)
	cargo test --workspace
	$(BIN)/pytest

# Headless Chromium opens every HTML report in tests/test_report_browser.py (Debian's package; CI runs
# as root on a clean Debian machine, so it is installed here when missing). A machine that has it is left
# alone; one without root or apt-get gets one line, and the browser tests skip there (under CI they fail).
chromium:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 || \
	  { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; }; \
	else \
	  echo "chromium: not installed, and installing it needs root and apt-get: the browser tests will skip"; \
	fi

# The engine's benchmark set, the CLI's start-up time, then ns-3 / engine wall time side by side
# (all into BENCHMARKS.md; the ns-3 row is skipped with one line when ns-3 is not installed).
bench: $(BUILD_STAMP)
	cargo run --release -p cellcc-engine --bin cellcc-bench
	$(BIN)/python scripts/bench_startup.py BENCHMARKS.md
	$(BIN)/python scripts/bench_ns3.py BENCHMARKS.md

lint: $(BUILD_STAMP)
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests examples scripts
	$(BIN)/ruff format --check python tests examples scripts

docs: $(BUILD_STAMP)
	$(BIN)/python scripts/make_docs.py

install: $(BUILD_STAMP)

# The seed studies (issue 11), full grids with 10 seeds; each report is copied to docs/studies/NAME/.
STUDIES := malekzadeh nor-maulana li-jie-4g atxutegi li-celledge
studies: $(BUILD_STAMP)
	for s in $(STUDIES); do \
	  $(BIN)/cellcc study $$s --out results/studies/$$s || exit 1; \
	  rm -rf docs/studies/$$s/report.md docs/studies/$$s/report.html docs/studies/$$s/report_figures && \
	  mkdir -p docs/studies/$$s && \
	  cp results/studies/$$s/report.md results/studies/$$s/report.html docs/studies/$$s/ && \
	  if [ -d results/studies/$$s/report_figures ]; then cp -r results/studies/$$s/report_figures docs/studies/$$s/; fi; \
	done

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Debian packages the live mode's ModemManager fake runs on (tests/test_live_radio.py: python-dbusmock
# needs dbus-python, which PyPI ships only as source needing libdbus headers). Best effort: without root
# or apt the test skips and says why.
$(APT_STAMP): | $(BIN)/python
	-@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get install -y -q --no-install-recommends python3-dbusmock dbus >/dev/null 2>&1 || \
	  { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends python3-dbusmock dbus >/dev/null 2>&1; }; \
	fi
	touch $@

$(TOOLS_STAMP): $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip 'maturin>=1.9,<2'
	touch $@

# maturin installs the package editable (python/ on sys.path), its dependencies, the `dev` extra and
# the `ns3` extra (ns-3 for the ns-3 backend and its tests),
# and builds the Rust extension in release mode.
$(BUILD_STAMP): $(TOOLS_STAMP) $(RUST_INPUTS) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --extras dev,ns3
	touch $@
