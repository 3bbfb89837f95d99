"""The folder table in DESIGN.md, enforced: no folder imports upward, none imports in a cycle.

Each private folder of ``agentcore`` may import only the folders listed for it below
(its own modules always). The public modules at the top are facades: they may import
anything, and no private folder imports them (that would be upward). Imports under
``if TYPE_CHECKING:`` count too: a typing-only cycle is still a cycle in the map.
Inside a folder, no modules import each other in a cycle either (a package's
``__init__`` re-exporting its modules aside). docs/architecture.md shows the same table;
``Conversation`` lives in ``_journal`` (replay and resume there drive it).
"""

from __future__ import annotations

import ast
import pathlib

import agentcore

PACKAGE = pathlib.Path(agentcore.__file__).parent
TOP = "<public>"
PLUGINS = frozenset({"drivers", "presenters"})
"""Installed inside ``agentcore`` but plugins, not folders of it: tests/test_purity.py
keeps their imports to ``_app``, inside functions."""

_BASE = ("_core", "_loop", "_edges", "_journal", "_runtime", "_sessions")
_FEATURES = ("_coding", "_mcp", "_agents", "_durable", "_evals", "_serve", "_a2a", "_testing")
"""Features in the order they may import each other (a later one may use an earlier one)."""

ALLOWED: dict[str, frozenset[str]] = {
    folder: frozenset(_BASE[:index]) for index, folder in enumerate(_BASE)
}
ALLOWED.update(
    {folder: frozenset(_BASE + _FEATURES[:index]) for index, folder in enumerate(_FEATURES)}
)
ALLOWED["_app"] = frozenset(_BASE + _FEATURES)


def _folder(parts: tuple[str, ...]) -> str:
    return parts[0] if len(parts) > 1 and parts[0].startswith("_") else TOP


def _module_folder(dotted: str) -> str:
    parts = tuple(dotted.split("."))
    if parts[0].startswith("_"):
        return parts[0]
    return TOP


def _imports() -> list[tuple[tuple[str, ...], str, str]]:
    """``(importing module's parts, imported dotted name, where)`` for every import of an
    ``agentcore`` module; ``from m import n`` gives ``m`` and ``m.n`` (``n`` may be a module)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        package = list(parts[:-1])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [
                    alias.name.removeprefix("agentcore.")
                    for alias in node.names
                    if alias.name.startswith("agentcore.")
                ]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(package[: len(package) - (node.level - 1)])
                    module = ".".join(filter(None, [base, node.module or ""]))
                elif node.module and node.module.startswith("agentcore."):
                    module = node.module.removeprefix("agentcore.")
                elif node.module == "agentcore":
                    module = ""
                else:
                    continue
                names = [".".join(filter(None, [module, a.name])) for a in node.names]
                targets = [module, *names] if module else names
            where = f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}"
            found.extend(
                (parts, target, where)
                for target in targets
                if target.split(".")[0] not in PLUGINS  # test_purity's boundary, not this one
            )
    return found


def _edges() -> list[tuple[str, str, str]]:
    """``(from folder, to folder, where)`` for every import between two folders."""
    found = set()
    for parts, target, where in _imports():
        source = _folder(parts)
        folder = _module_folder(target) if target else TOP
        if folder != source:
            found.add((source, folder, where))
    return sorted(found)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` (its nodes in order, the first one again at the end), if any."""
    visiting: list[str] = []
    done: set[str] = set()

    def visit(node: str) -> list[str] | None:
        if node in visiting:
            return [*visiting[visiting.index(node) :], node]
        if node in done:
            return None
        visiting.append(node)
        for nxt in sorted(graph.get(node, ())):
            cycle = visit(nxt)
            if cycle:
                return cycle
        visiting.pop()
        done.add(node)
        return None

    for node in sorted(graph):
        cycle = visit(node)
        if cycle:
            return cycle
    return None


def _module_graphs() -> dict[str, dict[str, set[str]]]:
    """Per private folder, which of its modules imports which. A package's ``__init__``
    imports nothing here: re-exporting its own modules is not a cycle."""
    modules = {
        ".".join(path.relative_to(PACKAGE).with_suffix("").parts) for path in PACKAGE.rglob("*.py")
    }
    graphs: dict[str, dict[str, set[str]]] = {}
    for parts, target, _ in _imports():
        source = ".".join(parts)
        folder = _folder(parts)
        if folder == TOP or parts[-1] == "__init__" or _module_folder(target) != folder:
            continue
        if target in modules and target != source:
            graphs.setdefault(folder, {}).setdefault(source, set()).add(target)
    return graphs


def test_every_private_folder_is_in_the_table() -> None:
    folders = {
        path.name
        for path in PACKAGE.iterdir()
        if path.is_dir() and path.name.startswith("_") and path.name != "__pycache__"
    }
    assert folders <= set(ALLOWED), f"add to DESIGN.md's table: {sorted(folders - set(ALLOWED))}"


def test_no_folder_imports_upward_or_sideways() -> None:
    problems = [
        f"{where}: {source} imports {target}"
        for source, target, where in _edges()
        if source != TOP and target not in ALLOWED.get(source, frozenset())
    ]
    assert not problems, "imports against DESIGN.md's layout table:\n" + "\n".join(problems)


def test_the_folder_graph_has_no_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for source, target, _ in _edges():
        if source != TOP and target != TOP:
            graph.setdefault(source, set()).add(target)
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle)


def test_no_folder_has_a_module_cycle() -> None:
    cycles = {folder: _cycle(graph) for folder, graph in sorted(_module_graphs().items())}
    found = [" -> ".join(cycle) for cycle in cycles.values() if cycle]
    assert not found, "modules importing each other in a cycle:\n" + "\n".join(found)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
