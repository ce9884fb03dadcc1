# statewright: `make generate` compiles every spec; `make test` runs every check; `make check` is
# the fast loop (one interpreter, no renderer install, no slow tests). Each sets up what it needs
# from scratch (virtual environments, diagram tools), printing one line per set-up step; installer
# output goes to .cache/logs/ and is shown only when a step fails.
#
# Where the tests run (tests/conftest.py says which and why): the main interpreter runs all of
# them; every other one from 3.10 to 3.13 that is installed runs what can behave differently there
# (runtime, compiler, seeds, charts, SCXML, fuzz: `-m "not main_only"`). Renderers and docs pages,
# conformance, packaging, the MCP server, the structure test and the fleet (both stores at once)
# run on the main interpreter only, and so do the tests that run mypy: they check every target
# Python, 3.10 to 3.13, from there with --python-version, each from a warm cache
# (tests/mypy_cache.py). Each pytest run is split over $(WORKERS) pytest-xdist workers, and lint,
# typecheck and stale run at the same time.

# Other interpreters the suite also runs on when the machine has them (pyenv provides them here;
# its shims only run the selected version and take seconds to fail, so look in pyenv's versions
# folder first). Found once, as version:path words handed to the sub-makes.
OTHER_VERSIONS := 3.10 3.12 3.13
find_python = $(firstword $(shell \
  for candidate in $${PYENV_ROOT:-$$(pyenv root 2>/dev/null)}/versions/$(1).*/bin/python$(1) python$(1); do \
    "$$candidate" -c "" >/dev/null 2>&1 && { echo "$$candidate"; break; }; \
  done))
ifndef STATEWRIGHT_PYTHONS
STATEWRIGHT_PYTHONS := $(foreach version,3.11 $(OTHER_VERSIONS),\
  $(addprefix $(version):,$(call find_python,$(version))))
endif
export STATEWRIGHT_PYTHONS
python_for = $(patsubst $(1):%,%,$(filter $(1):%,$(STATEWRIGHT_PYTHONS)))
PYTHON ?= $(or $(call python_for,3.11),$(shell command -v python3))
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_FLAGS ?= -q
QUIETLY := make/quietly.sh
#: pytest-xdist workers per pytest run; tests sharing a costly fixture go to one of them, the fleet's
#: two stores to both at once (tests/conftest.py).
WORKERS ?= 2
XDIST := -n $(WORKERS) --dist loadgroup --no-loadscope-reorder
# The interpreters make test runs the suite on: the main one, then each other one installed.
OTHER_INSTALLED := $(foreach version,$(OTHER_VERSIONS),$(if $(call python_for,$(version)),$(version)))
INTERPRETERS := $(words main $(OTHER_INSTALLED))
# The run's seed. Each interpreter's property and fuzz tests are seeded from it (the main one with
# SEED, the next with SEED+1, ...) and run their share of the fuzz budget (tests/fuzz): together they
# cover the whole budget with different cases. It is fixed, so that make test (CI) answers the same
# way every time; `make test SEED=$(date +%s)` tries new cases, and every pytest run prints its
# seed: `make test SEED=n` replays a run.
SEED ?= 0
# Names this make run for the tests' warm mypy caches (tests/mypy_cache.py: warmed once per run).
ifndef STATEWRIGHT_RUN_ID
STATEWRIGHT_RUN_ID := $(shell date +%s.%N)
endif
export STATEWRIGHT_RUN_ID
seeded = STATEWRIGHT_FUZZ_SEED=$$(($(SEED) + $(1))) STATEWRIGHT_FUZZ_PARTS=$(INTERPRETERS)
# Bytecode caches are written even where the environment turns them off: the suite starts hundreds
# of interpreters importing the compiler and the runtime from source, and pytest rewrites the asserts
# of every test module; without .pyc files each does it again.
export PYTHONDONTWRITEBYTECODE :=

include make/diagram-tools.mk
include make/postgres.mk
include make/wheelhouse.mk
include make/w3c.mk

.PHONY: setup generate test check gates lint typecheck stale pytest pytest-fast venvs interpreters \
	suite suite-but-fleet warm fleet examples bench fuzz clean

# The environments are installed with uv, itself installed into .venv with pip: from
# .cache/wheelhouse without the index when uv is there (make wheelhouse puts it there), else from
# the index. pip spends most of a minute per environment waiting on the package index and compiling
# every module it installs; uv takes seconds from its cache. .venv keeps pip (make w3c-charts and
# make wheelhouse download with it); the other interpreters' environments have none.
UV_REQUIREMENT := uv>=0.5
UV := $(BIN)/uv pip install --quiet

# uv first, on its own: the other interpreters' environments (venvs) need only it, so they are
# installed while .venv's own packages are.
$(BIN)/uv:
	@$(QUIETLY) "setup: $(VENV) ($$($(PYTHON) --version)), installing uv" sh -c '\
		$(PYTHON) -m venv $(VENV) \
		&& { $(BIN)/python -m pip install --no-index --find-links $(WHEELHOUSE) "$(UV_REQUIREMENT)" \
		  || $(BIN)/python -m pip install "$(UV_REQUIREMENT)"; }'

$(STAMP): pyproject.toml | $(BIN)/uv
	@$(QUIETLY) "setup: $(VENV), installing statewright[dev]" \
		$(UV) --python $(BIN)/python --upgrade-package pip pip -e ".[dev]"
	@touch $@

setup: $(STAMP)

generate: setup
	$(BIN)/statewright generate

# lint, typecheck and stale at the same time; each one's output shows when it ends, and any failure
# fails the whole.
gates: setup
	@$(MAKE) --no-print-directory -j3 --output-sync=target lint typecheck stale

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy generator runtime generated tests examples bench

stale: setup
	$(BIN)/statewright check

# pytest for the interpreter numbered $(1) (0: the main one), whose python is $(2), with the arguments
# $(3). mypy runs from the main interpreter everywhere, sharing its warm caches (tests/mypy_cache.py).
pytest_on = $(call seeded,$(1)) STATEWRIGHT_MYPY_PYTHON=$(abspath $(BIN)/python) \
	$(2) -m pytest $(PYTEST_FLAGS) $(3)

pytest: setup tools postgres wheelhouse w3c-charts
	@echo "== pytest on $$($(BIN)/python --version), seed $(SEED), 1/$(INTERPRETERS) of the fuzz budget"
	@$(call pytest_on,0,$(BIN)/python,$(XDIST))

# The fast loop: the tests that need no external tool (mypy, ruff, subprocesses, renderers, a
# PostgreSQL server: marked slow) on the main interpreter, with a tenth of the fuzz budget and of
# every property test's examples (make test runs them all; tests/fuzz).
pytest-fast: setup
	@echo "== pytest (not slow) on $$($(BIN)/python --version), seed $(SEED), 1/10 of the examples"
	@STATEWRIGHT_FUZZ_SEED=$(SEED) STATEWRIGHT_FUZZ_BUDGET=$${STATEWRIGHT_FUZZ_BUDGET:-30} \
	  $(BIN)/python -m pytest $(XDIST) $(PYTEST_FLAGS) -m "not slow" -p no:cacheprovider

# The gates beside the fast tests: the tests' start (collection on every worker) leaves a core idle
# that the gates fill.
check: setup
	@$(MAKE) --no-print-directory -j2 --output-sync=target gates pytest-fast

# A virtual environment per other interpreter from 3.10 to 3.13 that is installed, made at the same
# time.
venvs: $(addsuffix /.installed,$(addprefix .venv-,$(OTHER_INSTALLED)))
	@:

.venv-%/.installed: pyproject.toml | $(BIN)/uv
	@python=$(call python_for,$*); \
	$(QUIETLY) "venvs: .venv-$* ($$($$python --version)), installing statewright[dev]" sh -c "\
	  $$python -m venv --without-pip .venv-$* \
	  && $(UV) --python .venv-$*/bin/python -e '.[dev]'"
	@touch $@

# The suite without the main_only tests on every other interpreter, each with its seed (see SEED).
interpreters: tools postgres wheelhouse w3c-charts
	@$(MAKE) --no-print-directory -j3 --output-sync=target venvs
	@set -e; index=0; for version in $(OTHER_INSTALLED); do \
	  index=$$((index + 1)); python=.venv-$$version/bin/python; \
	  echo "== pytest on $$($$python --version), seed $$(($(SEED) + index)), not main_only"; \
	  $(call pytest_on,$$index,$$python,$(XDIST) -m "not main_only" -p no:cacheprovider); \
	done

# The main interpreter's first pytest run compiles the modules it imports and rewrites the asserts
# of every test module, writing .pyc files (some ten CPU seconds): the suite's two xdist workers
# would both do it at once. Done once here instead, beside the set-up steps that wait on the
# network and the disk (the other interpreters' runs are one process each: nothing to share); a
# failure shows when the suite collects.
warm: setup
	@echo "warm: collecting the tests on $$($(BIN)/python --version) (compiled, asserts rewritten)"
	@$(BIN)/python -m pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1 || true

# make test's pytest: on every interpreter at once, the main one on $(WORKERS) workers and each other
# one on one (so no core waits for a run's last slow test), all but the fleet, each run printing
# its summary line (or, failing, its whole output), the examples beside them; then the fleet, its
# two stores at once, alone: it counts how much work it gets done in 30 s.
FLEET := tests/runtime/test_fleet.py
suite:
	@$(MAKE) --no-print-directory -j2 --output-sync=target suite-but-fleet examples
	@$(MAKE) --no-print-directory fleet

suite-but-fleet: setup tools postgres wheelhouse w3c-charts venvs
	@set -- "pytest on $$($(BIN)/python --version), seed $(SEED), all but the fleet" \
	  "$(call pytest_on,0,$(BIN)/python,$(XDIST) --ignore=$(FLEET))"; \
	index=0; for version in $(OTHER_INSTALLED); do \
	  index=$$((index + 1)); python=.venv-$$version/bin/python; \
	  set -- "$$@" "pytest on $$($$python --version), seed $$(($(SEED) + index)), not main_only" \
	    "$(call pytest_on,$$index,$$python,-m 'not main_only' -p no:cacheprovider)"; \
	done; \
	echo "== pytest on $(INTERPRETERS) interpreters at once, each with 1/$(INTERPRETERS) of the fuzz budget"; \
	make/together.sh "$$@"

fleet: setup tools postgres
	@echo "== the fleet on $$($(BIN)/python --version), both stores at once"
	@$(call pytest_on,0,$(BIN)/python,$(XDIST) -p no:cacheprovider $(FLEET))

examples: setup
	@set -e; for example in examples/*.py; do \
	  [ -e "$$example" ] || continue; echo "== $$example"; \
	  $(BIN)/python $$example >/dev/null; \
	done

# The main environment, the diagram tools and the other interpreters' environments (once uv is
# in .venv) at once; as soon as .venv is there: lint, the staleness check, mypy, the downloads
# (wheelhouse, W3C charts: waiting on the network, not the cores) and the main interpreter's first
# collection of the tests (warm). PostgreSQL, which like Graphviz may need apt-get, is looked for
# after that, with the suite. The set-up steps leave a core idle about half the time, which a cold
# mypy (one core for half a minute) fills; beside the suite, which keeps both cores busy, it only
# added its time. Then the suite (above).
test:
	@$(MAKE) --no-print-directory -j7 --output-sync=target lint stale typecheck tools venvs wheelhouse \
	  w3c-charts warm
	@$(MAKE) --no-print-directory suite

# The fuzz suite and the statechart property tests with a long budget and a fresh seed (make test
# runs a short one per interpreter). Replay a failure with the seed it prints: make fuzz
# FUZZ_SEED=<seed>, which also runs a make test interpreter's fuzz cases again, and more. No time
# limit per test here (make test's is 300 s).
FUZZ_BUDGET ?= 20000
ifndef FUZZ_SEED
FUZZ_SEED := $(shell date +%s)
endif
fuzz: setup
	@echo "fuzz: budget $(FUZZ_BUDGET) cases per test, seed $(FUZZ_SEED)"
	STATEWRIGHT_FUZZ_BUDGET=$(FUZZ_BUDGET) STATEWRIGHT_FUZZ_SEED=$(FUZZ_SEED) \
		$(BIN)/python -m pytest $(XDIST) $(PYTEST_FLAGS) -p no:cacheprovider -o timeout=0 \
		tests/fuzz tests/charts/test_reference.py

# The benches that feed docs/performance.md, on every interpreter the machine has, each writing its
# rows to .cache/bench/<bench>-<interpreter>.json; then bench/performance_page.py writes the page
# from them (the machine, an fsync's cost measured on the spot, the date, every target met or
# missed). Then the main interpreter's benches the page does not tabulate (the compiler, an MCP tool
# call, check-store over 100,000 stored instances, mypy on large modules -- some ten minutes -- and
# the mypy plugin): they print their own figures.
PAGE_BENCHES := bench_send bench_entry_points bench_chart_send bench_history bench_save bench_timers \
	bench_import bench_registry
BENCH_RESULTS := .cache/bench
bench: setup venvs
	@rm -rf $(BENCH_RESULTS); mkdir -p $(BENCH_RESULTS)
	@set -e; for venv in $(VENV) .venv-3.*; do \
	  [ -x $$venv/bin/python ] || continue; \
	  version=$$($$venv/bin/python -c 'import platform; print(platform.python_version())'); \
	  $(QUIETLY) "bench: installing the peers into $$venv" $(UV) --python $$venv/bin/python -e '.[bench]'; \
	  for bench in $(PAGE_BENCHES); do \
	    [ -f bench/$$bench.py ] || continue; \
	    echo "== $$bench on $$version"; \
	    $$venv/bin/python bench/$$bench.py --json $(BENCH_RESULTS)/$$bench-$$version.json; echo; \
	  done; \
	done
	$(BIN)/python bench/performance_page.py --results $(BENCH_RESULTS) --output docs/performance.md
	$(BIN)/python bench/bench_compile.py
	$(BIN)/python bench/bench_mcp.py
	$(BIN)/python bench/bench_check_store.py
	$(BIN)/python bench/bench_mypy_scale.py
	$(BIN)/python bench/bench_mypy_plugin.py

clean:
	rm -rf $(VENV) .venv-* .tools .cache .mypy_cache .pytest_cache .ruff_cache
