"""Issue 15, points 5 and 8, their pure parts: a refusal sorted by kind and drawn as a refusal in
both languages, the keys of the refusal screen, readiness at the host, known keys at the joiner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import storage
from client.table.host import Host, HostOptions, SeatInfo
from client.table.join import Joiner, JoinOptions, JoinRefusal, refusal_of
from client.ui.caps import Caps
from client.ui.lobby import LobbyAction, LobbyScreen, LobbyUI, LobbyView, render_lobby
from client.ui.network import HostLobby, JoinLobby

CAPS = Caps(color=False, unicode=True)

REASONS = {
    "this table needs a password (--password)": "password",
    "wrong password": "wrong_password",
    "too many wrong passwords from your address: try again in 40 s": "wait",
    "too many wrong passwords at this table just now: try again in 3 s": "wait",
    "the table is full (4/4)": "full",
    "the table is full": "full",
    "the game has already started": "started",
    "this identity is already seated": "seated",
    "link version 1 only": "version",
    "'Kitchen' runs another version of skyjo-lan (protocol version 9 (we speak 1))": "version",
    "not this table": "other",
}


@pytest.mark.parametrize("reason", sorted(REASONS))
def test_each_reason_has_its_kind(reason: str) -> None:
    assert refusal_of(reason, "Kitchen").kind == REASONS[reason]


def test_counts_and_waits_are_read() -> None:
    full = refusal_of("the table is full (4/4)", "Anna's table")
    assert (full.taken, full.seats) == (4, 4)
    assert refusal_of("... try again in 40 s", "t").wait == 40
    assert refusal_of("wrong password", "t").asks_password
    assert refusal_of("... try again in 40 s", "t").asks_password
    assert not full.asks_password


def _screen(refusal: JoinRefusal, lang: str) -> str:
    view = LobbyView(table="", game="", seats=[], refusal=refusal)
    frame = render_lobby(LobbyScreen(view, lang), 80, 24, CAPS)
    return "\n".join(frame.text())


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("reason", sorted(REASONS))
def test_a_refusal_is_drawn_as_a_refusal(reason: str, lang: str) -> None:
    text = _screen(refusal_of(reason, "Anna's table"), lang)
    assert "refused." not in text  # every line has its text
    assert "Anna's table" in text
    assert "0/0" not in text and "Ready" not in text and "Prêt" not in text  # not an empty lobby
    asks = refusal_of(reason, "t").asks_password
    assert (("Password:" in text) or ("Mot de passe :" in text)) == asks


def test_what_the_refusal_screen_says() -> None:
    assert "Anna's table is full (4/4)." in _screen(
        refusal_of("the table is full (4/4)", "Anna's table"), "en"
    )
    waiting = _screen(refusal_of("try again in 40 s", "Anna's table"), "en")
    assert "try again in 40 s" in waiting
    started = _screen(refusal_of("the game has already started", "Anna's table"), "en")
    assert "skyjo-lan join --resume" in started
    nameless = _screen(refusal_of("wrong password", "", "10.0.0.5:4000"), "en")
    assert "Wrong password for the table at 10.0.0.5:4000." in nameless


class _Source:
    def __init__(self, refusal: JoinRefusal) -> None:
        self.view = LobbyView(table="", game="", seats=[], refusal=refusal)

    def lobby(self) -> LobbyView:
        return self.view


def test_the_password_is_typed_on_the_refusal_screen() -> None:
    ui = LobbyUI(_Source(refusal_of("wrong password", "t")), "en")  # type: ignore[arg-type]
    for key in "quit 42":
        assert ui.handle_key("space" if key == " " else key) == []  # q is a letter of a password
    assert ui.screen_state.password == "quit 42"
    assert ui.handle_key("backspace") == []
    assert ui.handle_key("enter") == [LobbyAction("retry", "quit 4")]
    assert ui.handle_key("enter") == []  # nothing typed: nothing sent
    assert ui.handle_key("esc") == [LobbyAction("leave")]


def test_enter_tries_again_and_q_leaves_when_no_password_is_asked() -> None:
    ui = LobbyUI(_Source(refusal_of("the table is full (4/4)", "t")), "en")  # type: ignore[arg-type]
    assert ui.handle_key("x") == []
    assert ui.handle_key("enter") == [LobbyAction("retry")]
    assert ui.handle_key("q") == [LobbyAction("leave")]


def test_the_host_starts_only_when_every_person_is_ready() -> None:
    host = Host(HostOptions(seats=3, bots=1, advertise=False, name="ana"), Ed25519PrivateKey.generate())
    ben = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    host.seats.append(SeatInfo("ben", ben, "player", ready=False))
    assert host.start_problem() == "waiting for ben to be ready (r)"
    view = HostLobby(host).lobby()
    assert not view.can_start and "ben" in view.status
    assert [s.ready for s in view.seats if not s.empty] == [True, False, True]  # the host, ben, a bot
    assert host.lobby_view()["seats"][1]["ready"] is False
    host.seats[1].ready = True
    assert host.start_problem() is None and HostLobby(host).lobby().can_start


def test_the_joiner_shows_a_key_it_knows_as_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    anna = storage.fingerprint(Ed25519PrivateKey.generate().public_key().public_bytes_raw())
    chloe = storage.fingerprint(Ed25519PrivateKey.generate().public_key().public_bytes_raw())
    (tmp_path / "skyjo-lan").mkdir()
    (tmp_path / "skyjo-lan" / "known_peers.json").write_text(json.dumps({anna: {"name": "Anna"}}))
    joiner = Joiner(JoinOptions(ready=False), Ed25519PrivateKey.generate())
    joiner.lobby = {
        "t": "lobby",
        "table": "Kitchen",
        "game": "skyjo",
        "seats": [
            # what the host knows of a seat ("returning") is not what this machine knows
            {"name": "Anna", "fp": anna, "kind": "host", "returning": False, "ready": True},
            {"name": "Chloé", "fp": chloe, "kind": "player", "returning": True, "ready": False},
        ],
        "total": 3,
        "bots": 0,
    }
    seats = JoinLobby(joiner).lobby().seats
    assert [(s.name, s.known, s.ready) for s in seats[:2]] == [("Anna", True, True), ("Chloé", False, False)]
    text = "\n".join(render_lobby(LobbyScreen(JoinLobby(joiner).lobby(), "en"), 80, 24, CAPS).text())
    anna_row = next(line for line in text.splitlines() if "Anna (host" in line)
    assert "new key" not in anna_row
    assert "Chloé (new key)" in text
