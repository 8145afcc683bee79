"""elot's layers, read from its source: every import (lazy ones inside functions too)
points down, and no package imports one that imports it back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ELOT = Path(__file__).resolve().parent.parent / "elot"

#: What the user-facing layers are; the library below them never imports them.
INTERFACES = {"elot.repl", "elot.cli", "elot.__main__"}


def _unit(module: str) -> str | None:
    """The part of elot a dotted name belongs to: a subpackage (``elot.btom``), a
    top-level module (``elot.settings``) or the package itself (``elot``)."""
    parts = module.split(".")
    if parts[0] != "elot":
        return None
    if len(parts) == 1:
        return "elot"
    name = parts[1]
    if (ELOT / name).is_dir() or (ELOT / f"{name}.py").is_file():
        return f"elot.{name}"
    return "elot"    # from elot import __version__: the package's __init__


def _imports() -> dict[str, dict[str, set[str]]]:
    """unit → imported unit → the files that import it."""
    edges: dict[str, dict[str, set[str]]] = {}
    for path in sorted(ELOT.rglob("*.py")):
        parts = path.relative_to(ELOT.parent).with_suffix("").parts
        source = _unit(".".join(p for p in parts if p != "__init__"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for name in names:
                target = _unit(name)
                if target and target != source:
                    edges.setdefault(source, {}).setdefault(target, set()).add(str(path.relative_to(ELOT.parent)))
    return edges


def _cycles(edges: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """The strongly connected components of more than one unit (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in edges.get(node, {}):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(edges):
        if node not in index:
            visit(node)
    return found


def test_no_package_imports_one_that_imports_it_back():
    edges = _imports()
    report = [" ↔ ".join(c) + ": " + "; ".join(f"{a} → {b} ({', '.join(sorted(edges[a][b]))})"
                                             for a in c for b in c if b in edges.get(a, {}))
              for c in _cycles(edges)]
    assert not report, "\n".join(report)


def test_settings_sit_at_the_bottom():
    """elot.settings is read by every layer, so it reads only elot.errors."""
    assert set(_imports().get("elot.settings", {})) <= {"elot.errors"}


@pytest.mark.parametrize("unit", ["elot.lang", "elot.btom", "elot.translate", "elot.embedding",
                                  "elot.study", "elot.session", "elot.output", "elot.settings"])
def test_the_library_imports_no_interface(unit):
    """The library never depends on the REPL or the command line (the REPL displays the
    library's session; the CLI parses arguments into library calls)."""
    wrong = {target: files for target, files in _imports().get(unit, {}).items() if target in INTERFACES}
    assert not wrong, wrong


def test_the_repl_does_not_import_the_command_line():
    assert "elot.cli" not in _imports().get("elot.repl", {})


def test_the_walk_sees_lazy_imports():
    """The check would be empty if it missed imports inside functions: the CLI imports
    the REPL lazily, and the walk finds it."""
    assert "elot.repl" in _imports()["elot.cli"]
