"""Fixtures of the curses client's end-to-end tests: programs started in a real pseudo-terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .pty_driver import Pty


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Callable[..., Pty]]:
    """`run("play", "--bots", "1")` starts `skyjo-lan play --bots 1` in a pseudo-terminal whose
    home is the test's own folder (or `home=`); every program started is closed at the end."""
    started: list[Pty] = []

    def start(*args: str, home: Path = tmp_path, **kwargs: object) -> Pty:
        pty = Pty(args, home, **kwargs)  # type: ignore[arg-type]
        started.append(pty)
        return pty

    yield start
    for pty in started:
        pty.close()
