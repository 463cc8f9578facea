"""The run options on the command line: one ``--option`` per field of
:class:`~hetsched.run.options.RunOptions` (its name with dashes, its default and help), added to
a command by :func:`with_run_options`, so ``run`` and ``compare`` (and any command that starts
runs) get every run option from its one definition."""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from dataclasses import fields
from typing import Annotated, Any, Optional, TypeVar, Union, get_args, get_type_hints

import typer

from hetsched.cli.errors import flag, user_errors
from hetsched.options import check_table_writer
from hetsched.run.options import RunOptions

Command = TypeVar("Command", bound=Callable[..., Any])


def _cli_type(hint: Any) -> Any:
    """What Typer parses a run option as: its type, ``Optional[X]`` for ``X | None``."""
    if isinstance(hint, types.UnionType) or getattr(hint, "__origin__", None) is Union:
        (inner,) = [arg for arg in get_args(hint) if arg is not type(None)]
        return Optional[inner]
    return hint


def option_parameters() -> list[inspect.Parameter]:
    """One keyword parameter per run option, annotated for Typer."""
    hints = get_type_hints(RunOptions)
    return [inspect.Parameter(spec.name, inspect.Parameter.KEYWORD_ONLY, default=spec.default,
                              annotation=Annotated[_cli_type(hints[spec.name]), typer.Option(
                                  flag(spec.name), help=RunOptions.help_text(spec.name),
                                  metavar=_metavar(spec.name))])
            for spec in fields(RunOptions)]


def _metavar(name: str) -> str | None:
    """``<kill|ignore|auto>`` for an option of a few names, as Typer shows a choice (the
    values stay checked by the option's own check, with its message); else Typer's own."""
    choices = RunOptions.choices(name)
    return f"<{'|'.join(choices)}>" if choices else None


def with_run_options(command: Command) -> Command:
    """``command`` with every run option as a command-line option; it receives them checked,
    as its ``options: RunOptions`` argument (a bad value is the usual one-line error)."""
    own = inspect.signature(command, eval_str=True)
    parameters = [p for p in own.parameters.values() if p.name != "options"]
    names = [spec.name for spec in fields(RunOptions)]

    @functools.wraps(command)
    def run_with_options(**values: Any) -> Any:
        with user_errors():
            options = RunOptions(**{name: values.pop(name) for name in names})
            check_table_writer(options.table_format)  # before a run that could not be written
        return command(**values, options=options)

    run_with_options.__signature__ = own.replace(  # type: ignore[attr-defined]
        parameters=[*parameters, *option_parameters()])
    run_with_options.__annotations__ = {}  # Typer reads the signature's, resolved above
    return run_with_options  # type: ignore[return-value]
