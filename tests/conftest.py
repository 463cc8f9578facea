"""Fixtures shared by the test modules (helpers live in ``support.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import SHARED_DATA


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data`` (the real traces and platforms); skips when it is not there."""
    if not SHARED_DATA.is_dir():
        pytest.skip("shared data not available")
    return SHARED_DATA
