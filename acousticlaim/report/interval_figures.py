"""Pictures of claims in time: a clip's waveform with its reference intervals against each system's stated ones.

For Table 3 a reader wants to *see* what was claimed: per drawn clip, the waveform on top and below it one lane
per event type and source — the reference (the instruments: overlap windows, pauses on the target stem, noise
events) and then every system's answer to ``P5_intervals`` — on the same time axis. Intervals are bars, point
claims ("a pause at 3.2 s") are diamonds. The clips drawn are the ``figure_clips`` scored clips with the most
reference intervals (ties by clip id), so the pictures show where there is something to find. Each PNG has
its data beside it (the intervals drawn, as CSV).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from acousticlaim.claims.prompts import INTERVAL_RUNG_ID
from acousticlaim.io import write_csv
from acousticlaim.quantities import EVENT_KEYS, EVENTS
from acousticlaim.report.cell_figures import safe_name
from acousticlaim.report.drawing import plt, save_png

WaveformLoader = Callable[[str], "tuple[np.ndarray, int] | None"]
EVENT_COLOURS = {"overlap": "#d95f02", "pause": "#1b9e77", "noise": "#7570b3"}


def pick_clips(pairs: pd.DataFrame, n: int) -> list[tuple[str, str]]:
    """(corpus, clip id) of the ``n`` clips scored at ``P5_intervals`` with the most reference intervals."""
    p5 = pairs[pairs["rung"] == INTERVAL_RUNG_ID]
    if p5.empty or n <= 0:
        return []
    clips = p5[["corpus", "clip_id"]].drop_duplicates()
    refs = p5[p5["source"] == "reference"].drop_duplicates(["clip_id", "event", "start_s", "end_s"])
    count = refs.groupby("clip_id").size()
    clips = clips.assign(n=clips["clip_id"].map(count).fillna(0).astype(int))
    clips = clips.sort_values(["n", "clip_id"], ascending=[False, True], kind="stable").head(n)
    return [(str(c), str(k)) for c, k in zip(clips["corpus"], clips["clip_id"])]


def clip_lanes(pairs: pd.DataFrame, clip_id: str) -> pd.DataFrame:
    """The intervals drawn for one clip at ``P5_intervals``: the reference once per event type, then each
    system's stated intervals; a ``lane`` column names each row's lane."""
    mine = pairs[(pairs["clip_id"] == clip_id) & (pairs["rung"] == INTERVAL_RUNG_ID)]
    ref = mine[mine["source"] == "reference"].drop_duplicates(["event", "start_s", "end_s"]).assign(system="reference")
    stated = mine[mine["source"] == "stated"]
    out = pd.concat([ref, stated], ignore_index=True)
    out["lane"] = [f"{EVENTS[e].name} · {s}" for e, s in zip(out["event"], out["system"])]
    return out[["clip_id", "event", "system", "lane", "start_s", "end_s", "point"]]


def clip_picture(lanes: pd.DataFrame, systems: list[str], *, title: str, png: Path, csv: Path,
                 waveform: tuple[np.ndarray, int] | None, duration_s: float) -> None:
    """Draw one clip: waveform, then per event type the reference lane and one lane per system."""
    names = [(e, s) for e in EVENT_KEYS for s in ["reference", *systems]]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 1.6 + 0.28 * len(names)), sharex=True,
                                      gridspec_kw={"height_ratios": [1.4, 0.28 * len(names)]})
    if waveform is not None:
        x, sr = waveform
        t = np.arange(x.size) / sr
        step = max(1, x.size // 20000)
        top.plot(t[::step], x[::step], lw=0.4, color="#444")
        top.set_ylabel("amplitude")
    else:
        top.text(0.5, 0.5, "waveform not available", ha="center", va="center", transform=top.transAxes, color="#777")
        top.set_yticks([])
    top.set_title(title, fontsize=10)
    for i, (event, system) in enumerate(names):
        y = len(names) - 1 - i
        rows = lanes[(lanes["event"] == event) & (lanes["system"] == system)]
        colour = EVENT_COLOURS.get(event, "#333")
        alpha = 0.9 if system == "reference" else 0.55
        for r in rows.itertuples(index=False):
            if r.point:
                bottom.plot([r.start_s], [y], marker="D", color=colour, ms=6)
            else:
                bottom.broken_barh([(r.start_s, max(r.end_s - r.start_s, 0.01))], (y - 0.35, 0.7), color=colour, alpha=alpha)
        if system == "reference":
            bottom.axhline(y + 0.5, color="#ccc", lw=0.6)
    bottom.set_yticks(range(len(names)))
    bottom.set_yticklabels([f"{EVENTS[e].name} · {s}" for e, s in reversed(names)], fontsize=8)
    bottom.set_ylim(-0.6, len(names) - 0.4)
    bottom.set_xlim(0, duration_s)
    bottom.set_xlabel("time (s)")
    fig.tight_layout()
    write_csv(csv, lanes)
    save_png(fig, png)


def draw_interval_pictures(pairs: pd.DataFrame, out: Path, folder: str, *, n_clips: int,
                           waveform: WaveformLoader | None = None) -> list[dict]:
    """Draw the picked clips under ``out/folder``; returns per picture ``{png, csv, title, clip_id, corpus}``
    (paths relative to ``out``)."""
    pictures = []
    systems = sorted(set(pairs.loc[pairs["rung"] == INTERVAL_RUNG_ID, "system"].astype(str)))
    for corpus, clip_id in pick_clips(pairs, n_clips):
        lanes = clip_lanes(pairs, clip_id)
        loaded = waveform(clip_id) if waveform is not None else None
        duration = (loaded[0].size / loaded[1]) if loaded is not None else float(lanes["end_s"].max() if len(lanes) else 1.0)
        name = safe_name(f"{corpus}__{clip_id}")
        png, csv = out / folder / f"{name}.png", out / folder / f"{name}.csv"
        title = f"{clip_id} ({corpus}): reference intervals against the stated ones at {INTERVAL_RUNG_ID}"
        clip_picture(lanes, systems, title=title, png=png, csv=csv, waveform=loaded, duration_s=max(duration, 1e-3))
        pictures.append({"png": f"{folder}/{name}.png", "csv": f"{folder}/{name}.csv", "title": title,
                         "clip_id": clip_id, "corpus": corpus})
    return pictures


def manifest_waveforms(manifest_path: str | Path) -> WaveformLoader:
    """A loader of a clip's audio by clip id, through the corpus manifest and the one audio loader; a clip whose
    audio cannot be read is drawn without its waveform (``None``)."""
    from acousticlaim.audio import AudioError, load_audio
    from acousticlaim.corpus.manifest import read_manifest, resolve_path

    manifest_path = Path(manifest_path)
    manifest = read_manifest(manifest_path)
    folder = manifest_path if manifest_path.is_dir() else manifest_path.parent
    audio = dict(zip(manifest["clip_id"].astype(str), manifest["audio_path"]))

    def load(clip_id: str) -> tuple[np.ndarray, int] | None:
        path = resolve_path(folder, audio.get(clip_id))
        if path is None:
            return None
        try:
            return load_audio(path, allow_silent=True)
        except AudioError:
            return None

    return load
