"""The cost model: a price per second beside the hourly price, what each job paid, and the
jobs' co-allocation requests (budget, minimum speed, criterion)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hetsched.platform.load import load_platform
from hetsched.platform.writers.native import write_json
from support import assert_mentions, error_of, write


def _platform_doc(**prices: float) -> dict:
    return {"name": "p", "node_types": [{"name": "a", "cores": 4, "clock_ghz": 1.0, **prices}]}


def test_a_price_per_second_gives_the_hourly_price(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "p.json", _platform_doc(price=0.25)))
    node_type = platform.node_types[0]
    assert node_type.hourly_price == 900.0
    assert node_type.price == 0.25
    assert platform.nodes[0].price == 0.25
    assert platform.arrays.price.tolist() == [0.25]


def test_an_hourly_price_gives_the_price_per_second(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "p.json", _platform_doc(hourly_price=1800)))
    assert platform.node_types[0].price == 0.5


def test_prices_given_both_ways_must_agree(tmp_path: Path) -> None:
    agreeing = load_platform(write(tmp_path / "ok.json",
                                   _platform_doc(price=0.5, hourly_price=1800)))
    assert agreeing.node_types[0].hourly_price == 1800
    message = error_of(load_platform, write(tmp_path / "bad.json",
                                            _platform_doc(price=0.5, hourly_price=1000)))
    assert_mentions(message, "bad.json", "node type 'a'", "price", "1800", "1000")


def test_a_negative_price_is_an_input_error(tmp_path: Path) -> None:
    message = error_of(load_platform, write(tmp_path / "p.json", _platform_doc(price=-1)))
    assert_mentions(message, "p.json", "price")


def test_a_platform_priced_per_second_is_written_and_read_back(tmp_path: Path) -> None:
    platform = load_platform(write(tmp_path / "p.json", _platform_doc(price=0.1)))
    again = load_platform(write_json(platform, tmp_path / "again.json"))
    assert again.node_types[0].price == pytest.approx(0.1, rel=1e-15)
