"""Workload generators: seeded models that write a trace instead of reading one.

A generator draws an SWF-like table (submit time, processors, run time, requested time) from
its parameters and a seed; the table becomes jobs for a platform by the SWF rules
(:func:`hetsched.workload.swf.table_workload`): run times refer to the platform's slowest
core unless a reference speed is given, and the placement option applies. The same name,
parameters and seed give the same workload on every machine.

Each model is a :class:`Generator` in :data:`GENERATORS`: a schema for its parameters (checked
before anything is drawn, so a typo such as ``jobs: 1e12`` fails at once) and a function
``draw(params, rng) -> table``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from hetsched.errors import ConfigError, did_you_mean
from hetsched.fileio import validate
from hetsched.platform.model import Platform
from hetsched.workload.model import Workload
from hetsched.workload.swf import SwfOptions


@dataclass(frozen=True)
class Generator:
    """A workload model: its parameters' schema, what it draws, and one line about it."""

    name: str
    params: type[BaseModel]
    draw: Callable[[Any, np.random.Generator], np.ndarray]
    description: str


def _registry() -> dict[str, Generator]:
    from hetsched.workload.generators import lublin, simple

    return {g.name: g for module in (simple, lublin) for g in module.GENERATORS}


GENERATORS = _registry()


def generator(name: str) -> Generator:
    """The generator called ``name``, or a ConfigError listing the known ones."""
    if name not in GENERATORS:
        raise ConfigError(f"unknown workload generator {name!r}"
                          f"{did_you_mean(name, list(GENERATORS))} "
                          f"(known: {', '.join(sorted(GENERATORS))})")
    return GENERATORS[name]


def check_params(name: str, params: Mapping[str, Any], source: Path) -> BaseModel:
    """The parameters of generator ``name``, checked; errors name ``source`` and the field."""
    return validate(generator(name).params, dict(params), source)


def generate(name: str, params: BaseModel, seed: int, platform: Platform,
             swf: SwfOptions = SwfOptions()) -> Workload:
    """The workload generator ``name`` draws with ``params`` and ``seed``, for ``platform``."""
    from hetsched.workload.swf import table_workload

    table = generator(name).draw(params, np.random.default_rng(seed))
    label = f"{name} seed {seed}"
    return table_workload(label, f"generator:{name}", platform, swf, table,
                          {"Generator": name, "Seed": seed})
