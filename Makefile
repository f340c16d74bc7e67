# The newcomer's commands: `make run` starts the whole platform, `make test` runs every test.
# Both create the virtual environment and generate the gRPC stubs first, on a fresh machine.

PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PROTOS  = $(shell find protos -name '*.proto')
STAMP   = $(VENV)/.installed
GEN     = tavolo/.generated

.PHONY: run test bench gen install clean

run: $(STAMP) $(GEN)
	$(VENV)/bin/tavolo run

test: $(STAMP) $(GEN)
	$(PY) -m pytest $(PYTEST_ARGS)

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

clean:
	rm -rf tavolo $(VENV) .pytest_cache .hypothesis
