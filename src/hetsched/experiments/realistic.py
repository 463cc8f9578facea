"""The realistic study of the IRMaSim batch-mapping thesis: real KIT jobs instead of one
synthetic batch, 5 parts of 500 jobs whose submit times are rounded to 1e5 s (so jobs arrive
in batches), on 32-node platforms at low and high heterogeneity, under the thesis' nine
schedulers (those of :mod:`hetsched.experiments.batch_mapping`).

The thesis' Tables 4 and 5 (its platforms) and its trace filter are not available; the choices
made instead (single-core nodes with the batch-mapping study's clock bands, twice the nodes
per band; every job one task; submit times rounded down) are in the shipped files' headers and
in docs/experiments.md.
"""

from __future__ import annotations

from hetsched.experiments.trace_studies import TraceStudy
from hetsched.experiments.traces import TraceSettings

STUDY = TraceStudy("realistic", "realistic.yaml", "kit_serial_1e5.swf",
                   TraceSettings(max_procs=1, submit_step=1e5),
                   ids={"platform": "platform", "part": "part"},
                   metrics={"makespan": "makespan", "mean_wait": "mean_wait",
                            "slowdown": "mean_slowdown",
                            "bounded_slowdown": "mean_bounded_slowdown",
                            "het_slowdown": "mean_het_slowdown"})
