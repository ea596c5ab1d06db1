"""Small corpora that tests write themselves (no download, seconds to build)."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import soundfile as sf
import yaml

from acousticlaim.corpus.synthetic import draw_talker, synthesize_talker

ROOT = Path(__file__).resolve().parents[1]


def tiny_corpus_params(**overrides) -> dict:
    """The `corpus:` group of params.yaml shrunk to a few clips and small rooms."""
    cfg = copy.deepcopy(yaml.safe_load((ROOT / "params.yaml").read_text())["corpus"])
    cfg.update({"n_train": 4, "n_test": 3, "n_speakers_train": 3, "n_speakers_test": 3, "n_rooms": 2,
                "rt60_s": [0.2, 0.4]})
    cfg.update(overrides)
    return cfg


def write_librispeech_fixture(root: Path, speakers: dict[str, int], utts_per_speaker: int = 2, seed: int = 0,
                              duration_s: tuple[float, float] = (3.0, 5.0)) -> Path:
    """A LibriSpeech-layout folder of synthetic talkers saved as FLAC with transcripts."""
    rng = np.random.default_rng(seed)
    for subset, n_spk in speakers.items():
        for s in range(n_spk):
            spk = str(1000 + 100 * list(speakers).index(subset) + s)
            talker = draw_talker(rng, spk)
            chap_dir = root / subset / spk / "7"
            chap_dir.mkdir(parents=True, exist_ok=True)
            lines = []
            for u in range(utts_per_speaker):
                utt = f"{spk}-7-{u:04d}"
                wave = synthesize_talker(talker, float(rng.uniform(*duration_s)), seed=int(rng.integers(2**31))).waveform
                sf.write(chap_dir / f"{utt}.flac", wave, 16000, subtype="PCM_16")
                lines.append(f"{utt} SYNTHETIC UTTERANCE NUMBER {u}")
            (chap_dir / f"{spk}-7.trans.txt").write_text("\n".join(lines) + "\n")
    return root
