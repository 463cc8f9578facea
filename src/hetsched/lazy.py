"""Objects named ``"package.module:attribute"``, imported when first used, so that start-up
imports only what a command needs (scheduler factories, format readers)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import Any


@cache
def resolve(target: str) -> Any:
    """The object at ``"package.module:attribute"``."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def deferred(target: str) -> Callable[..., Any]:
    """A function that calls the function at ``target``, importing it on the first call."""
    def call(*args: Any, **kwargs: Any) -> Any:
        return resolve(target)(*args, **kwargs)

    call.__qualname__ = call.__name__ = target
    return call
