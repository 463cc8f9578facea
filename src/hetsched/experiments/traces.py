"""Derived traces for the trace-driven studies: the original trace with each job's processor
count capped and, optionally, its submit time rounded down to a multiple of a step. An SWF
trace gives an SWF file; an IRMaSim workload JSON (``.json``) gives one, its ``ntasks``
capped and its ``subtime`` rounded, the other fields kept.

An SWF header's ``MaxProcs`` (the machine the trace was logged on) is made to match the
platforms the study runs it on (``cores``: their sizes), so that running it warns of no
mismatch: set to their cores when they share one size, removed when they differ.

The derived file is written next to a study's results (never over the shared data). It is a
deterministic function of the source file and the settings, so a sweep's keys, which hash the
file's contents, stay the same when a study is run again and its runs are resumed.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from hetsched.files import read_text
from hetsched.errors import InputError
from hetsched.parsing import parse_float

#: How the studies name the shared data by default: relative to the project root.
SHARED = Path("..", "shared", "data")


def located(path: Path) -> Path:
    """A study's input as given when it is there; one named under :data:`SHARED` (a default,
    relative to the project root) that is not (a study run from another directory) under
    ``$HETSCHED_SHARED_DATA``, else beside this checkout of hetsched. As given when none has
    it: the error names the path the study was given."""
    if path.exists() or path.parts[:3] != SHARED.parts:
        return path
    rest = Path(*path.parts[3:])
    for root in (os.environ.get("HETSCHED_SHARED_DATA"), _beside_checkout()):
        if root and (Path(root) / rest).exists():
            return Path(root) / rest
    return path


def _beside_checkout() -> Path | None:
    """``shared/data`` beside the project when hetsched runs from a checkout (``src/`` in a
    folder with ``pyproject.toml``); ``None`` for an installed package."""
    folders = Path(__file__).resolve().parents
    if len(folders) < 5 or not (folders[3] / "pyproject.toml").is_file():
        return None
    return folders[4] / "shared" / "data"


#: SWF fields (0-based) this module rewrites.
SUBMIT, ALLOCATED, REQUESTED = 1, 4, 7
FIELD_NAMES = {SUBMIT: "submit_time", ALLOCATED: "allocated_processors",
               REQUESTED: "requested_processors"}


@dataclass(frozen=True)
class TraceSettings:
    """``max_procs``: processors per job at most (larger counts become it; ``None``: kept).
    ``submit_step``: submit times rounded down to multiples of it, s (``None``: kept)."""

    max_procs: int | None
    submit_step: float | None = None

    def describe(self) -> str:
        parts = [] if self.max_procs is None else [f"processors capped at {self.max_procs}"]
        if self.submit_step is not None:
            parts.append(f"submit times rounded down to multiples of {self.submit_step:g} s")
        return "; ".join(parts) or "unchanged"

    def procs(self, count: float) -> float:
        """A job's processor count, capped."""
        return count if self.max_procs is None else min(count, self.max_procs)

    def submit(self, time: float) -> float:
        """A submit time, rounded down."""
        step = self.submit_step
        return time if step is None else (time // step) * step


def derive_trace(source: str | Path, dest: str | Path, settings: TraceSettings,
                 cores: Collection[int] = ()) -> Path:
    """Write ``source`` with ``settings`` applied to ``dest``, in the same format (SWF, or
    IRMaSim JSON when ``dest`` ends in ``.json``): an SWF's header lines kept (``MaxProcs``
    matched to the platforms' ``cores``, if given; with one comment line saying what
    changed), data lines rewritten field by field. ``source`` may be a default under
    :data:`SHARED` (:func:`located`)."""
    source, dest = located(Path(source)), Path(dest)
    irmasim = dest.suffix.lower() == ".json"
    if (source.suffix.lower() == ".json") != irmasim:
        raise InputError(source, "expected " + ("an IRMaSim workload JSON (.json)" if irmasim
                                                else "an SWF trace"))
    if irmasim:
        return _derive_irmasim(source, dest, settings)
    lines = read_text(source).splitlines()
    header, machine = _matched_header([line for line in lines if line.lstrip().startswith(";")],
                                      cores)
    data = [(n, line) for n, line in enumerate(lines, 1)
            if line.strip() and not line.lstrip().startswith(";")]
    changes = "; ".join(part for part in (settings.describe(), machine) if part)
    out = header + [f"; Derived by hetsched from {source.name}: {changes}"]
    out += [_rewrite(line, number, source, settings) for number, line in data]
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text("\n".join(out) + "\n", encoding="utf-8")
    return dest


def _matched_header(header: list[str], cores: Collection[int]) -> tuple[list[str], str]:
    """``header`` with its ``MaxProcs`` line made to match platforms of ``cores`` (kept when
    none are given), and what was done, for the derivation's comment line."""
    sizes = sorted(set(cores))
    found = [line for line in header if _key(line) == "MaxProcs"]
    if not sizes or not found:
        return header, ""
    original = found[0].split(":", 1)[1].strip()
    if len(sizes) == 1:
        kept = [f"; MaxProcs: {sizes[0]}" if _key(line) == "MaxProcs" else line
                for line in header]
        return kept, f"MaxProcs {original} set to the platform's {sizes[0]} cores"
    return ([line for line in header if _key(line) != "MaxProcs"],
            f"MaxProcs {original} removed (the platforms have {', '.join(map(str, sizes))} "
            "cores)")


def _key(line: str) -> str:
    """The key of a header line ``; Key: value`` (empty if it has none)."""
    text = line.lstrip().lstrip(";").strip()
    return text.split(":", 1)[0].strip() if ":" in text else ""


def _rewrite(line: str, number: int, source: Path, settings: TraceSettings) -> str:
    fields = line.split()
    if len(fields) <= REQUESTED:
        raise InputError(source, f"expected 18 fields, found {len(fields)}",
                         record=f"line {number}")
    for index in (ALLOCATED, REQUESTED):
        procs = _number(fields[index], number, index, source)
        if settings.procs(procs) != procs:
            fields[index] = str(settings.max_procs)
    if settings.submit_step is not None:
        submit = _number(fields[SUBMIT], number, SUBMIT, source)
        fields[SUBMIT] = f"{settings.submit(submit):.0f}"
    return " ".join(fields)


def _derive_irmasim(source: Path, dest: Path, settings: TraceSettings) -> Path:
    """An IRMaSim workload JSON with ``settings`` applied to each job's ``ntasks`` and
    ``subtime`` (checked first by the workload reader, so a bad record is named as it is
    everywhere); one job per line, as IRMaSim's own files."""
    import json

    from hetsched.documents import read_structured
    from hetsched.workload.irmasim import load_irmasim_workload

    load_irmasim_workload(source)
    doc = read_structured(source)
    for job in doc["jobs"]:
        if "ntasks" in job:
            job["ntasks"] = int(settings.procs(job["ntasks"]))
        submit = settings.submit(job["subtime"])
        job["subtime"] = int(submit) if float(submit).is_integer() else submit
    rows = ",\n".join("    " + json.dumps(job) for job in doc["jobs"])
    rest = {key: value for key, value in doc.items() if key != "jobs"}
    head = json.dumps(rest)[1:-1] + ",\n" if rest else ""
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text("{" + head + '"jobs": [\n' + rows + "\n]}\n", encoding="utf-8")
    return dest


def _number(text: str, line: int, index: int, source: Path) -> float:
    value = parse_float(text)
    if value is None:
        raise InputError(source, f"not a number: {text!r}", record=f"line {line}",
                         field=FIELD_NAMES[index])
    return value
