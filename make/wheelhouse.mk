# Wheels for the offline install tests (tests/packaging): the compiler's dependencies for every
# supported Python, an old ruff to install next to the compiler; and uv, which setup installs from
# here without the index when it is here. Included from the Makefile; downloaded once into
# .cache/wheelhouse (not committed). The tests install from this folder with --no-index, so they
# prove what resolves without reaching a package index.

WHEELHOUSE := .cache/wheelhouse
WHEELHOUSE_STAMP := $(WHEELHOUSE)/.complete
#: The "old ruff" a project may pin: the compiler must install next to it.
OLD_RUFF := 0.4.10

.PHONY: wheelhouse

wheelhouse: $(WHEELHOUSE_STAMP)

$(WHEELHOUSE_STAMP): make/wheelhouse.mk | $(STAMP)
	@make/quietly.sh "wheelhouse: wheels for the offline install tests (.cache/wheelhouse)" \
		sh -c 'for version in 3.10 3.11 3.12 3.13; do \
			$(BIN)/python -m pip download --only-binary=:all: --python-version $$version \
				--dest $(WHEELHOUSE) "ruff==$(OLD_RUFF)" "jinja2>=3.1" "markupsafe>=2.0" \
				"tomli>=2.0" "$(UV_REQUIREMENT)" || exit 1; \
		done'
	@touch $@
