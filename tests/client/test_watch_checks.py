"""Issue 25, point 3 (a spectator is shown the players' game) and issue 26, point 5 (a spectator
dropped is told what happened), in process.

* A spectator sees whom it watches: each seat's name with its key fingerprint, as the players
  see each other in the lobby; once every seat's own first frame chained from the genesis the
  host showed, it says so.
* A host that shows a table its players did not sign (same session, other names; or frames of
  another session) is named: the spectator stops, and no seat is blamed (before: the observer
  blamed an honest seat for a "broken chain").
* A spectator whose connection the host resets, or closes without a word (as it does to a
  spectator it dropped while that program was stopped), says what happened and tries again
  (before: "the host closed the connection before the game started", and it gave up).
"""

from __future__ import annotations

import socket
import struct
from dataclasses import replace
from typing import Any

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net.framing import encode_frame
from client.net.link import Refused, accept
from client.net.linkproto import PeerIdentity, pack
from client.net.mesh import sign_genesis
from client.storage import fingerprint
from client.table.seat import LOBBY_TABLE
from client.table.signedtable import NotSignedByPlayers, SignedTable
from client.table.watch import WatchEnded, Watcher, WatchOptions
from protocol.messages import peek_seat
from tests.protocol.harness import Net


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.fixture(scope="module")
def played() -> Net:
    """A 3-seat table that played until every seat sent a few frames (the host's view: seat 0)."""
    net = Net("skyjo", 3, {"target_score": 1})
    net.start(until=lambda: len(net.sessions[0].frames) > 30)
    return net


class _HostEnd:
    """What `Watcher._table` reads of a link: the key of the host it reached."""

    def __init__(self, key: bytes) -> None:
        self.peer = PeerIdentity(key, "host", 0, "127.0.0.1")


async def watch_frames(net: Net, config: Any, frames: list[bytes]) -> Watcher:
    """A watcher shown `config` (signed by seat 0's key, as a host signs) and then `frames`."""
    watcher = Watcher(WatchOptions(target="127.0.0.1:9"), lambda line: None)
    async with trio.open_nursery() as nursery:
        watcher._nursery = nursery
        link = _HostEnd(config.identities[0])
        table = {"t": "table", "genesis": config.encode(), "gsig": sign_genesis(net.keys[0], config)}
        await watcher._table(link, table)  # type: ignore[arg-type]
        try:
            await watcher._frames({"t": "frames", "from": 0, "f": frames})
        except WatchEnded as exc:
            ended = exc
        else:
            ended = None
        nursery.cancel_scope.cancel()
    if ended is not None:
        raise ended
    return watcher


def seat_of(frame: bytes) -> int:
    return peek_seat(frame)  # type: ignore[no-any-return]


async def test_a_spectator_sees_whom_it_watches_with_their_fingerprints(played: Net) -> None:
    config = played.config
    watcher = await watch_frames(played, config, list(played.sessions[0].frames))
    fps = [fingerprint(key) for key in config.identities]
    assert watcher.players == [
        f"p0 [{fps[0]}] (seat 1, the host)",
        f"p1 [{fps[1]}] (seat 2)",
        f"p2 [{fps[2]}] (seat 3)",
    ]
    assert watcher.runner is not None
    told = [entry.text for entry in watcher.runner.log if entry.kind == "info"]
    for who in watcher.players:
        assert f"watching {who}" in told
    assert any("compare these fingerprints" in line for line in told)
    assert watcher.signed is not None and watcher.signed.complete
    assert "every player's own first frame signs this table (its genesis)" in told
    assert not watcher.runner.status.blamed and watcher.runner.status.halted is None


async def test_a_host_that_shows_a_table_its_players_did_not_sign_is_named(played: Net) -> None:
    # the same players, keys and session, other names: the host signs it, the players never did
    made_up = replace(played.config, names=("p0", "Alice", "Bob"))
    assert made_up.genesis_hash != played.config.genesis_hash
    others = [frame for frame in played.sessions[0].frames if seat_of(frame) != 0]
    with pytest.raises(WatchEnded) as ended:
        await watch_frames(played, made_up, others)
    p1 = fingerprint(played.config.identities[1])
    assert str(ended.value) == (
        f"the host, p0 [{fingerprint(played.config.identities[0])}] (seat 1, the host), sent a table "
        f"that Alice [{p1}] (seat 2) did not sign: its first frame follows another table's genesis; "
        "this is not the table its players play"
    )
    # with the host's own frames first: its own frame does not follow the table it showed
    with pytest.raises(WatchEnded, match="sent a table that its own first frame does not follow"):
        await watch_frames(played, made_up, list(played.sessions[0].frames))


async def test_frames_of_another_session_are_the_host_s_doing(played: Net) -> None:
    other = replace(played.config, session_id=b"\x07" * 32)
    named = r"the host, p0 \[.*\] \(seat 1, the host\), sent frames of another game"
    with pytest.raises(WatchEnded, match=named):
        await watch_frames(played, other, list(played.sessions[0].frames))


def test_the_check_takes_each_seat_s_first_frame_once(played: Net) -> None:
    signed = SignedTable(played.config)
    for frame in played.sessions[0].frames:
        signed.check(frame)
    assert signed.complete and signed.signed == {0, 1, 2}
    made_up = replace(played.config, options={"target_score": 2})
    with pytest.raises(NotSignedByPlayers, match="this is not the table its players play"):
        for frame in played.sessions[0].frames:
            SignedTable(made_up).check(frame)
    SignedTable(played.config).check(b"\xc1 junk")  # not a frame at all: the session's to refuse


# --- a connection lost: said as what it was, and tried again ------------------------------------


async def fake_host(how: str, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """A host's lobby that admits one spectator, says how many watch, then resets the connection
    (`reset`: SO_LINGER 0), closes it (`closed`), or says nothing more (`silent`); then refuses
    every further spectator ("the game is over"). `again`: every spectator is closed as `closed`."""
    identity = Ed25519PrivateKey.generate()
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    task_status.started(listener.socket.getsockname()[1])
    served = 0

    async def one(stream: trio.SocketStream, first: bool) -> None:
        def admit(peer: PeerIdentity, hello: dict[str, Any]) -> str | None:
            return None if first or how == "again" else "the game is over"

        try:
            await accept(
                stream,
                identity,
                name="host",
                table=LOBBY_TABLE,
                password=None,
                admit=admit,
                accepted=lambda peer, hello: {"watch": True, "table": "kitchen"},
            )
        except Refused:
            await stream.aclose()
            return
        await stream.send_all(encode_frame(pack({"t": "watching", "n": 1})))
        if how == "reset":
            stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            await stream.aclose()
        elif how in ("closed", "again"):
            await stream.aclose()
        else:
            await trio.sleep_forever()

    async with listener, trio.open_nursery() as nursery:
        while True:
            stream = await listener.accept()
            served += 1
            nursery.start_soon(one, stream, served == 1)


@pytest.mark.parametrize(
    ("how", "told"),
    [
        ("reset", "the connection was reset"),
        ("closed", "the host closed it without a word (it does so to a spectator that falls too far behind"),
        ("silent", "no word from the host for 0.5 s"),
    ],
)
async def test_a_spectator_that_lost_the_host_says_why_and_tries_again(how: str, told: str) -> None:
    lines: list[str] = []
    async with trio.open_nursery() as nursery:
        port = await nursery.start(fake_host, how)
        watcher = Watcher(WatchOptions(target=f"127.0.0.1:{port}", dead_after=0.5), lines.append)
        with trio.fail_after(30), pytest.raises(Refused, match="the game is over"):
            await watcher.run()  # tried again: the host now says why it takes no more
        nursery.cancel_scope.cancel()
    assert any(line.startswith("lost the connection to the host: " + told) for line in lines), lines
    assert not any("closed the connection before the game started" in line for line in lines)


# --- on the screen: `?` lists whom the spectator watches, with their fingerprints ---------------


@pytest.mark.parametrize(("lang", "heading"), [("en", "compare each fingerprint"), ("fr", "comparez chaque")])
def test_the_spectator_s_help_lists_the_players_with_their_fingerprints(lang: str, heading: str) -> None:
    from client.ui.app import GameUI
    from client.ui.caps import Caps
    from client.ui.render import render
    from tests.client.ui.scenes import OfflineTable

    who = ["Anna [abcd-efgh-ijkl-mnop] (seat 1, the host)", "Ben [qrst-uvwx-yz23-4567] (seat 2)"]
    ui = GameUI(OfflineTable("skyjo", 2, seed=5).source(), lang, read_only=True, players=who)
    ui.handle_key("?")
    text = "\n".join(render(ui.screen(), 100, 30, Caps()).text())
    assert heading in text
    for line in who:
        assert line in text


async def test_a_host_that_closes_every_connection_is_given_up_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from client.table import watch as watch_module

    monkeypatch.setattr(watch_module, "RETRIES", (0.01, 0.01, 0.01))
    lines: list[str] = []
    async with trio.open_nursery() as nursery:
        port = await nursery.start(fake_host, "again")
        watcher = Watcher(WatchOptions(target=f"127.0.0.1:{port}"), lines.append)
        with trio.fail_after(60), pytest.raises(WatchEnded, match="lost again and again"):
            await watcher.run()
        nursery.cancel_scope.cancel()
    assert (
        sum(line.startswith("lost the connection to the host") for line in lines) == watch_module.MOST_LOSSES
    )
