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
# tavolo's version: pyproject.toml's, the one place it is set (docs/releasing.md).
VERSION = $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' pyproject.toml)
# The browser app (web/): npm installs from the lock file, Vite builds web/dist.
WEB_SOURCES = $(shell find web -path web/node_modules -prune -o -path web/audit -prune -o -path web/dist -prune -o -type f -print)
NPM_STAMP   = web/node_modules/.installed
WEB_DIST    = web/dist/index.html
# Tools from npm (tools/package.json): buf, for the protos.
TOOLS_STAMP = tools/node_modules/.installed
BUF         = tools/node_modules/.bin/buf
# `buf breaking` compares the protos with the last release, the tag protos/RELEASED names
# (a release moves it on: docs/releasing.md): main compared with itself could never fail. It
# needs the history, not a shallow clone. A clone without tags finds the release by its commit,
# the one whose subject is "Release <tag>" (docs/releasing.md).
RELEASED       := $(shell cat protos/RELEASED)
RELEASED_REF   := $(shell git rev-parse -q --verify "refs/tags/$(RELEASED)^{commit}" || \
                    git log -1 --format=%H --fixed-strings --grep="Release $(RELEASED)" 2>/dev/null)
BREAKING_AGAINST ?= .git\#ref=$(RELEASED_REF),subdir=protos

.PHONY: run test lint lock web web-test bench soak audit gen install client gen-clients clean image base-images \
        image-test chart-readme dist sbom release-check print-released-ref

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

# The container images, tagged and labelled with tavolo's version (pyproject.toml; the chart's
# appVersion is the same, `make release-check`, so the chart's defaults find them): tavolo (every
# component) and tavolo-dev-oidc (the development OIDC provider of evaluation
# installs, charts/tavolo/values-evaluation.yaml), from the one Dockerfile. Docker builds them
# where its engine answers, buildah (as root, no daemon) where it does not; CONTAINER_BUILDER
# chooses. Load them into a laptop cluster with e.g. `kind load docker-image tavolo:<version>
# tavolo-dev-oidc:<version>`.
IMAGE          ?= tavolo
DEV_OIDC_IMAGE ?= tavolo-dev-oidc
DOCKER         ?= docker
CONTAINER_BUILDER ?= $(shell $(DOCKER) info >/dev/null 2>&1 && echo docker || echo buildah)
# The base images (the Dockerfile's defaults: python:3.11-slim-bookworm, node:20-bookworm-slim
# from Docker Hub). BASE_IMAGES=debian makes them from Debian packages instead, for a CI with no
# registry (tools/base_images.sh: mmdebstrap, once; later runs find them built).
BASE_IMAGES    ?= registry
ifeq ($(BASE_IMAGES),debian)
PYTHON_IMAGE   ?= localhost/tavolo-base-python:bookworm
NODE_IMAGE     ?= localhost/tavolo-base-node:trixie
IMAGE_DEPS      = base-images
endif
BUILD_ARGS = --build-arg VERSION=$(VERSION) $(if $(PYTHON_IMAGE),--build-arg PYTHON_IMAGE=$(PYTHON_IMAGE)) $(if $(NODE_IMAGE),--build-arg NODE_IMAGE=$(NODE_IMAGE))
# buildah: chroot isolation (no daemon, no user namespaces needed), its layer cache on, and the
# host's CA bundle in every step, so that pip and npm trust what the host trusts (a proxy's CA).
CA_BUNDLE ?= /etc/ssl/certs/ca-certificates.crt
BUILDAH_BUD = buildah bud --isolation chroot --layers $(if $(wildcard $(CA_BUNDLE)),--volume $(CA_BUNDLE):/etc/ssl/certs/ca-certificates.crt:ro)
ifeq ($(CONTAINER_BUILDER),docker)
BUILD = $(if $(IMAGE_DEPS),$(error BASE_IMAGES=debian makes the base images in buildah's storage, which Docker does not read: add CONTAINER_BUILDER=buildah)) $(DOCKER) build
else
BUILD = $(BUILDAH_BUD)
endif
BUILD_CMD = $(strip $(BUILD) $(BUILD_ARGS))

image: $(IMAGE_DEPS)
	$(BUILD_CMD) -t $(IMAGE):$(VERSION) .
	$(BUILD_CMD) --target dev-oidc -t $(DEV_OIDC_IMAGE):$(VERSION) .

base-images:
	PYTHON_BASE=$(PYTHON_IMAGE) NODE_BASE=$(NODE_IMAGE) tools/base_images.sh

# Both images built with buildah (podman, which runs them, shares its storage), then every
# component in a read-only container of its own as the chart runs it, on this machine's Postgres
# and Redis, and a match against bots through the gateway (tests/image; needs root, buildah,
# podman and runc). `.ci/run` runs it with BASE_IMAGES=debian.
image-test: $(TEST_STAMP) $(GEN)
	$(MAKE) --no-print-directory image CONTAINER_BUILDER=buildah
	TAVOLO_IMAGE=$(IMAGE):$(VERSION) TAVOLO_DEV_OIDC_IMAGE=$(DEV_OIDC_IMAGE):$(VERSION) \
	  $(PY) -m pytest tests/image -q -s
	@podman image inspect --format '{{.Size}} {{len .RootFS.Layers}}' $(IMAGE):$(VERSION) \
	  | awk '{printf "image-test: $(IMAGE):$(VERSION) is %.0f MB in %d layers\n", $$1 / 1e6, $$2}'

# The chart's README, generated from Chart.yaml and values.yaml's comments;
# tests/chart/test_chart_readme.py fails while it is stale.
chart-readme: $(RUN_STAMP)
	$(PY) tools/chart_readme.py > charts/tavolo/README.md.new || { rm -f charts/tavolo/README.md.new; exit 1; }
	mv charts/tavolo/README.md.new charts/tavolo/README.md

gen: $(GEN)

# tavolo-api, the wheel of the generated Python messages and stubs for other teams, into dist/
# (git-ignored). Its setup.py generates them from protos/ at build time; no build isolation, so
# the code generators and setuptools are the locked ones of this venv (clients/python/pyproject.toml
# pins the same ones for an isolated build, from its sdist: `make dist`).
CLIENT_DIST ?= dist
client: $(RUN_STAMP)
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir $(CLIENT_DIST) clients/python

# What a release publishes (docs/releasing.md), into dist/: the sdists of tavolo and tavolo-api
# (each carrying the protos its build generates the stubs from) and a wheel of each built from
# its sdist, in isolated build environments from the package index (uv, as `make lock`).
dist: $(TEST_STAMP)
	$(VENV)/bin/uv build --quiet --out-dir $(CLIENT_DIST) .
	$(VENV)/bin/uv build --quiet --out-dir $(CLIENT_DIST) clients/python

# The CycloneDX SBOM of the runtime dependencies, from their lock file (offline), into dist/.
SBOM = $(CLIENT_DIST)/sbom.cdx.json
sbom: $(TEST_STAMP)
	mkdir -p $(CLIENT_DIST)
	PYTHONWARNINGS=ignore::UserWarning $(VENV)/bin/cyclonedx-py requirements requirements/runtime.txt \
	  --pyproject pyproject.toml \
	  --output-reproducible --of JSON -o $(SBOM)

# What `make lint` compares the protos with (tests/client/test_buf_breaking.py asks).
print-released-ref:
	@echo $(RELEASED_REF)

# Prints the release checklist and checks it: one version everywhere, CHANGELOG.md, the tag
# protos/RELEASED names, the SBOM (tools/release_check.py; docs/releasing.md).
release-check: $(TEST_STAMP) sbom
	$(PY) tools/release_check.py --sbom $(SBOM)

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
