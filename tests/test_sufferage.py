"""Sufferage's rules, each pinned by a tiny hand-worked ETC matrix, and the vectorised
implementation checked against a literal transcription of Maheswaran et al.'s pseudo-code
(JPDC 59, 1999) on tie-heavy random matrices and on the 12 Braun instances.

The rules (docs/mapping.md, "Sufferage: the rules"): machines frozen during a pass; tasks
visited in increasing index; a task's machine is its least CT, lowest machine index on equal
CT; sufferage = second least CT − least CT over the other machines (0 on a CT tie or with one
machine, inf when no other machine can run the task); a holder is displaced only by a strictly
larger sufferage; the loser waits for the next pass.
"""

from __future__ import annotations

import numpy as np
import pytest

from hetsched.mapping import read_etc, sufferage
from hetsched.mapping.greedy import sufferage_on
from hetsched.mapping.machines import CoreSlots
from support import BRAUN_INSTANCES, shared


def literal_sufferage(etc: np.ndarray, ready: np.ndarray) -> tuple[list[int], int]:
    """Maheswaran et al.'s pseudo-code, line by line, with the rules above; plain loops."""
    n, m = etc.shape
    r = [float(x) for x in ready]
    unmapped = list(range(n))  # kept in increasing index
    machine_of = [-1] * n
    passes = 0
    while unmapped:
        passes += 1
        holder: dict[int, tuple[int, float]] = {}  # machine -> (task, its sufferage)
        for task in unmapped:
            ct = [float(etc[task, j]) + r[j] for j in range(m)]
            best = min(range(m), key=lambda j: ct[j])  # first minimum: lowest machine index
            others = [ct[j] for j in range(m) if j != best]
            suff = min(others) - ct[best] if others else 0.0
            if best not in holder or holder[best][1] < suff:  # "is less than": strict
                holder[best] = (task, suff)
        for j, (task, _) in holder.items():  # r is updated only after the pass
            machine_of[task] = j
            r[j] += float(etc[task, j])
        unmapped = [t for t in unmapped if machine_of[t] < 0]
    return machine_of, passes


def test_equal_sufferage_the_holder_keeps_the_machine() -> None:
    # pass 1 (r = 0, 0): t0 CT (2, 3) -> m0, sufferage 1, holds m0; t1 CT (1.5, 2.5) -> m0,
    # sufferage 1, not larger -> t0 keeps m0, t1 waits. Commit t0 -> m0: r = (2, 0).
    # pass 2: t1 CT (3.5, 2.5) -> m1. Loads (2, 2.5).
    # (Were the newcomer to win ties: t1 -> m0, then t0 CT (3.5, 3) -> m1: [1, 0], makespan 3.)
    result = sufferage(np.array([[2.0, 3.0], [1.5, 2.5]]))
    assert result.assignment.tolist() == [0, 1]
    assert result.loads.tolist() == [2.0, 2.5]
    assert result.info["passes"] == 2


def test_equal_completion_times_go_to_the_lowest_machine() -> None:
    # one task, CT (3, 3) once the ready times are added: the lower index wins
    assert sufferage(np.array([[1.0, 3.0]]), ready=[2.0, 0.0]).assignment.tolist() == [0]
    assert sufferage(np.array([[4.0, 4.0, 4.0]])).assignment.tolist() == [0]


def test_a_task_that_loses_its_lowest_tied_machine_waits() -> None:
    # pass 1 (r = 0, 0, 0):
    #   t0 CT (1, 5, 5)      -> m0, sufferage 5 - 1 = 4, holds m0
    #   t1 CT (2, 2, 2.5)    -> tie m0/m1 -> m0, sufferage 2 - 2 = 0 < 4: waits (it does NOT
    #                           move to m1, free and just as early)
    #   t2 CT (1.5, 1.75, 9) -> m0, sufferage 0.25 < 4: waits
    #   commit t0 -> m0: r = (1, 0, 0)
    # pass 2: t1 CT (3, 2, 2.5) -> m1, sufferage 0.5, holds m1;
    #         t2 CT (2.5, 1.75, 9) -> m1, sufferage 0.75 > 0.5: displaces t1.
    #         commit t2 -> m1: r = (1, 1.75, 0)
    # pass 3: t1 CT (3, 3.75, 2.5) -> m2.
    # (Taking the highest tied machine, or a free tied one, would give [0, 1, 0].)
    result = sufferage(np.array([[1.0, 5.0, 5.0], [2.0, 2.0, 2.5], [1.5, 1.75, 9.0]]))
    assert result.assignment.tolist() == [0, 2, 1]
    assert result.loads.tolist() == [1.0, 1.75, 2.5]
    assert result.info["passes"] == 3


def test_every_pass_visits_the_tasks_in_index_order() -> None:
    # pass 1 (r = 0, 0, 0):
    #   t0 CT (2, 4, 9)     -> m0, sufferage 2, holds m0
    #   t1 CT (1.5, 3.5, 9) -> m0, sufferage 2, not larger: waits (lost first)
    #   t2 CT (1, 10, 10)   -> m0, sufferage 9 > 2: displaces t0 (lost second)
    #   commit t2 -> m0: r = (1, 0, 0)
    # pass 2 visits t0 before t1 (index order, not the order they lost in):
    #   t0 CT (3, 4, 9) -> m0, sufferage 1, holds; t1 CT (2.5, 3.5, 9) -> m0, sufferage 1: t0 keeps
    #   commit t0 -> m0: r = (3, 0, 0)
    # pass 3: t1 CT (4.5, 3.5, 9) -> m1. Loads (3, 3.5, 0).
    # (Visiting t1 first in pass 2 gives t1 -> m0, then t0 CT (4.5, 4, 9) -> m1: [1, 0, 0].)
    result = sufferage(np.array([[2.0, 4.0, 9.0], [1.5, 3.5, 9.0], [1.0, 10.0, 10.0]]))
    assert result.assignment.tolist() == [0, 1, 0]
    assert [o.tolist() for o in result.order] == [[2, 0], [1], []]
    assert result.loads.tolist() == [3.0, 3.5, 0.0]
    assert result.info["passes"] == 3


def test_ready_times_do_not_change_within_a_pass() -> None:
    # pass 1 (r = 0, 0): t0 CT (1, 9) -> m0, sufferage 8, holds m0; t1 still sees r0 = 0:
    #   CT (2, 2.5) -> m0, sufferage 0.5: waits; t2 CT (1.5, 1.75) -> m0, sufferage 0.25: waits.
    #   commit t0 -> m0: r = (1, 0)
    # pass 2: t1 CT (3, 2.5) -> m1, sufferage 0.5, holds; t2 CT (2.5, 1.75) -> m1,
    #   sufferage 0.75: displaces t1. commit t2 -> m1: r = (1, 1.75)
    # pass 3: t1 CT (3, 4.25) -> m0. Loads (3, 1.75).
    # (Had t0's tentative assignment raised r0 at once, t1 would have taken m1 in pass 1 and
    # t2 m0 in pass 2: [0, 1, 0], loads (2.5, 2.5).)
    result = sufferage(np.array([[1.0, 9.0], [2.0, 2.5], [1.5, 1.75]]))
    assert result.assignment.tolist() == [0, 0, 1]
    assert result.loads.tolist() == [3.0, 1.75]
    assert result.info["passes"] == 3


def test_one_machine_means_sufferage_zero_and_index_order() -> None:
    # every sufferage is 0, so each pass maps the lowest unmapped index: t0, t1, t2
    result = sufferage(np.array([[3.0], [1.0], [2.0]]))
    assert [o.tolist() for o in result.order] == [[0, 1, 2]]
    assert result.info["passes"] == 3


def test_a_task_with_one_usable_machine_has_infinite_sufferage() -> None:
    # one single-core node each; t1 cannot run on m1 (etc inf).
    # pass 1: t0 CT (2, 9) -> m0, sufferage 7, holds; t1 CT (3, inf) -> m0, sufferage inf > 7:
    #   displaces t0. commit t1 -> m0 (busy until 3)
    # pass 2: t0 CT (5, 9) -> m0. Queue order on m0: t1, t0.
    etc = np.array([[2.0, 9.0], [3.0, np.inf]])
    state = CoreSlots(etc, np.ones(2, np.int64), [np.zeros(1), np.zeros(1)], np.zeros(2))
    plan = sufferage_on(state)
    assert plan.assignment.tolist() == [0, 0]
    assert plan.sequence.tolist() == [1, 0]
    assert plan.info["passes"] == 2


def test_matches_the_literal_pseudo_code_on_tie_heavy_matrices() -> None:
    rng = np.random.default_rng(11)
    for _ in range(400):
        n, m = int(rng.integers(1, 9)), int(rng.integers(1, 5))
        etc = rng.integers(1, 4, size=(n, m)).astype(float)  # ties in CT and sufferage
        ready = rng.integers(0, 3, size=m).astype(float)
        machine_of, passes = literal_sufferage(etc, ready)
        result = sufferage(etc, ready)
        assert result.assignment.tolist() == machine_of, (etc.tolist(), ready.tolist())
        assert result.info["passes"] == passes


@pytest.mark.parametrize("name", BRAUN_INSTANCES)
def test_matches_the_literal_pseudo_code_on_the_braun_instances(name: str) -> None:
    etc = read_etc(shared(f"braun/{name}.0"))
    machine_of, passes = literal_sufferage(etc, np.zeros(etc.shape[1]))
    result = sufferage(etc)
    assert result.assignment.tolist() == machine_of
    assert result.info["passes"] == passes
