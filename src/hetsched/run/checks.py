"""What is legal in a platform and a workload but probably not what the user meant: warnings,
one line each.

The CLI prints each warning as ``warning: <text>`` on stderr (unless ``--quiet``);
:func:`hetsched.simulate` issues them as :class:`~hetsched.errors.InputWarning`.
"""

from __future__ import annotations

from hetsched.models.speed import missing_types
from hetsched.parsing import quote
from hetsched.platform.model import Platform
from hetsched.workload.model import SIZE_KEYS, Workload


def input_warnings(platform: Platform, workload: Workload, size_hint: str = "") -> list[str]:
    """One line per inconsistency between ``platform`` and ``workload``, and per note of the
    platform's loader (empty if none). ``size_hint`` is added in brackets to the warning that
    the platform is not the size the trace was made for (the CLI's advice)."""
    found = [_empty(workload), _size(platform, workload, size_hint), _power(platform),
             _etc(platform, workload),
             *(f"{_label(platform.source, platform.name, 'platform')}: {note}"
               for note in platform.notes),
             *(f"{_label(workload.source, workload.name, 'workload')}: {note}"
               for note in workload.notes)]
    return [message for message in found if message is not None]


def _label(source: str, name: str, kind: str) -> str:
    return f"{kind} '{name}'" if source == "<memory>" else source


def _empty(workload: Workload) -> str | None:
    if workload.jobs:
        return None
    label = _label(workload.source, workload.name, "workload")
    skipped = workload.skipped
    if not skipped:
        return f"{label}: the workload has no jobs; there is nothing to simulate"
    first = skipped[0]
    return (f"{label}: no job to simulate: all {len(skipped)} records were skipped (first, "
            f"line {first.line}: {first.reason})")


def _size(platform: Platform, workload: Workload, hint: str) -> str | None:
    """The header's machine size against the platform's cores. Any difference is reported,
    smaller or larger: a trace replayed on a machine of another size carries another load."""
    key = next((k for k in SIZE_KEYS if k in workload.metadata), None)
    if key is None or workload.metadata[key] == platform.total_cores:
        return None
    if workload.declared_cores is None:
        return (f"{_label(workload.source, workload.name, 'workload')}: the trace's header "
                f"{key} {quote(str(workload.metadata[key]))} is not a whole number >= 1; the "
                "platform's cores are not compared with it")
    return (f"{_label(workload.source, workload.name, 'workload')}: the trace's header says "
            f"{key} {workload.metadata[key]}, the platform {platform.name} has "
            f"{platform.total_cores} cores" + (f" ({hint})" if hint else ""))


def _power(platform: Platform) -> str | None:
    """A platform whose node types are only partly given power figures has no energy."""
    missing = [t.name for t in platform.node_types if not t.has_power]
    if not missing or len(missing) == len(platform.node_types):
        return None
    names = ", ".join(f"'{name}'" for name in missing)
    return (f"{_label(platform.source, platform.name, 'platform')}: node type(s) {names} have "
            "no power figures, so the platform's energy is not reported")


def _etc(platform: Platform, workload: Workload) -> str | None:
    """Jobs whose ETC row misses node types of the platform: the engine rejects them."""
    types = [t.name for t in platform.node_types]
    lacking = [job for job in workload.jobs if missing_types(job, types)]
    if not lacking:
        return None
    first = lacking[0]
    missing = ", ".join(map(quote, missing_types(first, types)))
    named = ", ".join(quote(name) for name, _ in first.etc)
    return (f"{_label(workload.source, workload.name, 'workload')}: {len(lacking)} of "
            f"{len(workload.jobs)} jobs have an ETC row without run times on node types of the "
            f"platform {platform.name} (job {quote(first.id)}: {missing}; it names {named}): "
            "they are rejected")
