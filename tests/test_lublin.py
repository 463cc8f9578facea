"""The Lublin–Feitelson generator against the model's analytic values: the published
parameters' size distribution, run-time means per size, arrival rate and daily cycle."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from hetsched.errors import InputError
from hetsched.workload.generators import GENERATORS, check_params
from hetsched.workload.generators.lublin import (BUCKETS, MAX_LOG_GAP, MAX_LOG_RUN, PUBLISHED,
                                                 bucket_weights)
from hetsched.workload.swf import COL

N = 100_000


def _table(seed: int = 0, **params: object) -> np.ndarray:
    checked = check_params("lublin", {"jobs": N, **params}, Path("test"))
    return GENERATORS["lublin"].draw(checked, np.random.default_rng(seed))


@pytest.fixture(scope="module", params=["batch", "interactive", "typeless"])
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="module")
def table(kind: str) -> np.ndarray:
    return _table(types=kind)


def _tsu(kind: str) -> tuple[float, float, float, float]:
    """(ulow, umed, uhi, uprob) as published, for the model's 128 processors."""
    umed, uhi = {"batch": (5.0, 7.0), "interactive": (3.0, 5.5), "typeless": (4.5, 7.0)}[kind]
    return PUBLISHED[kind]["ulow"], umed, uhi, PUBLISHED[kind]["uprob"]


def _tsu_cdf(x: np.ndarray, kind: str) -> np.ndarray:
    low, med, high, prob = _tsu(kind)
    return prob * np.clip((x - low) / (med - low), 0, 1) + \
        (1 - prob) * np.clip((x - med) / (high - med), 0, 1)


def _tsu_expect(f, kind: str) -> float:
    """E[f(X)] for X two-stage uniform, by the midpoint rule on a fine grid."""
    low, med, high, prob = _tsu(kind)
    total = 0.0
    for a, b, weight in ((low, med, prob), (med, high, 1 - prob)):
        edges = np.linspace(a, b, 200_001)
        total += weight * f((edges[1:] + edges[:-1]) / 2).mean()
    return total


def test_size_distribution_matches_the_model(kind: str, table: np.ndarray) -> None:
    p = PUBLISHED[kind]
    size = table[:, COL["allocated_processors"]]
    other = 1 - p["serial_prob"] - p["pow2_prob"]
    se = 4 * 0.5 / np.sqrt(N)  # four standard errors of a proportion
    assert abs((size == 1).mean() - p["serial_prob"]) < se
    # powers of two >= 2: the power-of-two branch, plus other-branch sizes that round onto one
    k = np.arange(1, 8)
    lucky = (_tsu_cdf(np.log2(2.0 ** k + 0.5), kind) - _tsu_cdf(np.log2(2.0 ** k - 0.5), kind))
    pow2 = (size > 1) & (np.log2(size) == np.round(np.log2(size)))
    assert abs(pow2.mean() - (p["pow2_prob"] + other * lucky.sum())) < se
    # mean log2 size of parallel jobs
    rounded = _tsu_expect(lambda x: np.floor(x + 0.5), kind)
    free = _tsu_expect(lambda x: np.log2(np.floor(2.0 ** x + 0.5)), kind)
    expected = (p["pow2_prob"] * rounded + other * free) / (1 - p["serial_prob"])
    logs = np.log2(size[size > 1])
    assert abs(logs.mean() - expected) < 4 * logs.std() / np.sqrt(logs.size)
    assert size.max() <= 128


def _mean_truncated_gamma(shape: float, scale: float, limit: float) -> float:
    g = stats.gamma(shape, scale=scale)
    return g.expect(lambda x: x, ub=limit, conditional=True)


@pytest.mark.parametrize("size", [1, 2, 4, 8, 32])
def test_log_run_time_per_size_is_the_hyper_gamma_mean(kind: str, table: np.ndarray,
                                                       size: int) -> None:
    p = PUBLISHED[kind]
    mix = np.clip(p["pa"] * size + p["pb"], 0, 1)
    expected = mix * _mean_truncated_gamma(p["a1"], p["b1"], MAX_LOG_RUN) + \
        (1 - mix) * _mean_truncated_gamma(p["a2"], p["b2"], MAX_LOG_RUN)
    logs = np.log(table[table[:, COL["allocated_processors"]] == size, COL["run_time"]])
    assert logs.size > 500
    assert abs(logs.mean() - expected) < 4 * logs.std() / np.sqrt(logs.size)
    assert logs.max() <= MAX_LOG_RUN


def _mean_gap(kind: str) -> float:
    p = PUBLISHED[kind]
    g = stats.gamma(p["aarr"] * p["arar"], scale=p["barr"])
    return g.expect(np.exp, ub=MAX_LOG_GAP, conditional=True)


def test_arrival_rate_and_daily_cycle(kind: str, table: np.ndarray) -> None:
    submit = table[:, COL["submit_time"]]
    assert (np.diff(submit) >= 0).all() and (table[:, COL["requested_time"]] == -1).all()
    # the day's shape does not change the rate: N gaps of mean E[e^G | G <= 13]
    assert abs(submit[-1] / N / _mean_gap(kind) - 1) < 0.12
    # arrivals per half-hour bucket in proportion to the cycle's weights (bursty: loose bound)
    share = np.bincount((submit % 86400 // 1800).astype(int), minlength=BUCKETS) / N
    expected = bucket_weights(PUBLISHED[kind]["anum"], PUBLISHED[kind]["bnum"]) / BUCKETS
    assert np.abs(share - expected).max() < 0.2 * expected.max()
    assert abs(int(np.argmax(share)) - int(np.argmax(expected))) <= 2


def test_both_types_merge_in_proportion_to_their_rates() -> None:
    t = _table(jobs=N)
    batch = t[:, COL["queue"]] == 1
    assert set(np.unique(t[:, COL["queue"]])) == {0.0, 1.0}
    rate = {k: 1 / _mean_gap(k) for k in ("batch", "interactive")}
    assert abs(batch.mean() - rate["batch"] / sum(rate.values())) < 0.03
    assert (np.diff(t[:, COL["submit_time"]]) >= 0).all()
    assert (_table(jobs=100, types="typeless")[:, COL["queue"]] == -1).all()


def test_seeded_and_scaled() -> None:
    a, b = _table(3, jobs=2000), _table(3, jobs=2000)
    assert np.array_equal(a, b) and not np.array_equal(a, _table(4, jobs=2000))
    slow = _table(3, jobs=2000, arrival_factor=2.0)
    assert slow[-1, COL["submit_time"]] > 1.5 * a[-1, COL["submit_time"]]


def test_sizes_scale_to_the_machine() -> None:
    big = check_params("lublin", {"jobs": 1, "procs": 1024}, Path("t"))
    assert big.sizes("batch") == (1.2, 8.0, 10.0)
    assert big.sizes("interactive") == (1.0, 6.0, 8.5)
    tiny = check_params("lublin", {"jobs": 1, "procs": 4}, Path("t"))
    assert tiny.sizes("interactive") == (1.0, 1.0, 1.0)
    sizes = _table(jobs=5000, procs=100)[:, COL["allocated_processors"]]
    assert sizes.max() == 100


def test_published_values_can_be_overridden_one_at_a_time() -> None:
    params = check_params("lublin", {"jobs": 1, "batch": {"pa": -0.01}}, Path("t"))
    assert params.batch.pa == -0.01 and params.batch.pb == PUBLISHED["batch"]["pb"]
    with pytest.raises(InputError, match="serial_prob"):
        check_params("lublin", {"jobs": 1, "batch": {"serial_prob": 0.5}}, Path("t"))
    with pytest.raises(InputError, match="a1"):
        check_params("lublin", {"jobs": 1, "interactive": {"a1": -1}}, Path("t"))
