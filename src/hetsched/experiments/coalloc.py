"""Toporkov & Yemelyanov's experiment (ICCS 2018, §4) rebuilt: 3,000 independent environments
of 100 nodes (:class:`~hetsched.coalloc.environment.PaperEnvironment`), in each a window of 7
nodes for V = 800 within C = 644 by every algorithm: FirstFit, MinStart, MinFinish,
MinRuntime, MinCost, MaxQ and MultipleBest; the average start, runtime, finish, cost and Q per
algorithm, beside the paper's figures.

MultipleBest's row holds, per column, the best of its alternatives by that column's criterion
(least start, runtime, finish and cost, largest Q), as the paper's Fig. 1 and 2 show it: the
values may come from different windows. Trial ``i`` draws its environment from
``numpy.random.default_rng([seed, i])``, so any trial can be run alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from hetsched.coalloc.alternatives import alternatives, best_of
from hetsched.coalloc.criteria import criterion
from hetsched.coalloc.environment import LOADS, PaperEnvironment
from hetsched.coalloc.knapsack import CELLS
from hetsched.coalloc.model import Slots, Window
from hetsched.coalloc.search import search
from hetsched.errors import ConfigError, did_you_mean
from hetsched.options import check_seed

#: Most trials a study runs.
MAX_TRIALS = 1_000_000
#: The figures' panels: column -> axis label.
WINDOW_PANELS = {"start": "average start (time units)", "runtime": "average runtime (time units)",
                 "finish": "average finish (time units)"}
COST_PANELS = {"cost": "average cost (cost units)", "q": "average Q = Σ q_i"}

#: The algorithms, in the paper's order (MinStart, which the paper does not show, after
#: FirstFit).
ALGORITHMS = ("first_fit", "min_start", "min_finish", "min_runtime", "min_cost", "max_q",
              "multiple_best")
#: The averaged columns, and the criterion that picks MultipleBest's alternative for each.
COLUMNS = {"start": "min_start", "runtime": "min_runtime", "finish": "min_finish",
           "cost": "min_cost", "q": "max_q"}
#: What the paper reports (§4.2, Fig. 1 and 2): averages over 3,000 environments.
PAPER = {"min_cost_cost": 477.0, "min_cost_vs_multiple_best": 17.0,
         "min_cost_vs_others": 24.0, "max_q_q": 61.8, "max_q_vs_multiple_best": 18.0,
         "max_q_vs_others": 44.0}
#: What the paper's comparisons call "the other algorithms": those that optimise neither the
#: cost nor Q (the paper's FirstFit, MinFinish and MinRuntime, and MinStart).
OTHERS = ("first_fit", "min_start", "min_finish", "min_runtime")


@dataclass(frozen=True)
class Outcome:
    """One algorithm's window in one trial (``found`` false: no window; the values NaN), and
    the CPU seconds its search took."""

    trial: int
    algorithm: str
    found: bool
    start: float
    runtime: float
    finish: float
    cost: float
    q: float
    seconds: float


def trial(index: int, table: Slots, environment: PaperEnvironment,
          cells: int = CELLS) -> Iterator[Outcome]:
    """Every algorithm on one environment's slots."""
    for algorithm in ALGORITHMS:
        began = time.process_time()
        if algorithm == "multiple_best":
            found = alternatives(table, environment.request("first_fit"))
            best = {column: best_of(found, criterion(name)) for column, name in COLUMNS.items()}
        else:
            window = search(table, environment.request(algorithm), cells=cells)
            best = {column: window for column in COLUMNS}
        seconds = time.process_time() - began
        yield _outcome(index, algorithm, best, seconds)


def _outcome(index: int, algorithm: str, best: dict[str, Window | None],
             seconds: float) -> Outcome:
    """The outcome of ``best``: per column, the window whose value it shows."""
    values = {}
    for column, window in best.items():
        if window is None:
            return Outcome(index, algorithm, False, *[np.nan] * len(COLUMNS), seconds)
        values[column] = criterion(COLUMNS[column]).value(window.start, window.runtime,
                                                          window.cost, window.totals)
    return Outcome(index, algorithm, True, seconds=seconds, **values)


def run_study(trials: int, seed: int = 0, environment: PaperEnvironment | None = None,
              cells: int = CELLS, progress: Callable[[], None] | None = None) -> list[Outcome]:
    """``trials`` environments, every algorithm on each."""
    environment = environment or PaperEnvironment()
    done: list[Outcome] = []
    for index in range(trials):
        table = environment.draw(np.random.default_rng([seed, index]))
        done.extend(trial(index, table, environment, cells))
        if progress is not None:
            progress()
    return done


def settings(trials: int, seed: int, load: str, cells: int) -> PaperEnvironment:
    """The study's environment with the ``load`` model named, once the options are checked
    (one-line errors)."""
    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= MAX_TRIALS:
        raise ConfigError(f"trials must be a whole number from 1 to {MAX_TRIALS:,}, "
                          f"got {trials!r}")
    check_seed(seed)
    if load not in LOADS:
        raise ConfigError(f"unknown load {load!r}{did_you_mean(load, list(LOADS))} "
                          f"(known: {', '.join(LOADS)})")
    if isinstance(cells, bool) or not isinstance(cells, int) or not 1 <= cells <= 10**6:
        raise ConfigError(f"cells must be a whole number from 1 to 1,000,000, got {cells!r}")
    return PaperEnvironment(load=LOADS[load]())


def summarize(done: list[Outcome]) -> list[dict[str, object]]:
    """Per algorithm: the means of the columns over the trials where it found a window, how
    many it found, the share of its windows that start at 0 (%), and its CPU milliseconds
    per search."""
    rows = []
    for algorithm in ALGORITHMS:
        mine = [o for o in done if o.algorithm == algorithm]
        hits = [o for o in mine if o.found]
        row: dict[str, object] = {"algorithm": algorithm}
        for column in COLUMNS:
            row[column] = float(np.mean([getattr(o, column) for o in hits])) if hits \
                else np.nan
        row["found"] = len(hits)
        row["trials"] = len(mine)
        row["starts_at_zero_percent"] = 100.0 * sum(o.start == 0 for o in hits) / max(1, len(hits))
        row["ms_per_search"] = 1000.0 * sum(o.seconds for o in mine) / max(1, len(mine))
        rows.append(row)
    return rows


def advantage(better: float, worse: float) -> float:
    """The paper's advantage (%): how much ``better`` improves on ``worse``, relative to the
    larger of the two (MinCost's 24 % over the others' cost, MaxQ's 44 % over their Q)."""
    return 100.0 * abs(worse - better) / max(abs(worse), abs(better))


def compare_with_paper(summary: list[dict[str, object]]) -> list[dict[str, object]]:
    """The paper's figures beside ours: MinCost's cost and its advantage over MultipleBest and
    the others, MaxQ's Q and its advantages, and the windows starting at t = 0."""
    by = {str(row["algorithm"]): row for row in summary}

    def mean(algorithm: str, column: str) -> float:
        return float(by[algorithm][column])  # type: ignore[arg-type]

    others_cost = float(np.mean([mean(a, "cost") for a in OTHERS]))
    others_q = float(np.mean([mean(a, "q") for a in OTHERS]))
    rows = [
        ("MinCost: average cost", PAPER["min_cost_cost"], mean("min_cost", "cost")),
        ("MinCost: advantage over MultipleBest's cost (%)", PAPER["min_cost_vs_multiple_best"],
         advantage(mean("min_cost", "cost"), mean("multiple_best", "cost"))),
        ("MinCost: advantage over the others' cost (%)", PAPER["min_cost_vs_others"],
         advantage(mean("min_cost", "cost"), others_cost)),
        ("MaxQ: average Q", PAPER["max_q_q"], mean("max_q", "q")),
        ("MaxQ: advantage over MultipleBest's Q (%)", PAPER["max_q_vs_multiple_best"],
         advantage(mean("max_q", "q"), mean("multiple_best", "q"))),
        ("MaxQ: advantage over the others' Q (%)", PAPER["max_q_vs_others"],
         advantage(mean("max_q", "q"), others_q)),
        *((f"{name}: average start", 0.0, mean(name, "start"))
          for name in ("first_fit", "min_finish", "multiple_best"))]
    return [{"figure": figure, "paper": paper, "ours": ours} for figure, paper, ours in rows]


def write(out: Path, done: list[Outcome], summary: list[dict[str, object]],
          paper: list[dict[str, object]]) -> list[Path]:
    """``trials.csv`` (one row per trial and algorithm), ``summary.csv`` and ``paper.csv``."""
    from hetsched.output import write_rows_csv

    out.mkdir(parents=True, exist_ok=True)
    return [write_rows_csv([asdict(o) for o in done], out / "trials.csv"),
            write_rows_csv(summary, out / "summary.csv"), write_rows_csv(paper, out / "paper.csv")]


def figures(out: Path, summary: list[dict[str, object]],
            environment: PaperEnvironment) -> list[Path]:
    """``windows.png`` (start, runtime, finish: the paper's Fig. 1) and ``cost_q.png`` (cost
    and Q: its Fig. 2 and the costs it quotes), with the budget, Q's ceiling and the paper's
    figures drawn as lines."""
    from hetsched.report.averages import averages_figure

    trials = int(summary[0]["trials"])  # type: ignore[call-overload]
    ceiling = environment.n * environment.q_range[1]
    return [averages_figure(summary, "algorithm", WINDOW_PANELS, out / "windows.png",
                            f"Windows of {environment.n} nodes among {environment.nodes}: "
                            f"averages over {trials:,} environments"),
            averages_figure(summary, "algorithm", COST_PANELS, out / "cost_q.png",
                            f"Cost (budget {environment.budget:g}) and Q: averages over "
                            f"{trials:,} environments",
                            {"cost": [(environment.budget, f"budget C = {environment.budget:g}"),
                                      (PAPER["min_cost_cost"],
                                       f"paper's MinCost: {PAPER['min_cost_cost']:g}")],
                             "q": [(ceiling, f"ceiling {environment.n} · "
                                              f"{environment.q_range[1]:g} = {ceiling:g}"),
                                   (PAPER["max_q_q"], f"paper's MaxQ: {PAPER['max_q_q']:g}")]})]
