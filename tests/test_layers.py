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


# --- no import circle in the UI ----------------------------------------------------------------


def module_name(path: Path, root: Path) -> str:
    """The dotted name of a source file (a package's `__init__.py` is the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def module_imports(path: Path, root: Path, known: set[str]) -> set[str]:
    """The modules among `known` that a file imports, lazy imports included: `from .x import y`
    counts as importing `x.y` when that is a module, else `x`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:
                    found.add(sub)
                elif target in known:
                    found.add(target)
    found.discard(name)
    return found


def import_cycles(package: str, root: Path = ROOT) -> list[list[str]]:
    """Every import circle among the modules of `package` (one list of modules per circle)."""
    paths = {module_name(p, root): p for p in sorted((root / package.replace(".", "/")).rglob("*.py"))}
    known = set(paths)
    graph = {name: sorted(module_imports(path, root, known)) for name, path in paths.items()}
    # Tarjan's strongly connected components: a component of more than one module is a circle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(cycles)


def test_the_ui_modules_import_each_other_in_no_circle() -> None:
    assert import_cycles("client.ui") == []


@pytest.mark.parametrize("package", ["skyjo_p2p", "protocol", "client"])
def test_no_package_has_an_import_circle(package: str) -> None:
    """Issue 14: no import circle anywhere (across layers the one-way rule above already forbids one)."""
    assert import_cycles(package) == []


def test_the_check_finds_an_import_circle(tmp_path: Path) -> None:
    """The check itself can fail: a drawing that imports the frame that imports it is caught,
    lazy import or not."""
    ui = tmp_path / "app" / "ui"
    (ui / "games").mkdir(parents=True)
    (tmp_path / "app" / "__init__.py").write_text("")
    (ui / "__init__.py").write_text("")
    (ui / "render.py").write_text("def f():\n    from .games import draw\n")
    (ui / "games" / "__init__.py").write_text("")
    (ui / "games" / "draw.py").write_text("from ..render import f\n")
    (ui / "widgets.py").write_text("from app.ui import render\n")
    assert import_cycles("app.ui", tmp_path) == [["app.ui.games.draw", "app.ui.render"]]
