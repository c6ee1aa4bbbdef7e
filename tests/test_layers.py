"""The three layers import one way: `skyjo_p2p` (pure rules, bots) <- `protocol` (sans-IO
agreement, crypto, messages) <- `client` (trio, zeroconf, curses, CLI). The two lower layers do
no I/O of their own: they never import the network, terminal or event-loop libraries.

Read from the source with `ast` (every import statement, also inside functions and behind
TYPE_CHECKING), so a lazy import cannot slip a layer upwards."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("skyjo_p2p", "protocol", "client")
NO_IO = {"trio", "socket", "curses", "zeroconf", "asyncio", "select", "selectors", "ssl", "ifaddr"}
"""Libraries the sans-IO layers must not import (the event loop, sockets, the terminal, mDNS)."""


def imported(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, top-level module) of every import in a file; relative imports count as the file's
    own package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = path.relative_to(root).parts[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, package if node.level else (node.module or "").split(".")[0]))
    return found


def violations(layer: str, root: Path = ROOT) -> list[str]:
    rank = LAYERS.index(layer)
    higher = set(LAYERS[rank + 1 :])
    bad: list[str] = []
    for path in sorted((root / layer).rglob("*.py")):
        for line, module in imported(path, root):
            where = f"{path.relative_to(root)}:{line} imports {module}"
            if module in higher:
                bad.append(f"{where} (a higher layer)")
            elif layer != "client" and module in NO_IO:
                bad.append(f"{where} (I/O in a sans-IO layer)")
    return bad


@pytest.mark.parametrize("layer", LAYERS)
def test_no_layer_imports_a_higher_one_and_the_lower_ones_do_no_io(layer: str) -> None:
    assert violations(layer) == []


def test_the_check_finds_an_upward_import(tmp_path: Path) -> None:
    """The check itself can fail: a rules module that imports the protocol, or trio, is caught."""
    fake = tmp_path / "skyjo_p2p"
    fake.mkdir()
    (fake / "bad.py").write_text("def f():\n    import trio\n    from protocol import session\n")
    assert violations("skyjo_p2p", tmp_path) == [
        "skyjo_p2p/bad.py:2 imports trio (I/O in a sans-IO layer)",
        "skyjo_p2p/bad.py:3 imports protocol (a higher layer)",
    ]
