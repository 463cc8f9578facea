"""Self-contained HTML pages from the jinja2 templates in ``templates/`` (package data):
figures embedded as ``data:`` URIs (no file beside the page), text escaped by the templates
(autoescape), a missing value an error rather than a blank (``StrictUndefined``). Nothing
here knows about runs or stores.

jinja2 comes with the ``plot`` extra and is imported on first use, so that the command line
starts without it."""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from hetsched.errors import ConfigError

MIME = {"png": "image/png", "svg": "image/svg+xml"}


@dataclass(frozen=True)
class Table:
    """What the ``table`` macro draws: the header's names, and rows of ``(content, CSS
    class)`` cells whose content is plain text (escaped by the template) or a macro's markup."""

    header: Sequence[str]
    rows: Sequence[Sequence[tuple[Any, str]]]


@cache
def environment() -> Any:
    """The one jinja2 environment of the templates; a one-line error when jinja2 is not
    installed."""
    try:
        import jinja2
    except ImportError:
        raise ConfigError("the HTML report needs jinja2: pip install 'hetsched[plot]'") from None
    env = jinja2.Environment(loader=jinja2.PackageLoader("hetsched.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["percent"] = percent
    return env


def render(template: str, **context: Any) -> str:
    """The page ``template`` (a file of ``templates/``) filled with ``context``."""
    return environment().get_template(template).render(**context)


def macro(name: str) -> Any:
    """The macro ``name`` of ``templates/macros.html.j2``, callable from Python: its result
    is markup that the templates do not escape again."""
    return getattr(environment().get_template("macros.html.j2").module, name)


def data_uri(data: bytes, fmt: str) -> str:
    """``data`` (PNG or SVG bytes) as a base64 ``data:`` URI (no character of it needs
    escaping in an attribute)."""
    return f"data:{MIME[fmt]};base64,{base64.b64encode(data).decode('ascii')}"


def percent(change: float | None) -> str:
    """A relative change as ``+3.2 %``; ``—`` when missing."""
    return "—" if change is None or math.isnan(change) else f"{change * 100:+.1f} %"
