"""Seeded ETC matrix generators.

Range based (Braun et al., JPDC 61, 2001): a task baseline ``b[i] ~ U[1, R_task)``, then
``etc[i, j] = b[i] · x[i, j]`` with ``x[i, j] ~ U[1, R_mach)``. Braun's ranges: task
heterogeneity high ``R_task = 3000`` / low ``100``; machine heterogeneity high
``R_mach = 1000`` / low ``10``.

Coefficient-of-variation based (Ali et al., Tamkang J. Sci. Eng. 3(3), 2000): with
``a_task = 1 / V_task²``, ``a_mach = 1 / V_mach²``: ``q[i] ~ Gamma(shape a_task,
scale mu_task / a_task)`` (mean ``mu_task``, coefficient of variation ``V_task``), then
``etc[i, j] ~ Gamma(shape a_mach, scale q[i] / a_mach)`` (mean ``q[i]``, CV ``V_mach``).

Consistency (both generators; Braun's definitions):
``consistent``: every row sorted increasingly, so machine ``j`` is faster than ``j + 1`` for
every task; ``inconsistent``: as generated; ``semi``: in every row the values of the even
columns (0, 2, 4, ...) are sorted increasingly in place, the odd columns are left as
generated (the even columns form a consistent sub-matrix).
"""

from __future__ import annotations

import numpy as np

from hetsched.errors import ConfigError

#: Braun et al.'s heterogeneity ranges.
TASK_RANGES = {"hi": 3000.0, "lo": 100.0}
MACHINE_RANGES = {"hi": 1000.0, "lo": 10.0}
CONSISTENCIES = ("consistent", "inconsistent", "semi")


def apply_consistency(etc: np.ndarray, consistency: str) -> np.ndarray:
    """Return a copy of ``etc`` made consistent, semi-consistent or left inconsistent."""
    out = np.array(etc, dtype=np.float64, copy=True)
    if consistency == "consistent":
        out.sort(axis=1)
    elif consistency == "semi":
        out[:, 0::2] = np.sort(out[:, 0::2], axis=1)
    elif consistency != "inconsistent":
        raise ConfigError(f"unknown consistency {consistency!r} "
                          f"(one of {', '.join(CONSISTENCIES)})")
    return out


def _check(tasks: int, machines: int) -> None:
    if tasks < 0 or machines < 1:
        raise ConfigError(f"need tasks >= 0 and machines >= 1, got {tasks} × {machines}")


def range_based(tasks: int, machines: int, rng: np.random.Generator,
                task_heterogeneity: str | float = "hi",
                machine_heterogeneity: str | float = "hi",
                consistency: str = "inconsistent") -> np.ndarray:
    """Braun's range-based ETC matrix (``"hi"``/``"lo"`` or an explicit range > 1)."""
    _check(tasks, machines)
    r_task = _range(task_heterogeneity, TASK_RANGES, "task")
    r_mach = _range(machine_heterogeneity, MACHINE_RANGES, "machine")
    base = rng.uniform(1.0, r_task, size=tasks)
    etc = base[:, None] * rng.uniform(1.0, r_mach, size=(tasks, machines))
    return apply_consistency(etc, consistency)


def _range(value: str | float, named: dict[str, float], what: str) -> float:
    if isinstance(value, str):
        if value not in named:
            raise ConfigError(f"{what} heterogeneity must be 'hi', 'lo' or a number > 1, "
                              f"got {value!r}")
        return named[value]
    if not value > 1:
        raise ConfigError(f"{what} heterogeneity range must be > 1, got {value}")
    return float(value)


def cvb(tasks: int, machines: int, rng: np.random.Generator, v_task: float = 0.6,
        v_mach: float = 0.6, mu_task: float = 1000.0,
        consistency: str = "inconsistent") -> np.ndarray:
    """Ali et al.'s coefficient-of-variation-based ETC matrix (gamma distributions)."""
    _check(tasks, machines)
    if not (v_task > 0 and v_mach > 0 and mu_task > 0):
        raise ConfigError("cvb: v_task, v_mach and mu_task must be positive")
    a_task = 1.0 / v_task ** 2
    a_mach = 1.0 / v_mach ** 2
    q = rng.gamma(a_task, mu_task / a_task, size=tasks)
    etc = rng.gamma(a_mach, (q / a_mach)[:, None], size=(tasks, machines))
    return apply_consistency(etc, consistency)


def braun_instance(kind: str, rng: np.random.Generator, tasks: int = 512,
                   machines: int = 16) -> np.ndarray:
    """A matrix of Braun's class named like the files: ``u_c_hihi``, ``u_s_lohi``, ...
    (``u`` uniform, ``c``/``i``/``s`` consistency, task then machine heterogeneity)."""
    parts = kind.split("_")
    codes = {"c": "consistent", "i": "inconsistent", "s": "semi"}
    if (len(parts) != 3 or parts[0] != "u" or parts[1] not in codes
            or len(parts[2]) != 4 or parts[2][:2] not in TASK_RANGES
            or parts[2][2:] not in MACHINE_RANGES):
        raise ConfigError(f"unknown Braun class {kind!r} (like u_c_hihi, u_i_lolo, u_s_hilo)")
    return range_based(tasks, machines, rng, parts[2][:2], parts[2][2:], codes[parts[1]])
