"""Node failures (and reservations) through the platform writers: the native formats and
SimGrid keep them (read back the same; SimGrid the reservations of whole nodes), IRMaSim's
reports them lost."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from hetsched.platform.load import load_platform
from hetsched.platform.model import Failure, NodeType, Platform, Reservation
from hetsched.platform.writers import writer

FAILURES = (Failure(0, 0.0, 30.5), Failure(1, 100.0, 250.0), Failure(1, 200.0, 300.0),
            Failure(1, 900.0, math.inf), Failure(2, 1e-3, 2.0))


def platform() -> Platform:
    base = Platform.from_counts("p", [(NodeType("fast", 4, 2.0), 3)])
    return replace(base, failures=FAILURES)


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_the_native_formats_keep_failures(tmp_path: Path, fmt: str) -> None:
    out = writer(fmt)
    assert out.losses(platform()) == []
    read = load_platform(out.write(platform(), tmp_path / f"p{out.suffix}"))
    assert read.failures == FAILURES


def test_simgrid_writes_failures_as_state_profiles(tmp_path: Path) -> None:
    out = writer("simgrid")
    assert out.losses(platform()) == []
    path = out.write(platform(), tmp_path / "p.xml")
    assert 'kind="HOST_AVAIL"' in path.read_text()
    read = load_platform(path)
    # node 1's overlapping failures [100, 250) and [200, 300) are one down time
    assert read.failures == (Failure(0, 0.0, 30.5), Failure(1, 100.0, 300.0),
                             Failure(1, 900.0, math.inf), Failure(2, 1e-3, 2.0))
    assert read.notes == ()


def test_irmasim_reports_failures_lost() -> None:
    assert any("node failures" in line for line in writer("irmasim").losses(platform()))


def test_simgrid_writes_whole_node_reservations_as_speed_profiles(tmp_path: Path) -> None:
    """Reservations of all a node's cores read back the same (a speed profile at 0); one of
    part of a node is reported lost."""
    kept = replace(platform(), reservations=(Reservation(0, 10.0, 20.5, 4),
                                             Reservation(0, 50.0, math.inf, 4),
                                             Reservation(2, 1e-3, 7.0, 4)))
    out = writer("simgrid")
    assert out.losses(kept) == []
    path = out.write(kept, tmp_path / "p.xml")
    assert path.read_text().count('kind="SPEED"') == 2
    read = load_platform(path)
    assert read.reservations == kept.reservations and read.failures == FAILURES[:1] + (
        Failure(1, 100.0, 300.0), *FAILURES[3:])
    partial = replace(kept, reservations=(*kept.reservations, Reservation(1, 5.0, 9.0, 2)))
    assert out.losses(partial) == ["1 reservation(s) hold part of a node: SimGrid XML's "
                                   "speed profiles hold whole nodes"]
    assert load_platform(out.write(partial, tmp_path / "q.xml")).reservations == \
        kept.reservations
