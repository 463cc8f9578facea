"""How every command reports a user error: one line ``error: <message>`` on stderr, exit 2;
and a warning: one line ``warning: <message>`` on stderr, exit code unchanged."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer

from hetsched.errors import HetschedError


def fail(message: str) -> NoReturn:
    typer.echo(f"error: {' '.join(message.split())}", err=True)
    raise typer.Exit(2)


def warn(messages: Iterable[str]) -> None:
    for message in messages:
        typer.echo(f"warning: {' '.join(message.split())}", err=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn every user error into one line on stderr and exit code 2 (never a traceback)."""
    try:
        yield
    except HetschedError as err:
        fail(str(err))
    except OSError as err:  # output directory/files: missing parent, permissions, not a dir
        where = f"{err.filename}: " if err.filename else ""
        fail(f"{where}{err.strerror or err}")
