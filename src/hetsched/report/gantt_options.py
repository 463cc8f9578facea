"""What the Gantt chart draws, as ``hetsched plot`` asks for it (``--colour-by``, ``--gantt``,
``--gantt-window``): the colour of the jobs, the detailed or the aggregate view, a time window.
Light (no numpy, no matplotlib): the command line builds its choices from these names."""

from __future__ import annotations

from dataclasses import dataclass

#: What the jobs' colours say: the job (tab20 by job, no legend), the tasks it asked for
#: (a colorbar), its final state, the scheduler's decision (in submission order, or ahead of
#: a job submitted before it: backfilled), its user or its queue (a legend each).
COLOUR_BY = ("job", "size", "state", "decision", "user", "queue")
#: ``auto``: the aggregate view above :data:`DETAILED_LIMIT` bars (unless a window is
#: given), the detailed chart below it.
VIEWS = ("auto", "detailed", "aggregate")
#: Above this many bars (contiguous core ranges jobs held) the Gantt chart's ``auto`` view
#: is the aggregate one: the KIT trace's first 25k jobs on its 1,173 nodes hold 53,860, a wash
#: of slivers; 10,000 on 1,000 nodes still read as bars.
DETAILED_LIMIT = 20_000


@dataclass(frozen=True)
class GanttOptions:
    """``window``: ``(start, end)`` in seconds from the run's start (the time axis' zero), or
    ``None`` for the whole run."""

    colour_by: str = "job"
    view: str = "auto"
    window: tuple[float, float] | None = None

