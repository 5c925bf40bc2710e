#!/bin/sh
# Regenerates program_generated.py from the executorch wheel's own program.fbs (the `.pte`
# schema, which includes scalar_type.fbs) with the flatc shipped beside it (24.3.25).
# Deterministic: rerunning it leaves the file byte-identical.
# Usage: pte/schema/regenerate.sh   (PYTHON selects the interpreter, default python3)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
et=$("${PYTHON:-python3}" -c 'import importlib.util as u
print(u.find_spec("executorch").submodule_search_locations[0])')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$et/data/bin/flatc" --python --gen-object-api --gen-onefile -o "$out" \
    -I "$et/exir/_serialize" "$et/exir/_serialize/program.fbs"
cp "$out/program_generated.py" "$here/program_generated.py"
