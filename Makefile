# The newcomer's commands: `make run` starts the whole platform, `make test` runs every test.
# Both create the virtual environment, generate the gRPC stubs and build the browser app first,
# on a fresh machine (each step is skipped when it is up to date).

PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PROTOS  = $(shell find protos -name '*.proto')
STAMP   = $(VENV)/.installed
GEN     = tavolo/.generated
# The browser app (web/): npm installs from the lock file, Vite builds web/dist.
WEB_SOURCES = $(shell find web -path web/node_modules -prune -o -path web/dist -prune -o -type f -print)
NPM_STAMP   = web/node_modules/.installed
WEB_DIST    = web/dist/index.html

.PHONY: run test web web-test bench gen install clean

run: $(STAMP) $(GEN) $(WEB_DIST)
	$(VENV)/bin/tavolo run

# The app's unit tests (Vitest), then the whole Python suite, browser tests included.
test: $(STAMP) $(GEN) $(WEB_DIST) web-test
	$(PY) -m pytest $(PYTEST_ARGS)

web: $(WEB_DIST)

web-test: $(NPM_STAMP)
	cd web && npm test

bench: $(STAMP) $(GEN)
	$(PY) -m bench

install: $(STAMP)

gen: $(GEN)

# One editable install of the project and every pinned dependency (pyproject.toml).
# compat mode puts the repository root on sys.path, so the generated `tavolo` package imports too.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --editable '.[codegen,test]' --config-settings editable_mode=compat
	touch $@

# The stubs are built from protos/, never edited: tavolo/<service>/v1/*_pb2*.py and .pyi
$(GEN): $(STAMP) $(PROTOS)
	rm -rf tavolo
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m grpc_tools.protoc -I protos \
	  --python_out=. --grpc_python_out=. --mypy_out=. --mypy_grpc_out=. $(PROTOS)
	touch $@

$(NPM_STAMP): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@

$(WEB_DIST): $(NPM_STAMP) $(WEB_SOURCES)
	cd web && npm run build

clean:
	rm -rf tavolo $(VENV) .pytest_cache .hypothesis web/node_modules web/dist
