"""``render()``'s text view of the cluster: the time, the queue, each node's busy and free
cores."""

from __future__ import annotations

from itertools import islice

from hetsched.sim.view import ClusterView

#: The widest bar of cores drawn per node.
BAR = 32


def text_view(view: ClusterView, visible: int) -> str:
    pending = list(islice(view.pending.values(), visible))
    more = len(view.pending) - len(pending)
    queue = " ".join(f"{job.id}({job.ntasks})" for job in pending) + (f" +{more}" if more else "")
    lines = [f"t={view.now:g}s  pending {len(view.pending)}: {queue or '-'}  "
             f"running {len(view.running)}"]
    width = max(len(node.name) for node in view.platform.nodes)
    for index, node in enumerate(view.platform.nodes):
        slots = node.type.slots
        free = max(int(view.free_slots[index]), 0)
        busy = slots - free
        scale = min(1.0, BAR / slots)
        bar = "#" * round(busy * scale) + "." * (round(slots * scale) - round(busy * scale))
        lines.append(f"{node.name:<{width}} {busy:>4}/{slots:<4} busy [{bar}]")
    return "\n".join(lines)
