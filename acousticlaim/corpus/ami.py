"""AMI distant-microphone clips, zero-shot only, cut as the paper's release cuts them.

Two cuts (``corpus.ami_cut``):

``segments`` (the default, the release's)
    One clip per **speaker segment** of the AMI manual annotations, cut from the meeting's
    distant-microphone recording. The annotations are the public ``ami_public_manual`` release
    (``corpus.ami_annotations_dir``): ``segments/<meeting>.<letter>.segments.xml`` holds one NITE XML
    ``<segment transcriber_start=… transcriber_end=…>`` per segment of the participant wearing headset
    ``<letter>``, and ``corpusResources/meetings.xml`` maps each meeting's ``<speaker nxt_agent=<letter>
    global_name=…>`` to the global participant id (``FEO070``; the ids of ``participants.xml``).
    A segment is kept when its length, in the centiseconds of its id, lies within ``corpus.ami_segment_s``
    (3–12 s: the release's table runs from 3.00 to 11.97 s). The clip id is the release's
    ``AMI_<meeting>_sdm_<speaker>_<start>_<end>``, start and end in centiseconds, seven digits
    (``AMI_EN2002a_sdm_FEO070_0028511_0029029`` is FEO070's segment at 285.11–290.29 s of EN2002a).

``windows``
    Consecutive ``corpus.ami_clip_s``-second windows over every recording, with no speaker:
    ``AMI_<meeting>_sdm_<start>_<end>``.

The recordings live under ``corpus.ami_dir``: ``<meeting>.<channel>.wav`` (the meeting is the file name
up to its first dot). The distant-microphone channel the release reads is the single distant microphone,
``<meeting>.Array1-01.wav``; a meeting with one recording uses whichever channel it is. Only the meetings
of ``corpus.ami_meetings`` are cut (``null``: every meeting found); the default is the 16 meetings of the
released table (the AMI ASR test meetings EN2002a–d, ES2004a–d, IS1009a–d, TS3003a–d).
"""

from __future__ import annotations

import csv
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import soundfile as sf

CUTS = ("segments", "windows")
SDM_CHANNEL = "Array1-01"  # the single distant microphone of the AMI recording set-up
NITE_ID = "{http://nite.sourceforge.net/}id"
MEETINGS_XML = Path("corpusResources") / "meetings.xml"
SEGMENTS_DIR = "segments"


class AmiAnnotationError(ValueError):
    """An AMI annotation file is missing or malformed; the message names the file and what is wrong."""


@dataclass(frozen=True)
class AmiClip:
    clip_id: str
    meeting: str
    path: str
    start_s: float
    end_s: float
    speaker: str | None = None


@dataclass(frozen=True)
class AmiSegment:
    """One speaker segment of the manual annotations, times in seconds as the annotation gives them."""

    meeting: str
    letter: str  # the headset letter (nxt_agent), A–E
    speaker: str  # the global participant id, e.g. FEO070
    start_s: float
    end_s: float


def centiseconds(t: float) -> int:
    return int(round(t * 100))


def ami_clip_id(meeting: str, start_s: float, end_s: float, speaker: str | None = None) -> str:
    """The release's clip id: ``AMI_<meeting>_sdm[_<speaker>]_<start cs, 7 digits>_<end cs, 7 digits>``."""
    who = f"_{speaker}" if speaker else ""
    return f"AMI_{meeting}_sdm{who}_{centiseconds(start_s):07d}_{centiseconds(end_s):07d}"


_RELEASE_ID = re.compile(r"^AMI_(?P<meeting>[A-Za-z0-9]+)_sdm_(?P<speaker>[A-Za-z0-9]+)_(?P<start>\d{7})_(?P<end>\d{7})$")


@dataclass(frozen=True)
class ReleasedClip:
    meeting: str
    speaker: str
    start_cs: int
    end_cs: int

    @property
    def duration_s(self) -> float:
        return (self.end_cs - self.start_cs) / 100


def parse_clip_id(clip_id: str) -> ReleasedClip:
    """The parts of a speaker-segment clip id (a ``.wav`` suffix, as the released table writes it, is dropped)."""
    match = _RELEASE_ID.match(re.sub(r"\.wav$", "", clip_id.strip()))
    if not match:
        raise ValueError(f"{clip_id!r}: not an AMI speaker-segment clip id AMI_<meeting>_sdm_<speaker>_<start>_<end>")
    return ReleasedClip(match["meeting"], match["speaker"], int(match["start"]), int(match["end"]))


def released_clips(table: str | Path) -> list[ReleasedClip]:
    """Every clip of a released AMI reference table (``references/ami_test.csv``, column ``filename``)."""
    table = Path(table)
    with table.open(newline="") as fh:
        reader = csv.DictReader(fh)
        if "filename" not in (reader.fieldnames or []):
            raise ValueError(f"{table}: no 'filename' column")
        return [parse_clip_id(row["filename"]) for row in reader]


def release_cut(table: str | Path) -> dict:
    """What ``corpus.ami_meetings`` and ``corpus.ami_segment_s`` were read from: the table's meetings,
    speakers and shortest/longest clip (``params.yaml`` states them; a test checks they agree)."""
    clips = released_clips(table)
    durations = [c.duration_s for c in clips]
    return {"clips": len(clips), "meetings": sorted({c.meeting for c in clips}),
            "speakers": sorted({c.speaker for c in clips}), "shortest_s": min(durations), "longest_s": max(durations)}


# ------------------------------------------------------------------------------------- annotations

def _parse_xml(path: Path) -> ET.Element:
    if not path.is_file():
        raise AmiAnnotationError(f"{path}: AMI annotation file not found")
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise AmiAnnotationError(f"{path}: not well-formed XML ({exc})") from None


def read_meeting_speakers(annotations_dir: str | Path) -> dict[tuple[str, str], str]:
    """``(meeting, letter) → global speaker id`` from ``corpusResources/meetings.xml``."""
    path = Path(annotations_dir) / MEETINGS_XML
    root = _parse_xml(path)
    speakers: dict[tuple[str, str], str] = {}
    for meeting in root.iter("meeting"):
        observation = meeting.get("observation")
        if not observation:
            raise AmiAnnotationError(f"{path}: a <meeting> without an 'observation' attribute")
        for speaker in meeting.iter("speaker"):
            letter, name = speaker.get("nxt_agent"), speaker.get("global_name")
            if not letter or not name:
                raise AmiAnnotationError(f"{path}: meeting {observation}: a <speaker> without 'nxt_agent' "
                                         f"and 'global_name' ({dict(speaker.attrib)})")
            speakers[(observation, letter)] = name
    if not speakers:
        raise AmiAnnotationError(f"{path}: no <meeting><speaker nxt_agent=… global_name=…> entries")
    return speakers


def _seconds(path: Path, segment: ET.Element, attribute: str) -> float:
    text = segment.get(attribute)
    where = f"{path}: segment {segment.get(NITE_ID) or '(no nite:id)'}"
    if text is None:
        raise AmiAnnotationError(f"{where}: no '{attribute}' attribute")
    try:
        value = float(text)
    except ValueError:
        raise AmiAnnotationError(f"{where}: {attribute}={text!r} is not a number of seconds") from None
    if not value >= 0:
        raise AmiAnnotationError(f"{where}: {attribute}={text!r} is not a time (negative or NaN)")
    return value


def read_speaker_segments(path: str | Path) -> list[tuple[float, float]]:
    """``(start, end)`` in seconds of every ``<segment>`` of one ``<meeting>.<letter>.segments.xml``."""
    path = Path(path)
    spans = []
    for segment in _parse_xml(path).iter("segment"):
        start = _seconds(path, segment, "transcriber_start")
        end = _seconds(path, segment, "transcriber_end")
        if end < start:
            raise AmiAnnotationError(f"{path}: segment {segment.get(NITE_ID) or '(no nite:id)'} ends ({end}) "
                                     f"before it starts ({start})")
        spans.append((start, end))
    return spans


def read_segments(annotations_dir: str | Path, meetings: Iterable[str]) -> list[AmiSegment]:
    """Every speaker segment of ``meetings``, each with its global speaker id, in meeting, letter, time order."""
    annotations_dir = Path(annotations_dir)
    if not annotations_dir.is_dir():
        raise FileNotFoundError(f"corpus.ami_annotations_dir {annotations_dir}: not a directory")
    speakers = read_meeting_speakers(annotations_dir)
    segments = []
    for meeting in meetings:
        files = sorted((annotations_dir / SEGMENTS_DIR).glob(f"{meeting}.*.segments.xml"))
        if not files:
            raise FileNotFoundError(f"corpus.ami_annotations_dir {annotations_dir}: no "
                                    f"{SEGMENTS_DIR}/{meeting}.<letter>.segments.xml for meeting {meeting}")
        for path in files:
            letter = path.name.split(".")[1]
            if (meeting, letter) not in speakers:
                raise AmiAnnotationError(f"{path}: {annotations_dir / MEETINGS_XML} names no speaker "
                                         f"nxt_agent={letter!r} for meeting {meeting}")
            spans = sorted(set(read_speaker_segments(path)))
            segments.extend(AmiSegment(meeting, letter, speakers[(meeting, letter)], s, e) for s, e in spans)
    return segments


# every participant's annotated speech in each clip, beside the manifest (:func:`annotated_speech`)
AMI_SPEECH = "ami_speech.parquet"
AMI_SPEECH_COLUMNS = ["clip_id", "speaker", "start_s", "end_s"]


def annotated_speech(segments: Sequence[AmiSegment], clip: AmiClip) -> list[dict]:
    """Every participant's annotated speech inside ``clip``'s window, in the clip's time: one row
    ``{clip_id, speaker, start_s, end_s}`` per segment that reaches into it (cut to the window). Where
    two participants' rows meet, the talkers overlap: the overlap reference of an AMI clip, whose single
    channel has no stems to run VAD on."""
    rows = []
    for seg in segments:
        if seg.meeting != clip.meeting:
            continue
        start, end = max(seg.start_s, clip.start_s), min(seg.end_s, clip.end_s)
        if end > start:
            rows.append({"clip_id": clip.clip_id, "speaker": seg.speaker,
                         "start_s": round(start - clip.start_s, 6), "end_s": round(end - clip.start_s, 6)})
    return rows


# -------------------------------------------------------------------------------------- recordings

def meeting_recordings(ami_dir: str | Path) -> dict[str, list[Path]]:
    """``meeting → its *.wav recordings`` under ``ami_dir`` (searched recursively)."""
    ami_dir = Path(ami_dir)
    if not ami_dir.is_dir():
        raise FileNotFoundError(f"corpus.ami_dir {ami_dir}: not a directory")
    found: dict[str, list[Path]] = {}
    for path in sorted(ami_dir.rglob("*.wav")):
        found.setdefault(path.name.split(".")[0], []).append(path)
    return found


def distant_recording(meeting: str, paths: Sequence[Path]) -> Path:
    """The meeting's distant-microphone recording: its only one, or ``<meeting>.Array1-01.wav``."""
    if len(paths) == 1:
        return paths[0]
    sdm = [p for p in paths if p.name == f"{meeting}.{SDM_CHANNEL}.wav"]
    if len(sdm) == 1:
        return sdm[0]
    raise FileNotFoundError(f"meeting {meeting}: {len(paths)} recordings ({', '.join(p.name for p in paths)}) and "
                            f"not exactly one {meeting}.{SDM_CHANNEL}.wav to choose as the distant microphone")


def _selected(recordings: dict[str, list[Path]], meetings: Sequence[str] | None, ami_dir: str | Path) -> list[str]:
    if meetings is None:
        return sorted(recordings)
    missing = [m for m in meetings if m not in recordings]
    if missing:
        raise FileNotFoundError(f"corpus.ami_dir {ami_dir}: no <meeting>.*.wav recording for "
                                f"{', '.join(missing)} (listed in corpus.ami_meetings; list only the meetings you have)")
    return list(dict.fromkeys(meetings))


# ------------------------------------------------------------------------------------------- plans

def plan_segment_clips(ami_dir: str | Path, annotations_dir: str | Path, meetings: Sequence[str] | None,
                       segment_s: tuple[float, float]) -> list[AmiClip]:
    """One clip per speaker segment whose length (in the id's centiseconds) lies within ``segment_s``."""
    lo, hi = (float(b) for b in segment_s)
    if not 0 < lo <= hi:
        raise ValueError(f"corpus.ami_segment_s {list(segment_s)}: expected [shortest, longest] seconds, 0 < shortest <= longest")
    recordings = meeting_recordings(ami_dir)
    chosen = _selected(recordings, meetings, ami_dir)
    clips = {}
    for seg in read_segments(annotations_dir, chosen):
        start_cs, end_cs = centiseconds(seg.start_s), centiseconds(seg.end_s)
        if not lo <= (end_cs - start_cs) / 100 <= hi:
            continue
        path = distant_recording(seg.meeting, recordings[seg.meeting])
        clip = AmiClip(ami_clip_id(seg.meeting, seg.start_s, seg.end_s, seg.speaker), seg.meeting, str(path),
                       start_cs / 100, end_cs / 100, seg.speaker)
        clips.setdefault(clip.clip_id, clip)
    if not clips:
        raise FileNotFoundError(f"corpus.ami_annotations_dir {annotations_dir}: no speaker segment of {lo:g}–{hi:g} s "
                                f"in meetings {', '.join(chosen)}")
    return sorted(clips.values(), key=lambda c: (c.meeting, c.start_s, c.end_s, c.speaker or ""))


def plan_window_clips(ami_dir: str | Path, clip_s: float, meetings: Sequence[str] | None = None) -> list[AmiClip]:
    """Consecutive ``clip_s``-second windows over each meeting's distant-microphone recording, no speaker."""
    recordings = meeting_recordings(ami_dir)
    clips = []
    for meeting in _selected(recordings, meetings, ami_dir):
        path = distant_recording(meeting, recordings[meeting])
        try:
            duration = sf.info(str(path)).duration
        except Exception:
            duration = clip_s  # unreadable: one clip, so the failure is recorded against the file
        k = 0
        while (k + 1) * clip_s <= duration + 1e-9:
            start, end = k * clip_s, (k + 1) * clip_s
            clips.append(AmiClip(ami_clip_id(meeting, start, end), meeting, str(path), start, end))
            k += 1
    if not clips:
        raise FileNotFoundError(f"corpus.ami_dir {ami_dir}: no .wav recording of at least {clip_s} s")
    return clips
