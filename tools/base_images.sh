#!/usr/bin/env bash
# Base images made of Debian packages, for a CI that has no registry to pull python:3.11-slim and
# node:20-slim from: the Dockerfile's PYTHON_IMAGE (bookworm's Python 3.11, with venv) and
# NODE_IMAGE (trixie's Node.js 20; bookworm's is 18). Each is made once with mmdebstrap and kept
# in the local container storage; a second run skips an image that is already there.
# Needs root, mmdebstrap and buildah.
set -euo pipefail

PYTHON_BASE=${PYTHON_BASE:-localhost/tavolo-base-python:bookworm}
NODE_BASE=${NODE_BASE:-localhost/tavolo-base-node:trixie}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# Like the official slim images: /usr merged by mmdebstrap's hook rather than by the usrmerge
# package (which would bring all of Perl), no recommended packages, no manual pages,
# documentation (but the licences) or translations, so the runtime image carries none of them.
SLIM=(--hook-dir=/usr/share/mmdebstrap/hooks/maybe-merged-usr --aptopt='APT::Install-Recommends "false"'
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
      --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*'
      --dpkgopt='path-exclude=/usr/share/info/*')

TARBALL=""
trap 'rm -f "$TARBALL"' EXIT

make_base() {  # image name, Debian suite, packages (comma-separated)
  local name=$1 suite=$2 packages=$3 container
  if buildah inspect --type image "$name" >/dev/null 2>&1; then
    echo "base image $name: already built"
    return
  fi
  TARBALL=$(mktemp --suffix=.tar)
  mmdebstrap --quiet --variant=minbase "${SLIM[@]}" --include="$packages" "$suite" "$TARBALL" "$DEBIAN_MIRROR" >/dev/null
  container=$(buildah from scratch)
  buildah add --quiet "$container" "$TARBALL" / >/dev/null
  rm -f "$TARBALL"
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env LANG=C.UTF-8 --cmd '["bash"]' "$container"
  buildah commit --quiet --rm "$container" "$name" >/dev/null
  echo "base image $name: built"
}

make_base "$PYTHON_BASE" bookworm python3,python3-venv,python-is-python3,ca-certificates
make_base "$NODE_BASE" trixie nodejs,npm,ca-certificates
