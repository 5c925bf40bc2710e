# The two commands: `make demo` and `make test`. Both create .venv when missing.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint lit pytest bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m xnnc.examples.demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -x tests
	$(BIN)/lit -sv lit_tests

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean:
	rm -rf $(VENV)

BENCHMARKS ?= frontend_bench compile_time runtime_overhead

bench: $(STAMP)
	for b in $(BENCHMARKS); do $(BIN)/python -m xnnc.benchmarks.$$b || exit 1; done
