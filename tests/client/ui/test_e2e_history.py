"""`skyjo-lan history` and `skyjo-lan ranking` in a real terminal, over a data folder of saved games
(XDG_DATA_HOME in the test's directory): a finished game of each of the three games and a
tampered copy, which is listed as not counting and left out of the ranking."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.client.saved_games import Saved, fingerprint, play

from .pty_driver import Pty


@pytest.fixture(scope="module")
def saved() -> list[Saved]:
    return [
        play("skyjo", seed="e1"),
        play("skyjo-action", ("Ben", "Chloé", "Anna"), seed="e2"),
        play("skip-bo", ("Chloé", "Anna"), seed="e3"),
    ]


def test_history_and_ranking_in_a_terminal(saved, tmp_path: Path) -> None:
    games = tmp_path / "data" / "skyjo-lan" / "games"
    for n, game in enumerate(saved):
        game.write(games, f"2026110{n + 1}-200000")
    saved[0].write(games, "20261104-200000", saved[0].tampered())

    pty = Pty(["history"], tmp_path, cols=100, rows=50)
    try:
        text = pty.wait(lambda t: t.count("counts") >= 3 and "does not count" in t, 60, "the listing")
        assert pty.finish() == 0
    finally:
        pty.close()
    text = pty.text
    assert "4 saved game(s) in " in text and "3 counting for the ranking" in text
    assert "does not count: does not verify: " in text and "no seat is to blame" in text
    for title in ("SKYJO  3 players", "SKYJO ACTION  3 players", "SKIP-BO  2 players"):
        assert title in text
    assert fingerprint("Anna") in text and fingerprint("Chloé") in text

    pty = Pty(["ranking"], tmp_path, cols=100, rows=50)
    try:
        pty.wait("openskill Plackett-Luce", 60, "the ranking")
        assert pty.finish() == 0
    finally:
        pty.close()
    text = pty.text
    assert "SKYJO: 1 game(s) counted, 1 rated" in text  # the tampered copy is not counted
    assert "SKYJO ACTION: 1 game(s) counted, 1 rated" in text
    assert "SKIP-BO: 1 game(s) counted, 1 rated" in text
    assert text.count(fingerprint("Anna")) == 3
