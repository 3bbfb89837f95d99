"""``default_convert_to_llm`` keeps exactly the provider messages of a history, in order,
whether the history holds only those (copied whole) or other kinds too (filtered)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pyrsistent import pvector

from agentcore.events import AssistantMessage, ToolResultMessage, UserMessage
from agentcore.loop import default_convert_to_llm
from agentcore.testing import instances

PROVIDER = (UserMessage, AssistantMessage, ToolResultMessage)


class Note:
    """A custom history entry: kept in the history, never sent."""


class QuotedUser(UserMessage):
    """A subclass of a provider message: sent, as ``isinstance`` says."""


_provider = st.sampled_from(PROVIDER).flatmap(instances)
_entries = st.one_of(
    _provider,
    st.builds(Note),
    instances(UserMessage).map(lambda m: QuotedUser(m.message_id, m.content)),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_entries, max_size=12), st.booleans())
def test_it_keeps_the_provider_messages_in_order(history: list[Any], as_vector: bool) -> None:
    messages = pvector(history) if as_vector else history
    sent = default_convert_to_llm(messages)
    assert type(sent) is tuple
    kept = tuple(m for m in history if isinstance(m, PROVIDER))
    assert sent == kept
    assert all(a is b for a, b in zip(sent, kept, strict=True))
