"""Every registry hetsched has, by kind: schedulers, contention models, input formats, writers,
workload generators, mapping heuristics, task-graph heuristics and co-allocation criteria, each a
:class:`~hetsched.registry.Registry`.
``hetsched schedulers`` lists one of them; tests/test_layers.py resolves every entry of all of
them against the layers. The registries are imported when first listed."""

from __future__ import annotations

from hetsched.errors import ConfigError, did_you_mean
from hetsched.registry import Entry, Registry


def registries() -> dict[str, Registry]:
    """Every registry, by kind (its ``kind``: ``"scheduler"``, ``"workload format"``, ...)."""
    from hetsched.coalloc.criteria import CRITERIA
    from hetsched.mapping.graph_registry import GRAPH_HEURISTICS
    from hetsched.mapping.registry import HEURISTICS
    from hetsched.models.contention import MODELS
    from hetsched.platform.load import FORMATS as PLATFORM_READERS
    from hetsched.platform.writers import WRITERS as PLATFORM_WRITERS
    from hetsched.schedulers.registry import SCHEDULERS
    from hetsched.workload.generators import GENERATORS
    from hetsched.workload.load import FORMATS as WORKLOAD_READERS
    from hetsched.workload.writers import WRITERS as WORKLOAD_WRITERS

    return {registry.kind: registry for registry in (
        SCHEDULERS, MODELS, PLATFORM_READERS, WORKLOAD_READERS, PLATFORM_WRITERS,
        WORKLOAD_WRITERS, GENERATORS, HEURISTICS, GRAPH_HEURISTICS, CRITERIA)}


def catalogue(kind: str) -> list[Entry]:
    """The entries of the registry of ``kind``, or a ConfigError naming the kinds."""
    found = registries()
    if kind not in found:
        raise ConfigError(f"no registry of {kind!r}{did_you_mean(kind, list(found))} "
                          f"(kinds: {', '.join(found)})")
    return found[kind].entries()
