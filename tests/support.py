"""Helpers shared by the test modules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hetsched.errors import InputError

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def write(path: Path, content: object) -> Path:
    """Write ``content`` (a string, or anything JSON can hold) to ``path``."""
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


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
