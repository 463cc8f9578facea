"""The report's jinja2 templates: package data found where hetsched is installed, text
escaped, a missing value an error rather than a blank."""

from __future__ import annotations

import fnmatch
import tomllib
from importlib.resources import files
from pathlib import Path

import jinja2
import pytest

from hetsched.report import html

ROOT = Path(__file__).resolve().parents[1]


def test_the_templates_are_package_data_found_from_the_installed_package() -> None:
    folder = files("hetsched.report") / "templates"
    names = sorted(entry.name for entry in folder.iterdir() if entry.is_file())
    assert {"page.html.j2", "macros.html.j2", "report.html.j2", "style.css"} <= set(names)
    assert sorted(html.environment().list_templates()) == names
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["hetsched"]
    for name in names:  # each goes into the wheel and the sdist
        assert any(fnmatch.fnmatch(f"report/templates/{name}", p) for p in patterns), name


def test_a_page_escapes_text_and_keeps_markup_from_macros() -> None:
    page = html.render("page.html.j2", title="a <b> & c")
    assert "<title>a &lt;b&gt; &amp; c</title>" in page and "font-variant-numeric" in page
    note = html.macro("note")("<script>alert(1)</script>")
    assert note == '<p class="note">&lt;script&gt;alert(1)&lt;/script&gt;</p>'
    table = html.macro("table")(["a"], [[(note, "")]])
    assert f"<td>{note}</td>" in table  # a macro's markup is not escaped twice


def test_a_missing_value_is_an_error_not_a_blank() -> None:
    with pytest.raises(jinja2.UndefinedError, match="'title' is undefined"):
        html.render("page.html.j2")
    with pytest.raises(jinja2.UndefinedError, match="'store' is undefined"):
        html.render("report.html.j2", title="t")


def test_a_change_reads_in_percent_and_a_missing_one_as_a_dash() -> None:
    change = html.macro("change")
    assert change(-0.3521, "better") == '<span class="better">-35.2 %</span>'
    assert change(float("nan"), "") == '<span class="">—</span>'
