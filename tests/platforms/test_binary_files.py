"""Files are written in binary on Windows too: every `os.open` of the storage layer passes
`O_BINARY` (issue 27). Without it Windows writes 0x0A as 0x0D 0x0A: an identity key whose seed
holds that byte is refused at the next start, a saved game holding it is cut back at the next
append, a resume file no longer loads. Checked with a stand-in `os` (tests/platforms/windows_os.py)
that translates as Windows does unless the flag is given."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import storage
from client.table import saved
from protocol.loopback import make_table
from protocol.transcript import dump, load

from .windows_os import O_BINARY, WindowsOs

NEWLINES = b"\n" * 32  # a seed made of the byte Windows' text mode rewrites


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> WindowsOs:
    fake = WindowsOs()
    monkeypatch.setattr(storage, "os", fake)
    monkeypatch.setattr(saved, "os", fake)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return fake


def test_the_stand_in_rewrites_newlines_without_the_flag(tmp_path: Path) -> None:
    fake = WindowsOs()
    for flags, expected in ((0, b"a\r\nb"), (O_BINARY, b"a\nb")):
        path = tmp_path / f"f{flags}"
        fd = fake.open(path, fake.O_WRONLY | fake.O_CREAT | flags, 0o600)
        fake.write(fd, b"a\nb")
        fake.close(fd)
        assert path.read_bytes() == expected


def test_an_identity_key_with_newline_bytes_comes_back(
    windows: WindowsOs, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Ed25519PrivateKey, "generate", lambda: Ed25519PrivateKey.from_private_bytes(NEWLINES))
    made = storage.load_identity()
    again = storage.load_identity()  # refused ("not an identity key") if it was written in text mode
    assert again.private_bytes_raw() == made.private_bytes_raw() == NEWLINES
    assert (storage.config_dir() / "identity.key").read_bytes() == NEWLINES
    assert windows.opened and all(flags & O_BINARY for flags in windows.opened)


def test_a_saved_game_with_newline_bytes_reads_back(windows: WindowsOs, tmp_path: Path) -> None:
    config, _keys = make_table("skyjo", 2, session_id=b"\n" * 32)
    frames = [b"\n\n a frame \n", b"\r\n", bytes(range(256))]
    path = tmp_path / "data" / "game.skyjo"
    writer = storage.TranscriptWriter(config, path)
    for frame in frames:
        writer(frame)  # each append checks the size: a text-mode file would be cut back here
    writer.sync()
    writer.close()
    data = path.read_bytes()
    assert data == dump(config, frames)
    assert load(data) == (config, frames)
    storage.check_writable(tmp_path / "data")
    assert all(flags & O_BINARY for flags in windows.opened)


def test_a_resume_file_with_newline_bytes_loads_back(windows: WindowsOs, tmp_path: Path) -> None:
    info = saved.ResumeInfo(
        transcript=tmp_path / "game.skyjo",
        genesis=b"\n" * 40,
        seat=1,
        host="127.0.0.1",
        port=10,  # 0x0A
        addresses=[("127.0.0.1", 10)],
        secrets={"share": b"\n\r\n" * 11},
        genesis_signature=b"\n" * 64,
    )
    info.save()
    assert saved.ResumeInfo.load(info.path) == info
    assert windows.opened and all(flags & O_BINARY for flags in windows.opened)
