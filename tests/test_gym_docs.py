"""docs/gym.md shows real output: its examples, run, print what the page says they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "gym.md"


def examples() -> list[tuple[str, str]]:
    """Each python block of the page followed by a plain block: (code, its printed output)."""
    return re.findall(r"```python\n(.*?)```\n\n(?:prints[^\n]*\n\n)?```\n(.*?)```",
                      DOC.read_text(), re.S)


def test_the_page_has_its_three_examples() -> None:
    assert len(examples()) == 3


@pytest.mark.parametrize("index", [0, 1, 2])
def test_an_example_prints_what_the_page_shows(index: int) -> None:
    code, shown = examples()[index]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, f"docs/gym.md example {index}", "exec"), {})
    assert printed.getvalue() == shown
