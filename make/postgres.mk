# A real PostgreSQL for the PostgreSQL store's tests (tests/postgres_server.py starts a throwaway
# server per test session: initdb in a temporary directory, a unix socket only, stopped at the end).
#
# Included from the Makefile. `make postgres` finds Debian's server programs
# (/usr/lib/postgresql/<version>/bin, or initdb and pg_ctl on PATH); when they are missing it
# installs the `postgresql` package with apt-get if running as root, and otherwise prints what
# to install and fails. Installer output goes to .cache/logs/ and is shown only on failure.
# Override the folder with STATEWRIGHT_PG_BIN. Missing PostgreSQL skips those tests locally and
# fails them when CI=true.

.PHONY: postgres

define FIND_POSTGRES
{ [ -n "$$STATEWRIGHT_PG_BIN" ] && [ -x "$$STATEWRIGHT_PG_BIN/pg_ctl" ]; } \
	|| ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 \
	|| { command -v initdb && command -v pg_ctl; } >/dev/null 2>&1
endef

postgres:
	@if $(FIND_POSTGRES); then \
		echo "postgres: $$( (ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; command -v pg_ctl) | head -n 1)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		$(QUIETLY) "postgres: installing PostgreSQL (apt-get)" \
			sh -c 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql'; \
	else \
		echo "PostgreSQL is missing: install it, e.g. sudo apt-get install postgresql" >&2; \
		exit 1; \
	fi
