"""The task-graph readers (``hetsched.mapping.dag_io``): the two textbook graphs, Kasahara's STG
sets and their published optima, the ``processors`` rule, and bad inputs as one line naming
the file, the record and the field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from hetsched.errors import ConfigError
from hetsched.mapping import dag_io
from hetsched.mapping.dag import cpop, heft, peft, upward_rank
from hetsched.mapping.dag_io import read_dag, read_stg_optima
from support import error_of, shared, write


# ---- the textbook graphs ---------------------------------------------------------------------
def test_topcuoglu_graph_reads_as_published() -> None:
    graph = read_dag(shared("dag/topcuoglu2002.json"))
    assert (graph.name, graph.tasks, graph.processors) == ("topcuoglu2002", 10, 3)
    assert graph.names == tuple(str(i) for i in range(1, 11))
    assert graph.cost[0].tolist() == [14, 16, 9]
    assert graph.cost[9].tolist() == [21, 7, 16]
    assert len(graph.edges) == 15
    assert graph.edges[0] == (0, 1, 18.0) and graph.edges[-1] == (8, 9, 13.0)  # 1->2, 9->10
    # the paper's answers follow from the costs and edges as read
    assert upward_rank(graph)[0] == pytest.approx(108.0)
    assert (heft(graph).makespan, cpop(graph).makespan) == (80.0, 86.0)


def test_arabnejad_graph_reads_as_published() -> None:
    graph = read_dag(shared("dag/arabnejad2014_peft.json"))
    assert (graph.name, graph.tasks, graph.processors, len(graph.edges)) == \
        ("arabnejad2014_peft", 10, 3, 15)
    assert graph.cost[0].tolist() == [22, 21, 36]
    assert graph.names[0] == "1" and graph.names[-1] == "10"
    assert (peft(graph).makespan, heft(graph).makespan) == (122.0, 133.0)


def test_processors_keeps_the_first_columns_of_a_json_graph() -> None:
    path = shared("dag/topcuoglu2002.json")
    graph = read_dag(path, processors=2)
    assert graph.processors == 2
    assert graph.cost[0].tolist() == [14, 16]
    assert np.array_equal(graph.cost, read_dag(path).cost[:, :2])
    assert read_dag(path, processors=3).cost.tolist() == read_dag(path).cost.tolist()


def test_processors_beyond_a_json_graphs_columns_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"topcuoglu2002\.json: processors 4: the graph "
                                          r"gives costs on only 3 processors"):
        read_dag(shared("dag/topcuoglu2002.json"), processors=4)


@pytest.mark.parametrize("file", ["dag/topcuoglu2002.json", "stg/50/rand0000.stg"])
@pytest.mark.parametrize("processors", [0, -1, True, 2.0, "2"])
def test_processors_must_be_a_whole_number_of_at_least_one(file: str,
                                                           processors: object) -> None:
    with pytest.raises(ConfigError, match="processors must be a whole number >= 1"):
        read_dag(shared(file), processors=processors)  # type: ignore[arg-type]


def test_json_graph_without_processors_takes_the_rows_length(tmp_path: Path) -> None:
    path = write(tmp_path / "g.json", {"tasks": {"x": [1, 2.5], "y": [3, 4]},
                                       "edges": [["x", "y", 0.5]], "notes": "ignored"})
    graph = read_dag(path)
    assert (graph.name, graph.names, graph.processors) == ("g", ("x", "y"), 2)
    assert graph.cost.tolist() == [[1, 2.5], [3, 4]] and graph.edges == ((0, 1, 0.5),)


def test_json_edges_name_tasks_by_number_or_string(tmp_path: Path) -> None:
    path = write(tmp_path / "g.json", {"processors": 1, "tasks": {"1": [1], "2": [2], "3": [3]},
                                       "edges": [[1, "2", 4], ["2", 3, 0]]})
    assert read_dag(path).edges == ((0, 1, 4.0), (1, 2, 0.0))


# ---- Kasahara STG ----------------------------------------------------------------------------
def _stg_lines(path: Path) -> tuple[int, list[list[int]], list[str]]:
    """The header's n, the task lines as numbers, and the comment lines (an independent
    reading of the format, for the checks below)."""
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    n = int(lines[0])
    return n, [[int(x) for x in line.split()] for line in lines[1:n + 3]], lines[n + 3:]


def test_stg_graph_keeps_the_files_tasks_edges_and_dummies() -> None:
    path = shared("stg/50/rand0000.stg")
    n, rows, comments = _stg_lines(path)
    graph = read_dag(path, processors=2)
    assert n == 50 and graph.tasks == 52 and graph.processors == 2
    assert graph.name == "rand0000" and graph.names == tuple(str(i) for i in range(52))
    assert graph.cost[0].tolist() == [0, 0] and graph.cost[51].tolist() == [0, 0]  # dummies
    assert graph.cost[:, 0].tolist() == [row[1] for row in rows]
    assert np.array_equal(graph.cost[:, 0], graph.cost[:, 1])  # identical processors
    parents = [sorted(p for p, _ in graph.parents[i]) for i in range(52)]
    assert parents == [sorted(row[3:]) for row in rows]
    assert all(data == 0 for _, _, data in graph.edges)  # no communication
    # the file's own comments: 96 edges plus 23 to and from the dummies, and the critical path
    assert "Edges             : 96 / 1225 (+dummy edges : 23)" in "\n".join(comments)
    assert len(graph.edges) == 96 + 23
    cp = int(re.search(r"CP Length\s*:\s*(\d+)", "\n".join(comments)).group(1))
    assert upward_rank(graph)[0] == cp == 55


@pytest.mark.parametrize("processors", [1, 3, 16])
def test_stg_graph_runs_on_the_processors_given(processors: int) -> None:
    graph = read_dag(shared("stg/100/rand0001.stg"), processors=processors)
    assert graph.cost.shape == (102, processors)
    assert (graph.cost == graph.cost[:, :1]).all()


def test_stg_graph_needs_processors() -> None:
    with pytest.raises(ConfigError, match=r"rand0000\.stg: give processors \(STG graphs run "
                                          r"on identical processors"):
        read_dag(shared("stg/50/rand0000.stg"))


def test_every_stg_graph_agrees_with_its_comments_and_its_optimum() -> None:
    """All 360 graphs: the critical path as read is the one the file's comments give; the
    published optimum on 2 processors (its lower end, where only a range is known) is at
    least that path and half the work; HEFT's makespan is no shorter than the optimum."""
    folder = shared("stg")
    optima = {**read_stg_optima(folder / "Case50_2_OPT.csv"),
              **read_stg_optima(folder / "Case100_2_OPT.csv")}
    assert len(optima) == 360
    for name, (low, _) in optima.items():
        graph = read_dag(folder / name, processors=2)
        comment = re.search(r"CP Length\s*:\s*(\d+)", (folder / name).read_text())
        path = upward_rank(graph)[0]
        assert path == float(comment.group(1)), name
        assert low >= max(path, graph.cost[:, 0].sum() / 2), name
        assert heft(graph).makespan >= low, name


# ---- the published optima --------------------------------------------------------------------
@pytest.mark.parametrize("size", [50, 100])
def test_stg_optima_have_one_row_per_graph(size: int) -> None:
    optima = read_stg_optima(shared(f"stg/Case{size}_2_OPT.csv"))
    assert len(optima) == 180
    assert sorted(optima) == [f"{size}/rand{i:04d}.stg" for i in range(180)]
    assert all(low <= high for low, high in optima.values())


def test_stg_optima_read_single_values_and_ranges() -> None:
    """The published files give a range as two columns (``50/rand0060.stg,2,157,165``):
    34 of the 360 rows, 4 columns each."""
    optima = {**read_stg_optima(shared("stg/Case50_2_OPT.csv")),
              **read_stg_optima(shared("stg/Case100_2_OPT.csv"))}
    assert optima["50/rand0000.stg"] == (131.0, 131.0)
    assert optima["50/rand0060.stg"] == (157.0, 165.0)
    assert optima["100/rand0012.stg"] == (296.0, 312.0)
    assert sum(low < high for low, high in optima.values()) == 34


def test_stg_optima_skip_blank_and_comment_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "o.csv", "# file,m,optimum\n\n50/a.stg,2,10\n 50/b.stg , 2 , 7,9\n")
    assert read_stg_optima(path) == {"50/a.stg": (10.0, 10.0), "50/b.stg": (7.0, 9.0)}


# ---- bad inputs: one line naming the file, the record and the field ---------------------------
STG = "3\n0 0 0\n1 2 1 0\n2 3 1 0\n3 4 2 1 2\n4 0 1 3\n# comment\n"


def stg(old: str, new: str) -> str:
    """The small STG graph above with one line changed."""
    assert old in STG
    return STG.replace(old, new, 1)


def test_the_small_stg_graph_is_good(tmp_path: Path) -> None:
    graph = read_dag(write(tmp_path / "g.stg", STG), processors=2)
    assert graph.cost[:, 0].tolist() == [0, 2, 3, 4, 0]
    assert graph.edges == ((0, 1, 0.0), (0, 2, 0.0), (1, 3, 0.0), (2, 3, 0.0), (3, 4, 0.0))


#: name: (file, content, record, field, problem).
STG_CASES = {
    "empty file": ("g.stg", "", None, None,
                   "empty file: expected the number of tasks on the first line"),
    "only comments": ("g.stg", "# a\n\n", None, None,
                      "empty file: expected the number of tasks on the first line"),
    "header not a number": ("g.stg", stg("3\n", "three\n"), "line 1", "tasks",
                            "not a whole number: 'three'"),
    "header of two fields": ("g.stg", stg("3\n", "3 2\n"), "line 1", "tasks",
                             "expected the number of tasks alone, got 2 fields"),
    "header 10**12 (fails before allocating)": (
        "g.stg", stg("3\n", "1000000000000\n"), "line 1", "tasks",
        "1,000,000,000,002 tasks: more than hetsched reads (limits.MAX_GRAPH_TASKS = "
        "1,000,000)"),
    "ids out of order": ("g.stg", stg("1 2 1 0\n2 3 1 0\n", "2 3 1 0\n1 2 1 0\n"), "line 3", "id",
                         "task id 2 where 1 was expected (the ids go 0..4 in order)"),
    "id repeated": ("g.stg", stg("2 3 1 0\n", "1 3 1 0\n"), "line 4", "id",
                    "task id 1 where 2 was expected (the ids go 0..4 in order)"),
    "id not a whole number": ("g.stg", stg("1 2 1 0", "1.0 2 1 0"), "line 3", "id",
                              "not a whole number: '1.0'"),
    "a task missing": ("g.stg", stg("4 0 1 3\n", ""), "line 6", None,
                       "4 task lines, the header announces 3 + 2 = 5"),
    "a line too many": ("g.stg", stg("# comment", "5 0 1 4"), "line 7", None,
                        "a line after the 3 + 2 = 5 task lines (comments start with '#')"),
    "task line cut short": ("g.stg", stg("2 3 1 0", "2 3"), "line 4", "npred",
                            "task line cut short: expected 'id time npred pred...', got 2 "
                            "fields"),
    "negative time": ("g.stg", stg("1 2 1 0", "1 -2 1 0"), "line 3", "time", "negative time -2"),
    "time nan": ("g.stg", stg("1 2 1 0", "1 nan 1 0"), "line 3", "time",
                 "not a finite number: 'nan'"),
    "time 1e400": ("g.stg", stg("1 2 1 0", "1 1e400 1 0"), "line 3", "time",
                   "not a finite number: '1e400'"),
    "time too large": ("g.stg", stg("1 2 1 0", "1 1e16 1 0"), "line 3", "time",
                       "time 1e16 is too large (at most 1e+15)"),
    "time not a number": ("g.stg", stg("1 2 1 0", "1 two 1 0"), "line 3", "time",
                          "not a number: 'two'"),
    "fewer predecessors than npred": ("g.stg", stg("3 4 2 1 2", "3 4 2 1"), "line 5", "npred",
                                      "npred is 2, the number of predecessor ids on the line is 1"),
    "more predecessors than npred": ("g.stg", stg("3 4 2 1 2", "3 4 1 1 2"), "line 5", "npred",
                                     "npred is 1, the number of predecessor ids on the line is 2"),
    "negative npred": ("g.stg", stg("1 2 1 0", "1 2 -1 0"), "line 3", "npred",
                       "must be at least 0, got -1"),
    "predecessor that does not exist": ("g.stg", stg("3 4 2 1 2", "3 4 2 1 9"), "line 5",
                                        "pred", "no task 9 (the ids go 0..4)"),
    "predecessor not a number": ("g.stg", stg("3 4 2 1 2", "3 4 2 1 x"), "line 5", "pred",
                                 "not a whole number: 'x'"),
    "task its own predecessor": ("g.stg", stg("3 4 2 1 2", "3 4 2 1 3"), "line 5", "pred",
                                 "the task lists itself"),
    "predecessor listed twice": ("g.stg", stg("3 4 2 1 2", "3 4 2 1 1"), "line 5", "pred",
                                 "1 is listed twice"),
    "a cycle": ("g.stg", stg("1 2 1 0", "1 2 2 0 3"), None, None,
                "task graph 'g' has a cycle: 1 -> 3 -> 1"),
}

JSON = {"name": "t", "processors": 2, "tasks": {"a": [1, 2], "b": [3, 4], "c": [5, 6]},
        "edges": [["a", "b", 1], ["a", "c", 2]], "published": {"HEFT_makespan": 9}}


def doc(**changes: object) -> str:
    """The small JSON graph above with keys replaced (``None``: removed)."""
    document = {**JSON, **changes}
    return json.dumps({k: v for k, v in document.items() if v is not None})


JSON_CASES = {
    "syntax error": ("g.json", '{"tasks": {"a": [1, 2]]}', "line 1, column 23", None,
                     "malformed JSON: Expecting ',' delimiter"),
    "NaN": ("g.json", '{"tasks": {"a": [NaN]}, "edges": []}', "line 1, column 18", None,
            "malformed JSON: 'NaN' is not a valid JSON number"),
    "a task id twice": ("g.json", '{"tasks": {"a": [1], "a": [2]}, "edges": []}', None, None,
                        "malformed JSON: key 'a' appears twice in one object"),
    "a list at the top": ("g.json", "[]", None, None,
                          "expected an object (key: value mapping) at the top level, got a "
                          "list"),
    "tasks missing": ("g.json", doc(tasks=None), None, "tasks", "required field is missing"),
    "tasks a list": ("g.json", doc(tasks=[[1, 2]]), None, "tasks",
                     "expected an object (task id: costs), got a list"),
    "no tasks": ("g.json", doc(tasks={}), None, "tasks", "no tasks"),
    "a row not a list": ("g.json", doc(tasks={"a": [1, 2], "b": 3}), "task 'b'", None,
                         "expected a list of costs (one per processor), got a number"),
    "a row too short": ("g.json", doc(tasks={"a": [1, 2], "b": [3]}), "task 'b'", None,
                        "expected 2 costs (as 'processors' says), got 1"),
    "rows of unequal length": ("g.json", doc(processors=None, tasks={"a": [1, 2], "b": [3]}),
                               "task 'b'", None, "expected 2 costs (as the first task has), got 1"),
    "an empty row": ("g.json", doc(processors=None, tasks={"a": [], "b": [3]}), "task 'a'", None,
                     "no costs: expected one per processor"),
    "negative cost": ("g.json", doc(tasks={"a": [1, 2], "b": [3, -4]}), "task 'b'", "cost[1]",
                      "negative cost -4"),
    "cost a string": ("g.json", doc(tasks={"a": [1, "2"]}), "task 'a'", "cost[1]",
                      "expected a number, got a string"),
    "cost of 400 digits": ("g.json", doc(tasks={"a": [1, 10**400]}), "task 'a'", "cost[1]",
                           "not a finite number: '100000000000000000000000000000000000...'"),
    "processors 0": ("g.json", doc(processors=0), None, "processors",
                     "expected a whole number >= 1, got 0"),
    "processors a string": ("g.json", doc(processors="2"), None, "processors",
                            "expected a whole number >= 1, got a string"),
    "name a number": ("g.json", doc(name=7), None, "name", "expected a string, got a number"),
    "edges missing": ("g.json", doc(edges=None), None, "edges", "required field is missing"),
    "edges an object": ("g.json", doc(edges={"a": "b"}), None, "edges",
                        "expected a list of [parent, child, data], got an object"),
    "an edge of two items": ("g.json", doc(edges=[["a", "b", 1], ["a", "c"]]), "edges[1]", None,
                             "expected [parent, child, data], got a list of 2"),
    "an edge to an unknown task": ("g.json", doc(edges=[["a", "d", 1]]), "edges[0]", "child",
                                   "unknown task 'd'"),
    "an edge naming a task by a float": ("g.json", doc(edges=[[1.0, "b", 1]]), "edges[0]",
                                         "parent", "expected a task id (a string or a whole "
                                         "number), got a number"),
    "negative data": ("g.json", doc(edges=[["a", "b", -1]]), "edges[0]", "data",
                      "negative data cost -1"),
    "an edge twice": ("g.json", doc(edges=[["a", "b", 1], ["a", "c", 2], ["a", "b", 3]]),
                      "edges[2]", None, "edge 'a' -> 'b' given twice (first as edges[0])"),
    "an edge to itself": ("g.json", doc(edges=[["b", "b", 1]]), "edges[0]", None,
                          "an edge from task 'b' to itself"),
    "a cycle": ("g.json", doc(edges=[["a", "b", 1], ["b", "c", 1], ["c", "a", 1]]), None, None,
                "task graph 't' has a cycle: a -> b -> c -> a"),
    "an unknown suffix": ("g.txt", doc(), None, None,
                          "not a task-graph file: expected .json (textbook JSON: costs per "
                          "processor and edges) or .stg (Kasahara's Standard Task Graph)"),
}

OPTIMA_CASES = {
    "empty file": ("o.csv", "", None, None, "no rows: expected 'file,m,optimum' lines"),
    "two fields": ("o.csv", "50/a.stg,131\n", "line 1", None,
                   "expected 'file,m,optimum' or 'file,m,low,high', got 2 fields"),
    "a file twice": ("o.csv", "a.stg,2,1\nb.stg,2,2\na.stg,2,3\n", "line 3", "file",
                     "'a.stg' is listed twice (first on line 1)"),
    "no file name": ("o.csv", ",2,1\n", "line 1", "file", "no file name"),
    "m zero": ("o.csv", "a.stg,0,1\n", "line 1", "m", "must be at least 1, got 0"),
    "optimum not a number": ("o.csv", "a.stg,2,130-131\n", "line 1", "optimum",
                             "not a number: '130-131'"),
    "negative optimum": ("o.csv", "a.stg,2,-1\n", "line 1", "optimum", "negative optimum -1"),
    "range upside down": ("o.csv", "a.stg,2,9,7\n", "line 1", "high", "high 7 is below low 9"),
    "range end infinite": ("o.csv", "a.stg,2,9,inf\n", "line 1", "high",
                           "not a finite number: 'inf'"),
}


def expected(path: Path, record: str | None, field: str | None, problem: str) -> str:
    """The one line an InputError prints: ``<file>, <record>, field '<field>': <problem>``."""
    where = str(path) + (f", {record}" if record else "") + (f", field '{field}'" if field
                                                             else "")
    return f"{where}: {problem}"


GRAPH_CASES = {**{f"stg: {name}": case for name, case in STG_CASES.items()},
               **{f"json: {name}": case for name, case in JSON_CASES.items()}}


@pytest.mark.parametrize("name", GRAPH_CASES)
def test_bad_task_graph(tmp_path: Path, name: str) -> None:
    file, content, record, field, problem = GRAPH_CASES[name]
    path = write(tmp_path / file, content)
    assert error_of(read_dag, path, processors=2) == expected(path, record, field, problem)


@pytest.mark.parametrize("name", OPTIMA_CASES)
def test_bad_optima(tmp_path: Path, name: str) -> None:
    file, content, record, field, problem = OPTIMA_CASES[name]
    path = write(tmp_path / file, content)
    assert error_of(read_stg_optima, path) == expected(path, record, field, problem)


def test_stg_processors_beyond_the_cost_limit_fail_before_allocating(tmp_path: Path) -> None:
    path = write(tmp_path / "g.stg", STG)
    assert error_of(read_dag, path, processors=10**9) == expected(
        path, "line 1", "tasks", "5 tasks × 1,000,000,000 processors: more costs than hetsched "
        "holds (limits.MAX_GRAPH_COSTS = 100,000,000)")


@pytest.mark.parametrize("file, content, record, field", [
    ("g.stg", STG, "line 5", "npred"),
    ("g.json", doc(edges=[["a", "b", 1], ["a", "c", 1], ["b", "c", 1]]), None, "edges")])
def test_edges_beyond_the_limit_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            file: str, content: str, record: str | None,
                                            field: str) -> None:
    monkeypatch.setattr(dag_io, "MAX_GRAPH_EDGES", 2)
    path = write(tmp_path / file, content)
    assert error_of(read_dag, path, processors=2) == expected(
        path, record, field, "more than 2 edges, the most hetsched reads (limits.MAX_GRAPH_EDGES)")


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "none.stg"
    assert error_of(read_dag, path, processors=2) == f"{path}: no such file"
