# statewright: `make generate` compiles every spec; `make test` runs every check.
# Both set up what they need from scratch (virtual environments, diagram tools).

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

include make/diagram-tools.mk

.PHONY: setup generate test lint typecheck stale pytest interpreters examples bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
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

pytest: setup tools
	$(BIN)/python -m pytest $(PYTEST_FLAGS)

# The same suite on every other interpreter from 3.10 to 3.13 that is installed.
interpreters: tools
	@set -e; for version in $(OTHER_VERSIONS); do \
	  python=$$(for candidate in python$$version $$(pyenv root 2>/dev/null)/versions/$$version.*/bin/python$$version; do \
	    "$$candidate" -c "" >/dev/null 2>&1 && echo "$$candidate" && break; done); \
	  if [ -z "$$python" ]; then echo "skip Python $$version: not installed"; continue; fi; \
	  venv=.venv-$$version; \
	  if [ ! -f $$venv/.installed ] || [ pyproject.toml -nt $$venv/.installed ]; then \
	    $$python -m venv $$venv && $$venv/bin/python -m pip install --quiet --upgrade pip \
	    && $$venv/bin/python -m pip install --quiet -e '.[dev]' && touch $$venv/.installed; \
	  fi; \
	  echo "== pytest on $$($$venv/bin/python --version)"; \
	  $$venv/bin/python -m pytest $(PYTEST_FLAGS) -p no:cacheprovider; \
	done

examples: setup
	@set -e; for example in examples/*.py; do \
	  [ -e "$$example" ] || continue; echo "== $$example"; \
	  PYTHONPATH=generated $(BIN)/python $$example >/dev/null; \
	done

test: lint typecheck stale pytest examples interpreters

bench: setup
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python bench/bench_send.py
	$(BIN)/python bench/bench_compile.py

clean:
	rm -rf $(VENV) .venv-* .tools .mypy_cache .pytest_cache .ruff_cache
