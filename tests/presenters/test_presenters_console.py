"""ConsolePresenter: streamed text once and in order, panels, spinner discipline, footer."""

import io
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.control import Control
from rich.panel import Panel

from agentcore import presenters
from agentcore.events import (
    AudioContent,
    ConversationInterrupted,
    DocumentContent,
    ErrorMessage,
    FileContent,
    ImageContent,
    MessageStart,
    MessageStop,
    TextContent,
    TextDelta,
    ThinkingDelta,
    ToolCallMessage,
    ToolCallPart,
    ToolResultMessage,
    TurnResponse,
    Usage,
    UserMessage,
)
from agentcore.presenters.console import (
    Block,
    ConsolePresenter,
    EndLine,
    Options,
    Spin,
    Stream,
    View,
    encode,
    footer,
)


def _console() -> Console:
    return Console(file=io.StringIO(), force_terminal=False, width=100)


def _render(outputs: list[Any], agent_id: str = "a1", **kwargs: Any) -> str:
    console = _console()
    presenter = ConsolePresenter(console, **kwargs)
    for out in outputs:
        presenter.present(agent_id, out)
    presenter.close()
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


def test_streamed_text_appears_once_and_in_order(conversation: list[Any]) -> None:
    text = _render(conversation)
    lines = text.splitlines()
    assert lines[0] == "> What's the weather in Paris?"
    assert lines[1] == "The user wants the weather."
    assert lines[2] == "Let me check that for you."
    assert text.count("Let me") == 1 and text.count("It is sunny.") == 1
    order = ["Paris?", "the weather.", "for you.", "get_weather", "Sunny", "It is sunny.", "tokens"]
    positions = [text.index(s) for s in order]
    assert positions == sorted(positions)


def test_thinking_and_user_message_can_be_hidden(conversation: list[Any]) -> None:
    text = _render(conversation, show_thinking=False, show_user=False)
    assert "weather in Paris" not in text and "The user wants" not in text
    assert text.splitlines()[0] == "Let me check that for you."


def test_tool_panels_show_name_arguments_and_errors(conversation: list[Any]) -> None:
    text = _render(conversation)
    assert "tool call: get_weather" in text and '"city": "Paris"' in text
    assert "tool call: get_time" in text and '"tz": "Mars/Olympus"' in text
    assert "result: get_weather" in text and "Sunny, 21 C" in text
    assert "error: get_time" in text and "unknown time zone Mars/Olympus" in text
    assert "result: get_time" not in text
    assert text.count("Sunny, 21 C") == 1  # the raw tool_result is not shown twice


def test_error_result_panel_is_red() -> None:
    error = ToolResultMessage("c1", "rm", "permission denied", is_error=True)
    ok = ToolResultMessage("c2", "ls", "a b")
    ((_, [err_op]), (_, [ok_op])) = encode(View(), error), encode(View(), ok)
    assert isinstance(err_op, Block) and isinstance(err_op.renderable, Panel)
    assert isinstance(ok_op, Block) and isinstance(ok_op.renderable, Panel)
    assert err_op.renderable.border_style == "red"
    assert ok_op.renderable.border_style == "green"


def test_footer_shows_tokens_cost_and_duration(
    make_conversation: Callable[..., list[Any]],
) -> None:
    last = _render(make_conversation(cost=0.0123)).splitlines()[-1]
    assert last == (
        "tokens 1,200 in / 345 out, cache 800 read / 50 write · $0.0123 · 2.35 s · claude-test"
    )
    unknown = _render(make_conversation(cost=None)).splitlines()[-1]
    assert "cost unknown" in unknown and "$" not in unknown
    bare = footer(TurnResponse("t", 50, Usage(3, 4, reasoning_tokens=2))).plain
    assert bare == "tokens 3 in / 4 out, 2 reasoning · cost unknown · 0.05 s"


def test_errors_interruptions_bad_arguments_and_long_results() -> None:
    bad = ToolCallPart("c1", "calc", {}, '{"x": ', input_error="unterminated JSON")
    text = _render(
        [
            ToolCallMessage("m1", bad),
            ToolResultMessage("c1", "calc", "x" * 50),
            ErrorMessage("overloaded", "OVERLOADED", retryable=True),
            ConversationInterrupted("user"),
        ],
        max_result_chars=10,
    )
    assert "invalid arguments: unterminated JSON" in text and '{"x":' in text
    assert "xxxxxxxxxx... (40 more characters)" in text
    assert "error OVERLOADED (retryable)" in text and "overloaded" in text
    assert "[interrupted: user]" in text


def test_unknown_and_ignored_outputs_print_nothing(conversation: list[Any]) -> None:
    class LoopEvent:
        type = "agent_turn_start"

    ignored = [o for o in conversation if o.type in {"tool_result", "assistant_message"}]
    assert _render([LoopEvent(), object(), *ignored]) == ""


@settings(max_examples=100)
@given(st.lists(st.tuples(st.sampled_from(["a1", "b2"]), st.text("xy .", min_size=1))))
def test_agents_sharing_a_console_get_prefixed_lines(deltas: list[tuple[str, str]]) -> None:
    """Interleaved agents: every line is labelled and no agent's text is lost or mixed."""
    console = _console()
    p = ConsolePresenter(console, agent_prefix=True)
    for agent_id, text in deltas:
        p.present(agent_id, TextDelta(text, 0))
    p.close()
    assert isinstance(console.file, io.StringIO)
    lines = console.file.getvalue().splitlines()
    assert all(line.startswith(("[a1] ", "[b2] ")) for line in lines)
    for agent_id in ("a1", "b2"):
        shown = "".join(line[5:] for line in lines if line.startswith(f"[{agent_id}] "))
        assert shown == "".join(t for a, t in deltas if a == agent_id)


def test_user_message_blocks_show_text_and_images() -> None:
    content = (TextContent("what is this?"), ImageContent("image/png", "iVBORw0KGgo="))
    out = _render([UserMessage("u1", content)])
    assert out == "> what is this?\n[image image/png, 8 B]\n"
    assert "iVBOR" not in out


_PNG = b"\x89PNG\r\n\x1a\n" + bytes(1_199_992)
_PDF = b"%PDF-1.7\n" + b"A" * 34_091


def test_every_media_part_is_one_line_never_its_bytes() -> None:
    content = (
        TextContent("compare"),
        ImageContent.from_bytes(_PNG),
        DocumentContent.from_bytes(_PDF, title="spec.pdf"),
        AudioContent.from_bytes(b"RIFF\x00\x00\x00\x00WAVE" + bytes(500)),
        FileContent.from_url("https://x.org/a.pdf", "application/pdf", title="a.pdf"),
        FileContent.from_file_id("file-9", "image/png", provider="openai"),
    )
    result = ToolResultMessage("c1", "look", content)
    out = _render([UserMessage("u1", content), result])
    lines = [
        "[image image/png, 1.1 MB]",
        '[document "spec.pdf" application/pdf, 33.3 KB]',
        "[audio audio/wav, 512 B]",
        '[file "a.pdf" application/pdf https://x.org/a.pdf]',
        "[file image/png file id file-9]",
    ]
    assert out.startswith("> compare\n" + "\n".join(lines) + "\n")
    for line in lines:
        assert out.count(line) == 2  # the prompt and the tool result panel
    for part in content[1:4]:
        assert part.data[:40] not in out  # type: ignore[union-attr]


def test_prefix_follows_line_breaks_inside_deltas() -> None:
    out = _render([TextDelta("one\ntw", 0), TextDelta("o\n\nthree", 0)], agent_prefix=True)
    assert out == "[a1] one\n[a1] two\n\n[a1] three\n"


@settings(max_examples=100)
@given(st.lists(st.text(alphabet="ab .,\n", min_size=1), min_size=1, max_size=20))
def test_chunking_invariance(chunks: list[str]) -> None:
    """However the text is split into deltas, the terminal shows exactly the text."""
    out = _render([MessageStart("m", "x"), *(TextDelta(c, 0) for c in chunks), MessageStop()])
    full = "".join(chunks)
    assert out == full + ("" if full.endswith("\n") else "\n")


def test_encode_is_pure_and_tracks_blocks() -> None:
    view = View()
    view1, ops = encode(view, ThinkingDelta("hm", 0))
    assert view == View() and view1 == View(block=("thinking", 0))
    assert ops == [Stream("hm", "dim italic", True)]
    view2, ops = encode(view1, TextDelta("Hi", 1))
    assert ops == [Stream("Hi", "", True)]
    assert encode(view2, TextDelta(" there", 1)) == (view2, [Stream(" there", "", False)])
    assert encode(view2, ThinkingDelta("", 0, signature="s"))[1] == []
    hidden = Options(show_thinking=False)
    assert encode(View(), ThinkingDelta("hm", 0), hidden)[1] == [Spin("thinking")]
    assert encode(View(), MessageStop())[1] == [Spin(None), EndLine()]


def test_spinner_runs_while_waiting_and_stops_before_anything_prints(
    conversation: list[Any],
) -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=100)
    presenter = ConsolePresenter(console)
    printed_while_spinning: list[str] = []
    original = console.print

    def spy(*objects: Any, **kwargs: Any) -> None:
        if presenter.spinning and any(not isinstance(o, Control) for o in objects):
            printed_while_spinning.append(str(objects))
        original(*objects, **kwargs)

    console.print = spy  # type: ignore[method-assign]
    states: dict[str, bool] = {}
    for out in conversation:
        presenter.present("a1", out)
        states.setdefault(out.type, presenter.spinning)
    assert printed_while_spinning == []
    assert states["user_message"] and states["message_start"] and states["tool_executing"]
    assert not states["text_delta"] and not states["turn_response"]
    assert not presenter.spinning
    presenter.present("a1", UserMessage("u2", "again"))
    assert presenter.spinning
    presenter.close()
    assert not presenter.spinning


def test_spinner_is_off_on_non_terminals_and_when_disabled() -> None:
    p = ConsolePresenter(_console())
    p.present("a1", UserMessage("u", "hi"))
    assert not p.spinning
    term = ConsolePresenter(Console(file=io.StringIO(), force_terminal=True), spinner=False)
    term.present("a1", UserMessage("u", "hi"))
    assert not term.spinning


def test_package_import_does_not_import_rich() -> None:
    code = (
        "import sys, agentcore.presenters as presenters\n"
        "assert 'rich' not in sys.modules, 'rich imported eagerly'\n"
        "from agentcore.presenters.console import ConsolePresenter\n"
        "assert presenters.ConsolePresenter is ConsolePresenter\n"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=False
    )
    assert result.returncode == 0, result.stderr
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        presenters.Nope  # noqa: B018


def test_control_characters_from_a_model_never_reach_the_terminal() -> None:
    import io

    from rich.console import Console

    from agentcore.events import (
        MessageStart,
        TextDelta,
        ToolCallMessage,
        ToolCallPart,
        ToolResultMessage,
        TurnResponse,
    )
    from agentcore.presenters.console import ConsolePresenter, safe

    hostile = "clear\x1b[2J title\x1b]0;pwned\x07 csi\x9b31m cr\rend"
    assert "\x1b" not in safe(hostile) and "\\x1b[2J" in safe(hostile)
    assert safe("tab\tand\nnewline stay") == "tab\tand\nnewline stay"
    buffer = io.StringIO()
    presenter = ConsolePresenter(
        console=Console(file=buffer, force_terminal=True, width=80, color_system=None),
        spinner=False,
    )
    for output in [
        MessageStart("m1", "model\x1b]0;x\x07"),
        TextDelta(hostile, 0),
        ToolCallMessage("m1", ToolCallPart("c1", "tool\x1b[2J", {"a": "\x9b"})),
        ToolResultMessage("c1", "tool\x1b[2J", hostile),
        TurnResponse("turn-1", 5, model="model\x1b[2J"),
    ]:
        presenter.present("a", output)
    presenter.close()
    shown = buffer.getvalue()
    assert "\x1b[2J" not in shown and "\x1b]0;" not in shown and "\x9b" not in shown
    assert "\r" not in shown and "\\x1b[2J" in shown
