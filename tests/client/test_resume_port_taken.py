"""A resumed program whose port another program took meanwhile still rejoins its game.

The lower seats dial a seat at the port the table gave it. A program killed mid-game frees that
port, and before `join --resume` runs, any other program on the machine may take it (another
skyjo-lan table draws from the same range). The resumed program then listens on another port and
tells the lower seats where (`client.net.mesh`, "moved"): the host notes it from the
authenticated handshake and dials it there, and the game finishes.

The first test runs real programs on loopback (127.0.0.1, no mDNS); the second, two seats in
this process. Every wait is bounded and waits for what the programs say or log (or for the
seats' own state), never for a delay.
"""

from __future__ import annotations

import logging
import re
import secrets
import signal
import socket
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net import link as link_module
from client.net.link import Refused, TableClaim, dial
from client.net.mesh import MOVES_PER_SEAT, PORT_NOTED
from client.table.peer import PeerRunner
from client.table.saved import ResumeInfo
from client.table.seat import Peer, open_listener
from skyjo_p2p.bots import make_bot
from tests.client.test_again_loopback import start, text
from tests.client.test_lan_genesis import table
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


async def test_a_lower_seat_notes_a_moved_port_from_the_handshake_dials_there_and_saves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(link_module, "HANDSHAKE_TIMEOUT", 4.0)
    caplog.set_level(logging.INFO, logger="skyjo_lan.mesh")
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    config = table(keys, ["anna", "bob"], secrets.token_bytes(32))
    first, second = await open_listener("127.0.0.1"), await open_listener("127.0.0.1")
    blocker = socket.socket()  # the table's port for bob, held by a program that never answers
    blocker.bind(("127.0.0.1", 0))
    blocker.listen(8)
    old, new = blocker.getsockname()[1], second.socket.getsockname()[1]
    peers = [
        Peer(
            config,
            seat,
            keys[seat],
            listener,
            [("127.0.0.1", first.socket.getsockname()[1]), ("127.0.0.1", old)],
            make_bot("greedy", "skyjo", secrets.token_hex(8)),
            save=seat == 0,
        )
        for seat, listener in enumerate((first, second))
    ]
    runners = [peer.build() for peer in peers]

    def linked(runners: list[PeerRunner]) -> bool:
        anna, bob = runners
        link = anna.links.get(1)
        return (
            link is not None
            and link.status == "connected"
            and anna.session.next_seq_of(1) > 0
            and bob.status.started
        )

    try:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for peer in peers:
                    nursery.start_soon(peer.play)
                while not linked(runners):
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
    finally:
        blocker.close()
    resume = peers[0].resume
    assert resume is not None
    assert ResumeInfo.load(resume.path).addresses[1] == ("127.0.0.1", new), "the new port is not saved"
    assert f"seat 1 listens on port {new} now (it was {old})" in caplog.text
    assert f"told seat 0 our port {new}: {PORT_NOTED} {new}" in caplog.text


async def test_a_seat_telling_new_ports_in_a_loop_is_noted_a_bounded_number_of_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    config = table(keys, ["anna", "bob"], secrets.token_bytes(32))
    listener = await open_listener("127.0.0.1")
    anna_port = listener.socket.getsockname()[1]
    silent = socket.socket()  # where anna dials bob: nobody answers, the game never starts
    silent.bind(("127.0.0.1", 0))
    anna = Peer(
        config,
        0,
        keys[0],
        listener,
        [("127.0.0.1", anna_port), ("127.0.0.1", silent.getsockname()[1])],
        make_bot("greedy", "skyjo", secrets.token_hex(8)),
    )
    anna.build()
    saves = []
    original = Peer._addresses_changed
    monkeypatch.setattr(Peer, "_addresses_changed", lambda peer: (saves.append(1), original(peer))[1])
    answers = []
    try:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(anna.play)
                for told in range(40001, 40001 + MOVES_PER_SEAT + 4):
                    stream = await trio.open_tcp_stream("127.0.0.1", anna_port)
                    with pytest.raises(Refused) as refused:
                        await dial(
                            stream,
                            keys[1],
                            name="bob",
                            role="peer",
                            table=config.session_id,
                            port=told,
                            expect_key=config.identities[0],
                            claim=TableClaim(config.genesis_hash, None),
                        )
                    await stream.aclose()
                    answers.append(str(refused.value))
                nursery.cancel_scope.cancel()
    finally:
        silent.close()
    last = 40000 + MOVES_PER_SEAT
    assert answers[:MOVES_PER_SEAT] == [f"{PORT_NOTED} {40001 + i}" for i in range(MOVES_PER_SEAT)]
    assert all(a.endswith(f"port {last}: too many port changes") for a in answers[MOVES_PER_SEAT:]), answers
    assert anna.addresses[1] == ("127.0.0.1", last)
    assert len(saves) == MOVES_PER_SEAT, "a save for each port noted, none beyond the cap"
    assert anna.resume is not None and ResumeInfo.load(anna.resume.path).addresses[1] == ("127.0.0.1", last)
