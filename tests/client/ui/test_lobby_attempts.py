"""The host's lobby shows wrong passwords (how many, the last one's address): someone may be
guessing the table's password, and the host should see it without reading a log."""

from __future__ import annotations

import pytest

from client.ui.caps import Caps
from client.ui.lobby import LobbyScreen, LobbySeat, LobbyView, render_lobby


def lobby(lang: str, *, is_host: bool = True, failed: int = 0, source: str = "", width: int = 80) -> str:
    seats = [LobbySeat("Anna", "k3xq-7vpa", ready=True, host=True, me=is_host), LobbySeat(empty=True)]
    for _ in range(6):
        seats.append(LobbySeat(empty=True))
    view = LobbyView(
        "Kitchen",
        "skyjo",
        seats,
        password=True,
        is_host=is_host,
        address="10.0.0.2:4000",
        failed_passwords=failed,
        failed_from=source,
    )
    return "\n".join(render_lobby(LobbyScreen(view, lang), width, 24, Caps()).text())


@pytest.mark.parametrize(
    ("lang", "failed", "shown"),
    [
        ("en", 1, "1 wrong password, from 10.0.0.66"),
        ("en", 37, "37 wrong passwords, the last from 10.0.0.66"),
        ("fr", 1, "1 mauvais mot de passe, depuis 10.0.0.66"),
        ("fr", 37, "37 mauvais mots de passe, le dernier depuis 10.0.0.66"),
    ],
)
def test_the_host_sees_how_many_wrong_passwords_and_from_where(lang, failed, shown):
    text = lobby(lang, failed=failed, source="10.0.0.66")
    assert shown in text
    # the table still fits: every seat row and the address are there
    assert "skyjo-lan join 10.0.0.2:4000" in text
    assert text.count("(free seat)" if lang == "en" else "(place libre)") == 7


def test_nothing_is_shown_before_a_wrong_password_nor_to_a_joiner():
    assert "wrong password" not in lobby("en")
    assert "wrong password" not in lobby("en", is_host=False, failed=5, source="10.0.0.66")


def code_lobby(lang: str, *, is_host: bool, code: str) -> str:
    seats = [LobbySeat("Anna", "k3xq-7vpa", ready=True, host=True, me=is_host), LobbySeat(empty=True)]
    view = LobbyView("Kitchen", "skyjo", seats, password=True, is_host=is_host, code=code)
    return "\n".join(render_lobby(LobbyScreen(view, lang), width=80, height=24, caps=Caps()).text())


@pytest.mark.parametrize(
    ("lang", "shown"),
    [("en", "read it to the players"), ("fr", "à lire aux joueurs")],
)
def test_the_host_sees_the_generated_code_to_read_aloud(lang, shown):
    text = code_lobby(lang, is_host=True, code="42-crusade-fallout-tonic")
    assert "42-crusade-fallout-tonic" in text and shown in text


def test_a_joiner_never_sees_the_code():
    assert "42-crusade-fallout-tonic" not in code_lobby("en", is_host=False, code="42-crusade-fallout-tonic")


@pytest.mark.parametrize(
    ("password", "shown"),
    [("42-crusade-fallout-tonic", "42-crusade-fallout-tonic"), ("our secret", ""), (None, "")],
)
def test_only_a_word_code_reaches_the_hosts_screen(password, shown):
    """A generated code is made to be read aloud; a password the host chose stays off the screen."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from client.table.host import Host, HostOptions
    from client.ui.network import HostLobby

    opts = HostOptions(seats=2, advertise=False, interface="127.0.0.1", name="anna", password=password)
    view = HostLobby(Host(opts, Ed25519PrivateKey.generate(), lambda line: None)).lobby()
    assert view.code == shown
