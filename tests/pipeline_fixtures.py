"""A temporary copy of the project, with params shrunk so `dvc repro` runs in seconds to minutes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

# Per-stage parameter overrides for the tiny end-to-end pipeline; each stage adds its own group here.
TINY_PARAMS: dict[str, dict] = {
    "executor": {"kind": "local", "workers": 2},
    "corpus": {"n_train": 6, "n_test": 4, "n_speakers_train": 4, "n_speakers_test": 3, "n_rooms": 2,
               "rt60_s": [0.2, 0.4]},
    "generations": {"systems": ["estimator", "constant"],
                    "sampling": {"seeds": [0, 1], "clips_per_seed": 3, "split": "test", "kinds": ["mixture", "clip"]}},
    # The reference system (SPEC §5): one seed of a very small tiny system, a few steps.
    "features": {"workers": 2},
    "train": {"seeds": [0], "threads": 2, "system": {"compressor_channels": 16, "adapter_heads": 2},
              "decoder": {"tiny": {"hidden_size": 32, "intermediate_size": 64, "num_attention_heads": 2,
                                   "num_key_value_heads": 1, "head_dim": 16}, "pretrain_steps": 10},
              "optim": {"epochs": 2, "batch_size": 8, "lm_clips_per_step": 2, "warmup_steps": 2},
              "ridge": {"alphas": [1.0, 100.0], "folds": 2}},
    "predict": {"max_new_tokens": 40},
    # Withholding on the tiny test split (4 mixtures): two residual-ridge folds, few resamples.
    "calib": {"folds": 2, "bootstrap": 50, "random_draws": 20},
}


def run(cmd: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "ACOUSTICLAIM_NO_PROGRESS": "1", "DVC_NO_ANALYTICS": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def project_copy(dest: Path, overrides: dict[str, dict] | None = None) -> Path:
    """Copy the tracked project files (and the built parser) into ``dest`` as a fresh git+DVC repo."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for rel in filter(None, files.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    for so in (ROOT / "acousticlaim").glob("_parser*.so"):
        shutil.copy2(so, dest / "acousticlaim" / so.name)
    params = yaml.safe_load((dest / "params.yaml").read_text())
    for group, values in {**TINY_PARAMS, **(overrides or {})}.items():
        params.setdefault(group, {}).update(values)
    (dest / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run(["git", "init", "-q"], dest)
    run(["dvc", "config", "core.analytics", "false"], dest)
    run(["git", "add", "-A"], dest)
    run(["git", "commit", "-qm", "fixture"], dest)
    return dest
