"""Reference intervals in time: where the talkers overlap, where the speaker pauses, where the noise sounds.

The second kind of claim beside the 13 quantities is a claim in time ("the second speaker talks over the
first from about 2 to 5 seconds", "a long pause at 3.2 s", "a door slams near the end"). Its references are
three interval lists per clip, each read by an instrument the project already runs (``SPEC.md`` §1):

``overlap``
    The overlap windows: Silero VAD on each of the two separated stems, intersections of at least
    ``references.min_overlap_s`` (:mod:`acousticlaim.instruments.overlap`, the windows the Masked F0 is read
    outside). A clean twin has one talker: no overlap. An AMI clip has no stems: its overlap windows are
    where two participants' annotated speech meets (the manual segments of ``ami_public_manual``, kept by
    the corpus stage in ``ami_speech.parquet``), at least as long; without the annotations, not read.
``pause``
    The pauses the pause count counts: the silent intervals of at least 0.3 s between sounding intervals of
    de Jong & Wempe's TextGrid (:attr:`acousticlaim.instruments.timing.TimingReadings.pause_intervals`), read
    on the signal the pause references are read on: the target stem ``s1`` of a mixture, the twin itself, the
    channel of an AMI clip.
``noise``
    From the corpus: on a scenes corpus each source's sounding intervals (``scene_events.parquet``,
    :func:`acousticlaim.corpus.scenes.read_scene_events`) whose level against the speech
    (``level_db``) is at least ``references.intervals.noise_min_level_db``; otherwise the injected noise is
    stationary, one event over the whole clip when it sits at least that loud against the speech
    (``-snr_db``). A twin and an AMI clip have no noise stem: a twin holds no noise (empty), AMI is not read.

Overlapping intervals of one list are merged (two scene sources sounding together are one noise event to a
listener). A list that cannot be read is *undefined* with its reason, never an empty list: an empty list
says "there is none", which is a reference a claim can be scored against.

The stage writes two tidy tables beside ``references.parquet``: ``intervals.parquet``
(:data:`INTERVAL_COLUMNS`, one row per interval) and ``interval_lists.parquet`` (:data:`LIST_COLUMNS`, one
row per clip and event type: defined or not, why not, how many intervals, the clip's length).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd

from acousticlaim.instruments.overlap import intersect_segments
from acousticlaim.quantities import EVENT_KEYS

INTERVAL_COLUMNS = ["clip_id", "event", "start_s", "end_s"]
LIST_COLUMNS = ["clip_id", "event", "defined", "reason", "n", "duration_s", "signal"]
# The scene events' columns a reference job carries per clip (``scene_events.parquet``).
SCENE_EVENT_FIELDS = ("onset_s", "offset_s", "level_db")

NO_STEMS_OVERLAP = "no separated stems on this corpus: the overlap windows cannot be read"
NO_NOISE_STEM = "no noise stem or scene labels on this corpus: when the noise sounds is not known"

Segment = tuple[float, float]


def merge_segments(segments: Iterable[Segment]) -> list[Segment]:
    """Sorted, with overlapping or touching intervals joined."""
    out: list[list[float]] = []
    for start, end in sorted((float(a), float(b)) for a, b in segments):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(a, b) for a, b in out]


def annotated_overlap(speech: Iterable[dict], min_duration_s: float) -> list[Segment]:
    """Where two or more participants' annotated speech meets (rows ``{speaker, start_s, end_s}``), in
    windows lasting at least ``min_duration_s``."""
    by_speaker: dict[str, list[Segment]] = {}
    for r in speech:
        by_speaker.setdefault(str(r["speaker"]), []).append((float(r["start_s"]), float(r["end_s"])))
    talkers = [merge_segments(v) for v in by_speaker.values()]
    met = [w for a in range(len(talkers)) for b in range(a + 1, len(talkers))
           for w in intersect_segments(talkers[a], talkers[b], 0.0)]
    return [(a, b) for a, b in merge_segments(met) if b - a >= min_duration_s - 1e-12]


def stationary_noise_events(snr_db: float | None, duration_s: float, min_level_db: float) -> list[Segment]:
    """The generated noise of a mixture: one event over the clip when ``-snr_db >= min_level_db``."""
    if snr_db is None or not math.isfinite(float(snr_db)) or duration_s <= 0:
        return []
    return [(0.0, float(duration_s))] if -float(snr_db) >= min_level_db else []


def scene_noise_events(events: Sequence[dict], duration_s: float, min_level_db: float) -> list[Segment]:
    """A scene clip's sources in time, each kept when it sounds at least ``min_level_db`` against the speech."""
    kept = [(max(0.0, float(e["onset_s"])), min(float(duration_s), float(e["offset_s"]))) for e in events
            if e.get("level_db") is not None and float(e["level_db"]) >= min_level_db]
    return merge_segments((a, b) for a, b in kept if b > a)


def noise_reference(row: dict, duration_s: float, min_level_db: float) -> list[Segment] | None:
    """The noise events of one manifest row, or ``None`` when this corpus does not say when noise sounds.

    A scenes corpus's rows carry ``scene_events`` (the job attaches them; the design's clean version has
    none); a Libri2Mix-style mixture's noise is stationary at ``snr_db``; a twin holds no noise."""
    kind = row.get("kind")
    if kind == "twin":
        return []
    if kind != "mixture":
        return None
    if row.get("scene_mode"):
        return scene_noise_events(row.get("scene_events") or [], duration_s, min_level_db)
    if not row.get("noise_path"):
        return None
    return stationary_noise_events(row.get("snr_db"), duration_s, min_level_db)


def list_rows(clip_id: str, duration_s: float, lists: dict[str, tuple[list[Segment] | None, str, str]]
              ) -> tuple[list[dict], list[dict]]:
    """(interval rows, list rows) of one clip; ``lists`` maps an event type to (intervals or None, reason,
    signal read on)."""
    intervals, status = [], []
    for event in EVENT_KEYS:
        segments, reason, signal = lists[event]
        defined = segments is not None
        for start, end in segments or []:
            intervals.append({"clip_id": clip_id, "event": event, "start_s": float(start), "end_s": float(end)})
        status.append({"clip_id": clip_id, "event": event, "defined": defined, "reason": None if defined else reason,
                       "n": len(segments) if defined else 0, "duration_s": float(duration_s), "signal": signal})
    return intervals, status


def intervals_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=INTERVAL_COLUMNS)
    frame["start_s"] = frame["start_s"].astype("float64")
    frame["end_s"] = frame["end_s"].astype("float64")
    return frame


def lists_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=LIST_COLUMNS)
    frame["defined"] = frame["defined"].astype(bool)
    frame["n"] = frame["n"].astype("int64")
    frame["duration_s"] = frame["duration_s"].astype("float64")
    return frame


INTERVALS_NAME, LISTS_NAME = "intervals.parquet", "interval_lists.parquet"


def read_interval_references(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(intervals, lists) the `references` stage wrote under ``path`` (the folder, or a file in it), checked:
    their columns, known event types, and every interval inside a defined list."""
    folder = Path(path)
    folder = folder if folder.is_dir() else folder.parent
    frames = []
    for name, columns in ((INTERVALS_NAME, INTERVAL_COLUMNS), (LISTS_NAME, LIST_COLUMNS)):
        file = folder / name
        if not file.exists():
            raise FileNotFoundError(f"{file}: no references in time (run `dvc repro references` first)")
        frame = pd.read_parquet(file)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ValueError(f"{file}: lacks column(s) {missing}; it has {list(frame.columns)}")
        unknown = sorted(set(frame["event"]) - set(EVENT_KEYS))
        if unknown:
            raise ValueError(f"{file}: unknown event type(s) {unknown}; the event types are {', '.join(EVENT_KEYS)}")
        frames.append(frame)
    intervals, lists = frames
    defined = set(map(tuple, lists.loc[lists["defined"].astype(bool), ["clip_id", "event"]].to_numpy().tolist()))
    orphans = [k for k in map(tuple, intervals[["clip_id", "event"]].to_numpy().tolist()) if k not in defined]
    if orphans:
        raise ValueError(f"{folder / INTERVALS_NAME}: {len(orphans)} interval(s) outside a defined list, e.g. {orphans[0]}")
    return intervals, lists
