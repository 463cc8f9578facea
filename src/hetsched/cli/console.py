"""Where command output goes: Rich tables on a terminal, and the same data as CSV, JSON or JSON
lines (``--format table|csv|json|jsonl``, one convention for every command that prints
results) for scripts. Output that is not a terminal gets whole rows (no wrapping at 80
columns), so ``hetsched compare ... > table.txt`` stays readable."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import Annotated, Any

import typer

#: Width given to Rich when stdout is not a terminal: tables keep their natural width.
FILE_WIDTH = 10_000


class Format(str, Enum):
    """How a command prints its results."""

    TABLE = "table"
    CSV = "csv"
    JSON = "json"
    JSONL = "jsonl"


FormatOpt = typer.Option("--format", "-f", help="Output: table (Rich), csv, json, or jsonl "
                         "(one JSON object per line).", case_sensitive=False)
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")]


def console(stderr: bool = False) -> Any:
    """A Rich console: the terminal's width on a terminal, whole rows otherwise."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, width=None if stream.isatty() else FILE_WIDTH)


def print_json(value: Any) -> None:
    """``value`` as indented JSON (NaN and infinity as null) on stdout."""
    from hetsched.output.summary_json import jsonable

    typer.echo(json.dumps(jsonable(value), indent=2, allow_nan=False))


def print_jsonl(rows: Sequence[Mapping[str, Any]]) -> None:
    """Each row as one line of JSON (NaN and infinity as null) on stdout."""
    from hetsched.output.summary_json import jsonable

    for row in rows:
        typer.echo(json.dumps(jsonable(row), allow_nan=False))


def print_csv(rows: Sequence[Mapping[str, object]]) -> None:
    """One CSV row per mapping on stdout; columns: every key in first-seen order."""
    from hetsched.output.summary_json import write_rows

    write_rows(rows, sys.stdout)


def print_instance_rows(instances: Sequence[tuple[Any, Any]], names: Sequence[str],
                        bound: Callable[[Any], float],
                        row: Callable[[Any, Any, float, str], dict[str, Any]],
                        table: Callable[[Any, Any, float, list[dict[str, Any]]], Any],
                        output_format: Format) -> None:
    """One row per (instance, method), as ``map`` and ``dag`` print them: ``bound(instance)``
    once per instance (every method's gap is to it), ``row(key, instance, bound, name)`` runs
    a method; jsonl prints each row as soon as it is made, table one ``table(key, instance,
    bound, rows)`` per instance, json and csv every row at the end."""
    every: list[dict[str, Any]] = []
    for key, instance in instances:
        lower = bound(instance)
        rows: list[dict[str, Any]] = []
        for name in names:
            rows.append(row(key, instance, lower, name))
            if output_format is Format.JSONL:
                print_jsonl(rows[-1:])
        if output_format is Format.TABLE:
            console().print(table(key, instance, lower, rows))
        every.extend(rows)
    if output_format is Format.JSON:
        print_json(every)
    elif output_format is Format.CSV:
        print_csv(every)
