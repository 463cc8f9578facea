"""Pytest configuration shared by the test modules (helpers live in ``support.py``; a test that
needs the shared data calls ``support.shared``)."""

import pytest

# the helpers' asserts show the values compared when they fail, as the tests' own do
pytest.register_assert_rewrite("support")
