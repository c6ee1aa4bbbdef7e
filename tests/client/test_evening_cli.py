"""Issue 28, points 6 and 8, without a network: finding a table by name (whatever the capitals;
"did you mean"; the tables seen), a full table refused before any password is asked, a playing
table watched, and the password taken from $SKYJO_LAN_PASSWORD without `--password`."""

from __future__ import annotations

import argparse

import pytest

from client import cli
from client.net.discovery import TableAd
from client.table import join as join_module
from client.table.join import JoinOptions, LinkError, Refused, find_table

KITCHEN = TableAd("Kitchen", "10.0.0.1", 28700, "skyjo", 2, 3, addresses=["10.0.0.1"])
FULL = TableAd("Attic", "10.0.0.2", 28701, "skyjo", 3, 3, password=True, addresses=["10.0.0.2"])


@pytest.fixture
def lan(monkeypatch: pytest.MonkeyPatch) -> list[TableAd]:
    tables = [KITCHEN, FULL]

    async def browse(seconds: float, interfaces: object) -> list[TableAd]:
        return list(tables)

    monkeypatch.setattr(join_module, "browse", browse)
    return tables


async def test_a_table_name_is_found_whatever_its_capitals(lan: list[TableAd]) -> None:
    found = await find_table(JoinOptions(target="kitchen"), lambda _: None)
    assert found.name == "Kitchen" and found.endpoints == [("10.0.0.1", 28700)]


async def test_an_unknown_name_says_did_you_mean_and_lists_the_tables_seen(lan: list[TableAd]) -> None:
    with pytest.raises(LinkError) as caught:
        await find_table(JoinOptions(target="Kitchn"), lambda _: None)
    said = str(caught.value)
    assert "no table named 'Kitchn' answered on the LAN; did you mean 'Kitchen'?" in said
    assert "tables seen: 'Kitchen' (skyjo, 2/3 seated), 'Attic' (skyjo, 3/3 seated)" in said


async def test_a_full_table_is_refused_at_once_and_can_still_be_watched(lan: list[TableAd]) -> None:
    with pytest.raises(Refused, match=r"the table 'Attic' is full \(3/3\)"):
        await find_table(JoinOptions(target="Attic"), lambda _: None)
    assert (await find_table(JoinOptions(target="Attic", refuse_full=False), lambda _: None)).name == "Attic"
    lan[1] = TableAd("Attic", "10.0.0.2", 28701, "skyjo", 3, 3, addresses=["10.0.0.2"], playing=True)
    assert (await find_table(JoinOptions(target="Attic"), lambda _: None)).name == "Attic"


def test_the_password_variable_is_used_without_password(monkeypatch: pytest.MonkeyPatch) -> None:
    args = argparse.Namespace(password=False)
    monkeypatch.delenv(cli.PASSWORD_ENV, raising=False)
    assert cli._password(args, hosting=False) is None
    monkeypatch.setenv(cli.PASSWORD_ENV, "42 Guitarist revenge hurricane")
    assert cli._password(args, hosting=False) == "42-guitarist-revenge-hurricane"
    monkeypatch.setenv(cli.PASSWORD_ENV, "  ")
    assert cli._password(args, hosting=False) is None  # empty without --password: none


def test_discover_says_full_and_playing() -> None:
    assert cli._seated(KITCHEN) == "2/3 seated"
    assert cli._seated(FULL) == "full (3/3)"
    playing = TableAd("Attic", "10.0.0.2", 28701, "skyjo", 3, 3, playing=True)
    assert cli._seated(playing).startswith("playing")


def test_the_announcement_says_the_seats_and_whether_a_game_is_played() -> None:
    from client.net.discovery import Advertiser, parse_service

    ad = Advertiser("Kitchen", "skyjo", 28700, ["10.0.0.1"], 3, False, key=b"k" * 32)
    for taken, playing in ((1, False), (3, True)):
        info = ad._make_info(taken, playing)
        seen = parse_service(info.name, info)
        assert (seen.taken, seen.seats, seen.playing, seen.compatible) == (taken, 3, playing, True)


# --- point 7: names ---------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("USER", "player")
    return tmp_path


def join_args(**given: object) -> argparse.Namespace:
    return argparse.Namespace(bot=None, lang="en", **given)


def test_join_name_is_kept_for_next_time(home, monkeypatch: pytest.MonkeyPatch) -> None:
    from client import storage

    monkeypatch.setattr(cli, "_has_terminal", lambda: False)
    assert cli._player_nick(join_args(), "Ben", "--name") == "Ben"
    assert storage.stored_name() == "Ben"
    assert cli._player_nick(join_args(), None, "--name") == "Ben"  # not "player" next time


def test_join_asks_the_name_the_first_time_at_a_terminal(home, monkeypatch: pytest.MonkeyPatch) -> None:
    from client import storage

    asked: list[str] = []

    def typed(prompt: str) -> str:
        asked.append(prompt)
        return "Chloé"

    monkeypatch.setattr(cli, "_has_terminal", lambda: True)
    monkeypatch.setattr("builtins.input", typed)
    assert cli._player_nick(join_args(), None, "--name") == "Chloé"
    assert asked and asked[0].startswith("Your name at the table (Enter for player")
    assert storage.stored_name() == "Chloé"
    assert cli._player_nick(join_args(), None, "--name") == "Chloé" and len(asked) == 1


def test_a_key_is_one_row_of_the_evening_under_its_latest_name() -> None:
    from client.table.evening import Evening, GameResult

    fps = ("aaaa", "bbbb")
    evening = Evening()
    evening.add(GameResult(b"1" * 32, "skyjo", ("ann", "player"), fps, (10, 20), (0,)))
    evening.add(GameResult(b"2" * 32, "skyjo", ("ann", "Ben"), fps, (30, 5), (1,)))
    assert [(r.name, r.fingerprint, r.played, r.wins) for r in evening.rows()] == [
        ("ann", "aaaa", 2, 1),
        ("Ben", "bbbb", 2, 1),
    ]


def test_two_players_of_one_name_are_told_apart_at_the_table() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from client.table.host import Host, HostOptions, SeatInfo

    host = Host(HostOptions(seats=3, advertise=False, name="player"), Ed25519PrivateKey.generate(), print)
    assert host._unique_name("Player", b"x" * 32) == "Player 2"
    host.seats.append(SeatInfo("Player 2", b"y" * 32, "player"))
    assert host._unique_name("player", b"z" * 32) == "player 3"
    assert host._unique_name("Ben", b"z" * 32) == "Ben"
    assert host._unique_name("player", host.seats[0].key) == "player"  # its own seat


# --- point 5: a joiner started with `join --resume` goes back to the lobby after the game -------


def test_the_resume_file_keeps_the_tables_lobby(tmp_path) -> None:
    from client.table.saved import ResumeInfo

    info = ResumeInfo(tmp_path / "g.skyjo", b"genesis", 1, "10.0.0.2", 4000, [("10.0.0.1", 4001)])
    info.lobby = ("10.0.0.1", 28700, b"k" * 32, "Kitchen")
    info.save()
    assert ResumeInfo.load(info.path).lobby == ("10.0.0.1", 28700, b"k" * 32, "Kitchen")
    info.lobby = None
    info.save()
    assert ResumeInfo.load(info.path).lobby is None  # a host's seat: no lobby to go back to


async def test_a_resumed_joiner_goes_back_to_the_lobby_after_a_finished_game(tmp_path, monkeypatch) -> None:
    import contextlib

    from client.table.saved import ResumeInfo
    from client.ui import network

    class Status:
        finished = True
        halted = None

    class Runner:
        status = Status()

    class FakePeer:
        runner = Runner()
        writer = None

        async def play(self, say: object) -> None:
            return None

    async def restore(*args: object) -> FakePeer:
        return FakePeer()

    @contextlib.asynccontextmanager
    async def terminal(caps: object):  # type: ignore[no-untyped-def]
        yield None

    async def game_ui(*args: object, **kwargs: object) -> str:
        return "quit"  # q on the game-over box

    lobbies: list[object] = []

    async def back(identity: object, lobby: object, **kwargs: object) -> int:
        lobbies.append(lobby)
        return 0

    monkeypatch.setattr(network, "restore", restore)
    monkeypatch.setattr(network, "open_terminal", terminal)
    monkeypatch.setattr(network, "run_game_ui", game_ui)
    monkeypatch.setattr(network, "_back_to_lobby", back)
    info = ResumeInfo(tmp_path / "g.skyjo", b"genesis", 1, "10.0.0.2", 4000, [])
    info.lobby = ("10.0.0.1", 28700, b"k" * 32, "Kitchen")
    code = await network.resume_with_screen(None, info, lang="en", no_color=True, ascii_only=True)  # type: ignore[arg-type]
    assert code == 0 and lobbies == [info.lobby]
