"""The ``grep``, ``find`` and ``ls`` tools."""

from __future__ import annotations

import contextlib
import posixpath
from typing import Any

from .._loop.tools import Tool, ToolOutput, define_tool
from .local import LocalOperations
from .operations import GrepLine, GrepQuery, ListOperations, SearchOperations
from .process import CommandError
from .results import failure, os_failure
from .truncate import DEFAULT_MAX_BYTES, format_size, truncate_head, truncate_line
from .workspace import Workspace, as_workspace

__all__ = ["create_find_tool", "create_grep_tool", "create_ls_tool"]

GREP_LIMIT = 100
FIND_LIMIT = 1000
LS_LIMIT = 500

_DIR = {"type": "string", "description": "Directory or file, relative to the workspace root"}


def _limit_schema(default: int) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": 1,
        "description": f"At most this many (default {default})",
    }


def _cap(text: str, notices: list[str], details: dict[str, Any]) -> str:
    """``text`` cut at the byte limit (with a notice), then the notices appended."""
    result = truncate_head(text, max_bytes=DEFAULT_MAX_BYTES)
    if result.truncated_by == "bytes":
        notices.append(f"Output cut at {format_size(DEFAULT_MAX_BYTES)}; narrow the search.")
        details["truncation"] = result.as_details()
    if notices:
        return result.content + "\n\n" + "\n".join(f"[{n}]" for n in notices)
    return result.content


def create_grep_tool(cwd: str | Workspace, *, operations: SearchOperations | None = None) -> Tool:
    """``grep(pattern, path?, glob?, ignore_case?, literal?, context?, limit?)`` over
    ripgrep: ``.gitignore`` respected, hidden files searched, matches as ``path:N: text``
    and context lines as ``path-N- text``, lines cut at 500 characters, at most ``limit``
    (default 100) matching lines with a notice. Details: ``matches``,
    ``match_limit_reached``, ``lines_truncated``, ``truncation``."""
    ws = as_workspace(cwd)
    ops: SearchOperations = operations or LocalOperations()

    async def grep(args: dict[str, Any], ctx: Any) -> ToolOutput:
        shown_path: str = args.get("path", ".")
        limit: int = args.get("limit", GREP_LIMIT)
        context: int = args.get("context", 0)
        try:
            real = await ws.resolve(shown_path, ops)
        except OSError as exc:
            return os_failure(exc, shown_path)
        query = GrepQuery(
            args["pattern"],
            real,
            ws.base_for(real),
            glob=args.get("glob"),
            ignore_case=args.get("ignore_case", False),
            literal=args.get("literal", False),
            context=context,
        )
        out: list[str] = []
        matches = 0
        cut = False
        limit_reached = False
        previous: GrepLine | None = None
        failed: CommandError | None = None
        lines = ops.grep(query)
        try:
            async for line in lines:
                if limit_reached and (
                    line.is_match
                    or previous is None
                    or line.path != previous.path
                    or line.line_number != previous.line_number + 1
                ):
                    break  # only the trailing context of the last match is still wanted
                if line.is_match:
                    matches += 1
                    limit_reached = matches >= limit
                if (
                    context
                    and previous is not None
                    and (line.path != previous.path or line.line_number > previous.line_number + 1)
                ):
                    out.append("--")
                text, was_cut = truncate_line(line.text)
                cut = cut or was_cut
                mark = ":" if line.is_match else "-"
                out.append(f"{line.path}{mark}{line.line_number}{mark} {text}")
                previous = line
        except CommandError as exc:
            failed = exc
        except OSError as exc:
            return os_failure(exc, shown_path)
        finally:
            with contextlib.suppress(Exception):
                await lines.aclose()
        if failed is not None and not matches:
            return failure(f"grep failed: {failed.stderr.strip() or failed}", path=shown_path)
        details: dict[str, Any] = {
            "matches": matches,
            "match_limit_reached": limit if limit_reached else None,
            "lines_truncated": cut,
            "truncation": None,
        }
        if not matches:
            return ToolOutput("No matches found.", details=details)
        notices = []
        if limit_reached:
            notices.append(
                f"Stopped at the limit of {limit} matches; use limit={limit * 2} for more "
                "or a narrower pattern."
            )
        if cut:
            notices.append("Some lines were cut at 500 characters; use read to see them whole.")
        if failed is not None:
            notices.append(f"Some files could not be searched: {failed.stderr.strip()}")
        return ToolOutput(_cap("\n".join(out), notices, details), details=details)

    return define_tool(
        "grep",
        "Search file contents with a regular expression (ripgrep syntax; `literal` for plain "
        "text). Respects .gitignore. Returns `path:line: text` for matches and "
        "`path-line- text` for `context` lines.",
        {
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression to find"},
                "path": _DIR,
                "glob": {"type": "string", "description": "Only files matching, e.g. *.py"},
                "ignore_case": {"type": "boolean"},
                "literal": {"type": "boolean", "description": "Pattern is plain text"},
                "context": {"type": "integer", "minimum": 0, "description": "Lines around"},
                "limit": _limit_schema(GREP_LIMIT),
            },
            "required": ["pattern"],
            "additionalProperties": False,
        },
        grep,
        idempotent=True,
    )


def create_find_tool(cwd: str | Workspace, *, operations: SearchOperations | None = None) -> Tool:
    """``find(pattern, path?, limit?)``: files matching a glob (``*.py``, ``src/**/*.ts``)
    under ``path``, ``.gitignore`` respected, sorted, shown relative to the workspace
    root; at most ``limit`` (default 1,000) with a notice. Details: ``count``,
    ``result_limit_reached``."""
    ws = as_workspace(cwd)
    ops: SearchOperations = operations or LocalOperations()

    async def find(args: dict[str, Any], ctx: Any) -> ToolOutput:
        shown_path: str = args.get("path", ".")
        limit: int = args.get("limit", FIND_LIMIT)
        found: list[str] = []
        try:
            real = await ws.resolve(shown_path, ops)
            base = ws.base_for(real)
            shown_base = posixpath.relpath(real, base)
            prefix = "" if shown_base == "." else shown_base + "/"
            paths = ops.glob(real, args["pattern"])
            try:
                async for path in paths:
                    if len(found) == limit:
                        break
                    found.append(prefix + path)
                else:
                    limit = 0
            finally:
                await paths.aclose()
        except OSError as exc:
            return os_failure(exc, shown_path)
        details: dict[str, Any] = {
            "count": len(found),
            "result_limit_reached": limit or None,
            "truncation": None,
        }
        if not found:
            return ToolOutput(f"No files found matching {args['pattern']!r}.", details=details)
        notices = []
        if limit:
            notices.append(
                f"Stopped at the limit of {limit} results; use limit={limit * 2} for more "
                "or a narrower pattern."
            )
        return ToolOutput(_cap("\n".join(found), notices, details), details=details)

    return define_tool(
        "find",
        "Find files by glob pattern (`*.py` matches at any depth, `src/**/*.ts` from the "
        "root). Respects .gitignore. Returns paths relative to the workspace root.",
        {
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern"},
                "path": _DIR,
                "limit": _limit_schema(FIND_LIMIT),
            },
            "required": ["pattern"],
            "additionalProperties": False,
        },
        find,
        idempotent=True,
    )


def create_ls_tool(cwd: str | Workspace, *, operations: ListOperations | None = None) -> Tool:
    """``ls(path?, limit?)``: a directory's entries sorted case-insensitively, ``/`` after
    directories, dotfiles included; at most ``limit`` (default 500) with a notice.
    Details: ``count``, ``entry_limit_reached``."""
    ws = as_workspace(cwd)
    ops: ListOperations = operations or LocalOperations()

    async def ls(args: dict[str, Any], ctx: Any) -> ToolOutput:
        shown_path: str = args.get("path", ".")
        limit: int = args.get("limit", LS_LIMIT)
        try:
            entries = await ops.list_dir(await ws.resolve(shown_path, ops))
        except OSError as exc:
            return os_failure(exc, shown_path)
        entries.sort(key=lambda e: (e.name.lower(), e.name))
        names = [e.name + "/" * e.is_dir for e in entries[:limit]]
        reached = len(entries) > limit
        details: dict[str, Any] = {
            "count": len(entries),
            "entry_limit_reached": limit if reached else None,
            "truncation": None,
        }
        if not names:
            return ToolOutput("(empty directory)", details=details)
        notices = []
        if reached:
            notices.append(
                f"Showing {limit} of {len(entries)} entries; use limit={len(entries)} for all."
            )
        return ToolOutput(_cap("\n".join(names), notices, details), details=details)

    return define_tool(
        "ls",
        "List a directory: entries sorted alphabetically, `/` after directories, dotfiles "
        "included.",
        {
            "type": "object",
            "properties": {"path": _DIR, "limit": _limit_schema(LS_LIMIT)},
            "additionalProperties": False,
        },
        ls,
        idempotent=True,
    )
