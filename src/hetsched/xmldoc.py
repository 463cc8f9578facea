"""Reading an XML input file safely: malformed documents, unknown encodings, undecodable
bytes and deep nesting become one-line :class:`~hetsched.errors.InputError` messages.

ElementTree resolves no external entity and expat refuses entity expansion attacks; blank
lines before the XML declaration (SimGrid's own parser accepts them, and some of Batsim's
platforms have one) are dropped, line numbers in messages still counting them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from hetsched.errors import InputError
from hetsched.files import read_bytes
from hetsched.parsing import parse_float, parse_int, quote


def read_xml(path: Path) -> ET.Element:
    """The root element of the XML file ``path``."""
    data = read_bytes(path)
    body = data.lstrip(b" \t\r\n")
    skipped = data[: len(data) - len(body)].count(b"\n")
    try:
        return ET.fromstring(body)
    except ET.ParseError as err:
        line = err.position[0] + skipped if err.position else None
        raise InputError(path, f"malformed XML: {err.msg}",
                         record=f"line {line}" if line else None) from None
    except LookupError as err:  # the declaration names an encoding Python does not know
        raise InputError(path, f"malformed XML: {err}", record="line 1",
                         field="encoding") from None
    except ValueError as err:  # undecodable bytes
        raise InputError(path, f"malformed XML: {err}") from None
    except RecursionError:
        raise InputError(path, "malformed XML: nested too deeply") from None


def attribute(element: ET.Element, name: str, path: Path, record: str) -> str:
    """The required attribute ``name`` of ``element``."""
    text = element.get(name)
    if text is None:
        raise InputError(path, "missing attribute", record=record, field=name)
    return text


def integer(text: str, path: Path, record: str, field: str, bounds: tuple[int, int]) -> int:
    """``text`` (the value of ``field``) as an integer within ``bounds`` (both included)."""
    value = parse_int(text)
    if value is None and parse_float(text) is None:
        raise InputError(path, f"not an integer: {quote(text)}", record=record, field=field)
    low, high = bounds
    if value is None or not low <= value <= high:
        raise InputError(path, f"must be an integer from {low} to {high}, got {quote(text)}",
                         record=record, field=field)
    return value


def int_attribute(element: ET.Element, name: str, path: Path, record: str,
                  bounds: tuple[int, int]) -> int:
    """The required integer attribute ``name`` of ``element``, within ``bounds`` (both
    included)."""
    return integer(attribute(element, name, path, record), path, record, name, bounds)
