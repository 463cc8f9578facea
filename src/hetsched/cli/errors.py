"""How every command reports a problem: one line ``error: <message>`` on stderr, never a
traceback.

- A bad input file or option (:class:`~hetsched.errors.HetschedError`, or a value the command
  line parser refuses) exits with code 2.
- A closed output pipe (``hetsched map ... | head``) ends the command quietly.
- Anything else is a bug, in a user's scheduler (said so, with its file and line) or in
  hetsched: one line naming the exception and where it was raised, exit code 1;
  ``HETSCHED_DEBUG=1`` shows the whole traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup

from hetsched.errors import (OPTION_NAMES, HetschedError, describe_exception,
                             raised_in_user_code)

#: Exit code of bad input files and options.
USAGE_EXIT = 2
#: Exit code of an unexpected exception (a bug).
BUG_EXIT = 1
#: click's base exception (typer vendors click from 0.26 on and re-exports BadParameter).
_CLICK_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def flag(name: str) -> str:
    """How the command line spells option ``name``: ``swf_placement`` -> ``--swf-placement``."""
    return "--" + name.replace("_", "-")


def one_line(message: str) -> str:
    return " ".join(message.split())


def fail(message: str) -> NoReturn:
    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(USAGE_EXIT)


def warn(message: str) -> None:
    typer.echo(f"warning: {one_line(message)}", err=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn every user error into one line on stderr and exit code 2 (never a traceback)."""
    try:
        yield
    except HetschedError as err:
        fail(str(err))
    except BrokenPipeError:
        raise
    except OSError as err:  # output directory/files: missing parent, permissions, not a dir
        where = f"{err.filename}: " if err.filename else ""
        fail(f"{where}{err.strerror or err}")


class OneLineErrors(TyperGroup):
    """The ``hetsched`` command group: the parser's own errors (a bad option value, an unknown
    option) become one ``error:`` line too, and so does everything unexpected."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        from hetsched.cli.help_pages import untyped_flags

        untyped_flags(self)
        names = OPTION_NAMES.set(flag)  # messages name options as flags while a command runs
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except _CLICK_ERROR as err:
            code = _parser_error(err)
        except BrokenPipeError:
            code = _quiet_broken_pipe()
        except (typer.Abort, KeyboardInterrupt):
            typer.echo("error: interrupted", err=True)
            code = 130
        except Exception as err:  # noqa: BLE001 - the last line of defence: one line, exit 1
            if os.environ.get("HETSCHED_DEBUG"):
                raise
            code = _bug(err)
        finally:
            OPTION_NAMES.reset(names)
        code = code if isinstance(code, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


def _parser_error(err: Any) -> int:
    if type(err).__name__ == "NoArgsIsHelpError":  # `hetsched` alone: the help, as asked
        err.show()
        return 0
    ctx = getattr(err, "ctx", None)
    hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
    typer.echo(f"error: {one_line(err.format_message())}{hint}", err=True)
    return int(getattr(err, "exit_code", USAGE_EXIT))


def _quiet_broken_pipe() -> int:
    """The reader went away (``| head``): stop writing, say nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


def _bug(err: Exception) -> int:
    """An unexpected exception: the user's scheduler's own, or a bug of hetsched's."""
    if raised_in_user_code(err):
        typer.echo(f"error: your scheduler raised {describe_exception(err, full_path=True)}: "
                   "an error in your code, not in hetsched (set HETSCHED_DEBUG=1 for the "
                   "traceback)", err=True)
    else:
        typer.echo(f"error: unexpected {describe_exception(err)}; this is a bug (set "
                   "HETSCHED_DEBUG=1 for the traceback)", err=True)
    return BUG_EXIT
