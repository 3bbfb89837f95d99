"""The ``read``, ``write`` and ``edit`` tools."""

from __future__ import annotations

from typing import Any

from .._core.content import TextContent
from .._loop.tools import Tool, ToolOutput, define_tool
from .edit_match import EditError, apply_edit, unified_diff
from .images import image_media_type, is_pdf, to_image_content, to_pdf_content
from .local import LocalOperations
from .operations import EditOperations, ReadOperations, WriteOperations
from .results import failure, os_failure
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head
from .workspace import Workspace, as_workspace

__all__ = ["create_edit_tool", "create_read_tool", "create_write_tool"]

_PATH = {"type": "string", "description": "File path, relative to the workspace root"}


def create_read_tool(
    cwd: str | Workspace,
    *,
    operations: ReadOperations | None = None,
    auto_resize_images: bool = True,
    max_lines: int = DEFAULT_MAX_LINES,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Tool:
    """``read(path, offset?, limit?)``: a text file from a 1-based line ``offset``, at most
    ``max_lines`` lines or ``max_bytes`` bytes with a notice giving the offset to continue
    from; png/jpeg/gif/webp files (by content) as image content, shrunk to fit 2000x2000;
    PDFs (by content) as a document (``DocumentContent``, titled with the file's name).
    Details: ``path``, ``total_lines``, ``truncation``, or the image's or PDF's sizes."""
    ws = as_workspace(cwd)
    ops: ReadOperations = operations or LocalOperations()

    async def read(args: dict[str, Any], ctx: Any) -> ToolOutput:
        path: str = args["path"]
        try:
            data = await ops.read_bytes(await ws.resolve(path, ops))
        except OSError as exc:
            return os_failure(exc, path)
        media_type = image_media_type(data)
        if media_type is not None:
            image, details = await to_image_content(data, media_type, resize=auto_resize_images)
            note = TextContent(f"Read image file {path} [{media_type}]")
            return ToolOutput([note, image], details={"path": path, "image": details})
        if is_pdf(data):
            document, details = to_pdf_content(data, path.rsplit("/", 1)[-1])
            note = TextContent(f"Read PDF file {path} [{format_size(len(data))}]")
            return ToolOutput([note, document], details={"path": path, "document": details})
        return _read_text(data.decode("utf-8", errors="replace"), path, args)

    def _read_text(text: str, path: str, args: dict[str, Any]) -> ToolOutput:
        text = text.removeprefix("\ufeff")
        lines = text.split("\n") if text else []
        if lines and lines[-1] == "":
            lines.pop()
        total = len(lines)
        start = args.get("offset", 1) - 1
        if start >= max(total, 1):
            return failure(
                f"offset {start + 1} is beyond the end of {path!r}, which has {total} "
                f"line{'s' * (total != 1)}",
                path=path,
                total_lines=total,
            )
        limit = args.get("limit")
        end = total if limit is None else min(total, start + limit)
        result = truncate_head("\n".join(lines[start:end]), max_lines, max_bytes)
        details: dict[str, Any] = {"path": path, "total_lines": total, "truncation": None}
        if result.first_line_too_long:
            size = format_size(len(lines[start].encode("utf-8")))
            content = (
                f"[Line {start + 1} is {size}, more than the {format_size(max_bytes)} a read "
                f"returns. Show a part of it with bash: sed -n '{start + 1}p' {path} | "
                f"head -c {max_bytes}]"
            )
            details["truncation"] = result.as_details()
        elif result.truncated:
            shown = start + result.output_lines
            content = (
                f"{result.content}\n\n[Showing lines {start + 1}-{shown} of {total} "
                f"({format_size(max_bytes)} / {max_lines} lines limit). "
                f"Use offset={shown + 1} to continue.]"
            )
            details["truncation"] = result.as_details()
        elif end < total:
            content = (
                f"{result.content}\n\n[{total - end} more lines in the file. "
                f"Use offset={end + 1} to continue.]"
            )
        else:
            content = result.content if total else "[empty file]"
        return ToolOutput(content, details=details)

    return define_tool(
        "read",
        "Read a file. Text comes back as is, from line `offset` (1-based), at most "
        f"{max_lines} lines or {format_size(max_bytes)}; a notice at the end says which "
        "offset continues. Images (png, jpeg, gif, webp) come back as images, PDFs as "
        "documents.",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "offset": {"type": "integer", "minimum": 1, "description": "First line (1-based)"},
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "At most this many lines",
                },
            },
            "required": ["path"],
            "additionalProperties": False,
        },
        read,
        idempotent=True,
    )


def create_write_tool(cwd: str | Workspace, *, operations: WriteOperations | None = None) -> Tool:
    """``write(path, content)``: create or overwrite a file (parent directories created);
    reports the bytes written. Details: ``path``, ``bytes``."""
    ws = as_workspace(cwd)
    ops: WriteOperations = operations or LocalOperations()

    async def write(args: dict[str, Any], ctx: Any) -> ToolOutput:
        path: str = args["path"]
        data = args["content"].encode("utf-8")
        try:
            real = await ws.resolve(path, ops)
        except OSError as exc:
            return os_failure(exc, path)
        try:
            async with ws.lock(real):
                await ops.write_bytes(real, data)
        except OSError as exc:
            return os_failure(exc, path, writing=True)
        return ToolOutput(
            f"Wrote {len(data)} bytes to {path}", details={"path": path, "bytes": len(data)}
        )

    return define_tool(
        "write",
        "Create or overwrite a file with `content`; missing parent directories are created. "
        "Prefer `edit` to change part of an existing file.",
        {
            "type": "object",
            "properties": {"path": _PATH, "content": {"type": "string"}},
            "required": ["path", "content"],
            "additionalProperties": False,
        },
        write,
    )


def create_edit_tool(cwd: str | Workspace, *, operations: EditOperations | None = None) -> Tool:
    """``edit(path, old_text, new_text)``: replace the one place ``old_text`` designates
    (exactly, else after normalisation; see ``edit_match``), keeping the file's BOM and
    line ends and every byte outside the replaced span. Details: ``path``, ``diff``
    (unified, with line numbers), ``first_changed_line``, ``fuzzy``."""
    ws = as_workspace(cwd)
    ops: EditOperations = operations or LocalOperations()

    async def edit(args: dict[str, Any], ctx: Any) -> ToolOutput:
        path: str = args["path"]
        try:
            real = await ws.resolve(path, ops)
            async with ws.lock(real):
                data = await ops.read_bytes(real)
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    return failure(f"{path!r} is not UTF-8 text; edit cannot change it", path=path)
                bom = "\ufeff" if text.startswith("\ufeff") else ""
                body = text[len(bom) :]
                try:
                    result, match, end = apply_edit(body, args["old_text"], args["new_text"])
                except EditError as exc:
                    return failure(f"Could not edit {path}: {exc}", path=path)
                try:
                    await ops.write_bytes(real, (bom + result).encode("utf-8"))
                except OSError as exc:
                    return os_failure(exc, path, writing=True)
        except OSError as exc:
            return os_failure(exc, path)
        diff, first = unified_diff(body, result, match.start, match.end, end, path)
        how = " (matched after normalising Unicode, quotes, dashes or spaces)" * match.fuzzy
        return ToolOutput(
            f"Edited {path}: replaced the text at line {first}{how}.",
            details={"path": path, "diff": diff, "first_changed_line": first, "fuzzy": match.fuzzy},
        )

    return define_tool(
        "edit",
        "Replace `old_text` with `new_text` in a file. `old_text` must designate exactly one "
        "place: copy it from the file, with enough lines around the change to be unique. "
        "Small typographic differences (quotes, dashes, spaces, trailing whitespace) are "
        "tolerated.",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "old_text": {"type": "string", "description": "The exact text to replace"},
                "new_text": {"type": "string", "description": "The text to put instead"},
            },
            "required": ["path", "old_text", "new_text"],
            "additionalProperties": False,
        },
        edit,
    )
