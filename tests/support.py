"""Helpers shared by the test modules."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hetsched.errors import InputError

#: The real traces and platforms: ``$HETSCHED_SHARED_DATA``, else ``../shared/data`` beside the
#: repository.
SHARED_DATA = Path(os.environ.get("HETSCHED_SHARED_DATA")
                   or Path(__file__).resolve().parents[2] / "shared" / "data").resolve()
#: The 12 Braun et al. ETC instances in ``braun/`` (file names without their ``.0``).
BRAUN_INSTANCES = tuple(f"u_{consistency}_{tasks}{machines}" for consistency in "cis"
                        for tasks in ("hi", "lo") for machines in ("hi", "lo"))


def shared(relative: str) -> Path:
    """The file or folder ``relative`` of the shared data; skips the test, naming the missing
    path, when it is not there. Call it in the test or fixture that needs the data."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"shared data missing: {path}")
    return path


def write(path: Path, content: object) -> Path:
    """Write ``content`` (a string, or anything JSON can hold) to ``path``."""
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def run_directory(run, folder: Path) -> Path:
    """``run`` (a ``hetsched.simulate`` result) written to ``folder / "run"``."""
    run.write(folder / "run")
    return folder / "run"


def error_of(call, *args, **kwargs) -> str:
    """The message of the :class:`InputError` that ``call(*args, **kwargs)`` raises."""
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    return str(info.value)


def assert_mentions(message: str, *parts: str) -> None:
    """``message`` is one line and contains every one of ``parts``."""
    for part in parts:
        assert part in message, f"{part!r} not in {message!r}"
    assert "\n" not in message


def assert_one_line_error(result, *fragments: str) -> None:
    """A CLI result that failed with exit code 2 and a one-line ``error: …`` on stderr."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]


# ---- ds-sim XML snippets -------------------------------------------------------------------
def config_xml(*servers: str) -> str:
    """A ds-sim configuration holding ``servers`` (from :func:`server`)."""
    return "<config><servers>" + "".join(servers) + "</servers></config>"


def server(name: str, cores: int, limit: int = 1, boot: int = 60, rate: float = 3.6) -> str:
    """A ds-sim server type with 1000 MB of memory and disk per core."""
    return (f'<server type="{name}" limit="{limit}" bootupTime="{boot}" hourlyRate="{rate}" '
            f'cores="{cores}" memory="{1000 * cores}" disk="{1000 * cores}" />')


def job(jid: int, submit: int, cores: int, actual: int, estimate: int | None = None) -> str:
    """A ds-sim job-list entry needing 100 MB of memory and disk per core."""
    return (f'<job id="{jid}" type="t" submitTime="{submit}" estRunTime="{estimate or actual}" '
            f'actRunTime="{actual}" cores="{cores}" memory="{100 * cores}" disk="{100 * cores}" />')
