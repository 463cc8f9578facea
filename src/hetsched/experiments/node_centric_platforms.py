"""The node-centric study's parametric platforms: 16 nodes in four groups of four, one group
per clock, every node one processor with the paper's three-state power model (idle with no
core busy, static with at least one, dynamic per busy core), from a :class:`Setting`.

The clocks are spread geometrically from ``TOP_GHZ / clock_spread`` to ``TOP_GHZ`` (within
real hardware's 1–3.5 GHz). Power takes IRMaSim's example figures (``static_power``
6.14211 W and ``dynamic_power`` 5.59316 W, the same for its 2.5 and 3 GHz processors, so taken
at ``REFERENCE_GHZ``), scaled by ``(clock / REFERENCE_GHZ) ** power_exponent``; idle power is
``idle_fraction`` × static power (IRMaSim's ``min_power``, 0.05 in its examples). In IRMaSim
``static_power`` is a whole processor's; here it is taken **per core** (a node's static power
is 6.14211 W × its cores × the clock scale), a choice: the paper's Table 1 is missing, and a
node of more cores draws more when any is busy (docs/experiments.md gives the effect of
IRMaSim's per-processor reading).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Fastest clock of any setting, GHz (real hardware's upper end).
TOP_GHZ = 3.5
#: The clock at which IRMaSim's power figures are taken, GHz.
REFERENCE_GHZ = 2.5
#: IRMaSim's static and dynamic power (its example platforms), W, both taken per core here
#: (IRMaSim's static power is a processor's: see the module's docstring).
STATIC_W_PER_CORE, DYNAMIC_W_PER_CORE = 6.14211, 5.59316
#: Flops per cycle of every group (the legacy platform's processors do 8).
OPS_PER_CYCLE = 8
GROUPS, NODES_PER_GROUP = 4, 4


@dataclass(frozen=True)
class Setting:
    """One point of the sensitivity grid. ``clock_spread``: fastest / slowest clock (≥ 1);
    ``power_exponent``: power per core ∝ clock ** it; ``idle_fraction``: idle / static power;
    ``cores``: per node (≥ 64: every job of the capped trace fits every node);
    ``batching``: a key of :data:`hetsched.experiments.node_centric.BATCHINGS`."""

    clock_spread: float
    power_exponent: float
    idle_fraction: float
    cores: int
    batching: str

    @property
    def label(self) -> str:
        """The platform's name, which also names its file and its runs in the store."""
        return (f"c{self.clock_spread:g}-p{self.power_exponent:g}-i{self.idle_fraction:g}"
                f"-n{self.cores}")

    def clocks(self) -> list[float]:
        """The four groups' clocks, GHz, slowest first."""
        return [round(TOP_GHZ * self.clock_spread ** ((g - GROUPS + 1) / (GROUPS - 1)), 4)
                for g in range(GROUPS)]


def platform_document(setting: Setting) -> dict[str, Any]:
    """The native platform document (:doc:`formats`) of ``setting``."""
    types = [_node_type(setting, group, clock) for group, clock in enumerate(setting.clocks())]
    nodes = [{"type": t["name"], "count": NODES_PER_GROUP} for t in types]
    return {"name": setting.label, "node_types": types,
            "clusters": [{"name": "node_centric", "nodes": nodes}]}


def _node_type(setting: Setting, group: int, clock: float) -> dict[str, Any]:
    scale = (clock / REFERENCE_GHZ) ** setting.power_exponent
    static = STATIC_W_PER_CORE * scale * setting.cores
    power = {"idle": setting.idle_fraction * static, "static": static,
             "dynamic_per_core": DYNAMIC_W_PER_CORE * scale}
    return {"name": f"g{group}_{clock:g}ghz", "cores": setting.cores, "clock_ghz": clock,
            "ops_per_cycle": OPS_PER_CYCLE, "power": power}
