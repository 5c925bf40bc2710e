# The two commands: `make demo` and `make test`. Both create .venv when missing.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test check lint bench clean peer-suite arm64-env test-arm64 test-arm64-smoke

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m xnnc.examples.demo

# pytest on every core (at most 4 workers: each holds torch), the tests of the session's
# model zoo (tests/conftest.py) together on one of them.
test: $(STAMP)
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -x -n auto --maxprocesses 4 --dist loadgroup tests
	$(BIN)/lit -sv lit_tests

# The edit-test loop, a few minutes on 2 cores: lint, the layering contracts, the unit tests
# that compile no model and the lit tests of the dialects, the blob and the tools' errors.
# `make test` runs everything.
CHECK_TESTS ?= tests/dialects tests/pipeline tests/backend_xnnpack/test_nodes.py \
	tests/backend_xnnpack/test_blob.py tests/tools/test_pass_reference.py \
	tests/tools/test_op_coverage.py tests/test_target.py
CHECK_LIT ?= lit_tests/dialects lit_tests/backend_xnnpack lit_tests/tools
check: $(STAMP)
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -x -n auto --maxprocesses 4 $(CHECK_TESTS)
	$(BIN)/lit -q $(CHECK_LIT)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean:
	rm -rf $(VENV)

BENCH_STAMP := $(VENV)/.installed-bench
BENCHMARKS ?= tuning_bench frontend_bench runtime_overhead
ZOO_ARGS ?= --policies --results benchmarks/RESULTS.md

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

# The model zoo side by side with xnnc's fixed policies (benchmarks/zoo.py; its report is
# added to benchmarks/RESULTS.md, newest first), then the tuner's compile times and choices per layer kind
# (tuning_bench) and the smaller benchmarks.
bench: $(BENCH_STAMP)
	$(BIN)/python -m xnnc.benchmarks.zoo $(ZOO_ARGS)
	for b in $(BENCHMARKS); do $(BIN)/python -m xnnc.benchmarks.$$b || exit 1; done

# ExecuTorch's backend operator suite (all its operator files, and its model files whose
# packages are installed) with the xnnc flow and the stock XNNPACK flow side by side, under
# the suite's own harness; writes benchmarks/PEER_SUITE.md (benchmarks/peer_suite.py). Long:
# about an hour of CPU; niced. PEER_ARGS: e.g. --workers 4, or -k conv2d for a part.
PEER_ARGS ?=
peer-suite: $(STAMP)
	nice $(BIN)/python -m xnnc.benchmarks.peer_suite $(PEER_ARGS)

# arm64 under QEMU (docs/arm64.md). `arm64-env` builds the emulated arm64 root with the pinned
# aarch64 wheels and this checkout's xnnc wheel, from the registries, in $(ARM64_CACHE)
# (outside the checkout; each step runs once, xnnc again when the tree changed).
# `test-arm64` compiles on x86 and runs under QEMU (tests/arm64: the zoo, quantized models and
# 47 tests of ExecuTorch's operator suite), writing benchmarks/ARM64.md; `test-arm64-smoke` is
# its CI part (one QEMU CPU, three models).
ARM64_CACHE ?= $(HOME)/.cache/xnnc/arm64
ARM64_ENV := XNNC_ARM64_CACHE=$(ARM64_CACHE)

arm64-env: $(STAMP)
	$(ARM64_ENV) nice -n 5 $(BIN)/python .ci/arm64_env.py build

test-arm64: arm64-env
	$(ARM64_ENV) XNNC_ARM64=1 XNNC_ARM64_REPORT=benchmarks/ARM64.md \
		nice -n 5 $(BIN)/python -m pytest -q tests/arm64

test-arm64-smoke: arm64-env
	$(ARM64_ENV) XNNC_ARM64=smoke nice -n 5 $(BIN)/python -m pytest -q tests/arm64
