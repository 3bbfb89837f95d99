"""read, write and edit through the tools, on both backends."""

from __future__ import annotations

import base64
import io
import pathlib
from typing import Any

import pytest

from agentcore.coding import create_edit_tool, create_read_tool, create_write_tool
from agentcore.events import DocumentContent, ImageContent, TextContent


def test_read_stops_at_2000_lines_and_says_where_to_continue(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    (ws / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 2501)))
    read = create_read_tool(str(ws), operations=backend)
    out = call(read, path="big.txt")
    assert not out.is_error
    body, notice = out.content.split("\n\n[")
    assert body.splitlines() == [f"line {i}" for i in range(1, 2001)]
    assert "Showing lines 1-2000 of 2500" in notice and "offset=2001" in notice
    assert out.details["truncation"]["truncated_by"] == "lines"
    rest = call(read, path="big.txt", offset=2001)
    assert rest.content.splitlines() == [f"line {i}" for i in range(2001, 2501)]
    assert rest.details["truncation"] is None


def test_read_stops_at_50_kb_on_500_lines_of_210_bytes(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    lines = [f"{i:03d}" + "x" * 206 for i in range(500)]  # 210 bytes each with the newline
    (ws / "wide.txt").write_text("\n".join(lines) + "\n")
    out = call(create_read_tool(str(ws), operations=backend), path="wide.txt")
    body, notice = out.content.split("\n\n[")
    shown = body.split("\n")
    assert len(shown) == 51200 // 210 and shown == lines[: len(shown)]
    assert len(body.encode()) <= 51200
    assert f"offset={len(shown) + 1}" in notice
    assert out.details["truncation"]["truncated_by"] == "bytes"


def test_read_offset_limit_and_beyond_the_end(ws: pathlib.Path, backend: Any, call: Any) -> None:
    (ws / "f.txt").write_text("a\nb\nc\nd\n")
    read = create_read_tool(str(ws), operations=backend)
    out = call(read, path="f.txt", offset=2, limit=2)
    assert out.content == "b\nc\n\n[1 more lines in the file. Use offset=4 to continue.]"
    beyond = call(read, path="f.txt", offset=9)
    assert beyond.is_error and "offset 9 is beyond the end" in beyond.content
    assert "4 lines" in beyond.content


def test_read_a_single_line_over_the_limit_gets_its_own_notice(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    (ws / "min.js").write_text("short\n" + "x" * 60000 + "\n")
    out = call(create_read_tool(str(ws), operations=backend), path="min.js", offset=2)
    assert not out.is_error
    assert out.content.startswith("[Line 2 is 58.6 KB") and "sed -n '2p' min.js" in out.content
    assert out.details["truncation"]["first_line_too_long"]


def test_read_missing_and_directory(ws: pathlib.Path, backend: Any, call: Any) -> None:
    read = create_read_tool(str(ws), operations=backend)
    (ws / "d").mkdir()
    assert "does not exist" in call(read, path="nope.txt").content
    assert "is a directory" in call(read, path="d").content


def _png(width: int, height: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 10, 10)).save(out, format="PNG")
    return out.getvalue()


def test_images_are_recognised_by_content_and_resized(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    from PIL import Image

    (ws / "shot.dat").write_bytes(_png(3000, 1500))  # the name says nothing
    out = call(create_read_tool(str(ws), operations=backend), path="shot.dat")
    note, image = out.content
    assert isinstance(note, TextContent) and isinstance(image, ImageContent)
    assert image.media_type == "image/png"
    with Image.open(io.BytesIO(base64.b64decode(image.data))) as sent:
        assert sent.size == (2000, 1000)
    assert out.details["image"]["resized"] and out.details["image"]["width"] == 3000


@pytest.mark.parametrize(
    ("format", "media_type"),
    [("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp"), ("PNG", "image/png")],
)
def test_every_image_format_is_known_by_its_magic_bytes(
    ws: pathlib.Path, call: Any, format: str, media_type: str
) -> None:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (2400, 600), (10, 200, 10)).save(out, format=format)
    (ws / "picture.txt").write_bytes(out.getvalue())  # a name that says text
    read = call(create_read_tool(str(ws)), path="picture.txt")
    image = read.content[1]
    assert isinstance(image, ImageContent) and image.media_type == media_type
    with Image.open(io.BytesIO(base64.b64decode(image.data))) as sent:
        assert sent.size == (2000, 500) and sent.format == format


def test_small_images_are_sent_unchanged(ws: pathlib.Path, call: Any) -> None:
    data = _png(10, 10)
    (ws / "icon.png").write_bytes(data)
    out = call(create_read_tool(str(ws)), path="icon.png")
    assert base64.b64decode(out.content[1].data) == data
    assert not out.details["image"]["resized"]


def test_write_creates_parents_and_reports_bytes(ws: pathlib.Path, backend: Any, call: Any) -> None:
    out = call(create_write_tool(str(ws), operations=backend), path="a/b/c.txt", content="héllo\n")
    assert out.content == "Wrote 7 bytes to a/b/c.txt" and out.details["bytes"] == 7
    assert (ws / "a/b/c.txt").read_bytes() == "héllo\n".encode()


def test_edit_fuzzy_keeps_bom_crlf_and_every_untouched_byte(
    ws: pathlib.Path, backend: Any, call: Any
) -> None:
    original = (
        "\ufeffdef greet():\r\n"
        "    msg = \u201chello\u201d  \r\n"
        "    sep = \u2018a\u2014b\u2019\r\n"
        "    return msg\u00a0 # \uff4e\uff4f\uff54\uff45\r\n"
    ).encode()
    (ws / "g.py").write_bytes(original)
    edit = create_edit_tool(str(ws), operations=backend)
    out = call(
        edit,
        path="g.py",
        old_text="    msg = \"hello\"\n    sep = 'a-b'",
        new_text="    msg = 'hi'",
    )
    assert not out.is_error, out.content
    assert out.details["fuzzy"] and out.details["first_changed_line"] == 2
    after = (ws / "g.py").read_bytes()
    assert (
        after
        == (
            "\ufeffdef greet():\r\n"
            "    msg = 'hi'\r\n"
            "    return msg\u00a0 # \uff4e\uff4f\uff54\uff45\r\n"
        ).encode()
    )
    assert "-    msg = \u201chello\u201d" in out.details["diff"]
    assert "+    msg = 'hi'" in out.details["diff"]


def test_edit_errors_leave_the_file_alone(ws: pathlib.Path, backend: Any, call: Any) -> None:
    (ws / "d.txt").write_text("x = 1\nx = 1\n")
    edit = create_edit_tool(str(ws), operations=backend)
    several = call(edit, path="d.txt", old_text="x = 1", new_text="x = 2")
    missing = call(edit, path="d.txt", old_text="y", new_text="z")
    same = call(edit, path="d.txt", old_text="x = 1\nx", new_text="x = 1\nx")
    assert several.is_error and "found 2 occurrences" in several.content
    assert missing.is_error and "not found" in missing.content
    assert same.is_error and "nothing was changed" in same.content
    assert (ws / "d.txt").read_text() == "x = 1\nx = 1\n"


def test_edit_refuses_binary(ws: pathlib.Path, call: Any) -> None:
    (ws / "b.bin").write_bytes(b"\xff\xfe\x00abc")
    out = call(create_edit_tool(str(ws)), path="b.bin", old_text="abc", new_text="x")
    assert out.is_error and "not UTF-8" in out.content


@pytest.mark.parametrize("count", [8])
def test_parallel_edits_of_one_file_all_land(ws: pathlib.Path, acall: Any, count: int) -> None:
    import asyncio

    (ws / "p.txt").write_text("".join(f"v{i} = 0\n" for i in range(count)))
    edit = create_edit_tool(str(ws))

    async def main() -> list[Any]:
        return await asyncio.gather(
            *(
                acall(edit, path="p.txt", old_text=f"v{i} = 0", new_text=f"v{i} = 1")
                for i in range(count)
            )
        )

    assert not any(o.is_error for o in asyncio.run(main()))
    assert (ws / "p.txt").read_text() == "".join(f"v{i} = 1\n" for i in range(count))


PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)


def test_pdfs_are_read_as_documents(ws: pathlib.Path, backend: Any, call: Any) -> None:
    (ws / "docs").mkdir()
    (ws / "docs" / "report.bin").write_bytes(PDF)  # recognised by content, not by name
    out = call(create_read_tool(str(ws), operations=backend), path="docs/report.bin")
    assert not out.is_error
    note, document = out.content
    assert isinstance(note, TextContent) and "Read PDF file docs/report.bin" in note.text
    assert isinstance(document, DocumentContent)
    assert (document.media_type, document.title) == ("application/pdf", "report.bin")
    assert document.to_bytes() == PDF
    assert out.details["document"] == {"media_type": "application/pdf", "bytes": len(PDF)}
