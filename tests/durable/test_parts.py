"""The durable parts that need no worker: definitions, the inbox's claims (a Hypothesis
state machine on the real PostgreSQL), the idempotency key, the command line.

Tests the private module ``agentcore._durable``: the worker's parts (a tool call as a step,
the store, the database URL)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from durable_app import CountingModel, charge_tool
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from agentcore._durable.effects import call_tool
from agentcore._durable.store import STARTS, Store
from agentcore._durable.worker import dbos_url
from agentcore.cli import main
from agentcore.durable import Definitions, idempotency_key
from agentcore.errors import ConfigurationError
from agentcore.events import ToolCallPart


def test_definitions_check_their_options() -> None:
    definitions = Definitions()
    definitions.define("ok", model=CountingModel(), tools=[charge_tool])
    assert list(definitions) == ["ok"] and "ok" in definitions
    assert definitions.get("ok").tools.keys() == {"charge"}
    with pytest.raises(ConfigurationError, match="cannot take journal: journal belongs to one"):
        definitions.define("bad", model=CountingModel(), journal=None)
    with pytest.raises(ConfigurationError, match="clock is the worker's"):
        definitions.define("bad", model=CountingModel(), clock=lambda: 0)
    with pytest.raises(ConfigurationError, match="compaction"):
        definitions.define("bad", model=CountingModel(), compaction="x")
    with pytest.raises(ConfigurationError, match="needs a model="):
        definitions.define("bad")
    with pytest.raises(ConfigurationError, match="non-empty identifier"):
        definitions.define("no spaces", model=CountingModel())
    with pytest.raises(ConfigurationError, match="max_iterations"):
        definitions.define("bad", model=CountingModel(), max_iterations=0)
    with pytest.raises(KeyError, match=r"no agent definition 'x' \(known: ok\)"):
        definitions.get("x")


def test_a_definition_resolves_its_model_as_its_agent_does() -> None:
    """A definition shares its template agent's checked options (``AgentConfig``): a
    model name is resolved once, by the definition's ``driver_factory``, with its
    ``base_url``; a driver given is the one its steps call."""
    made: list[tuple[str, dict[str, Any]]] = []

    def factory(name: str, **options: Any) -> CountingModel:
        made.append((name, options))
        return CountingModel()

    definitions = Definitions()
    definitions.define("named", model="acme/m1", driver_factory=factory, base_url="http://h")
    definition = definitions.get("named")
    assert definition.agent_config is definition.template.agent_config
    assert definition.driver is definition.driver
    assert made == [("acme/m1", {"base_url": "http://h"})]
    given = CountingModel()
    definitions.define("given", model=given)
    assert definitions.get("given").driver is given


def test_the_idempotency_key_is_the_calls_and_only_inside_it() -> None:
    with pytest.raises(LookupError, match="only set while a durable worker runs a tool"):
        idempotency_key()
    seen: list[str] = []

    async def remember() -> str:
        """Remember the key."""
        seen.append(idempotency_key())
        return "ok"

    from agentcore import tool

    call = ToolCallPart("call_1", "remember", {})
    result = asyncio.run(call_tool({"remember": tool(remember)}, call, "a/call_1", lambda: 7))
    assert (result.result, result.is_error, result.timestamp) == ("ok", False, 7)
    assert seen == ["a/call_1"]
    missing = asyncio.run(call_tool({}, call, "a/call_1", lambda: 7))
    assert missing.is_error and missing.details == {"error_code": "TOOL_NOT_FOUND"}


def test_database_urls() -> None:
    assert dbos_url("postgres://u:p@h:1/d") == "postgresql://u:p@h:1/d"
    with pytest.raises(ValueError, match="postgresql://user:password@host"):
        dbos_url("mysql://u:secret@h/d")


def test_the_worker_command_says_what_is_wrong(capsys: Any) -> None:
    agents = "durable_app:definitions"
    assert main(["worker", "--database-url", "sqlite:///x", "--agents", agents]) == 1
    assert "(--database-url on the command line) must be postgresql://" in capsys.readouterr().err
    assert main(["worker", "--database-url", "postgresql://h/d", "--agents", "nocolon"]) == 1
    assert "--agents takes module:attribute, got 'nocolon'" in capsys.readouterr().err
    assert main(["worker", "--database-url", "postgresql://h/d", "--agents", "json:__doc__"]) == 1
    assert "is not agentcore.durable.Definitions" in capsys.readouterr().err
    assert main(["worker", "--database-url", "postgresql://h/d", "--agents", "json:loads"]) == 1
    assert "json:loads is not agentcore.durable.Definitions nor" in capsys.readouterr().err


class Inbox(RuleBasedStateMachine):
    """Posts and claims in any order: every command is claimed once, in order; a claim
    at rest takes at most one command that starts a run, one during a run none; a claim
    run again under its key gets back what it took."""

    url = ""

    def __init__(self) -> None:
        super().__init__()
        self.store = Store(self.url, max_connections=1)
        self.agent = f"agent-{id(self)}-{Inbox.runs}"
        Inbox.runs += 1
        self.posted: list[tuple[int, str]] = []
        self.claimed: list[int] = []
        self.keys = 0
        self.last: tuple[str, bool, list[str]] | None = None

    runs = 0

    @rule(kind=st.sampled_from(["agent_prompt", "agent_steer", "agent_abort", "agent_continue"]))
    def post(self, kind: str) -> None:
        n = self.store.post(self.agent, kind, json.dumps({"kind": kind}))
        self.posted.append((n, kind))

    @rule(rest=st.booleans())
    def claim(self, rest: bool) -> None:
        self.keys += 1
        key = f"k{self.keys}"
        taken = self.store.claim(self.agent, key, rest)
        kinds = [json.loads(c)["kind"] for c in taken]
        starts = [k for k in kinds if k in STARTS]
        assert len(starts) <= (1 if rest else 0)
        if starts:
            assert kinds[-1] in STARTS  # nothing after the run's start is taken with it
        waiting = [(n, k) for n, k in self.posted if n not in self.claimed]
        expected = [
            n for n, k in waiting if (k not in STARTS if not rest else n <= _first_start(waiting))
        ]
        got = [n for n, _ in self._numbers(taken, waiting)]
        assert got == expected
        self.claimed.extend(got)
        self.last = (key, rest, taken)

    @rule()
    def claim_again(self) -> None:
        if self.last is None:
            return
        key, rest, taken = self.last
        again = self.store.claim(self.agent, key, rest)
        assert again[: len(taken)] == taken  # plus commands posted since, if any
        waiting = [(n, k) for n, k in self.posted if n not in self.claimed]
        extra = self._numbers(again[len(taken) :], waiting)
        assert len(extra) == len(again) - len(taken)
        if not rest:
            assert all(k not in STARTS for _, k in extra)
        self.claimed.extend(n for n, _ in extra)
        self.last = (key, rest, again)

    @invariant()
    def claimed_once(self) -> None:
        assert len(self.claimed) == len(set(self.claimed))

    def teardown(self) -> None:
        self.store.close()

    @staticmethod
    def _numbers(taken: list[str], waiting: list[tuple[int, str]]) -> list[tuple[int, str]]:
        # commands are posted with distinct numbers in order: match them by position
        kinds = [json.loads(c)["kind"] for c in taken]
        out, i = [], 0
        for n, k in waiting:
            if i < len(kinds) and k == kinds[i]:
                out.append((n, k))
                i += 1
        return out


def _first_start(waiting: list[tuple[int, str]]) -> int:
    return next((n for n, k in waiting if k in STARTS), 1 << 62)


def test_inbox_claims(postgres_db: str) -> None:
    Inbox.url = postgres_db
    from hypothesis.stateful import run_state_machine_as_test

    run_state_machine_as_test(
        Inbox,
        settings=settings(
            max_examples=25,
            stateful_step_count=12,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )


def test_a_dead_worker_is_taken_once_until_its_taker_dies_too(postgres_db: str) -> None:
    """A dead worker's row is marked, not deleted, while its taker hands its workflows
    back: a second survivor does not take it meanwhile, takes it again once the mark is
    stale (the taker died halfway), and never after the taker's ``leave``."""
    store = Store(postgres_db, max_connections=1)
    try:
        for worker in ("dead", "taker", "other"):
            store.beat(worker)
        assert store.take_dead(60_000) == []  # nobody silent for a minute
        time.sleep(0.01)  # the database's clock moves on a millisecond at least
        assert store.take_dead(0) == ["dead", "other", "taker"]
        assert store.take_dead(60_000) == []  # marked a moment ago: not taken again
        assert store.workers() == ["dead", "other", "taker"]  # rows kept until handed back
        time.sleep(0.01)
        assert store.take_dead(0) == ["dead", "other", "taker"]  # marks stale: taken again
        store.beat("other")  # alive after all: its mark is cleared
        store.leave("dead")
        assert store.workers() == ["other", "taker"]
        assert store.take_dead(60_000) == []
    finally:
        store.close()
