"""What a program loads before it does anything: only what its command needs.

Every start pays for each module it imports (on a small laptop, a mistyped option used to take as
long to refuse as a table to open). These run `skyjo-lan` in a fresh interpreter and look at
`sys.modules` when the command is done."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.client.saved_games import play

ROOT = Path(__file__).resolve().parents[2]

PROBE = """\
import sys
from client.cli import main
sys.argv = ["skyjo-lan", *{argv!r}]
try:
    code = main()
except SystemExit as exc:
    code = exc.code
print("EXIT", code)
print("LOADED", " ".join(sorted(m for m in {watched!r} if m in sys.modules)))
"""


def loaded(argv: list[str], watched: set[str], tmp_path: Path) -> tuple[str, set[str]]:
    """Run the command `argv` in a fresh interpreter: its exit code and the `watched` modules it
    imported."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    code = PROBE.format(argv=argv, watched=sorted(watched))
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    lines = dict(line.split(" ", 1) if " " in line else (line, "") for line in done.stdout.splitlines())
    assert "LOADED" in lines, done.stdout + done.stderr
    return lines["EXIT"], set(lines["LOADED"].split())


def test_a_start_loads_neither_mdns_nor_the_password_exchange_nor_importlib_metadata() -> None:
    # each costs every start 20-50 ms: zeroconf is for mDNS only, spake2 for a table with a
    # password only, and rbcl's version is read from its folder's name
    code = (
        "import sys, client.cli, client.table.commands\n"
        "print(sorted({'importlib.metadata', 'spake2', 'zeroconf'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]"]


@pytest.mark.parametrize(
    "argv",
    [
        ["host", "--no-mdns", "--bot", "greedy", "--port", "99999"],
        ["host", "--no-mdns", "--bot", "greedy", "--games", "-1"],
        ["join", "127.0.0.1", "--bot", "greedy"],
        ["join", "127.0.0.1:1", "--bot", "greedy", "--games", "-1"],
    ],
)
def test_a_mistyped_command_is_refused_before_the_table_s_code_loads(argv: list[str], tmp_path: Path) -> None:
    table_code = {"trio", "client.table.commands", "client.table.peer", "zeroconf"}
    exit_code, modules = loaded(argv, table_code, tmp_path)
    assert exit_code == "2"
    assert modules == set()


def test_verify_loads_no_rating_model(tmp_path: Path) -> None:
    """`verify` shows no rating: openskill (the ranking's model) stays unloaded."""
    game = tmp_path / "game.skyjo"
    game.write_bytes(play("skip-bo", ("Anna", "Ben")).data)
    exit_code, modules = loaded(["verify", str(game)], {"openskill", "trio", "zeroconf"}, tmp_path)
    assert exit_code == "0"
    assert modules == set()
