"""Every test: the program's log files (`client.logs`) go to the test's own directory, and the
log handlers a command set up are removed after it (so no test writes to the real home)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _log_files_in_the_test_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    yield
    from client import logs

    logs.reset()
