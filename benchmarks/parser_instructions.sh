#!/usr/bin/env bash
# Instructions per byte of the claim parser (valgrind's callgrind), a figure that does not move with the
# machine's load the way MB/s does. It times `parser_rs/examples/bench_file` over a file of texts separated
# by 0x1E, once with one pass and once with three, and reports the difference per byte and pass (so building
# the vocabulary is not counted).
#
#   bash benchmarks/parser_instructions.sh             # the released panel texts (../shared/data/panel_sample)
#   bash benchmarks/parser_instructions.sh FILE        # any 0x1E-separated texts
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
file=${1:-}
if [ -z "$file" ]; then
  file=$(mktemp)
  python3 - "$file" <<'PY'
import json, sys
from pathlib import Path
texts = []
for f in sorted(Path("../shared/data/panel_sample").glob("*_seed*.json")):
    for rungs in json.loads(f.read_text(encoding="utf-8"))["results"].values():
        for block in rungs.values():
            texts += [g["text"] for g in block["generations"]]
Path(sys.argv[1]).write_text("\x1e".join(texts), encoding="utf-8")
print(f"{len(texts)} released panel texts", file=sys.stderr)
PY
fi
cargo build -q --release --manifest-path parser_rs/Cargo.toml --no-default-features --example bench_file
bin=parser_rs/target/release/examples/bench_file
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$file" "$1" 2>&1 | awk '/Collected/ {print $NF}'; }
one=$(count 1); three=$(count 3)
python3 -c "import os; print(f'{($three - $one) / 2 / os.path.getsize(\"$file\"):.1f} instructions per byte')"
