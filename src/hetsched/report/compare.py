"""Comparing schedulers over many runs: pure computations on a table of runs (a pandas
DataFrame with one row per run: a scheduler column, metric columns and the columns that
identify a case), separate from any drawing.

- :func:`better`: whether lower or higher values of a metric are better, as the metric's
  declaration says (:mod:`hetsched.metrics.catalogue`);
- :func:`medians`: the median of each metric per scheduler;
- :func:`changes`: those medians relative to a baseline scheduler's (``(m − m_base) / |m_base|``);
- :func:`winning`: per run, whether it has the best value of a metric in its case;
- :func:`winners`: per case and metric, the schedulers with the best value (several on a tie);
- :func:`wins`: per metric, in how many cases each scheduler has the best value; a tie counts
  as a win for each scheduler in it;
- :func:`representative`: the run of a scheduler whose value of a metric is its median.

A *case* is one comparison: the runs of every scheduler on the same inputs and seed (a
sweep's platform, workload part, options and seed; a study's week). Missing values (NaN: a
failed run, energy without a power model) are left out of medians and never win; nor does a
neutral metric (a count such as records skipped).

Works on any such table: ``hetsched.load_results(store)``, whose metrics are hetsched's, or a
study's ``results.csv`` read with pandas, with the declarations of the study's columns, e.g.
``wins(pandas.read_csv("results.csv"), ["makespan", "energy"], ["week"],
node_centric.STUDY.catalogue)``. A metric that is not declared is refused, never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hetsched.errors import ConfigError, did_you_mean
from hetsched.metrics.catalogue import HIGHER, LOWER, METRICS, NEUTRAL, Catalogue, Direction

if TYPE_CHECKING:
    import pandas
    from numpy.typing import ArrayLike

__all__ = ["HIGHER", "LOWER", "NEUTRAL", "TIE_TOLERANCE", "better", "changes", "check_columns",
           "check_one_run_per_case", "medians", "relative_change", "representative",
           "schedulers", "winners", "winning", "wins"]
#: Values this close to the best (relative) tie with it: the same result computed in another
#: order may differ in the last bits.
TIE_TOLERANCE = 1e-9


def better(metric: str, catalogue: Catalogue = METRICS) -> Direction:
    """Which values of ``metric`` are better, as ``catalogue`` declares it (by default
    hetsched's metrics; a study's ``results.csv`` has its own): ``"lower"`` (makespan, waits,
    slowdowns, energy, EDP, cost, rejected or unfinished jobs), ``"higher"`` (utilisation,
    finished jobs) or ``"neutral"`` (no winner: jobs, records skipped). A metric the catalogue
    does not declare is a one-line :class:`ConfigError` ("did you mean")."""
    return catalogue.find(metric).direction


def check_columns(frame: pandas.DataFrame, names: Sequence[str], what: str) -> None:
    """A one-line :class:`ConfigError` naming the first of ``names`` that ``frame`` lacks."""
    present = [str(c) for c in frame.columns]
    for name in names:
        if name not in present:
            raise ConfigError(f"unknown {what} '{name}'{did_you_mean(name, present)}")


def schedulers(frame: pandas.DataFrame, by: str = "scheduler") -> list[str]:
    """The schedulers of ``frame`` in the order they first appear."""
    return [str(s) for s in frame[by].drop_duplicates()]


def medians(frame: pandas.DataFrame, metrics: Sequence[str],
            by: str = "scheduler") -> pandas.DataFrame:
    """One row per scheduler (in order of appearance), one column per metric: the median
    over its runs, missing values left out (NaN when it has none)."""
    check_columns(frame, [by, *metrics], "column")
    values = frame[list(metrics)].apply(_numbers)
    table = values.groupby(frame[by].astype(str), sort=False).median()
    return table.reindex(schedulers(frame, by))


def relative_change(value: ArrayLike, baseline: ArrayLike) -> Any:
    """``(value − baseline) / |baseline|``, elementwise over arrays; NaN where the baseline is
    0 or either is missing. A float for two numbers."""
    import numpy as np

    value, baseline = np.asarray(value, float), np.asarray(baseline, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        change = np.where(baseline != 0, (value - baseline) / np.abs(baseline), np.nan)
    return float(change) if change.ndim == 0 else change


def changes(table: pandas.DataFrame, baseline: str) -> pandas.DataFrame:
    """Each value of ``table`` (e.g. :func:`medians`) relative to the ``baseline`` row's."""
    import pandas

    names = [str(i) for i in table.index]
    if baseline not in names:
        raise ConfigError(f"unknown baseline scheduler '{baseline}' (the runs have "
                          f"{', '.join(names)}){did_you_mean(baseline, names)}")
    base = table.loc[baseline].to_numpy(float)
    return pandas.DataFrame(relative_change(table.to_numpy(float), base), index=table.index,
                            columns=table.columns)


def winning(frame: pandas.DataFrame, metric: str, cases: Sequence[str],
            by: str = "scheduler", catalogue: Catalogue = METRICS) -> pandas.Series:
    """Per row, whether it has the best value of ``metric`` in its case (a group of rows with
    equal ``cases`` columns), by :func:`better`'s direction: every row tied for the best
    (within :data:`TIE_TOLERANCE`) wins; no row wins a case where fewer than two have a
    value, nor a neutral metric. Two rows of one scheduler in one case are refused (a column
    that varies is missing from ``cases``)."""
    import pandas

    check_columns(frame, [by, *cases, metric], "column")
    direction = better(metric, catalogue)
    check_one_run_per_case(frame, cases, by)
    if direction is NEUTRAL:
        return pandas.Series(False, index=frame.index)
    scores = _numbers(frame[metric]) * (-1.0 if direction is HIGHER else 1.0)
    keys = [frame[c] for c in cases] or [pandas.Series(0, index=frame.index)]
    grouped = scores.groupby(keys, sort=False, dropna=False)
    best, present = grouped.transform("min"), grouped.transform("count")
    return (scores <= best + TIE_TOLERANCE * best.abs().clip(lower=1e-300)) & (present >= 2)


def winners(frame: pandas.DataFrame, metrics: Sequence[str], cases: Sequence[str],
            by: str = "scheduler", catalogue: Catalogue = METRICS) -> pandas.DataFrame:
    """One row per case (indexed by the ``cases`` columns, in order of appearance), one
    column per metric: the tuple of schedulers that win it (:func:`winning`; several on a
    tie, none when fewer than two have a value). E.g. each week's winners in a study:
    ``winners(results, ["energy"], ["week"], STUDY.catalogue)``."""
    import pandas

    names = frame[by].astype(str)
    index = frame[list(cases)].drop_duplicates().set_index(list(cases)).index if cases \
        else pandas.Index([0])
    table = {}
    for metric in metrics:
        mask = winning(frame, metric, cases, by, catalogue)
        keys = [frame[c][mask] for c in cases] or [pandas.Series(0, index=frame.index)[mask]]
        won = names[mask].groupby(keys, sort=False, dropna=False).agg(tuple)
        table[metric] = [won.get(key, ()) for key in index]
    return pandas.DataFrame(table, index=index, columns=list(metrics))


def wins(frame: pandas.DataFrame, metrics: Sequence[str], cases: Sequence[str],
         by: str = "scheduler", catalogue: Catalogue = METRICS) -> pandas.DataFrame:
    """One row per scheduler (in order of appearance), one column per metric: the number of
    cases it wins (:func:`winning`), a tie counting as a win for each scheduler in it."""
    import pandas

    names = schedulers(frame, by)
    labels = frame[by].astype(str)
    masks = {metric: winning(frame, metric, cases, by, catalogue) for metric in metrics}
    table = {metric: mask.groupby(labels, sort=False).sum() for metric, mask in masks.items()}
    return pandas.DataFrame(table, index=names, columns=list(metrics)).fillna(0).astype(int)


def check_one_run_per_case(frame: pandas.DataFrame, cases: Sequence[str], by: str) -> None:
    """A one-line :class:`ConfigError` when a scheduler has two runs in one case."""
    repeated = frame.duplicated([*cases, by], keep=False)
    if repeated.any():
        row = frame[repeated].iloc[0]
        where = ", ".join(f"{c}={row[c]}" for c in cases) or "the only case"
        raise ConfigError(f"scheduler '{row[by]}' has several runs in one case ({where}): "
                          "some column that varies between them is not among the cases")


def representative(frame: pandas.DataFrame, metric: str, scheduler: str,
                   by: str = "scheduler") -> int:
    """The index label of the run of ``scheduler`` whose ``metric`` is its median (the lower
    of the two middle runs for an even count): a typical run to look at in detail."""
    check_columns(frame, [by, metric], "column")
    values = _numbers(frame.loc[frame[by].astype(str) == scheduler, metric]).dropna()
    if values.empty:
        raise ConfigError(f"scheduler '{scheduler}' has no run with a value of {metric}")
    ordered = values.sort_values(kind="stable")
    return ordered.index[(len(ordered) - 1) // 2]


def _numbers(column: pandas.Series) -> pandas.Series:
    import pandas

    return pandas.to_numeric(column, errors="coerce").astype(float)
