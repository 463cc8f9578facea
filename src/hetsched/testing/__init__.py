"""The scheduler contract as one battery of checks, as scikit-learn's ``check_estimator`` is
for estimators: every registered scheduler passes it (``tests/test_scheduler_contract.py``),
and a plugin author can run it on theirs::

    from hetsched.testing import check_scheduler
    check_scheduler("easy:node_selection=high_gflops")   # a registered name or a spec
    check_scheduler(MyPolicy(limit=3))                    # an object that has not run yet

Each check that fails raises :class:`ContractError` (an ``AssertionError``) naming the check
and the scheduler:

- ``options``: ``get_params()`` gives the options, ``type(s)(**s.get_params())`` and
  ``clone()`` give the same ones, an option given in a spec is kept as given, and ``__init__``
  stores nothing else (it may set ``name``): the run state belongs in ``reset``;
- ``runs``: reset, then decide at every instant, to the end of a small run;
- ``view``: nothing the scheduler can reach (the view's state, the platform, the jobs)
  changes while its own code runs;
- ``invariants``: :func:`check_result` on the run;
- ``completes``: no job is left waiting (a run without a horizon ends every job finished, or
  rejected with a reason);
- ``same seed``: a second fresh scheduler, same seed: the same ``jobs.csv``, byte for byte;
- ``pickle``: a fresh scheduler sent through ``pickle`` runs the same;
- ``second run``: one object run twice gives the same ``jobs.csv`` both times;
- ``fork``: a run forked half-way (:meth:`~hetsched.sim.engine.Simulation.fork`) under a fresh
  copy finishes with the invariants, and the original run then ends as an unforked one.

The inputs: ``platform`` and ``workload`` if given (a workload built for the platform if only
that is), else the first of :func:`contract_inputs` the scheduler runs without a
``ConfigError``: a heterogeneous platform with 30 jobs of varied sizes (multi-node, memory,
dependencies), 30 single-task jobs on seven one-core nodes (mapping heuristics that map tasks
on cores), and a ds-sim configuration with its job list (the ds-sim algorithms). A
scheduler with a ``budget`` option, given neither a budget nor a ``time_limit``, is checked
with ``budget=CHECK_BUDGET`` (when it takes one): a wall-clock limit would make "same seed,
same result" depend on the machine's load.
"""

from hetsched.testing.contract import CHECK_BUDGET, ContractError, check_scheduler
from hetsched.testing.inputs import Inputs, contract_inputs, contract_platform, contract_workload
from hetsched.testing.invariants import check_result

__all__ = ["CHECK_BUDGET", "ContractError", "Inputs", "check_result", "check_scheduler",
           "contract_inputs", "contract_platform", "contract_workload"]
