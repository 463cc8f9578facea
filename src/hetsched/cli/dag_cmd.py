"""``hetsched dag``: schedule task graphs on the classic model with HEFT, CPOP, PEFT, the
exact solver and the ready-set list heuristics; one row per (instance, heuristic)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from hetsched.cli.console import Format, FormatOpt, print_instance_rows
from hetsched.cli.errors import user_errors
from hetsched.errors import ConfigError


def parse_graph_heuristics(text: str) -> list[str]:
    """``"heft, peft"`` -> ``["heft", "peft"]``; ``all``: every heuristic but ``exact``."""
    from hetsched.mapping.graph_registry import EXACT, GRAPH_HEURISTICS

    names: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        expanded = [n for n in GRAPH_HEURISTICS if n != EXACT] if part == "all" else [part]
        for name in expanded:
            GRAPH_HEURISTICS.entry(name)  # an unknown name: one line, with the close ones
            if name not in names:
                names.append(name)
    if not names:
        raise ConfigError("no heuristic given")
    return names


def dag_command(
        files: Annotated[list[Path], typer.Argument(
            help="Task graphs: .json (costs per processor and edges with data costs, as the "
            "textbook examples) or .stg (Kasahara's Standard Task Graph set: identical "
            "processors, no communication).", show_default=False)],
        heuristic: Annotated[str, typer.Option(
            "--heuristic", "-H", help="Comma-separated: heft, cpop, peft, exact (MILP with "
            "HiGHS), or a list heuristic of 'hetsched map' (mct, min_min, sufferage, ...) "
            "applied ready set by ready set; 'all': every one but exact.")] = "heft,cpop,peft",
        processors: Annotated[Optional[int], typer.Option(
            "--processors", "-p", help="Processors: required for .stg graphs (identical "
            "processors); for a .json graph, its first P processors. Default: the file's own.",
            show_default=False)] = None,
        time_limit: Annotated[float, typer.Option(
            "--time-limit", "-t", help="Seconds allowed to the exact solver.")] = 60.0,
        budget: Annotated[Optional[int], typer.Option(
            "--budget", "-b", help="HiGHS branch-and-bound nodes allowed to the exact solver "
            "instead: results that do not depend on the machine's speed.",
            show_default=False)] = None,
        json_out: Annotated[bool, typer.Option(
            "--json", help="Same as --format jsonl.")] = False,
        output_format: Annotated[Format, FormatOpt] = Format.TABLE) -> None:
    """Schedule task graphs: makespan, gap to a lower bound, SLR, speedup and efficiency.

    --format jsonl prints each (instance, heuristic) row as soon as the heuristic ends."""
    from hetsched.mapping.dag_exact import lower_bound
    from hetsched.mapping.dag_io import read_dag
    from hetsched.options import check_number

    with user_errors():
        names = parse_graph_heuristics(heuristic)
        check_number("--time-limit", time_limit, positive=True)
        if processors is not None:
            check_number("--processors", processors, positive=True)
        if budget is not None:
            check_number("--budget", budget, positive=True)
        graphs = [(path, read_dag(path, processors)) for path in files]  # fail fast
        print_instance_rows(
            graphs, names, lower_bound,
            lambda path, graph, bound, name: _row(path.name, graph, name, bound, time_limit,
                                                  budget),
            lambda path, graph, bound, rows: _table(path, graph, rows),
            Format.JSONL if json_out else output_format)


def _row(instance: str, graph: Any, name: str, bound: float, time_limit: float,
         budget: int | None) -> dict[str, Any]:
    """One heuristic's schedule, checked against the model before it is reported. Its gap is
    to the instance's ``lower_bound``, whatever else runs; a bound the exact solver proved is
    ``proved_bound``."""
    from hetsched.mapping.graph import check_schedule, schedule_metrics
    from hetsched.mapping.graph_registry import run_graph_heuristic

    schedule = run_graph_heuristic(name, graph, time_limit, budget)
    broken = check_schedule(graph, schedule)
    if broken:  # a bug, never the input's fault: say what the schedule breaks
        raise RuntimeError(f"{name} on {instance}: {broken[0]}")
    makespan = schedule.makespan
    return {"instance": instance, "heuristic": name, "processors": graph.processors,
            "tasks": graph.tasks, "edges": len(graph.edges), "makespan": makespan,
            "lower_bound": bound,
            "gap_percent": 100.0 * (makespan / bound - 1.0) if bound > 0 else None,
            **schedule_metrics(graph, schedule), "seconds": schedule.seconds,
            "proved_bound": schedule.lower_bound, "optimal": schedule.info.get("optimal")}


def _table(path: Path, graph: Any, rows: list[dict[str, Any]]) -> Any:
    from rich.markup import escape

    from hetsched.cli.tables import new_table
    from hetsched.metrics.formats import fmt_percent, fmt_ratio

    table = new_table("heuristic", ["makespan", "gap to bound", "SLR", "speedup",
                                    "efficiency", "seconds"],
                      title=f"{escape(path.name)} · {graph.tasks} tasks, {len(graph.edges)} "
                            f"edges × {graph.processors} processors · lower bound "
                            f"{rows[0]['lower_bound']:,.2f}", caption=_proved_caption(rows))
    best = min(row["makespan"] for row in rows)
    for row in rows:
        gap = row["gap_percent"]
        optimal = " (optimal)" if row["optimal"] else ""
        table.add_row(row["heuristic"] + optimal, f"{row['makespan']:,.2f}",
                      "—" if gap is None else f"{gap:.2f} %", fmt_ratio(_nan(row["slr"])),
                      fmt_ratio(_nan(row["speedup"])), fmt_percent(_nan(row["efficiency"])),
                      f"{row['seconds']:.3f}",
                      style="bold green" if row["makespan"] == best else None)
    return table


def _nan(value: float | None) -> float:
    return float("nan") if value is None else value


def _proved_caption(rows: list[dict[str, Any]]) -> str | None:
    """The exact solver's proved bound, where it is above the instance's lower bound."""
    proved = [row for row in rows if row["proved_bound"] is not None
              and row["proved_bound"] > row["lower_bound"]]
    return (f"{proved[0]['heuristic']} proved a lower bound of {proved[0]['proved_bound']:,.2f}"
            " (the gaps stay to the instance's bound)") if proved else None
