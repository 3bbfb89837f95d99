"""docs/subagents.md stays true: every python block runs and prints what it says it prints
(the convention of tests/test_doc_examples.py, whose parser is reused)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).parents[2]
DOC = ROOT / "docs" / "subagents.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def _expected(block: str) -> list[str]:
    spec = importlib.util.spec_from_file_location(
        "_doc_examples", ROOT / "tests" / "test_doc_examples.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lines: list[str] = module._expected(block)
    return lines


@pytest.mark.parametrize("block", BLOCKS, ids=[f"subagents.md-{i}" for i in range(len(BLOCKS))])
def test_subagents_doc_example(
    block: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(DOC), "exec"), {"__name__": "docs_example"})
    printed = [" ".join(x.split()) for x in out.getvalue().splitlines()]
    assert printed == [" ".join(e.split()) for e in _expected(block)]
    assert printed  # every block shows something


def test_the_doc_has_examples() -> None:
    assert len(BLOCKS) >= 3
