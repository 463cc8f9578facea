"""The pieces of a self-contained HTML page: figures embedded as ``data:`` URIs (no file
beside the page), tables of numbers, escaped text. Nothing here knows about runs or stores."""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Iterable, Sequence

MIME = {"png": "image/png", "svg": "image/svg+xml"}

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: 0.6em 0; font-variant-numeric: tabular-nums; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #e3e3e3; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
td.best { font-weight: bold; } .better { color: #17672d; } .worse { color: #a31515; }
.note { color: #555; font-size: 0.92em; }
img { max-width: 100%; display: block; margin: 0.6em 0; }
code { background: #f3f3f3; padding: 0 0.25em; }
"""


def escape(text: object) -> str:
    return html.escape(str(text))


def image(data: bytes, fmt: str, alt: str) -> str:
    """An ``<img>`` holding ``data`` (PNG or SVG bytes) as a base64 ``data:`` URI."""
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:{MIME[fmt]};base64,{encoded}">'


def table(header: Sequence[str], rows: Iterable[Sequence[tuple[str, str]]]) -> str:
    """A table; each cell is ``(html, css class)`` (the html already escaped or built)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="{cls}">{cell}</td>' if cls else
                                    f"<td>{cell}</td>" for cell, cls in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def percent(change: float) -> str:
    """A relative change as ``+3.2 %``; ``—`` when missing."""
    return "—" if change is None or math.isnan(change) else f"{change * 100:+.1f} %"


def page(title: str, body: Sequence[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")
