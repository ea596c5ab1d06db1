"""Build a corpus: plan every clip as a job, run the jobs in a pool, write the manifest.

``build_corpus(cfg, out)`` is the `corpus` DVC stage. It

1. builds the room bank (simulated shoeboxes, or the RIRs under ``rir_dir``) and the noise list;
2. plans one job per mixture (or AMI clip): a plain dict holding everything the clip depends on —
   sources, room, noise, SNR, talker-to-talker ratio, level, seeds — so a clip is a pure function of its
   job and runs the same in a local pool or on Dask;
3. runs the jobs (:func:`acousticlaim.executor.map_clips`, with a progress bar); a job whose source
   cannot be read returns a recorded failure instead of raising;
4. writes ``manifest.parquet``, ``failures.parquet``, ``rirs.parquet`` and ``summary.json`` (and, with
   RSA-Bench scenes on, ``scene_events.parquet``: each scene source's labels and when it sounds).

Everything is built in ``out/.building`` and moved into place only when the build passes
:func:`acousticlaim.executor.check_failures` (at most ``executor.max_failure_share`` of the mixtures
failed, and some clip was made); a rejected build leaves the previous corpus as it was. Every path a
job carries is absolute (the corpus folder and the source folders of ``cfg``), so the jobs mean the
same on any Dask worker that mounts the same filesystem.

Layout under ``out``: ``audio/<split>/<clip>.flac`` (mixtures, AMI clips),
``stems/<split>/<mixture>/{s1,s2,noise}.flac`` (``s1`` is also the clean twin's audio), ``rirs/``. In the
RSA-Bench design (``corpus.scenes.mode: design``) one job builds a sample's 17 conditions: the clean
version ``<mixture>`` (with its twin) and ``<mixture>_<soundscape>_k<K>``, which share the talkers' stems
and each have their own ``noise_<soundscape>_k<K>.wav``. A scene's noise stem is 32-bit float WAV: its
sparse sources can pass full scale, and the mixture (clipped, Step 4) records the clipped share.
"""

from __future__ import annotations

import os
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
from acousticlaim.corpus.noise import NOISE_KINDS, noise_files, noise_source
from acousticlaim.corpus.rooms import load_rir, recorded_rirs, room_specs, simulate_room
from acousticlaim.corpus.scenes import (build_condition, check_scene_params, condition_suffix, events_frame,
                                        noise_label, plan_scene, recordings_for)
from acousticlaim.corpus.settings import CorpusSettings
from acousticlaim.corpus.synthetic import (TalkerParams, TalkerRanges, draw_talkers, draw_utterance_duration,
                                          synthesize_talker)
from acousticlaim.executor import check_failures, map_clips, rejected_failures_path
from acousticlaim.failures import Failure, write_failures
from acousticlaim.io import write_json, write_parquet
from acousticlaim.params import settings_from
from acousticlaim.safe_names import clip_id_problem, path_under

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
    room = {"room_id": room_id, "rir_1": r1["rir_id"], "rir_1_path": r1["path"], "rt60_1": r1["rt60"],
            "rir_2": r2["rir_id"], "rir_2_path": r2["path"], "rt60_2": r2["rt60"]}
    scenes = cfg.get("scenes") or {}
    if scenes.get("enabled"):  # RSA-Bench scenes: see acousticlaim.corpus.scenes
        conditions = plan_scene(scenes, rng, recordings_for(cfg.get("noise_dir")))
        return {**room, "noise_sources": [], "scene_k": conditions[0]["k"], "scenes": dict(scenes),
                "scene_conditions": conditions, "noise_seed": int(rng.integers(2**31))}
    pool = noises or [f"gen:{kind}" for kind in NOISE_KINDS]
    chosen = [pool[int(i)] for i in rng.choice(len(pool), size=1, replace=len(pool) < 1)]
    return {**room, "noise_sources": chosen, "scene_k": 0, "noise_seed": int(rng.integers(2**31))}


def plan_synthetic(cfg: dict, rooms: dict, noises: list[str], out: Path) -> list[dict]:
    jobs = []
    counts = {"train": int(cfg["n_train"]), "test": int(cfg["n_test"])}
    n_speakers = {"train": int(cfg["n_speakers_train"]), "test": int(cfg["n_speakers_test"])}
    base_id = {"train": 80000, "test": 90000}  # speaker ids disjoint between splits and from LibriSpeech
    ranges = TalkerRanges.from_params(cfg.get("talkers"))
    for split in SPLITS:
        rng = np.random.default_rng([int(cfg["seed"]), SPLITS.index(split)])
        talkers = draw_talkers(rng, [str(base_id[split] + i) for i in range(n_speakers[split])], ranges)
        utt_counter = {t.talker_id: 0 for t in talkers}
        for _ in range(counts[split]):
            i1, i2 = rng.choice(len(talkers), size=2, replace=False)
            legs = []
            for t in (talkers[i1], talkers[i2]):
                utt = f"{t.talker_id}-0-{utt_counter[t.talker_id]:04d}"
                utt_counter[t.talker_id] += 1
                legs.append({"talker": asdict(t), "utt": utt, "seed": int(rng.integers(2**31)),
                             "duration_s": draw_utterance_duration(rng, ranges)})
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
    by_split = meta_cfg if isinstance(meta_cfg, dict) else {cfg["libri2mix_split"]: meta_cfg}
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


def ami_speech_frame(cfg: dict, jobs: list[dict], built: set[str]):
    """The annotated speech of every participant in each built AMI clip (:func:`ami.annotated_speech`)."""
    import pandas as pd

    clips = [ami_source.AmiClip(**{k: j[k] for k in ("clip_id", "meeting", "path", "start_s", "end_s", "speaker")})
             for j in jobs if j["clip_id"] in built]
    segments = ami_source.read_segments(cfg["ami_annotations_dir"], sorted({c.meeting for c in clips}))
    rows = [r for c in clips for r in ami_source.annotated_speech(segments, c)]
    return pd.DataFrame(rows, columns=ami_source.AMI_SPEECH_COLUMNS)


def plan_ami(cfg: dict, out: Path) -> list[dict]:
    """AMI clips (:mod:`acousticlaim.corpus.ami`): speaker segments or consecutive windows (``ami_cut``)."""
    cut = cfg["ami_cut"]
    meetings = cfg["ami_meetings"]
    if not cfg["ami_dir"]:
        raise ValueError("corpus.source is 'ami' but corpus.ami_dir is null; point it at the distant-microphone recordings")
    if cut == "segments":
        if not cfg["ami_annotations_dir"]:
            raise ValueError("corpus.ami_cut is 'segments' but corpus.ami_annotations_dir is null; point it at the AMI "
                             "manual annotations (ami_public_manual: segments/, corpusResources/meetings.xml) "
                             "or set corpus.ami_cut: windows")
        clips = ami_source.plan_segment_clips(cfg["ami_dir"], cfg["ami_annotations_dir"], meetings,
                                              tuple(cfg["ami_segment_s"]))
    else:  # windows (CorpusSettings allows no other cut)
        clips = ami_source.plan_window_clips(cfg["ami_dir"], float(cfg["ami_clip_s"]), meetings)
    n = _limit(cfg["ami_max_clips"])
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


def _conditions(job: dict, n: int):
    """(clip-id suffix, unit noise or scene interference, SNR, clip?, manifest fields, events) per clip to build."""
    if not job.get("scene_conditions"):
        yield "making the noise", lambda: ("", noise_source(job["noise_sources"][0], n, job["noise_seed"]),
                                            job["snr_db"], False, {}, [])
        return
    scenes = job["scenes"]
    mode = scenes.get("mode", "sample")
    for cond in job["scene_conditions"]:
        def make(cond=cond):
            scene = build_condition(cond, n, job["snr_db"], scenes)
            fields = {**scene.fields, "scene_mode": mode, "scene_sample": job["mixture_id"],
                      "noise_id": noise_label(cond["sources"])}
            return condition_suffix(cond, mode), scene.interference, scene.snr_db, True, fields, scene.events
        what = "the clean version" if not cond["sources"] else f"the {cond['soundscape']} scene with K = {cond['k']}"
        yield f"making {what} ({cond['soundscape']}: {noise_label(cond['sources']) or 'no sources'})", make


def _bad_clip_id(job: dict, clip_id: Any) -> dict | None:
    """A recorded failure (naming where the id came from) for an id that cannot name a file, else None."""
    problem = clip_id_problem(clip_id)
    if problem is None:
        return None
    where = job.get("origin") or f"{job['source']} clip"
    return {"rows": [], "events": [], "failures": [Failure(str(clip_id), STAGE, f"{where}: {problem}; the clip is skipped")]}


def build_mixture(job: dict) -> dict:
    """Build one mixture (or, for the RSA-Bench design, one sample's conditions), its stems and twin.

    Returns manifest rows, scene events, and a recorded failure naming the step that failed."""
    out = Path(job["out"])
    mix_id, split = job["mixture_id"], job["split"]
    bad_id = _bad_clip_id(job, mix_id)
    if bad_id:
        return bad_id
    step = "synthesising or reading the two talkers"
    built = []
    try:
        (x1, info1), (x2, info2) = (_leg_audio(job, leg) for leg in job["legs"])
        step = "reading the room impulse responses"
        h1, h2 = load_rir(job["rir_1_path"]), load_rir(job["rir_2_path"])
        offset = int(round(job["s2_offset_s"] * TARGET_SR))
        max_samples = int(round(job["max_duration_s"] * TARGET_SR))
        n = min(x1.size, x2.size + offset, max_samples)
        for what, make in _conditions(job, n):
            step = what
            suffix, noise, snr, clip, fields, events = make()
            step = f"mixing the talkers with {what[len('making '):]}"
            mix = mix_sources(x1, x2, h1, h2, noise, snr=snr, ttr=job["ttr_db"], level_dbfs=job["level_dbfs"],
                              max_samples=max_samples, s2_offset=offset, clip=clip)
            built.append((suffix, mix, fields, events))
    except AudioError as exc:
        return {"rows": [], "events": [], "failures": [Failure(mix_id, STAGE, f"while {step}: {exc}")]}
    except Exception as exc:  # a bad RIR or noise file, or a bug: recorded against the clip, the stage goes on
        return {"rows": [], "events": [], "failures": [Failure(
            mix_id, STAGE, f"the mixture could not be built while {step} ({type(exc).__name__}: {exc})")]}

    stem_dir = path_under(out, "stems", split, mix_id)
    first = built[0][1]  # the talkers' stems are the same in every condition of a sample
    s1_path = write_audio(stem_dir / "s1.flac", first.s1)
    s2_path = write_audio(stem_dir / "s2.flac", first.s2)
    overlap = overlap_fraction(first.s1, first.s2, TARGET_SR)
    rows, events = [], []
    for suffix, mix, fields, scene_events in built:
        clip_id = f"{mix_id}{suffix}"
        mix_path = write_audio(path_under(out, "audio", split, f"{clip_id}.flac"), mix.mixture)
        # a scene's sparse sources (ticks, thunder) at the speech's RMS peak above full scale: their stem is
        # float WAV so the injected interference, not a clipped copy, is what the SNR reference reads
        noise_path = write_audio(stem_dir / f"noise{suffix}{'.wav' if fields else '.flac'}", mix.noise)
        duration = mix.mixture.size / TARGET_SR
        common = {
            "corpus": "librimix", "source": job["source"], "split": split, "mixture_id": clip_id,
            "s1_path": _rel(s1_path, out), "s2_path": _rel(s2_path, out), "noise_path": _rel(noise_path, out),
            "speaker_1": info1["speaker"], "speaker_2": info2["speaker"],
            "utt_1": job["legs"][0]["utt"], "utt_2": job["legs"][1]["utt"], "transcript_1": info1.get("transcript", ""),
            "snr_db": mix.snr_db if np.any(mix.noise) else float("nan"), "ttr_db": mix.ttr_db,
            "level_dbfs": job["level_dbfs"], "gain": mix.gain, "clipped_fraction": mix.clipped_fraction,
            "room_id": job["room_id"], "rir_1": job["rir_1"], "rt60_1": job["rt60_1"],
            "rir_2": job["rir_2"], "rt60_2": job["rt60_2"],
            "noise_id": "+".join(Path(s).name if not s.startswith("gen:") else s for s in job["noise_sources"]),
            "scene_k": job["scene_k"], "s2_offset_s": job["s2_offset_s"], "duration_s": duration,
            **fields,
        }
        if "talker" in info1:
            common.update(info1["talker"].as_record())
            # the target's dry utterance is synthesize_talker(talker, syn_utterance_s, syn_utterance_seed)
            common.update({"syn_utterance_s": job["legs"][0]["duration_s"], "syn_utterance_seed": job["legs"][0]["seed"]})
            realised = info1["utterance"].timing_until(duration)
            common.update({
                "syn_speaking_rate": realised["speaking_rate"], "syn_n_syllables": realised["n_syllables"],
                "syn_pause_count_realised": realised["pause_count"], "syn_pause_rate": realised["pause_rate"],
                "syn_articulation_rate_realised": realised["articulation_rate_realised"],
            })
        rows.append({**common, "clip_id": clip_id, "kind": "mixture", "audio_path": _rel(mix_path, out),
                     "overlap_fraction": overlap})
        if not suffix:  # the clean twin belongs to the plain mixture (the design's clean version)
            rows.append({**common, "clip_id": twin_id(clip_id), "kind": "twin", "audio_path": _rel(s1_path, out),
                         "overlap_fraction": 0.0})
        events += [{"clip_id": clip_id, **e} for e in scene_events]
    return {"rows": rows, "events": events, "failures": []}


def build_ami_clip(job: dict) -> dict:
    out = Path(job["out"])
    bad_id = _bad_clip_id(job, job["clip_id"])
    if bad_id:
        return bad_id
    length_s = job["end_s"] - job["start_s"]
    try:
        x, _ = load_audio(job["path"], offset_s=job["start_s"], max_duration_s=length_s)
    except AudioError as exc:
        return {"rows": [], "events": [], "failures": [Failure(job["clip_id"], STAGE, str(exc))]}
    if x.size < int(round(length_s * TARGET_SR)) - 1:  # a segment annotated past the end of the recording
        return {"rows": [], "events": [], "failures": [Failure(
            job["clip_id"], STAGE, f"{job['path']}: the recording ends at {job['start_s'] + x.size / TARGET_SR:.2f} s, "
                                   f"before the clip's end at {job['end_s']:.2f} s")]}
    path = write_audio(path_under(out, "audio", "test", f"{job['clip_id']}.flac"), x)
    return {"events": [], "rows": [{
        "clip_id": job["clip_id"], "corpus": "ami", "source": "ami", "split": "test", "kind": "clip",
        "audio_path": _rel(path, out), "speaker_1": job.get("speaker"), "meeting": job["meeting"],
        "start_s": job["start_s"], "end_s": job["end_s"], "duration_s": x.size / TARGET_SR,
    }], "failures": []}


def run_job(job: dict) -> dict:
    return build_ami_clip(job) if job["source"] == "ami" else build_mixture(job)


# -------------------------------------------------------------------------------------------- build

def _simulate_room_job(job: dict) -> list[dict]:
    return simulate_room(job["spec"], job["rir_dir"])


def room_bank(cfg: dict, out: Path, executor: dict | None) -> list[dict]:
    if cfg.get("rir_dir"):
        return recorded_rirs(cfg["rir_dir"])
    specs = room_specs(int(cfg["n_rooms"]), tuple(cfg["rt60_s"]), int(cfg["seed"]))
    rir_dir = str(out.absolute() / "rirs")  # absolute: a worker's working directory is not the caller's
    nested = map_clips(_simulate_room_job, [{"spec": s, "rir_dir": rir_dir} for s in specs], executor=executor,
                       label="rooms")
    return [r for rs in nested for r in rs]


# the source folders and files of the ``corpus:`` group: made absolute before any job is planned
SOURCE_PATH_KEYS = ("librispeech_dir", "libri2mix_metadata", "libri2mix_root", "ami_dir", "ami_annotations_dir", "rir_dir",
                    "noise_dir")


def absolute_sources(cfg: dict) -> dict:
    """``cfg`` with every source path absolute (against the caller's working directory)."""
    cfg = dict(cfg)
    for key in SOURCE_PATH_KEYS:
        value = cfg.get(key)
        if isinstance(value, dict):
            cfg[key] = {k: os.path.abspath(v) for k, v in value.items()}
        elif value:
            cfg[key] = os.path.abspath(value)
    return cfg


BUILT = ("audio", "stems", "rirs", "manifest.parquet", "failures.parquet", "rirs.parquet", "summary.json",
         "scene_events.parquet", ami_source.AMI_SPEECH)


def _move_into_place(staging: Path, out: Path) -> None:
    """Replace ``out``'s built entries by the staged ones (entries the build did not make are removed)."""
    for name in BUILT:
        src, dst = staging / name, out / name
        if dst.is_dir():
            shutil.rmtree(dst)
        elif dst.exists() and not src.exists():
            dst.unlink()
        if src.exists():
            os.replace(src, dst)
    shutil.rmtree(staging, ignore_errors=True)


def build_corpus(cfg: dict | CorpusSettings, out: str | Path, executor: dict | None = None) -> BuildResult:
    """Build the corpus described by the ``corpus:`` parameter group into ``out`` (checked first, defaults filled)."""
    cfg = absolute_sources(asdict(settings_from(CorpusSettings, cfg, "corpus")))
    source = cfg["source"]
    if cfg["scenes"].get("enabled"):
        check_scene_params(cfg["scenes"])
    final = Path(out).absolute()
    out = final / ".building"  # a rebuild never mixes old and new clips, and a rejected one changes nothing
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    try:
        result = _build(cfg, source, out, executor, final)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    _move_into_place(out, final)
    return BuildResult(final, result.n_clips, result.n_failures)


def _build(cfg: dict, source: str, out: Path, executor: dict | None, final: Path) -> BuildResult:
    """Build into the staging folder ``out``; ``final`` is where it will go (rejected failures go beside it)."""
    scenes = cfg.get("scenes") or {}
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
    check_failures(STAGE, n_clips=len(jobs), n_rows=len(rows), failures=failures, executor=executor,
                   rejected_failures=rejected_failures_path(final))
    write_manifest(out, rows)
    write_failures(out / "failures.parquet", failures)
    if source == "ami" and cfg["ami_annotations_dir"]:
        # every participant's annotated speech in each clip: where the talkers overlap on AMI
        write_parquet(out / ami_source.AMI_SPEECH, ami_speech_frame(cfg, jobs, {r["clip_id"] for r in rows}))
    if scenes.get("enabled"):  # the scene sources in time, one row per event (acousticlaim.corpus.scenes)
        write_parquet(out / "scene_events.parquet", events_frame([e for r in results for e in r.get("events", [])]))
    if rir_rows:
        import pandas as pd

        bank = pd.DataFrame(rir_rows)
        bank["path"] = [str(Path(p).relative_to(out)) if Path(p).is_relative_to(out) else p for p in bank["path"]]
        write_parquet(out / "rirs.parquet", bank)
    kinds: dict[str, int] = {}
    for row in rows:
        key = f"{row['split']}_{row['kind']}"
        kinds[key] = kinds.get(key, 0) + 1
    if scenes.get("enabled"):
        kinds["scene_mode"] = scenes.get("mode", "sample")
    write_json(out / "summary.json", {"source": source, "clips": len(rows), "failures": len(failures), **kinds})
    return BuildResult(out, len(rows), len(failures))
