"""The session's parts: every side frame kind has its handler, and the session stays one file a
newcomer can read (issue 25 point 4)."""

from __future__ import annotations

from pathlib import Path

import protocol.session
from protocol.intake import SIDE_HANDLERS
from protocol.messages import SIDE_KINDS


def test_every_side_frame_kind_has_a_handler() -> None:
    """A new side kind without a handler would crash on receipt (a KeyError is an internal
    error that stops the game): the table must list every kind, and only those."""
    assert set(SIDE_HANDLERS) == set(SIDE_KINDS)


def test_issue25_session_py_stays_well_under_a_thousand_lines() -> None:
    lines = Path(protocol.session.__file__).read_text(encoding="utf-8").count("\n")
    assert lines < 930, f"protocol/session.py has {lines} lines: give the new part its own module"
