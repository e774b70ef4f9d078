#!/usr/bin/env bash
# CIP4's official XJDF 2.x schemas (jdfschema_2_0.xsd, 2_1, 2_2), taken from the xJdfLib
# jar on Maven Central, for the tests to validate every job ticket with xmllint. Prints
# the folder that holds them. Cached under ~/.cache (shared by every clone); needs Maven
# (mvn) the first time. XJDF_SCHEMA_DIR, when it holds them, is used as it is.
set -euo pipefail
version="${XJDF_LIB_VERSION:-2.3.12}"
shared="${XDG_CACHE_HOME:-$HOME/.cache}/editor-platform/xjdf-schema-$version"
log() { echo "[xjdf-schema] $*" >&2; }
have() { [ -s "$1/jdfschema_2_0.xsd" ] && [ -s "$1/jdfschema_2_2.xsd" ]; }

if [ -n "${XJDF_SCHEMA_DIR:-}" ] && have "$XJDF_SCHEMA_DIR"; then
  echo "$XJDF_SCHEMA_DIR"; exit 0
fi
if have "$shared"; then echo "$shared"; exit 0; fi
command -v mvn >/dev/null 2>&1 || { log "needs Maven (mvn) to fetch org.cip4.lib.xjdf:xJdfLib:$version"; exit 1; }
log "fetching org.cip4.lib.xjdf:xJdfLib:$version from Maven Central"
mvn -q -B dependency:get -Dartifact="org.cip4.lib.xjdf:xJdfLib:$version" -Dtransitive=false >&2
jar="${HOME}/.m2/repository/org/cip4/lib/xjdf/xJdfLib/$version/xJdfLib-$version.jar"
[ -s "$jar" ] || { log "no $jar after mvn"; exit 1; }
mkdir -p "$shared"
python3 - "$jar" "$shared" <<'PY'
import sys, zipfile, os
jar, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(jar) as z:
    for name in z.namelist():
        if name.startswith('org/cip4/lib/xjdf/schema/jdfschema_2_') and name.endswith('.xsd'):
            with open(os.path.join(out, os.path.basename(name)), 'wb') as f:
                f.write(z.read(name))
PY
have "$shared"
echo "$shared"
