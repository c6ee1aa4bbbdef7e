"""Issue 15, points 1, 5 and 8 over loopback, read from the screen: `join --resume` brings the
game screen back; a refused join is shown as a refusal and the password is asked on the spot;
`r` marks a person ready; a known host key is not "new"; the saved game's path after leaving."""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path

from .pty_driver import Pty, lobby_address, loopback_host


def _open_host(home: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[Pty, str, str]:
    """The host's screen, its lobby port and its key's fingerprint as its lobby shows them."""
    host = loopback_host(home, *extra, env=env)
    shown, port = lobby_address(host)
    key = re.search(r"ana \(you, host\)\s+(\S+)", shown)
    assert key is not None, shown
    return host, port, key.group(1)


def _saved_line(screen: Pty) -> str:
    """The 'Game saved: PATH' line the program prints once its screen is closed."""
    text = bytes(screen.raw).decode("utf-8", "replace")
    found = re.search(r"Game saved: (\S+)", text)
    assert found is not None, text[-1500:]
    return found.group(1)


def _face_up_in_box(screen: str, name: str) -> int:
    """The face-up cards in the grid box titled `name` on a table screen (0 if not shown); the
    box of the seat whose turn it is has heavy corners and a ▶ before the name."""
    lines = screen.splitlines()
    for row, line in enumerate(lines):
        title = re.search(rf"[╭┏][ ▶]*{re.escape(name)} [─━]", line)
        if title:
            start = title.start()
            end = min(i for i in (line.find("╮", start), line.find("┓", start)) if i >= 0) + 1
            return sum(  # a card face up: [ 9], or ‹ 9› while it is its player's last change
                len(re.findall(r"[\[‹]\s*-?\d+[\]›]", below[start:end])) for below in lines[row + 1 : row + 4]
            )
    return 0


def test_resume_brings_back_the_game_screen(tmp_path: Path) -> None:
    host, port, _key = _open_host(tmp_path / "host", "--seats", "3", "--bots", "1")
    guest: Pty | None = None
    again: Pty | None = None
    try:
        guest = Pty(["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"], tmp_path / "guest")
        guest.wait(lambda t: "Kitchen" in t and "ben (you)" in t, 30, "the guest's lobby")
        host.wait("waiting for ben to be ready", 30, "the host waiting for ben")
        guest.send("r")
        host.wait("s starts the game", 30, "ben ready")
        host.send("s")
        before = guest.wait("cards face up", 120, "the guest's setup prompt")
        host.wait("cards face up", 120, "the host's setup prompt")
        os.kill(guest.child.pid, signal.SIGKILL)
        guest.close()
        guest = None
        host.wait("ben ◌", 60, "the host seeing ben's link gone")

        again = Pty(["join", "--resume", "--lang", "en"], tmp_path / "guest")
        after = again.wait("cards face up", 90, "the resumed guest's game screen")
        # the same seat: the same others around the table, the same score sheet, the same prompt
        for screen in (before, after):
            assert re.search(r"╭ ana .*╭ bot 1", screen), screen
            assert re.search(r"ana\s+0\s+0\s*\n.*you\s+0\s+0\s*\n.*bot 1\s+0\s+0", screen), screen
        assert "Turn 2 of your cards face up" in after
        again.send("enter")
        again.wait("1 to go", 30, "the first card turned")
        again.send("right", "enter")
        again.wait("Waiting for ana", 60, "the resumed guest's two cards turned")
        host.send("enter")
        host.wait("(1 to go)", 30, "the host's first card")
        host.send("right", "enter")
        # the host's screen goes on with ben: his two cards are turned in his grid, his link is
        # back (his grid, not the log: the log shows what happened since the host's own last
        # move, and whether ben's turns came before or after it depends on the network)
        host.wait(
            lambda t: _face_up_in_box(t, "ben") >= 2 and "ben ●" in t, 60, "ben back at the host's table"
        )

        again.send("q")
        again.wait("Leave the table?", 30, "the quit dialog")
        again.send("y")
        again.finish(60)
        assert Path(_saved_line(again)).is_file()
        # ben left with a signed leave: the host's game has stopped, so q leaves at once
        # the log line, or (the game plays on with a bot in ben's seat, and may end meanwhile,
        # hiding the log behind the result) the seat's label, which stays
        host.wait(
            lambda t: "ben left the table" in t or "ben (bot: left)" in t, 60, "the host told that ben left"
        )
        host.send("q")  # a stopped game: q leaves at once; with issue 17's protocol it plays on: asked
        if (
            host.first(
                {
                    "asked": lambda t: "Leave and let a bot play" in t,
                    "ended": lambda t: not host.child.isalive(),
                },
                30,
            )
            == "asked"
        ):
            host.send("y")
        host.finish(60)
        assert Path(_saved_line(host)).is_file()
    finally:
        for screen in (host, guest, again):
            if screen is not None:
                screen.close()


def test_refusals_are_shown_and_the_password_is_asked_on_the_spot(tmp_path: Path) -> None:
    password = {"SKYJO_LAN_PASSWORD": "42-guitarist-revenge-hurricane"}
    host, port, key = _open_host(tmp_path / "host", "--seats", "2", "--password", env=password)
    screens: list[Pty] = [host]
    try:
        # ben has played with ana before: his machine knows her key
        known = tmp_path / "ben" / "config" / "skyjo-lan" / "known_peers.json"
        known.parent.mkdir(parents=True)
        known.write_text(json.dumps({key: {"name": "ana", "first_seen": 1, "last_seen": 1}}))
        ben = Pty(["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"], tmp_path / "ben")
        screens.append(ben)
        text = ben.wait(f"The table at 127.0.0.1:{port} needs a password.", 30, "the password refusal")
        assert "0/0 seated" not in text and "Ready" not in text  # not an empty lobby
        assert "Password:" in text
        ben.send(*"41-guitarist-revenge-hurricane", "enter")
        text = ben.wait(
            f"Wrong password for the table at 127.0.0.1:{port}.", 30, "the wrong password refusal"
        )
        ben.send(*"42 Guitarist revenge hurricane", "enter")  # spaces, capitals: alike
        lobby = ben.wait(lambda t: "ben (you)" in t and "Check each key" in t, 30, "ben seated")
        host_row = next(line for line in lobby.splitlines() if "ana (host" in line)
        assert key in host_row and "new key" not in host_row, lobby

        chloe = Pty(["join", f"127.0.0.1:{port}", "--nick", "chloe", "--lang", "en"], tmp_path / "chloe")
        screens.append(chloe)
        chloe.wait(f"The table at 127.0.0.1:{port} needs a password.", 30, "the password refusal")
        chloe.send(*"42-guitarist-revenge-hurricane", "enter")
        text = chloe.wait("is full (2/2).", 30, "the full table")
        assert "free a seat" in text
        chloe.send("q")
        chloe.finish(30)

        host.wait("waiting for ben to be ready", 30, "the host waiting for ben")
        host.send("s")  # not started: ben is not ready
        ben.send("r")
        host.wait("s starts the game", 30, "ben ready")
        host.send("s")
        host.wait("cards face up", 120, "the game started")

        dmitri = Pty(
            ["join", f"127.0.0.1:{port}", "--nick", "dmitri", "--password", "--lang", "en"],
            tmp_path / "dmitri",
            env=password,
        )
        screens.append(dmitri)
        text = dmitri.wait("has already started", 30, "the started game")
        assert "join --resume" in text
    finally:
        for screen in screens:
            screen.close()
