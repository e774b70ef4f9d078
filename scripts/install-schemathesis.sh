#!/usr/bin/env bash
# Installs the Schemathesis CLI (PyPI, pinned) in a virtual environment cached under
# ~/.cache/editor-platform/ and prints the path of its `st` command.
set -euo pipefail
version="${SCHEMATHESIS_VERSION:-4.32.5}"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/editor-platform/schemathesis-$version"
if [ -x "$venv/bin/st" ] && "$venv/bin/st" --version >/dev/null 2>&1; then
  echo "$venv/bin/st"; exit 0
fi
echo "[schemathesis] installing schemathesis==$version from PyPI" >&2
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" >&2
echo "$venv/bin/st"
