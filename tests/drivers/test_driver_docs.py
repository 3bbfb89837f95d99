"""docs/drivers.md and docs/providers.md stay true: every Python example runs.

A block whose fence reads ``python sketch`` shows a shape to fill in (or needs a real
key) and is not run; every ``python`` block is run as it is, with no network (examples
that call a provider use a local ``ReplayServer``), and what it prints as
``print(...)  # value`` must be that value.
"""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).parents[2] / "docs"
PAGES = ("drivers.md", "providers.md")
BLOCKS = [
    (page, number, block)
    for page in PAGES
    for number, block in enumerate(
        re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(encoding="utf-8"), re.S)
    )
]


def promised(block: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", block, re.M)]


@pytest.mark.parametrize(
    ("page", "number", "block"), BLOCKS, ids=[f"{p}-{n}" for p, n, _ in BLOCKS]
)
def test_python_example_runs_and_prints_what_it_says(
    page: str, number: int, block: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(DOCS.parent)  # examples name fixtures relative to the repository
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, f"{page} block {number}", "exec"), {"__name__": "docs_example"})
    printed = [" ".join(line.split()) for line in out.getvalue().splitlines()]
    expected = [" ".join(line.split()) for line in promised(block)]
    if expected:
        assert printed == expected


def test_every_page_has_examples_that_run() -> None:
    assert {page for page, _, _ in BLOCKS} == set(PAGES)
