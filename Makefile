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

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e ".[test]"

seeds: install
	$(BIN)/kg build $(SEEDS) -o $(OUT)

test: install-test
	scripts/test

clean:
	rm -rf $(VENV) $(OUT) .neo4j-local
