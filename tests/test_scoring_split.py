"""Table 2 split by manifest columns (RSA-Bench soundscape and K) on planted claims with a known answer."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from acousticlaim.report.tables import render_split
from acousticlaim.scoring.config import ScoringConfig
from acousticlaim.scoring.split import score_split, split_groups
from tests.test_scoring_stage import ROOT, run_stage


def planted(tmp, n_per_group: int = 40):
    """Pasture claims track the SRMR reference (noise s.d. 1 against 3); classroom claims are noise alone."""
    rng = np.random.default_rng(5)
    rows, refs, claims, gens = [], [], [], []
    for scape, k in (("pasture", 2), ("classroom", 2)):
        for i in range(n_per_group):
            clip = f"{scape}{i}-a-0_{i}-b-0_{scape}_k{k}"
            rows.append({"clip_id": clip, "kind": "mixture", "speaker_1": f"s{i % 8}", "scene_soundscape": scape, "scene_k": k})
            truth = float(rng.normal(10, 3))
            refs.append({"clip_id": clip, "quantity": "srmr", "value": truth, "defined": True, "reason": "", "tier": "",
                         "signal": "", "half1": np.nan, "half2": np.nan})
            stated = truth + rng.normal(0, 1) if scape == "pasture" else float(rng.normal(10, 3))
            gens.append({"system": "panelist", "corpus": "librimix", "clip_id": clip, "rung": "P2_named", "seed": 0})
            claims.append({"system": "panelist", "corpus": "librimix", "clip_id": clip, "rung": "P2_named", "seed": 0,
                           "quantity": "srmr", "value": round(stated, 3), "unit_text": "", "start": 0, "end": 4})
    rows.append({"clip_id": "x_s1clean", "kind": "twin", "speaker_1": "s0", "scene_soundscape": "clean", "scene_k": 0})
    paths = {name: tmp / f"{name}.parquet" for name in ("manifest", "references", "claims", "generations")}
    for name, frame in (("manifest", rows), ("references", refs), ("claims", claims), ("generations", gens)):
        pd.DataFrame(frame).to_parquet(paths[name])
    return paths


def test_split_groups_are_the_mixtures_per_value():
    manifest = pd.DataFrame({"clip_id": ["a", "b", "c", "c_s1clean"], "kind": ["mixture"] * 3 + ["twin"],
                             "scene_soundscape": ["pasture", "outdoors", "pasture", "pasture"], "scene_k": [1, 3, 1, 1]})
    groups = split_groups(manifest, ("scene_soundscape", "scene_k"))
    assert groups == {("outdoors", 3): {"b"}, ("pasture", 1): {"a", "c"}}
    with pytest.raises(ValueError, match="missing column.s. scene_k"):
        split_groups(manifest.drop(columns="scene_k"), ("scene_k",))
    with pytest.raises(ValueError, match="scene_k are empty on every mixture"):
        split_groups(manifest.assign(scene_k=None), ("scene_k",))


def test_a_tracking_group_clears_the_bar_and_a_noise_group_does_not(tmp_path):
    paths = planted(tmp_path)
    config = ScoringConfig(split_by=("scene_soundscape", "scene_k"))
    table, counts, empty = score_split(pd.read_parquet(paths["claims"]), pd.read_parquet(paths["references"]),
                                       pd.read_parquet(paths["generations"]), pd.read_parquet(paths["manifest"]), config)
    md = render_split(table, config, empty)
    assert empty == []
    srmr = table[(table.quantity == "srmr") & (table.system == "panelist")].set_index("group")
    assert srmr.loc["scene_soundscape=pasture, scene_k=2", "rho"] > 0.8
    assert abs(srmr.loc["scene_soundscape=classroom, scene_k=2", "rho"]) < 0.4
    assert srmr.loc["scene_soundscape=pasture, scene_k=2", "n"] == 40
    assert counts["scene_soundscape=pasture, scene_k=2"]["over_bar"] == 1
    assert counts["scene_soundscape=classroom, scene_k=2"]["over_bar"] == 0
    assert "| scene_soundscape=pasture, scene_k=2 |" in md and "## panelist" in md


def test_the_stage_writes_the_split_and_says_when_there_is_none(tmp_path):
    paths = planted(tmp_path)
    group = yaml.safe_load((ROOT / "params.yaml").read_text())["scores"]
    inputs = {"references.parquet": paths["references"], "claims.parquet": paths["claims"],
              "generations.parquet": paths["generations"], "predictions.parquet": tmp_path / "absent.parquet",
              "manifest.parquet": paths["manifest"], "params.yaml": tmp_path / "params.yaml"}
    inputs["params.yaml"].write_text(yaml.safe_dump({"scores": group}))
    run_stage(tmp_path, inputs)
    assert "No split configured" in (tmp_path / "reports" / "table2_split.md").read_text()
    assert "table2_split" not in json.loads((tmp_path / "metrics" / "scores.json").read_text())

    inputs["params.yaml"].write_text(yaml.safe_dump({"scores": {**group, "split_by": ["scene_soundscape"]}}))
    run_stage(tmp_path, inputs)
    split = pd.read_csv(tmp_path / "reports" / "table2_split.csv")
    assert set(split.group) == {"scene_soundscape=pasture", "scene_soundscape=classroom"}
    metrics = json.loads((tmp_path / "metrics" / "scores.json").read_text())
    assert metrics["table2_split"]["scene_soundscape=pasture"]["over_bar"] == 1
