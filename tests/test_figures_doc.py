"""docs/figures.md shows every figure hetsched draws, and docs/make_figures.py regenerates its
images (issue 26). The inventory below is the list of figures: a figure added to the code
without an entry here (and in figures.md's table) fails these tests."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from hetsched.report.run_figures import FIGURES

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "hetsched"
PAGE = ROOT / "docs" / "figures.md"

#: Every figure file a command writes, as the code names it (``{}`` for a formatted part), and
#: as figures.md's table names it.
INVENTORY = {"bars.png": "bars.png", "makespan.png": "makespan.png",
             "windows.png": "windows.png", "cost_q.png": "cost_q.png",
             "boxplots.png": "boxplots.png", "week-{}.png": "week-K.png",
             "sensitivity.png": "sensitivity.png"}
#: The figures of a run (``hetsched plot``, and embedded in ``hetsched report``'s page).
RUN_FIGURES = ("gantt", "jobs", "power_energy", "utilisation")
#: The modules that write figures (``savefig``, ``mpl.save``, ``mpl.figure_bytes``), under
#: ``src/hetsched``.
WRITERS = {"report/mpl.py", "report/averages.py", "report/bars.py", "report/run_figures.py",
           "report/sweep_report.py", "experiments/node_centric.py",
           "experiments/node_centric_sensitivity.py"}


def _trees():
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _png_names(tree: ast.AST) -> set[str]:
    """The ``*.png`` names in the module's strings (f-strings' fields as ``{}``), docstrings
    (which show examples) left out."""
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(part.value if isinstance(part, ast.Constant) else "{}"
                           for part in node.values)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings):
            text = node.value
        else:
            continue
        names.update(re.findall(r"[\w{}-]+\.png\b", text))
    return names


def _writes_figures(tree: ast.AST) -> bool:
    return any(isinstance(node, ast.Call)
               and getattr(node.func, "attr", getattr(node.func, "id", None))
               in ("savefig", "save", "figure_bytes")
               for node in ast.walk(tree))


def test_the_figure_files_named_in_the_code_are_the_inventory():
    named = set().union(*(_png_names(tree) for _, tree in _trees()))
    assert named == set(INVENTORY), ("a figure file was added or renamed: add it to INVENTORY "
                                     "and to docs/figures.md's table")
    assert tuple(FIGURES) == RUN_FIGURES


def test_the_modules_that_write_figures_are_known():
    writers = {name for name, tree in _trees() if _writes_figures(tree)}
    assert writers == WRITERS, ("a module writes figures now (or no longer): add its figures "
                                "to INVENTORY and to docs/figures.md, then to WRITERS")


def test_the_page_names_every_figure_of_the_inventory():
    page = PAGE.read_text(encoding="utf-8")
    table = page[page.index("## Every figure"):page.index("## `hetsched plot RUN_DIR`")]
    for shown in [*INVENTORY.values(), *RUN_FIGURES]:
        assert f"`{shown}`" in table or f"`figures/{shown}`" in table, shown
    assert "regenerate with\n`python docs/make_figures.py`" in page


def test_every_image_the_page_shows_exists_and_the_script_writes_it():
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", PAGE.read_text(encoding="utf-8"))
    assert len(images) >= 15
    script = (ROOT / "docs" / "make_figures.py").read_text(encoding="utf-8")
    for image in images:
        path = PAGE.parent / image
        assert path.is_file(), image
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", image
        assert path.name in script or f'"{path.parent.name}"' in script, image


def test_the_script_regenerates_the_run_figures(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "make_figures.py"),
                           "--only", "run", "--out", str(tmp_path)],
                          capture_output=True, text=True, check=True)
    assert done.stdout.startswith("run (")
    for name in RUN_FIGURES:
        path = tmp_path / "run" / f"{name}.png"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert str(path) in done.stdout
