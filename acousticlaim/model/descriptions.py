"""Training descriptions of the reference system, and turning its emitted slots into prose with numbers.

The reference decoder never writes a digit of its own. Its training descriptions carry one *value slot*
token per stated quantity (``<|value:snr|>`` …); when the decoder emits a slot, the number written in its
place is the confidence head's value for that quantity (readout B), formatted by :func:`format_value`.
So each number in the emitted text (readout A) is the head's value, an exact sum of per-prefix-token
terms (``SPEC.md`` §5), rounded only for printing.

The rule the decoder is taught (``SPEC.md`` §5, paper §2.2): a description states all ten scored
quantities, except that it **declines** the five voice quantities (F0 mean and s.d., jitter, shimmer,
HNR) when the clip's labelled overlap exceeds 0.5. The decline sentence names no quantity with a number,
so the project's parser reads nothing from it.

The sentences follow the wording of the panel's template and named-quantity rungs, which the project's
parser is built to read (SPEC §1, what counts as a claim); two phrasings are used so the decoder learns prose rather than one
fixed string.
"""

from __future__ import annotations

import math
import re
from typing import Mapping, Sequence

from acousticlaim.quantities import QUANTITIES, SCORED_KEYS, VOICE_KEYS

DECLINE_OVERLAP = 0.5  # labelled overlap above which the five voice quantities are declined
SLOT_TOKENS: dict[str, str] = {key: f"<|value:{key}|>" for key in SCORED_KEYS}
SLOT_KEYS: dict[str, str] = {token: key for key, token in SLOT_TOKENS.items()}
DEFAULT_INSTRUCTION = "Describe the acoustics of this recording with numbers."
VALUE_DECIMALS = 2

OPENING = ("Here are the measurements for this recording.", "This is what I measure in the recording.")
DECLINE_SENTENCE = (
    "Two talkers overlap for most of this clip, so I do not state the pitch or the voice quality of either talker."
)

# Two phrasings of each sentence, from the registry (the template's sentence, then the description's);
# ``{}`` is the value slot. Channel and timing sentences come first, then voice.
PHRASINGS: tuple[dict[str, str], ...] = (
    {key: QUANTITIES[key].phrases.template for key in SCORED_KEYS},
    {key: QUANTITIES[key].phrases.description for key in SCORED_KEYS},
)
N_PHRASINGS = len(PHRASINGS)
NON_VOICE_KEYS: tuple[str, ...] = tuple(k for k in SCORED_KEYS if k not in VOICE_KEYS)


def declines_voice(overlap: float) -> bool:
    """Whether a description of a clip with labelled overlap ``overlap`` declines the voice quantities."""
    if overlap is None or not math.isfinite(float(overlap)):
        raise ValueError(f"labelled overlap must be a finite number, got {overlap!r}")
    return float(overlap) > DECLINE_OVERLAP


def stated_keys_for(overlap: float) -> tuple[str, ...]:
    """The scored quantities a training description of this clip states, in the order it states them."""
    return NON_VOICE_KEYS if declines_voice(overlap) else NON_VOICE_KEYS + VOICE_KEYS


def describe(overlap: float, phrasing: int = 0) -> str:
    """The training description of a clip (with value slots), for its labelled overlap and a phrasing index."""
    if not 0 <= phrasing < N_PHRASINGS:
        raise ValueError(f"phrasing must be in 0..{N_PHRASINGS - 1}, got {phrasing}")
    sentences = PHRASINGS[phrasing]
    parts = [OPENING[phrasing]]
    parts += [sentences[k].format(SLOT_TOKENS[k]) for k in NON_VOICE_KEYS]
    if declines_voice(overlap):
        parts.append(DECLINE_SENTENCE)
    else:
        parts += [sentences[k].format(SLOT_TOKENS[k]) for k in VOICE_KEYS]
    return " ".join(parts)


def tokenizer_corpus(instruction: str = DEFAULT_INSTRUCTION) -> list[str]:
    """Every distinct text the tiny decoder's tokenizer must cover (instruction and all descriptions)."""
    texts = [instruction]
    for phrasing in range(N_PHRASINGS):
        texts.append(describe(0.0, phrasing))
        texts.append(describe(1.0, phrasing))
    return texts


def format_value(key: str, value: float) -> str:
    """The number written for ``key``: two decimals, pause count as a non-negative integer."""
    if not math.isfinite(value):
        raise ValueError(f"cannot state a non-finite value for {key}: {value!r}")
    if QUANTITIES[key].integer:
        return str(max(0, int(round(value))))
    text = f"{value:.{VALUE_DECIMALS}f}"
    return "0.00" if text == "-0.00" else text


def slots_in(text: str) -> list[str]:
    """Quantity keys whose value slot appears in ``text``, in order of appearance."""
    pattern = "|".join(re.escape(t) for t in SLOT_KEYS)
    return [SLOT_KEYS[m.group(0)] for m in re.finditer(pattern, text)]


def fill_slots(text: str, values: Mapping[str, float]) -> str:
    """Replace each value slot in ``text`` by the formatted value of its quantity."""
    pattern = "|".join(re.escape(t) for t in SLOT_KEYS)

    def number(match: re.Match[str]) -> str:
        key = SLOT_KEYS[match.group(0)]
        if key not in values:
            raise KeyError(f"the text states {key} but no value was given for it")
        return format_value(key, float(values[key]))

    return re.sub(pattern, number, text)


def render(overlap: float, values: Mapping[str, float], phrasing: int = 0) -> str:
    """A training description with its slots filled (for reading; the decoder trains on the slotted text)."""
    return fill_slots(describe(overlap, phrasing), values)


def voice_declined(stated: Sequence[str]) -> bool:
    """A text declines the voice quantities when it states none of them."""
    return not any(k in VOICE_KEYS for k in stated)
