"""Issue 28, point 11: `join --resume` says which game it would continue (the game, when it was
last saved, the players) and finds out at once whether anyone of its table still answers; when
nobody does, it asks before waiting for them (a game the others finished long ago is not
resumed without a word)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from client.table.saved import ResumeInfo
from client.table.which import describe, told
from protocol.loopback import make_table
from protocol.transcript import header

from .pty_driver import Pty


def saved_game(folder: Path, addresses: list[tuple[str, int]], age: float = 25 * 60) -> ResumeInfo:
    """An unfinished game of Anna, Ben and Chloé (seat 3, this machine), its header only, saved
    `age` seconds ago, with its .resume file."""
    config, _keys = make_table("skyjo", 3, {"target_score": 30}, names=("Anna", "Ben", "Chloé"))
    folder.mkdir(parents=True, exist_ok=True)
    transcript = folder / f"20261128-165500-skyjo-{config.session_id[:4].hex()}.skyjo"
    transcript.write_bytes(header(config))
    info = ResumeInfo(transcript, config.encode(), 2, "127.0.0.1", 0, [*addresses, ("127.0.0.1", 0)])
    info.save()
    then = time.time() - age
    for path in (transcript, info.path):
        os.utime(path, (then, then))
    return info


def closed_port() -> int:
    """A port nothing listens on (bound then closed: connecting to it is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_game_is_described_and_who_answers_is_said(tmp_path: Path) -> None:
    with socket.socket() as anna:
        anna.bind(("127.0.0.1", 0))
        anna.listen()
        info = saved_game(tmp_path, [anna.getsockname(), ("127.0.0.1", closed_port())])
        line = describe(info)
        assert line.startswith("SKYJO, last saved ") and "(25 min ago)" in line
        assert "with Anna, Ben and you (Chloé, seat 3)" in line
        said: list[str] = []
        assert told(info, said.append, lambda _q: "n")  # someone answers: no question
        assert said[1] == "answering now: Anna; not (yet): Ben"


def test_join_resume_asks_before_waiting_for_a_table_nobody_answers_at(tmp_path: Path) -> None:
    games = tmp_path / "data" / "skyjo-lan" / "games"
    saved_game(games, [("127.0.0.1", closed_port()), ("127.0.0.1", closed_port())])
    pty = Pty(["join", "--resume", "--lang", "en"], tmp_path, cols=120)
    try:
        shown = pty.wait("wait for them? [y/N]", 60, "the question")
        assert "resuming: SKYJO, last saved " in shown and "(25 min ago)" in shown
        assert "with Anna, Ben and you (Chloé, seat 3)" in shown
        assert "nobody of that table answers now (Anna, Ben)" in shown
        pty.send("n", "enter")
        assert pty.finish(30) == 1
        assert "not resumed; the saved game stays in" in pty.text
    finally:
        pty.close()
