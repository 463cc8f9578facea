"""How a metric's value reads in a table: plain functions of the value, ``—`` for a missing
one (NaN, infinity). Durations take the largest fitting unit, energies an SI prefix, fractions
a percent sign (the only place a share is shown in percent: docs/metrics.md)."""

from __future__ import annotations

import math


def missing(x: float) -> bool:
    """Whether ``x`` is a missing value (NaN or infinite; counts are never missing)."""
    return isinstance(x, float) and not math.isfinite(x)


def fmt_seconds(x: float) -> str:
    """A duration in the largest fitting unit: ``42.5 s``, ``20.2 min``, ``5.90 h``, ``3.10 d``."""
    if missing(x):
        return "—"
    for limit, unit, scale in ((120, "s", 1), (7200, "min", 60), (172800, "h", 3600)):
        if abs(x) < limit:
            return f"{x / scale:.{2 if unit != 'min' else 1}f} {unit}"
    return f"{x / 86400:,.2f} d"


def fmt_wall_seconds(x: float) -> str:
    """A measured time in seconds, to the millisecond: ``0.022 s``."""
    return "—" if missing(x) else f"{x:.3f} s"


def fmt_si(x: float, unit: str) -> str:
    """``16057074.9, "J"`` -> ``16.06 MJ`` (k, M, G, T, P prefixes)."""
    if missing(x):
        return "—"
    for prefix in ("", "k", "M", "G", "T"):
        if abs(x) < 1000:
            return f"{x:.2f} {prefix}{unit}"
        x /= 1000
    return f"{x:,.2f} P{unit}"


def fmt_joules(x: float) -> str:
    """An energy with an SI prefix: ``16.06 MJ``."""
    return fmt_si(x, "J")


def fmt_ratio(x: float) -> str:
    """A plain number to two decimals, thousands separated: ``1,234.57``."""
    return "—" if missing(x) else f"{x:,.2f}"


def fmt_percent(x: float, digits: int = 1) -> str:
    """A fraction as a percentage: ``0.4162`` -> ``41.6 %``."""
    return "—" if missing(x) else f"{100 * x:.{digits}f} %"


def fmt_percent_2(x: float) -> str:
    """A fraction as a percentage to two decimals, as ds-sim prints it: ``69.39 %``."""
    return fmt_percent(x, 2)


def fmt_sci(x: float) -> str:
    """Scientific notation, four significant digits: ``3.519e+11``."""
    return "—" if missing(x) else f"{x:.3e}"


def fmt_count(x: float) -> str:
    """A whole number, thousands separated: ``16,254``."""
    return "—" if missing(x) else f"{int(x):,}"
