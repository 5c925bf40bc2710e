#!/bin/sh
# Regenerates xnnc_generated.py from xnnc.fbs with the flatc shipped in the executorch wheel
# (24.3.25). Deterministic: rerunning it leaves the file byte-identical.
# Usage: backend_xnnpack/schema/regenerate.sh   (PYTHON selects the interpreter, default python3)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
flatc=$("${PYTHON:-python3}" -c 'import importlib.util as u
print(u.find_spec("executorch").submodule_search_locations[0] + "/data/bin/flatc")')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$flatc" --python --gen-object-api --gen-onefile -o "$out" "$here/xnnc.fbs"
cp "$out/xnnc_generated.py" "$here/xnnc_generated.py"
