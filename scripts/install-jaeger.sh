#!/usr/bin/env bash
# Builds Jaeger (the trace backend the tracing tests export to over OTLP and query over
# its HTTP API) from its Go module and prints its path on stdout. Jaeger is a program of
# a module with replace directives, so it is built as a tool of a scratch module
# (go get -tool), not with go install. Cached under ~/.cache (shared by every clone).
# JAEGER_PATH, when it runs, is used as it is.
set -euo pipefail
version="${JAEGER_VERSION:-v1.76.0}"
shared="${XDG_CACHE_HOME:-$HOME/.cache}/editor-platform/jaeger-$version"
log() { echo "[jaeger] $*" >&2; }
runs() { [ -x "$1" ] && "$1" version >/dev/null 2>&1; }

if [ -n "${JAEGER_PATH:-}" ] && runs "$JAEGER_PATH"; then
  echo "$JAEGER_PATH"; exit 0
fi
if runs "$shared/bin/jaeger"; then
  echo "$shared/bin/jaeger"; exit 0
fi
# the tests only look for a cached build
[ -n "${JAEGER_NO_BUILD:-}" ] && exit 1
command -v go >/dev/null 2>&1 || { log "needs the Go toolchain"; exit 1; }
log "building github.com/jaegertracing/jaeger/cmd/jaeger@$version (several minutes)"
mkdir -p "$shared/module" "$shared/bin"
export GOPATH="$shared/go" GOFLAGS=-modcacherw GOTOOLCHAIN=local
(
  cd "$shared/module"
  [ -f go.mod ] || go mod init jaeger-build >&2
  go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$version" >&2
  # -s -w: no symbol table or DWARF, a shorter link of a binary nobody debugs here
  go build -ldflags="-s -w" -o "$shared/bin/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger >&2
)
runs "$shared/bin/jaeger"
# the module cache is only needed to build
chmod -R u+w "$shared/go" 2>/dev/null || true
rm -rf "$shared/go" "$shared/module"
echo "$shared/bin/jaeger"
