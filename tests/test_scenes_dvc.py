"""A scenes corpus (the RSA-Bench design, one sample's 17 conditions) through `dvc repro` to Table 2 split
by soundscape and K: corpus → references → generations → claims → scores."""

import pandas as pd
import pytest
import yaml

from tests.pipeline_fixtures import project_copy, run

pytestmark = pytest.mark.slow

KEEP = ("corpus", "references", "generations", "claims", "scores")


def test_design_corpus_through_the_pipeline_to_the_split_table(tmp_path):
    repo = project_copy(tmp_path / "project", overrides={
        "corpus": {"n_train": 1, "n_test": 1, "n_speakers_train": 2, "n_speakers_test": 2, "n_rooms": 1, "rt60_s": [0.2, 0.3],
                   "scenes": {"enabled": True, "mode": "design", "k": [1, 4],
                              "soundscapes": ["pasture", "extreme_weather", "classroom", "outdoors"],
                              "source_snr_db": 0.0, "events": {"floor_db": -30.0, "min_gap_s": 0.1}}},
        "generations": {"systems": ["constant"],
                        "sampling": {"seeds": [0], "clips_per_seed": 17, "split": "test", "kinds": ["mixture"]}},
        "scores": {"split_by": ["scene_soundscape", "scene_k"]},
    })
    # The reference system's stages are tested in test_pipeline_dvc; Table 1 waits without its predictions.
    dvc = yaml.safe_load((repo / "dvc.yaml").read_text())
    dvc["stages"] = {name: stage for name, stage in dvc["stages"].items() if name in KEEP}
    dvc["stages"]["scores"]["deps"].remove("data/predict/predictions.parquet")
    dvc.pop("plots", None)
    (repo / "dvc.yaml").write_text(yaml.safe_dump(dvc, sort_keys=False, allow_unicode=True))
    run(["git", "add", "-A"], repo)
    run(["git", "commit", "-qm", "scenes pipeline"], repo)

    run(["dvc", "repro"], repo)
    manifest = pd.read_parquet(repo / "data/corpus/manifest.parquet")
    mixtures = manifest[(manifest.kind == "mixture") & (manifest.split == "test")]
    assert len(mixtures) == 17 and set(mixtures.scene_k) == {0, 1, 2, 3, 4}
    assert pd.read_parquet(repo / "data/corpus/failures.parquet").empty
    events = pd.read_parquet(repo / "data/corpus/scene_events.parquet")
    assert set(events.clip_id) == set(manifest[manifest.scene_k > 0].clip_id)

    references = pd.read_parquet(repo / "data/references/references.parquet")
    assert set(mixtures.clip_id) <= set(references.clip_id)
    snr = references[references.quantity == "snr"].set_index("clip_id")
    clean = mixtures[mixtures.scene_soundscape == "clean"].clip_id.iloc[0]
    assert not snr.loc[clean, "defined"]  # no interference: the mixing SNR is undefined, with its reason
    one_source = mixtures[mixtures.scene_k == 1].clip_id
    assert snr.loc[one_source, "value"].to_numpy() == pytest.approx(0.0, abs=0.1)  # Step 3: at the speech's RMS

    split = pd.read_csv(repo / "reports/table2_split.csv")
    assert {"scene_soundscape=clean, scene_k=0", "scene_soundscape=pasture, scene_k=4"} <= set(split.group)
    assert "## constant" in (repo / "reports/table2_split.md").read_text()
