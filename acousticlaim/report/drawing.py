"""What every picture of the report shares: matplotlib without a display, axis labels in the registry's
unit, and atomic PNG writes."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from acousticlaim.io import atomic_path  # noqa: E402
from acousticlaim.quantities import get  # noqa: E402


def axis_label(quantity: str, prefix: str = "") -> str:
    """``"<prefix>mean fundamental frequency (Hz)"``: the registry's name and canonical unit."""
    q = get(quantity)
    return f"{prefix}{q.name} ({q.unit})"


def save_png(fig: plt.Figure, path: str | Path, dpi: int = 130) -> Path:
    """Write ``fig`` as PNG at ``path`` (temporary file, then rename) and close it."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return Path(path)
