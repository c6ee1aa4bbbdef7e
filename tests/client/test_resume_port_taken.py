"""A resumed program whose port another program took meanwhile still rejoins its game.

The lower seats dial a seat at the port the table gave it. A program killed mid-game frees that
port, and before `join --resume` runs, any other program on the machine may take it (another
skyjo-lan table draws from the same range). The resumed program then listens on another port and
tells the lower seats where (`client.net.mesh`, "moved"): the host notes it from the
authenticated handshake and dials it there, and the game finishes.

Real programs on loopback (127.0.0.1, no mDNS). Every wait is bounded and waits for what the
programs say or log, never for a delay.
"""

from __future__ import annotations

import re
import signal
import socket
from pathlib import Path

from client.table.saved import ResumeInfo
from tests.client.test_again_loopback import start, text
from tests.client.test_remote_ends import ended, finished_game, healthy, host_argv, logged, said


def saved_port(tmp_path: Path, who: str) -> int:
    """The port the seat of `who`'s saved game listens on (its `.resume` file)."""
    files = sorted((tmp_path / f"data-{who}" / "skyjo-lan" / "games").glob("*.resume"))
    assert files, f"no .resume file for {who}"
    return ResumeInfo.load(files[-1]).port


def hold(port: int) -> socket.socket | None:
    """A listening socket on 127.0.0.1:`port`, which never answers (None: some other program
    already holds the port, which is the situation under test as well)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        return None
    sock.listen(8)
    return sock


async def test_a_resumed_program_whose_port_was_taken_listens_elsewhere_and_the_game_finishes(
    tmp_path: Path,
) -> None:
    host = start(tmp_path, "host", host_argv("--seats", "2", "--think-time", "0.15", "--nick", "ann"))
    joiner = resumed = blocker = None
    try:
        found = await said(host, r" open on 127\.0\.0\.1:(\d+)")
        target = f"127.0.0.1:{found.group(1)}"
        joiner = start(tmp_path, "ben", ["join", target, "--bot", "greedy", "--nick", "ben"])
        await said(joiner, r"ben: (flip|replace|discard)")
        joiner.send_signal(signal.SIGKILL)
        await ended(joiner, 30)
        assert "game over" not in text(host), "the game ended before the kill: nothing was tested"
        port = saved_port(tmp_path, "ben")
        blocker = hold(port)
        resumed = start(tmp_path, "ben", ["join", "--resume", "--bot", "greedy"], log_as="ben-resumed")
        moved = await said(resumed, rf"port {port} is taken by another program: listening on (\d+)")
        new_port = int(moved.group(1))
        assert new_port != port
        # the host heard it from ben's own (authenticated) handshake, and dials ben there
        await logged(tmp_path, "host", rf"seat 1 listens on port {new_port} now \(it was {port}\)")
        assert await ended(host) == 0, text(host)[-3000:]
        healthy(host)
        finished_game(tmp_path, "host")
        assert await ended(resumed) == 0, text(resumed)[-3000:]
        finished_game(tmp_path, "ben")
        assert not re.search(r"resume ends", text(resumed)), text(resumed)[-3000:]
    finally:
        if blocker is not None:
            blocker.close()
        for process in (host, joiner, resumed):
            if process is not None and process.poll() is None:
                process.kill()
