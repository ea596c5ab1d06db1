"""The ``references:`` group of ``params.yaml``, read and checked by :func:`acousticlaim.params.settings_from`.

The defaults are the instruments' own (:mod:`acousticlaim.instruments.overlap` holds Silero's), stated once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from acousticlaim.instruments.overlap import DEFAULT_VAD, MIN_OVERLAP_S
from acousticlaim.params import param


@dataclass(frozen=True)
class VadSettings:
    """Silero VAD on each separated stem (``silero_vad.get_speech_timestamps`` keywords)."""

    threshold: float = param(DEFAULT_VAD["threshold"], gt=0, lt=1)
    min_speech_duration_ms: int = param(DEFAULT_VAD["min_speech_duration_ms"], ge=0)
    min_silence_duration_ms: int = param(DEFAULT_VAD["min_silence_duration_ms"], ge=0)
    speech_pad_ms: int = param(DEFAULT_VAD["speech_pad_ms"], ge=0)


@dataclass(frozen=True)
class IntervalSettings:
    """The references in time (:mod:`acousticlaim.instruments.intervals`)."""

    # a noise or scene source is an event while it sounds at least this loud against the speech (dB re its RMS)
    noise_min_level_db: float = param(-30.0)


@dataclass(frozen=True)
class ReferencesSettings:
    srmr_fast: bool = True  # SRMR fast mode (FFT gammatonegram), as SRMRpy and VERSA
    min_overlap_s: float = param(MIN_OVERLAP_S, ge=0)  # overlap windows at least this long
    vad: VadSettings = field(default_factory=VadSettings)
    torch_threads: int | None = param(1, ge=1)  # torch threads per worker (null: torch's default)
    intervals: IntervalSettings = field(default_factory=IntervalSettings)


def overlap_settings(settings: ReferencesSettings) -> dict:
    """The overlap-window settings (minimum length, VAD, torch threads) other stages share with the references."""
    return {"min_overlap_s": settings.min_overlap_s, "vad": asdict(settings.vad), "torch_threads": settings.torch_threads}
