"""``stamped``, the one stamping of inputs, copies an event slot by slot.

Tests the private module ``agentcore._edges.clock``: its slot copy must be the event
``attrs.evolve`` builds, for every registered event class.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcore._edges.clock import stamped
from agentcore.events import TextDelta
from agentcore.testing import registered_events


@settings(max_examples=300, deadline=None)
@given(event=registered_events(), now=st.integers(1, 2**53))
def test_a_stamped_event_is_the_evolved_one(event: Any, now: int) -> None:
    """Equal, of the same class, with the same hash and fields as ``attrs.evolve``'s."""
    unstamped = attrs.evolve(event, timestamp=0)
    copy = stamped(unstamped, now)
    expected = attrs.evolve(unstamped, timestamp=now)
    assert type(copy) is type(expected)
    assert copy == expected
    try:
        digest = hash(expected)
    except TypeError:  # a field holds a dict (a configuration, JSON arguments)
        digest = None
    if digest is not None:
        assert hash(copy) == digest
    assert attrs.asdict(copy, recurse=False) == attrs.asdict(expected, recurse=False)
    assert unstamped.timestamp == 0  # the original is left as it was


@given(event=registered_events())
def test_an_event_with_a_stamp_keeps_it(event: Any) -> None:
    stamp = event.timestamp or 7
    event = attrs.evolve(event, timestamp=stamp)
    assert stamped(event, stamp + 1) is event


def test_a_stamp_that_is_not_an_int_goes_through_the_class_checks() -> None:
    """The copy takes only an ``int``; anything else is built by the class, which says
    what is wrong with it as it would for ``attrs.evolve``."""
    with pytest.raises(Exception) as copied:
        stamped(TextDelta("x", 0), "soon")  # type: ignore[arg-type]
    with pytest.raises(Exception) as evolved:
        attrs.evolve(TextDelta("x", 0), timestamp="soon")
    assert type(copied.value) is type(evolved.value)
    assert str(copied.value) == str(evolved.value)
