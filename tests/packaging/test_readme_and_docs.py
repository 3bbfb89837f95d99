"""README and docs tell a new user the truth: the distribution's name, its extras, what is
in the box, the replay call and figure, one sketch convention, examples that run from any
folder, and a tutorial property test that a slow machine does not fail.

The findings these come from are under shared/findings/repros/newuser/ (readme_duplicates,
readme_pip_name_collision, docs_sketch_and_paths, tutorial_step2_flaky_healthcheck).
"""

from __future__ import annotations

import ast
import collections
import contextlib
import inspect
import io
import pathlib
import re
import time
import tomllib
from typing import Any

import pytest

import agentcore.journal
import agentcore.testing

ROOT = pathlib.Path(__file__).parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
PAGES = {
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
}
USER_TEXTS = {
    **{name: text for name, text in PAGES.items() if name != "docs/changelog.md"},
    **{
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for folder in ("drivers", "presenters", "examples")
        for path in sorted((ROOT / folder).rglob("*.py"))
    },
}
"""What a user reads for an install line: the pages (the changelog's history aside), the
plugins' docstrings and messages, the examples."""


def _blocks(fence: str) -> list[tuple[str, str]]:
    return [
        (name, block)
        for name, text in PAGES.items()
        for block in re.findall(rf"^```{fence}\n(.*?)^```", text, re.S | re.M)
    ]


def test_the_distribution_has_its_own_name() -> None:
    """The index's ``agentcore`` is someone else's ("A core API for agentsea")."""
    assert PROJECT["name"] == "agentcore-engine"


def test_every_install_line_names_the_distribution_and_real_extras() -> None:
    extras = set(PROJECT["optional-dependencies"])
    lines = [
        (name, m.group(0))
        for name, text in USER_TEXTS.items()
        for m in re.finditer(r"pip install\s+['\"]?([\w.-]+)(\[[^\]]*\])?", text)
    ]
    assert len(lines) >= 10
    for name, line in lines:
        match = re.match(r"pip install\s+['\"]?([\w.-]+)(?:\[([^\]]*)\])?", line)
        assert match is not None
        package, wanted = match.group(1), match.group(2)
        if package in (".", "-e"):
            continue
        assert package == PROJECT["name"], f"{name}: {line!r} installs {package!r}"
        unknown = set(re.split(r"[,{}\s]+", wanted or "")) - extras - {"", "extra"}
        assert not unknown, f"{name}: {line!r} names extras pyproject lacks: {unknown}"


def _install_section() -> str:
    return README[README.index("## Install") : README.index("\n## ", README.index("## Install"))]


def test_the_install_section_names_every_extra_once_in_whole_sentences() -> None:
    section = _install_section()
    for extra in PROJECT["optional-dependencies"]:
        if extra != "dev":
            assert f"`{extra}`" in section, f"README's install section omits the {extra} extra"
    prose = re.sub(r"```.*?```", "", section, flags=re.S)
    for paragraph in filter(None, (p.strip() for p in prose.split("\n\n")[1:])):
        assert paragraph.endswith((".", ":")), f"unfinished paragraph: {paragraph[-80:]!r}"
        assert paragraph.count("(") == paragraph.count(")"), paragraph


def test_what_is_in_the_box_lists_each_package_once_with_serve_and_durable() -> None:
    table = README[README.index("## What is in the box") : README.index("## Documentation")]
    names = re.findall(r"^\| `([^`]+)`", table, re.M)
    repeated = [name for name, n in collections.Counter(names).items() if n > 1]
    assert not repeated, f"rows listed twice: {repeated}"
    assert {"agentcore.serve", "agentcore.durable", "agentcore.drivers"} <= set(names)
    assert {"agentcore.presenters", "agentcore.coding", "agentcore.sessions"} <= set(names)
    assert not {"drivers", "presenters"} & set(names), "the old top-level spellings"


def test_the_documentation_paragraph_names_each_guide_once() -> None:
    doc = README[README.index("## Documentation") :]
    paragraph = doc.split("\n\n")[1]
    guides = re.search(r"how-to guides \((.*?)\), explanations", paragraph, re.S)
    assert guides, paragraph
    items = [" ".join(item.split()) for item in guides.group(1).split(",")]
    assert len(items) == len(set(items)), f"listed twice: {items}"


def test_the_readme_calls_replay_as_the_code_defines_it() -> None:
    calls = re.findall(r"journal\.replay\(path, parallel=(\w+)\)", README)
    default = inspect.signature(agentcore.journal.replay).parameters["parallel"].default
    assert calls == [repr(default)]


def test_the_readme_quotes_only_figures_of_the_performance_page() -> None:
    """The README's speed figures are docs/performance.md's (its latest run), verbatim."""
    figures = re.findall(r"\d[\d,.]*(?:x\b| µs| ms| KiB| events/s)", README)
    assert figures, "the README quotes no figure of docs/performance.md"
    performance = PAGES["docs/performance.md"]
    assert [f for f in figures if f not in performance] == []


def test_one_sketch_convention() -> None:
    """A block that is not run is fenced ``python sketch`` (docs/README.md), never a
    ``python`` block marked by a comment; each sketch at least compiles."""
    marked = [(name, b[:40]) for name, b in _blocks("python") if b.lstrip().startswith("# sketch")]
    assert not marked
    sketches = _blocks("python sketch")
    assert sketches
    for name, block in sketches:
        compile(block, name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def test_no_runnable_example_needs_a_checkout() -> None:
    """A block that reads ``tests/...`` or ``agentcore/...`` files runs only from a
    checkout's root: the examples build what they read (``drivers.testing.reply_sse``)."""
    needing = [
        (name, m.group(0))
        for name, block in _blocks("python")
        for m in re.finditer(r"['\"](tests|agentcore|drivers|presenters|bench)/[^'\"]*['\"]", block)
    ]
    assert not needing


def _tutorial_property_test() -> str:
    (block,) = [b for n, b in _blocks("python") if n == "docs/tutorial.md" and "@given" in b]
    return block


def test_the_tutorial_property_test_passes_on_a_slow_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As on a loaded 2-core machine: the strategy's first draws take over a second in all
    and a check runs past Hypothesis' default 200 ms deadline. The example must pass."""
    draws = iter(range(10**6))
    calls = iter(range(10**6))
    slow_streams = agentcore.testing.assistant_streams

    def assistant_streams(*args: Any, **kwargs: Any) -> Any:
        def warm_up(stream: Any) -> Any:
            if next(draws) < 6:
                time.sleep(0.25)
            return stream

        return slow_streams(*args, **kwargs).map(warm_up)

    check = agentcore.testing.check_processor

    def check_processor(*args: Any, **kwargs: Any) -> Any:
        if next(calls) < 2:
            time.sleep(0.3)
        return check(*args, **kwargs)

    monkeypatch.setattr(agentcore.testing, "assistant_streams", assistant_streams)
    monkeypatch.setattr(agentcore.testing, "check_processor", check_processor)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_tutorial_property_test(), "docs/tutorial.md", "exec"), {"__name__": "t"})
    assert next(draws) >= 6 and next(calls) >= 2, "the slow stand-ins were not used"
    assert "combine_processors(" in out.getvalue()
