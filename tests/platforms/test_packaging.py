"""The package as people install it (issue 27): the sdist and the wheel build, carry the licence
(SPDX `MIT`, the LICENSE file) and the project's links, and the wheel installs into a fresh
virtual environment whose `skyjo-lan --version` answers; with pipx too where pipx is installed
(GitHub's runners have it). Needs the package index (the machine's local one here); about 20 s."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from client import cli

ROOT = Path(__file__).resolve().parents[2]


def _bin(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if sys.platform == "win32" else "bin") / name


def _run(*argv: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, timeout=600, check=False, env=env
    )
    assert done.returncode == 0, f"{argv}: {done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    source = tmp_path_factory.mktemp("source") / "skyjo-lan"
    skip = shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "__pycache__")
    shutil.copytree(ROOT, source, ignore=skip)  # the build's own files stay out of the working tree
    _run(sys.executable, "-m", "build", "--outdir", out, source)
    return out


def test_the_sdist_and_the_wheel_carry_the_licence_and_the_links_and_the_wheel_installs(
    dist: Path, tmp_path: Path
) -> None:
    # one test, not two: each xdist worker would build the package again (about 15 s of CPU)
    [wheel] = dist.glob("skyjo_lan-*.whl")
    [sdist] = dist.glob("skyjo_lan-*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in text
    assert "Project-URL: Source, https://github.com/skyjo-lan/skyjo-lan" in text
    assert "Requires-Python: >=3.11" in text
    assert 'Requires-Dist: windows-curses>=2.4; sys_platform == "win32"' in text
    assert "](docs/" not in text  # the README's links work on a package index's page
    for lang in ("en", "fr", "de"):  # the screen's texts: gettext files read at run time (issue 30)
        assert f"client/ui/catalogue/{lang}.po" in names
    with tarfile.open(sdist) as archive:
        assert any(n.endswith("/LICENSE") for n in archive.getnames())

    # the wheel installs into a fresh virtual environment, and its command answers; this pip
    # installs there (`--python`), so the environment needs no pip of its own (7 s of CPU less)
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    _run(sys.executable, "-m", "pip", "--python", _bin(venv, "python"), "install", "--quiet", wheel)
    done = _run(_bin(venv, "skyjo-lan"), "--version")
    assert done.stdout.strip().startswith(f"skyjo-lan {wheel.name.split('-')[1]} (crypto: ")


@pytest.mark.skipif(shutil.which("pipx") is None, reason="pipx is not installed here")
def test_pipx_installs_it(dist: Path, tmp_path: Path) -> None:
    [wheel] = dist.glob("skyjo_lan-*.whl")
    env = {**os.environ, "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "bin")}
    _run("pipx", "install", wheel, env=env)
    command = tmp_path / "bin" / ("skyjo-lan.exe" if sys.platform == "win32" else "skyjo-lan")
    assert _run(command, "--version").stdout.startswith("skyjo-lan ")


def test_version_and_the_checker_in_verify(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    from protocol.crypto import group

    assert capsys.readouterr().out.strip() == f"skyjo-lan {cli.version()} (crypto: {group.backend()})"
    from tests.client.saved_games import play

    saved = play("skip-bo", ("Anna", "Ben"))
    path = tmp_path / "game.skyjo"
    path.write_bytes(saved.data)
    assert cli.main(["verify", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"checked by skyjo-lan {cli.version()}"
    assert cli.main(["verify", "--json", str(path)]) == 0
    assert f'"checker": "skyjo-lan {cli.version()}"' in capsys.readouterr().out
