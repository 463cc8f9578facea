"""Checks of option values shared by the engine, the loaders and the CLI (one line each)."""

from __future__ import annotations

import math
import numbers

from hetsched.errors import ConfigError


def check_seed(seed: object) -> int:
    """A seed is a whole number >= 0 (what ``numpy.random.default_rng`` accepts)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ConfigError(f"seed must be a whole number >= 0, got {seed!r}")
    return int(seed)


def check_horizon(horizon: object) -> float | None:
    """A horizon is ``None`` (run to the end) or a finite time >= 0 in seconds."""
    if horizon is None:
        return None
    return check_number("horizon", horizon, minimum=0.0)


def check_number(name: str, value: object, minimum: float | None = None,
                 positive: bool = False, maximum: float | None = None) -> float:
    """``value`` as a finite float, ``> 0`` if ``positive``, within ``minimum`` and
    ``maximum`` if given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(float(value)):
        raise ConfigError(f"{name} must be a finite number, got {value!r}")
    number = float(value)
    if positive and not number > 0:
        raise ConfigError(f"{name} must be > 0, got {value!r}")
    if minimum is not None and number < minimum:
        raise ConfigError(f"{name} must be >= {minimum:g}, got {value!r}")
    if maximum is not None and number > maximum:
        raise ConfigError(f"{name} must be at most {maximum:g}, got {value!r}")
    return number


#: The engine's walltime rules: ``auto`` is ``kill`` for Batsim workloads, ``ignore`` otherwise.
WALLTIME_RULES = ("auto", "kill", "ignore")


def check_walltime(rule: object) -> str:
    if rule not in WALLTIME_RULES:
        raise ConfigError(f"walltime must be one of {', '.join(WALLTIME_RULES)}, got {rule!r}")
    return str(rule)
