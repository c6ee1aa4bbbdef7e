"""Loading rbcl's libsodium: nothing left in the temporary directory, a fallback directory when
the first cannot hold or run it, and one clear line when none can (protocol/crypto/group.py).

Each case runs in a fresh interpreter, since the library is loaded once, at import. A
`sitecustomize` planted on the path makes `tempfile.mkdtemp` fail for the directories named in
`FAIL_IN` (as a full disk does); the real failures (a full tmpfs, a `noexec` mount) were tried by
hand as root and give the same errors (the closing note of issue 16).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SITECUSTOMIZE = """
import errno, os, tempfile
_real = tempfile.mkdtemp
def _mkdtemp(*args, **kwargs):
    where = kwargs.get("dir") or ""
    if any(where.startswith(p) for p in os.environ.get("FAIL_IN", "").split(":") if p):
        raise OSError(errno.ENOSPC, "No space left on device")
    return _real(*args, **kwargs)
tempfile.mkdtemp = _mkdtemp
"""


def _run(tmp_path: Path, code: list[str], fail_in: list[Path]) -> subprocess.CompletedProcess[str]:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "XDG_CACHE_HOME")}
    env.update(
        PYTHONPATH=f"{site}{os.pathsep}{ROOT}",
        TMPDIR=str(tmp_path / "tmp"),
        XDG_RUNTIME_DIR=str(tmp_path / "run"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        FAIL_IN=":".join(str(p) for p in fail_in),
    )
    for name in ("tmp", "run"):
        (tmp_path / name).mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, *code], env=env, capture_output=True, text=True, timeout=120, check=False
    )


PROBE = ["-c", "from protocol.crypto import group; print(group.mul(5, group.BASE).hex())"]
FIVE_G = "e882b131016b52c1d3337080187cf768423efccbb517bb495ab812c4160ff44e"  # RFC 9496, A.1


def _leftovers(tmp_path: Path) -> list[str]:
    return sorted(
        str(p.relative_to(tmp_path))
        for d in ("tmp", "run", "cache")
        if (tmp_path / d).exists()
        for p in (tmp_path / d).rglob("*")
        if p.is_file() or p.name.startswith("skyjo-lan-sodium-")
    )


def test_the_library_copy_is_removed_once_loaded(tmp_path: Path) -> None:
    done = _run(tmp_path, PROBE, [])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == FIVE_G
    assert _leftovers(tmp_path) == []


def test_a_full_temporary_directory_falls_back_to_the_runtime_directory(tmp_path: Path) -> None:
    done = _run(tmp_path, PROBE, [tmp_path / "tmp"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == FIVE_G
    assert _leftovers(tmp_path) == []


def test_no_usable_directory_is_one_clear_error(tmp_path: Path) -> None:
    fail = [tmp_path / "tmp", tmp_path / "run", tmp_path / "cache"]
    done = _run(tmp_path, PROBE, fail)
    assert done.returncode != 0
    assert "GroupUnavailable: cannot load libsodium" in done.stderr
    assert "No space left on device" in done.stderr
    assert "set TMPDIR" in done.stderr


def test_the_command_says_it_in_one_line_without_a_traceback(tmp_path: Path) -> None:
    fail = [tmp_path / "tmp", tmp_path / "run", tmp_path / "cache"]
    transcript = tmp_path / "game.transcript"
    transcript.write_bytes(b"not a transcript")
    done = _run(tmp_path, ["-m", "client", "verify", str(transcript)], fail)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("skyjo-lan verify: cannot load libsodium")
