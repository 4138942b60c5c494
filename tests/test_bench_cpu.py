"""The benchmark reads a process's CPU time from /proc: it grows with work, and a missing process
reads as unknown rather than failing the run."""

from __future__ import annotations

import os
import sys
import time

import pytest

from bench.__main__ import process_cpu_seconds

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_cpu_time_grows_with_work():
    before = process_cpu_seconds(os.getpid())
    assert before is not None
    started = time.process_time()
    while time.process_time() - started < 0.2:
        pass
    after = process_cpu_seconds(os.getpid())
    assert after is not None
    assert 0.15 <= after - before < 5


def test_a_missing_process_reads_as_unknown():
    assert process_cpu_seconds(2**22 + 1) is None  # above the kernel's largest pid
