# The W3C SCXML conformance charts for tests/conformance: fetched, verified, cached, never committed.
#
# Included from the Makefile. The charts come from python-statemachine's source distribution (its
# tests/scxml/w3c folder: the W3C IRP tests rewritten for a Python data model, BSD-3-Clause, the
# LICENSE file is extracted beside them). `make w3c-charts` downloads the pinned version with pip,
# checks its sha256 and extracts mandatory/, optional/ and LICENSE into .cache/w3c. Once there,
# nothing is downloaded again, so it works offline; without the cache and without a package index
# it fails saying so. The tests skip locally when the charts are missing and fail when CI=true.

W3C_DIR := .cache/w3c
W3C_VERSION := 3.2.2
W3C_SHA256 := 5968c5e07a537f7531b8b1d0a0d5067a3452c88941fa0ac6c244870d48f78325
W3C_SDIST := $(W3C_DIR)/python_statemachine-$(W3C_VERSION).tar.gz
W3C_STAMP := $(W3C_DIR)/.complete
#: How many files mandatory/ holds in that version: 165 charts (tests and the charts they invoke)
#: and test552.txt, a data file test552 reads.
W3C_MANDATORY := 166

.PHONY: w3c-charts

w3c-charts: $(W3C_STAMP)

$(W3C_SDIST): | $(STAMP)
	@$(QUIETLY) "w3c-charts: downloading python-statemachine $(W3C_VERSION) (source) into $(W3C_DIR)" \
		$(BIN)/python -m pip download --no-deps --no-binary :all: --retries 1 --timeout 20 \
			--dest $(W3C_DIR) "python-statemachine==$(W3C_VERSION)" \
	|| { echo "w3c-charts: cannot fetch python-statemachine==$(W3C_VERSION) from the package index" \
		"(offline?). Run make w3c-charts once with access to it: the charts are cached in $(W3C_DIR)." >&2; \
		exit 1; }

$(W3C_STAMP): $(W3C_SDIST) make/w3c.mk | $(STAMP)
	@$(BIN)/python -c 'import hashlib, sys; \
		digest = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest(); \
		sys.exit(0 if digest == sys.argv[2] else f"w3c-charts: {sys.argv[1]} has sha256 {digest}, " \
			f"not the pinned {sys.argv[2]}: delete it and run make w3c-charts again")' \
		$(W3C_SDIST) $(W3C_SHA256)
	@rm -rf $(W3C_DIR)/mandatory $(W3C_DIR)/optional $(W3C_DIR)/LICENSE
	@tar -xzf $(W3C_SDIST) -C $(W3C_DIR) --strip-components=4 \
		python_statemachine-$(W3C_VERSION)/tests/scxml/w3c/mandatory \
		python_statemachine-$(W3C_VERSION)/tests/scxml/w3c/optional \
		python_statemachine-$(W3C_VERSION)/tests/scxml/w3c/LICENSE
	@count=$$(ls $(W3C_DIR)/mandatory | wc -l); \
	if [ "$$count" -ne $(W3C_MANDATORY) ]; then \
		echo "w3c-charts: expected $(W3C_MANDATORY) files in $(W3C_DIR)/mandatory, found $$count" >&2; \
		exit 1; fi; \
	echo "w3c-charts: $$count files in $(W3C_DIR)/mandatory"
	@touch $@
