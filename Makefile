# Two commands do everything on a fresh machine:
#   make seeds   installs paperkg into .venv and builds the seeds into out/ (graph, RDF, HTML, summary)
#   make test    installs paperkg with its test tools, Chromium and a local Neo4j, and runs every test
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
SEEDS  ?= ../shared/seeds
OUT    ?= out

.PHONY: install install-test seeds test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The explorer's WebGL renderer (sigma.js + graphology) comes from npm, bundled with its licences.
VENDOR := kg/viz/static/vendor.js
$(VENDOR): kg/viz/js/package.json kg/viz/js/package-lock.json kg/viz/js/build.mjs kg/viz/js/entry.js
	cd kg/viz/js && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build

install: $(BIN)/python $(VENDOR)
	$(BIN)/pip install --quiet -e .

install-test: $(BIN)/python $(VENDOR)
	$(BIN)/pip install --quiet -e ".[test]"

seeds: install
	$(BIN)/kg build $(SEEDS) -o $(OUT)

test: install-test
	scripts/test

clean:
	rm -rf $(VENV) $(OUT) .neo4j-local
