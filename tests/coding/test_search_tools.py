"""grep, find and ls on both backends: limits, context, .gitignore, sorting.

Tests the private module ``agentcore._coding.ripgrep``: its glob matcher, which must agree
with ripgrep's."""

from __future__ import annotations

import os
import pathlib
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentcore._coding.ripgrep import glob_matcher
from agentcore.coding import create_find_tool, create_grep_tool, create_ls_tool, find_ripgrep


def _project(ws: pathlib.Path) -> None:
    (ws / ".gitignore").write_text("build/\n*.log\n")
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("import os\n\ndef alpha():\n    return 'TODO one'\n")
    (ws / "src" / "b.py").write_text("# todo two\nx = 1\n")
    (ws / "build").mkdir()
    (ws / "build" / "gen.py").write_text("TODO ignored\n")
    (ws / "debug.log").write_text("TODO ignored too\n")
    (ws / ".hidden.py").write_text("TODO hidden\n")


def test_rg_comes_from_the_wheel_in_this_environment() -> None:
    import sysconfig

    assert os.path.dirname(find_ripgrep()) == sysconfig.get_path("scripts")


def test_grep_respects_gitignore_and_searches_hidden_files(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    _project(ws)
    out = call(create_grep_tool(str(ws), operations=backend), pattern="TODO")
    assert sorted(out.content.splitlines()) == [
        ".hidden.py:1: TODO hidden",
        "src/a.py:4:     return 'TODO one'",
    ]
    assert out.details["matches"] == 2
    ci = call(
        create_grep_tool(str(ws), operations=backend),
        pattern="todo",
        ignore_case=True,
        glob="*.py",
        path="src",
    )
    assert sorted(ci.content.splitlines()) == [
        "src/a.py:4:     return 'TODO one'",
        "src/b.py:1: # todo two",
    ]


def test_grep_glob_does_not_bring_back_ignored_files(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    _project(ws)
    out = call(create_grep_tool(str(ws), operations=backend), pattern="ignored", glob="*.log")
    assert out.content == "No matches found." and not out.is_error


def test_grep_limit_with_context_keeps_the_last_matchs_trailing_context(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    (ws / "many.txt").write_text("".join(f"hit {i}\nfiller {i}\n" for i in range(300)))
    out = call(create_grep_tool(str(ws), operations=backend), pattern="hit", context=1, limit=100)
    body, notice = out.content.split("\n\n[")
    lines = body.splitlines()
    assert [line for line in lines if line.startswith("many.txt:")] == [
        f"many.txt:{2 * i + 1}: hit {i}" for i in range(100)
    ]
    assert lines[-1] == "many.txt-200- filler 99"
    assert "limit of 100 matches" in notice and "limit=200" in notice
    assert out.details["match_limit_reached"] == 100 and out.details["matches"] == 100


def test_grep_context_separates_groups_and_cuts_long_lines(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    (ws / "f.txt").write_text("a\nneedle\nb\nc\nd\ne\nneedle " + "x" * 1000 + "\n")
    out = call(create_grep_tool(str(ws), operations=backend), pattern="needle", context=1)
    lines = out.content.split("\n\n[")[0].splitlines()
    assert lines[:4] == ["f.txt-1- a", "f.txt:2: needle", "f.txt-3- b", "--"]
    assert lines[5].endswith("... [line truncated]") and len(lines[5]) < 560
    assert out.details["lines_truncated"]


def test_grep_literal_and_bad_regex(ws: pathlib.Path, backend: Any, call: Any) -> None:
    (ws / "f.txt").write_text("a.b(c\naxb(c\n")
    grep = create_grep_tool(str(ws), operations=backend)
    assert call(grep, pattern="a.b(c", literal=True).content == "f.txt:1: a.b(c"
    bad = call(grep, pattern="a.b(c")
    assert bad.is_error and "grep failed" in bad.content and "regex" in bad.content.lower()


def test_find_globs_sorted_relative_to_the_root_and_respects_gitignore(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    _project(ws)
    find = create_find_tool(str(ws), operations=backend)
    assert call(find, pattern="*.py").content.splitlines() == [".hidden.py", "src/a.py", "src/b.py"]
    assert call(find, pattern="*.py", path="src").content.splitlines() == ["src/a.py", "src/b.py"]
    assert call(find, pattern="src/**/*.py").content.splitlines() == ["src/a.py", "src/b.py"]
    assert call(find, pattern="*.{log,md}").content == "No files found matching '*.{log,md}'."


def test_find_limit(ws: pathlib.Path, backend: Any, call: Any) -> None:
    for i in range(12):
        (ws / f"f{i:02d}.txt").write_text("")
    out = call(create_find_tool(str(ws), operations=backend), pattern="*.txt", limit=10)
    body, notice = out.content.split("\n\n[")
    assert body.splitlines() == [f"f{i:02d}.txt" for i in range(10)]
    assert "limit of 10 results" in notice and out.details["result_limit_reached"] == 10
    exact = call(create_find_tool(str(ws), operations=backend), pattern="*.txt", limit=12)
    assert exact.details["result_limit_reached"] is None and "[" not in exact.content


def test_ls_sorts_case_insensitively_marks_dirs_and_shows_dotfiles(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    for name in ["b.txt", "A.txt", ".env", "Zeta"]:
        (ws / name).write_text("")
    (ws / "docs").mkdir()
    (ws / "link").symlink_to(ws / "docs")
    ls = create_ls_tool(str(ws), operations=backend)
    assert call(ls).content.splitlines() == [".env", "A.txt", "b.txt", "docs/", "link/", "Zeta"]
    limited = call(ls, limit=2)
    assert limited.content.splitlines()[:2] == [".env", "A.txt"]
    assert "Showing 2 of 6 entries" in limited.content
    (ws / "empty").mkdir()
    assert call(ls, path="empty").content == "(empty directory)"
    assert call(ls, path="b.txt").is_error


_segment = st.text(alphabet="abc.", min_size=1, max_size=4)


@given(st.lists(_segment, min_size=1, max_size=4), _segment)
def test_a_glob_without_slash_matches_the_name_at_any_depth(dirs: list[str], name: str) -> None:
    path = "/".join([*dirs, name])
    assert glob_matcher(name)(path)
    assert glob_matcher("**/" + name)(path)
    assert glob_matcher("*")(path)
    assert not glob_matcher(name + "x")(path)


def test_glob_classes_and_anchors() -> None:
    assert glob_matcher("src/*.py")("src/a.py")
    assert not glob_matcher("src/*.py")("src/sub/a.py")
    assert glob_matcher("src/**")("src/sub/a.py")
    assert glob_matcher("[!a]*.txt")("b.txt") and not glob_matcher("[!a]*.txt")("a.txt")
    assert glob_matcher("f?.txt")("f1.txt") and not glob_matcher("f?.txt")("f12.txt")


def test_find_and_ls_default_limits_are_1000_and_500(ws: pathlib.Path, call: Any) -> None:
    for i in range(1001):
        (ws / f"f{i:04d}.txt").write_text("")
    found = call(create_find_tool(str(ws)), pattern="*.txt")
    assert len(found.content.split("\n\n[")[0].splitlines()) == 1000
    assert found.details["result_limit_reached"] == 1000
    listed = call(create_ls_tool(str(ws)))
    assert len(listed.content.split("\n\n")[0].splitlines()) == 500
    assert "Showing 500 of 1001 entries" in listed.content
