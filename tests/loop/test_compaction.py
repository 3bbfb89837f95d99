"""Compaction strategies, pure: where they cut, what they send, what they cost in tokens.

The property tests hold every strategy, on any history (well-formed or not, tool-call ids
reused or not), to the rule providers enforce: a tool call is never sent without its
result, nor a result without its call, unless the history itself had that orphan; and
what is sent after a cut starts with a user message.

Tests the private module ``agentcore._loop.compaction``: planning a compaction and its
summary request.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore import ClearToolResults, Compaction, KeepLastTurns, ModelPrice, Summarise
from agentcore._loop.compaction import plan_compaction, summary_request
from agentcore.drivers.prices import PRICES
from agentcore.errors import ConfigurationError
from agentcore.events import (
    AssistantMessage,
    ImageContent,
    TextContent,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from agentcore.loop import (
    ContextView,
    LoopConfig,
    context_tokens,
    default_convert_to_llm,
    estimate_tokens,
    history_problems,
    render_view,
    turn_starts,
)


@attrs.frozen
class Note:
    """A custom message kind: kept in the history, never sent."""

    text: str


def _user(i: int, text: str = "hi") -> UserMessage:
    return UserMessage(f"u{i}", text)


def _reply(i: int, calls: list[str] = (), text: str = "ok", usage: Usage | None = None) -> Any:  # type: ignore[assignment]
    parts: list[Any] = [TextPart(text)] if text else []
    parts += [ToolCallPart(c, "read", {"path": c}) for c in calls]
    return AssistantMessage(f"a{i}", "m", parts, usage or Usage(), "end_turn")


def _result(call_id: str, text: str = "contents") -> ToolResultMessage:
    return ToolResultMessage(call_id, "read", text)


# -- histories --------------------------------------------------------------------------------

_ids = st.sampled_from(["a", "b", "c", "d"])


@st.composite
def any_history(draw: st.DrawFn) -> list[Any]:
    """Any sequence of messages, orphans, repeated ids and custom kinds included."""
    kinds = st.sampled_from(["user", "reply", "result", "note"])
    out: list[Any] = []
    for i, kind in enumerate(draw(st.lists(kinds, max_size=24))):
        if kind == "user":
            out.append(_user(i))
        elif kind == "reply":
            out.append(_reply(i, draw(st.lists(_ids, max_size=3))))
        elif kind == "result":
            out.append(_result(draw(_ids), draw(st.text(max_size=40))))
        else:
            out.append(Note("n"))
    return out


@st.composite
def well_formed_history(draw: st.DrawFn) -> list[Any]:
    """A history the loop could have made: turns of queued messages, a reply, its results."""
    out: list[Any] = []
    answered = True  # the previous reply asked for no tool: a user message comes next
    calls = 0
    for turn in range(draw(st.integers(0, 10))):
        for k in range(draw(st.integers(1 if answered else 0, 2))):
            out.append(_user(turn * 10 + k))
            if draw(st.booleans()):
                out.append(Note("between"))
        ids = [f"call{calls + n}" for n in range(draw(st.integers(0, 3)))]
        calls += len(ids)
        out.append(_reply(turn, ids, draw(st.sampled_from(["", "thinking aloud"])) or "x"))
        for call_id in draw(st.permutations(ids)):
            out.append(_result(call_id, draw(st.text(max_size=60))))
        answered = not ids
    return out


def _pairs(messages: list[Any]) -> set[tuple[int, int]]:
    """(call index, result index) pairs: a result answers the latest unanswered call with
    its id before it (written apart from the library's, to check it)."""
    pairs: set[tuple[int, int]] = set()
    used: set[tuple[int, str]] = set()
    for j, m in enumerate(messages):
        if not isinstance(m, ToolResultMessage):
            continue
        for i in range(j - 1, -1, -1):
            asked = messages[i]
            if (
                isinstance(asked, AssistantMessage)
                and (i, m.tool_call_id) not in used
                and m.tool_call_id in [c.tool_call_id for c in asked.tool_calls]
            ):
                used.add((i, m.tool_call_id))
                pairs.add((i, j))
                break
    return pairs


def _orphans(messages: list[Any]) -> set[tuple[int, str]]:
    """Calls without a result and results without a call: (index, id)."""
    pairs = _pairs(messages)
    asked = {(i, messages[j].tool_call_id) for i, j in pairs}
    answered = {j for _, j in pairs}
    out = set()
    for i, m in enumerate(messages):
        if isinstance(m, AssistantMessage):
            out |= {(i, c.tool_call_id) for c in m.tool_calls if (i, c.tool_call_id) not in asked}
        elif isinstance(m, ToolResultMessage) and i not in answered:
            out.add((i, m.tool_call_id))
    return out


_strategies = st.one_of(
    st.builds(ClearToolResults, keep_turns=st.integers(1, 4)),
    st.builds(KeepLastTurns, turns=st.integers(1, 4)),
    st.builds(Summarise, keep_turns=st.integers(1, 4)),
)


def _compacted(strategy: Any, view: ContextView | None, messages: list[Any]) -> ContextView:
    """The view after ``strategy`` ran on an overflow (a summary ``S`` where one is asked)."""
    planned = plan_compaction(Compaction(strategy), view, messages, 0, None, overflow=True)
    if planned is None:
        return view or ContextView()
    new, summarise, cut = planned
    return attrs.evolve(new, start=cut, summary="S") if summarise is not None else new


def _check_sent(messages: list[Any], view: ContextView) -> None:
    sent = render_view(view, messages)
    start = view.start
    lead = 1 if start or view.summary is not None else 0
    assert len(sent) == lead + len(messages) - start
    for asked, answered in _pairs(messages):  # a call and its result fall on one side
        assert (asked >= start) == (answered >= start), (asked, answered, start)
    kept = {(i - lead + start, call_id) for i, call_id in _orphans(sent) if i >= lead}
    assert kept == {(i, c) for i, c in _orphans(messages) if i >= start}  # no new orphan
    if lead:
        assert isinstance(sent[0], UserMessage)  # a valid first message
        assert start == len(messages) or not isinstance(messages[start], ToolResultMessage)
    for k, m in enumerate(messages[start:]):
        out = sent[lead + k]
        if k + start < view.cleared and isinstance(m, ToolResultMessage):
            assert out.result == view.placeholder and out.tool_call_id == m.tool_call_id
        else:
            assert out is m


@settings(max_examples=300, deadline=None)
@given(any_history(), st.lists(_strategies, min_size=1, max_size=3))
def test_no_strategy_ever_sends_a_call_without_its_result(
    messages: list[Any], chain: list[Any]
) -> None:
    view: ContextView | None = None
    for strategy in chain:  # compacting again and again, from the view before
        view = _compacted(strategy, view, messages)
        _check_sent(messages, view)


@settings(max_examples=300, deadline=None)
@given(well_formed_history(), st.lists(_strategies, min_size=1, max_size=3))
def test_a_well_formed_history_stays_well_formed(messages: list[Any], chain: list[Any]) -> None:
    assert history_problems(messages) == []
    view: ContextView | None = None
    for strategy in chain:
        view = _compacted(strategy, view, messages)
        assert history_problems(render_view(view, messages)) == []


@settings(max_examples=200, deadline=None)
@given(well_formed_history(), st.integers(1, 4), st.sampled_from([None, 300, 3_000]))
def test_the_summary_request_is_well_formed_and_fits(
    messages: list[Any], keep: int, window: int | None
) -> None:
    strategy = Summarise(keep, max_tokens=100)
    planned = plan_compaction(Compaction(strategy), None, messages, 0, window, overflow=True)
    if planned is None:
        return
    view, summarise, cut = planned
    assert summarise == strategy and 0 < cut <= len(messages)
    request = summary_request(view, messages, cut, strategy, default_convert_to_llm, "m", window)
    assert request.messages[-1] == UserMessage("compaction-request", strategy.instructions)
    assert request.max_tokens == 100 and request.tools == ()
    assert history_problems(request.messages) == []
    if window is not None and len(turn_starts(messages[:cut])) > 1:
        sent = sum(estimate_tokens(m) for m in request.messages[:-1])
        last_turn = turn_starts(messages[:cut])[-1]
        assert sent <= window - 100 or request.messages[1:-1] == tuple(
            default_convert_to_llm(messages[last_turn:cut])
        )


# -- where cuts go ------------------------------------------------------------------------------


def test_turns_start_after_a_reply_or_its_results() -> None:
    history = [
        _user(0),
        _reply(1, ["a"]),
        _result("a"),
        _reply(2, ["b", "c"]),
        _result("c"),
        _result("b"),
        _reply(3),
        _user(4),
        Note("x"),
        _user(5),
        _reply(6),
    ]
    assert turn_starts(history) == [0, 3, 6, 7]
    assert turn_starts(history, 3) == [3, 6, 7]
    assert turn_starts(history, 4) == [6, 7]  # a tool result never starts a turn


def test_no_cut_parts_a_call_from_a_late_result() -> None:
    history = [_user(0), _reply(1, ["a"]), _user(2), _reply(3), _result("a"), _user(4)]
    assert turn_starts(history) == [0, 5]  # 2 and 3 would leave the result without its call


def test_a_reused_id_pairs_with_its_latest_call() -> None:
    history = [_user(0), _reply(1, ["a"]), _result("a"), _reply(2, ["a"]), _result("a")]
    assert turn_starts(history) == [0, 3]


def test_a_reused_id_asked_twice_before_its_results_pairs_each_call() -> None:
    """Found by Hypothesis: the second result answers the first call, so no cut may fall
    between them (a dict of open calls forgot the first)."""
    history = [_reply(1, ["a"]), _reply(2, ["a"]), _result("a"), _result("a")]
    assert turn_starts(history) == [0]
    view = _compacted(KeepLastTurns(1), None, history)
    _check_sent(history, view)


# -- what is sent ---------------------------------------------------------------------------------


def test_keep_last_turns_sends_a_note_and_the_last_turns() -> None:
    history = [_user(0), _reply(1, ["a"]), _result("a"), _reply(2, ["b"]), _result("b"), _reply(3)]
    view, summarise, cut = plan_compaction(
        Compaction(KeepLastTurns(2)), None, history, 0, None, overflow=True
    )  # type: ignore[misc]
    assert summarise is None and cut == 3 and view == ContextView(start=3, since=6)
    sent = render_view(view, history)
    assert sent[0] == UserMessage(
        "compaction-3",
        "[The first 3 messages of this conversation were left out to fit the context window.]",
    )
    assert sent[1:] == history[3:]


def test_clear_tool_results_keeps_the_pairs_and_clears_old_content() -> None:
    history = [_user(0), _reply(1, ["a"]), _result("a", "x" * 400), _reply(2, ["b"]), _result("b")]
    view, _, _ = plan_compaction(
        Compaction(ClearToolResults(1, placeholder="[gone]")), None, history, 0, None, overflow=True
    )  # type: ignore[misc]
    sent = render_view(view, history)
    assert sent[2] == ToolResultMessage("a", "read", "[gone]")
    assert sent[:2] == history[:2] and sent[3:] == history[3:]
    assert history[2].result == "x" * 400  # the history itself is never rewritten


def test_a_summary_leads_what_is_sent() -> None:
    history = [_user(0), _reply(1), _user(2), _reply(3)]
    sent = render_view(ContextView(start=2, summary="They said hi."), history)
    assert sent[0].content == (
        "The earlier part of this conversation was summarised to fit the context window:"
        "\n\n<summary>\nThey said hi.\n</summary>"
    )
    assert sent[1:] == history[2:]


# -- when: the line, and the chain ------------------------------------------------------------


def _long_history(turns: int) -> list[Any]:
    out: list[Any] = [_user(0, "go")]
    for t in range(turns):
        out += [_reply(t, [f"c{t}"]), _result(f"c{t}", "y" * 800)]
    return out


def test_nothing_is_compacted_under_the_line_or_without_a_window() -> None:
    history = _long_history(6)
    compaction = Compaction(KeepLastTurns(2), threshold=0.5)
    assert plan_compaction(compaction, None, history, 499, 1000, overflow=False) is None
    assert plan_compaction(compaction, None, history, 10**9, None, overflow=False) is None
    assert plan_compaction(compaction, None, history, 500, 1000, overflow=False) is not None


def test_the_chain_stops_once_the_context_is_under_the_line() -> None:
    history = _long_history(10)  # each result is about 200 tokens
    chain = Compaction((ClearToolResults(2), KeepLastTurns(1)), context_window=2000)
    tokens = sum(estimate_tokens(m) for m in history)
    assert tokens > 1600  # over the line: clearing all but two results brings it under
    planned = plan_compaction(chain, None, history, tokens, 2000, overflow=False)
    assert planned is not None and planned[0].cleared > 0 and planned[0].start == 0
    planned = plan_compaction(chain, None, history, 10_000, 2000, overflow=False)
    assert planned is not None and planned[0].start == turn_starts(history)[-1]


def test_an_overflow_counts_as_a_full_window() -> None:
    history = _long_history(6)
    chain = Compaction((ClearToolResults(2), KeepLastTurns(1)))
    planned = plan_compaction(chain, None, history, 0, 100_000, overflow=True)
    assert planned is not None and planned[0].cleared > 0  # 0 tokens, yet over the line
    planned = plan_compaction(chain, None, history, 0, None, overflow=True)
    assert planned is not None and planned[0].start > 0  # no window: every strategy runs


def test_nothing_left_to_compact_is_none() -> None:
    history = [_user(0), _reply(1)]
    assert (
        plan_compaction(Compaction(KeepLastTurns(1)), None, history, 0, None, overflow=True) is None
    )


# -- sizes ----------------------------------------------------------------------------------


def test_estimates_count_characters_images_and_calls() -> None:
    assert estimate_tokens(_user(0, "x" * 40)) == 4 + 10
    image = UserMessage("u", (TextContent("abcd"), ImageContent("image/png", "AAAA")))
    assert estimate_tokens(image) == 4 + 1 + 1600
    call = AssistantMessage("a", "m", [ToolCallPart("c", "read", {"p": 1})])
    assert estimate_tokens(call) == 4 + -(-(len("read") + len('{"p": 1}')) // 4)
    assert estimate_tokens(Note("never sent")) == 0


def test_context_tokens_trusts_the_last_reported_usage() -> None:
    usage = Usage(input_tokens=900, output_tokens=50, cache_read_tokens=40)
    history = [_user(0), _reply(1, ["a"], usage=usage), _result("a", "z" * 400)]
    assert context_tokens(None, history, ()) == 990 + estimate_tokens(history[2])
    extra = [_user(3, "more")]
    assert context_tokens(None, history, extra) == 990 + 104 + estimate_tokens(extra[0])
    # a reply made before the view changed measured another context: estimate instead
    view = ContextView(start=0, since=3)
    assert context_tokens(view, history, ()) == sum(estimate_tokens(m) for m in history)


# -- configuration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strategies", "match"),
    [
        ((), "at least one"),
        ((KeepLastTurns(), ClearToolResults()), "in that order"),
        ((Summarise(), KeepLastTurns()), "in that order"),
        ((ClearToolResults(), ClearToolResults()), "in that order"),
        (("keep",), "not a compaction strategy"),
        ("keep", "must be a sequence"),
    ],
)
def test_bad_strategies_are_named(strategies: Any, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        Compaction(strategies)


def test_bad_values_are_named() -> None:
    with pytest.raises(ConfigurationError, match="threshold"):
        Compaction(KeepLastTurns(), threshold=1.5)
    with pytest.raises(ConfigurationError, match="context_window"):
        Compaction(KeepLastTurns(), context_window=0)
    with pytest.raises(ConfigurationError, match="turns"):
        KeepLastTurns(0)
    with pytest.raises(ConfigurationError, match="instructions"):
        Summarise(instructions=" ")
    with pytest.raises(ValueError, match="context_window"):
        ModelPrice(1.0, 1.0, context_window=-5)


@given(
    st.lists(_strategies, min_size=1, max_size=1).map(tuple)
    | st.tuples(
        st.builds(ClearToolResults),
        _strategies.filter(lambda s: not isinstance(s, ClearToolResults)),
    ),
    st.floats(0.01, 1.0),
    st.none() | st.integers(1, 10**7),
)
def test_the_configuration_travels_in_the_journal(
    strategies: Any, threshold: float, window: Any
) -> None:
    compaction = Compaction(strategies, threshold, window)
    assert Compaction.from_wire(compaction.to_wire()) == compaction
    config = LoopConfig(compaction=compaction, price=ModelPrice(1.0, 2.0, context_window=9))
    assert LoopConfig().from_wire(config.to_wire()) == config


def test_the_context_window_comes_from_the_compaction_or_the_price() -> None:
    price = ModelPrice(1.0, 2.0, context_window=1000)
    assert LoopConfig(price=price).context_window == 1000
    assert (
        LoopConfig(
            price=price, compaction=Compaction(KeepLastTurns(), context_window=5)
        ).context_window
        == 5
    )
    assert LoopConfig(compaction=KeepLastTurns()).context_window is None


def test_every_priced_model_has_a_context_window() -> None:
    assert all(p.context_window for p in PRICES.values())
    assert PRICES["claude-sonnet-4-5"].context_window == 200_000
    assert PRICES["gpt-5"].context_window == 272_000
