"""An SWF file's text as numbers in a few passes of numpy, for the plain files that traces and
generators write: the reader's fast path (:mod:`hetsched.workload.swf`).

Plain means: no line breaks but ``\\n`` (and ``\\r\\n``), comment lines that start with ``;``
after spaces or tabs, and data lines of whole numbers (ASCII digits, a leading ``-``) apart
by spaces or tabs, each line with the same number of fields. Anything else (a decimal point,
an exponent, a bad field, a wrong count, other whitespace) returns ``None``, and the reader
parses the file line by line, which names the bad line and field. On a plain file both give
the same numbers: a whole number of at most 18 digits is exact in 64-bit integers, and its
conversion to float rounds as reading its text as a float does.
"""

from __future__ import annotations

import numpy as np

#: Line breaks ``str.splitlines`` knows besides ``\n`` (the line-by-line path counts them).
_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
#: The characters of a plain body (its data lines and line breaks).
_PLAIN = b"0123456789- \t\n"
#: Most digits of a field read here (10**18 < 2**63).
_DIGITS = 18
#: Bytes of text read at once, so that the per-byte arrays stay small.
_CHUNK = 1 << 22


def plain_table(text: str, width: int) -> tuple[list[str], np.ndarray, np.ndarray] | None:
    """The comment lines of ``text`` (leading spaces and tabs dropped), the 1-based line
    numbers of its data lines and their fields (n × ``width`` floats); ``None`` if the text is
    not plain."""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if any(c in text for c in _OTHER_BREAKS):
        return None
    found = _without_comments(text)
    if found is None:
        return None
    comments, body = found
    try:
        data = body.encode("ascii")
    except UnicodeEncodeError:
        return None
    del body, text
    if data.translate(None, _PLAIN):
        return None
    if not data.endswith(b"\n"):
        data += b"\n"
    parts = [_whole_numbers(data[a:b]) for a, b in _chunks(data)]
    if any(part is None for part in parts):
        return None
    counts = np.concatenate([c for c, _ in parts] or [np.empty(0, np.int32)])
    values = np.concatenate([v for _, v in parts] or [np.empty(0)])
    lines = np.flatnonzero(counts)
    if np.any(counts[lines] != width):
        return None
    return comments, lines + 1, values.reshape(lines.size, width)


def _without_comments(text: str) -> tuple[list[str], str] | None:
    """The comment lines, and the text with each of them emptied (its line break kept);
    ``None`` if a ``;`` is not the first character of its line but spaces and tabs."""
    comments, pieces, at = [], [], 0
    semicolon = text.find(";")
    while semicolon >= 0:
        begin = text.rfind("\n", 0, semicolon) + 1
        if text[begin:semicolon].strip(" \t"):
            return None
        end = text.find("\n", semicolon)
        end = len(text) if end < 0 else end
        comments.append(text[begin:end].lstrip(" \t"))
        pieces.append(text[at:begin])
        at = end
        semicolon = text.find(";", end)
    if not comments:
        return comments, text
    pieces.append(text[at:])
    return comments, "".join(pieces)


def _chunks(data: bytes) -> list[tuple[int, int]]:
    """``data`` (ending with a line break) cut after line breaks about every ``_CHUNK``
    bytes."""
    bounds, begin = [], 0
    while begin < len(data):
        end = data.find(b"\n", begin + _CHUNK) + 1 or len(data)
        bounds.append((begin, end))
        begin = end
    return bounds


def _whole_numbers(data: bytes) -> tuple[np.ndarray, np.ndarray] | None:
    """Per line of ``data`` (plain characters, ending with a line break) its number of
    fields, and every field's value; ``None`` if a field is not a whole number of at most
    ``_DIGITS`` digits with an optional leading ``-``."""
    chars = np.frombuffer(data, np.uint8)
    space = chars <= ord(" ")  # space, tab or line break: the only plain ones below "0"
    first = ~space
    first[1:] &= space[:-1]
    last = ~space
    last[:-1] &= space[1:]
    minus = chars == ord("-")
    if np.any(minus & (last | ~first)):  # a "-" alone, or not opening its field
        return None
    starts, ends = np.flatnonzero(first), np.flatnonzero(last)
    negative = minus[starts]
    values = _digits_value(chars, starts + negative, ends + 1)
    if values is None:
        return None
    values[negative] *= -1
    breaks = np.flatnonzero(chars == ord("\n"))
    counts = np.add.reduceat(first, np.concatenate(([0], breaks[:-1] + 1)), dtype=np.int32)
    return counts, values.astype(float)


def _digits_value(chars: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The value of each run of digits ``chars[starts[i]:ends[i]]``, by Horner's rule one
    digit place at a time over the fields that long (sorted by length: each pass a slice);
    ``None`` if one is longer than ``_DIGITS``."""
    length = ends - starts
    longest = int(length.max(initial=0))
    if longest > _DIGITS:
        return None
    order = np.argsort(length.astype(np.uint8), kind="stable")  # bytes: a radix sort
    begin = starts[order]
    shorter = np.cumsum(np.bincount(length, minlength=longest + 1))  # fields of length <= k
    value = np.zeros(begin.size, np.int64)
    for place in range(longest):
        at = int(shorter[place])  # fields longer than this place
        value[at:] = value[at:] * 10 + (chars[begin[at:] + place] - ord("0"))
    out = np.empty_like(value)
    out[order] = value
    return out
