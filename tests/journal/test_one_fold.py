"""Nothing folds the conversation processor but ``Conversation`` (DESIGN.md, principle 3).

The pure folders (``_core``, ``_loop``) compose and run processors; every shell (the
in-process agent, the durable worker and follower, resume, replay, step replay) drives
``agentcore/_journal/conversation.py``. This test reads the source tree and fails on a
call of a processor (or of a machine's ``process``) anywhere else, naming the file and
line.
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]

ALLOWED = ("agentcore/_core/", "agentcore/_loop/", "agentcore/_journal/conversation.py")

EXEMPT = {
    # replays a caller's own ``ReplayMachine`` (public protocol, any processor); the fast
    # path over a file's records, ``fold_blocks``, and over entries, ``fold_steps``
    "agentcore/_journal/replay.py",
    "agentcore/_agents/replay.py",
    # the testing kit's purity check runs any processor twice on purpose
    "agentcore/_testing/strategies.py",
}

NAMES = {"processor", "_processor", "conversation_processor", "loop_processor", "agent_processor"}
"""Callees that are a processor (a name, or an attribute of that name)."""
METHODS = {"process", "plain_process"}
"""A machine's fold of one event."""


def _processor_expr(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in NAMES or node.attr in METHODS
    return False


def folds_in(source: str) -> list[int]:
    """Lines of ``source`` that call a processor or a machine's ``process``, directly or
    through a local name bound to one."""
    tree = ast.parse(source)
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for target in node.targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                for name, value in zip(names, values, strict=False):
                    if isinstance(name, ast.Name) and _processor_expr(value):
                        aliases.add(name.id)
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if _processor_expr(func) or (isinstance(func, ast.Name) and func.id in aliases):
                lines.append(node.lineno)
    return sorted(lines)


def _sources() -> list[pathlib.Path]:
    folders = ("agentcore", "drivers", "presenters")
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


def test_only_the_conversation_module_folds_the_processor() -> None:
    found = []
    for path in _sources():
        name = path.relative_to(ROOT).as_posix()
        if name.startswith(ALLOWED) or name in EXEMPT:
            continue
        found += [f"{name}:{line}" for line in folds_in(path.read_text())]
    assert not found, "the conversation processor is folded outside Conversation at " + ", ".join(
        found
    )


def test_the_scan_sees_each_way_of_folding() -> None:
    """The scan is not blind: direct calls, attribute calls, aliases and a machine's
    ``process`` are each caught; a call of something else is not."""
    assert folds_in("state, out = processor(state, event)\n") == [1]
    assert folds_in("state, out = self.definition.processor(state, event)\n") == [1]
    assert folds_in("fold = agent.processor\nfold(state, event)\n") == [2]
    assert folds_in("p, initial = create_conversation()\n") == []
    assert folds_in("machine.process('a', event)\n") == [1]
    assert folds_in("conversation.feed(event)\nconversation.receive(event)\n") == []


def test_the_allowed_places_do_fold() -> None:
    """The Conversation module is where the fold is (so the allow-list is not stale)."""
    module = ROOT / "agentcore/_journal/conversation.py"
    assert folds_in(module.read_text())
