"""Auditing the claim parser against hand-labelled texts.

A labels file is JSON Lines, one text per line::

    {"text": "...", "gold": [{"quantity": "snr", "value": 12.4, "unit": "dB", "span": [11, 18]}, ...],
     "truncated": false, "id": "..."}

``unit`` is the unit of the gold value (the registry's canonical unit; "dB" for shimmer stated in
dB) and may be omitted; ``span`` (character offsets) is informational. ``truncated`` marks a
generation cut at its token cap and is passed to the parser.

A parsed claim is correct when its quantity (and, for shimmer, its % / dB unit) matches a gold claim
of the same text and its value is within 1 % or 0.01 of the gold value. Per quantity and overall:
precision = correct / parsed, recall = correct / gold.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from acousticlaim.claims.parser import Claim, parse
from acousticlaim.quantities import ALL_KEYS, QUANTITIES, kept_as_stated

REL_TOL = 0.01
ABS_TOL = 0.01


@dataclass(frozen=True)
class GoldClaim:
    quantity: str
    value: float
    unit: str
    span: tuple[int, int] | None = None


@dataclass(frozen=True)
class LabelledText:
    text: str
    gold: tuple[GoldClaim, ...]
    truncated: bool = False
    id: str = ""


class LabelsError(ValueError):
    """A labels file that cannot be read, with the file, line and reason."""


def _unit_class(quantity: str, unit: str | None) -> str:
    """A unit the registry keeps as stated (shimmer in dB) is a slot of its own; otherwise the canonical one."""
    if kept_as_stated(quantity, unit):
        return unit
    return QUANTITIES[quantity].unit


def load_labels(path: str | Path) -> list[LabelledText]:
    """Read a labels file; a clear error names the file, the line and what is wrong."""
    path = Path(path)
    if not path.exists():
        raise LabelsError(f"{path}: labels file not found")
    out: list[LabelledText] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise LabelsError(f"{where}: not JSON ({e.msg})") from None
            if not isinstance(rec, dict) or not isinstance(rec.get("text"), str):
                raise LabelsError(f"{where}: each line needs a string 'text'")
            gold_raw = rec.get("gold", [])
            if not isinstance(gold_raw, list):
                raise LabelsError(f"{where}: 'gold' must be a list")
            gold = []
            for k, g in enumerate(gold_raw):
                if not isinstance(g, dict) or g.get("quantity") not in QUANTITIES:
                    raise LabelsError(
                        f"{where}: gold[{k}] needs a 'quantity' among {', '.join(ALL_KEYS)}, got {g!r}"
                    )
                try:
                    value = float(g["value"])
                except (KeyError, TypeError, ValueError):
                    raise LabelsError(f"{where}: gold[{k}] needs a numeric 'value', got {g.get('value')!r}") from None
                if not math.isfinite(value):
                    raise LabelsError(f"{where}: gold[{k}] value is not finite")
                span = g.get("span")
                gold.append(
                    GoldClaim(
                        g["quantity"],
                        value,
                        _unit_class(g["quantity"], g.get("unit")),
                        tuple(span) if isinstance(span, list) and len(span) == 2 else None,
                    )
                )
            out.append(LabelledText(rec["text"], tuple(gold), bool(rec.get("truncated", False)), str(rec.get("id", lineno))))
    return out


def value_matches(value: float, gold: float) -> bool:
    return abs(value - gold) <= max(ABS_TOL, REL_TOL * abs(gold))


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else float("nan")

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else float("nan")


@dataclass
class Mistake:
    id: str
    kind: str  # "false positive" (parsed, not in gold or wrong value) / "missed" (gold, not parsed)
    quantity: str
    value: float
    text: str


@dataclass
class AuditReport:
    per_quantity: dict[str, Counts] = field(default_factory=dict)
    overall: Counts = field(default_factory=Counts)
    n_texts: int = 0
    mistakes: list[Mistake] = field(default_factory=list)


def audit(labels: list[LabelledText], parse_fn: Callable[..., list[Claim]] = parse) -> AuditReport:
    """Compare the parser's claims with the gold claims of each text."""
    report = AuditReport(per_quantity={k: Counts() for k in ALL_KEYS}, n_texts=len(labels))
    for item in labels:
        pred = parse_fn(item.text, truncated=item.truncated)
        unmatched = list(item.gold)
        for c in pred:
            slot = _unit_class(c.quantity, c.unit)
            hit = next(
                (g for g in unmatched if g.quantity == c.quantity and g.unit == slot and value_matches(c.value, g.value)),
                None,
            )
            counts = report.per_quantity[c.quantity]
            if hit is not None:
                unmatched.remove(hit)
                counts.tp += 1
                report.overall.tp += 1
            else:
                counts.fp += 1
                report.overall.fp += 1
                report.mistakes.append(Mistake(item.id, "false positive", c.quantity, c.value, item.text))
        for g in unmatched:
            report.per_quantity[g.quantity].fn += 1
            report.overall.fn += 1
            report.mistakes.append(Mistake(item.id, "missed", g.quantity, g.value, item.text))
    return report


def format_report(report: AuditReport) -> str:
    """A plain-text table: per quantity and overall, gold / parsed / correct / precision / recall."""

    def row(name: str, c: Counts) -> str:
        p = "—" if math.isnan(c.precision) else f"{c.precision:.3f}"
        r = "—" if math.isnan(c.recall) else f"{c.recall:.3f}"
        return f"{name:<18} {c.tp + c.fn:>6} {c.tp + c.fp:>7} {c.tp:>8} {p:>9} {r:>7}"

    lines = [f"{'quantity':<18} {'gold':>6} {'parsed':>7} {'correct':>8} {'precision':>9} {'recall':>7}"]
    for k, c in report.per_quantity.items():
        if c.tp + c.fp + c.fn:
            lines.append(row(k, c))
    lines.append(row("overall", report.overall))
    lines.append(f"{report.n_texts} texts")
    return "\n".join(lines)
