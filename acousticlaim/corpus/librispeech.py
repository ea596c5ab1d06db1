"""LibriSpeech and Libri2Mix sources for Libri2Mix-style mixing.

* :func:`scan_librispeech` reads a LibriSpeech-layout folder, ``<speaker>/<chapter>/*.flac`` with one
  ``<speaker>-<chapter>.trans.txt`` per chapter (lines ``<utt-id> <TRANSCRIPT>``). Given the LibriSpeech
  root, the train split comes from ``train-clean-100`` and the test split from ``test-clean`` (the
  paper's speaker-disjoint design); given a single subset folder, speakers are split by a stable hash
  of the speaker id (one in five to test), which is speaker-disjoint too.
* :func:`read_libri2mix_metadata` reads a Libri2Mix metadata CSV (``mixture_ID``, ``source_1_path``,
  ``source_2_path``, …; the official ``libri2mix_*.csv`` files and the paper's released
  ``libri2mix_test_mixtures.csv`` both have them). The pairing and ids are kept; the reverberation and
  the noise are ours, as in the paper.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

AUDIO_SUFFIXES = (".flac", ".wav")


@dataclass(frozen=True)
class Utterance:
    utt_id: str
    speaker: str
    path: str
    transcript: str


def _read_transcripts(chapter_dir: Path) -> dict[str, str]:
    texts = {}
    for trans in chapter_dir.glob("*.trans.txt"):
        for line in trans.read_text(errors="replace").splitlines():
            if line.strip():
                utt, _, text = line.strip().partition(" ")
                texts[utt] = text
    return texts


def scan_subset(folder: str | Path) -> dict[str, list[Utterance]]:
    """Utterances per speaker in one LibriSpeech-layout folder."""
    folder = Path(folder)
    by_speaker: dict[str, list[Utterance]] = {}
    for spk_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        for chap_dir in sorted(p for p in spk_dir.iterdir() if p.is_dir()):
            texts = _read_transcripts(chap_dir)
            for audio in sorted(p for p in chap_dir.iterdir() if p.suffix.lower() in AUDIO_SUFFIXES):
                by_speaker.setdefault(spk_dir.name, []).append(
                    Utterance(audio.stem, spk_dir.name, str(audio), texts.get(audio.stem, ""))
                )
    return by_speaker


def _is_test_speaker(speaker: str) -> bool:
    return int(hashlib.sha1(speaker.encode()).hexdigest(), 16) % 5 == 0


def scan_librispeech(root: str | Path, train_subset: str, test_subset: str) -> dict[str, dict[str, list[Utterance]]]:
    """``{"train": {speaker: [utt…]}, "test": {…}}`` with no speaker in both splits."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"corpus.librispeech_dir {root}: not a directory")
    if (root / train_subset).is_dir() or (root / test_subset).is_dir():
        splits = {
            "train": scan_subset(root / train_subset) if (root / train_subset).is_dir() else {},
            "test": scan_subset(root / test_subset) if (root / test_subset).is_dir() else {},
        }
    else:
        everyone = scan_subset(root)
        splits = {
            "train": {s: u for s, u in everyone.items() if not _is_test_speaker(s)},
            "test": {s: u for s, u in everyone.items() if _is_test_speaker(s)},
        }
    shared = set(splits["train"]) & set(splits["test"])
    if shared:
        raise ValueError(f"{root}: speakers in both train and test: {sorted(shared)[:5]}")
    if not any(splits.values()):
        raise FileNotFoundError(f"{root}: no <speaker>/<chapter>/*.flac utterances found")
    return splits


def read_libri2mix_metadata(csv_path: str | Path, root: str | Path | None) -> pd.DataFrame:
    """Rows of (mixture_id, utt_1, utt_2, speaker_1, speaker_2, path_1, path_2) from a Libri2Mix CSV."""
    csv_path = Path(csv_path)
    if not csv_path.exists():
        raise FileNotFoundError(f"corpus.libri2mix_metadata {csv_path}: no such file")
    meta = pd.read_csv(csv_path)
    need = {"mixture_ID", "source_1_path", "source_2_path"}
    missing = need - set(meta.columns)
    if missing:
        raise ValueError(f"{csv_path}: not a Libri2Mix metadata CSV, missing columns {sorted(missing)}")
    base = Path(root) if root else csv_path.parent

    def absolute(p: str) -> str:
        q = Path(p)
        return str(q if q.is_absolute() else base / q)

    rows = []
    for rec in meta.itertuples(index=False):
        mix_id = str(rec.mixture_ID)
        utt_1, _, utt_2 = mix_id.partition("_")
        rows.append({
            "mixture_id": mix_id, "utt_1": utt_1, "utt_2": utt_2,
            "speaker_1": utt_1.split("-")[0], "speaker_2": utt_2.split("-")[0],
            "path_1": absolute(rec.source_1_path), "path_2": absolute(rec.source_2_path),
        })
    return pd.DataFrame(rows)
