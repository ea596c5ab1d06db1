"""The elicitation rungs: the paper's five (§Elicitation) and the project's own, the one place they are defined.

A system is asked for the acoustic quantities of a recording five ways, from a free description up to
a worked example. The wording is the authors' released wording, copied verbatim from their
``prompts/prompts.json`` (repository ``sheng-tse/acousticlaim``, commit ad19d028, MIT licence; the
copy shipped with the project sits in ``shared/data/panel_sample/prompts.json``), so that results
here are comparable with the paper's. The text lives in this module as data because ``shared/`` is
not part of the package.

Every generation records the version of the rung it answers (:attr:`Rung.version`): the released five
carry :data:`PROMPT_VERSION`, a content hash of their ids and texts; each rung the project adds after them
carries a version of its own, its release tag and a content hash of its id and text (:data:`PROJECT_RUNGS`).
Any edit to a prompt changes its version, and the generation store treats records made under another
version as stale; adding a rung leaves the released five, their version and every record made for them as
they were.

The sixth rung, ``P5_intervals``, asks in time rather than in numbers: the intervals of overlapped speech,
pauses and non-speech noise in seconds (the claims in time scored against the references in time,
:mod:`acousticlaim.instruments.intervals`). QualiSpeech (``shared/seeds/003_…``) asks a listener for the
type and temporal position of noise and distortion; this rung asks the same of a model, for the three
event types the project's instruments locate. It names no example numbers, so no value can be echoed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

# Released rungs, verbatim (name, description, prompt) in rung order.
_RELEASED_RUNGS: tuple[tuple[str, str, str], ...] = (
    (
        "P0_free",
        "free description",
        "Describe the recording quality of this audio.",
    ),
    (
        "P1_numeric",
        "a request for numbers",
        "Describe the recording quality of this audio. Give numeric values where you can.",
    ),
    (
        "P2_named",
        "the quantities named with units",
        "Report these measured quantities for this recording: the signal-to-noise ratio in dB, the "
        "speech-to-reverberation modulation energy ratio, the fundamental frequency mean in Hz, the "
        "fundamental frequency standard deviation in Hz, the speaking rate in syllables per second, the "
        "number of pauses, the pause rate per minute, the jitter in percent, the shimmer in percent, and "
        "the harmonics-to-noise ratio in dB. Give a number for each.",
    ),
    (
        "P3_template",
        "a template",
        "Complete each sentence with a number, using this exact wording. The SNR is ___ dB. The SRMR is "
        "___. The F0 mean is ___ Hz. The F0 SD is ___ Hz. The speaking rate is ___ syllables per second. "
        "The recording contains ___ pauses. The pause rate is ___ per minute. The jitter is ___ percent. "
        "The shimmer is ___ percent. The HNR is ___ dB.",
    ),
    (
        "P4_fewshot",
        "a worked example",
        "Here is an example of the required answer for a different recording. The SNR is 12.4 dB. The "
        "SRMR is 6.8. The F0 mean is 138.2 Hz. The F0 SD is 21.5 Hz. The speaking rate is 3.9 syllables "
        "per second. The recording contains 5 pauses. The pause rate is 18.7 per minute. The jitter is "
        "1.3 percent. The shimmer is 4.6 percent. The HNR is 14.2 dB. Now give the same ten sentences, "
        "with your own numbers, for the recording you just heard.",
    ),
)


# The project's own rungs, after the released five (id, description, prompt, release tag of the wording).
PROJECT_RUNGS: tuple[tuple[str, str, str, str], ...] = (
    (
        "P5_intervals",
        "the intervals of overlap, pauses and noise in seconds",
        "List the time intervals in this recording, in seconds from its start, of three kinds of event: "
        "overlapped speech (two speakers talking at the same time), pauses (the speaker silent between "
        "words), and non-speech noise. Give each interval on its own line as the event followed by its start "
        "and end time in seconds, for example \"pause from START to END s\". If there is none of a kind, say so.",
        "intervals-v1",
    ),
)


def _content_hash(pairs: list[tuple[str, str]]) -> str:
    payload = json.dumps([[rid, text] for rid, text in pairs], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


PROMPT_SHA256: str = _content_hash([(rid, text) for rid, _, text in _RELEASED_RUNGS])
# Recorded with every generation of a released rung: the released prompt set, pinned by the hash of its ids and texts.
PROMPT_VERSION: str = f"release-ad19d028+{PROMPT_SHA256[:12]}"


@dataclass(frozen=True)
class Rung:
    """One elicitation rung: its id (``P0_free`` … ``P5_intervals``), what it asks for, the prompt, its
    position, and the version recorded with every generation that answers it."""

    id: str
    description: str
    text: str
    index: int
    version: str = PROMPT_VERSION

    @property
    def released(self) -> bool:
        """One of the paper's five, verbatim."""
        return self.id in RELEASED_RUNG_IDS


RELEASED_RUNG_IDS: tuple[str, ...] = tuple(rid for rid, _, _ in _RELEASED_RUNGS)
RUNGS: tuple[Rung, ...] = (
    tuple(Rung(rid, desc, text, i) for i, (rid, desc, text) in enumerate(_RELEASED_RUNGS))
    + tuple(Rung(rid, desc, text, len(_RELEASED_RUNGS) + i, f"{tag}+{_content_hash([(rid, text)])[:12]}")
            for i, (rid, desc, text, tag) in enumerate(PROJECT_RUNGS))
)
RUNG_IDS: tuple[str, ...] = tuple(r.id for r in RUNGS)
# The rungs that ask for the 13 quantities (Tables 1-2) and the one that asks in time (Table 3).
QUANTITY_RUNG_IDS: tuple[str, ...] = RELEASED_RUNG_IDS
INTERVAL_RUNG_ID = "P5_intervals"
_BY_ID: dict[str, Rung] = {r.id: r for r in RUNGS}


def get_rung(rung_id: str) -> Rung:
    """The rung named ``rung_id``; a clear error for an unknown id."""
    try:
        return _BY_ID[rung_id]
    except KeyError:
        raise KeyError(f"unknown rung {rung_id!r}; the rungs are {', '.join(RUNG_IDS)}") from None


def select_rungs(rung_ids: list[str] | tuple[str, ...] | None) -> tuple[Rung, ...]:
    """The rungs named in ``rung_ids`` in rung order (all of them when ``None``); unknown ids are an error."""
    if rung_ids is None:
        return RUNGS
    wanted = [get_rung(r) for r in rung_ids]
    if len({r.id for r in wanted}) != len(wanted):
        raise ValueError(f"a rung is listed twice in {list(rung_ids)}")
    return tuple(sorted(wanted, key=lambda r: r.index))


def rung_version(rung_id: str) -> str:
    """The version a generation answering ``rung_id`` records (an unknown id is an error)."""
    return get_rung(rung_id).version


def released_prompts_json() -> dict:
    """The released five in the released ``prompts.json`` shape (``{"rungs": [{name, description, prompt}]}``)."""
    return {"rungs": [{"name": r.id, "description": r.description, "prompt": r.text} for r in RUNGS if r.released]}
