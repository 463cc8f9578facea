"""The documentation: the README's table of the job's fields, and the site with its API
reference (mkdocs.yml), built with ``--strict`` when the ``docs`` extra is installed."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_the_site_builds_strictly_with_the_job_fields_in_its_api_reference(
        tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    pytest.importorskip("material")
    site = tmp_path / "site"
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                            "--site-dir", str(site)], cwd=ROOT, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    job_page = (site / "api" / "job" / "index.html").read_text()
    for field in dataclasses.fields(Job):
        assert f'id="hetsched.workload.model.Job.{field.name}"' in job_page, field.name
    assert re.search(r"\(the\s+requested time\)", job_page)  # req_time's own docstring
    assert "What a scheduler can read" in (site / "index.html").read_text()  # the README

