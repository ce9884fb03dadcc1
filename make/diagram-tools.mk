# Real diagram tools for statewright's docs/diagram tests: Graphviz `dot` and Mermaid's parser.
#
# Included from the Makefile. `make tools` installs both (Graphviz through apt-get when running as
# root, otherwise it prints what to install; Mermaid through `npm ci` from the committed lockfile)
# and records success in a stamp inside tools/mermaid/node_modules, so deleting node_modules (or
# changing the lockfile) reinstalls. Installer output goes to .cache/logs/ and is shown only on
# failure. `make check-diagrams` parses every ```mermaid fence in docs/machines/*.md with
# Mermaid's own parser.
#
# The tests in tests/docs find the tools on PATH (`dot`, `node`) and in tools/mermaid; override with
# STATEWRIGHT_DOT, STATEWRIGHT_NODE, STATEWRIGHT_MERMAID_DIR. Missing tools skip those tests
# locally and fail them when CI=true.

MERMAID_DIR := tools/mermaid
MERMAID_PARSE := node $(MERMAID_DIR)/parse.mjs
TOOLS_STAMP := $(MERMAID_DIR)/node_modules/.statewright-tools-stamp

.PHONY: tools tools-graphviz tools-mermaid check-diagrams

tools: $(TOOLS_STAMP)
	@:

define INSTALL_GRAPHVIZ
if command -v dot >/dev/null 2>&1; then \
	echo "tools: $$(dot -V 2>&1)"; \
elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	make/quietly.sh "tools: installing Graphviz (apt-get)" \
		sh -c 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends graphviz'; \
else \
	echo "graphviz (dot) is missing: install it, e.g. sudo apt-get install graphviz" >&2; \
	exit 1; \
fi
endef

define INSTALL_MERMAID
command -v npm >/dev/null 2>&1 || { echo "npm is missing: install Node.js >= 20" >&2; exit 1; }; \
make/quietly.sh "tools: installing Mermaid's parser (npm ci, tools/mermaid)" \
	npm ci --prefix $(MERMAID_DIR) --no-audit --no-fund --prefer-offline
endef

$(TOOLS_STAMP): $(MERMAID_DIR)/package.json $(MERMAID_DIR)/package-lock.json
	@$(INSTALL_GRAPHVIZ)
	@$(INSTALL_MERMAID)
	@touch $@

tools-graphviz:
	@$(INSTALL_GRAPHVIZ)

tools-mermaid:
	@$(INSTALL_MERMAID)

check-diagrams: $(TOOLS_STAMP)
	$(MERMAID_PARSE) docs/machines/*.md
