"""Content parts (issue 28, item 1): media given as bytes, a path, a URL or a file id; checked
at construction; a wire form that round-trips inside any message.

Tests the private modules ``agentcore._core.content`` and ``agentcore._core.media``:
converting values to content, and sniffing media types."""

from __future__ import annotations

import base64
import json
import pathlib
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentcore
from agentcore import load_media
from agentcore._core.content import to_content
from agentcore._core.media import media_kind, sniff_media_type
from agentcore.errors import InvalidEventError
from agentcore.events import (
    AudioContent,
    Content,
    DocumentContent,
    FileContent,
    ImageContent,
    TextContent,
    ToolResult,
    ToolResultMessage,
    UserMessage,
    from_dict,
    to_dict,
)
from agentcore.testing import content_parts
from agentcore.tools import ToolOutput

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
PDF = b"%PDF-1.7\n" + b"x" * 30
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(20)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- the wire form, for any mix of parts ------------------------------------------------------

_bodies = st.text(max_size=8) | st.lists(content_parts(), max_size=5).map(tuple)


@SETTINGS
@given(_bodies, st.booleans())
def test_any_message_with_any_mix_of_parts_round_trips_through_the_wire_form(
    body: Content, as_tool_result: bool
) -> None:
    event: Any
    if as_tool_result:
        event = ToolResultMessage("t1", "read", body, timestamp=3)
    else:
        event = UserMessage("m", body, timestamp=3)
    wire = json.loads(json.dumps(to_dict(event)))
    assert from_dict(wire) == event
    # the wire dicts of the parts alone rebuild the same parts, as instances do
    if not isinstance(body, str):
        assert to_content(wire["data"]["content" if not as_tool_result else "result"]) == body


@SETTINGS
@given(content_parts())
def test_every_part_is_frozen_and_slotted(part: Any) -> None:
    assert not hasattr(part, "__dict__")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        part.media_type = "x"  # type: ignore[misc]


def test_image_content_keeps_its_constructor_and_wire_form() -> None:
    image = ImageContent("image/png", "AAAA")
    assert to_dict(UserMessage("u", (image,)))["data"]["content"] == [
        {"type": "image", "media_type": "image/png", "data": "AAAA"}
    ]
    old_wire = {"type": "user_message", "data": {"message_id": "u", "content": [
        {"type": "image", "media_type": "image/jpeg", "data": "AAAA"}]}}  # fmt: skip
    assert from_dict(old_wire).content == (ImageContent("image/jpeg", "AAAA"),)


# -- convenience constructors ----------------------------------------------------------------


def test_from_bytes_encodes_and_recognises_the_media_type() -> None:
    image = ImageContent.from_bytes(PNG)
    assert image.media_type == "image/png"
    assert image.to_bytes() == PNG and image.size == len(PNG)
    pdf = DocumentContent.from_bytes(PDF, title="report.pdf", citations=True)
    assert (pdf.media_type, pdf.title, pdf.citations, pdf.size) == (
        "application/pdf",
        "report.pdf",
        True,
        len(PDF),
    )
    audio = AudioContent.from_bytes(WAV)
    assert audio.media_type == "audio/wav" and audio.to_bytes() == WAV
    assert AudioContent.from_bytes(b"raw", "audio/mpeg").data == base64.b64encode(b"raw").decode()


@given(st.binary(max_size=300))
def test_size_is_the_decoded_length(data: bytes) -> None:
    assert AudioContent.from_bytes(data, "audio/ogg").size == len(data)


def test_from_text_makes_a_plain_text_document() -> None:
    doc = DocumentContent.from_text("héllo", title="notes")
    assert doc.media_type == "text/plain" and doc.text == "héllo" and doc.title == "notes"
    with pytest.raises(InvalidEventError, match="application/pdf document has no text"):
        _ = DocumentContent.from_bytes(PDF).text


@pytest.mark.parametrize(
    ("build", "needle"),
    [
        (lambda: ImageContent.from_bytes(b"plain words"), "cannot tell the media type"),
        (lambda: ImageContent.from_bytes(PDF), r"\(application/pdf\); pass media_type="),
        (lambda: DocumentContent.from_bytes(PNG), "one of application/pdf, text/plain"),
        (lambda: AudioContent.from_bytes("not bytes"), "from_bytes: data must be bytes, got str"),  # type: ignore[arg-type]
    ],
)
def test_from_bytes_refuses_what_it_cannot_tell(build: Any, needle: str) -> None:
    with pytest.raises(InvalidEventError, match=needle):
        build()


def test_sniffing_tells_the_containers_apart() -> None:
    assert sniff_media_type(WAV) == "audio/wav"
    assert sniff_media_type(b"FORM\x00\x00\x00\x00AIFF") == "audio/aiff"
    assert sniff_media_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert sniff_media_type(b"XXXX\x00\x00\x00\x00WAVE") is None  # not a RIFF container
    assert sniff_media_type(b"ID3\x04") == "audio/mpeg"
    assert sniff_media_type(b"") is None
    assert [media_kind(m) for m in ("image/gif", "text/plain", "audio/flac", "video/mp4")] == [
        "image",
        "document",
        "audio",
        "file",
    ]


def test_file_references_by_url_or_by_provider_file_id() -> None:
    by_url = FileContent.from_url("https://example.com/a.pdf", "application/pdf", citations=True)
    assert (by_url.kind, by_url.url, by_url.file_id) == (
        "document",
        "https://example.com/a.pdf",
        None,
    )
    by_id = FileContent.from_file_id("file_011", "image/png", provider="anthropic")
    assert (by_id.kind, by_id.file_id, by_id.provider) == ("image", "file_011", "anthropic")
    assert FileContent("video/mp4", url="gs://bucket/clip.mp4").kind == "file"


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"media_type": "image/png"}, "exactly one of url and file_id"),
        ({"media_type": "image/png", "url": "u", "file_id": "f"}, "exactly one of url and file_id"),
        ({"media_type": "png", "url": "u"}, "must look like 'type/subtype', got 'png'"),
        ({"media_type": "image/png", "url": "u", "citations": True}, "citations are for documents"),
        ({"media_type": "image/png", "url": 5}, "field 'url' must be a str or None, got int"),
    ],
)
def test_a_bad_file_reference_is_refused_naming_the_rule(fields: Any, needle: str) -> None:
    with pytest.raises(InvalidEventError, match=needle):
        FileContent(**fields)
    with pytest.raises(InvalidEventError, match="bad content block 0: .*" + needle):
        UserMessage("u", [{"type": "file", **fields}])


@pytest.mark.parametrize(
    ("block", "needle"),
    [
        (
            {"type": "document", "media_type": "application/msword", "data": ""},
            "field 'media_type'",
        ),
        ({"type": "audio", "media_type": "audio/mpeg"}, "missing field\\(s\\) data"),
        ({"type": "audio", "media_type": "audio/mpeg", "data": "", "title": "x"}, "unknown field"),
        ({"type": "document", "media_type": "text/plain", "data": "", "citations": 1}, "citations"),
        ({"type": "video", "data": ""}, "expected one of audio, document, file, image, text"),
    ],
)
def test_a_bad_wire_part_names_the_part_and_the_field(block: Any, needle: str) -> None:
    with pytest.raises(InvalidEventError, match=needle):
        from_dict({"type": "tool_result", "data": {"tool_call_id": "t", "result": [block]}})


# -- from a path ------------------------------------------------------------------------------


def test_load_media_reads_a_path_into_the_part_its_type_calls_for(tmp_path: pathlib.Path) -> None:
    (tmp_path / "shot.bin").write_bytes(PNG)
    (tmp_path / "report.pdf").write_bytes(PDF)
    (tmp_path / "notes.txt").write_text("plain")
    (tmp_path / "clip.wav").write_bytes(WAV)
    assert load_media(tmp_path / "shot.bin") == ImageContent.from_bytes(PNG)
    assert load_media(tmp_path / "report.pdf") == DocumentContent.from_bytes(
        PDF, title="report.pdf"
    )
    notes = load_media(str(tmp_path / "notes.txt"), title="Notes", citations=True)
    assert notes == DocumentContent.from_text("plain", title="Notes", citations=True)
    assert load_media(tmp_path / "clip.wav") == AudioContent.from_bytes(WAV)
    assert load_media(tmp_path / "notes.txt", "audio/mpeg") == AudioContent.from_bytes(
        b"plain", "audio/mpeg"
    )


def test_load_media_refuses_a_file_no_part_takes(tmp_path: pathlib.Path) -> None:
    (tmp_path / "movie.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    with pytest.raises(InvalidEventError, match=r"movie.mp4' is of an unrecognised type; .*"):
        load_media(tmp_path / "movie.mp4")
    with pytest.raises(InvalidEventError, match="is video/mp4; a content part takes one of"):
        load_media(tmp_path / "movie.mp4", "video/mp4")


# -- in messages and tool results -------------------------------------------------------------


def test_tools_may_return_any_part() -> None:
    from agentcore.tools import to_result_content

    doc = DocumentContent.from_bytes(PDF)
    ref = FileContent.from_url("https://example.com/a.wav", "audio/wav")
    assert to_result_content(doc) == (doc,)
    assert to_result_content([TextContent("see"), doc, ref]) == (TextContent("see"), doc, ref)
    assert ToolResult("t", to_result_content(ToolOutput((doc,)).content)).result == (doc,)


def test_the_parts_are_exported_from_the_top_package() -> None:
    for name in ("AudioContent", "DocumentContent", "FileContent", "ImageContent", "TextContent"):
        assert getattr(agentcore, name) is getattr(agentcore.events, name)


def test_a_refused_part_is_a_configuration_error_with_its_own_code() -> None:
    from agentcore.errors import (
        ConfigurationError,
        ErrorCode,
        UnsupportedContentError,
        error_from_code,
    )

    error = error_from_code("Gemini does not take ...", "UNSUPPORTED_CONTENT")
    assert type(error) is UnsupportedContentError
    assert isinstance(error, ConfigurationError) and isinstance(error, ValueError)
    assert error.code is ErrorCode.UNSUPPORTED_CONTENT
