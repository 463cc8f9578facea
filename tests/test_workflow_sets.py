"""Several workflows in one workload (a top-level ``workflows`` list), each submitted at its
own time: ids behind each workflow's name, parents within it, submit times shifted; bad sets
are one line naming the set file, the workflow and the field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hetsched.errors import InputError
from hetsched.examples import default_platform_path, wfformat_example_path
from hetsched.platform.load import load_platform
from hetsched.schedulers import create
from hetsched.sim.engine import simulate
from hetsched.workload.load import load_workload

PLATFORM = load_platform(default_platform_path())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copy(wfformat_example_path(), tmp_path / "m.json")
    return tmp_path


def write(folder: Path, text: str) -> Path:
    path = folder / "set.yaml"
    path.write_text(text)
    return path


def test_each_workflow_keeps_its_jobs_and_parents_behind_its_name(folder: Path) -> None:
    one = load_workload(folder / "m.json", PLATFORM)
    both = load_workload(write(folder, "workflows:\n  - file: m.json\n  - file: m.json\n"
                                       "    submit: 100\n  - file: m.json\n    submit: 50\n"
                                       "    name: late\n"), PLATFORM)
    assert both.metadata["workflows"] == ["m", "m#2", "late"]
    assert len(both.jobs) == 3 * len(one.jobs)
    by_id = both.by_id
    for job in one.jobs:
        for name, shift in (("m", 0.0), ("m#2", 100.0), ("late", 50.0)):
            mine = by_id[f"{name}/{job.id}"]
            assert mine.submit == job.submit + shift
            assert mine.parents == tuple(f"{name}/{p}" for p in job.parents)
    assert [j.submit for j in both.jobs] == sorted(j.submit for j in both.jobs)


def test_the_workflows_run_and_each_starts_no_earlier_than_its_submit(folder: Path) -> None:
    work = load_workload(write(folder, "workflows:\n  - file: m.json\n  - file: m.json\n"
                                       "    submit: 1000\n"), PLATFORM)
    result = simulate(PLATFORM, work, create("mom"))
    index = {job.id: i for i, job in enumerate(work.jobs)}
    for i, job in enumerate(work.jobs):
        assert result.start[i] >= job.submit
        assert all(result.start[i] >= result.end[index[p]] for p in job.parents)


@pytest.mark.parametrize("text, message", [
    ("workflows: []\n", "set.yaml, field 'workflows'"),
    ("workflows:\n  - file: nope.json\n", "set.yaml, workflows[0], field 'file': no such file"),
    ("workflows:\n  - file: m.json\n    submit: -5\n", "set.yaml, workflow 'm.json', field "
                                                        "'submit'"),
    ("workflows:\n  - file: m.json\n    name: a\n  - file: m.json\n    name: a\n",
     "set.yaml, workflow 'a', field 'name': duplicate workflow name"),
    ("workflows:\n  - file: m.json\n    sbumit: 5\n", "set.yaml, workflow 'm.json'"),
    ("workflows:\n  - file: set.yaml\n", "set.yaml, workflows[0], field 'file': set.yaml is "
                                          "itself a set of workflows"),
])
def test_a_bad_set_is_one_line(folder: Path, text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        load_workload(write(folder, text), PLATFORM)
    assert message in str(info.value) and "\n" not in str(info.value)
