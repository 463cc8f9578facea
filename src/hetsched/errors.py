"""User-facing errors: each renders as one line naming the file, the record and the problem.
Also the warning category of suspicious but legal inputs (``InputWarning``)."""

from __future__ import annotations

import difflib
import sysconfig
import traceback
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path


class HetschedError(Exception):
    """Base class of every error the CLI reports as a one-line message (never a traceback)."""


class InputError(HetschedError):
    """A bad input file: names the file, the record (line number or job id) and the field."""

    def __init__(self, path: object, problem: str, record: str | None = None,
                 field: str | None = None) -> None:
        self.path = str(path)
        self.record = record
        self.field = field
        self.problem = problem
        super().__init__(self.render())

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, str | None, str | None]]:
        """Pickled as its parts, so that it crosses from a worker process intact."""
        return type(self), (self.path, self.problem, self.record, self.field)

    def render(self) -> str:
        where = self.path
        if self.record is not None:
            where += f", {self.record}"
        if self.field is not None:
            where += f", field '{self.field}'"
        return " ".join(f"{where}: {self.problem}".split())  # one line, whatever the values


class InputWarning(UserWarning):
    """Inputs that are legal but probably not what was meant (e.g. a trace made for a machine
    of another size); the text is one line, as ``hetsched.run.checks.input_warnings`` gives."""


class SchedulerError(HetschedError):
    """A scheduler answered with an impossible decision (a bug in the policy, not in the input)."""


class ConfigError(HetschedError):
    """Bad command-line or API configuration (unknown scheduler, bad option value)."""


#: How the front end in use names an option in its messages: Python callers read a parameter's
#: own name; the command line names its flags while it runs (``platform`` -> ``--platform``).
OPTION_NAMES: ContextVar[Callable[[str], str]] = ContextVar("option_names", default=str)


def option_name(name: str) -> str:
    """Option ``name`` (a parameter's name) as the caller knows it: ``platform`` from Python,
    ``--platform`` on the command line. Messages that tell what to give use it, so that the
    command line's spelling stays the command line's."""
    return OPTION_NAMES.get()(name)


def describe_exception(err: BaseException, full_path: bool = False) -> str:
    """``KeyError: 'x' (my.py, line 12)``, on one line: the exception and where it was raised,
    preferring the innermost frame of the user's own code (a scheduler file), then of
    hetsched, over library frames; ``full_path``: the file's whole path."""
    frame, _ = _raising_frame(err)
    shown = "" if frame is None else frame.filename if full_path else Path(frame.filename).name
    where = f" ({shown}, line {frame.lineno})" if frame else ""
    text = " ".join(str(err).split())
    return f"{type(err).__name__}{': ' + text if text else ''}{where}"


def raised_in_user_code(err: BaseException) -> bool:
    """Whether ``err`` was raised in the user's own code (a scheduler file): a frame of a file
    outside hetsched and outside the installed libraries."""
    return _raising_frame(err)[1] == 0


def _raising_frame(err: BaseException) -> tuple[traceback.FrameSummary | None, int]:
    """The frame :func:`describe_exception` names and its rank: 0 the user's code, 1
    hetsched's, 2 a library's, 3 generated code."""
    frames = traceback.extract_tb(err.__traceback__)
    ours = Path(__file__).resolve().parent
    libraries = {Path(p).resolve() for key, p in sysconfig.get_paths().items()
                 if key in ("stdlib", "platstdlib", "purelib", "platlib")}

    def rank(frame: traceback.FrameSummary) -> int:
        if frame.filename.startswith("<"):  # generated code (dataclasses, exec): no file
            return 3
        parents = Path(frame.filename).resolve().parents
        return 1 if ours in parents else 0 if libraries.isdisjoint(parents) else 2

    if not frames:
        return None, 3
    frame = min(reversed(frames), key=rank)
    return frame, rank(frame)


def did_you_mean(word: str, candidates: list[str], most: int = 1) -> str:
    """``"; did you mean a, b?"`` naming up to ``most`` close matches of ``word`` among
    ``candidates``, or ``""`` when none is close."""
    close = difflib.get_close_matches(word, candidates, n=most)
    return f"; did you mean {', '.join(close)}?" if close else ""
