# Every target sets itself up: a fresh machine needs only python3.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SYSTEM_STAMP := $(VENV)/.system-packages

.PHONY: run test quick lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# the distribution was named agentcore before: a venv (and the checkout's egg-info, read
	# by a python started here) made then keeps old entry points beside the new ones
	$(BIN)/pip uninstall --quiet --quiet --yes agentcore
	rm -rf agentcore.egg-info
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(SYSTEM_STAMP): .ci/system-packages.txt $(STAMP)
	.ci/install-system-packages
	touch $(SYSTEM_STAMP)

run: $(STAMP)
	$(BIN)/python -m agentcore.demo

lint: $(STAMP)
	$(BIN)/ruff check agentcore drivers presenters tests bench examples
	$(BIN)/ruff format --check agentcore drivers presenters tests bench examples

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) $(SYSTEM_STAMP)
	$(BIN)/pytest -q -p no:cacheprovider

test: lint typecheck unit

# the pure core and the loop: about 750 property and unit tests, about 50 s of CPU, so under
# a minute on a quiet 2-core machine (docs/architecture.md)
quick: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider -m "not slow and not live" tests/core tests/loop

bench: $(STAMP) $(SYSTEM_STAMP)
	$(BIN)/python -m bench $(BENCH)

clean:
	rm -rf $(VENV) build *.egg-info
