"""The tiny default corpus as values: its manifest plus a hash of every audio file's decoded samples.

``tests/data/default_corpus_golden.parquet`` holds this for the corpus the code built before RSA-Bench
scenes had their own module; ``test_default_corpus_is_unchanged`` rebuilds it and compares. To write it
afresh (only when a change to the default corpus is intended)::

    PYTHONPATH=. python3 tests/default_corpus_golden.py tests/data/default_corpus_golden.parquet
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path

import pandas as pd
import soundfile as sf

from acousticlaim.corpus.build import build_corpus
from acousticlaim.corpus.manifest import read_manifest
from tests.corpus_fixtures import tiny_corpus_params

AUDIO_COLUMNS = ("audio_path", "s1_path", "s2_path", "noise_path")


def pcm_sha256(path: Path) -> str:
    """The hash of a file's decoded 16-bit samples (the encoder's bytes may differ between libsndfile versions)."""
    samples, _ = sf.read(path, dtype="int16", always_2d=False)
    return hashlib.sha256(samples.tobytes()).hexdigest()


def default_corpus_values(out: Path) -> pd.DataFrame:
    """Build the tiny default corpus (scenes off) into ``out``; the manifest with each audio file's hash."""
    build_corpus(tiny_corpus_params(), out, executor={"kind": "local", "workers": 1})
    manifest = read_manifest(out)
    for column in AUDIO_COLUMNS:
        manifest[f"{column}_sha256"] = [pcm_sha256(out / rel) for rel in manifest[column]]
    return manifest


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        default_corpus_values(Path(tmp)).to_parquet(sys.argv[1], index=False)
