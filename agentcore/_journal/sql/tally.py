"""What the session tables keep of each session, counted from its journaled inputs.

The journal is the truth; ``agentcore_sessions`` and ``agentcore_calls`` are an index over
it, written in the same transaction as the entries they count, so a listing or a cost
query reads a few rows instead of folding every conversation. Each comes from inputs
alone:

- a session's ``created_ms`` and ``last_ms`` are the timestamps of its first and latest
  entries, ``entries`` its last ``seq``, ``turns`` its ``agent_prompt`` inputs (one per
  ``prompt``, ``run`` or ``receive``: the seed's turn);
- a model call is a ``message_start`` (its ``seq``, time and model); its usage is the
  latest ``message_delta`` usage after it (providers report it cumulatively); its cost is
  that usage priced by ``call_cost`` with the pricing the agent was configured with
  (``agent_configured``'s ``price`` and ``prices``), exactly as the loop's ledger charges
  it and ``max_cost`` counts it, and ``None`` when the agent has no price; the call keeps
  the usage's breakdown (image, audio and document tokens, one-hour cache writes) too.

``Tally.count(entries)`` works out the rows for a batch of entries without changing the
tally; ``commit()`` keeps what it learnt once the rows are written, so a batch that fails
to write leaves the tally as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import attrs

from ..._core.content import Usage
from ..._core.events import MessageDelta, MessageStart
from ..._core.pricing import ModelPrice, call_cost
from ..._loop.events import AgentConfigured, AgentPrompt
from ..read import dumps, load_line

__all__ = ["CallRow", "Counted", "SessionRow", "Tally", "price_from_json"]

NO_PRICE_JSON = "null"

Pricing = tuple[ModelPrice, dict[str, ModelPrice] | None]
"""An agent's configured ``price`` and its per-model ``prices`` table (``call_cost``)."""


class SessionRow(NamedTuple):
    """``agentcore_sessions`` values: ``created_ms`` is None unless the batch holds the
    session's first entry; ``turns`` is what the batch adds; ``price`` is None when the
    batch configures no price (``"null"`` for an agent configured without one)."""

    agent_id: str
    created_ms: int | None
    last_ms: int | None
    entries: int
    turns: int
    price: str | None


class CallRow(NamedTuple):
    """One model call: ``agentcore_calls`` values."""

    agent_id: str
    seq: int
    ts: int | None
    model: str
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    cost: float | None
    image_tokens: int = 0
    audio_tokens: int = 0
    document_tokens: int = 0
    cache_write_1h_tokens: int = 0


_BIGINT = (1 << 63) - 1


def _ms(timestamp: int) -> int | None:
    """A timestamp the database's 64-bit integers hold (None for one out of range)."""
    return timestamp if -_BIGINT <= timestamp <= _BIGINT else None


def _count(tokens: int) -> int:
    """A token count, capped at what a 64-bit integer holds."""
    return min(tokens, _BIGINT)


def price_from_json(text: str | None) -> Pricing | None:
    """The pricing a session's ``price`` column holds (None for none): a bare price, or
    ``{"price": ..., "prices": {model: price}}`` for an agent with a per-model table."""
    if text is None:
        return None
    value = load_line(text.encode())
    if value is None:
        return None
    if "prices" not in value:
        return ModelPrice(**value), None
    table = {model: ModelPrice(**row) for model, row in value["prices"].items()}
    return ModelPrice(**value["price"]), table


def _price_json(config: Any) -> str:
    price, table = config.get("price"), config.get("prices")
    if price is None:
        return NO_PRICE_JSON
    return dumps(price if table is None else {"price": price, "prices": table}).decode()


def _call_with(call: CallRow, usage: Usage, pricing: Pricing | None) -> CallRow:
    return call._replace(
        input_tokens=_count(usage.input_tokens),
        output_tokens=_count(usage.output_tokens),
        cache_read_tokens=_count(usage.cache_read_tokens),
        cache_write_tokens=_count(usage.cache_write_tokens),
        reasoning_tokens=_count(usage.reasoning_tokens),
        image_tokens=_count(usage.image_tokens),
        audio_tokens=_count(usage.audio_tokens),
        document_tokens=_count(usage.document_tokens),
        cache_write_1h_tokens=_count(usage.cache_write_1h_tokens),
        cost=None if pricing is None else call_cost(usage, call.model, *pricing),
    )


@attrs.frozen
class Counted:
    """The rows a batch adds or changes, and what the tally learns once they are written."""

    sessions: list[SessionRow]
    calls: list[CallRow]
    prices: dict[str, Pricing | None]
    open_calls: dict[str, CallRow]


class Tally:
    """Per agent: its price and its latest model call, kept across batches.

    ``load_price(agent_id)`` and ``load_call(agent_id)`` read them from the database the
    first time an agent needs them in this process (a journal reopened mid-session)."""

    __slots__ = ("_calls", "_load_call", "_load_price", "_prices")

    def __init__(
        self,
        load_price: Callable[[str], Pricing | None],
        load_call: Callable[[str], CallRow | None],
    ) -> None:
        self._prices: dict[str, Pricing | None] = {}
        self._calls: dict[str, CallRow] = {}
        self._load_price = load_price
        self._load_call = load_call

    def forget(self, agent_id: str) -> None:
        """Drop what is known of a session (deleted)."""
        self._prices.pop(agent_id, None)
        self._calls.pop(agent_id, None)

    def count(self, entries: Iterable[tuple[str, int, Any]]) -> Counted:
        """The rows for ``entries`` (``(agent_id, seq, event)``, in append order)."""
        sessions: dict[str, list[Any]] = {}
        calls: dict[tuple[str, int], CallRow] = {}
        prices: dict[str, Pricing | None] = {}
        open_calls: dict[str, CallRow] = {}
        for agent, seq, event in entries:
            row = sessions.get(agent)
            if row is None:
                row = sessions[agent] = [None, 0, 0, 0, None]
            timestamp = _ms(event.timestamp)
            if seq == 1:
                row[0] = timestamp
            row[1], row[2] = timestamp, seq
            cls = type(event)
            if cls is AgentPrompt:
                row[3] += 1
            elif cls is AgentConfigured:
                row[4] = _price_json(event.config)
                prices[agent] = price_from_json(row[4])
            elif cls is MessageStart:
                call = CallRow(agent, seq, timestamp, event.model, 0, 0, 0, 0, 0, None)
                price = self._price(agent, prices)
                call = _call_with(call, Usage(), price)
                calls[(agent, seq)] = open_calls[agent] = call
            elif cls is MessageDelta:
                open_call = open_calls.get(agent) or self._open_call(agent)
                if open_call is not None:
                    call = _call_with(open_call, event.usage, self._price(agent, prices))
                    calls[(agent, call.seq)] = open_calls[agent] = call
        return Counted(
            [SessionRow(agent, *values) for agent, values in sessions.items()],
            list(calls.values()),
            prices,
            open_calls,
        )

    def _price(self, agent: str, batch: dict[str, Pricing | None]) -> Pricing | None:
        if agent in batch:
            return batch[agent]
        if agent not in self._prices:
            self._prices[agent] = self._load_price(agent)
        return self._prices[agent]

    def _open_call(self, agent: str) -> CallRow | None:
        call = self._calls.get(agent)
        if call is None:
            call = self._load_call(agent)
            if call is not None:
                self._calls[agent] = call
        return call

    def commit(self, counted: Counted) -> None:
        """Keep what ``counted`` learnt: its rows are written."""
        self._prices.update(counted.prices)
        self._calls.update(counted.open_calls)
