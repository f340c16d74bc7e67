# syntax=docker/dockerfile:1
# One image for every tavolo component: `tavolo serve <gateway|lobby|game|deadlines|stats|bots>`,
# `tavolo migrate`. Build: docker build -t tavolo . (or `make image`, tagged and labelled with
# tavolo's version, which the chart's appVersion follows; it builds the evaluation installs'
# tavolo-dev-oidc image too).

ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG NODE_IMAGE=node:20-bookworm-slim

# --- web: the browser app (web/), compiled by Vite into web/dist ------------------------------
FROM ${NODE_IMAGE} AS web

WORKDIR /web
# The locked dependencies first, so that a source change reuses this layer.
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web/ ./
RUN npm run build

# --- builder: the virtual environment with tavolo and its generated gRPC stubs ---------------
FROM ${PYTHON_IMAGE} AS builder

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

# Every dependency ships wheels for this platform, so no compiler is needed; a package that
# ever needs one gets gcc here, never in the runtime stage.
RUN python -m venv /opt/venv \
    && python -m venv /opt/codegen
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /src

# The locked dependencies first (requirements/, every transitive one with its hash), so that a
# source change reuses this layer: the runtime ones into /opt/venv (the image), the runtime and
# the code generators into /opt/codegen, which stays in this stage.
COPY requirements/runtime.txt requirements/run.txt ./requirements/
RUN pip install --require-hashes -r requirements/runtime.txt \
    && /opt/codegen/bin/pip install --require-hashes -r requirements/run.txt

COPY . .
# The wheel's build generates the gRPC stubs (the top-level tavolo package) from protos/ itself
# (setup.py), with the locked code generators of /opt/codegen; then it is installed with the rest.
RUN /opt/codegen/bin/pip wheel --no-deps --no-build-isolation --wheel-dir /tmp/wheels . \
    && pip install --no-deps /tmp/wheels/tavolo-*.whl \
    && pip check
# The installers venv put in the environment are build tools the runtime never calls (25 MB):
# setuptools goes first, so that pip check says nothing installed needs it, then pip itself.
RUN pip uninstall --yes setuptools \
    && pip check \
    && pip uninstall --yes pip

# --- dev-oidc: the development OIDC provider, for evaluation installs only ------------------
# `docker build --target dev-oidc -t tavolo-dev-oidc .` (make image). Anyone can sign in as
# anyone: the chart runs it only with evaluation.devOidc.enabled. The production image below
# (the default target) never holds devtools/.
FROM ${PYTHON_IMAGE} AS dev-oidc

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    TMPDIR=/tmp

COPY --from=builder /opt/venv /opt/venv
COPY devtools/ /app/devtools/

WORKDIR /app
USER 10001:10001

EXPOSE 8180

ENTRYPOINT ["tavolo"]
CMD ["dev-idp", "--host", "0.0.0.0"]

# --- runtime: the virtual environment and the SPA, nothing to build with --------------------
FROM ${PYTHON_IMAGE} AS runtime

# tavolo's version, pyproject.toml's (`make image` passes it; `make release-check` checks it).
ARG VERSION=unreleased
LABEL org.opencontainers.image.title="tavolo" \
      org.opencontainers.image.description="tavolo multiplayer card-game platform: gateway, lobby, game, deadlines and stats" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/tavolo-dev/tavolo"

# Runs read-only: no bytecode written, temporary files and HOME in /tmp (an emptyDir in Kubernetes).
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    TMPDIR=/tmp

RUN groupadd --system --gid 10001 tavolo \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin tavolo

COPY --from=builder /opt/venv /opt/venv
COPY --from=web /web/dist /app/web/dist

# STATIC_DIR (web/dist) is relative to this folder.
WORKDIR /app
USER 10001:10001

# gateway (HTTP), lobby, game, deadlines, stats, bots (gRPC): the chart's default ports.
EXPOSE 8080 50051 50052 50053 50054 50055

ENTRYPOINT ["tavolo"]
CMD ["serve", "gateway"]
