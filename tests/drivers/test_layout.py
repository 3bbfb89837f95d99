"""The drivers' layout: one package per vendor over the shared skeleton in ``_common``.

Each vendor package holds ``driver.py`` (the I/O), ``request.py`` (the body, pure),
``content.py`` (its content parts and what it takes of them, pure) and ``stream.py`` (the
normaliser, pure), and may hold pure request add-ons of its own (``caching.py``:
prompt-cache controls; ``provider_tools.py``: provider-side tools). It imports from no
other vendor package: what two vendors share lives in ``_common``, which imports no
vendor package and nothing above it.
Imports are read from the source (every ``import`` statement, lazy ones too), so a rule
broken only inside a function that a test never calls is still caught.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

from agentcore import drivers

ROOT = pathlib.Path(drivers.__file__).parent
VENDORS = sorted(
    p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file() and p.name != "_common"
)
PACKAGE_NAMES = ("agentcore.drivers", "drivers")


def test_the_vendor_packages_are_the_four_drivers() -> None:
    assert VENDORS == ["anthropic", "google", "openai", "openai_responses"]


@pytest.mark.parametrize("vendor", VENDORS)
def test_each_vendor_package_holds_driver_request_and_stream(vendor: str) -> None:
    files = {p.name for p in (ROOT / vendor).glob("*.py")}
    required = {"__init__.py", "content.py", "driver.py", "request.py", "stream.py"}
    assert required <= files <= required | {"caching.py", "provider_tools.py"}


def imported_drivers_modules(path: pathlib.Path) -> set[str]:
    """The modules of the drivers package that ``path`` imports, as paths inside it
    (``_common.base``, ``openai.request``, ``openai``; ``""`` for the package itself)."""
    package = path.relative_to(ROOT).parent.parts  # () for a top-level module
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(package[: len(package) - node.level + 1])
            target = ".".join([*base, node.module] if node.module else base)
            if node.module is None:  # from .. import x: x may be a module
                found |= {f"{target}.{a.name}".lstrip(".") for a in node.names}
            else:
                found.add(target)
        else:
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module
                else []
            )
            for name in names:
                for prefix in PACKAGE_NAMES:
                    if name == prefix or name.startswith(prefix + "."):
                        found.add(name.removeprefix(prefix).lstrip("."))
    return found


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_vendor_package_imports_only_itself_and_common(vendor: str) -> None:
    for path in sorted((ROOT / vendor).glob("*.py")):
        for module in imported_drivers_modules(path):
            top = module.partition(".")[0]
            assert top in (vendor, "_common"), f"{path.relative_to(ROOT)} imports {module}"


def test_common_imports_no_vendor_package_and_nothing_above_it() -> None:
    paths = sorted((ROOT / "_common").glob("*.py"))
    assert paths
    for path in paths:
        for module in imported_drivers_modules(path):
            assert module.startswith("_common."), f"{path.relative_to(ROOT)} imports {module}"


@pytest.mark.parametrize(
    ("source", "where", "expected"),
    [
        ("from ..openai.request import plain\n", "google/request.py", {"openai.request"}),
        ("from .stream import NORMALISER\n", "google/driver.py", {"google.stream"}),
        ("from .._common.base import plain\n", "google/driver.py", {"_common.base"}),
        ("def f():\n    from .. import openai\n", "google/driver.py", {"openai"}),
        ("from ..anthropic import X\n", "_common/base.py", {"anthropic"}),
        ("import agentcore.drivers.openai.driver\n", "_common/base.py", {"openai.driver"}),
        ("from drivers.google import X\n", "_common/base.py", {"google"}),
        ("import drivers_extra\nimport agentcore\n", "_common/base.py", set()),
    ],
)
def test_the_import_reader_resolves_every_spelling(
    source: str,
    where: str,
    expected: set[str],
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reader the two rules rely on, on imports that break them and ones that do not."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    path = tmp_path / where
    path.parent.mkdir()
    path.write_text(source, encoding="utf-8")
    assert imported_drivers_modules(path) == expected
