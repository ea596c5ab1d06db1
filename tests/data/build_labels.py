"""Compile the hand-written gold (``*_labels.src``) into the JSON Lines labels files.

Usage (from the repository root)::

    python3 tests/data/build_labels.py tests/data/dev_labels.src tests/data/dev_panel_ids.jsonl tests/data/dev_labels.jsonl
    python3 tests/data/build_labels.py tests/data/heldout_labels.src tests/data/heldout_ids.jsonl tests/data/heldout_labels.jsonl

Panel texts are fetched verbatim from ``--panel`` (default ``/work/shared/data/panel_sample``) by
system, rung and stem, so the compiled files are self-contained. The source format is described at
the top of ``dev_labels.src``. A gold span is filled in when the value as written occurs exactly
once in the text as a number; otherwise it is null (spans are informational).
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import sys
from pathlib import Path

TEN = ["snr", "srmr", "f0_mean", "f0_sd", "speaking_rate", "pause_count", "pause_rate", "jitter", "shimmer", "hnr"]
UNITS = {
    "snr": "dB", "srmr": "ratio", "speaking_rate": "syllables/s", "pause_count": "count", "pause_rate": "pauses/min",
    "f0_mean": "Hz", "f0_sd": "Hz", "jitter": "%", "shimmer": "%", "hnr": "dB", "overlap_ratio": "fraction",
    "articulation_rate": "syllables/s", "duration": "s",
}


def panel_texts(folder: str) -> dict[tuple[str, str, str], str]:
    out = {}
    for f in sorted(glob.glob(f"{folder}/*_seed0.json")):
        d = json.load(open(f, encoding="utf-8"))
        for rung, block in d["results"][d["system"]].items():
            for g in block["generations"]:
                out[(d["system"], rung, g["stem"])] = g["text"]
    return out


def span_of(text: str, literal: str) -> list[int] | None:
    hits = [m.start() for m in re.finditer(r"(?<![\d.])" + re.escape(literal) + r"(?![\d])", text)]
    return [hits[0], hits[0] + len(literal)] if len(hits) == 1 else None


def parse_gold(line: str, text: str, where: str) -> list[dict]:
    line = line.strip()
    if line == "-":
        return []
    items: list[tuple[str, str, str | None]] = []
    if line.startswith("TEN "):
        vals = line.split()[1:]
        if len(vals) != 10:
            raise SystemExit(f"{where}: TEN needs 10 values, got {len(vals)}")
        items = [(q, v, None) for q, v in zip(TEN, vals) if v != "_"]
    else:
        for part in line.split(";"):
            bits = part.split()
            if len(bits) not in (2, 3) or bits[0] not in UNITS:
                raise SystemExit(f"{where}: cannot read gold item {part!r}")
            items.append((bits[0], bits[1], bits[2] if len(bits) == 3 else None))
    gold = []
    for q, v, unit in items:
        float(v)
        gold.append({"quantity": q, "value": float(v), "unit": unit or UNITS[q], "span": span_of(text, v.lstrip("-"))})
    return gold


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("ids")
    ap.add_argument("out")
    ap.add_argument("--panel", default="/work/shared/data/panel_sample")
    a = ap.parse_args(argv)
    ids = [json.loads(line) for line in open(a.ids, encoding="utf-8") if line.strip()]
    texts = panel_texts(a.panel)
    records = []
    lines = Path(a.src).read_text(encoding="utf-8").splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if not line.startswith("@"):
            k += 1
            continue
        head = line[1:].split()
        where = f"{a.src}:{k + 1}"
        truncated = head[-1] == "T"
        if truncated:
            head = head[:-1]
        k += 1
        if head[0].startswith("p"):
            idx = int(head[0][1:])
            ref = ids[idx]
            text = texts[(ref["system"], ref["rung"], ref["stem"])]
            meta = {"id": f"panel/{ref['system']}/{ref['rung']}/{ref['stem']}", "source": "panel", **ref}
        elif head[0] == "s":
            body = []
            while k < len(lines) and lines[k].startswith(">"):
                body.append(lines[k][2:] if lines[k].startswith("> ") else lines[k][1:])
                k += 1
            text = "\n".join(body)
            meta = {"id": f"written/{head[1]}/{head[2]}/{head[3]}", "source": "written", "system": head[1], "rung": head[2]}
        else:
            raise SystemExit(f"{where}: unknown record head {line!r}")
        if k >= len(lines):
            raise SystemExit(f"{where}: missing gold line")
        gold = parse_gold(lines[k], text, f"{a.src}:{k + 1}")
        k += 1
        records.append({**meta, "truncated": truncated, "text": text, "gold": gold})
    with open(a.out, "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(records)} texts, {sum(len(r['gold']) for r in records)} gold claims → {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
