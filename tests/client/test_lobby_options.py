"""Issue 18, point 1: "same or changed options". The host changes the game's options in the lobby
(`o`), before the first game or between games; they are checked as at the start, everyone's lobby
shows them, and the next game's genesis carries them."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.table.host import Host, HostOptions
from client.table.join import Joiner, JoinOptions
from client.ui.caps import Caps
from client.ui.lobby import LobbyUI, LobbyView, render_lobby
from client.ui.network import HostLobby
from protocol.transcript import load
from protocol.verify import verify_bytes

CAPS = Caps(color=True, unicode=True)


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def host(**extra: object) -> Host:
    opts = HostOptions(
        seats=2, advertise=False, interface="127.0.0.1", name="ann", options={"target_score": "50"}, **extra
    )  # type: ignore[arg-type]
    return Host(opts, Ed25519PrivateKey.generate(), lambda _: None)


def test_the_host_changes_the_options_and_the_lobby_says_so() -> None:
    table = host()
    assert table.set_options("target_score=12 setup_reveals=1") is None
    assert table.opts.options == {"target_score": "12", "setup_reveals": "1"}
    view = HostLobby(table).lobby()
    assert view.options == {"target_score": "12", "setup_reveals": "1"}
    assert view.chat[-1] == ("ann", "(changed the game's options: setup_reveals=1 target_score=12)")
    # an option left out has its default again
    assert table.set_options("target_score=12") is None and table.opts.options == {"target_score": "12"}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("target_score=0", "target_score"),
        ("no_such_option=3", "no_such_option"),
        ("target_score", "NAME=VALUE"),
    ],
)
def test_options_the_rules_refuse_change_nothing_and_say_why(text: str, reason: str) -> None:
    table = host()
    refused = table.set_options(text)
    assert refused is not None and reason in refused
    assert table.opts.options == {"target_score": "50"}
    assert f"options not changed: {refused}" == HostLobby(table).lobby().status
    assert table.set_options("target_score=60") is None
    assert not HostLobby(table).lobby().status.startswith("options not changed")


def test_no_change_while_a_game_is_played() -> None:
    table = host()
    table.started = True
    assert table.set_options("target_score=5") == "a game is being played"
    assert table.opts.options == {"target_score": "50"}


class _Source:
    def __init__(self, view: LobbyView) -> None:
        self.view = view

    def lobby(self) -> LobbyView:
        return self.view


@pytest.mark.parametrize(("lang", "label"), [("en", "Options:"), ("fr", "Options :")])
def test_o_opens_the_options_as_typed_and_enter_applies_them(lang: str, label: str) -> None:
    view = HostLobby(host()).lobby()
    ui = LobbyUI(_Source(view), lang)  # type: ignore[arg-type]
    assert ui.handle_key("o") == [] and ui.screen_state.editing == "target_score=50"
    text = "\n".join(render_lobby(ui.screen(), 80, 24, CAPS).text())
    assert f"{label} target_score=50_" in text
    assert ("Esc cancels" if lang == "en" else "Échap annule") in text
    for key in ("backspace", "backspace", "7", "space", *"setup_reveals=1"):
        ui.handle_key(key)
    actions = ui.handle_key("enter")
    assert [(a.name, a.text) for a in actions] == [("options", "target_score=7 setup_reveals=1")]
    assert ui.screen_state.editing is None
    ui.handle_key("o")
    assert ui.handle_key("esc") == [] and ui.screen_state.editing is None  # Esc: nothing changes


def test_a_joiner_cannot_edit_the_options() -> None:
    from dataclasses import replace

    view = replace(HostLobby(host()).lobby(), is_host=False)
    ui = LobbyUI(_Source(view), "en")  # type: ignore[arg-type]
    assert ui.handle_key("o") == [] and ui.screen_state.editing is None


async def test_the_game_is_played_with_the_options_changed_in_the_lobby(tmp_path: Path) -> None:
    table = host(headless="greedy", games=1)
    with trio.fail_after(240):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(table.run)
            assert table.set_options("target_score=7") is None  # before anyone joins: deterministic
            joiner = Joiner(
                JoinOptions(
                    target=f"127.0.0.1:{port}",
                    name="ben",
                    headless="greedy",
                    interface="127.0.0.1",
                    save=False,
                ),
                Ed25519PrivateKey.generate(),
                lambda _: None,
            )
            nursery.start_soon(joiner.run_games)
    (saved,) = sorted((tmp_path / "data" / "skyjo-lan" / "games").glob("*.skyjo"))
    data = saved.read_bytes()
    config = load(data)[0]
    assert str(dict(config.options)["target_score"]) == "7"
    assert verify_bytes(data).valid
