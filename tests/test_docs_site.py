"""The documentation: the README's table of the job's fields."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from hetsched.workload.model import Job

ROOT = Path(__file__).resolve().parents[1]


def _readme_job_fields() -> list[str]:
    """The field names in the first column of the README's table under "What a scheduler can
    read", in the table's order (a row may name several: ``queue``, ``partition``)."""
    section = (ROOT / "README.md").read_text().split("### What a scheduler can read\n", 1)[1]
    rows = re.findall(r"^\| ([^|]*) \|", section.split("\n###", 1)[0], flags=re.MULTILINE)
    return [name for row in rows[1:] for name in re.findall(r"`(\w+)`", row)]


def test_the_readme_lists_exactly_the_fields_of_job_in_their_order() -> None:
    assert _readme_job_fields() == [f.name for f in dataclasses.fields(Job)]

