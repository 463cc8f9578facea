"""Registers every built-in scheduler under its name."""

from __future__ import annotations

from hetsched.dssim.algorithms import ALGORITHMS
from hetsched.dssim.driver import DsSimPolicy
from hetsched.mapping.greedy import LIST_HEURISTICS
from hetsched.mapping.registry import DESCRIPTIONS, HEURISTICS
from hetsched.schedulers.backfill import ConservativeBackfill, EasyBackfill
from hetsched.schedulers.batch import HEURISTIC_OPTIONS, BatchMapping
from hetsched.schedulers.policies import (JOB_SELECTION_HELP, JOB_SELECTIONS,
                                          NODE_SELECTION_HELP, NODE_SELECTIONS)
from hetsched.schedulers.queue import QueuePolicy
from hetsched.schedulers.registry import register

register("fcfs", QueuePolicy, "FCFS: queue head to the first node that fits (IRMaSim Minimal)",
         "queue", job_selection="first", node_selection="first")
register("high_gflops", QueuePolicy, "FCFS order; fastest node with enough idle cores",
         "queue", job_selection="first", node_selection="high_gflops")
register("low_power", QueuePolicy, "FCFS order; lowest full-load power node with enough idle "
         "cores", "queue", job_selection="first", node_selection="low_power")
for _job in JOB_SELECTIONS:
    for _node in NODE_SELECTIONS:
        register(f"{_job}-{_node}", QueuePolicy,
                 f"jobs: {JOB_SELECTION_HELP[_job]}; nodes: {NODE_SELECTION_HELP[_node]}",
                 "grid", job_selection=_job, node_selection=_node)
register("easy", EasyBackfill, "EASY backfilling: head reserved at the shadow time, others may "
         "jump ahead without delaying it (option node=<node selection>)", "backfill")
register("conservative", ConservativeBackfill, "Conservative backfilling: every queued job "
         "reserved in order; none may be delayed (option node=<node selection>)", "backfill")
for _name in HEURISTICS:
    _options = ["replan"] + ([] if _name in LIST_HEURISTICS else ["time_limit"]) + \
        ([HEURISTIC_OPTIONS[_name]] if _name in HEURISTIC_OPTIONS else [])
    register(_name, BatchMapping, f"per submission batch: {DESCRIPTIONS[_name]} (options "
             f"{', '.join(_options)})", "batch", heuristic=_name)
for _name, _algorithm in ALGORITHMS.items():
    register(_name, DsSimPolicy, _algorithm.description, "dssim", algorithm=_name)
