"""Table 3's scoring of claims in time (acousticlaim.scoring.intervals): known answers and the chance anchor."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from acousticlaim.scoring.config import IntervalScoring
from acousticlaim.scoring.intervals import (ChanceAnchor, ClipEvents, chance_anchor, interval_table,
                                            score_clips, table3_metrics)


def one(reference, stated, duration=10.0, event="pause"):
    return score_clips([ClipEvents("c", duration, tuple(reference), tuple(stated))], event)


def test_identical_intervals_score_one_and_disjoint_ones_zero():
    same = one([(1.0, 2.0), (4.0, 6.5)], [(1.0, 2.0, False), (4.0, 6.5, False)])
    assert (same.event_f1, same.segment_f1) == (1.0, 1.0)
    apart = one([(0.0, 1.0), (2.2, 2.8)], [(5.0, 6.0, False), (8.3, 9.5, False)])
    assert (apart.event_f1, apart.segment_f1) == (0.0, 0.0)
    assert (apart.event_tp, apart.event_fp, apart.event_fn) == (0, 2, 2)


def test_the_onset_collar_is_0_2_s():
    assert one([(1.0, 2.0)], [(1.19, 2.5, False)]).event_f1 == 1.0
    assert one([(1.0, 2.0)], [(1.25, 2.0, False)]).event_f1 == 0.0


def test_a_point_claim_inside_a_reference_interval_counts_within_the_collar():
    assert one([(1.0, 2.0)], [(1.5, 1.5, True)]).event_f1 == 1.0  # inside
    assert one([(1.0, 2.0)], [(2.15, 2.15, True)]).event_f1 == 1.0  # past the end, within the collar
    assert one([(1.0, 2.0)], [(2.3, 2.3, True)]).event_f1 == 0.0  # past the collar
    seg = one([(1.0, 2.0)], [(1.5, 1.5, True)])
    assert (seg.segment_tp, seg.segment_fp, seg.segment_fn) == (1, 0, 0)  # the 1-s segment it falls in


def test_nothing_stated_against_references_is_zero_and_nothing_at_all_is_undefined():
    assert one([(1.0, 2.0)], []).event_f1 == 0.0
    assert math.isnan(one([], []).event_f1) and math.isnan(one([], []).segment_f1)


def test_reversed_and_outside_the_clip_are_scored_in_order_and_cut_to_the_clip():
    assert one([(1.0, 2.0)], [(2.0, 1.0, False)]).event_f1 == 1.0
    s = one([(8.0, 10.0)], [(8.1, 14.0, False)], duration=10.0)
    assert (s.segment_tp, s.segment_fp, s.segment_fn) == (2, 0, 0)


def test_chance_segment_f1_matches_its_analytic_value():
    """T = 10 s, the reference over [0, 5) (segments 0-4), one stated 1-s interval placed uniformly on [0, 9]:
    it covers segments j and j+1, j = floor(start) uniform on 0..8. F1 = 4/7 for j <= 3, 2/7 for j = 4, 0 after:
    E[F1] = (4 * 4/7 + 2/7) / 9 = 2/7."""
    clip = ClipEvents("c", 10.0, ((0.0, 5.0),), ((6.0, 7.0, False),))
    anchor = chance_anchor([clip], "noise", draws=1500, seed=1)
    assert isinstance(anchor, ChanceAnchor) and anchor.segment_se > 0
    assert abs(anchor.segment_f1 - 2 / 7) < 3 * anchor.segment_se


def test_chance_event_f1_matches_its_analytic_value():
    """The reference onset at 2 s, one stated 1-s interval with its start uniform on [0, 9]: a hit (F1 1) when the
    start is within 0.2 s of 2 s, probability 0.4 / 9; else F1 0."""
    clip = ClipEvents("c", 10.0, ((2.0, 3.0),), ((6.0, 7.0, False),))
    anchor = chance_anchor([clip], "pause", draws=3000, seed=2)
    assert abs(anchor.event_f1 - 0.4 / 9) < 3 * anchor.event_se


def _claims(rows):
    cols = ["system", "corpus", "clip_id", "rung", "seed", "event", "start_s", "end_s", "point"]
    return pd.DataFrame(rows, columns=cols)


def test_table3_scores_each_system_event_and_rung_beside_the_anchors():
    """Hand-made claims of two systems on two clips: per cell the counts, F1, chance and the estimator."""
    ref_lists = pd.DataFrame([{"clip_id": c, "event": e, "defined": not (c == "b" and e == "noise"), "n": 0,
                               "duration_s": 8.0} for c in ("a", "b") for e in ("overlap", "pause", "noise")])
    ref_intervals = pd.DataFrame([
        {"clip_id": "a", "event": "pause", "start_s": 2.0, "end_s": 2.5},
        {"clip_id": "b", "event": "pause", "start_s": 5.0, "end_s": 5.6},
        {"clip_id": "a", "event": "noise", "start_s": 0.0, "end_s": 8.0},
    ])
    generations = pd.DataFrame([{"system": s, "corpus": "librimix", "clip_id": c, "rung": r, "seed": seed}
                                for s in ("estimator", "model") for c in ("a", "b") for r in ("P2_named", "P5_intervals")
                                for seed in (0, 1)])
    claims = _claims([
        ("model", "librimix", "a", "P5_intervals", 0, "pause", 2.1, 2.1, True),   # a point inside: hit
        ("model", "librimix", "b", "P5_intervals", 0, "pause", 1.0, 1.5, False),  # a miss and a false alarm
        ("model", "librimix", "b", "P5_intervals", 1, "pause", 5.0, 5.6, False),  # seed 1: not the pooled one
        ("estimator", "librimix", "a", "P5_intervals", 0, "pause", 2.0, 2.5, False),
        ("estimator", "librimix", "b", "P5_intervals", 0, "pause", 5.1, 5.6, False),
    ])
    table, pairs = interval_table(generations, claims, ref_intervals, ref_lists, IntervalScoring(chance_draws=20))
    assert set(table["rung"]) == {"P5_intervals"}  # no interval stated at P2_named
    model = table.set_index(["system", "event"]).loc["model"]
    assert model.loc["pause", "n_clips"] == 2 and model.loc["pause", "n_reference"] == 2
    assert model.loc["pause", "n_stated"] == 2
    assert model.loc["pause", "event_f1"] == pytest.approx(2 * 1 / (2 * 1 + 1 + 1))
    assert model.loc["pause", "estimator_event_f1"] == 1.0
    assert model.loc["noise", "n_clips"] == 1  # clip b has no noise reference list
    assert model.loc["noise", "event_f1"] == 0.0 and model.loc["overlap", "n_reference"] == 0
    assert math.isnan(model.loc["overlap", "event_f1"])  # no reference and nothing stated
    assert 0 <= model.loc["pause", "chance_event_f1"] <= 1 and model.loc["pause", "chance_event_se"] >= 0
    assert set(pairs["source"]) == {"reference", "stated"} and (pairs["seed"] == 0).all()
    metrics = table3_metrics(table)
    assert metrics["estimator"]["cells"] == 3 and metrics["model"]["event_f1"] is not None
