"""From the claims table to one stated value per (system, corpus, rung, quantity, clip).

Two steps, each a rule the paper and the released scorer fix:

0. **Only claims in the canonical unit are scored.** Shimmer stated in dB is kept by the parser with
   unit dB and is not scored as percent (``SPEC.md`` §1): a claim whose ``unit`` (when the claims
   table carries one) differs from the registry's canonical unit, or, without that column, a shimmer
   claim whose unit as written is dB, is left out.
1. **One value per generation.** A quantity stated twice in one text keeps the last value
   (``../shared/SPEC.md`` §1); when the claims table carries several rows for the same quantity in one
   generation, the row that starts last in the text is kept.
2. **Pooling the sampling seeds by clip.** Each sampling seed draws its own sample of clips, and a clip
   drawn by several seeds is one clip: ``first`` keeps the value of the lowest seed that states one (the
   released scorer's rule; greedy decoding makes a clip's text the same in every seed that draws it,
   almost always), ``mean`` averages the values of the seeds that state one.

The corpus a cell is read on is the corpus *condition*: ``librimix`` mixtures, their clean ``twin`` s
(clip id ``<mixture>_s1clean``, carried in the claims table under corpus ``librimix``), or ``ami``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acousticlaim.quantities import QUANTITIES, Corpus

TWIN_SUFFIX = "_s1clean"
CLAIM_COLUMNS = ("system", "corpus", "clip_id", "rung", "seed", "quantity", "value")
GENERATION_KEY = ("system", "corpus", "clip_id", "rung", "seed")
CELL_KEY = ("system", "corpus", "rung", "quantity")


def corpus_condition(corpus: str, clip_id: str) -> str:
    """``twin`` for a LibriMix clip whose id carries the twin suffix, else the corpus itself."""
    corpus = Corpus(corpus).value
    if corpus == Corpus.LIBRIMIX.value and str(clip_id).endswith(TWIN_SUFFIX):
        return Corpus.TWIN.value
    return corpus


def with_conditions(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose ``corpus`` column holds each row's corpus condition."""
    out = frame.copy()
    if len(out):
        corpus = out["corpus"].astype(str)
        for value in corpus.unique():
            Corpus(value)  # an unknown corpus is an error naming it
        twin = (corpus == Corpus.LIBRIMIX.value) & out["clip_id"].astype(str).str.endswith(TWIN_SUFFIX)
        out["corpus"] = corpus.where(~twin, Corpus.TWIN.value)
    return out


def check_columns(frame: pd.DataFrame, required: tuple[str, ...] | list[str], what: str) -> None:
    """A clear error naming ``what`` (a file or table) and the columns it lacks."""
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {', '.join(missing)}; it has {', '.join(map(str, frame.columns))}")


def in_canonical_unit(claims: pd.DataFrame) -> pd.Series:
    """Boolean mask of the claims stated in their quantity's canonical unit (see rule 0 above)."""
    if "unit" in claims.columns:
        canonical = claims["quantity"].map(lambda q: QUANTITIES[q].unit if q in QUANTITIES else None)
        return (claims["unit"].astype(str) == canonical.astype(str)) | claims["unit"].isna()
    if "unit_text" in claims.columns:
        written = claims["unit_text"].astype(object).fillna("").astype(str).str.strip().str.lower()
        kept = [any(u.lower() == w for u in QUANTITIES[q].extra_units) if q in QUANTITIES else False
                for q, w in zip(claims["quantity"], written)]
        return ~pd.Series(kept, index=claims.index, dtype=bool)
    return pd.Series(True, index=claims.index)


def one_value_per_generation(claims: pd.DataFrame, what: str = "claims table") -> pd.DataFrame:
    """Keep one row per generation and quantity: the one that starts last in the text.

    Claims outside their canonical unit (shimmer in dB) are left out first. Rows with a non-finite
    value are an error (the parser states numbers, never NaN).
    """
    check_columns(claims, CLAIM_COLUMNS, what)
    claims = claims.assign(**{c: claims[c].astype(str) for c in ("system", "corpus", "clip_id", "rung", "quantity")})
    claims = claims.loc[in_canonical_unit(claims)]
    values = pd.to_numeric(claims["value"], errors="coerce")
    bad = ~np.isfinite(values.to_numpy(dtype=float))
    if bad.any():
        first = claims.loc[bad].iloc[0]
        raise ValueError(
            f"{what}: {int(bad.sum())} claim(s) with a non-numeric or non-finite value, e.g. "
            f"{first['system']}/{first['clip_id']}/{first['rung']}/seed {first['seed']}/{first['quantity']} = {first['value']!r}"
        )
    out = claims.assign(value=values.astype(float))
    order = ["start"] if "start" in out.columns else []
    out = out.reset_index(drop=True).reset_index(names="_row")
    out = out.sort_values([*GENERATION_KEY, "quantity", *order, "_row"], kind="stable")
    out = out.drop_duplicates([*GENERATION_KEY, "quantity"], keep="last")
    return out.drop(columns="_row").reset_index(drop=True)


def pool_seeds(claims: pd.DataFrame, how: str = "first") -> pd.DataFrame:
    """One stated value per (system, corpus condition, rung, quantity, clip), pooling sampling seeds.

    Returns columns ``system, corpus, rung, quantity, clip_id, value, seeds`` where ``seeds`` counts the
    sampling seeds that stated a value on that clip.
    """
    if how not in ("first", "mean"):
        raise ValueError(f"pooling rule must be 'first' or 'mean', got {how!r}")
    claims = with_conditions(one_value_per_generation(claims))
    key = [*CELL_KEY, "clip_id"]
    if claims.empty:
        return pd.DataFrame(columns=[*key, "value", "seeds"])
    claims = claims.assign(seed=pd.to_numeric(claims["seed"], errors="raise"))
    grouped = claims.sort_values("seed", kind="stable").groupby(key, sort=True, observed=True)
    value = grouped["value"].first() if how == "first" else grouped["value"].mean()
    seeds = grouped["seed"].nunique()
    return pd.DataFrame({"value": value, "seeds": seeds}).reset_index()


def per_seed_values(claims: pd.DataFrame) -> pd.DataFrame:
    """One stated value per (system, corpus condition, rung, quantity, seed, clip), no pooling.

    For our own system, whose seeds are training seeds: each is scored as its own cell.
    """
    claims = with_conditions(one_value_per_generation(claims))
    return claims[[*CELL_KEY, "seed", "clip_id", "value"]].reset_index(drop=True)
