"""The ``decomposition`` stage's computation: frame profiles, identification scores, and one drawn mixture.

Inputs are the reference system's decomposition (``data/predict/decomposition.parquet``: ``train_seed``,
``clip_id``, ``quantity``, ``token``, ``term``) and the corpus manifest (the sources each profile is read
on). The diagnostic runs on the Libri2Mix-style **test mixtures**, the clips whose references are not all in
what the model hears (the paper: "identify their own mixture"). See
:mod:`acousticlaim.selective.decomposition` for the definitions and
:mod:`acousticlaim.selective.frame_profiles` for the profiles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from acousticlaim.executor import check_failures, map_clips, rejected_failures_path
from acousticlaim.failures import Failure, write_failures
from acousticlaim.io import write_json, write_parquet
from acousticlaim.params import param, settings_from
from acousticlaim.quantities import SCORED_KEYS
from acousticlaim.selective.decomposition import even_split_multiples, identification, ramp_dropped
from acousticlaim.selective.frame_profiles import PROFILE_OF, STAGE, ProfileJob, clip_profiles
from acousticlaim.selective.slots import InputError, read_table

DECOMPOSITION_COLUMNS = ("train_seed", "clip_id", "quantity", "token", "term")


@dataclass(frozen=True)
class DiagnosticConfig:
    """The ``decomposition:`` group of ``params.yaml``."""

    n_candidates: int = param(20, ge=2)  # a mixture's decomposition picks among its own profile and others
    ramp_limit: float = param(0.7, gt=0, le=1)  # drop a quantity whose frame-index ramp reaches this share
    token_s: float = param(0.16, gt=0)  # the reference system's prefix-token hop (one token per 160 ms)
    seed: int = param(0, ge=0)  # candidate draws and the drawn mixture of Fig. 2
    train_seed: int | None = param(None, ge=0)  # the training seed read; None = the lowest present

    @classmethod
    def from_params(cls, params: dict) -> "DiagnosticConfig":
        return settings_from(cls, params, "decomposition")


@dataclass
class DiagnosticResult:
    profiles: pd.DataFrame  # clip_id, profile, token, value
    identification: pd.DataFrame  # one row per (train_seed, quantity)
    drawn: pd.DataFrame  # the drawn mixture: quantity, token, t_start_s, term, even_multiple, profile, profile_value
    failures: list[Failure] = field(default_factory=list)
    metrics: dict = field(default_factory=dict)


def check_decomposition(frame: pd.DataFrame, source: str = "decomposition") -> pd.DataFrame:
    """Validate the decomposition table (columns, no duplicated token, finite terms)."""
    missing = [c for c in DECOMPOSITION_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{source}: missing column(s) {', '.join(missing)}")
    key = ["train_seed", "clip_id", "quantity", "token"]
    dup = frame[frame.duplicated(key, keep=False)]
    if not dup.empty:
        raise InputError(f"{source}: {len(dup)} rows repeat a (train_seed, clip_id, quantity, token), e.g. "
                         f"{dup.iloc[0][key].to_dict()}")
    bad = frame[~np.isfinite(frame["term"].astype(float))]
    if not bad.empty:
        raise InputError(f"{source}: {len(bad)} non-finite term(s), e.g. {bad.iloc[0][key].to_dict()}")
    return frame


def term_vectors(decomposition: pd.DataFrame) -> dict[tuple[Any, str, str], np.ndarray]:
    """``(train_seed, clip_id, quantity) -> terms ordered by token``; a gap in the token index is an error."""
    out = {}
    ordered = decomposition.sort_values(["train_seed", "clip_id", "quantity", "token"])
    for key, part in ordered.groupby(["train_seed", "clip_id", "quantity"], sort=False):
        tokens = part["token"].to_numpy()
        if tokens[0] != 0 or np.any(np.diff(tokens) != 1):
            raise InputError(f"decomposition: tokens of {key} are not 0..P-1 without gaps")
        out[key] = part["term"].to_numpy(dtype=float)
    return out


def _check_token_grid(n_tokens: dict[str, int], manifest: pd.DataFrame, token_s: float) -> None:
    """The decomposition's token count must match the clip duration at ``token_s`` (within two tokens)."""
    if "duration_s" not in manifest.columns:
        return
    durations = dict(zip(manifest["clip_id"], manifest["duration_s"]))
    gaps = [abs(n - float(durations[c]) / token_s) for c, n in n_tokens.items()
            if c in durations and np.isfinite(float(durations[c]))]
    if gaps and float(np.median(gaps)) > 2.0:
        raise InputError(
            f"decomposition: clips carry a median {np.median(list(n_tokens.values())):.0f} tokens, which does not "
            f"match their duration at decomposition.token_s={token_s} s (median gap {np.median(gaps):.1f} tokens)"
        )


def profile_jobs(
    manifest: pd.DataFrame, clips: list[str], n_tokens: dict[str, int], token_s: float,
    resolve: Callable[[str], Path | None], overlap: dict | None = None,
) -> list[ProfileJob]:
    rows = manifest.set_index("clip_id").loc[clips]
    jobs = []
    for clip, row in rows.iterrows():
        # absolute: a job runs in whatever working directory its worker has
        paths = {k: resolve(row.get(k)) for k in ("audio_path", "s1_path", "s2_path", "noise_path")}
        paths = {k: Path(p).absolute() if p else None for k, p in paths.items()}
        jobs.append(ProfileJob(
            clip_id=str(clip), audio_path=str(paths["audio_path"]) if paths["audio_path"] else None,
            s1_path=str(paths["s1_path"]) if paths["s1_path"] else "",
            s2_path=str(paths["s2_path"]) if paths["s2_path"] else None,
            noise_path=str(paths["noise_path"]) if paths["noise_path"] else None,
            n_tokens=n_tokens[clip], token_s=token_s, overlap=dict(overlap or {}),
        ))
    return jobs


def run_diagnostic(
    decomposition: pd.DataFrame,
    manifest: pd.DataFrame,
    resolve: Callable[[str], Path | None],
    cfg: DiagnosticConfig,
    executor: dict | None = None,
    overlap: dict | None = None,
) -> DiagnosticResult:
    """Profiles of every test mixture, identification scores per training seed and quantity, the drawn mixture.

    ``overlap`` holds the ``references`` stage's overlap settings (``min_overlap_s``, ``vad``,
    ``torch_threads``), so the F0 profile drops the windows the Masked F0 reference dropped.
    """
    check_decomposition(decomposition)
    for col in ("clip_id", "split", "kind", "audio_path", "s1_path"):
        if col not in manifest.columns:
            raise InputError(f"manifest: missing column {col}")
    mixtures = set(manifest.loc[(manifest["split"] == "test") & (manifest["kind"] == "mixture"), "clip_id"])
    dec = decomposition[decomposition["clip_id"].isin(mixtures) & decomposition["quantity"].isin(SCORED_KEYS)]
    if dec.empty:
        raise InputError("decomposition: no rows on the test mixtures of the manifest")
    seeds = sorted(dec["train_seed"].unique())
    headline = seeds[0] if cfg.train_seed is None else cfg.train_seed
    if headline not in seeds:
        raise ValueError(f"decomposition.train_seed={cfg.train_seed} is not among the seeds present: {seeds}")
    terms = term_vectors(dec)
    clips = sorted(dec["clip_id"].unique())
    n_tokens = dec.groupby("clip_id")["token"].max().add(1).to_dict()
    _check_token_grid(n_tokens, manifest, cfg.token_s)

    results = map_clips(clip_profiles, profile_jobs(manifest, clips, n_tokens, cfg.token_s, resolve, overlap),
                        executor=executor, label="frame profiles")
    failures = [f for r in results for f in r.failures]
    profiles = {r.clip_id: r.profiles for r in results}

    rows = []
    for seed in seeds:
        for k, quantity in enumerate(SCORED_KEYS):
            kind = PROFILE_OF[quantity]
            row = {"train_seed": seed, "quantity": quantity, "profile": kind or "", "n_clips": 0, "rate": np.nan,
                   "score": np.nan, "score_se": np.nan, "own_agreement": np.nan, "own_agreement_se": np.nan, "ramp_agreement": np.nan,
                   "ramp_ratio": np.nan, "scored": False, "reason": ""}
            if kind is None:
                row["reason"] = "no time-resolved reference"
                rows.append(row)
                continue
            have = [c for c in clips if (seed, c, quantity) in terms and kind in profiles.get(c, {})]
            row["n_clips"] = len(have)
            if len(have) < cfg.n_candidates:
                row["reason"] = f"{len(have)} clips with a decomposition and a profile, fewer than {cfg.n_candidates} candidates"
                rows.append(row)
                continue
            res = identification(
                [terms[(seed, c, quantity)] for c in have], [profiles[c][kind] for c in have],
                n_candidates=cfg.n_candidates, rng=np.random.default_rng([cfg.seed, int(seed), k]),
            )
            row.update(rate=res.rate, score=res.score, score_se=res.score_se, own_agreement=res.own_agreement,
                       own_agreement_se=res.own_agreement_se, ramp_agreement=res.ramp_agreement,
                       ramp_ratio=res.ramp_ratio)
            if ramp_dropped(res, cfg.ramp_limit):
                row["reason"] = (f"frame-index ramp reaches {res.ramp_ratio:.0%} of the best agreement "
                                 f"(limit {cfg.ramp_limit:.0%})")
            else:
                row["scored"] = True
            rows.append(row)
    ident = pd.DataFrame(rows)

    drawn = _drawn_mixture(terms, profiles, clips, headline, cfg)
    head = ident[ident["train_seed"] == headline]
    metrics = {
        "train_seed": int(headline), "n_candidates": cfg.n_candidates, "ramp_limit": cfg.ramp_limit,
        "mixtures": len(clips), "profile_failures": len(failures),
        "identification_score": {r.quantity: (float(r.score) if np.isfinite(r.score) else None) for r in head.itertuples()},
        "scored_quantities": [r.quantity for r in head.itertuples() if r.scored],
        "above_chance": [r.quantity for r in head.itertuples() if r.scored and r.score - 1.0 > 2 * r.score_se],
        "drawn_clip": drawn["clip_id"].iloc[0] if not drawn.empty else None,
        "drawn_even_split_range": (
            [float(drawn["even_multiple"].min()), float(drawn["even_multiple"].max())] if not drawn.empty else None
        ),
    }
    profile_rows = [
        pd.DataFrame({"clip_id": c, "profile": kind, "token": np.arange(v.size, dtype=np.int32), "value": v})
        for c, kinds in profiles.items() for kind, v in kinds.items()
    ]
    profile_table = (pd.concat(profile_rows, ignore_index=True) if profile_rows
                     else pd.DataFrame(columns=["clip_id", "profile", "token", "value"]))
    return DiagnosticResult(profile_table, ident, drawn, failures, metrics)


def _drawn_mixture(terms, profiles, clips, seed, cfg: DiagnosticConfig) -> pd.DataFrame:
    """Fig. 2's data: one mixture drawn at random among those with every profile, all ten quantities."""
    kinds = {k for k in PROFILE_OF.values() if k}
    eligible = [c for c in clips if kinds <= set(profiles.get(c, {}))
                and all((seed, c, q) in terms for q in SCORED_KEYS)]
    if not eligible:
        return pd.DataFrame(columns=["clip_id", "quantity", "token", "t_start_s", "term", "even_multiple",
                                     "profile", "profile_value"])
    clip = eligible[int(np.random.default_rng([cfg.seed, 7]).integers(len(eligible)))]
    parts = []
    for q in SCORED_KEYS:
        t = terms[(seed, clip, q)]
        kind = PROFILE_OF[q]
        prof = profiles[clip][kind][: t.size] if kind else np.full(t.size, np.nan)
        prof = np.pad(prof, (0, t.size - prof.size), constant_values=np.nan)
        parts.append(pd.DataFrame({
            "clip_id": clip, "quantity": q, "token": np.arange(t.size), "t_start_s": np.arange(t.size) * cfg.token_s,
            "term": t, "even_multiple": even_split_multiples(t), "profile": kind or "", "profile_value": prof,
        }))
    return pd.concat(parts, ignore_index=True)


def decomposition_stage(
    decomposition_path: str | Path,
    manifest_path: str | Path,
    out_dir: str | Path,
    metrics_path: str | Path,
    params: dict,
    resolve: Callable[[str], Path | None],
    executor: dict | None = None,
    overlap: dict | None = None,
) -> DiagnosticResult:
    """The ``decomposition`` DVC stage: profiles, identification scores, the drawn mixture, failures, metrics."""
    cfg = DiagnosticConfig.from_params(params)
    decomposition = read_table(decomposition_path, DECOMPOSITION_COLUMNS)
    manifest = read_table(manifest_path, ("clip_id", "split", "kind", "audio_path", "s1_path"))
    try:
        result = run_diagnostic(decomposition, manifest, resolve, cfg, executor, overlap)
    except InputError as exc:
        raise InputError(f"{decomposition_path}: {exc}") from exc
    out_dir = Path(out_dir)
    # a profile an instrument leaves undefined on one mixture is recorded; a mixture failed when it gave none
    profiled = set(result.profiles["clip_id"].astype(str))
    check_failures(STAGE, n_clips=int(result.metrics["mixtures"]), n_rows=len(result.profiles),
                   failures=[f for f in result.failures if str(f.clip_id) not in profiled], executor=executor,
                   rejected_failures=rejected_failures_path(out_dir))
    write_parquet(out_dir / "profiles.parquet", result.profiles)
    write_parquet(out_dir / "identification.parquet", result.identification)
    write_parquet(out_dir / "drawn.parquet", result.drawn)
    write_failures(out_dir / "failures.parquet", result.failures)
    write_json(metrics_path, result.metrics)
    return result


__all__ = ["DiagnosticConfig", "DiagnosticResult", "run_diagnostic", "decomposition_stage", "check_decomposition", "STAGE"]
