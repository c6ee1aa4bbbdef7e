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
