"""Build a corpus: plan every clip as a job, run the jobs in a pool, write the manifest.

``build_corpus(cfg, out)`` is the `corpus` DVC stage. It

1. builds the room bank (simulated shoeboxes, or the RIRs under ``rir_dir``) and the noise list;
2. plans one job per mixture (or AMI clip): a plain dict holding everything the clip depends on —
   sources, room, noise, SNR, talker-to-talker ratio, level, seeds — so a clip is a pure function of its
   job and runs the same in a local pool or on Dask;
3. runs the jobs (:func:`acousticlaim.executor.map_clips`, with a progress bar); a job whose source
   cannot be read returns a recorded failure instead of raising;
4. writes ``manifest.parquet``, ``failures.parquet``, ``rirs.parquet`` and ``summary.json``.

Layout under ``out``: ``audio/<split>/<clip>.flac`` (mixtures, AMI clips),
``stems/<split>/<mixture>/{s1,s2,noise}.flac`` (``s1`` is also the clean twin's audio), ``rirs/``.
"""

from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from acousticlaim.audio import TARGET_SR, AudioError, load_audio, write_audio
from acousticlaim.corpus import ami as ami_source
from acousticlaim.corpus import librispeech as ls
from acousticlaim.corpus.manifest import mixture_id_of, twin_id, write_manifest
from acousticlaim.corpus.mixing import mix_sources, overlap_fraction
from acousticlaim.corpus.noise import NOISE_KINDS, noise_files, noise_source, scene_interference
from acousticlaim.corpus.rooms import load_rir, recorded_rirs, room_specs, simulate_room
from acousticlaim.corpus.synthetic import TalkerParams, draw_talker, synthesize_talker
from acousticlaim.executor import map_clips
from acousticlaim.failures import Failure, write_failures
from acousticlaim.io import write_json, write_parquet
from acousticlaim.safe_names import clip_id_problem, path_under

SOURCES = ("synthetic", "librispeech", "libri2mix", "ami")
SPLITS = ("train", "test")
STAGE = "corpus"


@dataclass
class BuildResult:
    out: Path
    n_clips: int
    n_failures: int


# --------------------------------------------------------------------------------------------- plan

def _draws(cfg: dict, rng: np.random.Generator) -> dict:
    return {
        "snr_db": float(rng.uniform(*cfg["snr_db"])),
        "ttr_db": float(rng.uniform(*cfg["ttr_db"])),
        "level_dbfs": float(rng.uniform(*cfg["speech_level_dbfs"])),
    }


def _room_and_noise(cfg: dict, rng: np.random.Generator, rooms: dict[str, list[dict]], noises: list[str]) -> dict:
    room_id = sorted(rooms)[int(rng.integers(len(rooms)))]
    pair = rooms[room_id]
    if len(pair) >= 2:
        r1, r2 = pair[0], pair[1]
    else:  # recorded RIRs: two draws from the whole bank
        flat = [r for rs in rooms.values() for r in rs]
        r1, r2 = (flat[i] for i in rng.choice(len(flat), size=2, replace=len(flat) < 2))
    scenes = cfg.get("scenes") or {}
    k = int(rng.integers(scenes["k"][0], scenes["k"][1] + 1)) if scenes.get("enabled") else 0
    pool = noises or [f"gen:{kind}" for kind in NOISE_KINDS]
    n_src = max(1, k)
    chosen = [pool[int(i)] for i in rng.choice(len(pool), size=n_src, replace=len(pool) < n_src)]
    return {
        "room_id": room_id, "rir_1": r1["rir_id"], "rir_1_path": r1["path"], "rt60_1": r1["rt60"],
        "rir_2": r2["rir_id"], "rir_2_path": r2["path"], "rt60_2": r2["rt60"],
        "noise_sources": chosen, "scene_k": k, "noise_seed": int(rng.integers(2**31)),
    }


def plan_synthetic(cfg: dict, rooms: dict, noises: list[str], out: Path) -> list[dict]:
    jobs = []
    counts = {"train": int(cfg["n_train"]), "test": int(cfg["n_test"])}
    n_speakers = {"train": int(cfg.get("n_speakers_train", 40)), "test": int(cfg.get("n_speakers_test", 20))}
    base_id = {"train": 80000, "test": 90000}  # speaker ids disjoint between splits and from LibriSpeech
    for split in SPLITS:
        rng = np.random.default_rng([int(cfg["seed"]), SPLITS.index(split)])
        talkers = [draw_talker(rng, str(base_id[split] + i)) for i in range(n_speakers[split])]
        utt_counter = {t.talker_id: 0 for t in talkers}
        for _ in range(counts[split]):
            i1, i2 = rng.choice(len(talkers), size=2, replace=False)
            legs = []
            for t in (talkers[i1], talkers[i2]):
                utt = f"{t.talker_id}-0-{utt_counter[t.talker_id]:04d}"
                utt_counter[t.talker_id] += 1
                legs.append({"talker": asdict(t), "utt": utt, "seed": int(rng.integers(2**31)),
                             "duration_s": float(rng.uniform(6.0, 14.0))})
            job = {
                "source": "synthetic", "split": split, "out": str(out),
                "mixture_id": mixture_id_of(legs[0]["utt"], legs[1]["utt"]),
                "legs": legs, "s2_offset_s": float(rng.uniform(0.0, 1.0)),
                "max_duration_s": float(cfg["max_duration_s"]),
            }
            job.update(_draws(cfg, rng))
            job.update(_room_and_noise(cfg, rng, rooms, noises))
            jobs.append(job)
    return jobs


def _limit(n: Any) -> int | None:
    return None if n is None else int(n)


def plan_librispeech(cfg: dict, rooms: dict, noises: list[str], out: Path) -> list[dict]:
    splits = ls.scan_librispeech(cfg["librispeech_dir"], cfg["train_subset"], cfg["test_subset"])
    jobs = []
    for split in SPLITS:
        speakers = sorted(splits[split])
        n = _limit(cfg.get(f"n_{split}"))
        if len(speakers) < 2:
            if n:
                raise ValueError(f"{cfg['librispeech_dir']}: the {split} split needs at least two speakers, has {len(speakers)}")
            continue
        rng = np.random.default_rng([int(cfg["seed"]), 100 + SPLITS.index(split)])
        seen: set[str] = set()
        target = n if n is not None else sum(len(v) for v in splits[split].values()) // 2
        tries = 0
        while len(seen) < target and tries < 50 * max(target, 1):
            tries += 1
            a, b = rng.choice(len(speakers), size=2, replace=False)
            u1 = splits[split][speakers[a]][int(rng.integers(len(splits[split][speakers[a]])))]
            u2 = splits[split][speakers[b]][int(rng.integers(len(splits[split][speakers[b]])))]
            mix_id = mixture_id_of(u1.utt_id, u2.utt_id)
            if mix_id in seen:
                continue
            seen.add(mix_id)
            job = {
                "source": "librispeech", "split": split, "out": str(out), "mixture_id": mix_id,
                "legs": [{"utt": u.utt_id, "speaker": u.speaker, "path": u.path, "transcript": u.transcript}
                         for u in (u1, u2)],
                "s2_offset_s": 0.0, "max_duration_s": float(cfg["max_duration_s"]),
            }
            job.update(_draws(cfg, rng))
            job.update(_room_and_noise(cfg, rng, rooms, noises))
            jobs.append(job)
    return jobs


def plan_libri2mix(cfg: dict, rooms: dict, noises: list[str], out: Path) -> list[dict]:
    meta_cfg = cfg["libri2mix_metadata"]
    by_split = meta_cfg if isinstance(meta_cfg, dict) else {cfg.get("libri2mix_split", "test"): meta_cfg}
    jobs = []
    for split, csv in by_split.items():
        if split not in SPLITS:
            raise ValueError(f"corpus.libri2mix_metadata: unknown split {split!r}; use train/test")
        meta = ls.read_libri2mix_metadata(csv, cfg.get("libri2mix_root"))
        n = _limit(cfg.get(f"n_{split}"))
        if n is not None:
            meta = meta.head(n)
        rng = np.random.default_rng([int(cfg["seed"]), 200 + SPLITS.index(split)])
        for row, rec in enumerate(meta.itertuples(index=False)):
            job = {
                "source": "libri2mix", "split": split, "out": str(out), "mixture_id": rec.mixture_id,
                "origin": f"{csv} row {row + 1} (mixture_ID)",
                "legs": [{"utt": rec.utt_1, "speaker": rec.speaker_1, "path": rec.path_1, "transcript": ""},
                         {"utt": rec.utt_2, "speaker": rec.speaker_2, "path": rec.path_2, "transcript": ""}],
                "s2_offset_s": 0.0, "max_duration_s": float(cfg["max_duration_s"]),
            }
            job.update(_draws(cfg, rng))
            job.update(_room_and_noise(cfg, rng, rooms, noises))
            jobs.append(job)
    return jobs


def plan_ami(cfg: dict, out: Path) -> list[dict]:
    """AMI clips (:mod:`acousticlaim.corpus.ami`): speaker segments or consecutive windows (``ami_cut``)."""
    cut = cfg.get("ami_cut", "segments")
    meetings = cfg.get("ami_meetings")
    if not cfg.get("ami_dir"):
        raise ValueError("corpus.source is 'ami' but corpus.ami_dir is null; point it at the distant-microphone recordings")
    if cut == "segments":
        if not cfg.get("ami_annotations_dir"):
            raise ValueError("corpus.ami_cut is 'segments' but corpus.ami_annotations_dir is null; point it at the AMI "
                             "manual annotations (ami_public_manual: segments/, corpusResources/meetings.xml) "
                             "or set corpus.ami_cut: windows")
        clips = ami_source.plan_segment_clips(cfg["ami_dir"], cfg["ami_annotations_dir"], meetings,
                                              tuple(cfg.get("ami_segment_s", (3.0, 12.0))))
    elif cut == "windows":
        clips = ami_source.plan_window_clips(cfg["ami_dir"], float(cfg.get("ami_clip_s", 10.0)), meetings)
    else:
        raise ValueError(f"corpus.ami_cut {cut!r}: use one of {', '.join(ami_source.CUTS)}")
    n = _limit(cfg.get("ami_max_clips"))
    clips = clips if n is None else clips[:n]
    return [{"source": "ami", "split": "test", "out": str(out), **asdict(c)} for c in clips]


# ---------------------------------------------------------------------------------------------- run

def _rel(path: Path, out: Path) -> str:
    return str(path.relative_to(out))


def _leg_audio(job: dict, leg: dict) -> tuple[np.ndarray, dict]:
    """A dry source waveform and its manifest fields."""
    if job["source"] == "synthetic":
        talker = TalkerParams(**leg["talker"])
        utt = synthesize_talker(talker, leg["duration_s"], leg["seed"])
        return utt.waveform, {"speaker": talker.talker_id, "talker": talker, "utterance": utt}
    x, _ = load_audio(leg["path"])
    return x, {"speaker": leg["speaker"], "transcript": leg.get("transcript", "")}


def _noise(job: dict, n: int) -> np.ndarray:
    parts = [noise_source(spec, n, job["noise_seed"] + i) for i, spec in enumerate(job["noise_sources"])]
    return parts[0] if len(parts) == 1 else parts  # a list for scenes


def _bad_clip_id(job: dict, clip_id: Any) -> dict | None:
    """A recorded failure (naming where the id came from) for an id that cannot name a file, else None."""
    problem = clip_id_problem(clip_id)
    if problem is None:
        return None
    where = job.get("origin") or f"{job['source']} clip"
    return {"rows": [], "failures": [Failure(str(clip_id), STAGE, f"{where}: {problem}; the clip is skipped")]}


def build_mixture(job: dict) -> dict:
    """Build one mixture, its stems and twin; return manifest rows, or a recorded failure."""
    out = Path(job["out"])
    mix_id, split = job["mixture_id"], job["split"]
    bad_id = _bad_clip_id(job, mix_id)
    if bad_id:
        return bad_id
    try:
        (x1, info1), (x2, info2) = (_leg_audio(job, leg) for leg in job["legs"])
        h1, h2 = load_rir(job["rir_1_path"]), load_rir(job["rir_2_path"])
        offset = int(round(job["s2_offset_s"] * TARGET_SR))
        max_samples = int(round(job["max_duration_s"] * TARGET_SR))
        n = min(x1.size, x2.size + offset, max_samples)
        noise = _noise(job, n)
        scene = job["scene_k"] > 0
        if scene:  # RSA-Bench: sources RMS-aligned to the speech and summed; mix_sources sets the SNR
            noise = scene_interference(x1[:n], noise, 0.0)
        mix = mix_sources(x1, x2, h1, h2, noise, snr=job["snr_db"], ttr=job["ttr_db"], level_dbfs=job["level_dbfs"],
                          max_samples=max_samples, s2_offset=offset, clip=scene)
    except AudioError as exc:
        return {"rows": [], "failures": [Failure(mix_id, STAGE, str(exc))]}
    except Exception as exc:  # a bad RIR or noise file: recorded against the clip, the stage goes on
        return {"rows": [], "failures": [Failure(mix_id, STAGE, f"{type(exc).__name__}: {exc}")]}

    stem_dir = path_under(out, "stems", split, mix_id)
    mix_path = write_audio(path_under(out, "audio", split, f"{mix_id}.flac"), mix.mixture)
    s1_path = write_audio(stem_dir / "s1.flac", mix.s1)
    s2_path = write_audio(stem_dir / "s2.flac", mix.s2)
    noise_path = write_audio(stem_dir / "noise.flac", mix.noise)
    duration = mix.mixture.size / TARGET_SR
    common = {
        "corpus": "librimix", "source": job["source"], "split": split, "mixture_id": mix_id,
        "s1_path": _rel(s1_path, out), "s2_path": _rel(s2_path, out), "noise_path": _rel(noise_path, out),
        "speaker_1": info1["speaker"], "speaker_2": info2["speaker"],
        "utt_1": job["legs"][0]["utt"], "utt_2": job["legs"][1]["utt"], "transcript_1": info1.get("transcript", ""),
        "snr_db": mix.snr_db, "ttr_db": mix.ttr_db, "level_dbfs": job["level_dbfs"], "gain": mix.gain,
        "clipped_fraction": mix.clipped_fraction,
        "room_id": job["room_id"], "rir_1": job["rir_1"], "rt60_1": job["rt60_1"],
        "rir_2": job["rir_2"], "rt60_2": job["rt60_2"],
        "noise_id": "+".join(Path(s).name if not s.startswith("gen:") else s for s in job["noise_sources"]),
        "scene_k": job["scene_k"], "s2_offset_s": job["s2_offset_s"], "duration_s": duration,
    }
    if "talker" in info1:
        common.update(info1["talker"].as_record())
        realised = info1["utterance"].timing_until(duration)
        common.update({
            "syn_speaking_rate": realised["speaking_rate"], "syn_n_syllables": realised["n_syllables"],
            "syn_pause_count_realised": realised["pause_count"], "syn_pause_rate": realised["pause_rate"],
            "syn_articulation_rate_realised": realised["articulation_rate_realised"],
        })
    mixture_row = {**common, "clip_id": mix_id, "kind": "mixture", "audio_path": _rel(mix_path, out),
                   "overlap_fraction": overlap_fraction(mix.s1, mix.s2, TARGET_SR)}
    twin_row = {**common, "clip_id": twin_id(mix_id), "kind": "twin", "audio_path": _rel(s1_path, out),
                "overlap_fraction": 0.0}
    return {"rows": [mixture_row, twin_row], "failures": []}


def build_ami_clip(job: dict) -> dict:
    out = Path(job["out"])
    bad_id = _bad_clip_id(job, job["clip_id"])
    if bad_id:
        return bad_id
    length_s = job["end_s"] - job["start_s"]
    try:
        x, _ = load_audio(job["path"], offset_s=job["start_s"], max_duration_s=length_s)
    except AudioError as exc:
        return {"rows": [], "failures": [Failure(job["clip_id"], STAGE, str(exc))]}
    if x.size < int(round(length_s * TARGET_SR)) - 1:  # a segment annotated past the end of the recording
        return {"rows": [], "failures": [Failure(
            job["clip_id"], STAGE, f"{job['path']}: the recording ends at {job['start_s'] + x.size / TARGET_SR:.2f} s, "
                                   f"before the clip's end at {job['end_s']:.2f} s")]}
    path = write_audio(path_under(out, "audio", "test", f"{job['clip_id']}.flac"), x)
    return {"rows": [{
        "clip_id": job["clip_id"], "corpus": "ami", "source": "ami", "split": "test", "kind": "clip",
        "audio_path": _rel(path, out), "speaker_1": job.get("speaker"), "meeting": job["meeting"],
        "start_s": job["start_s"], "end_s": job["end_s"], "duration_s": x.size / TARGET_SR,
    }], "failures": []}


def run_job(job: dict) -> dict:
    return build_ami_clip(job) if job["source"] == "ami" else build_mixture(job)


# -------------------------------------------------------------------------------------------- build

def _simulate_room_job(args: tuple) -> list[dict]:
    spec, rir_dir = args
    return simulate_room(spec, rir_dir)


def room_bank(cfg: dict, out: Path, executor: dict | None) -> list[dict]:
    if cfg.get("rir_dir"):
        return recorded_rirs(cfg["rir_dir"])
    specs = room_specs(int(cfg["n_rooms"]), tuple(cfg["rt60_s"]), int(cfg["seed"]))
    rir_dir = out / "rirs"
    nested = map_clips(_simulate_room_job, [(s, str(rir_dir)) for s in specs], executor=executor, label="rooms")
    rows = [r for rs in nested for r in rs]
    for r in rows:
        r["path"] = str(Path(r["path"]).resolve())
    return rows


def build_corpus(cfg: dict, out: str | Path, executor: dict | None = None) -> BuildResult:
    """Build the corpus described by the ``corpus:`` parameter group into ``out``."""
    source = cfg.get("source", "synthetic")
    if source not in SOURCES:
        raise ValueError(f"corpus.source {source!r}: use one of {', '.join(SOURCES)}")
    out = Path(out)
    for sub in ("audio", "stems", "rirs"):  # a rebuild never mixes old and new clips
        shutil.rmtree(out / sub, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)

    rir_rows: list[dict] = []
    if source == "ami":
        jobs = plan_ami(cfg, out)
    else:
        rir_rows = room_bank(cfg, out, executor)
        rooms: dict[str, list[dict]] = {}
        for r in rir_rows:
            rooms.setdefault(r["room_id"], []).append(r)
        noises = noise_files(cfg["noise_dir"]) if cfg.get("noise_dir") else []
        planner = {"synthetic": plan_synthetic, "librispeech": plan_librispeech, "libri2mix": plan_libri2mix}[source]
        jobs = planner(cfg, rooms, noises, out)

    results = map_clips(run_job, jobs, executor=executor, label=f"corpus ({source})")
    rows = [row for r in results for row in r["rows"]]
    failures = [f for r in results for f in r["failures"]]
    write_manifest(out, rows)
    write_failures(out / "failures.parquet", failures)
    if rir_rows:
        import pandas as pd

        bank = pd.DataFrame(rir_rows)
        bank["path"] = [str(Path(p).relative_to(out.resolve())) if str(p).startswith(str(out.resolve())) else p
                        for p in bank["path"]]
        write_parquet(out / "rirs.parquet", bank)
    kinds: dict[str, int] = {}
    for row in rows:
        key = f"{row['split']}_{row['kind']}"
        kinds[key] = kinds.get(key, 0) + 1
    write_json(out / "summary.json", {"source": source, "clips": len(rows), "failures": len(failures), **kinds})
    return BuildResult(out, len(rows), len(failures))
