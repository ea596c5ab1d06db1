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
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

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


# "Label: 12.4", "\"Key\": \"12.4\"", "**Label:** 12.4", "| Label | 12.4 |", "The LABEL is 12.4"
_LABELLED_NUMBER = re.compile(
    r"(?:(?<=^)|(?<=[\n{,|*\-•]))[\s\\\"'*]*(?P<label>[A-Za-z$][\w$ ()/%.'-]{0,48}?)[\s\\\"'*]*"
    r"(?:[:=|]|\bis\b)[\s\\\"'*]*(?P<num>[-+−]?\d[\d.,]*(?:[eE][-+]?\d+)?)",
    re.MULTILINE,
)
_TEMPLATE_NUMBER = re.compile(r"\b[Tt]he (?P<label>[A-Za-z][\w-]{1,30}) is (?P<num>[-+]?\d[\d.,]*(?:[eE][-+]?\d+)?)")


@dataclass
class UnreadLabel:
    label: str
    count: int
    example: str
    names: str = ""  # the quantity the label names when it is one of the registry's (its number was
    # then left unread by attribution: the worked example, a transcript sentence, a typical value)


def unread_labels(texts: Iterable[str]) -> list[UnreadLabel]:
    """Labels that carry a number the parser did not read as a claim (SPEC §1 rule 1: a label that
    names no quantity of the registry is not read, however close its spelling), most frequent first,
    with an example each: for a person to decide whether an alias belongs in the registry
    (``acousticlaim/quantities.py``). Labels are compared case-blind with markup stripped."""
    counts: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for text in texts:
        if not text or not any(ch.isdigit() for ch in text):
            continue
        spans = [(c.start, c.end) for c in parse(text)]
        seen: set[tuple[int, int]] = set()
        for pattern in (_LABELLED_NUMBER, _TEMPLATE_NUMBER):
            for m in pattern.finditer(text):
                a, b = m.span("num")
                if (a, b) in seen or any(s <= a < e for s, e in spans):
                    continue
                seen.add((a, b))
                label = re.sub(r"\s+", " ", m.group("label").strip(" ()*'\"\\")).strip()
                label = re.sub(r"^(?:the|a|an)\s+", "", label, flags=re.IGNORECASE)
                if not label or label[0].isdigit():
                    continue
                key = label.lower()
                counts[key] += 1
                if key not in examples:
                    lo = max(0, m.start() - 20)
                    examples[key] = text[lo:m.end() + 20].replace("\n", " ").strip()
    out = []
    for k, n in counts.most_common():
        named = [c.quantity for c in parse(f"{k}: 7.5")]
        out.append(UnreadLabel(k, n, examples[k], named[0] if named else ""))
    return out


def read_generation_texts(path: str | Path) -> list[str]:
    """The generated texts of a folder or file: released run files (``<system>_<corpus>_seed<k>.json``,
    ``results → system → rung → generations``) and JSON Lines generations (a ``text`` field)."""
    path = Path(path)
    files = sorted(path.glob("*.json")) + sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    texts: list[str] = []
    for f in files:
        if f.suffix == ".jsonl":
            for line in f.open(encoding="utf-8"):
                if line.strip():
                    rec = json.loads(line)
                    if isinstance(rec, dict) and isinstance(rec.get("text"), str):
                        texts.append(rec["text"])
            continue
        data = json.loads(f.read_text(encoding="utf-8"))
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, dict):
            continue
        for rungs in results.values():
            for block in rungs.values():
                texts += [g["text"] for g in block.get("generations", []) if isinstance(g.get("text"), str)]
    return texts


def format_unread(rows: list[UnreadLabel], top: int = 30) -> str:
    lines = [f"{'count':>6}  {'label':<28} {'names':<14} example"]
    for r in rows[:top]:
        lines.append(f"{r.count:>6}  {r.label[:28]:<28} {r.names or '—':<14} {r.example[:80]}")
    return "\n".join(lines)
