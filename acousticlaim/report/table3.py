"""Table 3 as a reader sees it: the claims in time against the references in time (``reports/table3.md``).

The scorer (:func:`acousticlaim.scoring.intervals.interval_table`) computes the frame; this module lays it
out. Each row is one system × corpus × event type × rung: how many clips, reference intervals and stated
intervals it rests on, event F1 (onset collar) and segment F1 (fixed resolution), each beside its two
anchors, chance (mean ± Monte Carlo s.e.) and the estimator suite on the same clips.
"""

from __future__ import annotations

import math

import pandas as pd

from acousticlaim.quantities import EVENTS
from acousticlaim.scoring.config import IntervalScoring

DASH = "–"
CORPUS_NAMES = {"librimix": "Libri2Mix", "ami": "AMI", "twin": "Libri2Mix clean twins"}
NOTHING = ("No generation answers a rung that asks in time: add `P5_intervals` to `generations.rungs` "
           "(and the references stage writes the references in time).")


def f1_text(value) -> str:
    return DASH if value is None or (isinstance(value, float) and not math.isfinite(value)) else f"{value:.3f}"


def chance_text(mean, se) -> str:
    if mean is None or not math.isfinite(mean):
        return DASH
    return f"{mean:.3f} ± {se:.3f}" if se is not None and math.isfinite(se) else f"{mean:.3f}"


def render_table3(table: pd.DataFrame, settings: IntervalScoring) -> str:
    """Markdown of Table 3."""
    lines = [
        "# Table 3: claims in time — overlap, pauses and noise against the instruments",
        "",
        f"Event F1: a stated onset within {settings.collar_s:g} s of a reference onset is a hit (a point claim "
        f"inside a reference interval, widened by the collar, claims that interval); segment F1 at "
        f"{settings.segment_s:g}-s resolution; both summed over the clips (sed_eval). Chance: the stated "
        f"intervals placed at random over each clip, mean ± s.e. over {settings.chance_draws} draws. Estimator: "
        f"`{settings.estimator_system}`'s own answer on the same clips (VAD and energy on the heard mixture). "
        f"{DASH}: neither a reference nor a stated interval in the cell.",
        "",
    ]
    if table.empty:
        return "\n".join(lines + [NOTHING, ""])
    lines.append("| System | Corpus | Event | Rung | Clips | Reference | Stated | Event F1 | chance | estimator "
                 "| Segment F1 | chance | estimator |")
    lines.append("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in table.itertuples(index=False):
        lines.append(
            f"| {r.system} | {CORPUS_NAMES.get(r.corpus, r.corpus)} | {EVENTS[r.event].name} | {r.rung} | {r.n_clips} "
            f"| {r.n_reference} | {r.n_stated} | {f1_text(r.event_f1)} | {chance_text(r.chance_event_f1, r.chance_event_se)} "
            f"| {f1_text(r.estimator_event_f1)} | {f1_text(r.segment_f1)} | {chance_text(r.chance_segment_f1, r.chance_segment_se)} "
            f"| {f1_text(r.estimator_segment_f1)} |")
    return "\n".join(lines + [""])
