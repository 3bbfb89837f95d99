"""docs/mcp.md stays true: its examples run against real servers and print what they say.

A block starting with ``# file: NAME`` is written to a temporary folder (a server the
next blocks start); ``# sketch`` blocks only have to compile; every other block runs in
that folder, and each ``print(...)  # value`` promises the line it prints.
"""

from __future__ import annotations

import ast
import contextlib
import io
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).parents[2] / "docs" / "mcp.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def _expected(block: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", block, re.M)]


def test_the_doc_has_runnable_examples() -> None:
    runnable = [b for b in BLOCKS if not b.startswith(("# sketch", "# file: "))]
    assert len(runnable) >= 3 and all(_expected(b) for b in runnable)


def test_sketches_compile() -> None:
    for block in (b for b in BLOCKS if b.startswith("# sketch")):
        compile(block, str(DOC), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def test_examples_run_and_print_what_they_promise(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for block in BLOCKS:
        if block.startswith("# sketch"):
            continue
        if block.startswith("# file: "):
            name, _, body = block.partition("\n")
            (tmp_path / name.removeprefix("# file: ").strip()).write_text(body)
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(DOC), "exec"), {"__name__": "docs_example"})
        printed = [" ".join(line.split()) for line in out.getvalue().splitlines()]
        assert printed == [" ".join(e.split()) for e in _expected(block)], block[:60]
