#!/usr/bin/env bash
# Installs openapi-python-client (PyPI, pinned) in a virtual environment cached under
# ~/.cache/editor-platform/ and prints the path of its command. CI generates a Python
# client from the OpenAPI document with it and fails on any warning.
set -euo pipefail
version="${OPENAPI_PYTHON_CLIENT_VERSION:-0.29.1}"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/editor-platform/openapi-python-client-$version"
if [ -x "$venv/bin/openapi-python-client" ] && "$venv/bin/openapi-python-client" --version >/dev/null 2>&1; then
  echo "$venv/bin/openapi-python-client"; exit 0
fi
echo "[openapi-python-client] installing openapi-python-client==$version from PyPI" >&2
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "openapi-python-client==$version" >&2
echo "$venv/bin/openapi-python-client"
