"""The computing environments of Toporkov & Yemelyanov's experiment (ICCS 2018, §4.1), seeded.

100 nodes of performance ``p_i ~ U{2..10}``, an independent value ``q_i ~ U[0, 10]`` each, a
scheduling horizon ``L = 1200`` and a pre-reserved load of up to 30 % per node ("distributed
hyper-geometrically"); a node's slots are the spans of ``[0, L)`` its reservations leave free.
What the paper leaves open is a parameter here, with a documented default
(docs/coalloc.md#calibration):

- the load (:class:`HypergeometricLoad`): the horizon is cut into ``blocks`` equal blocks; a
  node's count of reserved blocks is the number of reserved blocks among ``draws`` drawn
  without replacement from an urn of ``blocks`` in which ``max_load · blocks`` are reserved,
  so it is hypergeometric and at most ``max_load · blocks`` ("up to 30 %"); which blocks they
  are is uniform, and neighbouring ones make one reservation. :class:`UniformLoad` draws the
  count uniformly instead;
- the price model (:func:`proportional_prices`, any ``(rng, performance) -> prices``): the paper
  does not publish one; ``c_i = 0.1 · p_i · U(0.75, 1.25)``, with which the paper's budget
  ``C = 644`` is ``1.15 · n · V · 0.1``: 15 % above a window of average-priced nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from hetsched.coalloc.model import Request, Slots
from hetsched.errors import ConfigError

#: ``(rng, performance) -> prices``: a node's price per unit of time from its performance.
PriceModel = Callable[[np.random.Generator, np.ndarray], np.ndarray]


def proportional_prices(rng: np.random.Generator, performance: np.ndarray) -> np.ndarray:
    """``c_i = 0.1 · p_i · U(0.75, 1.25)``: a price per unit of performance of 0.1, give or
    take 25 %."""
    return 0.1 * performance * rng.uniform(0.75, 1.25, size=performance.shape)


@dataclass(frozen=True)
class HypergeometricLoad:
    """Reserved blocks per node ~ Hypergeometric(``max_load · blocks`` reserved,
    ``blocks - max_load · blocks`` free, ``draws`` drawn): between 0 and ``max_load`` of the
    horizon, ``max_load · draws / blocks`` on average (15 % by default)."""

    blocks: int = 30
    max_load: float = 0.3
    draws: int = 15

    def __post_init__(self) -> None:
        _check_blocks(self.blocks, self.max_load)
        if isinstance(self.draws, bool) or not isinstance(self.draws, int) \
                or not 0 <= self.draws <= self.blocks:
            raise ConfigError(f"load draws must be a whole number from 0 to the blocks "
                              f"({self.blocks}), got {self.draws!r}")

    def counts(self, rng: np.random.Generator, nodes: int) -> np.ndarray:
        reserved = round(self.max_load * self.blocks)
        return rng.hypergeometric(reserved, self.blocks - reserved, self.draws, size=nodes)


@dataclass(frozen=True)
class UniformLoad:
    """Reserved blocks per node ~ U{0..``max_load · blocks``}."""

    blocks: int = 30
    max_load: float = 0.3

    def __post_init__(self) -> None:
        _check_blocks(self.blocks, self.max_load)

    def counts(self, rng: np.random.Generator, nodes: int) -> np.ndarray:
        return rng.integers(0, round(self.max_load * self.blocks), size=nodes, endpoint=True)


#: The load models by name.
LOADS: dict[str, type[HypergeometricLoad] | type[UniformLoad]] = {
    "hypergeometric": HypergeometricLoad, "uniform": UniformLoad}


def _check_blocks(blocks: object, max_load: object) -> None:
    if isinstance(blocks, bool) or not isinstance(blocks, int) or not 1 <= blocks <= 10**5:
        raise ConfigError(f"load blocks must be a whole number from 1 to 100,000, "
                          f"got {blocks!r}")
    if isinstance(max_load, bool) or not isinstance(max_load, (int, float)) \
            or not 0 <= max_load <= 1:
        raise ConfigError(f"max load must be a fraction from 0 to 1, got {max_load!r}")


@dataclass(frozen=True)
class PaperEnvironment:
    """The experiment's environment and request (§4.1): ``nodes`` of performance drawn
    uniformly from the whole numbers in ``performances``, ``q`` uniform in ``q_range``, the
    ``load`` over ``horizon``, prices by ``prices``; the request is ``n`` nodes of performance
    at least ``min_performance`` computing ``volume`` each within ``budget``."""

    nodes: int = 100
    horizon: float = 1200.0
    performances: tuple[int, int] = (2, 10)
    q_range: tuple[float, float] = (0.0, 10.0)
    load: HypergeometricLoad | UniformLoad = field(default_factory=HypergeometricLoad)
    prices: PriceModel = proportional_prices
    n: int = 7
    volume: float = 800.0
    budget: float = 644.0
    min_performance: float = 1.0

    def request(self, criterion: str) -> Request:
        return Request(self.n, self.volume, self.budget, self.min_performance, criterion)

    def draw(self, rng: np.random.Generator) -> Slots:
        """One environment's slots, with the attribute ``q``."""
        low, high = self.performances
        performance = rng.integers(low, high, size=self.nodes, endpoint=True).astype(float)
        q = rng.uniform(*self.q_range, size=self.nodes)
        price = np.asarray(self.prices(rng, performance), dtype=np.float64)
        blocks = self.load.blocks
        count = self.load.counts(rng, self.nodes)
        reserved = np.argsort(rng.random((self.nodes, blocks)), axis=1).argsort(axis=1) \
            < count[:, None]
        free = np.zeros((self.nodes, blocks + 2), dtype=np.int8)
        free[:, 1:-1] = ~reserved
        change = np.diff(free, axis=1)
        node, first = np.nonzero(change == 1)  # row-major: each node's runs in order
        _, past = np.nonzero(change == -1)
        width = self.horizon / blocks
        return Slots(node, first * width, past * width, performance[node], price[node],
                     {"q": q[node]})
