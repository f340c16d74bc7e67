# The newcomer's commands: `make run` starts the whole platform, `make test` runs every test.
# Both create the virtual environment, generate the gRPC stubs and build the browser app first,
# on a fresh machine (each step is skipped when it is up to date).
#
# Python packages install from the lock files in requirements/ (every transitive dependency,
# with hashes), made from pyproject.toml's pins by `make lock`: `make run` takes the runtime and
# the code generators only, `make test` and `make lint` add the test and lint tools.

PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PROTOS  = $(shell find protos -name '*.proto')
RUN_STAMP  = $(VENV)/.run-installed
TEST_STAMP = $(VENV)/.test-installed
GEN     = tavolo/.generated
# The browser app (web/): npm installs from the lock file, Vite builds web/dist.
WEB_SOURCES = $(shell find web -path web/node_modules -prune -o -path web/audit -prune -o -path web/dist -prune -o -type f -print)
NPM_STAMP   = web/node_modules/.installed
WEB_DIST    = web/dist/index.html
# Tools from npm (tools/package.json): buf, for the protos.
TOOLS_STAMP = tools/node_modules/.installed
BUF         = tools/node_modules/.bin/buf
# `buf breaking` compares the protos with the last release, the commit protos/RELEASED names
# (a release moves it on): main compared with itself could never fail. It needs the history,
# not a shallow clone.
BREAKING_AGAINST ?= .git\#ref=$(shell cat protos/RELEASED),subdir=protos

.PHONY: run test lint lock web web-test bench soak audit gen install client gen-clients clean image chart-readme

run: $(RUN_STAMP) $(GEN) $(WEB_DIST)
	$(VENV)/bin/tavolo run

# The app's unit tests (Vitest), then the whole Python suite, browser tests included, in two
# workers (most tests wait on sockets and processes); a test file stays in one worker, so its
# module-scoped stack is started once, and the plain in-memory stack (tests/gateway/conftest.py)
# once per worker. PYTEST_WORKERS=0 runs it in this process.
PYTEST_WORKERS ?= 2
test: $(TEST_STAMP) $(GEN) $(WEB_DIST) $(TOOLS_STAMP) web-test
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

web: $(WEB_DIST)

web-test: $(NPM_STAMP)
	cd web && npm test

# ruff and mypy (configured in pyproject.toml), buf lint and buf breaking on the protos.
lint: $(TEST_STAMP) $(GEN) $(TOOLS_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(BUF) lint protos
	$(BUF) breaking protos --against '$(BREAKING_AGAINST)'

# Re-resolve the lock files after a pin in pyproject.toml changed (needs the package index).
# Each file is constrained by the one before, so the three agree on every shared package.
LOCK = $(VENV)/bin/uv pip compile pyproject.toml --universal --python-version 3.11 \
       --generate-hashes --quiet --custom-compile-command 'make lock'
lock: $(TEST_STAMP)
	$(LOCK) -o requirements/runtime.txt
	$(LOCK) --extra codegen -c requirements/runtime.txt -o requirements/run.txt
	$(LOCK) --extra codegen --extra test --extra lint -c requirements/run.txt -o requirements/test.txt

# Every bench/*_bench.py; `$(PY) -m bench peer` runs one (tavolo beside boardgame.io: it installs its
# npm packages into bench/.peer and needs ../shared/peer-bench or PEER_BENCH_DIR, docs/performance.md).
bench: $(TEST_STAMP) $(GEN)
	$(PY) -m bench

# Half an hour of whole matches at 300 moves/s: does each process's memory stay flat, and what
# does a move cost (docs/capacity.md)? SOAK_MINUTES, SOAK_RATE, SOAK_TABLES change the run.
soak: $(TEST_STAMP) $(GEN)
	$(PY) -m bench.soak

# The public JSON contract, generated from gateway/contract's models and committed: docs/openapi.json
# (the OpenAPI document, made without a server, so each game's options are any object: the served
# one names them from the registry) and the app's types web/src/api-types.ts (openapi-typescript).
# tests/gateway_contract/test_generated_contract.py fails while either is stale.
OPENAPI_DOC = docs/openapi.json
.PHONY: contract
contract: $(RUN_STAMP) $(GEN) $(NPM_STAMP)
	$(PY) -m gateway.openapi > $(OPENAPI_DOC).new || { rm -f $(OPENAPI_DOC).new; exit 1; }
	mv $(OPENAPI_DOC).new $(OPENAPI_DOC)
	cd web && npm run --silent contract

# Lighthouse (web/audit: npm lighthouse 12, kept out of the app's install) on the table page of a
# game against bots, mobile profile: prints the accessibility and performance scores, fails below
# 95 and 90. The performance score measures this machine's CPU: run it on a quiet machine.
AUDIT_STAMP = web/audit/node_modules/.installed

audit: $(TEST_STAMP) $(GEN) $(WEB_DIST) $(AUDIT_STAMP)
	$(PY) -m tests.browser.audit

$(AUDIT_STAMP): web/audit/package.json web/audit/package-lock.json
	cd web/audit && npm ci --no-audit --no-fund
	touch $@

install: $(RUN_STAMP)

# The container images, tagged with the chart's appVersion (so the chart's defaults find them):
# tavolo (every component) and tavolo-dev-oidc (the development OIDC provider of evaluation
# installs, charts/tavolo/values-evaluation.yaml). Needs a Docker engine; load them into a laptop
# cluster with e.g. `kind load docker-image tavolo:<version> tavolo-dev-oidc:<version>`.
APP_VERSION    = $(shell sed -n 's/^appVersion: *"*\([^"]*\)"*$$/\1/p' charts/tavolo/Chart.yaml)
IMAGE          ?= tavolo
DEV_OIDC_IMAGE ?= tavolo-dev-oidc
DOCKER         ?= docker
image:
	$(DOCKER) build -t $(IMAGE):$(APP_VERSION) .
	$(DOCKER) build --target dev-oidc -t $(DEV_OIDC_IMAGE):$(APP_VERSION) .

# The chart's README, generated from Chart.yaml and values.yaml's comments;
# tests/chart/test_chart_readme.py fails while it is stale.
chart-readme: $(RUN_STAMP)
	$(PY) tools/chart_readme.py > charts/tavolo/README.md.new || { rm -f charts/tavolo/README.md.new; exit 1; }
	mv charts/tavolo/README.md.new charts/tavolo/README.md

gen: $(GEN)

# tavolo-api, the wheel of the generated Python messages and stubs for other teams, into dist/
# (git-ignored). Its setup.py generates them from protos/ at build time; no build isolation, so
# the code generators and setuptools are the locked ones of this venv (clients/python/pyproject.toml).
CLIENT_DIST ?= dist
client: $(RUN_STAMP)
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir $(CLIENT_DIST) clients/python

# The Go and TypeScript clients, by `buf generate` (protos/buf.gen.yaml), into gen/ (git-ignored).
# Local plugins only: protoc-gen-es from tools/, protoc-gen-go and protoc-gen-go-grpc from Debian's
# packages of those names (`.ci/run` installs them).
gen-clients: $(TOOLS_STAMP)
	rm -rf gen
	PATH="$(CURDIR)/tools/node_modules/.bin:$$PATH" $(BUF) generate protos --template protos/buf.gen.yaml -o gen

# The locked dependencies, then the project itself, editable and without dependencies.
# compat mode puts the repository root on sys.path, so the generated `tavolo` package imports too.
$(RUN_STAMP): requirements/run.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --require-hashes --requirement requirements/run.txt
	$(PY) -m pip install --quiet --no-deps --editable . --config-settings editable_mode=compat
	touch $@

$(TEST_STAMP): $(RUN_STAMP) requirements/test.txt
	$(PY) -m pip install --quiet --require-hashes --requirement requirements/test.txt
	touch $@

# The stubs are built from protos/, never edited: tavolo/<service>/v1/*_pb2*.py and .pyi
$(GEN): $(RUN_STAMP) $(PROTOS)
	rm -rf tavolo
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m grpc_tools.protoc -I protos \
	  --python_out=. --grpc_python_out=. --mypy_out=. --mypy_grpc_out=. $(PROTOS)
	touch $@

$(NPM_STAMP): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@

$(WEB_DIST): $(NPM_STAMP) $(WEB_SOURCES)
	cd web && npm run build

$(TOOLS_STAMP): tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund
	touch $@

clean:
	rm -rf tavolo $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache web/node_modules web/dist web/audit/node_modules \
	  tools/node_modules dist gen clients/python/build clients/python/*.egg-info
