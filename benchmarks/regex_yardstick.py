"""A straightforward pure-Python ``re`` implementation of the parser's rules: the speed yardstick.

It reads the same 13 quantities with the same unit rules (wpm → syll/s ×1.5/60, per second → per
minute ×60, kHz ×1000, bare jitter/shimmer fraction below 0.1 ×100, shimmer dB kept, range →
midpoint, ± → centre, last value wins, "no pauses" → 0, a few number words, comma decimals,
markdown/JSON punctuation tolerated, timestamps / LUFS / RT60 / sample rates not claims). It is
written the obvious way: one compiled pattern per quantity ("label, a short gap, a value, a unit"),
plus patterns for units that name their quantity, each run over the whole text with ``finditer``.
It is not the project's parser (that is ``acousticlaim.claims.parser``); it exists so that
``parser_speed.py`` can report how much faster the Rust parser is than plain ``re``.
"""

from __future__ import annotations

import re

NUM = r"[-−]?(?:\d+(?:[.,]\d+)?|\.\d+)"
WORDNUM = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "a single": 1,
}
NUMW = NUM + "|" + "|".join(WORDNUM)
UNIT = (
    r"dBFS|dB\s*LUFS|LUFS|dB|decibels?|kHz|Hz|hertz|%|percent|syllables?\s*(?:per|/)\s*(?:second|sec|s)\b"
    r"|syllables?\s*(?:per|/)\s*min(?:ute)?|words?\s*per\s*minute|wpm|words?\s*per\s*second"
    r"|pauses?\s*(?:per|/)\s*min(?:ute)?|pauses?\s*(?:per|/)\s*(?:second|sec|s)\b|per\s*minute|/\s*min\b"
    r"|per\s*second|pauses?|seconds?|secs?|ms|s\b|minutes?|min\b"
)
VALUE = (
    rf"(?P<v1>{NUMW})(?:\s*(?P<u1>{UNIT}))?"
    rf"(?:\s*(?:-|–|—|to|and)\s*(?P<v2>{NUM})(?:\s*(?P<u2>{UNIT}))?)?"
    rf"(?:\s*(?:±|\+/-)\s*{NUM}(?:\s*(?:{UNIT}))?)?"
)
LABELS = {
    "snr": r"snr|signal[\s-]*to[\s-]*noise(?:\s*ratio)?|speech[\s-]*to[\s-]*noise(?:\s*ratio)?",
    "srmr": r"srmr|speech[\s-]*to[\s-]*reverberation(?:\s*modulation)?(?:\s*energy)?\s*ratio|srrm|srr|srrer|sremr",
    "speaking_rate": r"speaking\s*rate|speech\s*rate|speaking_rate|speech_rate|rate\s*of\s*speech|srs(?:_rate)?|srate",
    "articulation_rate": r"articulation\s*rate|articulation_rate",
    "pause_rate": r"pause\s*rate|pause_rate|rate\s*of\s*pauses|pa_rate|prate",
    "pause_count": r"number\s*of\s*pauses|pause\s*count|pause_num|pa_count|pauses(?!\s*(?:per|/))",
    "f0_sd": r"(?:f0|fundamental\s*frequency|pitch)\s*(?:sd|std|stdev|stddev|standard\s*deviation)|f0_sd|f0_stddev"
    r"|standard\s*deviation\s*of\s*(?:the\s*)?(?:f0|fundamental\s*frequency|pitch)|fdist|fsd",
    "f0_mean": r"(?:f0|fundamental\s*frequency|pitch)(?!\W*(?:\(\w+\)\s*)?(?:sd|std|stdev|stddev|standard|range))(?:\s*mean)?"
    r"|mean\s*(?:f0|fundamental\s*frequency|pitch)|average\s*pitch|f0_mean|fmean",
    "jitter": r"jitter",
    "shimmer": r"shimmer",
    "hnr": r"hnr|harmonics?[\s-]*to[\s-]*noise(?:\s*ratio)?|h[a-z]{2}(?=\s+is\s+[-\d.]+\s*dB)",
    "overlap_ratio": r"overlap(?:\s*ratio)?",
    "duration": r"duration|length",
}
ORDER = list(LABELS)
GAP = r"[^.\n;|]{0,40}?"
FLAGS = re.IGNORECASE
PATTERNS = {q: re.compile(rf"\b(?:{lab})\b\W*{GAP}(?<![\d.]){VALUE}", FLAGS) for q, lab in LABELS.items()}
IMPLIED = re.compile(
    rf"(?<![\w.])(?P<v1>{NUMW})\s*(?P<u1>syllables?\s*(?:per|/)\s*(?:second|sec|s)\b|words?\s*per\s*minute|wpm"
    rf"|pauses?\s*(?:per|/)\s*min(?:ute)?|pauses?\b)",
    FLAGS,
)
NO_PAUSES = re.compile(r"\b(?:no|without(?:\s+any)?|zero)\s+(?:noticeable\s+|discernible\s+|audible\s+)?pauses\b|\bpause-free\b", FLAGS)
DISTRACTOR_UNITS = {"dbfs", "lufs", "db lufs"}
TIMESTAMP = re.compile(r"\b(?:at|from|until|after|before)\s*$", FLAGS)


def _num(s: str) -> float:
    s = s.strip().lower().replace("−", "-")
    if s in WORDNUM:
        return float(WORDNUM[s])
    if "," in s and "." not in s:
        a, b = s.split(",", 1)
        s = a + b if len(b) == 3 and a.lstrip("-") not in ("", "0") else a + "." + b
    return float(s)


def _unit(u: str | None) -> str | None:
    if not u:
        return None
    u = re.sub(r"\s+", " ", u.strip().lower())
    if u in ("db", "decibel", "decibels"):
        return "db"
    if u in ("hz", "hertz"):
        return "hz"
    if u in ("%", "percent"):
        return "%"
    if u.startswith("syllable") and "min" in u:
        return "sylmin"
    if u.startswith("syllable"):
        return "syls"
    if u == "wpm" or (u.startswith("word") and "minute" in u):
        return "wpm"
    if u.startswith("word"):
        return "wps"
    if u.startswith("pause") and "min" in u:
        return "pmin"
    if u.startswith("pause") and ("s" in u.split()[-1] or "sec" in u):
        return "psec" if ("per" in u or "/" in u) else "pauses"
    if u.startswith("pause"):
        return "pauses"
    if "minute" in u or u.startswith("/ min") or u.startswith("/min") or u == "per min":
        return "permin" if ("per" in u or "/" in u) else "min"
    if u.startswith("per second"):
        return "persec"
    if u in ("s", "sec", "secs", "second", "seconds"):
        return "s"
    if u == "ms":
        return "ms"
    return u


def _convert(q: str, v: float, u: str | None):
    if u in DISTRACTOR_UNITS:
        return None
    if q in ("snr", "hnr", "srmr"):
        return (v, "dB" if q != "srmr" else "ratio") if u in (None, "db") else None
    if q in ("speaking_rate", "articulation_rate"):
        f = {None: 1, "syls": 1, "persec": 1, "sylmin": 1 / 60, "wpm": 1.5 / 60, "wps": 1.5}.get(u)
        return (v * f, "syllables/s") if f is not None else None
    if q == "pause_count":
        return (v, "count") if u in (None, "pauses") else None
    if q == "pause_rate":
        f = {None: 1, "pmin": 1, "permin": 1, "pauses": 1, "psec": 60, "persec": 60}.get(u)
        return (v * f, "pauses/min") if f is not None else None
    if q in ("f0_mean", "f0_sd"):
        f = {None: 1, "hz": 1, "khz": 1000}.get(u)
        return (v * f, "Hz") if f is not None else None
    if q in ("jitter", "shimmer"):
        if u == "%":
            return v, "%"
        if u is None:
            return (v * 100 if abs(v) < 0.1 else v), "%"
        if u == "db" and q == "shimmer":
            return v, "dB"
        return None
    if q == "overlap_ratio":
        if u == "%":
            return v / 100, "fraction"
        return ((v / 100 if v > 1 else v), "fraction") if u is None else None
    if q == "duration":
        f = {"s": 1, "ms": 1e-3, "min": 60}.get(u)
        return (v * f, "s") if f is not None else None
    return None


def _value(q: str, m: re.Match):
    u1, u2 = _unit(m.group("u1")), _unit(m.groupdict().get("u2"))
    if u1 in (None,) and TIMESTAMP.search(m.string[max(0, m.start("v1") - 8) : m.start("v1")]):
        return None
    a = _convert(q, _num(m.group("v1")), u1 or u2)
    if a is None:
        return None
    if m.groupdict().get("v2"):
        b = _convert(q, _num(m.group("v2")), u2 or u1)
        if b is None:
            return None
        return (a[0] + b[0]) / 2, a[1]
    return a


IMPLIED_Q = {"syls": "speaking_rate", "wpm": "speaking_rate", "pmin": "pause_rate", "pauses": "pause_count"}


def parse(text: str, truncated: bool = False) -> list[tuple[str, float, str, int]]:
    """(quantity, value, unit, position) of the last value per quantity (and shimmer unit)."""
    found: dict[tuple[str, str], tuple[int, float]] = {}
    for q in ORDER:
        for m in PATTERNS[q].finditer(text):
            v = _value(q, m)
            if v is not None:
                key = (q, v[1])
                pos = m.start("v1")
                if key not in found or found[key][0] < pos:
                    found[key] = (pos, v[0])
    for m in IMPLIED.finditer(text):
        u = _unit(m.group("u1"))
        q = IMPLIED_Q.get(u)
        if q:
            v = _convert(q, _num(m.group("v1")), u)
            key = (q, v[1])
            if key not in found or found[key][0] < m.start():
                found[key] = (m.start(), v[0])
    for m in NO_PAUSES.finditer(text):
        key = ("pause_count", "count")
        if key not in found or found[key][0] < m.start():
            found[key] = (m.start(), 0.0)
    return sorted(((q, v, u, pos) for (q, u), (pos, v) in found.items()), key=lambda x: x[3])


def parse_claims(text: str, truncated: bool = False):
    """The yardstick's claims as objects with ``quantity``, ``value`` and ``unit`` (for the audit)."""
    from types import SimpleNamespace

    return [SimpleNamespace(quantity=q, value=v, unit=u) for q, v, u, _ in parse(text, truncated)]
