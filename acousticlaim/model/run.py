"""The `train` and `predict` stages as library functions (the scripts under ``stages/`` only parse paths).

``run_training`` trains one seed on the training split and fits the matched ridge on the same clips;
``run_prediction`` runs every seed's checkpoint and ridge over every clip with cached features and writes
the prediction tables, readout A's generations and the held-out figures.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd
import torch
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from acousticlaim.failures import write_failures
from acousticlaim.io import atomic_path, write_csv, write_json, write_parquet
from acousticlaim.model.batching import feature_dim, label_matrix, pooled_matrix
from acousticlaim.model.checkpoint import load_system, save_system
from acousticlaim.model.data import build_clip_table, read_reference_labels
from acousticlaim.model.decoder import DecoderSpec
from acousticlaim.model.evaluate import decline_rates, nmae_by_quantity
from acousticlaim.model.predict import predict_clips
from acousticlaim.model.ridge import RidgeProbe, fit_ridge_probe
from acousticlaim.model.settings import PredictSettings, TrainSettings
from acousticlaim.model.system import SystemSpec
from acousticlaim.model.train import TrainSpec, train_reference_system
from acousticlaim.panel.records import validate_record
from acousticlaim.params import settings_from
from acousticlaim.quantities import SCORED_KEYS

SYSTEM_REFERENCE = "reference"
SYSTEM_RIDGE = "ridge"
PREDICTION_COLUMNS = ["system", "train_seed", "clip_id", "split", "kind", "corpus", "quantity", "value", "logvar"]


def _progress(enabled: bool = True) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(), TimeRemainingColumn(),
        disable=not enabled or os.environ.get("ACOUSTICLAIM_NO_PROGRESS") == "1",
    )


def _subsample(table: pd.DataFrame, max_clips: int | None) -> pd.DataFrame:
    """At most ``max_clips`` clips, whole mixture/twin pairs kept together, the same subset for every seed."""
    if not max_clips or len(table) <= max_clips:
        return table
    groups = table["clip_id"].str.replace(r"_s1clean$", "", regex=True)
    order = np.random.default_rng(0).permutation(sorted(groups.unique()))
    keep, count = set(), 0
    sizes = groups.value_counts()
    for g in order:
        if count + sizes[g] > max_clips:
            break
        keep.add(g)
        count += sizes[g]
    return table[groups.isin(keep).to_numpy()].reset_index(drop=True)


def run_training(
    params: dict[str, Any], seed: int, *, manifest: str | Path, features: str | Path, references: str | Path,
    out: str | Path, plots: str | Path, metrics: str | Path, progress: bool = True,
) -> dict[str, Any]:
    """Train seed ``seed`` of the reference system and its matched ridge (the ``train`` group of params)."""
    params = asdict(settings_from(TrainSettings, params, "train"))
    if params["threads"]:
        torch.set_num_threads(int(params["threads"]))
    out, plots = Path(out), Path(plots)
    table, failures = build_clip_table(
        manifest, features, references, splits=["train"], corpora=list(params["corpora"]), stage="train"
    )
    if table.empty:
        raise ValueError(f"no training clips: every clip of the train split failed (see {out / 'failures.parquet'})")
    table = _subsample(table, params["max_clips"])
    system_spec = SystemSpec(
        encoder_dim=feature_dim(table), **params["system"], decoder=DecoderSpec.from_params(params["decoder"]),
    )
    train_spec = TrainSpec.from_params(params["optim"])
    n_steps = train_spec.epochs * int(np.ceil(len(table) / train_spec.batch_size))
    t0 = time.perf_counter()
    with _progress(progress) as bar:
        pre = bar.add_task(f"seed {seed}: decoder text-only", total=system_spec.decoder.pretrain_steps if system_spec.decoder.is_tiny else 0, info="")
        main = bar.add_task(f"seed {seed}: training", total=n_steps, info="")

        def on_pre(step: int, loss: float) -> None:
            bar.update(pre, completed=step + 1, info=f"lm {loss:.3f}")

        steps_per_epoch = max(1, n_steps // max(1, train_spec.epochs))
        epoch_start = [time.perf_counter()]

        def on_step(epoch: int, step: int, row: dict) -> None:
            bar.update(main, completed=step + 1, info=f"epoch {epoch + 1} head {row['head_loss']:.3f} lm {row['lm_loss']:.3f}")
            if (step + 1) % steps_per_epoch == 0:  # one plain line per epoch, for logs without a terminal
                now = time.perf_counter()
                print(f"seed {seed} epoch {epoch + 1}/{train_spec.epochs}: head {row['head_loss']:.3f} "
                      f"lm {row['lm_loss']:.3f} ({now - epoch_start[0]:.1f} s)", flush=True)
                epoch_start[0] = now

        result = train_reference_system(table, system_spec, train_spec, seed, on_step=on_step, on_pretrain_step=on_pre)
    train_seconds = time.perf_counter() - t0
    save_system(result.system, out, seed, extra={"epoch_seconds": result.epoch_seconds, "n_train_clips": len(table)})
    write_csv(out / "pretrain_losses.csv", pd.DataFrame({"step": range(len(result.pretrain_losses)), "lm_loss": result.pretrain_losses}))
    write_csv(plots / "losses.csv", result.history)

    ridge_params = params["ridge"]
    t1 = time.perf_counter()
    probe = fit_ridge_probe(
        pooled_matrix(table), label_matrix(table), table["group"].to_numpy(),
        alphas=list(ridge_params["alphas"]), n_folds=ridge_params["folds"], seed=seed,
    )
    probe.save(out / "ridge")
    ridge_seconds = time.perf_counter() - t1
    write_failures(out / "failures.parquet", failures)
    last = result.history[result.history["epoch"] == result.history["epoch"].max()]
    summary = {
        "seed": seed,
        "n_train_clips": len(table),
        "n_failures": len(failures),
        "epochs": train_spec.epochs,
        "steps": int(len(result.history)),
        "seconds_per_epoch": result.epoch_seconds,
        "seconds_per_epoch_mean": float(np.mean(result.epoch_seconds)) if result.epoch_seconds else 0.0,
        "train_seconds": train_seconds,
        "ridge_seconds": ridge_seconds,
        "threads": torch.get_num_threads(),
        "final_head_loss": float(last["head_loss"].mean()),
        "final_lm_loss": float(last["lm_loss"].mean()),
        "ridge_alpha": dict(zip(SCORED_KEYS, probe.alpha.tolist())),
    }
    write_json(metrics, summary)
    return summary


def _write_jsonl(path: str | Path, records: list[dict]) -> None:
    with atomic_path(path) as tmp:
        with tmp.open("w") as fh:
            for i, r in enumerate(records):
                validate_record(r, f"{path} record {i}")  # the one generation-record schema
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def run_prediction(
    params: dict[str, Any], seeds: Sequence[int], *, manifest: str | Path, features: str | Path,
    references: str | Path | None, checkpoints: str | Path, out: str | Path, generations: str | Path,
    metrics: str | Path,
) -> dict[str, Any]:
    """Readouts A and B of every seed, and the ridge, on every clip; held-out figures on the test split."""
    params = asdict(settings_from(PredictSettings, params, "predict"))
    if params["threads"]:
        torch.set_num_threads(int(params["threads"]))
    out = Path(out)
    if not seeds:
        raise ValueError("train.seeds is empty: there is no checkpoint to predict with")
    table, failures = build_clip_table(manifest, features, None, stage="predict")
    if table.empty:
        raise ValueError("no clip has cached features: nothing to predict")
    pooled = pooled_matrix(table)
    gen_splits = set(params["generate_splits"])
    dec_splits = set(params["decomposition_splits"])
    generate = table["split"].isin(gen_splits).to_numpy()
    decompose = table["split"].isin(dec_splits).to_numpy()
    meta = table[["clip_id", "split", "kind", "corpus"]]
    pred_frames, dec_frames, records = [], [], []
    per_seed_gens: dict[int, list[dict]] = {}
    with _progress() as bar:
        task = bar.add_task("predict", total=len(seeds), info="")
        for seed in seeds:
            folder = Path(checkpoints) / f"seed_{seed}"
            system, _ = load_system(folder, device=params["device"])
            readouts = predict_clips(
                system, table, batch_size=params["batch_size"], decompose=decompose,
                generate=generate, max_new_tokens=params["max_new_tokens"],
            )
            pred = readouts.predictions.merge(meta, on="clip_id", how="left")
            pred.insert(0, "train_seed", seed)
            pred.insert(0, "system", SYSTEM_REFERENCE)
            pred_frames.append(pred[PREDICTION_COLUMNS])
            dec = readouts.decomposition
            dec.insert(0, "train_seed", seed)
            dec_frames.append(dec)
            probe = RidgeProbe.load(folder / "ridge")
            ridge_values = probe.predict(pooled)
            q = len(SCORED_KEYS)
            ridge = pd.DataFrame({
                "system": SYSTEM_RIDGE, "train_seed": seed,
                "clip_id": np.repeat(meta["clip_id"].to_numpy(), q),
                "split": np.repeat(meta["split"].to_numpy(), q), "kind": np.repeat(meta["kind"].to_numpy(), q),
                "corpus": np.repeat(meta["corpus"].to_numpy(), q),
                "quantity": np.tile(np.array(SCORED_KEYS), len(meta)),
                "value": ridge_values.reshape(-1), "logvar": np.nan,
            })
            pred_frames.append(ridge[PREDICTION_COLUMNS])
            by_id = meta.set_index("clip_id")
            per_seed_gens[seed] = readouts.generations
            for g in readouts.generations:
                records.append({
                    "system": SYSTEM_REFERENCE, "corpus": by_id.loc[g["clip_id"], "corpus"], "clip_id": g["clip_id"],
                    "rung": params["rung"], "seed": int(seed), "train_seed": int(seed),
                    "text": g["text"], "prompt_version": params["prompt_version"],
                    "n_tokens": int(g["n_tokens"]), "truncated": bool(g["truncated"]), "seconds": float(g["seconds"]),
                    "split": by_id.loc[g["clip_id"], "split"], "kind": by_id.loc[g["clip_id"], "kind"],
                })
            bar.update(task, advance=1, info=f"seed {seed}")
    predictions = pd.concat(pred_frames, ignore_index=True)
    decomposition = pd.concat(dec_frames, ignore_index=True)
    write_parquet(out / "predictions.parquet", predictions)
    write_parquet(out / "decomposition.parquet", decomposition)
    write_failures(out / "failures.parquet", failures)
    _write_jsonl(generations, records)
    summary = held_out_summary(predictions, per_seed_gens, table, references)
    summary.update({"n_clips": len(table), "seeds": list(seeds), "n_generations": len(records), "n_failures": len(failures)})
    nmae_rows = summary.pop("nmae_rows", None)
    if nmae_rows:
        write_csv(out / "nmae.csv", pd.DataFrame(nmae_rows))
    write_json(metrics, summary)
    return summary


def held_out_summary(
    predictions: pd.DataFrame, generations: dict[int, list[dict]], table: pd.DataFrame, references: str | Path | None,
) -> dict[str, Any]:
    """nMAE per system and quantity on the test split (mean and s.d. over seeds) and readout A's decline rates."""
    summary: dict[str, Any] = {}
    overlap = dict(zip(table["clip_id"], table["overlap"]))
    kind = dict(zip(table["clip_id"], table["kind"]))
    summary["readout_a"] = {str(s): decline_rates(g, overlap, kind) for s, g in generations.items()}
    if references is None or not Path(references).exists():
        return summary
    labels = read_reference_labels(references)
    test = table[(table["split"] == "test") & (table["corpus"] == "librimix")]
    train_speakers = set(table.loc[table["split"] == "train", "group"])
    # speaker-disjoint evaluation: the target talkers of the test clips never occur in training
    summary["n_test_clips_with_a_training_speaker"] = int(test["group"].isin(train_speakers).sum())
    rows = []
    for subset, ids in (("all", test["clip_id"]), ("mixture", test.loc[test["kind"] == "mixture", "clip_id"]),
                        ("twin", test.loc[test["kind"] == "twin", "clip_id"])):
        for (system, seed), frame in predictions.groupby(["system", "train_seed"]):
            for q, v in nmae_by_quantity(frame, labels, list(ids)).items():
                rows.append({"system": system, "train_seed": int(seed), "subset": subset, "quantity": q, "nmae": v})
    nm = pd.DataFrame(rows)
    summary["nmae_rows"] = rows
    summary["nmae_test"] = {}
    for system, frame in nm[nm["subset"] == "all"].groupby("system"):
        agg = frame.groupby("quantity")["nmae"].agg(["mean", "std"])
        summary["nmae_test"][system] = {
            q: {"mean": float(agg.loc[q, "mean"]), "sd": float(agg.loc[q, "std"]) if len(frame["train_seed"].unique()) > 1 else 0.0}
            for q in SCORED_KEYS
        }
        summary["nmae_test"][system]["n_below_floor"] = int((agg["mean"] < 1).sum())
    return summary
