"""RSA-Bench acoustic scenes (Zhang et al., arXiv:2601.10384): four soundscapes, K labelled sources, each one placed in time.

RSA-Bench superimposes K ∈ {1, 2, 3, 4} environmental sources on a clean utterance, drawn from one of four
soundscapes ("Acoustic Ecology", RSA-Bench §3):

* **Pasture** — irregular animal vocalisations: cow, dog, hen, sheep;
* **Extreme Weather** — continuous rain and wind with sudden thunder and tonal wind chimes;
* **Classroom** — clock ticking, coughing, keyboard typing, drinking;
* **Outdoors** — children playing, birds chirping, a flowing stream, footsteps on grass.

Each clip follows the benchmark's four steps (RSA-Bench, Zhang et al., arXiv:2601.10384, §3.1):

1. **Source collection** — recordings from ``corpus.noise_dir/<soundscape>/`` when that folder holds any
   (e.g. ESC-50 clips sorted as RSA-Bench sorted them; a recording in ``<soundscape>/<category>/`` is
   labelled with that category, one directly under ``<soundscape>/`` by its file name). Without
   recordings each category is synthesised here with its character (below).
2. **Temporal alignment** — each source is looped to the speech's length, ``w̃_k[n] = w_k[n mod M_k]``.
3. **RMS energy alignment** — each looped source is scaled to the speech's RMS ``R_s``.
4. **Superposition** — ``x = clip(s + Σ_k λ_k w̃_k, −1, 1)``; the clipping happens in
   :func:`acousticlaim.corpus.mixing.mix_sources`.

The **interference level** of a clip is K (RSA-Bench's "interference levels K = 1 to 4") with the gain λ_k
every source carries (``scene_source_snr_db`` = −20·log10 λ_k, the source's level against the speech)
and the realised speech-to-interference ratio (``snr_db``). Two corpus modes (``corpus.scenes.mode``):

* ``sample`` — each mixture draws a soundscape and K; the λ_k are equal and set so that the summed
  interference sits at the mixture's drawn SNR (the SNR quantity keeps its spread);
* ``design`` — RSA-Bench's combinatorial design: for every sample the 4 soundscapes × K = 1..4 = 16
  configurations plus the clean version, 17 conditions, each source at a fixed level
  ``scenes.source_snr_db`` against the speech (λ_k fixed, so the interference grows with K as in the
  benchmark). K sources are nested: configuration K adds one source to configuration K − 1.

The synthesised categories (all pure functions of a seed, 16 kHz):

* animal calls (cow, dog, hen, sheep) — non-stationary calls from the project's source–filter
  synthesiser (:mod:`acousticlaim.corpus.synthetic`) at animal-like F0 registers and tract lengths,
  placed at irregular (exponential) intervals; voiced and harmonic, so **vocal-like**;
* children playing — the babble of three synthetic children (F0 250–380 Hz, a short tract), **vocal-like**;
* rain — band-passed noise with droplet clicks; wind — low band-passed noise under a gusting envelope;
  stream — band-passed noise with Minnaert bubble blips;
* thunder — low-pass (< 120 Hz) brown-noise bursts with a sharp attack and a long rumbling decay;
* wind chimes — strikes of inharmonic partials (tubular-bell ratios 1, 2.76, 5.40, 8.93) decaying;
* clock ticks — an impulse train at :data:`CLOCK_TICK_HZ` (tick and tock); keyboard typing — bursts of
  keystroke impulses; footsteps on grass — rustle bursts at a walking rate;
* coughs — an explosive burst then formant-filtered turbulent noise (unvoiced); drinking — gulps
  (rising low resonances) and slurps;
* birds — FM chirps (downward sweeps with vibrato) in bouts.

**Sources in time.** For each source as it sits in the clip, the intervals in which it sounds are the
runs of 25-ms frames (10-ms hop) within ``scenes.events.floor_db`` dB of the source's own loud frames
(its 99th-percentile frame), gaps shorter than ``scenes.events.min_gap_s`` bridged. They go to
``scene_events.parquet`` beside the manifest, one row per event with the source's labels.
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
from scipy.signal import butter, lfilter, sosfilt

from acousticlaim.audio import TARGET_SR
from acousticlaim.corpus.mixing import active_frames
from acousticlaim.corpus.noise import NOISE_SUFFIXES, _load_noise, loop_to_length, rms
from acousticlaim.corpus.synthetic import TalkerParams, synthesize_talker

SR = TARGET_SR
SOUNDSCAPES = ("pasture", "extreme_weather", "classroom", "outdoors")
SOUNDSCAPE_NAMES = {"pasture": "Pasture", "extreme_weather": "Extreme Weather", "classroom": "Classroom",
                    "outdoors": "Outdoors"}
MODES = ("sample", "design")
CLEAN = "clean"  # the 17th condition of the design: the speech with no interference
CLOCK_TICK_HZ = 1.0  # a clock's tick rate (tick and tock alternate)
EVENT_FRAME_S, EVENT_HOP_S = 0.025, 0.010
EVENT_COLUMNS = ["clip_id", "source_index", "soundscape", "category", "kind", "vocal_like", "origin", "source",
                 "level_db", "onset_s", "offset_s"]


@dataclass(frozen=True)
class Category:
    """One kind of environmental source and what it is like."""

    name: str
    soundscape: str
    kind: str  # animal call | vocal babble | texture | burst | tonal | impulse train | chirp
    vocal_like: bool  # voiced and harmonic in the speech F0 range (RSA-Bench's "vocal-like" interference)
    register_hz: tuple[float, float] | None = None  # F0 register of a vocal-like source


CATEGORIES: dict[str, Category] = {c.name: c for c in (
    Category("cow", "pasture", "animal call", True, (95.0, 140.0)),
    Category("dog", "pasture", "animal call", True, (300.0, 420.0)),
    Category("hen", "pasture", "animal call", True, (350.0, 450.0)),
    Category("sheep", "pasture", "animal call", True, (220.0, 320.0)),
    Category("rain", "extreme_weather", "texture", False),
    Category("wind", "extreme_weather", "texture", False),
    Category("thunder", "extreme_weather", "burst", False),
    Category("wind_chimes", "extreme_weather", "tonal", False),
    Category("clock_tick", "classroom", "impulse train", False),
    Category("cough", "classroom", "burst", False),
    Category("keyboard_typing", "classroom", "impulse train", False),
    Category("drinking", "classroom", "burst", False),
    Category("children_playing", "outdoors", "vocal babble", True, (250.0, 380.0)),
    Category("birds", "outdoors", "chirp", False),
    Category("stream", "outdoors", "texture", False),
    Category("footsteps_grass", "outdoors", "impulse train", False),
)}
# Recording labels (ESC-50 class names and common spellings) that name one of the categories above.
ALIASES = {"rooster": "hen", "chirping_birds": "birds", "bird": "birds", "thunderstorm": "thunder",
           "coughing": "cough", "drinking_sipping": "drinking", "footsteps": "footsteps_grass",
           "church_bells": "wind_chimes", "chimes": "wind_chimes", "clock": "clock_tick",
           "typing": "keyboard_typing", "children": "children_playing", "water": "stream",
           "flowing_water": "stream", "pouring_water": "stream", "water_drops": "stream", "sheep_goat": "sheep"}


def soundscape_categories(soundscape: str) -> tuple[str, ...]:
    return tuple(c.name for c in CATEGORIES.values() if c.soundscape == soundscape)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def label_of(category: str) -> Category | None:
    """The category a recording's label names (``None`` for a label this table does not know)."""
    slug = _slug(category)
    slug = ALIASES.get(slug, slug)
    return CATEGORIES.get(slug)


# ------------------------------------------------------------------------------------- recordings

def _soundscape_of_folder(name: str) -> str | None:
    slug = _slug(name)
    for scape in SOUNDSCAPES:
        if slug in (scape, scape.replace("_", ""), scape.rstrip("s")):
            return scape
    return None


@lru_cache(maxsize=8)
def _recordings_under(noise_dir: str) -> dict[str, list[dict]]:
    return scene_recordings(noise_dir)


def scene_recordings(noise_dir: str | Path | None) -> dict[str, list[dict]]:
    """Recordings per soundscape under ``noise_dir/<soundscape>/`` (folder names in any case/spelling:
    ``Extreme Weather``, ``extreme_weather``, ``Outdoor``). A soundscape without a folder is synthesised."""
    if not noise_dir:
        return {}
    noise_dir = Path(noise_dir)
    if not noise_dir.is_dir():
        raise FileNotFoundError(f"corpus.noise_dir {noise_dir}: not a directory")
    found: dict[str, list[dict]] = {}
    for folder in sorted(p for p in noise_dir.iterdir() if p.is_dir()):
        scape = _soundscape_of_folder(folder.name)
        if scape is None:
            continue
        for path in sorted(p for p in folder.rglob("*") if p.suffix.lower() in NOISE_SUFFIXES):
            label = path.parent.name if path.parent != folder else path.stem
            known = label_of(label)
            found.setdefault(scape, []).append({
                "origin": "recording", "path": str(path), "category": known.name if known else _slug(label),
                "kind": known.kind if known else "recording", "vocal_like": bool(known and known.vocal_like),
            })
    return found


# -------------------------------------------------------------------------------------- planning

def check_scene_params(scenes: dict) -> None:
    """A clear error for a malformed ``corpus.scenes`` group (its settings class checks every key)."""
    from acousticlaim.corpus.settings import ScenesSettings
    from acousticlaim.params import settings_from

    settings_from(ScenesSettings, scenes, "corpus.scenes")


def _draw_sources(scape: str, k: int, rng: np.random.Generator, recordings: dict[str, list[dict]]) -> list[dict]:
    """K source specs for one soundscape: distinct recordings (or categories) while there are enough."""
    pool = recordings.get(scape) or [
        {"origin": "synthetic", "path": None, "category": c, "kind": CATEGORIES[c].kind,
         "vocal_like": CATEGORIES[c].vocal_like} for c in soundscape_categories(scape)]
    picks = rng.choice(len(pool), size=k, replace=len(pool) < k)
    return [{**pool[int(i)], "seed": int(rng.integers(2**31))} for i in picks]


def recordings_for(noise_dir: str | Path | None) -> dict[str, list[dict]]:
    """:func:`scene_recordings`, read once per folder (the planner asks for every mixture)."""
    return _recordings_under(str(noise_dir)) if noise_dir else {}


def plan_scene(scenes: dict, rng: np.random.Generator, recordings: dict[str, list[dict]]) -> list[dict]:
    """The conditions one mixture job builds: one drawn scene (``sample``), or the 17 of the design."""
    lo, hi = (int(v) for v in scenes.get("k", [1, 4]))
    scapes = list(scenes.get("soundscapes", SOUNDSCAPES))
    if scenes.get("mode", "sample") == "sample":
        scape = scapes[int(rng.integers(len(scapes)))]
        k = int(rng.integers(lo, hi + 1))
        return [{"soundscape": scape, "k": k, "sources": _draw_sources(scape, k, rng, recordings), "level": "snr"}]
    conditions = [{"soundscape": CLEAN, "k": 0, "sources": [], "level": "fixed"}]
    for scape in scapes:
        nested = _draw_sources(scape, hi, rng, recordings)  # configuration K = the first K of one draw
        conditions += [{"soundscape": scape, "k": k, "sources": nested[:k], "level": "fixed"}
                       for k in range(lo, hi + 1)]
    return conditions


def condition_suffix(condition: dict, mode: str) -> str:
    """The clip-id suffix of a condition: none in ``sample`` mode and for the design's clean version."""
    if mode == "sample" or condition["soundscape"] == CLEAN:
        return ""
    return f"_{condition['soundscape']}_k{condition['k']}"


# ------------------------------------------------------------------------------------- synthesis

def _unit(x: np.ndarray) -> np.ndarray:
    return x / (rms(x) + 1e-12)


def _band(x: np.ndarray, lo: float | None, hi: float | None, order: int = 4) -> np.ndarray:
    if lo and hi:
        sos = butter(order, [lo, hi], btype="bandpass", fs=SR, output="sos")
    elif lo:
        sos = butter(order, lo, btype="highpass", fs=SR, output="sos")
    else:
        sos = butter(order, hi, btype="lowpass", fs=SR, output="sos")
    return sosfilt(sos, x)


def _slow(n: int, rng: np.random.Generator, rate_hz: float) -> np.ndarray:
    """A smooth random curve (zero mean, unit s.d.) varying at about ``rate_hz``."""
    knots = rng.standard_normal(max(4, int(n / SR * rate_hz) + 4))
    curve = np.interp(np.arange(n), np.linspace(0, n, knots.size), knots)
    return (curve - curve.mean()) / (curve.std() + 1e-12)


def _place(out: np.ndarray, event: np.ndarray, at: int) -> None:
    if at >= out.size:
        return
    m = min(event.size, out.size - at)
    out[at:at + m] += event[:m]


def _irregular_onsets(n: int, rng: np.random.Generator, mean_gap_s: float, first_s: float = 0.6) -> list[int]:
    """Event onsets with exponential gaps (a Poisson process): irregular, non-stationary."""
    onsets, t = [], rng.uniform(0.0, first_s)
    while t * SR < n:
        onsets.append(int(t * SR))
        t += rng.exponential(mean_gap_s) + 0.15
    return onsets


def _decay(n: int, tau_s: float) -> np.ndarray:
    return np.exp(-np.arange(n) / (tau_s * SR))


# Animal calls: (F0 range, intonation s.d. st, jitter %, shimmer %, breathiness, syllables/s,
# tract factor, call length range s, mean gap s). Registers stay inside the synthesiser's 80–480 Hz.
_CALLS = {
    "cow": ((95.0, 140.0), 1.0, 1.5, 5.0, 0.3, 1.0, 0.75, (1.0, 2.0), 2.0),
    "sheep": ((220.0, 320.0), 1.5, 3.5, 10.0, 0.35, 3.0, 1.1, (0.8, 1.4), 1.8),
    "dog": ((300.0, 420.0), 1.2, 3.0, 12.0, 0.5, 4.0, 0.9, (0.8, 1.0), 1.2),
    "hen": ((350.0, 450.0), 1.0, 2.0, 8.0, 0.3, 6.0, 1.3, (0.8, 1.5), 1.5),
}


def _voice(name: str, f0: float, st: float, jit: float, shim: float, breath: float, rate: float,
           scale: float, pauses_per_min: float = 0.0) -> TalkerParams:
    return TalkerParams(talker_id=name, sex="female", f0_hz=f0, f0_range_st=st, jitter_pct=jit, shimmer_pct=shim,
                        breathiness=breath, articulation_rate=rate, pauses_per_min=pauses_per_min,
                        formant_scale=scale)


def synth_animal(category: str, n: int, rng: np.random.Generator) -> np.ndarray:
    (f_lo, f_hi), st, jit, shim, breath, rate, scale, (d_lo, d_hi), gap = _CALLS[category]
    animal = _voice(category, float(rng.uniform(f_lo, f_hi)), st, jit, shim, breath, rate, scale)
    out = np.zeros(n)
    for at in _irregular_onsets(n, rng, gap):
        call = synthesize_talker(animal, float(rng.uniform(d_lo, d_hi)), int(rng.integers(2**31))).waveform
        _place(out, call * rng.uniform(0.6, 1.0), at)
    return out


def synth_children(n: int, rng: np.random.Generator, n_children: int = 3) -> np.ndarray:
    """Children playing: several child voices talking and calling at once (a vocal-like babble)."""
    lo, hi = CATEGORIES["children_playing"].register_hz
    dur = max(n / SR, 1.5)
    out = np.zeros(n)
    for i in range(n_children):
        child = _voice(f"child{i}", float(rng.uniform(lo, hi)), float(rng.uniform(1.5, 3.0)), 1.0, 4.0, 0.2,
                       float(rng.uniform(4.0, 6.0)), float(rng.uniform(1.3, 1.45)),
                       int(rng.integers(1, 4)) * 60.0 / dur)  # one to three pauses over the stretch
        wave = synthesize_talker(child, dur, int(rng.integers(2**31))).waveform[:n]
        out[:wave.size] += wave * rng.uniform(0.5, 1.0) * (1.0 + 0.5 * np.clip(_slow(wave.size, rng, 0.5), 0, None))
    return out


def synth_rain(n: int, rng: np.random.Generator) -> np.ndarray:
    """Heavy rain: broadband band-passed noise with droplet clicks on top."""
    hiss = _band(rng.standard_normal(n), 500.0, 7000.0) * (1.0 + 0.1 * _slow(n, rng, 0.3))
    drops = np.zeros(n)
    for at in np.flatnonzero(rng.random(n) < 80.0 / SR):
        length = int(rng.uniform(0.002, 0.006) * SR)
        _place(drops, rng.standard_normal(length) * _decay(length, 0.0015) * rng.lognormal(0, 0.5), int(at))
    return _unit(hiss) + 0.5 * _unit(_band(drops, 2000.0, 7500.0, 2))


def synth_wind(n: int, rng: np.random.Generator) -> np.ndarray:
    """Gusting wind: low band-passed noise under a slowly, strongly varying envelope."""
    body = _band(lfilter([1.0], [1.0, -0.98], rng.standard_normal(n)), 80.0, 1000.0, 2)
    gusts = np.exp(0.9 * _slow(n, rng, 0.4))
    return _unit(body) * gusts


def thunder_bursts(n: int, rng: np.random.Generator) -> tuple[np.ndarray, list[int]]:
    """Thunder: low-pass brown-noise bursts (< 120 Hz), sharp attack and long rumbling decay; and onsets."""
    out = np.zeros(n)
    onsets = _irregular_onsets(n, rng, mean_gap_s=5.0, first_s=2.0)
    for at in onsets:
        length = int(rng.uniform(2.0, 4.0) * SR)
        rumble = lfilter([1.0], [1.0, -0.995], rng.standard_normal(length + SR))[SR:]
        rumble = _band(rumble, None, 120.0)
        attack = np.minimum(1.0, np.arange(length) / (rng.uniform(0.02, 0.08) * SR))
        env = attack * _decay(length, rng.uniform(0.8, 1.6)) * (1.0 + 0.5 * np.clip(_slow(length, rng, 5.0), -1, 1))
        _place(out, _unit(rumble) * env * rng.uniform(0.6, 1.0), at)
    return out, onsets


def synth_chimes(n: int, rng: np.random.Generator) -> np.ndarray:
    """Wind chimes: strikes of inharmonic partials (tubular-bell ratios) decaying over seconds."""
    tubes = rng.choice([523.25, 587.33, 659.25, 783.99, 880.0, 1046.5], size=4, replace=False)
    ratios, amps, taus = (1.0, 2.76, 5.40, 8.93), (1.0, 0.5, 0.25, 0.12), (1.5, 0.8, 0.4, 0.2)
    t = np.arange(int(3.0 * SR)) / SR
    out = np.zeros(n)
    for at in _irregular_onsets(n, rng, mean_gap_s=1.0):
        f = tubes[int(rng.integers(tubes.size))]
        strike = sum(a * np.sin(2 * np.pi * f * r * t + rng.uniform(0, 2 * np.pi)) * np.exp(-t / tau)
                     for r, a, tau in zip(ratios, amps, taus) if f * r < 0.45 * SR)
        _place(out, strike * rng.uniform(0.4, 1.0), at)
    return out


def _click(rng: np.random.Generator, length_s: float, tau_s: float, lo: float, hi: float) -> np.ndarray:
    length = int(length_s * SR)
    return _band(rng.standard_normal(length) * _decay(length, tau_s), lo, hi, 2)


def synth_clock(n: int, rng: np.random.Generator, rate_hz: float = CLOCK_TICK_HZ) -> np.ndarray:
    """A clock: one tick every 1/rate_hz s (tick and tock alternate in pitch and level)."""
    out = np.zeros(n)
    period = SR / rate_hz
    pos, i = rng.uniform(0.0, period), 0
    while pos < n:
        lo, hi, gain = (2500.0, 6000.0, 1.0) if i % 2 == 0 else (1800.0, 4500.0, 0.8)
        _place(out, gain * _click(rng, 0.012, 0.002, lo, hi), int(pos))
        pos += period * (1.0 + 0.001 * rng.standard_normal())
        i += 1
    return out


def synth_typing(n: int, rng: np.random.Generator) -> np.ndarray:
    """Keyboard typing: words of 3–8 keystroke impulses at 5–12 keys/s, pauses between words."""
    out = np.zeros(n)
    t = rng.uniform(0.0, 0.5)
    while t * SR < n:
        for _ in range(int(rng.integers(3, 9))):
            key = _click(rng, 0.015, 0.003, 1000.0, 4000.0)
            body = np.sin(2 * np.pi * rng.uniform(200, 400) * np.arange(key.size) / SR) * _decay(key.size, 0.004)
            _place(out, (key / (np.abs(key).max() + 1e-12) + 0.4 * body) * rng.uniform(0.5, 1.0), int(t * SR))
            t += rng.uniform(0.08, 0.2)
        t += rng.uniform(0.3, 1.0)
    return out


def synth_cough(n: int, rng: np.random.Generator) -> np.ndarray:
    """Coughs: an explosive broadband burst, then turbulent noise through vowel-like resonances (unvoiced)."""
    out = np.zeros(n)
    for at in _irregular_onsets(n, rng, mean_gap_s=3.0):
        burst_n, tail_n = int(0.04 * SR), int(rng.uniform(0.2, 0.35) * SR)
        burst = rng.standard_normal(burst_n) * _decay(burst_n, 0.012) * 3.0
        tail = rng.standard_normal(tail_n)
        for f, bw in ((rng.uniform(600, 800), 150.0), (rng.uniform(1100, 1400), 200.0)):
            r = np.exp(-np.pi * bw / SR)
            tail = lfilter([1 - r], [1.0, -2 * r * np.cos(2 * np.pi * f / SR), r * r], tail)
        tail = _unit(tail) * np.sin(np.linspace(0, np.pi, tail_n)) ** 0.5 * _decay(tail_n, 0.15)
        _place(out, np.concatenate([burst, tail]) * rng.uniform(0.6, 1.0), at)
    return out


def synth_drinking(n: int, rng: np.random.Generator) -> np.ndarray:
    """Drinking: groups of gulps (low resonances rising in pitch) after a slurp of band-passed noise."""
    out = np.zeros(n)
    for at in _irregular_onsets(n, rng, mean_gap_s=3.0):
        slurp_n = int(0.2 * SR)
        _place(out, 0.4 * _unit(_band(rng.standard_normal(slurp_n), 1000.0, 3000.0, 2)) * np.hanning(slurp_n), at)
        t = at + slurp_n
        for _ in range(int(rng.integers(2, 5))):
            m = int(0.07 * SR)
            f = rng.uniform(150, 400) * (1 + 0.6 * np.arange(m) / m)
            gulp = np.sin(2 * np.pi * np.cumsum(f) / SR) * _decay(m, 0.02)
            _place(out, gulp, t)
            t += int(rng.uniform(0.25, 0.45) * SR)
    return out


def synth_birds(n: int, rng: np.random.Generator) -> np.ndarray:
    """Birds: bouts of FM chirps (downward sweeps from 3–5 kHz with a 20–40 Hz vibrato)."""
    out = np.zeros(n)
    for at in _irregular_onsets(n, rng, mean_gap_s=1.5):
        t = at
        for _ in range(int(rng.integers(3, 9))):
            m = int(rng.uniform(0.04, 0.12) * SR)
            tt = np.arange(m) / SR
            f0 = rng.uniform(3000, 5000)
            f = f0 - rng.uniform(1000, 2000) * tt / tt[-1] + 200 * np.sin(2 * np.pi * rng.uniform(20, 40) * tt)
            _place(out, np.sin(2 * np.pi * np.cumsum(f) / SR) * np.hanning(m) * rng.uniform(0.5, 1.0), t)
            t += m + int(rng.uniform(0.03, 0.1) * SR)
    return out


def synth_stream(n: int, rng: np.random.Generator) -> np.ndarray:
    """A flowing stream: band-passed noise with Minnaert bubble blips (short rising sinusoids)."""
    flow = _unit(_band(rng.standard_normal(n), 200.0, 4000.0, 2))
    bubbles = np.zeros(n)
    for at in np.flatnonzero(rng.random(n) < 30.0 / SR):
        m = int(rng.uniform(0.01, 0.03) * SR)
        f = rng.uniform(400, 1500) * (1 + rng.uniform(0.2, 0.4) * np.arange(m) / m)
        _place(bubbles, np.sin(2 * np.pi * np.cumsum(f) / SR) * _decay(m, 0.008), int(at))
    return flow + 0.7 * _unit(bubbles)


def synth_footsteps(n: int, rng: np.random.Generator) -> np.ndarray:
    """Footsteps on grass: rustle bursts (crackly high-passed noise) at 1.6–2.2 steps/s, walking in spans."""
    out = np.zeros(n)
    rate = rng.uniform(1.6, 2.2)
    t = rng.uniform(0.0, 0.5)
    while t * SR < n:
        span_end = t + rng.uniform(3.0, 6.0)
        while t < span_end and t * SR < n:
            m = int(rng.uniform(0.15, 0.25) * SR)
            grain = rng.standard_normal(m) * (rng.random(m) < 0.3)
            env = np.minimum(1.0, np.arange(m) / (0.01 * SR)) * _decay(m, 0.06)
            _place(out, _band(grain, 1500.0, None, 2) * env * rng.uniform(0.6, 1.0), int(t * SR))
            t += (1.0 / rate) * (1.0 + 0.05 * rng.standard_normal())
        t += rng.uniform(1.0, 3.0)
    return out


_SYNTHS: dict[str, Callable[[int, np.random.Generator], np.ndarray]] = {
    **{name: (lambda n, rng, _name=name: synth_animal(_name, n, rng)) for name in _CALLS},
    "children_playing": synth_children,
    "rain": synth_rain, "wind": synth_wind, "thunder": lambda n, rng: thunder_bursts(n, rng)[0],
    "wind_chimes": synth_chimes, "clock_tick": synth_clock, "cough": synth_cough,
    "keyboard_typing": synth_typing, "drinking": synth_drinking, "birds": synth_birds,
    "stream": synth_stream, "footsteps_grass": synth_footsteps,
}
assert set(_SYNTHS) == set(CATEGORIES), "every category needs its synthesiser"


def synthesize_source(category: str, n: int, seed: int) -> np.ndarray:
    """``n`` samples of a synthesised source of ``category`` (a pure function of the seed)."""
    if category not in _SYNTHS:
        raise ValueError(f"unknown scene source category {category!r}; known: {', '.join(CATEGORIES)}")
    x = _SYNTHS[category](n, np.random.default_rng(seed))
    if not np.any(x):  # a sparse source whose first event falls past a very short clip
        x = _SYNTHS[category](max(n, 4 * SR), np.random.default_rng(seed))[:n]
    return x


# --------------------------------------------------------------------------- steps 2–4, and events

def source_signal(spec: dict, n: int) -> np.ndarray:
    """Steps 1–2: the source's samples looped to ``n`` (``w̃[i] = w[i mod M]``)."""
    if spec["origin"] == "recording":
        return loop_to_length(_load_noise(spec["path"]), n)
    return synthesize_source(spec["category"], n, spec["seed"])


def superpose(sources: list[np.ndarray], lambdas: list[float]) -> np.ndarray:
    """Steps 3–4 before the clip, in units of the speech's RMS: ``Σ_k λ_k · w̃_k / R_w̃k``.

    Multiplied by ``R_s`` (what :func:`~acousticlaim.corpus.mixing.mix_sources` does when it is given the
    SNR ``−20·log10 RMS(result)``) each source sits at RMS ``λ_k·R_s``.
    """
    if len(sources) != len(lambdas):
        raise ValueError(f"{len(sources)} sources for {len(lambdas)} gains")
    silent = [i for i, w in enumerate(sources) if rms(w) == 0.0]
    if silent:
        raise ValueError(f"scene source(s) {silent} are silent over the clip; an RMS alignment needs sound")
    return sum(lam * w / rms(w) for w, lam in zip(sources, lambdas))


def sounding_intervals(x: np.ndarray, floor_db: float, min_gap_s: float, sr: int = SR) -> list[tuple[float, float]]:
    """(onset, offset) in seconds of the runs of frames within ``floor_db`` of the signal's loud frames."""
    active = active_frames(x, sr, EVENT_FRAME_S, EVENT_HOP_S, floor_db)
    if not active.any():
        return []
    edges = np.diff(np.concatenate([[0], active.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)  # frame indices, end exclusive
    runs: list[list[float]] = []
    for s, e in zip(starts, ends):
        onset, offset = s * EVENT_HOP_S, min((e - 1) * EVENT_HOP_S + EVENT_FRAME_S, x.size / sr)
        if runs and onset - runs[-1][1] < min_gap_s:
            runs[-1][1] = offset
        else:
            runs.append([onset, offset])
    return [(round(a, 4), round(b, 4)) for a, b in runs]


@dataclass
class SceneMix:
    """One condition's interference (speech-RMS units), the SNR that places it, and its labelled events."""

    interference: np.ndarray
    snr_db: float
    source_snr_db: float  # every source's level against the speech (−20·log10 λ_k)
    fields: dict
    events: list[dict]


def build_condition(condition: dict, n: int, snr_db: float, scenes: dict) -> SceneMix:
    """Interference of one condition for a speech of ``n`` samples; ``snr_db`` is the mixture's drawn SNR."""
    events_cfg = scenes.get("events") or {}
    floor_db, min_gap = float(events_cfg.get("floor_db", -30.0)), float(events_cfg.get("min_gap_s", 0.1))
    specs = condition["sources"]
    fields = {"scene_soundscape": condition["soundscape"], "scene_k": condition["k"],
              "scene_categories": "+".join(s["category"] for s in specs),
              "scene_n_vocal_like": int(sum(bool(s["vocal_like"]) for s in specs))}
    if not specs:  # the design's clean version
        return SceneMix(np.zeros(n), float("inf"), float("nan"), {**fields, "scene_source_snr_db": float("nan")}, [])
    sources = [source_signal(s, n) for s in specs]
    if condition["level"] == "snr":  # equal λ_k, the sum at the drawn SNR
        unit_sum = superpose(sources, [1.0] * len(sources))
        lam = 10 ** (-snr_db / 20) / rms(unit_sum)
        source_snr = float(-20 * np.log10(lam))
    else:  # λ_k fixed: the interference grows with K, as in RSA-Bench
        source_snr = float(scenes.get("source_snr_db", 0.0))
        lam = 10 ** (-source_snr / 20)
    interference = superpose(sources, [lam] * len(sources))
    events = []
    for i, (spec, w) in enumerate(zip(specs, sources)):
        for onset, offset in sounding_intervals(w, floor_db, min_gap):
            events.append({"source_index": i, "soundscape": condition["soundscape"], "category": spec["category"],
                           "kind": spec["kind"], "vocal_like": bool(spec["vocal_like"]), "origin": spec["origin"],
                           "source": spec["path"] or f"syn:{spec['category']}", "level_db": -source_snr,
                           "onset_s": onset, "offset_s": offset})
    mix_snr = -20 * np.log10(rms(interference))
    return SceneMix(interference, float(mix_snr), float(source_snr), {**fields, "scene_source_snr_db": float(source_snr)},
                    events)


def noise_label(specs: list[dict]) -> str:
    return "+".join(Path(s["path"]).name if s["path"] else f"syn:{s['category']}" for s in specs)


def events_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=EVENT_COLUMNS)
    return frame.sort_values(["clip_id", "source_index", "onset_s"], kind="stable").reset_index(drop=True)


def read_scene_events(corpus_dir: str | Path) -> pd.DataFrame:
    """The scene sources in time of a scenes corpus (``scene_events.parquet`` beside the manifest)."""
    path = Path(corpus_dir) / "scene_events.parquet"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no scene events (build the corpus with corpus.scenes.enabled: true)")
    return pd.read_parquet(path)
