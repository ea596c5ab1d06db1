"""Names and paths built from data: clip ids are safe file-name tokens, paths stay in their folder.

A clip id comes from outside the program (a Libri2Mix CSV's ``mixture_ID``, an imported generation,
a manifest) and becomes a file name (``audio/<split>/<clip_id>.flac``, ``clips/<clip_id>.safetensors``).
An id such as ``../../x``, one with a NUL or a newline, or ``..`` itself would name a file outside the
output folder or no file at all, so every id is checked once against one rule, and every path built
from data is checked to stay under the folder it is written into.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

MAX_CLIP_ID_LENGTH = 200
CLIP_ID_RULE = "letters, digits, '.', '_', '+' and '-', starting with a letter or digit, at most 200 characters"
_CLIP_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+\-]*")


class UnsafePathError(ValueError):
    """A path built from data would leave the folder it is written into."""


def clip_id_problem(clip_id: object) -> str | None:
    """Why ``clip_id`` cannot name a file (``None`` when it can)."""
    if not isinstance(clip_id, str):
        return f"a clip id must be a string, got {type(clip_id).__name__}"
    if len(clip_id) > MAX_CLIP_ID_LENGTH:
        return f"clip id of {len(clip_id)} characters is too long ({CLIP_ID_RULE})"
    if not _CLIP_ID.fullmatch(clip_id):
        return f"clip id {clip_id!r} cannot name a file ({CLIP_ID_RULE})"
    return None


def check_clip_id(clip_id: object) -> str:
    """``clip_id`` itself, or :class:`ValueError` saying why it cannot name a file."""
    problem = clip_id_problem(clip_id)
    if problem:
        raise ValueError(problem)
    return clip_id  # type: ignore[return-value]


def path_under(root: str | os.PathLike, *parts: str) -> Path:
    """``root/part/…``, refused (:class:`UnsafePathError`) unless it resolves inside ``root``."""
    root_path = Path(root).resolve()
    path = Path(root, *parts)
    resolved = path.resolve()
    if resolved != root_path and root_path not in resolved.parents:
        raise UnsafePathError(f"{'/'.join(parts)!r} would be written outside {root} (at {resolved})")
    return path
