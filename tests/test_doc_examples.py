"""The Python examples of the README, the tutorial and docs/journal.md run and print what
they say they print."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).parents[1]
DOCS = (
    ROOT / "README.md",
    ROOT / "docs" / "tutorial.md",
    ROOT / "docs" / "tools.md",
    ROOT / "docs" / "journal.md",
)
BLOCKS = [
    (doc, block)
    for doc in DOCS
    for block in re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
]


def _expected(block: str) -> list[str]:
    """Promised output: ``print(...)  # value``; a ``# [`` line standing for the output of
    the ``print`` above it; ``# [printed] value`` for a ``print`` inside a loop; ``#  ``
    (two spaces) continues the previous line."""
    lines: list[str] = []
    for line in block.splitlines():
        comment = re.match(r"print\(.*\)\s+# (.*)$", line)
        if comment:
            lines.append(comment.group(1))
        elif line.startswith("# [printed] "):
            lines.append(line.removeprefix("# [printed] "))
        elif line.startswith("# ["):
            lines.append(line[2:])
        elif line.startswith("#  "):
            lines[-1] += " " + line[2:].strip()
    return lines


@pytest.mark.parametrize(
    ("doc", "block"), BLOCKS, ids=[f"{d.name}-{i}" for i, (d, _) in enumerate(BLOCKS)]
)
def test_doc_example(doc: pathlib.Path, block: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(doc), "exec", dont_inherit=True), {})
    printed = out.getvalue().splitlines()
    assert [" ".join(x.split()) for x in printed] == [" ".join(e.split()) for e in _expected(block)]
