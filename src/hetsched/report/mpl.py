"""matplotlib, imported when a figure is first drawn (an optional extra), and figures saved
as files or as bytes to embed in HTML."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from hetsched.errors import ConfigError
from hetsched.metrics.catalogue import METRICS, Catalogue

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


#: How a catalogue unit is written on an axis (``ratio`` and ``currency`` have no symbol:
#: the label says "price units").
SYMBOLS = {"J*s": "J·s", "core*s": "core·s", "ratio": "", "currency": "", "count": ""}


def format_axis(axis: Any, unit: str) -> None:
    """Every value axis of every figure, by its metric catalogue unit: whole-number ticks for
    counts, percent up to 100 for fractions (and for ``percent``, values already in percent:
    a study's changes), SI prefixes (``EngFormatter``: kJ, MJ, GJ) for the rest. None of these
    draws an offset text such as ``1e16`` beside the axis."""
    from matplotlib.ticker import EngFormatter, MaxNLocator, PercentFormatter

    if unit in ("fraction", "percent"):
        axis.set_major_formatter(PercentFormatter(xmax=1.0 if unit == "fraction" else 100.0))
        return
    if unit == "count":
        axis.set_major_locator(MaxNLocator(integer=True))
    axis.set_major_formatter(EngFormatter(unit=SYMBOLS.get(unit, unit)))


def axis_label(metric: str, catalogue: Catalogue = METRICS) -> str:
    """The catalogue's label of ``metric`` with its unit: ``energy (J)``, ``utilisation (%)``,
    ``jobs finished``; a label that names its unit (``EDP (J·s)``) as it is."""
    declared = catalogue.find(metric)
    symbol = "%" if declared.unit == "fraction" else SYMBOLS.get(declared.unit, declared.unit)
    if not symbol or "(" in declared.label or declared.label.split()[-1] == symbol:
        return declared.label
    return f"{declared.label} ({symbol})"


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
