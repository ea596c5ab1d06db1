"""Rooms: a bank of room impulse responses, recorded (a directory) or simulated (pyroomacoustics).

A simulated room is a shoebox of random size whose wall absorption is set by Sabine's formula for a
target RT60 (``pyroomacoustics.inverse_sabine``), with one microphone and two talkers, each at a
distance drawn from ``mic_distance_m`` (``params.yaml``: ``corpus.mic_distance_m``), so a mixture's two
talkers share a room as in a real recording. The distance sets the direct-to-reverberant ratio, which
moves the twins' shimmer and HNR as much as the RT60 does (see :mod:`acousticlaim.corpus.synthetic`). The RT60 recorded is the one measured on
the simulated response (Schroeder integration), which runs above the Sabine target for the image
method. Recorded RIRs are read with the project's audio loader and their RT60 measured the same way.

Each RIR is stored as a 16-kHz float WAV under ``rirs/`` in the corpus folder and named by its id
(``room07_s1``), so jobs refer to it by path and the bank is inspectable.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from acousticlaim.audio import TARGET_SR, AudioError, load_audio, write_audio

RIR_SUFFIXES = (".wav", ".flac")


DEFAULT_MIC_DISTANCE_M = (0.2, 0.8)


@dataclass(frozen=True)
class RoomSpec:
    room_id: str
    seed: int
    rt60_target: float
    mic_distance_m: tuple[float, float] = DEFAULT_MIC_DISTANCE_M  # talker–microphone distance range


def measure_rt60(h: np.ndarray, sr: int = TARGET_SR) -> float:
    """RT60 of an impulse response by Schroeder backward integration (T30 extrapolated)."""
    import pyroomacoustics as pra

    try:
        return float(pra.experimental.rt60.measure_rt60(h, fs=sr, decay_db=30))
    except Exception:
        return float("nan")


def simulate_room(spec: RoomSpec, out_dir: str | Path) -> list[dict]:
    """Simulate one shoebox room; write its two RIRs; return their bank rows."""
    import pyroomacoustics as pra

    rng = np.random.default_rng(spec.seed)
    for _ in range(50):
        dims = np.array([rng.uniform(3.5, 9.0), rng.uniform(3.0, 7.0), rng.uniform(2.5, 3.5)])
        try:
            absorption, max_order = pra.inverse_sabine(spec.rt60_target, dims)
            break
        except ValueError:  # the target RT60 is impossible in so small a room: draw another
            continue
    else:
        raise RuntimeError(f"{spec.room_id}: no room size reaches RT60 {spec.rt60_target:.2f} s")
    room = pra.ShoeBox(dims, fs=TARGET_SR, materials=pra.Material(absorption), max_order=int(max_order))

    margin = 0.5

    def inside():
        return np.array([rng.uniform(margin, d - margin) for d in dims[:2]] + [rng.uniform(1.2, 1.8)])

    def at_distance(mic: np.ndarray) -> np.ndarray:
        """A talker position in the room at a drawn horizontal distance from the microphone."""
        lo, hi = spec.mic_distance_m
        for _ in range(200):
            r, phi = rng.uniform(lo, hi), rng.uniform(0, 2 * np.pi)
            pos = mic + np.array([r * np.cos(phi), r * np.sin(phi), rng.uniform(-0.2, 0.2)])
            if all(margin <= pos[i] <= dims[i] - margin for i in range(2)):
                return pos
        raise RuntimeError(f"{spec.room_id}: no talker position {lo}-{hi} m from the microphone fits the room")

    mic = inside()
    room.add_microphone(mic)
    for _ in range(2):
        room.add_source(at_distance(mic))
    room.compute_rir()
    rows = []
    for k in range(2):
        h = np.asarray(room.rir[0][k], dtype=np.float64)
        h = h / np.sqrt(np.sum(h**2))  # unit energy: levels are set after convolution
        rir_id = f"{spec.room_id}_s{k + 1}"
        path = write_audio(Path(out_dir) / f"{rir_id}.wav", h)
        rows.append({"rir_id": rir_id, "room_id": spec.room_id, "path": str(path), "rt60": measure_rt60(h),
                     "rt60_target": spec.rt60_target, "room_dims": dims.round(2).tolist(),
                     "mic_distance_m": float(np.linalg.norm(np.asarray(room.sources[k].position) - np.asarray(mic)))})
    return rows


def room_specs(n_rooms: int, rt60_range: tuple[float, float], seed: int,
               mic_distance_m: tuple[float, float] | None = None) -> list[RoomSpec]:
    distance = tuple(float(d) for d in (mic_distance_m or DEFAULT_MIC_DISTANCE_M))
    if len(distance) != 2 or not 0 < distance[0] <= distance[1]:
        raise ValueError(f"corpus.mic_distance_m: need [lo, hi] with 0 < lo <= hi metres, got {mic_distance_m!r}")
    rng = np.random.default_rng([seed, 7001])
    return [RoomSpec(f"room{i:02d}", int(rng.integers(2**31)), float(rng.uniform(*rt60_range)), distance)
            for i in range(n_rooms)]


def recorded_rirs(rir_dir: str | Path) -> list[dict]:
    """Bank rows for every readable RIR file under ``rir_dir`` (recursively)."""
    rir_dir = Path(rir_dir)
    if not rir_dir.is_dir():
        raise FileNotFoundError(f"corpus.rir_dir {rir_dir}: not a directory")
    rows = []
    for path in sorted(p for p in rir_dir.rglob("*") if p.suffix.lower() in RIR_SUFFIXES):
        try:
            h, _ = load_audio(path, min_duration_s=0.001)
        except AudioError:
            continue
        rows.append({"rir_id": path.stem, "room_id": path.parent.name, "path": str(path), "rt60": measure_rt60(h),
                     "rt60_target": float("nan"), "room_dims": None})
    if not rows:
        raise FileNotFoundError(f"corpus.rir_dir {rir_dir}: no readable .wav/.flac impulse responses")
    return rows


@lru_cache(maxsize=256)
def load_rir(path: str) -> np.ndarray:
    """An RIR from the bank (cached per process), scaled to unit energy."""
    h, _ = load_audio(path, min_duration_s=0.0001)
    return h / np.sqrt(np.sum(h**2))
