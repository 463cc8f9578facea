"""How a metric's value reads in a table: plain functions of the value, ``—`` for a missing
one (NaN, infinity). Durations take the largest fitting unit, energies and products of units
(J·s, core·s) an SI prefix, fractions a percent sign (the only place a share is shown in
percent: docs/metrics.md)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence


def missing(x: float) -> bool:
    """Whether ``x`` is a missing value (NaN or infinite; counts are never missing)."""
    return isinstance(x, float) and not math.isfinite(x)


#: Duration units: below which magnitude each is used, its name, its seconds.
_DURATIONS = ((120, "s", 1), (7200, "min", 60), (172800, "h", 3600), (math.inf, "d", 86400))


def _duration_unit(x: float) -> tuple[str, int]:
    """The largest unit ``x`` seconds fit (below 120 s: s, 2 h: min, 2 d: h, else d)."""
    return next((unit, scale) for limit, unit, scale in _DURATIONS if abs(x) < limit)


def _in_unit(x: float, unit: str, scale: int) -> str:
    return "—" if missing(x) else f"{x / scale:,.{1 if unit == 'min' else 2}f} {unit}"


def fmt_seconds(x: float) -> str:
    """A duration in the largest fitting unit: ``42.5 s``, ``20.2 min``, ``5.90 h``, ``3.10 d``."""
    return "—" if missing(x) else _in_unit(x, *_duration_unit(x))


def fmt_seconds_row(values: Sequence[float]) -> list[str]:
    """Durations in one unit, the one :func:`fmt_seconds` gives the largest of them: a
    table's row never mixes ``5.6 min`` and ``106.35 s``."""
    finite = [abs(v) for v in values if not missing(v)]
    if not finite:
        return ["—"] * len(values)
    unit = _duration_unit(max(finite))
    return [_in_unit(v, *unit) for v in values]


def fmt_wall_seconds(x: float) -> str:
    """A measured time in seconds, to the millisecond: ``0.022 s``."""
    return "—" if missing(x) else f"{x:.3f} s"


def _si_prefix(x: float) -> tuple[str, float]:
    """The largest of the prefixes "", k, M, G, T, P below which ``x`` is, and its scale."""
    for power, prefix in enumerate(("", "k", "M", "G", "T")):
        if abs(x) < 1000.0 ** (power + 1):
            return prefix, 1000.0 ** power
    return "P", 1000.0 ** 5


def _in_si(x: float, unit: str, prefix: str, scale: float) -> str:
    return "—" if missing(x) else f"{x / scale:,.2f} {prefix}{unit}"


def fmt_si(x: float, unit: str) -> str:
    """``16057074.9, "J"`` -> ``16.06 MJ`` (k, M, G, T, P prefixes)."""
    return "—" if missing(x) else _in_si(x, unit, *_si_prefix(x))


class SiUnit:
    """The format of a quantity in ``unit`` with an SI prefix (:func:`fmt_si`); a table row
    of them takes one prefix (:func:`fmt_row`)."""

    __slots__ = ("unit",)

    def __init__(self, unit: str) -> None:
        self.unit = unit

    def __call__(self, x: float) -> str:
        return fmt_si(x, self.unit)


#: An energy: ``16.06 MJ``.
fmt_joules = SiUnit("J")
#: An energy-delay product: ``351.89 GJ·s`` (rather than ``3.519e+11``).
fmt_joule_seconds = SiUnit("J·s")
#: Cores × time: ``1.23 Mcore·s``.
fmt_core_seconds = SiUnit("core·s")


def fmt_si_row(values: Sequence[float], unit: str) -> list[str]:
    """Values with one SI prefix, the one :func:`fmt_si` gives the largest of them."""
    finite = [abs(v) for v in values if not missing(v)]
    prefix = _si_prefix(max(finite)) if finite else ("", 1.0)
    return [_in_si(v, unit, *prefix) for v in values]


def fmt_row(fmt: Callable[[float], str], values: Sequence[float]) -> list[str]:
    """A table row's values as ``fmt`` shows them, durations (quantities with an SI prefix)
    in one unit (prefix) for the whole row: a row never mixes ``5.6 min`` and ``106.35 s``."""
    if fmt is fmt_seconds:
        return fmt_seconds_row(values)
    if isinstance(fmt, SiUnit):
        return fmt_si_row(values, fmt.unit)
    return [fmt(v) for v in values]


def fmt_ratio(x: float) -> str:
    """A plain number to two decimals, thousands separated: ``1,234.57``."""
    return "—" if missing(x) else f"{x:,.2f}"


def fmt_percent(x: float, digits: int = 1) -> str:
    """A fraction as a percentage: ``0.4162`` -> ``41.6 %``."""
    return "—" if missing(x) else f"{100 * x:.{digits}f} %"


def fmt_percent_2(x: float) -> str:
    """A fraction as a percentage to two decimals, as ds-sim prints it: ``69.39 %``."""
    return fmt_percent(x, 2)


def fmt_count(x: float) -> str:
    """A whole number, thousands separated: ``16,254``."""
    return "—" if missing(x) else f"{int(x):,}"
