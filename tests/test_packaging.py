"""The project installs and starts as its metadata says: declared dependencies only, a
version, a licence, and no heavy import at CLI start-up."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from typer.testing import CliRunner

import hetsched
from hetsched.cli.main import app

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
#: Modules of the test suite itself, imported by name from tests/.
TEST_MODULES = {p.stem for p in (ROOT / "tests").glob("*.py")}
#: Packages the command line's start-up must not import (the commands that need one import it).
HEAVY = {"scipy", "matplotlib", "pandas", "dask", "distributed", "wfcommons", "jinja2",
         "gymnasium"}


def _requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _declared(*extras: str) -> set[str]:
    project = PYPROJECT["project"]
    names = {_requirement_name(r) for r in project["dependencies"]}
    for extra in extras:
        names |= {_requirement_name(r) for r in project["optional-dependencies"][extra]}
    return names


def _imported_top_modules(folder: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], path)
    return found


def _undeclared(folder: Path, allowed: set[str]) -> list[str]:
    distributions = packages_distributions()
    problems = []
    for module, path in sorted(_imported_top_modules(folder).items()):
        if module in sys.stdlib_module_names or module == "hetsched" or module in TEST_MODULES:
            continue
        owners = {d.lower().replace("_", "-") for d in distributions.get(module, [])}
        if not owners & allowed:
            problems.append(f"{path.relative_to(ROOT)} imports {module} ({owners or 'no dist'})")
    return problems


def test_the_package_imports_only_declared_dependencies() -> None:
    # extras: imported in functions (gymnasium: by hetsched.gym, which nothing else imports)
    allowed = _declared("plot", "pandas", "sweep", "workflows", "gym", "parquet")
    assert _undeclared(ROOT / "src", allowed) == []


def test_the_tests_import_only_declared_test_dependencies() -> None:
    assert _undeclared(ROOT / "tests", _declared("test")) == []


def test_every_dependency_has_version_bounds() -> None:
    project = PYPROJECT["project"]
    requirements = project["dependencies"] + [
        r for extra in project["optional-dependencies"].values() for r in extra]
    for requirement in requirements:
        assert ">=" in requirement and "<" in requirement.replace("<=", ""), requirement


def test_version_licence_and_urls() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"hetsched {hetsched.__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+", hetsched.__version__)
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert PYPROJECT["project"]["license"] == "MIT"
    assert {"Homepage", "Repository", "Issues"} <= set(PYPROJECT["project"]["urls"])
    assert any("Python :: 3.11" in c for c in PYPROJECT["project"]["classifiers"])


def test_cli_start_up_imports_no_heavy_module() -> None:
    code = ("import sys, json, hetsched.cli.main; "
            "print(json.dumps(sorted(m for m in sys.modules)))")
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                           capture_output=True, text=True).stdout))
    # what the command line's help and option parsing need: not even numpy or pydantic
    assert not {m.split(".")[0] for m in loaded} & (HEAVY | {"numpy", "pydantic"})


def test_running_fcfs_imports_no_heavy_module(tmp_path: Path) -> None:
    code = ("import sys, json\n"
            "from hetsched.cli.main import app\n"
            "from typer.testing import CliRunner\n"
            f"r = CliRunner().invoke(app, ['run', '-q', '--out', {str(tmp_path)!r}])\n"
            "assert r.exit_code == 0, r.output\n"
            "print(json.dumps(sorted(m for m in sys.modules)))")
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                           capture_output=True, text=True).stdout))
    assert not {m.split(".")[0] for m in loaded} & HEAVY
