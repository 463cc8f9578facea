"""Pytest configuration shared by the test modules (helpers live in ``support.py``; a test that
needs the shared data calls ``support.shared``)."""

import sys

import pytest

# the helpers' asserts show the values compared when they fail, as the tests' own do
pytest.register_assert_rewrite("support")


@pytest.fixture(scope="session")
def easy_run_dir(tmp_path_factory):
    """A run directory of the bundled example under EASY (read only: tests write elsewhere)."""
    import hetsched

    folder = tmp_path_factory.mktemp("easy_example") / "run"
    hetsched.simulate(None, None, "easy").write(folder)
    return folder


@pytest.fixture(autouse=True)
def _figures_closed():
    """Every figure a test leaves open is closed after it (pyplot keeps them: a worker that
    runs many figure tests would hold them all), without importing matplotlib for the
    others."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
