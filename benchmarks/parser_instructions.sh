#!/usr/bin/env bash
# Instructions per byte of the claim parser (valgrind's callgrind), a figure that does not move with the
# machine's load the way MB/s does. Two figures, each the difference between three passes and one over a
# file of texts separated by 0x1E, per byte and pass (so building the vocabulary is not counted):
#
#   parse    `parser_rs/examples/bench_file`: the parser alone, one text after another;
#   batch    `parser_rs/examples/bench_batch`: the batch parser on one thread, claims into columns as
#            `parse_batch` builds them before they are handed to Python;
#   python   `parse_batch(texts, threads=1)` called from Python, the whole way a user calls it (numpy's
#            BLAS threads held at one, since their spinning is counted too). The extension must be built
#            (the README's install); with --base, the base's is built in its worktree (maturin, minutes).
#
#   bash benchmarks/parser_instructions.sh                 # the released panel texts (../shared/data/panel_sample)
#   bash benchmarks/parser_instructions.sh FILE            # any 0x1E-separated texts
#   bash benchmarks/parser_instructions.sh --base REV      # the same figures at commit REV too, side by side
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
file=""
base=""
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    *) file=$1; shift ;;
  esac
done
if [ -z "$file" ]; then
  file=$(mktemp)
  python3 - "$file" <<'PY'
import sys
from pathlib import Path
sys.path.insert(0, "benchmarks")
from parser_speed import released_texts
texts = released_texts(Path("../shared/data/panel_sample"))
Path(sys.argv[1]).write_text("\x1e".join(texts), encoding="utf-8")
print(f"{len(texts)} released panel texts", file=sys.stderr)
PY
fi
size=$(python3 -c "import os, sys; print(os.path.getsize(sys.argv[1]))" "$file")

# figures for the crate in $1 (its examples built into target dir $2), labelled $3
measure() {
  local crate=$1 target=$2 label=$3
  cargo build -q --release --manifest-path "$crate/Cargo.toml" --target-dir "$target" --no-default-features \
    --example bench_file --example bench_batch
  count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | awk '/Collected/ {print $NF}'; }
  local one three
  one=$(count "$target/release/examples/bench_file" "$file" 1)
  three=$(count "$target/release/examples/bench_file" "$file" 3)
  python3 -c "print(f'$label parse: {($three - $one) / 2 / $size:.1f} instructions per byte')"
  # bench_batch times five runs over the texts repeated N times: the difference of N = 3 and N = 1
  one=$(count "$target/release/examples/bench_batch" "$file" 1)
  three=$(count "$target/release/examples/bench_batch" "$file" 3)
  python3 -c "print(f'$label batch: {($three - $one) / 10 / $size:.1f} instructions per byte')"
}

# the Python figure for the checkout at $1 (its extension built), labelled $2
measure_python() {
  local root=$1 label=$2 one three python
  # the interpreter itself, not a wrapper script (pyenv's shims are shell scripts)
  python=$(python3 -c "import sys; print(sys.executable)")
  count_py() {
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$python" - "$root" "$file" "$1" 2>&1 <<'PY' | awk '/Collected/ {print $NF}'
import sys
sys.path.insert(0, sys.argv[1])
import acousticlaim
assert acousticlaim.__file__.startswith(sys.argv[1]), acousticlaim.__file__
from acousticlaim.claims.parser import parse_batch
texts = open(sys.argv[2], encoding="utf-8").read().split("\x1e")
parse_batch(texts[:10], threads=1)
for _ in range(int(sys.argv[3])):
    parse_batch(texts, threads=1)
PY
  }
  one=$(count_py 1); three=$(count_py 3)
  python3 -c "print(f'$label python: {($three - $one) / 2 / $size:.1f} instructions per byte')"
}

measure parser_rs parser_rs/target "this checkout"
measure_python "$PWD" "this checkout"
if [ -n "$base" ]; then
  tree=$(mktemp -d)
  trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || true' EXIT
  git worktree add -q --detach "$tree" "$base"
  # the examples of this checkout time the older parser through the same public calls
  cp parser_rs/examples/bench_file.rs parser_rs/examples/bench_batch.rs "$tree/parser_rs/examples/"
  measure "$tree/parser_rs" "$tree/parser_rs/target" "$base"
  wheels=$(mktemp -d)
  (cd "$tree" && python3 -m maturin build --release -q -o "$wheels" >/dev/null 2>&1)
  python3 -c "import sys, zipfile, glob; z = zipfile.ZipFile(glob.glob(sys.argv[1] + '/acousticlaim-*.whl')[0]); [open(sys.argv[2] + '/acousticlaim/' + n.split('/')[-1], 'wb').write(z.read(n)) for n in z.namelist() if n.startswith('acousticlaim/_parser')]" "$wheels" "$tree"
  rm -rf "$wheels"
  measure_python "$tree" "$base"
fi
