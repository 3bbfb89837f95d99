"""The README's Python examples run and print what they say they print."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

README = pathlib.Path(__file__).parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def _expected(block: str) -> list[str]:
    """Promised output: ``print(...)  # value``, or a ``# [`` line standing for the output
    of the ``print`` above it; ``#  `` (two spaces) continues the previous line."""
    lines: list[str] = []
    for line in block.splitlines():
        comment = re.match(r"print\(.*\)\s+# (.*)$", line)
        if comment:
            lines.append(comment.group(1))
        elif line.startswith("# ["):
            lines.append(line[2:])
        elif line.startswith("#  "):
            lines[-1] += " " + line[2:].strip()
    return lines


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.splitlines()[1][:40])
def test_readme_example(block: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), {})
    printed = out.getvalue().splitlines()
    assert [" ".join(x.split()) for x in printed] == [" ".join(e.split()) for e in _expected(block)]
