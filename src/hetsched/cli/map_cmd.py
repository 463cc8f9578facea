"""``hetsched map``: run static mapping heuristics on ETC matrices and compare their makespans.

User errors print one line ``error: <message>`` on stderr and exit with code 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from hetsched.cli.console import Format, FormatOpt, print_instance_rows
from hetsched.cli.errors import user_errors
from hetsched.errors import ConfigError

#: The heuristics run when none are named: every list heuristic (each takes milliseconds).
DEFAULT_HEURISTICS = "olb,met,mct,min_min,max_min,duplex,sufferage,kpb,swa"
#: What every gap is measured against: ``mapping.exact.lower_bound``, the LP relaxation's
#: value (or the trivial bound, when larger), computed for every instance whatever runs.
BOUND = "lp"
#: Seconds allowed to each time-bounded heuristic when neither a limit nor a budget is given.
DEFAULT_TIME_LIMIT = 10.0


def parse_heuristics(text: str) -> list[str]:
    """``"min_min, ga"`` -> ``["min_min", "ga"]``; ``all`` = every registered heuristic."""
    from hetsched.mapping.registry import HEURISTICS

    names: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        expanded = list(HEURISTICS) if part == "all" else [part]
        for name in expanded:
            if name not in HEURISTICS:
                raise ConfigError(f"unknown heuristic '{name}' "
                                  f"(one of: {', '.join(HEURISTICS)}, or all)")
            if name not in names:
                names.append(name)
    if not names:
        raise ConfigError("no heuristic given")
    return names


def _gap(makespan: float, bound: float) -> float | None:
    return 100.0 * (makespan / bound - 1.0) if bound > 0 else None


def map_command(
        etc: Annotated[list[Path], typer.Argument(
            help="ETC matrix files: Braun format (first line 'tasks machines 0', then the "
            "values task-major) or .csv (rows tasks, columns machines).",
            show_default=False)],
        heuristic: Annotated[str, typer.Option(
            "--heuristic", "-H", help="Comma-separated heuristics, or 'all': olb, met, mct, "
            "min_min, max_min, duplex, sufferage, kpb, swa, astar, ga, sa, gsa, tabu, ils, "
            "milp, best (the strongest within --time-limit).")] = DEFAULT_HEURISTICS,
        time_limit: Annotated[Optional[float], typer.Option(
            "--time-limit", "-t", help="Seconds allowed to each time-bounded heuristic "
            "(astar, ga, sa, gsa, tabu, ils, milp, best). Default: 10, none with --budget. "
            "Results then depend on the machine's speed.", show_default=False)] = None,
        budget: Annotated[Optional[int], typer.Option(
            "--budget", "-b", help="Steps allowed to each of those heuristics instead (A* "
            "expansions, GA/GSA generations, SA iterations, Tabu hops, ILS perturbations, "
            "HiGHS nodes for milp and best): results that do not depend on the machine's speed.",
            show_default=False)] = None,
        seed: Annotated[int, typer.Option(help="Seed of the random generator of the "
                                               "metaheuristics (fresh per run).")] = 0,
        json_out: Annotated[bool, typer.Option(
            "--json", help="Same as --format jsonl (kept from earlier versions).")] = False,
        output_format: Annotated[Format, FormatOpt] = Format.TABLE) -> None:
    """Map independent tasks on an ETC matrix: makespan, flowtime and gap to the LP bound.

    --format jsonl prints each (instance, heuristic) row as soon as the heuristic ends."""
    from hetsched.mapping.exact import lower_bound
    from hetsched.mapping.io import read_etc
    from hetsched.options import check_number, check_seed

    with user_errors():
        names = parse_heuristics(heuristic)
        if time_limit is not None:
            check_number("--time-limit", time_limit, positive=True)
        elif budget is None:
            time_limit = DEFAULT_TIME_LIMIT
        if budget is not None:
            check_number("--budget", budget, positive=True)
        check_seed(seed)
        matrices = [(path, read_etc(path)) for path in etc]  # fail fast on any bad file
        print_instance_rows(  # each gap is final as soon as its heuristic ends
            matrices, names, lower_bound,
            lambda path, matrix, bound, name: _row(path.name, matrix, name, bound, seed,
                                                   time_limit, budget),
            lambda path, matrix, bound, rows: _table(path, matrix.shape, bound, rows),
            Format.JSONL if json_out else output_format)


def _row(instance: str, matrix: Any, name: str, bound: float, seed: int,
         time_limit: float | None, budget: int | None) -> dict[str, Any]:
    """One heuristic's run. Its gap is to the instance's LP bound, whatever else runs; a bound
    the heuristic proved itself (milp, best) is reported next to it, as ``proved_bound``."""
    import numpy as np

    from hetsched.mapping.catalogue import BUDGETS
    from hetsched.mapping.registry import run_heuristic

    result = run_heuristic(name, matrix, rng=np.random.default_rng(seed), time_limit=time_limit,
                           budget=budget if name in BUDGETS else None)
    proved = None if result.lower_bound is None else min(result.lower_bound, result.makespan)
    return {"instance": instance, "heuristic": name, "tasks": int(matrix.shape[0]),
            "machines": int(matrix.shape[1]), "makespan": result.makespan,
            "flowtime": result.flowtime, "seconds": result.seconds, "bound": BOUND,
            "lower_bound": bound, "gap_percent": _gap(result.makespan, bound),
            "proved_bound": proved}


def _table(path: Path, shape: tuple[int, ...], bound: float, rows: list[dict[str, Any]]) -> Any:
    from rich.markup import escape

    from hetsched.cli.tables import new_table

    table = new_table("heuristic", ["makespan", "flowtime", "gap to LP bound", "seconds"],
                      title=f"{escape(path.name)} · {shape[0]} tasks × {shape[1]} machines · "
                            f"LP bound {bound:,.2f}", caption=_proved_caption(bound, rows))
    best = min(row["makespan"] for row in rows)
    for row in rows:
        style = "bold green" if row["makespan"] == best else None
        gap = row["gap_percent"]
        table.add_row(row["heuristic"], f"{row['makespan']:,.2f}", f"{row['flowtime']:,.2f}",
                      "—" if gap is None else f"{gap:.2f} %", f"{row['seconds']:.3f}",
                      style=style)
    return table


def _proved_caption(bound: float, rows: list[dict[str, Any]]) -> str | None:
    """The bounds heuristics proved above the LP bound (they do not change the gaps)."""
    from rich.markup import escape

    better = [f"{escape(row['heuristic'])} {row['proved_bound']:,.2f}"
              f" ({_gap(row['proved_bound'], bound):+.2f} %)" for row in rows
              if row["proved_bound"] is not None and row["proved_bound"] > bound]
    return (f"lower bounds proved above the LP bound (the gaps stay to the LP bound): "
            f"{', '.join(better)}") if better else None
