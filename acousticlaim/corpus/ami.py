"""AMI distant-microphone clips, zero-shot only.

Every ``*.wav`` under the AMI folder is a distant-microphone recording (single distant microphone,
``…Array1-01.wav`` or a mixed headset channel; whichever channel the models are meant to hear). A
recording is cut into consecutive ``clip_s``-second clips; a clip id follows the paper's release,
``AMI_<meeting>_sdm_<start>_<end>`` with start and end in centiseconds
(``AMI_EN2002a_sdm_0028511_0029511`` is 285.11–295.11 s of meeting EN2002a). The meeting is the
file name up to its first dot.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import soundfile as sf


@dataclass(frozen=True)
class AmiClip:
    clip_id: str
    meeting: str
    path: str
    start_s: float
    end_s: float


def ami_clip_id(meeting: str, start_s: float, end_s: float) -> str:
    return f"AMI_{meeting}_sdm_{int(round(start_s * 100)):07d}_{int(round(end_s * 100)):07d}"


def plan_ami_clips(ami_dir: str | Path, clip_s: float) -> list[AmiClip]:
    ami_dir = Path(ami_dir)
    if not ami_dir.is_dir():
        raise FileNotFoundError(f"corpus.ami_dir {ami_dir}: not a directory")
    clips = []
    for path in sorted(ami_dir.rglob("*.wav")):
        try:
            duration = sf.info(str(path)).duration
        except Exception:
            duration = clip_s  # unreadable: one clip, so the failure is recorded against the file
        meeting = path.name.split(".")[0]
        k = 0
        while (k + 1) * clip_s <= duration + 1e-9:
            start, end = k * clip_s, (k + 1) * clip_s
            clips.append(AmiClip(ami_clip_id(meeting, start, end), meeting, str(path), start, end))
            k += 1
    if not clips:
        raise FileNotFoundError(f"corpus.ami_dir {ami_dir}: no .wav recording of at least {clip_s} s")
    return clips
