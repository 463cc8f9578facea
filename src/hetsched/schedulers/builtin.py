"""Registers every built-in scheduler under its name.

Factories are given as ``"module:attribute"`` paths, so registering imports only the small
modules that hold names and descriptions; a family's code is imported when one of its
schedulers is created.
"""

from __future__ import annotations

from hetsched.dssim.algorithms import ALGORITHMS
from hetsched.mapping.catalogue import DESCRIPTIONS as MAPPING_DESCRIPTIONS
from hetsched.mapping.catalogue import scheduler_options
from hetsched.schedulers.policies import (JOB_SELECTION_HELP, JOB_SELECTIONS,
                                          NODE_SELECTION_HELP, NODE_SELECTIONS)
from hetsched.schedulers.registry import register

QUEUE = "hetsched.schedulers.queue:QueuePolicy"

register("fcfs", QUEUE, "FCFS: queue head to the lowest-index node(s) where it fits now, "
         "honouring its nodes and memory (not IRMaSim's Minimal, which straddles any idle "
         "cores: irmasim_minimal)", "queue", job_selection="first", node_selection="first")
register("high_gflops", QUEUE, "FCFS order; fastest node with enough idle cores",
         "queue", job_selection="first", node_selection="high_gflops")
register("low_power", QUEUE, "FCFS order; lowest full-load power node with enough idle "
         "cores", "queue", job_selection="first", node_selection="low_power")
register("irmasim_minimal", "hetsched.schedulers.irmasim:IrmasimMinimal", "IRMaSim's "
         "Minimal: FCFS, no backfilling; the head starts when the platform's idle cores suffice "
         "and its tasks take the first idle cores in platform order, on any nodes (its nodes "
         "ignored); memory is checked (a job waits for it)", "irmasim")
register("irmasim_heuristic", "hetsched.schedulers.irmasim:IrmasimHeuristic", "IRMaSim's "
         "Heuristic: only the head by job_selection (random, first, shortest, longest, "
         "smallest, low_mem, low_mem_ops) is tried; its tasks are dealt round robin over the "
         "first <nodes> nodes with ceil(ntasks/nodes) idle cores, by resource_selection "
         "(random, first, high_gflops, high_cores, low_cores, high_mem, high_mem_bw, "
         "low_power); memory is checked", "irmasim", job_selection="first",
         node_selection="first")
for _job in JOB_SELECTIONS:
    for _node in NODE_SELECTIONS:
        register(f"{_job}-{_node}", QUEUE,
                 f"jobs: {JOB_SELECTION_HELP[_job]}; nodes: {NODE_SELECTION_HELP[_node]} (not "
                 "IRMaSim's Heuristic: honours the job's nodes and memory; see "
                 "irmasim_heuristic)",
                 "grid", job_selection=_job, node_selection=_node)
register("easy", "hetsched.schedulers.backfill:EasyBackfill", "EASY backfilling: head "
         "reserved at the shadow time, others may jump ahead without delaying it (option "
         "node=<node selection>)", "backfill")
register("conservative", "hetsched.schedulers.conservative:ConservativeBackfill", "Conservative "
         "backfilling: every queued job reserved in order; none may be delayed (option "
         "node=<node selection>)", "backfill")
for _name, _text in MAPPING_DESCRIPTIONS.items():
    register(_name, "hetsched.schedulers.batch:BatchMapping", f"per submission batch: {_text} "
             f"(options {', '.join(scheduler_options(_name))})", "batch", heuristic=_name)
for _name, _algorithm in ALGORITHMS.items():
    register(_name, "hetsched.dssim.scheduler:DsSimScheduler", _algorithm.description, "dssim",
             algorithm=_name)
