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
