#!/usr/bin/env bash
# Builds the MinIO server (an S3-compatible object store) from its Go module and prints
# its path on stdout. MinIO publishes no semver tags, so a commit is pinned as the Go
# module proxy names it. Cached under ~/.cache (shared by every clone). MINIO_PATH, when
# it runs, is used as it is.
set -euo pipefail
version="${MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"
shared="${XDG_CACHE_HOME:-$HOME/.cache}/editor-platform/minio-$version"
log() { echo "[minio] $*" >&2; }
runs() { [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

if [ -n "${MINIO_PATH:-}" ] && runs "$MINIO_PATH"; then
  echo "$MINIO_PATH"; exit 0
fi
if runs "$shared/bin/minio"; then
  echo "$shared/bin/minio"; exit 0
fi
# the tests only look for a cached build
[ -n "${MINIO_NO_BUILD:-}" ] && exit 1
command -v go >/dev/null 2>&1 || { log "needs the Go toolchain"; exit 1; }
log "building github.com/minio/minio@$version with go install (several minutes)"
mkdir -p "$shared"
# -s -w: no symbol table or DWARF, a shorter link of a binary nobody debugs here
GOBIN="$shared/bin" GOPATH="$shared/go" GOFLAGS=-modcacherw GOTOOLCHAIN=local \
  go install -ldflags="-s -w" "github.com/minio/minio@$version" >&2
runs "$shared/bin/minio"
# the module cache is only needed to build
rm -rf "$shared/go"
echo "$shared/bin/minio"
