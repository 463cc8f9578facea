"""User-facing errors: each renders as one line naming the file, the record and the problem."""

from __future__ import annotations


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

    def render(self) -> str:
        where = self.path
        if self.record is not None:
            where += f", {self.record}"
        if self.field is not None:
            where += f", field '{self.field}'"
        return " ".join(f"{where}: {self.problem}".split())  # one line, whatever the values


class SchedulerError(HetschedError):
    """A scheduler answered with an impossible decision (a bug in the policy, not in the input)."""


class ConfigError(HetschedError):
    """Bad command-line or API configuration (unknown scheduler, bad option value)."""
