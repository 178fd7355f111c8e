# Two commands on a fresh machine: `make demo` and `make test`. Both are idempotent.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_DEMO := $(VENV)/.stamp-demo
STAMP_DEV := $(VENV)/.stamp-dev
# The suite on both cores (pytest-xdist), with the 25 slowest listed after it. `loadfile` keeps each
# test file in one worker: a file's tests share module fixtures (a server, a store) and were written
# to run in order. Much of it waits on subprocesses, servers and Ray, so two workers keep the
# two cores busy: about 28 min instead of 45 on this machine. `make test PYTEST_PARALLEL=` runs it
# in one process.
PYTEST_PARALLEL ?= -n 2 --dist loadfile --durations=25

.PHONY: demo test test-fast lint install install-dev clean espeak postgres chromium poppler web-assets

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP_DEMO): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e ".[local]"
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e ".[local,dev]"
	touch $@ $(STAMP_DEMO)

# chromium also prints the PDF reports (`--out r.pdf`, the web UI's PDF downloads): installed with the
# product where apt-get works (see the chromium target below).
install: $(STAMP_DEMO) web-assets chromium
install-dev: $(STAMP_DEV) web-assets chromium

# The web UI's front-end libraries (and Swagger UI for /api/v1/docs), pinned in web/package-lock.json
# (with integrity hashes) and copied into the package (gitignored): no CDN, no bundler, no install
# scripts run (swagger-ui-dist's analytics dependency would phone home). Redone only when the lock
# file changes. Without npm the UI shows a banner and the browser tests skip; never fails the build.
VENDOR := src/stockdesk/entrypoints/web/static/vendor
STAMP_WEB := $(VENDOR)/.stamp
VENDOR_SOURCES := web/node_modules/htmx.org/dist/htmx.min.js web/node_modules/htmx-ext-sse/dist/sse.js \
	web/node_modules/echarts/dist/echarts.min.js web/node_modules/swagger-ui-dist/swagger-ui-bundle.js \
	web/node_modules/swagger-ui-dist/swagger-ui.css web/node_modules/swagger-ui-dist/favicon-32x32.png

$(STAMP_WEB): web/package.json web/package-lock.json
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "web-assets: npm not found; the web UI will show a 'front-end files missing' banner and the browser tests will skip"; \
	  exit 0; fi; \
	npm ci --prefix web --ignore-scripts --no-audit --no-fund --loglevel=error \
	  && mkdir -p $(VENDOR) && cp $(VENDOR_SOURCES) $(VENDOR)/ && touch $@ \
	  || echo "web-assets: npm ci failed; the web UI will show a banner and the browser tests will skip"

web-assets: $(STAMP_WEB)

DEMO_REPORT := reports/000338.SZ-2020-06-16.html

# The main job on real data and the embedded model: about 5-8 minutes on 2 cores.
demo: $(STAMP_DEMO) web-assets
	$(BIN)/stockdesk data load-sample
	$(BIN)/stockdesk analyze 000338.SZ --as-of 2020-06-16 --out $(DEMO_REPORT)
	@echo "demo report: $(abspath $(DEMO_REPORT))"

# espeak-ng speaks `stockdesk briefing --audio`; without it that test skips. Installed with apt-get when
# this machine allows it (root, or sudo without a password); never fails the build.
espeak:
	@if command -v espeak-ng >/dev/null 2>&1; then exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then echo "espeak-ng: no apt-get here; the audio test will skip"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; elif sudo -n true >/dev/null 2>&1; then sudo="sudo -n"; \
	else echo "espeak-ng: apt-get needs root; the audio test will skip"; exit 0; fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get install -y -q espeak-ng >/dev/null 2>&1 \
	  || { $$sudo apt-get update -q >/dev/null 2>&1 && $$sudo apt-get install -y -q espeak-ng >/dev/null 2>&1; } \
	  || echo "espeak-ng: apt-get could not install it; the audio test will skip"

# PostgreSQL server binaries for the `postgres` tests (a throwaway server per test session); without
# them those tests skip. Installed like espeak-ng; never fails the build.
postgres:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then echo "postgresql: no apt-get here; the postgres tests will skip"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; elif sudo -n true >/dev/null 2>&1; then sudo="sudo -n"; \
	else echo "postgresql: apt-get needs root; the postgres tests will skip"; exit 0; fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get install -y -q postgresql >/dev/null 2>&1 \
	  || { $$sudo apt-get update -q >/dev/null 2>&1 && $$sudo apt-get install -y -q postgresql >/dev/null 2>&1; } \
	  || echo "postgresql: apt-get could not install it; the postgres tests will skip"

# Debian's chromium (driven by Playwright through executable_path; `playwright install` is never run;
# it also prints the PDF reports) and a CJK font so Chinese text renders in screenshots and PDFs;
# without chromium the browser and PDF tests skip. Installed like espeak-ng; never fails the build.
chromium:
	@if command -v chromium >/dev/null 2>&1 && fc-list :lang=zh 2>/dev/null | grep -q .; then exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then echo "chromium: no apt-get here; the browser tests will skip"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; elif sudo -n true >/dev/null 2>&1; then sudo="sudo -n"; \
	else echo "chromium: apt-get needs root; the browser tests will skip"; exit 0; fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get install -y -q chromium fonts-noto-cjk >/dev/null 2>&1 \
	  || { $$sudo apt-get update -q >/dev/null 2>&1 && $$sudo apt-get install -y -q chromium fonts-noto-cjk >/dev/null 2>&1; } \
	  || echo "chromium: apt-get could not install it; the browser tests will skip"

# poppler-utils (pdftoppm, pdftotext, pdffonts) reads the exported PDFs back in the export tests; without
# it those tests skip. Installed like espeak-ng; never fails the build.
poppler:
	@if command -v pdftoppm >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1; then exit 0; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then echo "poppler-utils: no apt-get here; the PDF export tests will skip"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; elif sudo -n true >/dev/null 2>&1; then sudo="sudo -n"; \
	else echo "poppler-utils: apt-get needs root; the PDF export tests will skip"; exit 0; fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get install -y -q poppler-utils >/dev/null 2>&1 \
	  || { $$sudo apt-get update -q >/dev/null 2>&1 && $$sudo apt-get install -y -q poppler-utils >/dev/null 2>&1; } \
	  || echo "poppler-utils: apt-get could not install it; the PDF export tests will skip"

test: $(STAMP_DEV) web-assets espeak postgres chromium poppler
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)

# Everything but the `slow` tests (the real embedded model, the real sample download); the pytest
# summary counts what was left out. `make test` is the full run.
test-fast: $(STAMP_DEV) web-assets
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	@echo "test-fast: deselecting the slow tests (real embedded model, real sample download); make test runs them"
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) -m "not slow"

lint: $(STAMP_DEV)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache web/node_modules $(VENDOR)
