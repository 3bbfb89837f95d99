"""Media through the AG-UI and Vercel protocols, both ways: a tool result's images,
documents and audio are AG-UI 1.0 content parts and Vercel ``file`` chunks (validated by
the AG-UI package's models and the strict chunk schemas); a user message's parts in a
run request become agentcore content parts, and a message that carries them reaches the
agent through the server."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx2
import pydantic
import pytest
from ag_ui.core import Event

from agentcore.events import (
    AudioContent,
    DocumentContent,
    FileContent,
    ImageContent,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from agentcore.presenters import ag_ui, vercel

from .conftest import ROOT
from .server_kit import SERVERS, serving
from .test_ui_protocols import _check_chunk, frames

EVENT = pydantic.TypeAdapter(Event)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(100)
PDF = b"%PDF-1.4\n" + bytes(200)
WAV = b"RIFF\x00\x00\x00\x00WAVE" + bytes(50)
RESULT = (
    TextContent("see"),
    ImageContent.from_bytes(PNG),
    DocumentContent.from_bytes(PDF, title="m.pdf"),
    AudioContent.from_bytes(WAV),
    FileContent.from_url("https://x.org/a.pdf", "application/pdf"),
    FileContent.from_file_id("file-1", "image/png", provider="openai"),
)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _tool_run() -> list[Any]:
    from agentcore.loop import AgentEnd, AgentStart

    return [
        AgentStart(timestamp=1),
        ToolResultMessage("c1", "look", RESULT, timestamp=2),
        AgentEnd(reason="completed", timestamp=3),
    ]


def test_ag_ui_tool_results_and_snapshots_carry_content_parts() -> None:
    found = frames(ag_ui.PROTOCOL, _tool_run())
    for frame in found:
        EVENT.validate_python(frame)
    (result,) = [f for f in found if f["type"] == "TOOL_CALL_RESULT"]
    parts = result["content"]
    assert [p["type"] for p in parts] == ["text", "image", "document", "audio", "document", "image"]
    assert parts[1]["source"] == {"type": "data", "value": _b64(PNG), "mimeType": "image/png"}
    assert parts[2]["metadata"] == {"title": "m.pdf"}
    assert parts[4]["source"] == {
        "type": "url",
        "value": "https://x.org/a.pdf",
        "mimeType": "application/pdf",
    }
    assert parts[5]["source"]["type"] == "file" and parts[5]["source"]["provider"] == "openai"
    _event, data = ag_ui.messages_snapshot([UserMessage("u1", RESULT[:3])])
    snapshot = json.loads(data)
    EVENT.validate_python(snapshot)
    assert [p["type"] for p in snapshot["messages"][0]["content"]] == ["text", "image", "document"]


def test_ag_ui_run_input_parts_become_content_parts() -> None:
    body = {
        "threadId": "t1",
        "runId": "r1",
        "state": {},
        "tools": [],
        "context": [],
        "forwardedProps": {},
        "messages": [
            {
                "id": "u1",
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is this"},
                    {
                        "type": "image",
                        "source": {"type": "data", "value": _b64(PNG), "mimeType": "image/png"},
                    },
                    {
                        "type": "document",
                        "source": {
                            "type": "url",
                            "value": "https://x.org/a.pdf",
                            "mimeType": "application/pdf",
                        },
                        "metadata": {"title": "a.pdf"},
                    },
                    {
                        "type": "audio",
                        "source": {"type": "data", "value": _b64(WAV), "mimeType": "audio/wav"},
                    },
                ],
            }
        ],
    }
    request = ag_ui.parse_run_input(json.dumps(body).encode())
    assert request.prompt == "what is this"
    assert request.content == (
        ImageContent("image/png", _b64(PNG)),
        FileContent.from_url("https://x.org/a.pdf", "application/pdf", title="a.pdf"),
        AudioContent("audio/wav", _b64(WAV)),
    )
    message = request.message()
    assert isinstance(message, UserMessage) and message.content[0] == TextContent("what is this")
    body["messages"][0]["content"].append(  # type: ignore[index]
        {"type": "video", "source": {"type": "data", "value": "AAAA", "mimeType": "video/mp4"}}
    )
    with pytest.raises(ValueError, match="content part 4 is video of type 'video/mp4'"):
        ag_ui.parse_run_input(json.dumps(body).encode())


def test_vercel_tool_results_add_file_chunks_and_requests_take_file_parts() -> None:
    chunks = frames(vercel.PROTOCOL, _tool_run())
    for chunk in chunks:
        _check_chunk(chunk)
    kinds = [c["type"] for c in chunks]
    at = kinds.index("tool-output-available")
    files = chunks[at + 1 : at + 5]
    assert [c["type"] for c in files] == ["file"] * 4  # no URL for a provider's file id
    assert files[0] == {
        "type": "file",
        "url": f"data:image/png;base64,{_b64(PNG)}",
        "mediaType": "image/png",
    }
    assert files[3]["url"] == "https://x.org/a.pdf"
    assert "[image image/png, 108 B]" in chunks[at]["output"]

    body = {
        "id": "chat1",
        "messages": [
            {
                "id": "u1",
                "role": "user",
                "parts": [
                    {"type": "text", "text": "read it"},
                    {
                        "type": "file",
                        "mediaType": "application/pdf",
                        "filename": "m.pdf",
                        "url": f"data:application/pdf;base64,{_b64(PDF)}",
                    },
                    {"type": "file", "mediaType": "image/png", "url": "https://x.org/i.png"},
                ],
            }
        ],
    }
    request = vercel.parse_chat_request(json.dumps(body).encode())
    assert request.prompt == "read it"
    assert request.content == (
        DocumentContent("application/pdf", _b64(PDF), "m.pdf"),
        FileContent.from_url("https://x.org/i.png", "image/png"),
    )
    body["messages"][0]["parts"].append(
        {"type": "file", "mediaType": "application/zip", "url": "data:application/zip;base64,AAAA"}
    )  # type: ignore[index]
    with pytest.raises(ValueError, match=r"file part 3 \(application/zip\) is not base64 media"):
        vercel.parse_chat_request(json.dumps(body).encode())


async def _post_chat(base: str, body: dict[str, Any]) -> str:
    async with httpx2.AsyncClient(timeout=30) as client:
        response = await client.post(f"{base}/chat", json=body)
        assert response.status_code == 200, response.text
        return response.text


@pytest.mark.timeout(60)
def test_a_vercel_chat_with_a_file_reaches_the_agent() -> None:
    import asyncio

    async def main() -> None:
        async with serving() as base:
            body = {
                "id": ROOT,
                "messages": [
                    {
                        "id": "u1",
                        "role": "user",
                        "parts": [
                            {"type": "text", "text": "look"},
                            {
                                "type": "file",
                                "mediaType": "image/png",
                                "url": f"data:image/png;base64,{_b64(PNG)}",
                            },
                        ],
                    }
                ],
            }
            text = await _post_chat(base, body)
            assert "You said: look" in "".join(
                json.loads(line[6:]).get("delta", "")
                for line in text.splitlines()
                if line.startswith("data: {")
            )
            served = SERVERS[base].agents[ROOT]
            prompt = next(m for m in served.agent.state.messages if m.type == "user_message")
            assert prompt.content == (TextContent("look"), ImageContent("image/png", _b64(PNG)))

    asyncio.run(main())
