"""Loading rbcl's libsodium: one copy per user and rbcl version in the cache folder, loaded by
every later start (nothing written to the temporary directory); a damaged copy made again; when
the cache cannot hold it, rbcl's own temporary copy, removed once loaded, in a fallback directory
when the first cannot hold or run it; and one clear line when none can (protocol/crypto/group.py).

Each case runs in a fresh interpreter, since the library is loaded once, at import. A
`sitecustomize` planted on the path makes `tempfile.mkdtemp` and `tempfile.mkstemp` fail for the
directories named in `FAIL_IN` (as a full disk does); the real failures (a full tmpfs, a `noexec`
mount) were tried by hand as root and give the same errors (the closing note of issue 16).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SITECUSTOMIZE = """
import errno, os, tempfile
def _failing(real):
    def make(*args, **kwargs):
        where = str(kwargs.get("dir") or "")
        if any(where.startswith(p) for p in os.environ.get("FAIL_IN", "").split(os.pathsep) if p):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)
    return make
tempfile.mkdtemp = _failing(tempfile.mkdtemp)
tempfile.mkstemp = _failing(tempfile.mkstemp)
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
        FAIL_IN=os.pathsep.join(str(p) for p in fail_in),
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


LOADED_FROM = [
    "-c",
    "import sys; from protocol.crypto import group; print(group.mul(5, group.BASE).hex()); "
    "print(sys.modules['rbcl._sodium']._sodium._name)",
]


def _cached(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "skyjo-lan" / "libsodium").glob("*"))


def test_the_library_is_copied_once_per_user_and_version(tmp_path: Path) -> None:
    first = _run(tmp_path, LOADED_FROM, [])
    assert first.returncode == 0, first.stderr
    assert first.stdout.split()[0] == FIVE_G
    [copy] = _cached(tmp_path)
    assert copy.name.startswith("libsodium-rbcl-")
    assert first.stdout.split()[1] == str(copy)  # loaded from the cache
    made = copy.stat()
    second = _run(tmp_path, LOADED_FROM, [])
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == [FIVE_G, str(copy)]
    assert _cached(tmp_path) == [copy]
    assert (copy.stat().st_ino, copy.stat().st_mtime_ns) == (made.st_ino, made.st_mtime_ns)  # not rewritten
    assert [p for p in _leftovers(tmp_path) if not p.startswith("cache")] == []  # nothing in the temp dir


def test_a_damaged_copy_is_made_again(tmp_path: Path) -> None:
    assert _run(tmp_path, PROBE, []).returncode == 0
    [copy] = _cached(tmp_path)
    size = copy.stat().st_size
    copy.write_bytes(b"not a library")
    again = _run(tmp_path, LOADED_FROM, [])
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == [FIVE_G, str(copy)]
    assert copy.stat().st_size == size


def test_without_the_cache_the_temporary_copy_is_removed_once_loaded(tmp_path: Path) -> None:
    done = _run(tmp_path, PROBE, [tmp_path / "cache"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == FIVE_G
    assert _leftovers(tmp_path) == []


def test_a_full_temporary_directory_falls_back_to_the_runtime_directory(tmp_path: Path) -> None:
    done = _run(tmp_path, PROBE, [tmp_path / "tmp", tmp_path / "cache"])
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


def test_the_copy_is_named_by_rbcl_s_installed_version_without_importlib_metadata(tmp_path: Path) -> None:
    import importlib.metadata

    from protocol.crypto import group

    found = group._rbcl_library()
    assert found is not None
    assert found[1].startswith(f"libsodium-rbcl-{importlib.metadata.version('rbcl')}-")
    package = tmp_path / "site-packages" / "rbcl"
    package.mkdir(parents=True)
    (tmp_path / "site-packages" / "rbcl-9.9.dist-info").mkdir()
    assert group._installed_version(str(package)) == "9.9"
    # a stale .dist-info beside the right one: the name cannot tell, importlib.metadata decides
    (tmp_path / "site-packages" / "rbcl-9.8.dist-info").mkdir()
    assert group._installed_version(str(package)) == importlib.metadata.version("rbcl")
