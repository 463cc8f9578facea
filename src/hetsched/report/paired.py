"""Paired comparisons against a baseline scheduler: pure computations on a table of runs (as
in :mod:`hetsched.report.compare`), separate from any drawing.

Two schedulers' runs pair up when they share a case (the same inputs and seed: a sweep's part
and seed, a study's week). Per pair, the relative change of a metric against the baseline's
run (``(m − m_base) / |m_base|``); over the pairs, the median change with a seeded bootstrap
95 % confidence interval (percentile method) and a two-sided Wilcoxon signed-rank test of
"no change". Pairing removes what differs between cases (a heavy week is heavy for every
scheduler), which box plots of absolute values hide.

With ``n`` non-zero changes the smallest two-sided exact p of the Wilcoxon test is
``2 / 2**n``: at ``n <= 5`` it exceeds 0.05, the test cannot reject, and no p is given
(:attr:`Paired.p_value` is ``None``: "too few pairs to test").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hetsched.report.compare import (TIE_TOLERANCE, check_columns, check_one_run_per_case,
                                     relative_change, schedulers)

if TYPE_CHECKING:
    import numpy
    import pandas

__all__ = ["CONFIDENCE", "LEVEL", "Paired", "can_test", "paired", "paired_changes"]
#: The confidence level of the bootstrap interval.
CONFIDENCE = 0.95
#: The significance level the smallest possible p must reach for a test to be shown.
LEVEL = 0.05
#: Bootstrap resamples; the generator is seeded, so a report is reproducible.
RESAMPLES = 9999


@dataclass(frozen=True)
class Paired:
    """One scheduler against the baseline on one metric. ``pairs``: cases where both have a
    value (and the baseline's is not 0); ``changed``: those whose change is not 0 (within
    :data:`~hetsched.report.compare.TIE_TOLERANCE`), what the test counts; ``median``,
    ``low``, ``high``: the median relative change and its confidence interval (NaN without
    pairs; ``low == high == median`` for one pair or equal changes); ``p_value``: Wilcoxon's
    two-sided p, ``None`` when too few pairs to test."""

    scheduler: str
    metric: str
    pairs: int
    changed: int
    median: float
    low: float
    high: float
    p_value: float | None


def can_test(nonzero: int) -> bool:
    """Whether ``nonzero`` non-zero paired changes can give a two-sided p at most
    :data:`LEVEL` (the smallest exact p is ``2 / 2**nonzero``): from 6 on."""
    return nonzero > 0 and 2.0 / 2.0 ** nonzero <= LEVEL


def paired_changes(frame: pandas.DataFrame, metric: str, cases: Sequence[str],
                   baseline: str, by: str = "scheduler") -> pandas.DataFrame:
    """One row per case (numbered in order of appearance) where the baseline has a value, one
    column per other scheduler: its relative change of ``metric`` against the baseline's run
    of that case (NaN where it has no run or no value)."""
    import pandas

    check_columns(frame, [by, *cases, metric], "column")
    check_one_run_per_case(frame, cases, by)
    case = (frame.groupby(list(cases), sort=False, dropna=False).ngroup() if cases
            else pandas.Series(0, index=frame.index))
    values = pandas.DataFrame({"case": case, "by": frame[by].astype(str),
                               "value": pandas.to_numeric(frame[metric], errors="coerce")})
    table = values.pivot(index="case", columns="by", values="value")
    table = table.reindex(index=list(dict.fromkeys(case)), columns=schedulers(frame, by))
    table = table[table[baseline].notna()]
    others = [name for name in table.columns if name != baseline]
    base = table[baseline].to_numpy(float)
    return pandas.DataFrame({name: relative_change(table[name].to_numpy(float), base)
                             for name in others}, index=table.index, columns=others)


def paired(frame: pandas.DataFrame, metrics: Sequence[str], cases: Sequence[str],
           baseline: str, by: str = "scheduler", seed: int = 0) -> list[Paired]:
    """Per metric, then per scheduler other than ``baseline`` (in order of appearance), the
    summary of its paired changes (:func:`paired_changes`)."""
    found = []
    for metric in metrics:
        table = paired_changes(frame, metric, cases, baseline, by)
        for name in table.columns:
            changes = table[name].dropna().to_numpy(float)
            found.append(_summary(name, metric, changes, seed))
    return found


def _summary(name: str, metric: str, changes: numpy.ndarray, seed: int) -> Paired:
    import numpy as np

    if len(changes) == 0:
        return Paired(name, metric, 0, 0, np.nan, np.nan, np.nan, None)
    median = float(np.median(changes))
    low, high = _interval(changes, seed)
    moved = changes[np.abs(changes) > TIE_TOLERANCE]
    return Paired(name, metric, len(changes), len(moved), median, low, high, _wilcoxon(moved))


def _interval(changes: numpy.ndarray, seed: int) -> tuple[float, float]:
    """The bootstrap confidence interval of the median (the median itself for one pair or
    equal changes, where resampling has nothing to vary)."""
    import numpy as np
    from scipy import stats

    if np.ptp(changes) == 0:
        return float(changes[0]), float(changes[0])
    result = stats.bootstrap((changes,), np.median, confidence_level=CONFIDENCE,
                             n_resamples=RESAMPLES, method="percentile",
                             random_state=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def _wilcoxon(moved: numpy.ndarray) -> float | None:
    """Wilcoxon's two-sided p that the non-zero changes ``moved`` are centred on 0."""
    from scipy import stats

    if not can_test(len(moved)):
        return None
    return float(stats.wilcoxon(moved).pvalue)
