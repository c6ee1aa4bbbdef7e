"""Where the files live on each platform (client/places.py, issue 27): the platform's own folders
on Windows and macOS, and on Linux exactly the XDG paths of before, so nobody's saved games or
identity move. Other platforms' answers are asked for by name (`platform=`, or `sys.platform`
monkeypatched); Windows' known folders come from a stand-in for platformdirs' lookup."""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs.windows
import pytest

from client import logs, places, storage

XDG = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in XDG:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


@pytest.fixture
def local_appdata(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "AppData" / "Local"
    known = {"CSIDL_LOCAL_APPDATA": str(folder), "CSIDL_APPDATA": str(tmp_path / "AppData" / "Roaming")}
    monkeypatch.setattr(platformdirs.windows, "get_win_folder", known.__getitem__)
    return folder


@pytest.mark.parametrize("platform", ["linux", "freebsd14"])
def test_linux_keeps_the_xdg_paths_of_before(home: Path, platform: str) -> None:
    assert places.user_dir("config", platform=platform) == home / ".config" / "skyjo-lan"
    assert places.user_dir("data", platform=platform) == home / ".local" / "share" / "skyjo-lan"
    assert places.log_dir(platform=platform) == home / ".local" / "state" / "skyjo-lan" / "logs"
    assert places.user_dir("cache", platform=platform) == home / ".cache" / "skyjo-lan"


def test_linux_with_the_variables_set_and_set_empty(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "/srv/conf")
    monkeypatch.setenv("XDG_DATA_HOME", "")  # empty is unset, as before
    monkeypatch.setenv("XDG_STATE_HOME", "/srv/state")
    assert places.user_dir("config", platform="linux") == Path("/srv/conf/skyjo-lan")
    assert places.user_dir("data", platform="linux") == home / ".local" / "share" / "skyjo-lan"
    assert places.log_dir(platform="linux") == Path("/srv/state/skyjo-lan/logs")


def test_the_commands_use_them_on_linux(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    assert storage.config_dir() == home / ".config" / "skyjo-lan"
    assert storage.data_dir() == home / ".local" / "share" / "skyjo-lan"
    assert storage.games_dir() == home / ".local" / "share" / "skyjo-lan" / "games"
    assert logs.log_dir() == home / ".local" / "state" / "skyjo-lan" / "logs"


def test_macos_uses_the_library_folders(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    support = home / "Library" / "Application Support" / "skyjo-lan"
    assert storage.config_dir() == support
    assert storage.games_dir() == support / "games"
    assert logs.log_dir() == home / "Library" / "Logs" / "skyjo-lan"
    assert places.user_dir("cache") == home / "Library" / "Caches" / "skyjo-lan"


def test_windows_uses_local_appdata(home: Path, local_appdata: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    assert storage.config_dir() == local_appdata / "skyjo-lan"
    assert storage.games_dir() == local_appdata / "skyjo-lan" / "games"
    assert logs.log_dir() == local_appdata / "skyjo-lan" / "Logs"
    assert places.user_dir("cache") == local_appdata / "skyjo-lan" / "Cache"
    assert not str(storage.data_dir()).startswith(str(home / ".local"))


@pytest.mark.parametrize("platform", ["win32", "darwin"])
def test_a_variable_that_is_set_wins_everywhere(
    home: Path, local_appdata: Path, monkeypatch: pytest.MonkeyPatch, platform: str
) -> None:
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "mine"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    assert storage.games_dir() == home / "mine" / "skyjo-lan" / "games"
    assert logs.log_dir() == home / "state" / "skyjo-lan" / "logs"
