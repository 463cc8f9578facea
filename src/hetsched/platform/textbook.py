"""A textbook task graph's processors as a platform (the JSON of
:func:`hetsched.mapping.dag_io.read_textbook`: Topcuoglu et al. 2002, Arabnejad & Barbosa
2014), so that ``hetsched run -p g.json -w g.json`` runs the graph on its own processors.

Each processor ``p`` becomes one node of one core, of its own node type named as the papers
name the processor (``P1``, ``P2``, ...: :func:`~hetsched.mapping.dag_io.processor_name`),
which the graph's jobs' ETC rows name (:mod:`hetsched.workload.taskgraph`). The costs are
unrelated, so no speed gives them; a speed still orders the nodes for the rules that read one
(the slowest node, where estimates without a row are given; node selections by speed): a
processor's clock is the largest of the processors' summed costs over its own (1 GHz, one
operation a cycle, on the processor whose costs sum highest; faster as its costs sum lower, at
most ``limits.MAX_CLOCK_GHZ``: only the order matters). Memory and disk are unlimited and there
is no power model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hetsched.errors import InputError
from hetsched.limits import MAX_CLOCK_GHZ
from hetsched.mapping.dag_io import processor_name, textbook_graph
from hetsched.mapping.graph import TaskGraph
from hetsched.parsing import quote
from hetsched.platform.model import Node, NodeType, Platform


def simulated_graph(data: Any, path: Path) -> TaskGraph:
    """The textbook graph of the document ``data`` of ``path``, every cost above 0: the
    simulator runs a task at ``req_ops / cost`` operations a second."""
    graph = textbook_graph(data, path)
    zero = np.argwhere(graph.cost <= 0)
    if zero.size:
        task, p = (int(i) for i in zero[0])
        raise InputError(path, f"a cost of {graph.cost[task, p]:g}: a simulated task takes "
                               "more than 0 s on every processor",
                         record=f"task {quote(graph.names[task])}", field=f"cost[{p}]")
    return graph


def textbook_platform(data: Any, path: Path) -> Platform:
    """The processors of the textbook graph in ``data`` (the document of ``path``)."""
    graph = simulated_graph(data, path)
    totals = graph.cost.sum(axis=0)
    highest = float(totals.max())
    nodes = tuple(_node(p, min(highest / float(total), MAX_CLOCK_GHZ))
                  for p, total in enumerate(totals))
    return Platform(graph.name, nodes, str(path))


def _node(p: int, clock_ghz: float) -> Node:
    """Processor ``p``: a node of one core, of its own type, both named after it."""
    name = processor_name(p)
    return Node(p, name, NodeType(name, cores=1, clock_ghz=clock_ghz))
