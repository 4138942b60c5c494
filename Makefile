# Two commands for a fresh machine with Python 3.11+ and make:
#   make run   - create .venv, install, serve on 127.0.0.1:8080 (Swagger UI at /docs)
#   make test  - create .venv, install with the test extra, lint, type-check, run the tests with
#                coverage of app/ (fails under 95% of the code this machine can run)
# and, for the edit loop: make test-fast - lint and the tests not marked slow or e2e, no coverage
# The property tests run under a Hypothesis profile (tests/conftest.py): `dev` by default (few
# examples; `make test-fast`), `ci` for `make test`, and `deep` for `make test-deep` (every test,
# many more examples, new ones on each run). Pick one for any run with
# `pytest --hypothesis-profile=NAME` or HYPOTHESIS_PROFILE=NAME.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test
# The compiled reader (compiled_reader/, Rust and PyO3) is optional: compiled_reader/build.py builds
# it into the venv when a working toolchain and its crates are there, and otherwise prints one line
# saying why and goes on (the service then reads every request in Python). The build is tried once
# per change of its sources; `make compiled` tries again.
STAMP_COMPILED := $(VENV)/.installed-compiled
COMPILED_SOURCES := $(wildcard compiled_reader/src/*.rs) compiled_reader/Cargo.toml \
	compiled_reader/Cargo.lock compiled_reader/pyproject.toml compiled_reader/build.py \
	compiled_reader/debian-crates.toml


.PHONY: run test test-fast lint typecheck pytest openapi bench clean compiled fuzz-compiled

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml $(STAMP_COMPILED) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_TEST): pyproject.toml $(STAMP_COMPILED) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(STAMP_RUN)

$(STAMP_COMPILED): $(COMPILED_SOURCES) | $(BIN)/python
	@$(BIN)/python compiled_reader/build.py $(if $(filter 1,$(CWP_REQUIRE_COMPILED_READER)),--require)
	touch $@

compiled: | $(BIN)/python
	rm -f $(STAMP_COMPILED)
	$(MAKE) $(STAMP_COMPILED)

run: $(STAMP_RUN)
	$(BIN)/python -m app

test: $(STAMP_TEST) lint typecheck pytest test-rust

# The compiled reader's own Rust unit tests (`cargo test`); one line and no failure where there is
# no cargo or the reader did not build, unless CWP_REQUIRE_COMPILED_READER=1.
.PHONY: test-rust
test-rust: $(STAMP_TEST)
	@$(BIN)/python compiled_reader/build.py --cargo-test $(if $(filter 1,$(CWP_REQUIRE_COMPILED_READER)),--require)

test-fast: $(STAMP_TEST) lint
	$(BIN)/pytest -n auto -m "not slow and not e2e"

lint: $(STAMP_TEST)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP_TEST)
	$(BIN)/mypy --strict app

# Every test, under the `ci` Hypothesis profile, with branch coverage of app/ (configured in
# pyproject.toml).
# The tests that start a real server, time a deadline or measure the process (`e2e`, `serial`) run
# one at a time, after the rest (the slow ones included) have run on every core.
# The two runs only collect (`--cov-fail-under=0`: pytest-cov would otherwise judge each run alone);
# the one report over both prints the total and fails under 95% of the code this machine can run.
# Where the compiled reader is not built, its Python side (the modules that call it, which only run
# with it) is left out of that report, with one line saying so; where it is built (CI), everything
# is measured.
COMPILED_PYTHON_SIDE := app/compiled/*
pytest: $(STAMP_TEST)
	$(BIN)/coverage erase
	$(BIN)/pytest -n auto --hypothesis-profile=ci --cov --cov-report= --cov-fail-under=0 \
		-m "not e2e and not serial"
	$(BIN)/pytest --hypothesis-profile=ci --cov --cov-append --cov-report= --cov-fail-under=0 \
		-m "e2e or serial"
	@if $(BIN)/python -c 'import cwp_compiled_reader' 2>/dev/null; then \
		echo "$(BIN)/coverage report"; \
		$(BIN)/coverage report; \
	else \
		echo "coverage total without the compiled reader's Python side (not built here): $(COMPILED_PYTHON_SIDE)"; \
		$(BIN)/coverage report --omit='$(COMPILED_PYTHON_SIDE)'; \
	fi

# Every test under the `deep` Hypothesis profile, in the same two parts, without coverage.
.PHONY: test-deep
test-deep: $(STAMP_TEST)
	$(BIN)/pytest -n auto --hypothesis-profile=deep -m "not e2e and not serial"
	$(BIN)/pytest --hypothesis-profile=deep -m "e2e or serial"

openapi: $(STAMP_RUN)
	$(BIN)/python -m app.export_openapi

bench: $(STAMP_TEST)
	$(BIN)/python -m bench

# The audit (docs/quality.md) on the bundled samples, at the default budget fraction; AUDIT_ARGS
# adds options (e.g. AUDIT_ARGS="--budget-fraction 0.2 --html audit.html").
.PHONY: audit
audit: $(STAMP_TEST)
	$(BIN)/cwp-audit --samples $(AUDIT_ARGS)

# ---- TypeScript: the generated client (clients/typescript, its Vercel AI SDK hook in src/vercel-ai)
# and the hook's example (examples/vercel_ai). Node 20.19+ and npm; `npm ci` installs from the
# committed lock files. The tests start the service from .venv, so they need it installed. Without
# Node 20.19+ and npm, `make test` skips them with one line (CWP_REQUIRE_TYPESCRIPT=1, as in CI,
# makes that a failure).
NODE_READY := $(shell command -v npm >/dev/null 2>&1 && node -e 'const [a, b] = \
	process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' \
	2>/dev/null && echo yes)
TS_CLIENT := clients/typescript
TS_VERCEL_AI := examples/vercel_ai
NPM_CI := npm ci --no-audit --no-fund

.PHONY: clients clients-typescript build-clients-typescript test-clients-typescript \
	test-examples-typescript clean-typescript

# Regenerate src/generated/ from openapi/openapi.json (a client test fails when it drifts).
clients-typescript:
	cd $(TS_CLIENT) && $(NPM_CI) && npm run generate

build-clients-typescript:
	cd $(TS_CLIENT) && $(NPM_CI) && npm run build

test-clients-typescript: build-clients-typescript $(STAMP_RUN)
	cd $(TS_CLIENT) && npm test

test-examples-typescript: build-clients-typescript $(STAMP_RUN)
	cd $(TS_VERCEL_AI) && $(NPM_CI) && npm run build && npm test

ifeq ($(NODE_READY),yes)
CLIENT_SUITES += test-clients-typescript test-examples-typescript
else
CLIENT_SUITES += skip-typescript
endif

.PHONY: skip-typescript
skip-typescript:
	@echo "Node 20.19+ and npm not found: the TypeScript client and example tests were skipped"
	@test "$(CWP_REQUIRE_TYPESCRIPT)" != 1
clients: clients-typescript
clean: clean-typescript

clean-typescript:
	rm -rf $(TS_CLIENT)/node_modules $(TS_CLIENT)/dist $(TS_VERCEL_AI)/node_modules $(TS_VERCEL_AI)/dist
# ---- end of TypeScript

clean:
	rm -rf $(VENV) .venv-hooks .pytest_cache .mypy_cache .ruff_cache .hypothesis .coverage .coverage.*
	rm -rf compiled_reader/target

# The compiled reader against the Python path under atheris, for FUZZ_SECONDS (CI: 60).
FUZZ_SECONDS ?= 60
fuzz-compiled: $(STAMP_TEST)
	$(BIN)/python -m pip install --quiet -e '.[fuzz]'
	$(BIN)/python fuzz/fuzz_compiled_reader.py -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096

# ---- Python client and framework examples (clients/python/, examples/) ----
# make clients               - regenerate the generated code of every client from the committed
#                              openapi/openapi.json (after `make openapi` when the API changed)
# make clients-python        - regenerate clients/python/cwp_client/generated
# make test-clients-python   - type-check the Python client, run its tests against a real server
#                              (they include the check that the generated code has not drifted,
#                              and each hook run from a venv of its own under .venv-hooks/)
# make test-examples-python  - run the Python framework examples' tests against a real server
# Both test targets run as part of `make test`; neither is measured in the coverage of app/.
STAMP_CLIENTS_PYTHON := $(VENV)/.installed-clients-python

.PHONY: clients clients-python test-clients-python test-examples-python

# The examples' frameworks are the client's extras (the hooks live in cwp_client.hooks).
$(STAMP_CLIENTS_PYTHON): clients/python/pyproject.toml $(STAMP_TEST)
	$(BIN)/python -m pip install --quiet -e 'clients/python[test,openai-agents,langchain,pydantic-ai]'
	touch $@

clients: clients-python

clients-python: $(STAMP_CLIENTS_PYTHON)
	$(BIN)/python clients/python/generate.py

test-clients-python: $(STAMP_CLIENTS_PYTHON)
	$(BIN)/mypy --config-file clients/python/pyproject.toml clients/python/cwp_client
	$(BIN)/pytest clients/python/tests

test-examples-python: $(STAMP_CLIENTS_PYTHON)
	$(BIN)/pytest examples

CLIENT_SUITES += test-clients-python test-examples-python

# The client and example suites start servers of their own and mostly wait on them, on pip (the
# hooks' venvs) and on npm: `make test` runs them side by side, each one's output kept together,
# once the packages they share are installed.
.PHONY: test-client-suites
test-client-suites: $(STAMP_RUN) $(STAMP_CLIENTS_PYTHON)
	$(MAKE) -j4 --output-sync=target $(CLIENT_SUITES)

test: test-client-suites
