# statewright: `make generate` compiles every spec; `make test` runs every check; `make check` is
# the fast loop (one interpreter, no renderer install, no slow tests). Each sets up what it needs
# from scratch (virtual environments, diagram tools), printing one line per set-up step; installer
# output goes to .cache/logs/ and is shown only when a step fails.

PYTHON ?= $(or $(call find_python,3.11),$(shell command -v python3))
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Other interpreters the suite also runs on when the machine has them (pyenv provides them here;
# its shims only run the selected version, so look in pyenv's versions folder too).
OTHER_VERSIONS := 3.10 3.12 3.13
find_python = $(firstword $(shell \
  for candidate in python$(1) $$(pyenv root 2>/dev/null)/versions/$(1).*/bin/python$(1); do \
    "$$candidate" -c "" >/dev/null 2>&1 && echo "$$candidate"; \
  done))
PYTEST_FLAGS ?= -q
QUIETLY := make/quietly.sh

include make/diagram-tools.mk
include make/postgres.mk
include make/wheelhouse.mk
include make/w3c.mk

.PHONY: setup generate test check lint typecheck stale pytest pytest-fast venvs interpreters \
	examples bench fuzz clean

$(STAMP): pyproject.toml
	@$(QUIETLY) "setup: $(VENV) ($$($(PYTHON) --version)), installing statewright[dev]" sh -c '\
		$(PYTHON) -m venv $(VENV) \
		&& $(BIN)/python -m pip install --upgrade pip \
		&& $(BIN)/python -m pip install -e ".[dev]"'
	@touch $@

setup: $(STAMP)

generate: setup
	$(BIN)/statewright generate

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy generator runtime generated tests examples bench

stale: setup
	$(BIN)/statewright check

pytest: setup tools postgres wheelhouse w3c-charts
	$(BIN)/python -m pytest $(PYTEST_FLAGS)

# The fast loop: the tests that need no external tool run (mypy, subprocesses, renderers) on the
# main interpreter, with a fifth of the property tests' budget (make test runs the whole one).
pytest-fast: setup
	STATEWRIGHT_FUZZ_BUDGET=$${STATEWRIGHT_FUZZ_BUDGET:-60} \
	  $(BIN)/python -m pytest $(PYTEST_FLAGS) -m "not slow" -p no:cacheprovider

check: lint typecheck stale pytest-fast

# A virtual environment per other interpreter from 3.10 to 3.13 that is installed.
venvs:
	@set -e; for version in $(OTHER_VERSIONS); do \
	  python=$$(for candidate in python$$version $$(pyenv root 2>/dev/null)/versions/$$version.*/bin/python$$version; do \
	    "$$candidate" -c "" >/dev/null 2>&1 && echo "$$candidate" && break; done); \
	  if [ -z "$$python" ]; then echo "venvs: skip Python $$version: not installed"; continue; fi; \
	  venv=.venv-$$version; \
	  if [ ! -f $$venv/.installed ] || [ pyproject.toml -nt $$venv/.installed ]; then \
	    $(QUIETLY) "venvs: $$venv ($$($$python --version)), installing statewright[dev]" sh -c "\
	      $$python -m venv $$venv && $$venv/bin/python -m pip install --upgrade pip \
	      && $$venv/bin/python -m pip install -e '.[dev]'" && touch $$venv/.installed; \
	  fi; \
	done

# The same suite on every other interpreter, the many-worker tests 5 s long instead of 30 s
# (tests/runtime/test_fleet.py). (A shell glob, not $(wildcard): make caches directory listings,
# so it would not see the environments `venvs` has just created.)
interpreters: tools postgres venvs wheelhouse w3c-charts
	@set -e; for venv in .venv-3.*; do \
	  [ -f $$venv/.installed ] || continue; \
	  echo "== pytest on $$($$venv/bin/python --version)"; \
	  STATEWRIGHT_FLEET_SECONDS=$${STATEWRIGHT_FLEET_SECONDS:-5} \
	    $$venv/bin/python -m pytest $(PYTEST_FLAGS) -p no:cacheprovider; \
	done

examples: setup
	@set -e; for example in examples/*.py; do \
	  [ -e "$$example" ] || continue; echo "== $$example"; \
	  $(BIN)/python $$example >/dev/null; \
	done

test: lint typecheck stale pytest examples interpreters

# The fuzz suite and the statechart property tests with a long budget and a fresh seed (make test
# runs a short, fixed one). Replay a failure with the seed it prints: make fuzz FUZZ_SEED=<seed>.
FUZZ_BUDGET ?= 20000
FUZZ_SEED ?= $(shell date +%s)
fuzz: setup
	@echo "fuzz: budget $(FUZZ_BUDGET) cases per test, seed $(FUZZ_SEED)"
	STATEWRIGHT_FUZZ_BUDGET=$(FUZZ_BUDGET) STATEWRIGHT_FUZZ_SEED=$(FUZZ_SEED) \
		$(BIN)/python -m pytest $(PYTEST_FLAGS) -p no:cacheprovider tests/fuzz tests/charts/test_reference.py

# send() (flat and chart) and every other way in, imports and saves on every interpreter the machine has, then the compiler, an MCP
# tool call, mypy on large generated modules and the mypy plugin (on the main one). bench_mypy_scale takes some ten minutes.
bench: setup venvs
	@set -e; for venv in $(VENV) .venv-3.*; do \
	  [ -x $$venv/bin/python ] || continue; \
	  $(QUIETLY) "bench: installing the peers into $$venv" $$venv/bin/python -m pip install -e '.[bench]'; \
	  $$venv/bin/python bench/bench_send.py; echo; \
	  $$venv/bin/python bench/bench_entry_points.py; echo; \
	  $$venv/bin/python bench/bench_chart_send.py; echo; \
	  $$venv/bin/python bench/bench_import.py; echo; \
	  $$venv/bin/python bench/bench_save.py; echo; \
	  $$venv/bin/python bench/bench_registry.py; echo; \
	done
	$(BIN)/python bench/bench_compile.py
	$(BIN)/python bench/bench_mcp.py
	$(BIN)/python bench/bench_mypy_scale.py
	$(BIN)/python bench/bench_mypy_plugin.py

clean:
	rm -rf $(VENV) .venv-* .tools .cache .mypy_cache .pytest_cache .ruff_cache
