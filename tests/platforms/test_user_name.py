"""The default name at the table comes from the login name on Windows too, where it is
`USERNAME` and there is no `USER` (issue 27: "the $USER fallback")."""

from __future__ import annotations

from pathlib import Path

import pytest

from client import cli


@pytest.fixture(autouse=True)
def _no_stored_name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("USER", raising=False)
    monkeypatch.delenv("USERNAME", raising=False)


def test_windows_login_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USERNAME", "Chloé")
    assert cli._default_nick() == "Chloé"


def test_user_first_then_player(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "anna")
    monkeypatch.setenv("USERNAME", "Anna W")
    assert cli._default_nick() == "anna"
    monkeypatch.delenv("USER")
    monkeypatch.delenv("USERNAME")
    assert cli._default_nick() == "player"
