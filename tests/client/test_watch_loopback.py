"""Issue 18, point 2: a spectator follows a bot table on loopback (127.0.0.1, no mDNS).

For each game, a spectator connected from the lobby on ends with the players' result, its live
observer session having consumed everything (`verify.unconsumed` is empty); the host counts it among
the watching, never among the players. A slow spectator (a tiny queue bound) is dropped and
catches up; a table that takes no spectators refuses them; garbage from a spectator closes its
link and the game goes on.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net.link import Refused, dial
from client.table.host import Host, HostOptions
from client.table.peer import PeerRunner
from client.table.seat import LOBBY_TABLE
from client.table.spectators import WATCH_ROLE, SpectatorLimits, Spectators
from client.table.watch import Watcher, WatchOptions, result_lines
from protocol.verify import unconsumed

GAMES = {
    "skyjo": {"target_score": 1},
    "skyjo-action": {"target_score": 1},
    "skip-bo": {"single_round": True, "stock_size": 5},
}
LIMIT = 240


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def bot_host(game: str, **extra: object) -> Host:
    """A table of the host's bot seat and two bots (`seats=4`: it waits for a joiner)."""
    opts = HostOptions(
        game=game,
        options=dict(GAMES[game]),
        seats=int(extra.pop("seats", 3)),  # type: ignore[call-overload]
        bots=2,
        headless="greedy",
        advertise=False,
        interface="127.0.0.1",
        **extra,  # type: ignore[arg-type]
    )
    return Host(opts, Ed25519PrivateKey.generate(), lambda line: None)


def same_result(watcher: Watcher, runner: PeerRunner | None) -> None:
    observer = watcher.runner
    assert runner is not None and runner.status.finished and not runner.status.halted
    assert observer is not None and observer.status.finished and observer.status.halted is None
    assert unconsumed(observer.session) == []
    assert observer.seat is None and observer.session.secret is None
    mine, theirs = observer.view, runner.view
    assert mine is not None and theirs is not None
    assert list(mine.totals) == list(theirs.totals) and list(mine.winners) == list(theirs.winners)
    assert result_lines(observer)[0].startswith("game over: ")


async def spectated(
    host: Host, say: Callable[[str], None] = lambda line: None
) -> tuple[Watcher, str, list[int]]:
    """Run `host`'s table with one spectator from the lobby on (the game starts once it is
    counted). Returns the watcher, its outcome, and every count the host's seat was told."""
    seen: list[int] = []
    outcome = ""
    full = host.start_problem
    counted: list[int] = []  # spectators when the game started (one may be dropped at once after)

    def problem() -> str | None:
        if not host.spectators.count:
            return "waiting for the spectator"
        found = full()
        if found is None:
            counted.append(host.spectators.count)
        return found

    host.start_problem = problem  # type: ignore[method-assign]
    async with trio.open_nursery() as nursery:
        lobby = await nursery.start(host.run)
        watcher = Watcher(WatchOptions(target=f"127.0.0.1:{lobby}"), say)

        async def watch() -> None:
            nonlocal outcome
            outcome = await watcher.run()

        nursery.start_soon(watch)
        with trio.fail_after(60):
            while host.runner is None:
                await trio.sleep(0.01)
        runner = host.runner
        hub = host.spectators  # the game's (the host makes new ones for a next game once it is over)
        assert counted[-1:] == [1] and len(host.seats) == 1, "a spectator takes no seat"

        async def count() -> None:
            while True:
                if not seen or seen[-1] != runner.watching:
                    seen.append(runner.watching)
                await runner.changed.wait()

        nursery.start_soon(count)
        with trio.fail_after(LIMIT):
            while not (outcome and runner.done):
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    host.spectators = hub
    return watcher, outcome, seen


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_a_spectator_follows_a_bot_table_to_the_players_result(game: str) -> None:
    host = bot_host(game)
    watcher, outcome, seen = await spectated(host)
    assert outcome == "finished"
    same_result(watcher, host.runner)
    assert 1 in seen, "the players were told one spectator watches"
    assert host.config is not None and host.config.players == 3
    assert watcher.received == len(host.spectators.frames)


async def test_a_slow_spectator_is_dropped_and_catches_up_from_the_transcript() -> None:
    host = bot_host("skyjo")
    # no frame may wait for it beyond its catch-up: the first frame of the game drops it; the
    # bound is back to the default before it reconnects (it says so first), so once only
    host.spectators.limits = SpectatorLimits(queue_frames=0)
    dropped: list[str] = []

    def say(line: str) -> None:
        if "dropped" in line:
            dropped.append(line)
            host.spectators.limits = SpectatorLimits()

    watcher, outcome, _seen = await spectated(host, say)
    assert outcome == "finished"
    assert watcher.drops == 1 and len(dropped) == 1 and "too far behind" in dropped[0], dropped
    same_result(watcher, host.runner)


async def test_a_table_without_spectators_refuses_them() -> None:
    host = bot_host("skyjo", spectators=0, seats=4)
    async with trio.open_nursery() as nursery:
        lobby = await nursery.start(host.run)
        watcher = Watcher(WatchOptions(target=f"127.0.0.1:{lobby}"), lambda line: None)
        with pytest.raises(Refused, match="no spectators"):
            await watcher.run()
        assert host.spectators.count == 0
        nursery.cancel_scope.cancel()


async def test_a_spectator_that_talks_is_closed_and_counted_out() -> None:
    spectators = Spectators()
    host = bot_host("skyjo", seats=4)
    host.spectators = spectators
    async with trio.open_nursery() as nursery:
        lobby = await nursery.start(host.run)
        stream = await trio.open_tcp_stream("127.0.0.1", lobby)
        link, accepted = await dial(
            stream, Ed25519PrivateKey.generate(), name="x", role=WATCH_ROLE, table=LOBBY_TABLE, port=0
        )
        assert accepted.get("watch") is True
        with trio.fail_after(10):
            while spectators.count != 1:
                await trio.sleep(0.01)
        nursery.start_soon(link.writer)
        link.send({"t": "chat", "text": "let me play"})
        with trio.fail_after(10):
            while spectators.count != 0:
                await trio.sleep(0.01)
        assert len(host.seats) == 1
        nursery.cancel_scope.cancel()
