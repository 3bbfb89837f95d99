"""The Python examples of the README, the tutorial and the pages in DOCS run and print
what they say they print."""

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
    ROOT / "docs" / "agent.md",
    ROOT / "docs" / "runtime.md",
    ROOT / "docs" / "loop.md",
    ROOT / "docs" / "middleware.md",
    ROOT / "docs" / "sessions.md",
    ROOT / "docs" / "compaction.md",
    ROOT / "docs" / "caching.md",
    ROOT / "docs" / "provider-tools.md",
    ROOT / "docs" / "structured-output.md",
    ROOT / "docs" / "coding.md",
    ROOT / "docs" / "subagents.md",
    ROOT / "docs" / "handoffs.md",
    ROOT / "docs" / "mcp-server.md",
    ROOT / "docs" / "a2a.md",
    ROOT / "docs" / "evals.md",
    ROOT / "docs" / "multimodal.md",
    ROOT / "docs" / "prices.md",
    ROOT / "docs" / "rate-budgets.md",
)
SCRATCH = {"coding.md", "subagents.md"}
"""Pages whose examples write files: they run in a fresh working directory."""
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
        comment = re.match(r"\s*print\(.*\)\s+# (.*)$", line)
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
def test_doc_example(
    doc: pathlib.Path, block: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if doc.name in SCRATCH:
        monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(doc), "exec", dont_inherit=True), {"__name__": "docs_example"})
    printed = out.getvalue().splitlines()
    assert [" ".join(x.split()) for x in printed] == [" ".join(e.split()) for e in _expected(block)]


# Which test runs the python blocks of each page (every block fenced ```python; a block
# that cannot run as it is, a signature or a call that needs a real key, is fenced
# ```python sketch and shown only).
RUNNERS = {
    "README.md": "tests/test_doc_examples.py",
    "docs/tutorial.md": "tests/test_doc_examples.py",
    "docs/tools.md": "tests/test_doc_examples.py",
    "docs/journal.md": "tests/test_doc_examples.py",
    "docs/agent.md": "tests/test_doc_examples.py",
    "docs/runtime.md": "tests/test_doc_examples.py",
    "docs/loop.md": "tests/test_doc_examples.py",
    "docs/middleware.md": "tests/test_doc_examples.py",
    "docs/sessions.md": "tests/test_doc_examples.py",
    "docs/compaction.md": "tests/test_doc_examples.py",
    "docs/caching.md": "tests/test_doc_examples.py",
    "docs/provider-tools.md": "tests/test_doc_examples.py",
    "docs/structured-output.md": "tests/test_doc_examples.py",
    "docs/events.md": "tests/core/test_core_docs.py",
    "docs/processors.md": "tests/core/test_core_docs.py",
    "docs/machine.md": "tests/core/test_machine.py",
    "docs/drivers.md": "tests/drivers/test_driver_docs.py",
    "docs/providers.md": "tests/drivers/test_driver_docs.py",
    "docs/presenters.md": "tests/presenters/test_presenters_recording.py",
    "docs/coding.md": "tests/test_doc_examples.py",
    "docs/mcp.md": "tests/mcp/test_mcp_docs.py",
    "docs/serve.md": "tests/serve/test_serve_docs.py",
    "docs/subagents.md": "tests/test_doc_examples.py",
    "docs/handoffs.md": "tests/test_doc_examples.py",
    "docs/mcp-server.md": "tests/test_doc_examples.py",
    "docs/a2a.md": "tests/test_doc_examples.py",
    "docs/evals.md": "tests/test_doc_examples.py",
    "docs/multimodal.md": "tests/test_doc_examples.py",
    "docs/prices.md": "tests/test_doc_examples.py",
    "docs/rate-budgets.md": "tests/test_doc_examples.py",
}


def test_every_python_block_of_the_docs_is_run_by_a_test() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
    with_code = {
        str(page.relative_to(ROOT))
        for page in pages
        if "```python\n" in page.read_text(encoding="utf-8")
    }
    assert with_code <= set(RUNNERS), (
        f"no test runs the python blocks of {with_code - set(RUNNERS)}"
    )
    for page, runner in RUNNERS.items():
        assert pathlib.PurePath(page).name in (ROOT / runner).read_text(encoding="utf-8"), (
            f"{runner} no longer runs {page}"
        )
    fences = {
        fence
        for page in pages
        for fence in re.findall(r"^```(python\S*.*)$", page.read_text(encoding="utf-8"), re.M)
    }
    assert fences <= {"python", "python sketch"}, f"unknown python fences: {fences}"
