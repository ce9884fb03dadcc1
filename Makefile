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

.PHONY: setup generate test lint typecheck stale pytest venvs interpreters examples bench clean

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

# A virtual environment per other interpreter from 3.10 to 3.13 that is installed.
venvs:
	@set -e; for version in $(OTHER_VERSIONS); do \
	  python=$$(for candidate in python$$version $$(pyenv root 2>/dev/null)/versions/$$version.*/bin/python$$version; do \
	    "$$candidate" -c "" >/dev/null 2>&1 && echo "$$candidate" && break; done); \
	  if [ -z "$$python" ]; then echo "skip Python $$version: not installed"; continue; fi; \
	  venv=.venv-$$version; \
	  if [ ! -f $$venv/.installed ] || [ pyproject.toml -nt $$venv/.installed ]; then \
	    $$python -m venv $$venv && $$venv/bin/python -m pip install --quiet --upgrade pip \
	    && $$venv/bin/python -m pip install --quiet -e '.[dev]' && touch $$venv/.installed; \
	  fi; \
	done

# The same suite on every other interpreter. (A shell glob, not $(wildcard): make caches
# directory listings, so it would not see the environments `venvs` has just created.)
interpreters: tools venvs
	@set -e; for venv in .venv-3.*; do \
	  [ -f $$venv/.installed ] || continue; \
	  echo "== pytest on $$($$venv/bin/python --version)"; \
	  $$venv/bin/python -m pytest $(PYTEST_FLAGS) -p no:cacheprovider; \
	done

examples: setup
	@set -e; for example in examples/*.py; do \
	  [ -e "$$example" ] || continue; echo "== $$example"; \
	  PYTHONPATH=generated $(BIN)/python $$example >/dev/null; \
	done

test: lint typecheck stale pytest examples interpreters

# send() on every interpreter the machine has, then the compiler (on the main one).
bench: setup venvs
	@set -e; for venv in $(VENV) .venv-3.*; do \
	  [ -x $$venv/bin/python ] || continue; \
	  $$venv/bin/python -m pip install --quiet -e '.[bench]'; \
	  $$venv/bin/python bench/bench_send.py; echo; \
	  $$venv/bin/python bench/bench_import.py; echo; \
	done
	$(BIN)/python bench/bench_compile.py

clean:
	rm -rf $(VENV) .venv-* .tools .mypy_cache .pytest_cache .ruff_cache
