"""The realistic study of the IRMaSim batch-mapping thesis (its §5.1.2 and §5.3.4-5.3.6): real
KIT jobs instead of one synthetic batch, submit times rounded to 1e5 s so that jobs arrive in
batches, on the thesis' two platforms (its Tables 4 and 5), under its nine schedulers (those of
:mod:`hetsched.experiments.batch_mapping`).

:data:`STUDY` follows the thesis: IRMaSim's own KIT workload (multi-task jobs, every task of a
job on one node), its first 1,500 jobs in 5 overlapping windows of 500, on the platforms of its
tables (``realistic.yaml``; the choices are in the shipped files' headers and in
docs/experiments.md), its batch mappers under the thesis' own rules (Min-min, Max-min and
Duplex by requested time, nodes that start any listed job that fits, A* in a random order
pruned by tree size). :data:`BRAUN` is the same study under Braun et al.'s definitions, the
engine's FIFO node queues and A* with a budget (``--variant braun``). :data:`LEGACY` is the
study as it was built before the tables were found (``--variant legacy``): single-core
platforms from the synthetic study's clock bands, every job of the SWF trace made one task.
"""

from __future__ import annotations

from pathlib import Path

from hetsched.experiments.trace_studies import KIT_TRACE, TraceStudy
from hetsched.experiments.traces import SHARED, TraceSettings

#: The KIT workload the study reads by default, relative to the project root (see
#: :data:`~hetsched.experiments.trace_studies.KIT_TRACE`).
KIT_IRMASIM = SHARED / "traces" / "kit_fh2_weeks18-34_irmasim.json"
IDS = {"platform": "platform", "part": "part"}
METRICS = {"makespan": "makespan", "mean_wait": "mean_wait", "slowdown": "mean_slowdown",
           "bounded_slowdown": "mean_bounded_slowdown", "het_slowdown": "mean_het_slowdown"}

STUDY = TraceStudy("realistic", "realistic.yaml", "kit_weeks18-34_1e5.json",
                   TraceSettings(max_procs=None, submit_step=1e5), ids=IDS,
                   metrics={**METRICS, "rejected": "rejected"})
BRAUN = TraceStudy("realistic", "realistic_braun.yaml", STUDY.trace, STUDY.settings, ids=IDS,
                   metrics=STUDY.metrics)
LEGACY = TraceStudy("realistic", "realistic_legacy.yaml", "kit_serial_1e5.swf",
                    TraceSettings(max_procs=1, submit_step=1e5), ids=IDS, metrics=METRICS)
#: The variants by name, each with the trace it reads by default.
VARIANTS: dict[str, tuple[TraceStudy, Path]] = {"thesis": (STUDY, KIT_IRMASIM),
                                                "legacy": (LEGACY, KIT_TRACE),
                                                "braun": (BRAUN, KIT_IRMASIM)}
