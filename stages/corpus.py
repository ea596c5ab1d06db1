"""DVC stage `corpus`: build the corpus configured in params.yaml (`corpus:` and `executor:` groups)."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acousticlaim.corpus.build import build_corpus  # noqa: E402
from acousticlaim.params import load_params  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="data/corpus")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args()
    params = load_params(args.params)
    result = build_corpus(params["corpus"], args.out, executor=params.get("executor"))
    print(f"corpus: {result.n_clips} clips, {result.n_failures} recorded failures -> {result.out}")


if __name__ == "__main__":
    main()
