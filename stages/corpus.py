"""DVC stage `corpus`: build the corpus configured in params.yaml (`corpus:` and `executor:` groups)."""

import argparse
from dataclasses import asdict

from acousticlaim.corpus.build import build_corpus
from acousticlaim.executor import fails_loudly
from acousticlaim.params import load_group


@fails_loudly
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="data/corpus")
    ap.add_argument("--params", default="params.yaml")
    args = ap.parse_args(argv)
    corpus, executor = load_group("corpus", args.params), load_group("executor", args.params)
    result = build_corpus(corpus, args.out, executor=asdict(executor))
    print(f"corpus: {result.n_clips} clips, {result.n_failures} recorded failures -> {result.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
