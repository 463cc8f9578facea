"""``hetsched report STORE``: the HTML report of a sweep (its numbers, its figures, its errors),
and a look at it in headless Chromium: a screenshot that is not blank, every image decoded."""

from __future__ import annotations

import base64
import html as stdlib_html
import io
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest
from typer.testing import CliRunner

import hetsched
from hetsched.cli.main import app
from hetsched.examples import default_platform_path, default_workload_path
from hetsched.report import compare, html
from hetsched.report.paired import paired
from hetsched.report.sweep_report import paired_cell, row_cells
from hetsched.sweep.store import open_store
from support import assert_one_line_error

runner = CliRunner()
#: 3 parts × 3 schedulers × 2 seeds × 2 horizons = 36 runs.
SPEC = """\
platforms: [{file: platform.json, name: hetero8}]
workloads: [{file: workload.json, split: 50 jobs, max_parts: 3, name: example}]
schedulers: [fcfs, easy, "easy:node=high_gflops"]
seeds: [0, 1]
options: {horizon: [null, 7200]}
"""
IMAGE = re.compile(r'<img alt="([^"]*)" src="data:(image/[a-z+]+);base64,([A-Za-z0-9+/=]+)">')


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    shutil.copy(default_platform_path(), folder / "platform.json")
    shutil.copy(default_workload_path(), folder / "workload.json")
    (folder / "sweep.yaml").write_text(SPEC)
    result = runner.invoke(app, ["sweep", str(folder / "sweep.yaml"), "--store",
                                 str(folder / "results.sqlite"), "-j", "1", "-q"])
    assert result.exit_code == 0, result.output
    return folder / "results.sqlite"


@pytest.fixture(scope="module")
def report(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html")
    result = runner.invoke(app, ["report", str(store), "--out", str(out), "--baseline", "fcfs"])
    assert result.exit_code == 0, result.output
    assert "36 runs in 2 groups, 7 metrics, baseline fcfs; figures of run" in result.stdout
    return out / "report.html"


def colours(pixels: np.ndarray) -> int:
    """The number of distinct colours of an image read by matplotlib (floats in [0, 1])."""
    rgba = (np.atleast_3d(pixels) * 255).astype(np.uint8)
    return len(np.unique(np.ascontiguousarray(rgba[..., :3]).view("V3")))


def images(page: Path) -> list[tuple[str, str, bytes]]:
    return [(alt, mime, base64.b64decode(data)) for alt, mime, data in
            IMAGE.findall(page.read_text())]


def test_the_report_is_one_file_whose_images_are_valid_pngs(report: Path) -> None:
    assert [p.name for p in report.parent.iterdir()] == ["report.html"]
    found = images(report)
    # a box-plot figure per group (horizon none, horizon 7200), then four figures of one run
    assert [alt for alt, _, _ in found] == ["box plots: horizon=none",
                                            "box plots: horizon=7200.0", "gantt", "jobs",
                                            "power_energy", "utilisation"]
    assert len(found) == report.read_text().count("<img ")
    for _, mime, data in found:
        assert mime == "image/png"
        pixels = matplotlib.image.imread(io.BytesIO(data))
        assert pixels.shape[0] > 200 and colours(pixels) > 10


def test_the_report_holds_the_medians_changes_and_wins_of_the_runs(store: Path,
                                                                   report: Path) -> None:
    text = report.read_text()
    runs = hetsched.load_results(store, "horizon=null")
    medians = compare.medians(runs, ["makespan", "utilisation"])
    section = text[text.index("<h2>horizon=none"):text.index("<h2>horizon=7200")]
    for cell in row_cells("makespan", medians["makespan"].tolist()):
        assert f"<td>{cell}<" in section or f'<td class="best">{cell}<' in section
    assert "e+" not in section[section.index("Medians and change"):]
    change = compare.changes(medians, "fcfs").loc["easy:node=high_gflops", "makespan"]
    assert html.percent(change) in section
    wins = compare.wins(runs, ["makespan"], ["part", "seed"])
    assert wins["makespan"].sum() >= 6  # 3 parts × 2 seeds, ties counted for each
    wins_table = section[section.index("Wins per metric"):]
    for name in wins.index:
        row = wins_table[wins_table.index(f"<td>{stdlib_html.escape(name)}</td>"):]
        assert re.match(rf"<td>{re.escape(stdlib_html.escape(name))}</td><td[^>]*>"
                        rf"{wins.loc[name, 'makespan']}</td>", row)


def test_the_run_shown_is_simulated_again_and_matches_the_store(store: Path,
                                                                report: Path) -> None:
    text = report.read_text()
    assert "its metrics match the stored ones" in text
    runs = hetsched.load_results(store)
    shown = [key for key in runs["key"] if key in text]
    assert len(shown) == 1
    row = runs[runs["key"] == shown[0]].iloc[0]
    assert row["scheduler"] == "fcfs"  # by default the baseline's median run


def test_the_report_holds_the_paired_changes_of_each_case(store: Path, report: Path) -> None:
    text = report.read_text()
    section = text[text.index("<h2>horizon=7200"):]
    section = section[section.index("Paired changes against fcfs"):section.index("Wins per")]
    runs = hetsched.load_results(store, "horizon=7200")
    found = paired(runs, ["makespan", "utilisation"], ["part", "seed"], "fcfs")
    assert [p.pairs for p in found] == [6] * 4  # 3 parts × 2 seeds per scheduler
    for summary in found:
        cell, _ = paired_cell(summary)
        assert cell in section
        assert ("too few pairs" in cell) == (summary.p_value is None)
    assert "(the default: fcfs when it ran" not in text and "chosen with --baseline" in text


def test_the_default_baseline_is_fcfs_and_the_page_says_so(store: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["report", str(store), "--out", str(tmp_path), "-m",
                                 "makespan,edp_js", "--no-run-figures", "-w", "scheduler~easy*"])
    assert result.exit_code == 0, result.output
    assert "2 groups, 2 metrics, baseline easy" in result.stdout  # no fcfs: the first name
    text = (tmp_path / "report.html").read_text()
    assert "the default: fcfs when it ran, else the first scheduler alphabetically" in text
    runs = hetsched.load_results(store, "scheduler~easy*", "horizon=null")
    medians = compare.medians(runs, ["edp_js"])["edp_js"].tolist()
    cells = row_cells("edp_js", medians)
    assert cells == ["37.24 GJ·s", "26.67 GJ·s"]  # not 3.724e+10
    assert all(cell in text for cell in cells)


def test_run_picks_a_run_by_key_prefix_and_svg_figures(store: Path, tmp_path: Path) -> None:
    runs = hetsched.load_results(store, "scheduler=easy", "part=2", "seed=1", "horizon=7200")
    key = runs["key"].iloc[0]
    result = runner.invoke(app, ["report", str(store), "--out", str(tmp_path), "--run", key[:8],
                                 "-m", "makespan,energy_j", "-m", "utilisation",
                                 "--where", "horizon=7200", "-f", "svg"])
    assert result.exit_code == 0, result.output
    assert f"1 group, 3 metrics, baseline fcfs; figures of run {key[:12]}" in result.stdout
    text = (tmp_path / "report.html").read_text()
    assert key in text and "mean_wait" not in text
    for _, mime, data in images(tmp_path / "report.html"):
        assert mime == "image/svg+xml" and ET.fromstring(data).tag.endswith("svg")


def test_group_by_and_no_run_figures(store: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["report", str(store), "--out", str(tmp_path), "--group-by",
                                 "horizon,part", "--no-run-figures", "-m", "makespan"])
    assert result.exit_code == 0, result.output
    assert "36 runs in 6 groups" in result.stdout and "figures of run" not in result.stdout
    assert len(images(tmp_path / "report.html")) == 6


@pytest.mark.parametrize("options, message", [
    (["--baseline", "eazy"], "--baseline: no run of scheduler 'eazy'"),
    (["--metric", "makespn"], "--metric: no metric 'makespn'; did you mean makespan"),
    (["--run", "abcdef0"], "--run abcdef0: is no run of the selection"),
    (["--run", "ab"], "--run ab: give at least 6 characters"),
    (["--where", "seed>5"], "no run meets seed>5"),
    (["--group-by", "hrizon"], "unknown --group-by column 'hrizon'; did you mean horizon"),
])
def test_bad_options_are_one_line_errors(store: Path, tmp_path: Path, options: list[str],
                                         message: str) -> None:
    result = runner.invoke(app, ["report", str(store), "--out", str(tmp_path), *options])
    assert_one_line_error(result, message)


def test_a_file_that_is_not_a_store_an_empty_store_and_a_changed_input(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    assert_one_line_error(runner.invoke(app, ["report", str(tmp_path / "notes.txt")]),
                          "notes.txt")
    open_store(tmp_path / "empty.sqlite").close()
    assert_one_line_error(runner.invoke(app, ["report", str(tmp_path / "empty.sqlite")]),
                          "empty.sqlite: holds no runs")
    shutil.copy(default_platform_path(), tmp_path / "platform.json")
    shutil.copy(default_workload_path(), tmp_path / "workload.json")
    (tmp_path / "sweep.yaml").write_text("platforms: [platform.json]\n"
                                         "workloads: [workload.json]\nschedulers: [fcfs]\n")
    store = tmp_path / "results.sqlite"
    assert runner.invoke(app, ["sweep", str(tmp_path / "sweep.yaml"), "--store", str(store),
                               "-j", "1", "-q"]).exit_code == 0
    platform = json.loads((tmp_path / "platform.json").read_text())
    (tmp_path / "platform.json").write_text(json.dumps(platform, indent=1))
    out = str(tmp_path / "out")
    assert_one_line_error(runner.invoke(app, ["report", str(store), "--out", out]),
                          "platform.json: changed since run")
    result = runner.invoke(app, ["report", str(store), "--out", out, "--no-run-figures"])
    assert result.exit_code == 0, result.output


FAILING = """\
from hetsched.schedulers import Scheduler


class Failing(Scheduler):
    def decide(self, now, events):
        raise RuntimeError("no")
"""


def test_failed_runs_are_counted_and_left_out(tmp_path: Path) -> None:
    shutil.copy(default_workload_path(), tmp_path / "workload.json")
    (tmp_path / "failing.py").write_text(FAILING)
    (tmp_path / "sweep.yaml").write_text("workloads: [{file: workload.json, split: 100 jobs}]\n"
                                         "schedulers: [fcfs, easy, failing.py:Failing]\n")
    store = tmp_path / "results.sqlite"
    assert runner.invoke(app, ["sweep", str(tmp_path / "sweep.yaml"), "--store", str(store),
                               "-j", "1", "-q"]).exit_code == 0
    result = runner.invoke(app, ["report", str(store), "--out", str(tmp_path / "out"),
                                 "--no-run-figures"])
    assert result.exit_code == 0, result.output
    assert "4 runs in 1 group" in result.stdout
    text = (tmp_path / "out" / "report.html").read_text()
    assert "2 failed runs left out" in text and "Failing" not in text
    assert_one_line_error(runner.invoke(app, ["report", str(store), "-w", "scheduler~*Failing"]),
                          "all 2 selected runs failed")


CHECK_IMAGES = """<script>
window.addEventListener("load", () => {
  const out = document.createElement("pre");
  out.id = "image-check";
  out.textContent = JSON.stringify([...document.images].map(i => [i.complete, i.naturalWidth]));
  document.body.appendChild(out);
});
</script></body>"""


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("chromium is not on PATH (Debian: apt-get install chromium)")
    return found


def headless(page: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", *options, page.as_uri()], capture_output=True,
                          text=True, timeout=120, check=True)


def test_chromium_renders_the_report_with_every_image_loaded(report: Path,
                                                             tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    headless(report, f"--screenshot={shot}", "--window-size=1280,2400")
    print(f"screenshot: {shot}")
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (2400, 1280)
    ink = (pixels[..., :3] < 0.9).any(axis=-1).mean()  # share of pixels that are not white
    assert ink > 0.05 and colours(pixels) > 100
    checked = tmp_path / "check.html"
    checked.write_text(report.read_text().replace("</body>", CHECK_IMAGES))
    dom = headless(checked, "--virtual-time-budget=10000", "--dump-dom").stdout
    loaded = json.loads(re.search(r'<pre id="image-check">(.*?)</pre>', dom)[1])
    assert len(loaded) == 6 and all(done and width > 300 for done, width in loaded), loaded


def test_user_text_in_the_report_stays_escaped(store: Path, tmp_path: Path) -> None:
    hostile = "<script>alert(1)</script>"
    result = runner.invoke(app, ["report", str(store), "--out", str(tmp_path), "-m",
                                 "makespan", "--no-run-figures", "-w", f"scheduler!={hostile}"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "report.html").read_text()
    assert "<script>" not in text
    assert "<code>scheduler!=&lt;script&gt;alert(1)&lt;/script&gt;</code>" in text
    cell = html.macro("table")(["scheduler", hostile], [[(hostile, "best")]])
    assert "<script>" not in cell and cell.count("&lt;script&gt;alert(1)") == 2


def test_each_group_has_its_medians_paired_changes_and_wins_tables(report: Path) -> None:
    text = report.read_text()
    sections = re.split(r"<h2>", text)[1:]
    titles = [s[:s.index("<")] for s in sections]
    assert titles[:2] == ["horizon=none", "horizon=7200.0"]
    assert len(titles) == 3 and titles[2].startswith("One run: fcfs · seed ")
    for section in sections[:2]:
        assert re.findall(r"<h3>([^<]*)</h3>\s*<table>", section) == [
            "Medians and change against the baseline", "Paired changes against fcfs (per case)",
            "Wins per metric (of 6 cases; ties count for each)"]
        table = section[section.index("Paired changes"):section.index("Wins per")]
        assert re.findall(r"<tr><td>([^<]*)</td>", table) == ["easy", "easy:node=high_gflops"]
        assert table.count("<td><span class=") == 2 * 7  # a paired cell per scheduler × metric


def test_without_jinja2_the_report_is_a_one_line_error(store: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jinja2", None)  # import jinja2 fails
    html.environment.cache_clear()
    result = runner.invoke(app, ["report", str(store), "--out", str(tmp_path)])
    html.environment.cache_clear()
    assert_one_line_error(result, "the HTML report needs jinja2: pip install 'hetsched[plot]'")
    assert not (tmp_path / "report.html").exists()
