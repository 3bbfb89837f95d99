"""The pure core stays pure: no I/O library, clock or randomness, checked on the source.

Purity goes by folder (DESIGN.md, Layout): every module under ``agentcore/_core`` and
``agentcore/_loop`` is pure, whatever its file name, so a new module there is covered
without anyone remembering to list it. Pure modules may import only other pure agentcore
modules, and nothing in ``agentcore`` may import ``drivers`` or ``presenters``.
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

import agentcore

PACKAGE = pathlib.Path(agentcore.__file__).parent

PURE_FOLDERS = ("_core", "_loop")

IO_MODULES = frozenset(
    """
    aiohttp anthropic asyncio asyncpg atexit builtins concurrent ctypes datetime dbm fcntl
    faulthandler glob http httpx importlib io logging mmap multiprocessing openai
    opentelemetry os pathlib psycopg psycopg2 random requests rich secrets select selectors
    shelve shutil signal socket sqlite3 ssl starlette subprocess sys tempfile threading time
    urllib uuid uvicorn warnings zoneinfo
    """.split()  # noqa: SIM905
)
"""Top-level modules a pure module must not import: I/O, clocks, randomness, process state."""

FORBIDDEN_BUILTINS = frozenset(
    "open print input breakpoint exec eval compile __import__ id hash".split()  # noqa: SIM905
)
"""Builtins that do I/O or differ between runs (``id``/``hash`` of str vary per process);
forbidden when called by bare name (``re.compile`` is fine)."""

FORBIDDEN_CALLS = frozenset(
    """
    perf_counter perf_counter_ns monotonic monotonic_ns time_ns utcnow
    uuid1 uuid4 urandom getrandbits randint randrange
    """.split()  # noqa: SIM905
)
"""Calls that read a clock or draw randomness, however they are reached."""

SHELL_PACKAGES = frozenset({"drivers", "presenters"})

ALLOWED_CALLS = {"_core.records": frozenset({"compile", "exec"})}
"""The one exception: the builder of the frozen event classes compiles the code of their
``__init__``, ``__eq__`` and ``__hash__`` from field names only (as attrs does, in its own
code); tests/core/test_records.py holds every class to an attrs-built twin."""


def _is_plugin(module: str) -> bool:
    """A plugin package, by its installed name (``agentcore.drivers``) or its old one."""
    parts = module.split(".")
    return parts[0] in SHELL_PACKAGES or (
        parts[0] == "agentcore" and parts[1:2] in (["drivers"], ["presenters"])
    )


def _all_modules() -> dict[str, pathlib.Path]:
    """Dotted module name inside ``agentcore`` (``_core.events``) -> its file."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            found[".".join(parts)] = path
    return found


def _pure_names() -> set[str]:
    return {name for name in _all_modules() if name.split(".")[0] in PURE_FOLDERS}


def _imports(path: pathlib.Path, package: str = "") -> list[tuple[int, str, bool]]:
    """``(line, module, relative)`` for every import anywhere in the file.

    A relative import is resolved against ``package`` (the importing module's package,
    dotted inside ``agentcore``): ``from ..x import y`` in ``_core`` gives ``x``, and
    ``from . import y`` gives ``_core.y``.
    """
    found: list[tuple[int, str, bool]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, False) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.append((node.lineno, node.module or "", False))
                continue
            base = [p for p in package.split(".") if p]
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            if node.module:
                found.append((node.lineno, ".".join([*base, node.module]), True))
            else:  # from . import x
                found += [
                    (node.lineno, ".".join([*base, alias.name]), True) for alias in node.names
                ]
    return found


def _calls(path: pathlib.Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                if func.id in FORBIDDEN_BUILTINS | FORBIDDEN_CALLS:
                    found.append((node.lineno, func.id))
            elif getattr(func, "attr", None) in FORBIDDEN_CALLS:
                found.append((node.lineno, func.attr))  # type: ignore[attr-defined]
    return found


def _agentcore_target(module: str, relative: bool) -> str | None:
    """The agentcore module an import reaches (dotted inside ``agentcore``), or None."""
    if relative:
        modules = _all_modules()
        # "from .x import name" may name a module ("_core.x") or an object in it
        return module if module in modules else module.rpartition(".")[0] or None
    parts = module.split(".")
    if parts[0] == "agentcore" and len(parts) > 1:
        return ".".join(parts[1:])
    return None


def _problems(name: str, seen: set[str] | None = None) -> list[str]:
    """What makes ``name`` impure: its own I/O imports and forbidden calls, and those of
    every agentcore module it imports, followed transitively (with the import chain)."""
    seen = set() if seen is None else seen
    seen.add(name)
    path = _all_modules().get(name)
    if path is None:  # listed for later, or a failing import that other tests will catch
        return []
    allowed = ALLOWED_CALLS.get(name, frozenset())
    problems = [f"{name}.py:{line} calls {c}()" for line, c in _calls(path) if c not in allowed]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for line, module, relative in _imports(path, package):
        target = _agentcore_target(module, relative)
        if target is None and module.split(".")[0] in IO_MODULES | SHELL_PACKAGES:
            problems.append(f"{name}.py:{line} imports {module!r}")
        elif target is not None and target not in seen:
            problems += [f"{name} -> {p}" for p in _problems(target, seen)]
    return problems


@pytest.mark.parametrize("name", sorted(_pure_names()))
def test_pure_module_does_no_io_clock_or_randomness(name: str) -> None:
    problems = _problems(name)
    assert not problems, f"agentcore/{name}.py must stay pure:\n" + "\n".join(problems)


APPLICATION_FOLDER = "_app"
"""The outermost shell: the command line, the chat and the demo. Only they may import
``drivers``/``presenters``, and only inside a function, so importing ``agentcore`` never
loads a plugin. Everything else reaches plugins through entry points (the registry)."""


def _plugin_imports(path: pathlib.Path) -> list[tuple[int, str, bool]]:
    """``(line, module, at_module_level)`` for every import of a plugin package, including
    ``importlib.import_module("drivers...")`` calls, which are imports by another name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        found += [(node.lineno, name, id(node) in top_level) for name in names if _is_plugin(name)]
    return found


def test_agentcore_never_imports_drivers_or_presenters_outside_entry_points() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, module, at_top in _plugin_imports(path):
            where = f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}"
            if path.relative_to(PACKAGE).parts[0] != APPLICATION_FOLDER:
                problems.append(where)
            elif at_top:
                problems.append(where + " at module level (import it inside the function)")
    assert not problems, "agentcore defines the protocols; it never imports its plugins:\n" + (
        "\n".join(problems)
    )


def test_importing_agentcore_loads_no_plugin() -> None:
    code = (
        "import sys, agentcore, agentcore.agent, agentcore.cli, agentcore.demo, "
        "agentcore.engine, agentcore.journal, agentcore.tools;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'drivers', 'presenters'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_plugin_imports_are_found_however_written(tmp_path: pathlib.Path) -> None:
    sample = tmp_path / "_sample.py"
    sample.write_text(
        "import drivers.scripted\n"
        "def f():\n"
        "    from presenters import console\n"
        "    from agentcore.presenters import sse\n"
        "    return importlib.import_module('agentcore.drivers.registry')\n",
        encoding="utf-8",
    )
    assert _plugin_imports(sample) == [
        (1, "drivers.scripted", True),
        (3, "presenters", False),
        (4, "agentcore.presenters", False),
        (5, "agentcore.drivers.registry", False),
    ]


def test_the_checker_catches_what_it_should(tmp_path: pathlib.Path) -> None:
    """The AST scan sees imports and calls wherever they hide (functions, from-imports)."""
    sample = tmp_path / "_sample.py"
    sample.write_text(
        "from __future__ import annotations\n"
        "from . import _runtime\n"
        "from ._events import X\n"
        "def f():\n"
        "    import time\n"
        "    from os.path import join\n"
        "    from drivers import anthropic\n"
        "    return time.monotonic(), print(hash('x'))\n",
        encoding="utf-8",
    )
    assert _imports(sample) == [
        (1, "__future__", False),
        (2, "_runtime", True),
        (3, "_events", True),
        (5, "time", False),
        (6, "os.path", False),
        (7, "drivers", False),
    ]
    assert sorted(call for _, call in _calls(sample)) == ["hash", "monotonic", "print"]


def test_impurity_is_found_through_imported_agentcore_modules(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "_a.py").write_text("from ._b import x\nimport agentcore._a\n", encoding="utf-8")
    (tmp_path / "_b.py").write_text("import socket.x\nx = open('f')\n", encoding="utf-8")
    modules = {p.stem: p for p in tmp_path.glob("*.py")}
    monkeypatch.setattr(sys.modules[__name__], "_all_modules", lambda: modules)
    assert _problems("_a") == ["_a -> _b.py:2 calls open()", "_a -> _b.py:1 imports 'socket.x'"]


def test_plugins_use_only_agentcore_public_api() -> None:
    """``drivers`` and ``presenters`` are written the way a user's plugin would be."""
    root = PACKAGE.parent
    problems = [
        f"{path.relative_to(root)}:{line} imports {module}"
        for package in SHELL_PACKAGES
        for path in sorted((root / package).rglob("*.py"))
        for line, module, relative in _imports(path)
        if not relative
        and any(part.startswith("_") for part in module.split(".")[1:])
        and module.startswith("agentcore")
    ]
    assert not problems, "import from agentcore's public modules instead:\n" + "\n".join(problems)
