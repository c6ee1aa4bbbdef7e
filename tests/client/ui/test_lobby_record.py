"""The lobby shows this machine's record of each seated identity in the table's game ("12 games ·
5 wins · #2 of 4", "first game here"), in English and French, within the screen's width: on a
line under the seat at 80 columns, in a column of its own on a wide screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import storage
from client.records.book import RecordBook
from client.records.ranking import PlayerRecord
from client.table.join import Joiner, JoinOptions
from client.ui.caps import Caps
from client.ui.lobby import LobbyScreen, LobbySeat, LobbyView, record_text, render_lobby
from client.ui.network import JoinLobby
from tests.client.saved_games import fingerprint, play

CAPS = Caps()


def view(seats: list[LobbySeat]) -> LobbyView:
    return LobbyView("Kitchen", "skyjo", seats, password=False, address="10.0.0.2:4000")


def seats() -> list[LobbySeat]:
    return [
        LobbySeat("Anna", "k3xq-7vpa-m2rd-9hbe", ready=True, host=True, record=PlayerRecord(12, 5, 2, 4)),
        LobbySeat("Ben", "a9fz-qq2m-x7lw-4ncd", me=True, record=PlayerRecord(1, 1, 1, 4)),
        LobbySeat("Chloé", "zz3w-8b2k-rt5a-mm0p", record=PlayerRecord(0, 0, 0, 0)),
        LobbySeat("bot 1", bot=True, ready=True, link="local"),
    ]


def screen(
    lang: str, width: int = 80, height: int = 24, the_seats: list[LobbySeat] | None = None
) -> list[str]:
    return render_lobby(
        LobbyScreen(view(seats() if the_seats is None else the_seats), lang), width, height, CAPS
    ).text()


@pytest.mark.parametrize(
    ("lang", "anna", "ben", "chloe"),
    [
        ("en", "12 games · 5 wins · #2 of 4", "1 game · 1 win · #1 of 4", "first game here"),
        (
            "fr",
            "12 parties · 5 victoires · n° 2 sur 4",
            "1 partie · 1 victoire · n° 1 sur 4",
            "première partie ici",
        ),
    ],
)
@pytest.mark.parametrize("width", [80, 100, 115])
def test_each_seat_shows_its_record_under_it_below_116_columns(lang, anna, ben, chloe, width):
    lines = screen(lang, width)
    assert all(len(line) <= width for line in lines)
    for name, record in (("Anna", anna), ("Ben", ben), ("Chloé", chloe)):
        row = next(n for n, line in enumerate(lines) if f"  {name} (" in line or f"  {name}  " in line)
        assert lines[row + 1].strip() == record, (name, lines[row : row + 2])
    bot = next(n for n, line in enumerate(lines) if "bot 1" in line)
    assert "·" not in lines[bot + 1]  # a bot has no record


def test_french_counts_none_in_the_singular():
    assert record_text(PlayerRecord(3, 0, 2, 2), "fr") == "3 parties · 0 victoire · n° 2 sur 2"
    assert record_text(PlayerRecord(3, 0, 2, 2), "en") == "3 games · 0 wins · #2 of 2"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_wide_screen_has_a_record_column(lang):
    lines = screen(lang, 140, 30)
    heading = next(line for line in lines if "Seat" in line or "Place" in line)
    assert ("Record here" if lang == "en" else "Bilan ici") in heading
    anna = next(line for line in lines if "  Anna (" in line)
    assert anna.rstrip().endswith("12 games · 5 wins · #2 of 4" if lang == "en" else "n° 2 sur 4")
    assert all(len(line) <= 140 for line in lines)


def test_every_seat_stays_on_the_screen_when_the_records_do_not_fit():
    many = [*seats(), *(LobbySeat(f"P{n}", f"fp-{n}", record=PlayerRecord(n, 0, n, 9)) for n in range(4))]
    lines = screen("en", 80, 24, many)
    for seat in many:
        assert any(f"  {seat.name}" in line for line in lines), seat.name
    records = sum(1 for line in lines if " · #" in line or "first game here" in line)
    assert 0 < records < 7  # as many as fit under their seats


def test_without_records_the_lobby_is_as_before():
    plain = [
        LobbySeat(s.name, s.fingerprint, ready=s.ready, host=s.host, me=s.me, bot=s.bot, link=s.link)
        for s in seats()
    ]
    lines = screen("en", 80, 24, plain)
    assert not any("game" in line and "·" in line for line in lines)
    assert not any("Record" in line for line in screen("en", 140, 30, plain))


def test_a_joiners_lobby_fills_the_records_from_this_machines_games(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    play("skyjo", ("Anna", "Ben")).write(storage.games_dir(), "20261101-200000")
    book = RecordBook()
    joiner = Joiner(JoinOptions(ready=False), Ed25519PrivateKey.generate())
    stranger = storage.fingerprint(Ed25519PrivateKey.generate().public_key().public_bytes_raw())
    joiner.lobby = {
        "t": "lobby",
        "table": "Kitchen",
        "game": "skyjo",
        "seats": [
            {"name": "Anna", "fp": fingerprint("Anna"), "kind": "host", "ready": True},
            {"name": "Zoé", "fp": stranger, "kind": "player", "ready": True},
        ],
        "total": 3,
        "bots": 1,
    }
    lobby = JoinLobby(joiner, book)
    assert [s.record for s in lobby.lobby().seats] == [None, None, None]  # not computed yet
    book.compute()
    anna, zoe, bot = lobby.lobby().seats
    assert anna.record is not None and (anna.record.games, anna.record.of) == (1, 2)
    assert zoe.record == PlayerRecord(0, 0, 0, 0) and bot.record is None
    text = "\n".join(render_lobby(LobbyScreen(lobby.lobby(), "en"), 80, 24, CAPS).text())
    assert "1 game · " in text and "first game here" in text
    assert JoinLobby(joiner).lobby().seats[0].record is None  # no book: nothing shown


def test_the_records_are_computed_again_after_another_game(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    game = play("skyjo", ("Anna", "Ben"), seed="again")
    game.write(storage.games_dir(), "20261101-200000")
    book = RecordBook().start()
    assert book.ready.wait(60)
    first = book.lookup("skyjo", fingerprint("Anna"))
    assert first is not None and first.games == 1
    play("skyjo", ("Ben", "Anna"), seed="again2").write(storage.games_dir(), "20261101-210000")
    assert book.lookup("skyjo", fingerprint("Anna")) == first  # until computed again
    book.refresh()
    assert book._thread is not None
    book._thread.join(60)
    again = book.lookup("skyjo", fingerprint("Anna"))
    assert again is not None and again.games == 2
