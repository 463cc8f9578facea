"""collector_paused: the cyclic collector off inside, as it was after (also after an error)."""

from __future__ import annotations

import gc

import pytest

from hetsched.workload.bulk import collector_paused


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_off_inside_and_as_it_was_after(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with pytest.raises(KeyError), collector_paused():
            assert not gc.isenabled()
            raise KeyError("a loader's error")
        assert gc.isenabled() is enabled
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
