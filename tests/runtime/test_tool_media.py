"""A tool returning an image, a document and audio through a scripted agent: the parts
reach the next model request unchanged, and a journal stores each once and replays."""

from __future__ import annotations

import asyncio
import os
import pathlib

from agentcore import Agent
from agentcore.drivers.scripted import ScriptedDriver, text_turn, tool_turn
from agentcore.events import (
    AudioContent,
    DocumentContent,
    ImageContent,
    TextContent,
    ToolFailed,
    ToolResultMessage,
)
from agentcore.journal import JsonlJournal, replay
from agentcore.tools import ToolOutput, tool

PNG = b"\x89PNG\r\n\x1a\n" + os.urandom(5000)
PDF = b"%PDF-1.4\n" + os.urandom(3000)
WAV = b"RIFF\x00\x00\x00\x00WAVE" + os.urandom(2000)


@tool
def inspect() -> ToolOutput:
    """Look at the device."""
    return ToolOutput(
        [
            TextContent("screen, manual and beep"),
            ImageContent.from_bytes(PNG),
            DocumentContent.from_bytes(PDF, title="manual.pdf"),
            AudioContent.from_bytes(WAV),
        ],
        details={"parts": 3},
    )


def test_a_tool_returning_media_reaches_the_model_and_the_journal(tmp_path: pathlib.Path) -> None:
    journal = JsonlJournal(tmp_path / "run.jsonl")
    script = [tool_turn([("c1", "inspect", {}), ("c2", "inspect", {})]), text_turn("Seen.")]
    driver = ScriptedDriver(script)
    agent = Agent(driver, tools=[inspect], journal=journal, agent_id="a")
    result = asyncio.run(agent.run("Inspect it twice."))
    asyncio.run(agent.aclose())
    assert result.output == "Seen."
    answers = [m for m in driver.requests[1].messages if isinstance(m, ToolResultMessage)]
    assert [m.tool_call_id for m in answers] == ["c1", "c2"]
    for answer in answers:
        _note, image, document, audio = answer.result
        assert isinstance(image, ImageContent) and image.to_bytes() == PNG
        assert isinstance(document, DocumentContent) and document.to_bytes() == PDF
        assert document.title == "manual.pdf"
        assert isinstance(audio, AudioContent) and audio.media_type == "audio/wav"
        assert audio.to_bytes() == WAV
    journal.close()
    assert len(list(journal.blobs)) == 3  # two calls, three distinct media, stored once
    assert journal.path.stat().st_size < 20_000  # lines refer to them
    outputs = [o for _agent, o in replay(journal.path)]
    replayed = [o for o in outputs if isinstance(o, ToolResultMessage)]
    assert [m.result for m in replayed] == [m.result for m in answers]


@tool
def broken_scan() -> ToolOutput:
    """Scan the device (fails, with what it saw)."""
    return ToolOutput(
        [TextContent("scan failed: "), DocumentContent.from_bytes(PDF), TextContent("see log")],
        is_error=True,
    )


def test_an_error_result_with_a_pdf_is_told_by_its_text_parts() -> None:
    """The state layer's ``tool_failed`` reads only text parts (a PDF has no text)."""
    script = [tool_turn([("c1", "broken_scan", {})]), text_turn("Sorry.")]
    agent = Agent(ScriptedDriver(script), tools=[broken_scan], agent_id="a")
    failed: list[ToolFailed] = []
    agent.subscribe(lambda o: failed.append(o) if isinstance(o, ToolFailed) else None)
    result = asyncio.run(agent.run("Scan it."))
    asyncio.run(agent.aclose())
    assert result.output == "Sorry."
    assert [f.error for f in failed] == ["scan failed: see log"]
