"""Invalid table options are refused before anything runs (issue 12): the host's command exits 2
with one clear line, a host started with too few players for its options stays in the lobby and
says why, and a joiner handed a genesis its engine refuses shows the refusal instead of starting
(or crashing)."""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from typing import Any

import msgpack
import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.cli import main
from client.net import link as link_module
from client.net.link import Refused, accept
from client.table.host import Host, HostOptions
from client.table.join import Joiner, JoinOptions
from client.table.seat import LOBBY_TABLE
from protocol.config import PROTOCOL_VERSION
from skyjo_p2p.action.cards import KIND_NAMES
from skyjo_p2p.core.errors import OptionError

EVERY_KIND = ",".join(KIND_NAMES.values())  # valid, but longer than a genesis carries
ZERO_ACTION_CARDS = ["--option", "action_kinds=peek-line", "--option", "card_counts=peek-line:0"]


@pytest.fixture(autouse=True)
def private_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(link_module, "HANDSHAKE_TIMEOUT", 2.0)


def host(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["host", "--bot", "greedy", "--no-mdns", "--interface", "127.0.0.1", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--game", "skyjo-action", "--seats", "3", *ZERO_ACTION_CARDS], "at least one action card"),
        (
            ["--game", "skyjo", "--option", "target_score=-5"],
            "option target_score must be at least 1, not -5",
        ),
        (["--game", "skip-bo", "--seats", "3", "--option", "teams=on"], "teams are played by 4 or 6"),
        (["--game", "skyjo", "--option", "rows=perhaps"], "option rows must be true or false"),
        (["--game", "skyjo", "--seats", "9"], "skyjo is played by 2 to 8 players, not 9"),
        (["--game", "skyjo", "--option", "speed=fast"], "unknown option 'speed'"),
        (["--game", "skyjo-action", "--option", f"action_kinds={EVERY_KIND}"], "at most 64 characters"),
    ],
)
def test_host_with_invalid_options_exits_2_with_one_clear_line(
    argv: list[str], reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = host(argv, capsys)
    assert code == 2
    assert err.startswith("skyjo-lan host: ") and reason in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "open on" not in out  # no lobby was opened


def test_host_command_prints_no_traceback() -> None:
    """The whole program, as a person runs it: one line on standard error, exit code 2."""
    argv = [
        "host",
        "--bot",
        "greedy",
        "--no-mdns",
        "--game",
        "skyjo-action",
        "--seats",
        "3",
        *ZERO_ACTION_CARDS,
    ]
    done = subprocess.run(
        [sys.executable, "-m", "client", *argv], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "skyjo-lan host: the standard game needs at least one action card, and action_kinds and "
        "card_counts leave none (variant=stars-only is the game without action cards)"
    ]


async def test_host_refuses_invalid_options_before_opening_the_lobby() -> None:
    with pytest.raises(OptionError, match="target_score"):
        HostOptions(game="skyjo", options={"target_score": -5}, seats=2, advertise=False)
    opts = HostOptions(game="skyjo", options={"target_score": 5}, seats=2, advertise=False)
    opts.options["target_score"] = -5  # changed after it was checked
    with trio.fail_after(10), pytest.raises(OptionError, match="target_score"):
        await Host(opts, Ed25519PrivateKey.generate(), lambda line: None).run()


async def test_host_started_with_too_few_players_for_its_options_stays_in_the_lobby() -> None:
    lines: list[str] = []
    opts = HostOptions(
        game="skip-bo",
        options={"teams": "on"},
        seats=4,
        bots=2,
        advertise=False,
        interface="127.0.0.1",
        name="host",
    )
    table = Host(opts, Ed25519PrivateKey.generate(), lines.append)
    async with trio.open_nursery() as nursery:
        await nursery.start(table.run)
        table.start_now.set()  # 3 of 4 seats taken: teams need 4 or 6
        with trio.fail_after(10):
            while table.problem is None:
                await trio.sleep(0.02)
        # everything that could still happen has had its chance (every task is waiting), not
        # "a short while has passed", which a loaded machine may not honour
        with trio.fail_after(10):
            await trio.testing.wait_all_tasks_blocked(cushion=0.05)
        assert not table.started and table.config is None
        assert "teams are played by 4 or 6 players, not 3" in table.problem
        assert any(line.startswith("cannot start yet: invalid table options: teams") for line in lines)
        nursery.cancel_scope.cancel()


def bad_genesis(host_key: bytes, my_key: bytes) -> bytes:
    """A genesis laid out as `TableConfig.encode` lays it out, with options no engine accepts."""
    return bytes(
        msgpack.packb(
            {
                "v": PROTOCOL_VERSION,
                "sid": b"s" * 32,
                "game": "skyjo-action",
                "players": 3,
                "options": {"action_kinds": "peek-line", "card_counts": "peek-line:0"},
                "ids": [host_key, my_key, b"b" * 32],
                "names": ["evil", "me", "bot"],
            },
            use_bin_type=True,
        )
    )


async def test_joiner_refuses_a_genesis_with_invalid_options() -> None:
    host_key = Ed25519PrivateKey.generate()
    my_key = Ed25519PrivateKey.generate()
    genesis = bad_genesis(host_key.public_key().public_bytes_raw(), my_key.public_key().public_bytes_raw())

    async def evil_host(stream: trio.SocketStream) -> None:
        link, _ = await accept(
            stream,
            host_key,
            name="evil",
            table=LOBBY_TABLE,
            password=None,
            admit=lambda peer, hello: None,
            accepted=lambda peer, hello: {"seat": 1},
        )
        link.send({"t": "lobby", "table": "evil", "game": "skyjo-action", "seats": [], "total": 3})
        link.send({"t": "start", "genesis": genesis, "gsig": b"\0" * 64, "seat": 1, "addresses": []})
        # keep the connection open until the test ends (its nursery is cancelled): the joiner
        # must refuse the table it was sent, not see the connection drop after a fixed delay
        await link.writer()

    lines: list[str] = []
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, evil_host, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        joiner = Joiner(
            JoinOptions(target=f"127.0.0.1:{port}", name="me", headless="greedy", interface="127.0.0.1"),
            my_key,
            lines.append,
        )
        with trio.fail_after(20), pytest.raises(Refused, match="invalid table options") as refused:
            await joiner.run()
        nursery.cancel_scope.cancel()
    assert "at least one action card" in refused.value.args[0]
    assert joiner.closed.startswith("the host's table is refused: invalid table options: ")
    assert joiner.runner is None and not joiner.started


def test_verify_of_a_transcript_with_invalid_options_exits_2(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`skyjo-lan verify` reads the genesis through `TableConfig.decode`: refused, one line, exit 2."""
    header = msgpack.packb(
        {"skyjo-lan": "transcript", "v": 1, "genesis": bad_genesis(b"h" * 32, b"m" * 32)}, use_bin_type=True
    )
    path = tmp_path / "bad.skyjo"
    path.write_bytes(header + msgpack.packb(b"\x00" * 40, use_bin_type=True))
    code = main(["verify", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "invalid table options: the standard game needs at least one action card" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_local_table_refuses_options_no_genesis_carries() -> None:
    """`play` builds its table like a host: text the rules accept offline but a genesis cannot
    carry is an `OptionError` (exit 2 from the command), not a crash."""
    from client.table.local import LocalTable

    with pytest.raises(OptionError, match="at most 64 characters"):
        LocalTable("skyjo-action", 2, "greedy", {"action_kinds": EVERY_KIND}, save=False)
    LocalTable("skyjo-action", 2, "greedy", {"action_kinds": "defense"}, save=False)
