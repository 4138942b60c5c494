"""Every test under tests/e2e is marked `e2e`: they start the real server in a subprocess, so
`make test-fast` leaves them out (`-m "not slow and not e2e"`); `make test` runs them."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A conftest's collection hook sees the whole session's items, not only this directory's.
    for item in items:
        if item.path.resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.e2e)
