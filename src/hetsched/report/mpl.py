"""matplotlib, imported when a figure is first drawn (an optional extra), and figures saved
as files or as bytes to embed in HTML."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from hetsched.errors import ConfigError

#: The formats figures are written in.
FORMATS = ("png", "svg")
DPI = 110


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (no display needed); a one-line error when
    matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        raise ConfigError("plots need matplotlib: pip install 'hetsched[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def figure_bytes(fig: Any, fmt: str) -> bytes:
    """``fig`` as PNG or SVG, then closed."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=DPI, metadata=_metadata(fmt))
    pyplot().close(fig)
    return buffer.getvalue()


def save(fig: Any, path: Path, fmt: str) -> Path:
    """``fig`` written to ``path`` as PNG or SVG, then closed."""
    path.write_bytes(figure_bytes(fig, fmt))
    return path


def _metadata(fmt: str) -> dict[str, Any]:
    """No creation date, so the same figure gives the same file."""
    return {"Date": None} if fmt == "svg" else {}
