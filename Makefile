# Two commands on a fresh machine: `make demo` and `make test`. Both are idempotent.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_DEMO := $(VENV)/.stamp-demo
STAMP_DEV := $(VENV)/.stamp-dev

.PHONY: demo test lint install install-dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP_DEMO): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e ".[local]"
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e ".[local,dev]"
	touch $@ $(STAMP_DEMO)

install: $(STAMP_DEMO)
install-dev: $(STAMP_DEV)

DEMO_REPORT := reports/000338.SZ-2020-06-16.html

# The main job on real data and the embedded model: about 5-8 minutes on 2 cores.
demo: $(STAMP_DEMO)
	$(BIN)/stockdesk data load-sample
	$(BIN)/stockdesk analyze 000338.SZ --as-of 2020-06-16 --out $(DEMO_REPORT)
	@echo "demo report: $(abspath $(DEMO_REPORT))"

test: $(STAMP_DEV)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/python -m pytest

lint: $(STAMP_DEV)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache
