#!/usr/bin/env bash
# Developer helper: build the Rust parser and drop acousticlaim/_parser.abi3.so into THIS checkout,
# without touching the pip-installed (editable) package. Use it in a git worktree, then run tests with
# PYTHONPATH="$PWD" so this checkout's acousticlaim/ is the one imported.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
maturin build --release -q -o "$out" >/dev/null
python3 - "$out" <<'PY'
import sys, zipfile, pathlib
whl = next(pathlib.Path(sys.argv[1]).glob("*.whl"))
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.startswith("acousticlaim/_parser") and n.endswith(".so"))
    pathlib.Path("acousticlaim/_parser.abi3.so").write_bytes(z.read(name))
print("built acousticlaim/_parser.abi3.so from", whl.name)
PY
rm -rf "$out"
