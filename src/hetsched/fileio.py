"""Validation of parsed input documents with pydantic schemas: a validation problem becomes a
one-line :class:`~hetsched.errors.InputError` (file, record, field, problem), with "did you
mean" for a likely typo of a key. Reading the documents is :mod:`hetsched.documents`."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from hetsched.documents import NESTED_TOO_DEEPLY, type_name
from hetsched.errors import InputError
from hetsched.parsing import quote

M = TypeVar("M", bound=BaseModel)


#: Every schema's validator is built when it first validates, not when its module is imported:
#: a run pays only for the formats it reads (start-up time).
_SCHEMA = ConfigDict(strict=True, allow_inf_nan=False, frozen=True, defer_build=True)


class StrictModel(BaseModel):
    """Schema of our own formats: no unknown keys, no type coercion, finite numbers only."""

    model_config = ConfigDict(extra="forbid", **_SCHEMA)


class ForeignModel(BaseModel):
    """Schema of another tool's format: its extra keys are ignored, known ones checked strictly."""

    model_config = ConfigDict(extra="ignore", **_SCHEMA)


#: Names the record at a list position or mapping key: ``job 'j1'``, ``jobs[3]``.
RecordNamer = Callable[[int | str], str]


def field_name(loc: tuple[int | str, ...]) -> str:
    """``('clusters', 0, 'nodes', 1, 'type')`` -> ``clusters[0].nodes[1].type``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def record_name(item: Any, index: int | str, key: str, label: str, collection: str) -> str:
    """``label 'value'`` from the item's ``key`` (e.g. ``job 'j1'``), else ``collection[index]``."""
    value = item.get(key) if isinstance(item, Mapping) else None
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return f"{label} '{value}'"
    return f"{collection}[{index}]"


def record_namer(items: Any, key: str, label: str, collection: str) -> RecordNamer:
    """Names the elements of the list ``items`` with :func:`record_name`."""
    def name(index: int | str) -> str:
        item = None
        if isinstance(items, list) and isinstance(index, int) and index < len(items):
            item = items[index]
        return record_name(item, index, key, label, collection)
    return name


def _identifier(value: Any) -> Any:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


#: An id given as a string or an integer, kept as a non-empty string.
Identifier = Annotated[str, BeforeValidator(_identifier), Field(min_length=1)]


def validate(model: type[M], data: Any, path: Path, record: str | None = None,
             records: Mapping[str, RecordNamer] | None = None) -> M:
    """Validate ``data`` with a pydantic ``model``; the first error becomes an InputError.

    ``records`` maps a top-level list field (e.g. ``jobs``) to a function naming its elements,
    so an error at ``('jobs', 3, 'ntasks')`` reads ``job 'j3', field 'ntasks'``.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, path, record, records, model) from None
    except RecursionError:
        raise InputError(path, NESTED_TOO_DEEPLY, record=record) from None


def validation_error(exc: ValidationError, path: Path, record: str | None = None,
                     records: Mapping[str, RecordNamer] | None = None,
                     model: type[BaseModel] | None = None) -> InputError:
    """The first error of ``exc`` as an InputError. A key that looks like a typo of a known
    one is reported as itself, with "did you mean" (``model`` gives the known keys)."""
    errors = exc.errors(include_url=False)
    loc, problem = _explain(errors, model)
    if records and len(loc) >= 2 and loc[0] in records:
        record = records[loc[0]](loc[1])
        loc = loc[2:]
    return InputError(path, problem, record=record, field=field_name(loc) or None)


def _explain(errors: list[Any], model: type[BaseModel] | None) -> tuple[tuple[Any, ...], str]:
    """Where the first error is and what it says, with a suggestion when a key looks like a
    typo: a missing key next to a close unknown one reports the unknown one (or, in formats
    that ignore unknown keys, names it); an unknown key gets its closest known field; several
    keys missing from one place are named together."""
    error = errors[0]
    loc = tuple(error["loc"])
    problem = _problem(error)
    known = _fields_at(model, loc[:-1]) if model is not None else []
    if error["type"] == "missing":
        typo = _close_key(loc, error.get("input"), known)
        if typo is not None and any(tuple(e["loc"]) == typo for e in errors):
            return typo, f"unknown field; did you mean '{loc[-1]}'?"
        if typo is not None:
            return loc, f"{problem}; the input has '{typo[-1]}': did you mean '{loc[-1]}'?"
        unknown = [repr(e["loc"][-1]) for e in errors
                   if e["type"] == "extra_forbidden" and tuple(e["loc"][:-1]) == loc[:-1]]
        missing = [repr(e["loc"][-1]) for e in errors
                   if e["type"] == "missing" and tuple(e["loc"][:-1]) == loc[:-1]]
        if len(missing) > 1:  # all at once, rather than one per attempt
            loc, problem = loc[:-1], f"required fields are missing: {', '.join(missing)}"
        return loc, problem + (f" (unknown here: {', '.join(unknown)})" if unknown else "")
    if error["type"] == "extra_forbidden":
        match = _close_match(loc[-1], known)
        if match:
            return loc, f"{problem}; did you mean '{match}'?"
    return loc, problem


def _close_key(loc: tuple[Any, ...], given: Any, known: list[str]) -> tuple[Any, ...] | None:
    """The location of a key of ``given`` (the input holding the missing ``loc``), other than
    the ``known`` fields, that is a close match of the missing key: probably a typo of it."""
    keys = ([k for k in given if isinstance(k, str) and k not in known]
            if isinstance(given, Mapping) else [])
    match = _close_match(str(loc[-1]), keys)
    return (*loc[:-1], match) if match else None


def _close_match(word: object, candidates: list[str]) -> str | None:
    matches = difflib.get_close_matches(str(word), candidates, n=1, cutoff=0.75)
    return matches[0] if matches and matches[0] != word else None


def _fields_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The field names of the (nested) model found at ``loc`` of ``model``'s input."""
    annotation: Any = model
    for part in loc:
        annotation = _unwrap(annotation)
        if isinstance(part, int) and get_origin(annotation) is list:
            annotation = get_args(annotation)[0]
        elif isinstance(annotation, type) and issubclass(annotation, BaseModel) \
                and part in annotation.model_fields:
            annotation = annotation.model_fields[str(part)].annotation
        else:
            return []
    annotation = _unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return list(annotation.model_fields)
    return []


def _unwrap(annotation: Any) -> Any:
    """``X | None`` and ``Annotated[X, ...]`` -> ``X``."""
    while get_origin(annotation) in (Union, UnionType, Annotated):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    return annotation


def _problem(error: Mapping[str, Any]) -> str:
    msg = str(error["msg"])
    kind = error.get("type", "")
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field (not allowed here)"
    value = error.get("input")
    if kind == "value_error":  # a validator's own message, without pydantic's "Value error, "
        return str(error.get("ctx", {}).get("error", msg))
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"expected an object (key: value mapping), got {type_name(value)}"
    if kind == "list_type":
        return f"expected a list, got {type_name(value)}"
    if kind in _BOUNDS:
        phrase, key = _BOUNDS[kind]
        msg = f"input should be {phrase} {_number(error['ctx'][key])}"
    if isinstance(value, (int, float, str, bool)):
        msg += f" (got {_shown(value)})"
    return msg[0].lower() + msg[1:] if msg else msg


#: pydantic's bound errors: their wording, and the key of the bound in the error's context.
_BOUNDS = {"greater_than": ("greater than", "gt"),
           "greater_than_equal": ("greater than or equal to", "ge"),
           "less_than": ("less than", "lt"), "less_than_equal": ("less than or equal to", "le")}


def _number(value: float) -> str:
    """A bound as a message shows it: ``0``, ``10000000000``, ``1e+30``, ``0.001``."""
    if float(value).is_integer() and abs(value) < 1e16:
        return str(int(value))
    return f"{value:g}"


def _shown(value: int | float | str | bool) -> str:
    """A value as an error message quotes it: long strings and huge integers shortened."""
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return f"a {len(str(abs(value)))}-digit integer"
    return str(value)


def check_unique(names: list[str], path: Path, label: str, field: str) -> None:
    """Raise on the first repeated name, naming it as the record (``job 'j1'``)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(path, f"duplicate {label} {field}", record=f"{label} '{name}'",
                             field=field)
        seen.add(name)
