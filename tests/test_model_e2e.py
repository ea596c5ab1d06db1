"""End to end on the embedded synthetic corpus, at a few clips: corpus → references → features → train → predict.

The whole chain runs through the library functions the DVC stages call, at a size that keeps the suite
fast; the figures of the full default (nMAE per quantity, time per epoch) are measured by the stages and
``benchmarks/bench_model_tiny.py``, not here.
"""

import json

import numpy as np
import pandas as pd
import pytest

from acousticlaim.corpus.build import build_corpus
from acousticlaim.instruments.references import build_references
from acousticlaim.model.features import extract_features
from acousticlaim.model.run import PREDICTION_COLUMNS, run_prediction, run_training
from acousticlaim.quantities import SCORED_KEYS
from tests.corpus_fixtures import tiny_corpus_params

pytestmark = pytest.mark.slow

TRAIN_PARAMS = {
    "seeds": [0],
    "threads": 1,
    "system": {"compressor_channels": 16, "adapter_heads": 2},
    "decoder": {"tiny": {"hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 2,
                         "num_key_value_heads": 1, "head_dim": 16}, "pretrain_steps": 10},
    "optim": {"epochs": 2, "batch_size": 4, "lm_clips_per_step": 2, "warmup_steps": 2},
    "ridge": {"alphas": [1.0, 100.0], "folds": 2},
}
PREDICT_PARAMS = {"threads": 1, "batch_size": 8, "max_new_tokens": 40, "generate_splits": ["test"],
                  "decomposition_splits": ["test"], "rung": "P2_named", "prompt_version": "reference-v1"}


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    executor = {"kind": "local", "workers": 1}
    build_corpus(tiny_corpus_params(n_train=4, n_test=2), root / "corpus", executor=executor)
    build_references(root / "corpus", root / "references", {}, executor=executor)
    extract_features(root / "corpus" / "manifest.parquet", root / "features",
                     {"encoder": {"kind": "logmel"}, "max_duration_s": 10.0}, executor)
    paths = dict(manifest=root / "corpus" / "manifest.parquet", features=root / "features",
                 references=root / "references" / "references.parquet")
    train = run_training(TRAIN_PARAMS, 0, **paths, out=root / "train" / "seed_0", plots=root / "plots",
                         metrics=root / "metrics" / "train.json", progress=False)
    predict = run_prediction(PREDICT_PARAMS, [0], **paths, checkpoints=root / "train", out=root / "predict",
                             generations=root / "generations" / "reference.jsonl", metrics=root / "metrics" / "predict.json")
    return root, train, predict


def test_training_writes_checkpoint_losses_and_epoch_times(pipeline):
    root, train, _ = pipeline
    assert train["n_train_clips"] == 8 and train["epochs"] == 2 and len(train["seconds_per_epoch"]) == 2
    for name in ("system.json", "trainable.safetensors", "base_decoder.safetensors", "ridge/ridge.safetensors"):
        assert (root / "train" / "seed_0" / name).exists(), name
    losses = pd.read_csv(root / "plots" / "losses.csv")
    assert len(losses) == 2 * 2 and {"step", "loss", "head_loss", "lm_loss"} <= set(losses.columns)
    assert json.loads((root / "metrics" / "train.json").read_text())["seed"] == 0


def test_prediction_tables_follow_the_interface(pipeline):
    root, _, predict = pipeline
    manifest = pd.read_parquet(root / "corpus" / "manifest.parquet")
    pred = pd.read_parquet(root / "predict" / "predictions.parquet")
    assert list(pred.columns) == PREDICTION_COLUMNS
    assert set(pred["system"]) == {"reference", "ridge"}
    for system, frame in pred.groupby("system"):
        assert len(frame) == len(manifest) * len(SCORED_KEYS)
        assert np.isfinite(frame["value"]).all()
    assert pred.loc[pred["system"] == "ridge", "logvar"].isna().all()
    assert np.isfinite(pred.loc[pred["system"] == "reference", "logvar"]).all()
    dec = pd.read_parquet(root / "predict" / "decomposition.parquet")
    assert list(dec.columns) == ["train_seed", "clip_id", "quantity", "token", "term"]
    test_ids = set(manifest.loc[manifest["split"] == "test", "clip_id"])
    assert set(dec["clip_id"]) == test_ids
    ref = pred[pred["system"] == "reference"].set_index(["clip_id", "quantity"])["value"]
    sums = dec.groupby(["clip_id", "quantity"])["term"].sum()
    assert np.allclose(sums.to_numpy(), ref.loc[sums.index].to_numpy(), rtol=1e-12, atol=1e-9)
    assert set(predict["nmae_test"]) == {"reference", "ridge"}
    assert predict["n_test_clips_with_a_training_speaker"] == 0


def test_generations_follow_the_panel_schema(pipeline):
    root, _, predict = pipeline
    lines = (root / "generations" / "reference.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    manifest = pd.read_parquet(root / "corpus" / "manifest.parquet")
    assert len(records) == int((manifest["split"] == "test").sum()) == predict["n_generations"]
    for r in records:
        assert {"system", "corpus", "clip_id", "rung", "seed", "text", "prompt_version", "n_tokens", "truncated",
                "seconds"} <= set(r)
        assert r["system"] == "reference" and r["corpus"] == "librimix" and r["rung"] == "P2_named"
        assert 0 < r["n_tokens"] <= 40 and isinstance(r["truncated"], bool)
        assert "<|" not in r["text"]
