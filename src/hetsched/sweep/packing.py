"""Inputs as tasks carry them: pickled once by the sweep's process, unpickled once per worker
process (a platform of a thousand nodes takes milliseconds each way, a task a fraction of a
second, so this is most of a task's hand-off)."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any


@dataclass(frozen=True)
class Packed:
    """An input pickled once by the sweep's process and unpickled once per worker process:
    equal (and hashed) by ``key`` alone, so a worker that already holds it skips ``data``."""

    key: str
    data: bytes = field(compare=False, repr=False)

    @classmethod
    def of(cls, key: str, value: Any) -> Packed:
        return cls(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def unpack(self) -> Any:
        return _unpacked(self)


@lru_cache(maxsize=8)
def _unpacked(packed: Packed) -> Any:
    return pickle.loads(packed.data)
