"""Reading task graphs (:class:`~hetsched.mapping.graph.TaskGraph`): the textbook JSON format
and Kasahara's Standard Task Graph (STG) format; and the STG sets' published optima.

Textbook JSON (``.json``: the examples of Topcuoglu et al. 2002 and Arabnejad & Barbosa 2014)::

    {"name": "topcuoglu2002", "processors": 3,
     "tasks": {"1": [14, 16, 9], "2": [13, 19, 18], ...},
     "edges": [[1, 2, 18], [1, 3, 12], ...]}

``tasks`` maps each task's id to its run time on each processor (unrelated processors); the
tasks keep the file's order and are named by their ids. ``edges`` are ``[parent, child,
data]``, naming tasks by id (a string or a whole number), ``data`` being the communication
cost paid when parent and child run on different processors. ``processors`` (optional, else
the first row's length) is how many costs every row holds. Other keys (``source``,
``published``, ``notes``) are ignored.

STG (``.stg``: Kasahara's sets): the first line is ``n``, the tasks without the two dummy
ones; then ``n + 2`` lines ``id time npred pred...`` with the ids ``0 .. n+1`` in order (the
dummy entry ``0`` and exit ``n+1`` take time 0 in the published sets); blank lines and lines
starting with ``#`` (the trailing comments) are skipped. Processors are identical and
communication is free, so the file does not count the processors: the caller gives them. The
tasks are named by their ids and the dummy tasks are kept, so makespans are the published
ones.

Every problem is a one-line :class:`~hetsched.errors.InputError` naming the file, the record
(``line N``, ``task '3'``, ``edges[4]``) and the field. Sizes are checked against
:mod:`hetsched.limits` (``MAX_GRAPH_TASKS``, ``MAX_GRAPH_EDGES``, ``MAX_GRAPH_COSTS``) before
anything is built from them; costs are checked as ETC values are (finite, at least 0, at most
``MAX_ETC``).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from hetsched.documents import read_structured, require_mapping, type_name
from hetsched.errors import ConfigError, InputError, option_name
from hetsched.files import read_text
from hetsched.limits import MAX_GRAPH_COSTS, MAX_GRAPH_EDGES, MAX_GRAPH_TASKS
from hetsched.mapping.graph import TaskGraph, identical
from hetsched.mapping.values import check_time, parse_time, whole_number
from hetsched.parsing import quote

Edge = tuple[int, int, float]

#: The task-graph formats by suffix, as messages name them.
FORMATS = {".json": "textbook JSON: costs per processor and edges",
           ".stg": "Kasahara's Standard Task Graph"}


def read_dag(path: str | Path, processors: int | None = None) -> TaskGraph:
    """Read a task graph, its format chosen by the suffix (see the module docstring).

    ``processors``: for a JSON graph, keep its first ``processors`` processors (``None``: all
    of them); an STG graph runs on that many identical processors, which must be given."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        return read_textbook(path, processors)
    if suffix == ".stg":
        return read_stg(path, processors)
    formats = " or ".join(f"{s} ({what})" for s, what in FORMATS.items())
    raise InputError(path, f"not a task-graph file: expected {formats}")


def _check_processors(processors: object) -> int | None:
    if processors is None:
        return None
    if isinstance(processors, bool) or not isinstance(processors, numbers.Integral) \
            or processors < 1:
        raise ConfigError(f"{option_name('processors')} must be a whole number >= 1, "
                          f"got {processors!r}")
    return int(processors)


def _check_size(path: Path, tasks: int, processors: int, record: str | None = None,
                field: str = "tasks") -> None:
    """``tasks × processors`` costs within the limits, checked before they are allocated."""
    if tasks > MAX_GRAPH_TASKS:
        raise InputError(path, f"{tasks:,} tasks: more than hetsched reads "
                               f"(limits.MAX_GRAPH_TASKS = {MAX_GRAPH_TASKS:,})", record=record,
                         field=field)
    if tasks * processors > MAX_GRAPH_COSTS:
        raise InputError(path, f"{tasks:,} tasks × {processors:,} processors: more costs than "
                               f"hetsched holds (limits.MAX_GRAPH_COSTS = {MAX_GRAPH_COSTS:,})",
                         record=record, field=field)


def _check_edges(path: Path, edges: int, record: str | None = None,
                 field: str = "edges") -> None:
    if edges > MAX_GRAPH_EDGES:
        raise InputError(path, f"more than {MAX_GRAPH_EDGES:,} edges, the most hetsched reads "
                               "(limits.MAX_GRAPH_EDGES)", record=record, field=field)


def _graph(path: Path, build: Callable[[], TaskGraph]) -> TaskGraph:
    """``build()``, a problem of the graph as a whole (a cycle) naming the file."""
    try:
        return build()
    except ConfigError as err:
        raise InputError(path, str(err)) from None


# ---- textbook JSON ---------------------------------------------------------------------------
def read_textbook(path: str | Path, processors: int | None = None) -> TaskGraph:
    """Read a graph in the textbook JSON format, keeping its first ``processors`` processors."""
    path = Path(path)
    return textbook_graph(read_structured(path), path, processors)


def is_textbook(data: Any) -> bool:
    """Whether a parsed document is a textbook graph: top-level ``tasks`` and ``edges``, and
    none of the keys of hetsched's other formats (``jobs``, ``workflow``, ``node_types``,
    ``platform``, ``clusters``); the reader then names what is wrong in them."""
    return (isinstance(data, Mapping) and "tasks" in data and "edges" in data
            and not {"jobs", "workflow", "node_types", "platform", "clusters"} & data.keys())


def processor_name(p: int) -> str:
    """The name of a textbook graph's processor ``p`` (0-based): ``P1``, ``P2``, ... as the
    papers call them (the node types of the platform read from the file)."""
    return f"P{p + 1}"


def textbook_graph(data: Any, path: Path, processors: int | None = None) -> TaskGraph:
    """The textbook graph of the parsed document ``data`` of ``path``, keeping its first
    ``processors`` processors."""
    processors = _check_processors(processors)
    doc = require_mapping(data, path)
    name = _name(doc, path)
    names, cost = _costs(doc, path)
    if processors is not None and processors > cost.shape[1]:
        raise ConfigError(f"{path}: {option_name('processors')} {processors}: the graph gives "
                          f"costs on only {cost.shape[1]} processors (unrelated ones, so the "
                          "costs on others cannot be made up)")
    edges = _edges(doc, path, names)
    return _graph(path, lambda: TaskGraph(cost[:, :processors], edges, names, name))


def _field(doc: Mapping[str, Any], key: str, path: Path, kind: type, expected: str) -> Any:
    if key not in doc:
        raise InputError(path, "required field is missing", field=key)
    value = doc[key]
    if not isinstance(value, kind):
        raise InputError(path, f"expected {expected}, got {type_name(value)}", field=key)
    return value


def _name(doc: Mapping[str, Any], path: Path) -> str:
    return _field(doc, "name", path, str, "a string") if "name" in doc else path.stem


def _declared_processors(doc: Mapping[str, Any], path: Path) -> int | None:
    if "processors" not in doc:
        return None
    value = doc["processors"]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        shown = value if isinstance(value, int) and not isinstance(value, bool) \
            else type_name(value)
        raise InputError(path, f"expected a whole number >= 1, got {shown}",
                         field="processors")
    return value


def _costs(doc: Mapping[str, Any], path: Path) -> tuple[tuple[str, ...], np.ndarray]:
    """The task ids in file order and their costs (tasks × processors)."""
    tasks = _field(doc, "tasks", path, Mapping, "an object (task id: costs)")
    if not tasks:
        raise InputError(path, "no tasks", field="tasks")
    declared = _declared_processors(doc, path)
    first = next(iter(tasks.values()))
    width = declared or (len(first) if isinstance(first, list) else 0)
    for key, row in tasks.items():
        if not isinstance(row, list):
            raise InputError(path, "expected a list of costs (one per processor), got "
                                   f"{type_name(row)}", record=f"task {quote(key)}")
        if not row:
            raise InputError(path, "no costs: expected one per processor",
                             record=f"task {quote(key)}")
        if len(row) != width:
            given = "as 'processors' says" if declared else "as the first task has"
            raise InputError(path, f"expected {width} costs ({given}), got {len(row)}",
                             record=f"task {quote(key)}")
    _check_size(path, len(tasks), width)
    cost = np.empty((len(tasks), width))
    for i, (key, row) in enumerate(tasks.items()):
        for p, value in enumerate(row):
            cost[i, p] = _number(value, path, f"task {quote(key)}", f"cost[{p}]", "cost")
    return tuple(tasks), cost


def _number(value: object, path: Path, record: str, field: str, what: str) -> float:
    """A JSON number as a time (:func:`check_time`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(path, f"expected a number, got {type_name(value)}", record=record,
                         field=field)
    try:
        number = float(value)
    except OverflowError:  # an integer beyond float64
        number = float("inf")
    return check_time(number, str(value), path, record, field, what)


def _edges(doc: Mapping[str, Any], path: Path, names: tuple[str, ...]) -> tuple[Edge, ...]:
    items = _field(doc, "edges", path, list, "a list of [parent, child, data]")
    _check_edges(path, len(items))
    index = {name: i for i, name in enumerate(names)}
    first: dict[tuple[int, int], int] = {}
    edges: list[Edge] = []
    for k, item in enumerate(items):
        record = f"edges[{k}]"
        if not isinstance(item, list) or len(item) != 3:
            shape = f"a list of {len(item)}" if isinstance(item, list) else type_name(item)
            raise InputError(path, f"expected [parent, child, data], got {shape}",
                             record=record)
        parent, child = (_endpoint(item[j], index, path, record, field)
                         for j, field in enumerate(("parent", "child")))
        data = _number(item[2], path, record, "data", "data cost")
        if parent == child:
            raise InputError(path, f"an edge from task {quote(names[parent])} to itself",
                             record=record)
        if (parent, child) in first:
            raise InputError(path, f"edge {quote(names[parent])} -> {quote(names[child])} "
                                   f"given twice (first as edges[{first[parent, child]}])",
                             record=record)
        first[parent, child] = k
        edges.append((parent, child, data))
    return tuple(edges)


def _endpoint(value: object, index: Mapping[str, int], path: Path, record: str,
              field: str) -> int:
    """The index of the task an edge names (``3`` or ``"3"``)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InputError(path, "expected a task id (a string or a whole number), got "
                               f"{type_name(value)}", record=record, field=field)
    key = str(value)
    if key not in index:
        raise InputError(path, f"unknown task {quote(key)}", record=record, field=field)
    return index[key]


# ---- Kasahara STG ----------------------------------------------------------------------------
def read_stg(path: str | Path, processors: int | None) -> TaskGraph:
    """Read a graph in the STG format, on ``processors`` identical processors (required)."""
    path = Path(path)
    processors = _check_processors(processors)
    if processors is None:
        raise ConfigError(f"{path}: give {option_name('processors')} (STG graphs run on "
                          "identical processors, which the file does not count)")
    lines = read_text(path).splitlines()
    records = ((number, line.split()) for number, line in enumerate(lines, start=1)
               if line.strip() and not line.lstrip().startswith("#"))
    header = next(records, None)
    if header is None:
        raise InputError(path, "empty file: expected the number of tasks on the first line")
    number, fields = header
    if len(fields) != 1:
        raise InputError(path, f"expected the number of tasks alone, got {len(fields)} fields",
                         record=f"line {number}", field="tasks")
    n = whole_number(fields[0], path, f"line {number}", "tasks")
    total = n + 2
    _check_size(path, total, processors, record=f"line {number}")
    times: list[float] = []
    edges: list[Edge] = []
    for number, fields in records:
        if len(times) == total:
            raise InputError(path, f"a line after the {n} + 2 = {total} task lines (comments "
                                   "start with '#')", record=f"line {number}")
        times.append(_stg_task(fields, len(times), total, edges, path, f"line {number}"))
    if len(times) < total:
        raise InputError(path, f"{len(times)} task lines, the header announces {n} + 2 = "
                               f"{total}", record=f"line {len(lines)}")
    ids = [str(i) for i in range(total)]
    return _graph(path, lambda: identical(times, edges, processors, ids, path.stem))


#: The fields every STG task line starts with.
STG_FIELDS = ("id", "time", "npred")


def _stg_task(fields: list[str], task: int, total: int, edges: list[Edge], path: Path,
              record: str) -> float:
    """Check the line of task ``task``, add its in-edges to ``edges``; its time."""
    if len(fields) < len(STG_FIELDS):
        raise InputError(path, f"task line cut short: expected 'id time npred pred...', got "
                               f"{len(fields)} fields", record=record,
                         field=STG_FIELDS[len(fields)])
    given = whole_number(fields[0], path, record, "id", minimum=0)
    if given != task:
        raise InputError(path, f"task id {given} where {task} was expected (the ids go "
                               f"0..{total - 1} in order)", record=record, field="id")
    time = parse_time(fields[1], path, record, "time", "time")
    npred = whole_number(fields[2], path, record, "npred", minimum=0)
    preds = fields[len(STG_FIELDS):]
    if len(preds) != npred:
        raise InputError(path, f"npred is {npred}, the number of predecessor ids on the line "
                               f"is {len(preds)}", record=record, field="npred")
    _check_edges(path, len(edges) + npred, record, "npred")
    seen: set[int] = set()
    for text in preds:
        pred = whole_number(text, path, record, "pred", minimum=0)
        if pred >= total:
            raise InputError(path, f"no task {pred} (the ids go 0..{total - 1})",
                             record=record, field="pred")
        if pred == task or pred in seen:
            problem = "the task lists itself" if pred == task else f"{pred} is listed twice"
            raise InputError(path, problem, record=record, field="pred")
        seen.add(pred)
        edges.append((pred, task, 0.0))
    return time


# ---- published optima ------------------------------------------------------------------------
def read_stg_optima(path: str | Path) -> dict[str, tuple[float, float]]:
    """The optimal schedule lengths published with the STG sets (``Case50_2_OPT.csv``): a
    line ``file,m,optimum``, or ``file,m,low,high`` where only a range is known; the key is
    the file as written (``50/rand0000.stg``), the value ``(low, high)`` (``(v, v)`` for an
    optimum). ``m`` (the processors) must be a whole number >= 1 and is not returned. Blank
    lines and lines starting with ``#`` are skipped."""
    path = Path(path)
    optima: dict[str, tuple[float, float]] = {}
    line_of: dict[str, int] = {}
    for number, raw in enumerate(read_text(path).splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cells = [cell.strip() for cell in line.split(",")]
        record = f"line {number}"
        if len(cells) not in (3, 4):
            raise InputError(path, "expected 'file,m,optimum' or 'file,m,low,high', got "
                                   f"{len(cells)} fields", record=record)
        name = cells[0]
        if not name or name in line_of:
            problem = (f"{quote(name)} is listed twice (first on line {line_of[name]})"
                       if name else "no file name")
            raise InputError(path, problem, record=record, field="file")
        whole_number(cells[1], path, record, "m")
        if len(cells) == 3:
            low = high = parse_time(cells[2], path, record, "optimum", "optimum")
        else:
            low, high = (parse_time(text, path, record, field, "optimum")
                         for text, field in zip(cells[2:], ("low", "high")))
        if high < low:
            raise InputError(path, f"high {cells[3]} is below low {cells[2]}", record=record,
                             field="high")
        optima[name] = (low, high)
        line_of[name] = number
    if not optima:
        raise InputError(path, "no rows: expected 'file,m,optimum' lines")
    return optima
