"""The DESiDE contention model, against values computed by hand from its formulas:

    ps    = C / R on a processor with R > C runnable threads (else 1)
    B     = sum of ps * threads * U over the node's groups            (busy threads)
    sigma = max(0, BWreq * B / BWmax - 1)                             (BWavail = BWmax / B)
    d     = (1 - rho) * (1 + sigma) + rho * (1 + delta * sigma)
    factor = 1 / (U * d / ps + 1 - U)
"""

from __future__ import annotations

import math

import pytest

from hetsched.errors import ConfigError
from hetsched.platform.model import NodeType, Processor
from hetsched.models.contention import Group, create
from hetsched.models.contention.deside import DesideModel
from hetsched.models.contention.sharing import ProcessorSharing
from hetsched.workload.model import Job

INF = float("inf")


def node(*processors: tuple[int, float]) -> NodeType:
    """A node with one processor per ``(cores, mem_bw_gbs)``."""
    return NodeType.of_processors("n", 2.0, tuple(Processor(c, mem_bw_gbs=bw)
                                                   for c, bw in processors))


def group(job_id: str, processor: int, threads: int, bw: float = 0.0,
          util: float = 1.0) -> Group:
    job = Job(job_id, 0.0, threads, 1e9, 1.0, mem_bw_gbs=bw, cpu_util=util)
    return Group(job, processor, threads, base_time=0.5)  # T0 cancels out of every factor


def test_oversubscribed_processor_without_bandwidth_demand_is_processor_sharing():
    groups = [group("a", 0, 4), group("b", 0, 2), group("c", 1, 2)]
    factors = DesideModel().factors(node((4, INF), (4, INF)), groups)
    # Processor 0: R = 6 threads on C = 4 cores -> ps = 4/6; BWreq = 0 -> sigma = 0, d = 1;
    # U = 1 -> factor = 1 / (1 * 1 / (2/3)) = 2/3. Processor 1: 2 threads on 4 cores -> 1.
    assert factors == pytest.approx([2 / 3, 2 / 3, 1.0])
    assert factors == pytest.approx(ProcessorSharing().factors(node((4, INF), (4, INF)), groups))


def test_bandwidth_bound_threads_are_dilated_with_the_nodes_bandwidth_shared():
    # Two processors of 4 cores and 20 GB/s: BWmax = 40 GB/s for the node. a: 4 threads of
    # 10 GB/s on processor 0, b: 4 threads of 5 GB/s on processor 1; no oversubscription.
    groups = [group("a", 0, 4, bw=10.0), group("b", 1, 4, bw=5.0)]
    factors = DesideModel(remote_fraction=0.0).factors(node((4, 20.0), (4, 20.0)), groups)
    # B = 8 busy threads -> BWavail = 40 / 8 = 5 GB/s.
    # a: sigma = (10 - 5) / 5 = 1 -> d = 2 -> factor 1/2.  b: 5 <= 5 -> sigma = 0 -> factor 1.
    assert factors == pytest.approx([0.5, 1.0])


def test_remote_threads_stretch_the_contention_dilation_by_the_latency_ratio():
    groups = [group("a", 0, 4, bw=10.0), group("b", 1, 4, bw=5.0)]
    model = DesideModel(remote_fraction=0.25, latency_ratio=2.0)
    factors = model.factors(node((4, 20.0), (4, 20.0)), groups)
    # As above, a has sigma = 1: local threads d = 1 + 1 = 2, remote ones d = 1 + 2 * 1 = 3;
    # mean d = 0.75 * 2 + 0.25 * 3 = 2.25 -> factor 1 / 2.25 = 4/9.
    # b has sigma = 0: d = 0.75 * 1 + 0.25 * 1 = 1 -> factor 1 (no contention, no penalty).
    assert factors == pytest.approx([4 / 9, 1.0])


def test_threads_busy_part_of_the_time_dilate_only_their_busy_share():
    model = DesideModel(remote_fraction=0.0)
    # 2 threads with U = 0.5 and 10 GB/s on 2 cores, BWmax = 5 GB/s: ps = 1, B = 2 * 0.5 = 1,
    # BWavail = 5, sigma = (10 - 5) / 5 = 1, d = 2 -> factor = 1 / (0.5 * 2 / 1 + 0.5) = 2/3.
    assert model.factors(node((2, 5.0)), [group("a", 0, 2, bw=10.0, util=0.5)]) \
        == pytest.approx([2 / 3])
    # 4 such threads on the 2 cores: ps = 2/4 = 0.5, B = 0.5 * 4 * 0.5 = 1 (a core runs one
    # thread at a time), sigma = 1, d = 2 -> factor = 1 / (0.5 * 2 / 0.5 + 0.5) = 1 / 2.5.
    assert model.factors(node((2, 5.0)), [group("a", 0, 4, bw=10.0, util=0.5)]) \
        == pytest.approx([0.4])


def test_no_demand_means_no_slowdown():
    model = DesideModel(remote_fraction=1.0, latency_ratio=3.0)
    groups = [group("a", 0, 3), group("b", 0, 1, util=0.2)]
    # R = 4 <= 4 cores -> ps = 1; BWreq = 0 -> sigma = 0 -> d = 1 even when every thread is
    # remote -> factor = 1 / (U * 1 / 1 + 1 - U) = 1.
    assert model.factors(node((4, 1.0)), groups) == [1.0, 1.0]
    assert model.factors(node((4, 1.0)), []) == []


@pytest.mark.parametrize("params", [
    {"remote_fraction": -0.1}, {"remote_fraction": 1.5}, {"remote_fraction": math.nan},
    {"remote_fraction": "0.2"}, {"latency_ratio": 0.9}, {"latency_ratio": INF},
    {"latency_ratio": math.nan}, {"latency_ratio": True}, {"latency": 2.0},
])
def test_bad_parameters_are_one_line_config_errors(params):
    with pytest.raises(ConfigError) as info:
        create("deside", params)
    assert "deside" in str(info.value) and "\n" not in str(info.value)


def test_a_node_without_memory_bandwidth_is_a_config_error():
    with pytest.raises(ConfigError, match="positive memory bandwidth"):
        DesideModel().factors(node((2, 0.0)), [group("a", 0, 1, bw=1.0)])


def test_create_builds_it_with_the_platform_parameters():
    model = create("deside", {"latency_ratio": 2.0})
    assert isinstance(model, DesideModel) and model.name == "deside"
    assert (model.remote_fraction, model.latency_ratio) == (0.25, 2.0)
    assert create("deside").latency_ratio == 1.5
