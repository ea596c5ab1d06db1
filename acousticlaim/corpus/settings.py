"""The ``corpus:`` group of ``params.yaml`` (SPEC §2), read and checked by :func:`acousticlaim.params.settings_from`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from acousticlaim.audio import TARGET_SR
from acousticlaim.corpus.ami import CUTS as AMI_CUTS
from acousticlaim.corpus.scenes import MODES as SCENE_MODES
from acousticlaim.corpus.scenes import SOUNDSCAPES
from acousticlaim.corpus.synthetic import TalkerRanges
from acousticlaim.params import param

SOURCES = ("synthetic", "librispeech", "libri2mix", "ami")


@dataclass(frozen=True)
class SceneEventsSettings:
    """When a scene source sounds (``scene_events.parquet``): frames within ``floor_db`` of its loud frames."""

    floor_db: float = param(-30.0, lt=0)
    min_gap_s: float = param(0.1, ge=0)  # quieter gaps shorter than this are bridged


@dataclass(frozen=True)
class ScenesSettings:
    """RSA-Bench scenes (Zhang et al., arXiv:2601.10384): K environmental sources instead of one noise."""

    enabled: bool = False
    mode: str = param("sample", choices=SCENE_MODES)  # sample: one drawn scene per mixture | design: 16 + clean
    k: tuple[int, int] = param((1, 4), ge=1)  # K sources, lowest and highest
    soundscapes: tuple[str, ...] = param(SOUNDSCAPES, choices=SOUNDSCAPES)
    source_snr_db: float = 0.0  # design: every source's level against the speech (λ_k = 10^(−x/20))
    events: SceneEventsSettings = field(default_factory=lambda: SceneEventsSettings())

    def __post_init__(self) -> None:
        if self.k[0] > self.k[1]:
            raise ValueError(f"scenes.k {list(self.k)}: the first bound is above the second")


def _ordered(name: str, pair: tuple[float, float]) -> None:
    if pair[0] > pair[1]:
        raise ValueError(f"{name} {list(pair)}: the lower bound is above the upper")


@dataclass(frozen=True)
class CorpusSettings:
    source: str = param("synthetic", choices=SOURCES)
    seed: int = param(0, ge=0)
    n_train: int | None = param(400, ge=0)  # mixtures in the train split (null: every one a real corpus has)
    n_test: int | None = param(200, ge=0)
    n_speakers_train: int = param(40, ge=2)  # synthetic talkers per split
    n_speakers_test: int = param(20, ge=2)
    max_duration_s: float = param(10.0, gt=0)
    sample_rate: int = param(TARGET_SR, choices=(TARGET_SR,))  # the one rate audio enters at (acousticlaim.audio)
    snr_db: tuple[float, float] = (0.0, 40.0)
    ttr_db: tuple[float, float] = (-5.0, 5.0)
    speech_level_dbfs: tuple[float, float] = param((-33.0, -25.0), le=0)
    rir_dir: str | None = None
    n_rooms: int = param(40, ge=1)
    rt60_s: tuple[float, float] = param((0.1, 0.35), gt=0)
    mic_distance_m: tuple[float, float] = param((0.2, 0.8), gt=0)  # talker-microphone distance, simulated rooms
    talkers: TalkerRanges = field(default_factory=TalkerRanges)  # synthetic talkers' drawing ranges
    noise_dir: str | None = None
    scenes: ScenesSettings = field(default_factory=ScenesSettings)
    librispeech_dir: str | None = None
    train_subset: str = "train-clean-100"
    test_subset: str = "test-clean"
    libri2mix_metadata: str | dict | None = None  # a CSV, or split → CSV
    libri2mix_root: str | None = None
    libri2mix_split: Literal["train", "test"] = "test"  # the split of a single metadata CSV
    ami_dir: str | None = None  # distant-microphone recordings <meeting>.Array1-01.wav
    ami_annotations_dir: str | None = None  # AMI manual annotations (segments/, corpusResources/meetings.xml)
    ami_cut: str = param("segments", choices=AMI_CUTS)  # one clip per speaker segment, or consecutive windows
    ami_segment_s: tuple[float, float] = param((3.0, 12.0), gt=0)  # speaker segments kept, shortest and longest
    ami_clip_s: float = param(10.0, gt=0)  # window length when ami_cut is windows
    ami_max_clips: int | None = param(None, ge=1)  # keep only the first n clips (null: all)
    ami_meetings: tuple[str, ...] | None = None  # meetings cut (null: every meeting found)

    def __post_init__(self) -> None:
        for name in ("snr_db", "ttr_db", "speech_level_dbfs", "rt60_s", "ami_segment_s"):
            _ordered(name, getattr(self, name))
        needs = {"librispeech": "librispeech_dir", "libri2mix": "libri2mix_metadata"}  # AMI: checked where it is cut
        if self.source in needs and not getattr(self, needs[self.source]):
            raise ValueError(f"source {self.source!r} needs {needs[self.source]} (a path; nothing is downloaded)")
