# One command each for a newcomer: `make demo` (install, build the sample, serve the dashboard and print its address)
# and `make test` (install, then run every test, browser tests included).
VENV ?= .venv
PYTHON ?= python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup chromium libreoffice demo test lint

setup: $(VENV)/.installed

# torch==2.13.0 on the same pip line picks the CPU build (no 3 GB CUDA download).
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e ".[test,dev]" torch==2.13.0
	touch $@

# Browser tests drive Debian's Chromium (never `playwright install`).
chromium:
	@test -x /usr/bin/chromium || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium chromium-driver)

# Export tests open every download format in a real spreadsheet: LibreOffice Calc, headless.
libreoffice:
	@test -x /usr/bin/soffice || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libreoffice-calc-nogui)

demo: setup
	$(VENV)/bin/topic-explorer serve

# Every test, slow ones included (a plain `pytest` leaves out those marked slow); benchmarks are not tests.
test: setup chromium libreoffice
	$(VENV)/bin/python -m pytest -m "not benchmark"

lint: setup
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .
