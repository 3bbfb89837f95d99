"""LoggingPresenter: one structured record per output, levels and filters respected.

Tests the private module ``agentcore.presenters._base``: output_type, the name every
presenter gives an output."""

import logging
from typing import Any

import pytest

import agentcore.presenters.logging
from agentcore.events import TextDelta, from_dict
from agentcore.presenters._base import output_type
from agentcore.presenters.logging import DEFAULT_LEVELS, LoggingPresenter, encode

LOGGER = "agentcore.events"


def test_one_record_per_output_with_structured_fields(
    caplog: pytest.LogCaptureFixture, conversation: list[Any]
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    p = LoggingPresenter()
    for out in conversation:
        p.present("a1", out)
    records = [r for r in caplog.records if r.name == LOGGER]
    assert len(records) == len(conversation)
    for record, out in zip(records, conversation, strict=True):
        name = output_type(out)
        assert record.getMessage() == f"agentcore {name} agent=a1"
        assert record.agent_id == "a1"  # type: ignore[attr-defined]
        assert record.event_type == name  # type: ignore[attr-defined]
        assert from_dict(record.event) == out  # type: ignore[attr-defined]
        assert record.levelno == DEFAULT_LEVELS.get(name, logging.INFO)


def test_deltas_are_debug_so_info_hides_them(
    caplog: pytest.LogCaptureFixture, conversation: list[Any]
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    p = LoggingPresenter()
    for out in conversation:
        p.present("a1", out)
    logged = [r.event_type for r in caplog.records]  # type: ignore[attr-defined]
    assert "text_delta" not in logged and "thinking_delta" not in logged
    assert "assistant_message" in logged and logged[-1] == "turn_response"
    failed = [r for r in caplog.records if r.event_type == "tool_failed"]  # type: ignore[attr-defined]
    assert [r.levelno for r in failed] == [logging.WARNING]


def test_filter_by_layer_and_type_and_custom_levels(
    caplog: pytest.LogCaptureFixture, conversation: list[Any]
) -> None:
    logger = logging.getLogger("custom.agentcore")
    caplog.set_level(logging.DEBUG, logger="custom.agentcore")
    p = LoggingPresenter(
        logger,
        level=logging.ERROR,
        layers="turn",
        types=["text_delta"],
        levels={"text_delta": logging.INFO},
    )
    for out in conversation:
        p.present("a9", out)
    got = [(r.name, r.event_type, r.levelno) for r in caplog.records]  # type: ignore[attr-defined]
    texts = [o for o in conversation if isinstance(o, TextDelta)]
    assert got == [("custom.agentcore", "turn_request", logging.ERROR)] + [
        ("custom.agentcore", "text_delta", logging.INFO)
    ] * len(texts) + [("custom.agentcore", "turn_response", logging.ERROR)]


def test_unknown_names_raise_and_unregistered_outputs_log_their_type(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with pytest.raises(ValueError, match="unknown layer"):
        LoggingPresenter(layers=["bogus"])
    with pytest.raises(ValueError, match=r"levels names unknown event type\(s\) \['txt'\]"):
        LoggingPresenter(levels={"txt": logging.INFO})

    class LoopThing:
        type = "not_registered"

    assert encode("a1", LoopThing()) == {
        "agent_id": "a1",
        "event_type": "not_registered",
        "event": {"type": "not_registered"},
    }
    caplog.set_level(logging.INFO, logger=LOGGER)
    LoggingPresenter().present("a1", LoopThing())
    assert caplog.records[-1].getMessage() == "agentcore not_registered agent=a1"


def test_disabled_level_skips_encoding(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(agent_id: str, output: Any) -> dict[str, Any]:
        raise AssertionError("encoded an output that is not logged")

    monkeypatch.setattr(agentcore.presenters.logging, "encode", explode)
    caplog.set_level(logging.INFO, logger=LOGGER)
    LoggingPresenter().present("a1", TextDelta("x", 0))  # DEBUG: not enabled
    assert caplog.records == []
