"""Messages name options as the caller knows them: flags on the command line (``--platform``),
parameter names from Python (``platform``). No layer below the command line writes a flag into
an error: it asks ``hetsched.errors.option_name``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hetsched.cli.main import app
from hetsched.convert import convert
from hetsched.errors import ConfigError
from support import assert_one_line_error, shared

SOURCE = Path(__file__).resolve().parents[1] / "src" / "hetsched"
FLAG = re.compile(r"(^|[\s(`'\"])--[a-z]")


def _raised_texts(tree: ast.AST) -> list[str]:
    """The string parts of what each ``raise`` statement builds."""
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            texts += [part.value for part in ast.walk(node.exc)
                      if isinstance(part, ast.Constant) and isinstance(part.value, str)]
    return texts


def test_no_error_below_the_command_line_spells_a_flag() -> None:
    """(A whole command to run instead, quoted as `hetsched ...`, may have its flags.)"""
    found = [f"{path.relative_to(SOURCE)}: {text!r}" for path in SOURCE.rglob("*.py")
             if "cli" not in path.relative_to(SOURCE).parts
             for text in _raised_texts(ast.parse(path.read_text()))
             if FLAG.search(text) and "`hetsched " not in text]
    assert not found


def test_the_same_advice_names_a_parameter_in_python_and_a_flag_on_the_command_line(
        tmp_path: Path) -> None:
    trace = tmp_path / "t.swf"
    trace.write_text("1 0 -1 10 1 -1 -1 1 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    with pytest.raises(ConfigError, match=r"give platform \(run times") as caught:
        convert(trace, tmp_path / "t.yaml")
    assert "--" not in str(caught.value)
    result = CliRunner().invoke(app, ["convert", str(trace), str(tmp_path / "t.yaml")])
    assert_one_line_error(result, "give --platform (run times")


def test_a_generated_ds_sim_configuration_asks_for_the_workload_by_its_name(
        tmp_path: Path) -> None:
    import hetsched

    config = next(shared("dssim/configs").glob("*.xml"))
    text = config.read_text()
    generated = tmp_path / "c.xml"
    generated.write_text(re.sub(r"<jobs[^>]*/>|<jobs[^>]*>.*?</jobs>", "<jobs></jobs>", text,
                                flags=re.S))
    with pytest.raises(Exception, match="give workload JOBS.xml"):
        hetsched.simulate(generated)
    result = CliRunner().invoke(app, ["run", "-p", str(generated)])
    assert_one_line_error(result, "give --workload JOBS.xml")
