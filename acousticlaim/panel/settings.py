"""The ``generations:`` group of ``params.yaml`` (SPEC §3), read and checked by
:func:`acousticlaim.params.settings_from`. A system's own entry under ``panel`` is checked by its kind
(:func:`acousticlaim.panel.systems.check_system_config`) when the stage builds it."""

from __future__ import annotations

from dataclasses import dataclass, field

from acousticlaim.claims.prompts import select_rungs
from acousticlaim.panel.sampling import SamplingDesign
from acousticlaim.params import param


@dataclass(frozen=True)
class GenerationsSettings:
    systems: tuple[str, ...] = ()  # the panel members `dvc repro` runs (a foreach in dvc.yaml)
    sampling: SamplingDesign = field(default_factory=SamplingDesign)
    rungs: tuple[str, ...] | None = None  # null: every rung (the released five, then P5_intervals)
    max_duration_s: float = param(10.0, gt=0)  # every system hears the raw clip truncated to this
    panel: dict = field(default_factory=dict)  # name → {kind: …, …}

    def __post_init__(self) -> None:
        select_rungs(self.rungs)  # an unknown or repeated rung is an error naming it
        missing = [s for s in self.systems if s not in self.panel]
        if missing:
            raise ValueError(f"systems {', '.join(missing)} have no entry under generations.panel; "
                             f"configured: {', '.join(self.panel) or 'none'}")
        bad = [name for name, cfg in self.panel.items() if not isinstance(cfg, dict) or "kind" not in cfg]
        if bad:
            raise ValueError(f"panel entries {', '.join(bad)} need a mapping with a 'kind'")
