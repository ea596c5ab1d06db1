"""The ``train:`` and ``predict:`` groups of ``params.yaml`` (SPEC §5), read and checked by
:func:`acousticlaim.params.settings_from`. The nested specs (encoder, decoder, optimiser) live beside the
code that uses them (``features:`` is :class:`acousticlaim.model.features.FeaturesSettings`); the sizes of ``train.system`` take :class:`~acousticlaim.model.system.SystemSpec`'s
defaults."""

from __future__ import annotations

from dataclasses import dataclass, field

from acousticlaim.model.decoder import DecoderSpec
from acousticlaim.model.ridge import DEFAULT_ALPHAS
from acousticlaim.model.system import SystemSpec
from acousticlaim.model.train import TrainSpec
from acousticlaim.params import param

SPLITS = ("train", "test")
CORPORA = ("librimix", "ami")  # the manifest's corpus column


@dataclass(frozen=True)
class SystemSizes:
    """``train.system``: the trained parts' sizes and the instruction (the encoder width comes from the data)."""

    compressor_channels: int = param(SystemSpec.compressor_channels, ge=1)
    compressor_layers: int = param(SystemSpec.compressor_layers, ge=0)
    adapter_heads: int = param(SystemSpec.adapter_heads, ge=1)
    instruction: str = SystemSpec.instruction


@dataclass(frozen=True)
class RidgeSettings:
    alphas: tuple[float, ...] = param(DEFAULT_ALPHAS, gt=0)
    folds: int = param(5, ge=2)


@dataclass(frozen=True)
class TrainSettings:
    seeds: tuple[int, ...] = param((0,), ge=0)  # one train@<k> stage per seed
    threads: int | None = param(None, ge=1)  # torch CPU threads (null: torch's default)
    corpora: tuple[str, ...] = param(("librimix",), choices=CORPORA)
    max_clips: int | None = param(None, ge=1)  # cap on training clips (null: all)
    system: SystemSizes = field(default_factory=SystemSizes)
    decoder: DecoderSpec = field(default_factory=DecoderSpec)
    optim: TrainSpec = field(default_factory=TrainSpec)
    ridge: RidgeSettings = field(default_factory=RidgeSettings)

    def __post_init__(self) -> None:
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds repeat: {list(self.seeds)}")


@dataclass(frozen=True)
class PredictSettings:
    threads: int | None = param(None, ge=1)
    device: str = "cpu"  # cuda for a full-size checkpoint
    batch_size: int = param(32, ge=1)
    max_new_tokens: int = param(160, ge=1)
    generate_splits: tuple[str, ...] = param(("test",), choices=SPLITS)  # clips readout A describes
    decomposition_splits: tuple[str, ...] = param(("test",), choices=SPLITS)  # clips whose per-token terms are kept
    rung: str = "P2_named"  # the rung label of the reference system's generations
    prompt_version: str = "reference-v1"
