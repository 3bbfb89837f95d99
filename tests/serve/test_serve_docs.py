"""Every python block of docs/serve.md runs and prints what it says."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _expected(block: str) -> list[str]:
    lines = []
    for line in block.splitlines():
        comment = re.match(r"\s*print\(.*\)\s+# (.*)$", line)
        if comment:
            lines.append(comment.group(1))
        elif line.startswith("# [printed] "):
            lines.append(line.removeprefix("# [printed] "))
    return lines


def test_serve_md_examples_run() -> None:
    text = (ROOT / "docs" / "serve.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 2
    for block in blocks:
        result = subprocess.run(
            [sys.executable, "-c", block], capture_output=True, text=True, cwd=ROOT, check=False
        )
        assert result.returncode == 0, f"{block}\n{result.stderr}"
        assert result.stdout.splitlines() == _expected(block)
