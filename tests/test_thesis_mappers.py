"""The 2023 IRMaSim thesis' own rules beside Braun's: Min-min, Max-min and Duplex by requested
time (its §3.3.2, §4.2-4.4), nodes that start any listed job that fits (§4.1.2), and A*'s
random job order and tree-size pruning (§3.6.2, §4.5)."""

from __future__ import annotations

import numpy as np
import pytest

from hetsched.errors import ConfigError
from hetsched.mapping import HEURISTICS, duplex_sorted, max_min_sorted, min_min_sorted
from hetsched.mapping.astar_nodes import astar_on
from hetsched.mapping.greedy import LIST_HEURISTICS, requested_times
from hetsched.mapping.machines import CoreSlots, ReadyTimes
from hetsched.mapping.tree_search import astar, task_order
from hetsched.platform.model import NodeType
from hetsched.schedulers import create
from hetsched.testing import check_scheduler
from test_batch_mapping import DUO, job, schedule

SLOW2 = NodeType("slow2", 2, 1.0)  # 2 cores, 1e9 ops/s each: the slowest node
FAST2 = NodeType("fast2", 2, 2.0)  # 2 cores, 2e9 ops/s each
# requested times (= estimates on slow2): j0 4 s on 2 cores, j1 6 s, j2 3 s; on fast2 half
JOBS = [job("j0", 0, 4, ntasks=2), job("j1", 0, 6), job("j2", 0, 3)]
ETC = np.array([[4.0, 2.0], [6.0, 3.0], [3.0, 1.5]])


def nodes() -> CoreSlots:
    return CoreSlots(ETC, [2, 1, 1], [np.zeros(2), np.zeros(2)], np.zeros(2))


def test_sorted_min_min_maps_by_requested_time_not_by_least_completion() -> None:
    # Braun's Min-min: j2 -> fast [0, 1.5]; then j1 on fast's idle core CT 3 beats j0 (fast
    # 1.5+2 = 3.5, slow 4): j1 -> fast [0, 3]; j0: slow 4 < fast 3+2 -> slow [0, 4]. Makespan 4.
    braun = LIST_HEURISTICS["min_min"](state := nodes())
    assert braun.sequence.tolist() == [2, 1, 0] and braun.assignment.tolist() == [0, 1, 1]
    assert state.loads().max() == 4.0
    # the thesis' Min-min: j2 (3 s), j0 (4 s), j1 (6 s) in turn. j2 -> fast [0, 1.5];
    # j0: fast's 2nd core free at 1.5, 1.5+2 = 3.5 < slow 4 -> fast [1.5, 3.5];
    # j1: slow 6 < fast 3.5+3 -> slow [0, 6]. Makespan 6.
    thesis = LIST_HEURISTICS["min_min_sorted"](state := nodes())
    assert thesis.sequence.tolist() == [2, 0, 1] and thesis.assignment.tolist() == [1, 0, 1]
    assert state.loads().max() == 6.0


def test_sorted_max_min_and_duplex_keep_the_earlier_finish() -> None:
    # the thesis' Max-min: j1 (6 s) -> fast [0, 3]; j0: slow 4 < fast 3+2 -> slow [0, 4];
    # j2: fast's idle core 1.5 < slow 4+3 -> fast [0, 1.5]. Makespan 4 < Min-min's 6.
    plan = LIST_HEURISTICS["max_min_sorted"](state := nodes())
    assert plan.sequence.tolist() == [1, 0, 2] and plan.assignment.tolist() == [0, 1, 1]
    assert state.loads().max() == 4.0
    duplex = LIST_HEURISTICS["duplex_sorted"](state := nodes())
    assert duplex.assignment.tolist() == [0, 1, 1] and state.loads().max() == 4.0
    assert duplex.info == {"chosen": "max_min", "min_min": 6.0, "max_min": 4.0}


def test_sorted_heuristics_in_the_simulator() -> None:
    platform = [(SLOW2, 1), (FAST2, 1)]  # node 0 slow, node 1 fast
    assert schedule(platform, JOBS, "min_min_sorted") == {
        "j0": (1.5, 3.5, 1), "j1": (0.0, 6.0, 0), "j2": (0.0, 1.5, 1)}
    expected = {"j0": (0.0, 4.0, 0), "j1": (0.0, 3.0, 1), "j2": (0.0, 1.5, 1)}
    assert schedule(platform, JOBS, "max_min_sorted") == expected
    assert schedule(platform, JOBS, "duplex_sorted") == expected
    assert schedule(platform, JOBS, "min_min") == expected  # Braun's differs from the thesis'


def test_requested_times_order_ties_by_index_and_default_to_the_slowest_machine() -> None:
    etc = np.array([[2.0, 1.0], [4.0, 2.0], [2.0, 1.0], [3.0, 1.5]])
    def sequence(name: str) -> list[int]:
        return LIST_HEURISTICS[name](ReadyTimes(etc, np.zeros(2))).sequence.tolist()

    assert sequence("min_min_sorted") == [0, 2, 3, 1]
    assert sequence("max_min_sorted") == [1, 3, 0, 2]
    # a task the slowest machine cannot run: its time on the slowest one that can
    wide = CoreSlots(np.array([[np.inf, 3.0], [4.0, 2.0]]), [2, 1], [np.zeros(1), np.zeros(2)],
                     np.zeros(2))
    assert requested_times(wide).tolist() == [3.0, 4.0]
    classic = duplex_sorted(etc)
    assert classic.makespan == min(min_min_sorted(etc).makespan, max_min_sorted(etc).makespan)
    assert {"min_min_sorted", "max_min_sorted", "duplex_sorted"} <= set(HEURISTICS)


def test_any_fit_nodes_start_a_later_listed_job_that_fits() -> None:
    # t=0: long (1 task, 10 s) takes one core of the duo node. t=1: wide (2 tasks, 1 s,
    # requested 1) and small (1 task, 2 s, requested 2) are listed in that order.
    jobs = [job("long", 0, 10), job("wide", 1, 1, ntasks=2), job("small", 1, 2)]
    fifo = schedule([(DUO, 1)], jobs, "min_min_sorted")
    # FIFO: small waits behind wide, which needs both cores: wide [10, 11], small [11, 13]
    assert fifo["wide"][:2] == (10.0, 11.0) and fifo["small"][:2] == (11.0, 13.0)
    any_fit = schedule([(DUO, 1)], jobs, "min_min_sorted:queue=any_fit")
    # the node's list: wide does not fit its idle core, small does: small [1, 3], wide [10, 11]
    assert any_fit["small"][:2] == (1.0, 3.0) and any_fit["wide"][:2] == (10.0, 11.0)


@pytest.mark.parametrize("spec", [
    "min_min_sorted:queue=any_fit", "duplex:queue=any_fit,replan=true",
    "astar:node_limit=8,order=random,prune=tree,queue=any_fit"])
def test_the_thesis_options_keep_the_scheduler_contract(spec: str) -> None:
    check_scheduler(spec)


def test_bad_thesis_options_are_refused() -> None:
    for spec, fragment in [("min_min:queue=lifo", "queue must be one of fifo, any_fit"),
                           ("min_min:prune=tree", "takes no option prune"),
                           ("astar:prune=leaves", "prune must be one of open, tree"),
                           ("astar:order=size", "order must be one of index, largest_first")]:
        with pytest.raises(ConfigError, match=fragment):
            create(spec)  # refused when created, before any run


def test_tree_pruning_dives_greedily_with_a_limit_of_one_vertex() -> None:
    # task 0: on m0 g 2, f 2; on m1 g 3, f 3 -> m0 kept, m1 pruned. Task 1 from r = [2, 0]:
    # on m0 f 4, on m1 f 2 -> m1. The first expansion makes 2 vertices (1 over the limit),
    # the second 2 more (both over): one open node stays each time.
    result = astar([[2.0, 3.0], [2.0, 1.0]], node_limit=1, prune="tree")
    assert result.assignment.tolist() == [0, 1] and result.makespan == 2.0
    assert result.info == {"node_limit": 1, "expansions": 2, "nodes": 5, "pruned": 2,
                           "complete_search": True}


def test_tree_pruning_reaches_a_leaf_where_the_open_rule_runs_out_of_budget() -> None:
    etc = np.random.default_rng(7).uniform(1, 100, size=(120, 8))
    kept = astar(etc, node_limit=128)
    assert not kept.info["complete_search"]  # the open rule: budget, then a greedy dive
    tree = astar(etc, node_limit=128, prune="tree")
    assert tree.info["complete_search"] and tree.info["expansions"] <= 128 + 120


def test_random_order_is_a_seeded_permutation() -> None:
    etc = np.ones((6, 2))
    order = task_order(etc, "random", np.random.default_rng(4))
    assert order.tolist() == np.random.default_rng(4).permutation(6).tolist()
    assert task_order(etc, "random").tolist() == np.random.default_rng(0).permutation(6).tolist()
    plan = astar_on(CoreSlots(etc, np.ones(6, np.int64), [np.zeros(1)] * 2, np.zeros(2)),
                    order="random", rng=np.random.default_rng(4))
    assert plan.sequence.tolist() == order.tolist()


def test_thesis_astar_in_the_simulator_plans_on_nodes() -> None:
    run = schedule([(SLOW2, 1), (FAST2, 1)], JOBS, "astar:node_limit=128,order=random,prune=tree")
    assert max(end for _, end, _ in run.values()) == pytest.approx(4.0)  # the optimum here
    assert create("astar:prune=tree").get_params()["prune"] == "tree"


def test_the_realistic_study_runs_the_thesis_rules_and_braun_as_a_variant(tmp_path) -> None:
    from hetsched.experiments import realistic
    from hetsched.experiments.trace_studies import plan
    from support import shared

    source = shared("traces/kit_fh2_weeks18-34_irmasim.json")

    def mappers(study: object, out: str) -> list[str]:
        planned = plan(study, tmp_path / out, source)
        return [s.label for s in planned.sweep.schedulers][4:]  # after the simple policies

    assert mappers(realistic.STUDY, "thesis") == [
        "min_min_sorted:queue=any_fit", "max_min_sorted:queue=any_fit",
        "duplex_sorted:queue=any_fit",
        "astar:node_limit=128,order=random,prune=tree,queue=any_fit",
        "astar:order=random,prune=tree,queue=any_fit"]
    assert mappers(realistic.BRAUN, "braun") == ["min_min", "max_min", "duplex",
                                                 "astar:node_limit=128", "astar"]
    assert realistic.VARIANTS["braun"] == (realistic.BRAUN, realistic.KIT_IRMASIM)
