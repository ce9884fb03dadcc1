# statewright: `make generate` compiles every spec; `make test` runs every check.
# Both set up what they need from scratch (virtual environments, diagram tools).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Extra interpreters the suite also runs on when the machine has them (pyenv provides them here).
OTHER_PYTHONS := python3.10 python3.12 python3.13
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
	@set -e; for python in $(OTHER_PYTHONS); do \
	  if ! command -v $$python >/dev/null 2>&1; then echo "skip $$python: not installed"; continue; fi; \
	  venv=.venv-$${python#python}; \
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
