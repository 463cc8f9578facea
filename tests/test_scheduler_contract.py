"""The scheduler contract, over every registered scheduler (scikit-learn's check_estimator
style): each one can be pickled, so sweeps can ship it to worker processes."""

from __future__ import annotations

import pickle

import pytest

from hetsched.schedulers import create, entries

NAMES = [entry.name for entry in entries()]


@pytest.mark.parametrize("name", NAMES)
def test_a_fresh_scheduler_survives_a_pickle_round_trip(name: str) -> None:
    scheduler = create(name)
    copy = pickle.loads(pickle.dumps(scheduler))
    assert type(copy) is type(scheduler) and copy.name == scheduler.name
