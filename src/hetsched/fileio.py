"""Shared helpers of the file loaders: reading JSON/YAML and turning validation errors into
one-line :class:`~hetsched.errors.InputError` messages (file, record, field, problem)."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from hetsched.errors import InputError

M = TypeVar("M", bound=BaseModel)


class StrictModel(BaseModel):
    """Schema of our own formats: no unknown keys, no type coercion, finite numbers only."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class ForeignModel(BaseModel):
    """Schema of another tool's format: its extra keys are ignored, known ones checked strictly."""

    model_config = ConfigDict(extra="ignore", strict=True, allow_inf_nan=False, frozen=True)


#: Suffixes read as structured documents (JSON or YAML).
JSON_SUFFIXES = (".json",)
YAML_SUFFIXES = (".yaml", ".yml")
STRUCTURED_SUFFIXES = JSON_SUFFIXES + YAML_SUFFIXES

#: A number in a text format: ASCII digits with an optional sign, point and exponent. (Python's
#: ``float``/``int`` also take ``1_000``, ``' 12'`` and other scripts' digits such as ``'١'``.)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)

#: Names the record at a list position or mapping key: ``job 'j1'``, ``jobs[3]``.
RecordNamer = Callable[[int | str], str]


def file_stem(path: str | Path) -> str:
    """The file name without its format suffixes (``a.swf.gz`` -> ``a``)."""
    name = Path(path).name
    for suffix in (".gz", ".swf", *STRUCTURED_SUFFIXES):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name or Path(path).name


def parse_float(text: str) -> float | None:
    """``text`` as a float, ``None`` if it is not a plain decimal number. ``nan`` and ``inf``
    are returned as such (and overflow such as ``1e400`` gives ``inf``): callers reject
    non-finite values with their own message."""
    if _DECIMAL.fullmatch(text) or _NON_FINITE.fullmatch(text):
        return float(text)
    return None


def parse_int(text: str) -> int | None:
    """``text`` as an int, ``None`` if it is not a plain integer or has more than 30 digits
    (far out of any range hetsched accepts; Python refuses to convert beyond 4300)."""
    return int(text) if _INTEGER.fullmatch(text) and len(text) <= 30 else None


def check_exists(path: Path) -> None:
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory, not a file")


def read_text(path: Path) -> str:
    """The file's text (UTF-8, a leading byte-order mark dropped), with missing/unreadable
    files reported as InputError."""
    check_exists(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    return decode_text(data, path)


def decode_text(data: bytes, path: Path) -> str:
    """UTF-8 bytes as text; a byte-order mark at the start (some editors write one) is
    dropped, so it cannot hide in the first record."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(path, f"not UTF-8 text (byte {exc.start})",
                         record=f"line {line}") from None


def read_structured(path: str | Path) -> Any:
    """Parse a JSON (``.json``) or YAML (``.yaml``/``.yml``) file."""
    path = Path(path)
    text = read_text(path)
    if path.suffix.lower() not in YAML_SUFFIXES:
        data = parse_json(text, path)
    elif (data := parse_yaml(text, path)) is None:
        raise InputError(path, "no YAML document: the file is empty, or holds only comments "
                               "or null")
    if _SURROGATE_ESCAPE.search(text):  # the only way a decoded file gets a lone surrogate
        _check_encodable(data, path)
    return data


#: A JSON/YAML escape of a UTF-16 surrogate (``\ud800``, ``\U0000DC00``).
_SURROGATE_ESCAPE = re.compile(r"\\[uU]0*[dD][89a-fA-F][0-9a-fA-F]{2}")


def _check_encodable(data: Any, path: Path) -> None:
    """Refuse strings that cannot be written back as UTF-8: lone surrogates, which the
    escapes ``\\ud800`` (JSON, YAML) can make; an id holding one would break every output.
    Each list and mapping is visited once, so YAML aliases cannot make this walk explode."""
    seen: set[int] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                bad = exc.object[exc.start:exc.end].encode("unicode_escape").decode()
                raise InputError(path, f"a string holds {bad}, a lone surrogate (not a "
                                       "character): not valid Unicode text") from None
        elif isinstance(item, (list, dict)) and id(item) not in seen:
            seen.add(id(item))
            stack.extend(item)
            if isinstance(item, dict):
                stack.extend(item.values())


def parse_json(text: str, path: Path) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"malformed JSON: {exc.msg}",
                         record=f"line {exc.lineno}, column {exc.colno}") from None
    except ValueError as exc:  # NaN / Infinity, integers of > 4300 digits, repeated keys
        raise InputError(path, f"malformed JSON: {exc}") from None
    except RecursionError:
        raise InputError(path, NESTED_TOO_DEEPLY) from None


#: The problem of a JSON/YAML document nested deeper than Python's recursion limit.
NESTED_TOO_DEEPLY = "nested too deeply (lists or objects inside each other)"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"'{name}' is not a valid JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a repeated key (json keeps the last value, silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key '{key}' appears twice in one object")
        out[key] = value
    return out


class _YamlLoader(yaml.SafeLoader):
    """SafeLoader that also reads ``1e9`` and ``3.0e11`` as floats (YAML 1.2; PyYAML's 1.1
    rules need a sign and a dot, and would silently give strings), and refuses a key repeated
    in one mapping (PyYAML keeps the last value, silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[str] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _YAML_MERGE:
                if key_node.value in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key '{key_node.value}' appears twice in one mapping",
                        key_node.start_mark)
                seen.add(key_node.value)
        return super().construct_mapping(node, deep)


_YAML_MERGE = "tag:yaml.org,2002:merge"


_YamlLoader.yaml_implicit_resolvers = {
    key: list(resolvers) for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_YamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"))


def parse_yaml(text: str, path: Path) -> Any:
    try:
        return yaml.load(text, Loader=_YamlLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        record = f"line {mark.line + 1}, column {mark.column + 1}" if mark else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(path, f"malformed YAML: {problem}", record=record) from None
    except RecursionError:
        raise InputError(path, NESTED_TOO_DEEPLY) from None
    except (ValueError, OverflowError) as exc:  # e.g. a timestamp 2024-13-01
        raise InputError(path, f"malformed YAML: {exc}") from None


def require_mapping(data: Any, path: Path, what: str = "the top level") -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise InputError(path, f"expected an object (key: value mapping) at {what}, "
                               f"got {type_name(data)}")
    return data


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "nothing",
            bool: "a boolean", int: "a number", float: "a number"}.get(type(value), "a value")


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
    that ignore unknown keys, names it); an unknown key gets its closest known field."""
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


def quote(text: str) -> str:
    """``text`` quoted as an error message shows it, long values shortened."""
    shown = repr(text)
    return shown[:37] + "...'" if len(shown) > 40 else shown


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
