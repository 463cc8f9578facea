"""``check_scheduler``: the checks of the scheduler contract (see :mod:`hetsched.testing`)."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable

from hetsched.errors import ConfigError, describe_exception
from hetsched.schedulers.registry import canonical_options, create, parse_options
from hetsched.schedulers.userfile import file_spec_parts
from hetsched.sim.protocol import Scheduler
from hetsched.platform.model import Platform
from hetsched.testing.inputs import Inputs, contract_inputs, contract_platform, contract_workload
from hetsched.testing.invariants import check_completes, check_result
from hetsched.testing.runs import Outcome, ViewChanged, first_difference, forked, run, run_twice
from hetsched.workload.model import Workload

#: The budget a scheduler with a ``budget`` option is checked with (see :mod:`hetsched.testing`).
CHECK_BUDGET = 10


class ContractError(AssertionError):
    """A scheduler broke the contract: which check, which scheduler, what went wrong."""

    def __init__(self, check: str, scheduler: str, problem: str) -> None:
        super().__init__(f"check '{check}' failed for scheduler '{scheduler}': {problem}")
        self.check, self.scheduler, self.problem = check, scheduler, problem


def check_scheduler(scheduler: Scheduler | str, platform: Platform | None = None,
                    workload: Workload | None = None, seed: int = 0) -> Inputs:
    """Run the contract battery on ``scheduler`` (see the module docstring); returns the
    inputs it ran on. A scheduler object must not have run yet: the battery runs copies."""
    fresh, label = _fresh_copies(scheduler)
    _checking("options", label, _check_options, scheduler, fresh)
    candidates = ([Inputs("given", platform or contract_platform(),
                          workload or contract_workload(platform or contract_platform()))]
                  if platform is not None or workload is not None else contract_inputs())
    inputs, reference = _first_runnable(fresh, candidates, seed, label)
    _checking("invariants", label, check_result, reference.result, reference.any_nodes)
    _checking("completes", label, check_completes, reference.result)
    for check, again in (("same seed", lambda: run(fresh(), inputs, seed)),
                         ("pickle", lambda: run(pickle.loads(pickle.dumps(fresh())), inputs,
                                                seed)),
                         ("second run", lambda: run_twice(fresh(), inputs, seed)),
                         ("fork", lambda: forked(fresh, inputs, seed))):
        outcome = _checking(check, label, again)
        if outcome.jobs_csv != reference.jobs_csv:
            raise ContractError(check, label, "jobs.csv differs from the first run's "
                                f"({first_difference(reference.jobs_csv, outcome.jobs_csv)})")
    return inputs


def _first_runnable(fresh: Callable[[], Scheduler], candidates: Iterable[Inputs], seed: int,
                    label: str) -> tuple[Inputs, Outcome]:
    refused = []
    for inputs in candidates:
        try:
            return inputs, _checking("runs", label, run, fresh(), inputs, seed)
        except ContractError as err:
            if not isinstance(err.__cause__, ConfigError):
                raise
            refused.append(f"{inputs.name}: {err.problem}")
    raise ContractError("runs", label, f"it runs none of the inputs ({'; '.join(refused)})")


def _checking(check: str, label: str, function: Callable, *args: object) -> object:
    """``function(*args)``, any failure raised as a :class:`ContractError` of ``check``."""
    try:
        return function(*args)
    except ContractError:
        raise
    except ViewChanged as err:
        raise ContractError("view", label, str(err)) from err
    except Exception as err:  # noqa: BLE001 - every failure is the check's, in one line
        problem = str(err) if isinstance(err, (AssertionError, ConfigError)) \
            else describe_exception(err)
        raise ContractError(check, label, problem or type(err).__name__) from err


def _fresh_copies(scheduler: Scheduler | str) -> tuple[Callable[[], Scheduler], str]:
    """A function giving new, unreset copies of ``scheduler`` (with ``budget=CHECK_BUDGET``
    when it has a ``budget`` option and neither a budget nor a time limit), and its name."""
    base = create(scheduler) if isinstance(scheduler, str) else scheduler
    label = scheduler if isinstance(scheduler, str) else (base.spec or base.name)
    try:
        params = base.get_params()
    except TypeError as err:
        raise ContractError("options", label, str(err)) from None
    if params.get("budget", 0) is None and params.get("time_limit") is None:
        params = _with_budget(type(base), params)

    def fresh() -> Scheduler:
        copy = type(base)(**params)
        for key in ("name", "spec"):
            if key in vars(base):
                setattr(copy, key, vars(base)[key])
        return copy

    return fresh, label


def _with_budget(cls: type[Scheduler], params: dict[str, object]) -> dict[str, object]:
    """``params`` with ``budget=CHECK_BUDGET`` if the class accepts that, else as they are."""
    budgeted = {**params, "budget": CHECK_BUDGET}
    try:
        cls(**budgeted)
    except (ValueError, TypeError, ConfigError):
        return params
    return budgeted


def _check_options(scheduler: Scheduler | str, fresh: Callable[[], Scheduler]) -> None:
    one = create(scheduler) if isinstance(scheduler, str) else scheduler
    params = one.get_params()
    if isinstance(scheduler, str):
        for key, value in _given_options(scheduler).items():
            assert params.get(key) == value, \
                f"option {key}={value!r} is kept as {params.get(key)!r}"
    assert type(one)(**params).get_params() == params, \
        "type(s)(**s.get_params()) has other options than s"
    assert one.clone().get_params() == params, "clone() has other options"
    extra = set(vars(fresh())) - set(params) - {"name", "spec"}
    assert not extra, (f"__init__ sets {', '.join(sorted(extra))} beside the options: run "
                       "state belongs in reset()")


def _given_options(spec: str) -> dict[str, object]:
    """The options a spec gives, under the names the scheduler knows them by."""
    parts = file_spec_parts(spec)
    text = parts[1].partition(":")[2].partition(":")[2] if parts else spec.partition(":")[2]
    return canonical_options(type(create(spec)), parse_options(text, spec), spec)
