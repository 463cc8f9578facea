"""Reading input files as text and as JSON/YAML documents: missing or unreadable files,
encodings, byte-order marks, malformed or repeated keys and deep nesting all become one-line
:class:`~hetsched.errors.InputError` messages. PyYAML is imported for YAML files only."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from hetsched.errors import InputError
from hetsched.files import read_text
from hetsched.parsing import quote

#: Suffixes read as structured documents (JSON or YAML).
JSON_SUFFIXES = (".json",)
YAML_SUFFIXES = (".yaml", ".yml")
STRUCTURED_SUFFIXES = JSON_SUFFIXES + YAML_SUFFIXES


def file_stem(path: str | Path) -> str:
    """The file name without its format suffixes (``a.swf.gz`` -> ``a``)."""
    name = Path(path).name
    for suffix in (".gz", ".swf", *STRUCTURED_SUFFIXES):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name or Path(path).name


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


def read_document(path: Path) -> Any:
    """What the loaders detect a format from: the parsed document of a JSON/YAML file, the root
    element of an XML file, ``None`` for other files (which their reader reads itself)."""
    suffix = path.suffix.lower()
    if suffix in STRUCTURED_SUFFIXES:
        return read_structured(path)
    if suffix == ".xml":
        from hetsched.xmldoc import read_xml  # only XML inputs pay for ElementTree

        return read_xml(path)
    return None


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
        record, field = _refused_token(text)
        raise InputError(path, f"malformed JSON: {exc}", record, field) from None
    except RecursionError:
        raise InputError(path, NESTED_TOO_DEEPLY) from None


#: A JSON string (skipped), or a number Python's json parses and then refuses: NaN,
#: Infinity, an integer beyond Python's 4300 digits.
_JSON_REFUSED = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN|(?<![0-9.])-?[0-9]{4301,}'
                           r'(?![0-9.eE]))')
#: The key of the value that ends a text (``"cores": ``).
_JSON_KEY_BEFORE = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:\s*$')


def _refused_token(text: str) -> tuple[str | None, str | None]:
    """Where the first number json refuses is (``line L, column C``) and its key, if any
    (``None`` for a repeated key, which json reports without a position)."""
    for match in _JSON_REFUSED.finditer(text):
        if match.group(1) is not None:
            start = match.start(1)
            line, column = text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)
            key = _JSON_KEY_BEFORE.search(text, max(0, start - 1000), start)
            return f"line {line}, column {column}", key and key.group(1)
    return None, None


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


#: PyYAML's tag of merge keys (``<<: *anchor``), which may repeat.
_YAML_MERGE = "tag:yaml.org,2002:merge"


@cache
def _yaml_loader() -> Any:
    """A SafeLoader whose numbers are YAML 1.2's: plain decimals, ``1e9`` and ``3.0e11`` as
    floats (PyYAML's 1.1 rules need a sign and a dot, and would silently give strings), and
    no 1.1 readings that silently change a value (``010`` as octal 8, ``1:30`` as 90,
    ``0b11``, ``0x10``, ``1_000``: kept as text, so the schema refuses them); booleans are
    only ``true`` and ``false`` (``yes``, ``no``, ``on``, ``off`` are text: a node type named
    ``no`` is not ``False``); a key repeated in one mapping is refused (PyYAML keeps the last
    value, silently). Built on first use."""
    import yaml

    class Loader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            seen: set[str] = set()
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _YAML_MERGE:
                    if key_node.value in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"key '{key_node.value}' appears twice in one mapping",
                            key_node.start_mark)
                    seen.add(key_node.value)
            return super().construct_mapping(node, deep)

    redefined = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool")
    Loader.yaml_implicit_resolvers = {
        key: [(tag, regexp) for tag, regexp in resolvers if tag not in redefined]
        for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    Loader.add_implicit_resolver("tag:yaml.org,2002:bool",
                                 re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                 list("tTfF"))
    Loader.add_implicit_resolver("tag:yaml.org,2002:int", _YAML_DECIMAL,
                                 list("-+0123456789"))
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                   r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
        list("-+.0123456789"))
    Loader.add_constructor("tag:yaml.org,2002:int", _yaml_decimal)
    return Loader


_YAML_DECIMAL = re.compile(r"^[-+]?[0-9]+\Z")


def _yaml_decimal(loader: Any, node: Any) -> int:
    """An integer in plain decimal (``010`` is 10, not YAML 1.1's octal 8)."""
    text = loader.construct_scalar(node)
    if not _YAML_DECIMAL.fullmatch(text):
        import yaml

        raise yaml.constructor.ConstructorError(None, None, f"not a plain whole number: "
                                                f"{quote(text)}", node.start_mark)
    return int(text)


def parse_yaml(text: str, path: Path) -> Any:
    import yaml

    try:
        return yaml.load(text, Loader=_yaml_loader())  # noqa: S506 (a SafeLoader subclass)
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


