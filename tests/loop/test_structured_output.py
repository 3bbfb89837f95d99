"""Structured output through a whole Agent: every output type, every mode, retries, the
error when they run out, streaming partial answers, and replay of it all."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
from typing import Any, TypedDict

import attrs
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcore import Agent, OutputSpec, as_driver, from_dict, to_dict
from agentcore.drivers.scripted import FunctionDriver, Pause, ScriptedDriver, text_turn, tool_turn
from agentcore.errors import ConfigurationError, OutputParseError
from agentcore.events import (
    AssistantMessage,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    UserMessage,
)
from agentcore.journal import MemoryJournal, replay
from agentcore.loop import (
    AgentOutput,
    AgentPrompt,
    OutputRetry,
    history_problems,
    is_prefix,
    output_spec,
)
from agentcore.testing import assert_replays, chunked
from agentcore.tools import tool


@dataclasses.dataclass
class City:
    """A city and how many live there."""

    name: str
    population: int


@attrs.define
class CityAttrs:
    name: str
    population: int


class CityDict(TypedDict):
    name: str
    population: int


class CityModel(pydantic.BaseModel):
    name: str
    population: int = pydantic.Field(ge=0)


CITY_SCHEMA = {
    "title": "city",
    "type": "object",
    "properties": {"name": {"type": "string"}, "population": {"type": "integer"}},
    "required": ["name", "population"],
    "additionalProperties": False,
}
PARIS = {"name": "Paris", "population": 2102650}
PARIS_TEXT = json.dumps(PARIS)


def _run(agent: Agent, prompt: str = "Which city?", **options: Any) -> tuple[Any, list[Any]]:
    delivered: list[Any] = []
    agent.subscribe(delivered.append)

    async def main() -> Any:
        return await agent.run(prompt, **options)

    return asyncio.run(main()), delivered


def _text_answer(text: str) -> list[Any]:
    return text_turn(text, chunk=5)


def _tool_answer(call_id: str, name: str, args: Any) -> list[Any]:
    return tool_turn([(call_id, name, args)])


@pytest.mark.parametrize(
    ("output_type", "expected"),
    [
        (City, City("Paris", 2102650)),
        (CityAttrs, CityAttrs("Paris", 2102650)),
        (CityDict, PARIS),
        (CityModel, CityModel(name="Paris", population=2102650)),
        (CITY_SCHEMA, PARIS),
    ],
    ids=["dataclass", "attrs", "typeddict", "pydantic", "json-schema"],
)
@pytest.mark.parametrize("mode", ["native", "tool", "prompted"])
def test_every_output_type_in_every_mode(output_type: Any, expected: Any, mode: str) -> None:
    spec, _ = output_spec(output_type, mode=mode)
    answer = _tool_answer("c1", spec.name, PARIS) if mode == "tool" else _text_answer(PARIS_TEXT)
    driver = ScriptedDriver([answer])
    agent = Agent(driver, journal=MemoryJournal())
    result, delivered = _run(agent, output_type=output_type, output_mode=mode)
    assert result.output == expected and type(result.output) is type(expected)
    assert [o.output for o in delivered if type(o) is AgentOutput] == [PARIS]
    request = driver.requests[0]
    assert request.output == spec
    if mode == "tool":
        assert [t.name for t in request.tools] == [spec.name]
        assert result.messages[-1] == ToolResultMessage(
            "c1", spec.name, "Final answer received.", timestamp=result.messages[-1].timestamp
        )
    elif mode == "prompted":
        assert request.tools == () and "JSON Schema" in (request.system_prompt or "")
        assert json.loads(request.system_prompt.split("\n")[-1]) == spec.schema  # type: ignore[union-attr]
    else:
        assert request.tools == () and request.system_prompt is None
    assert history_problems(agent.state.messages) == []
    assert_replays(agent, delivered)


def test_auto_picks_the_drivers_best_mode() -> None:
    class ToolsOnly:
        output_modes = ("tool", "prompted")

        async def receive(self, request: Any) -> Any:
            for event in _tool_answer("c1", "City", PARIS):
                yield event

    assert as_driver(ToolsOnly()).output_modes == ("tool", "prompted")
    result, _ = _run(Agent(ToolsOnly()), output_type=City)
    assert result.output == City("Paris", 2102650)
    native = ScriptedDriver([_text_answer(PARIS_TEXT)])
    _run(Agent(native), output_type=City)
    assert native.requests[0].output is not None
    assert native.requests[0].output.mode == "native"


def test_an_invalid_answer_goes_back_to_the_model_then_a_valid_one_ends_the_run() -> None:
    wrong = json.dumps({"name": "Paris", "population": "two million"})
    driver = ScriptedDriver([_text_answer(f"```json\n{wrong}\n```"), _text_answer(PARIS_TEXT)])
    agent = Agent(driver, journal=MemoryJournal())
    result, delivered = _run(agent, output_type=City, output_retries=2)
    assert result.output == City("Paris", 2102650)
    retries = [o for o in delivered if type(o) is OutputRetry]
    assert [(r.attempt, r.errors) for r in retries] == [
        (1, ("at $.population: 'two million' is not of type 'integer'",))
    ]
    sent_back = driver.requests[1].messages[-1]
    assert type(sent_back) is UserMessage and "retry 1 of 2" in sent_back.content
    assert "two million" in sent_back.content  # the model sees what was wrong
    assert [type(m) for m in result.messages] == [
        UserMessage,
        AssistantMessage,
        UserMessage,
        AssistantMessage,
    ]
    assert result.text == PARIS_TEXT
    assert_replays(agent, delivered)


def test_running_out_of_retries_ends_the_run_with_output_parse_error() -> None:
    driver = ScriptedDriver([_text_answer("Paris, I think."), _text_answer('{"name": "Paris"}')])
    agent = Agent(driver, journal=MemoryJournal())
    seen: list[Any] = []
    with pytest.raises(OutputParseError, match="2 answers did not match") as raised:
        _run(agent, output_type=City, on_error=seen.append)
    assert raised.value.code == "OUTPUT_PARSE_ERROR" and seen == [raised.value]
    assert "'population' is a required property" in str(raised.value)
    assert agent.state.error is not None and agent.state.error.code == "OUTPUT_PARSE_ERROR"
    assert len(driver.requests) == 2 and history_problems(agent.state.messages) == []


def test_no_retry_at_all_with_output_retries_zero() -> None:
    agent = Agent(ScriptedDriver([_text_answer("{}")]))
    with pytest.raises(OutputParseError, match="the answer did not match"):
        _run(agent, output_type=City, output_retries=0)


def test_tool_mode_answers_an_invalid_call_with_its_errors_and_asks_again() -> None:
    driver = ScriptedDriver(
        [
            _text_answer("Let me think."),  # no call to the final-answer tool: asked again
            _tool_answer("c1", "City", {"name": "Paris"}),
            _tool_answer("c2", "City", PARIS),
        ]
    )
    agent = Agent(driver, journal=MemoryJournal())
    result, delivered = _run(agent, output_type=City, output_mode="tool", output_retries=2)
    assert result.output == City("Paris", 2102650)
    assert [r.errors for r in delivered if type(r) is OutputRetry] == [
        ("the reply did not call the 'City' tool",),
        ("at $: 'population' is a required property",),
    ]
    first_retry = driver.requests[1].messages[-1]
    assert type(first_retry) is UserMessage and "Call the 'City' tool" in first_retry.content
    invalid = driver.requests[2].messages[-1]
    assert type(invalid) is ToolResultMessage and invalid.is_error
    assert invalid.details == {"error_code": "TOOL_VALIDATION_ERROR"}
    assert "'population' is a required property" in str(invalid.result)
    assert history_problems(agent.state.messages) == []
    assert_replays(agent, delivered)


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: 2102650 people"


def test_tools_run_before_the_final_answer_and_calls_beside_it_are_not_run() -> None:
    ran: list[str] = []

    @tool
    def note(text: str) -> str:
        """Write a note."""
        ran.append(text)
        return "noted"

    both = tool_turn([("n1", "note", {"text": "skip me"}), ("c2", "City", PARIS)])
    driver = ScriptedDriver([tool_turn([("l1", "lookup", {"city": "Paris"})]), both])
    agent = Agent(driver, tools=[lookup, note], journal=MemoryJournal())
    result, delivered = _run(agent, output_type=City, output_mode="tool")
    assert result.output == City("Paris", 2102650) and ran == []
    skipped = next(m for m in result.messages if getattr(m, "tool_call_id", None) == "n1")
    assert skipped.is_error and skipped.details == {"error_code": "TOOL_SKIPPED"}
    assert [t.name for t in driver.requests[0].tools] == ["lookup", "note", "City"]
    assert history_problems(agent.state.messages) == []
    assert_replays(agent, delivered)


def test_a_type_that_refuses_values_its_schema_allows_raises_output_parse_error() -> None:
    @dataclasses.dataclass
    class Positive:
        n: int

        def __post_init__(self) -> None:
            if self.n <= 0:
                raise ValueError("n must be positive")

    agent = Agent(ScriptedDriver([_text_answer('{"n": -1}')]))
    with pytest.raises(OutputParseError, match="n must be positive"):
        _run(agent, output_type=Positive)


def test_bad_output_options_are_configuration_errors() -> None:
    agent = Agent(ScriptedDriver([]), tools=[lookup])
    with pytest.raises(ConfigurationError, match="not a valid JSON Schema"):
        _run(agent, output_type={"type": "object", "properties": 3})
    with pytest.raises(ConfigurationError, match="must describe a JSON object"):
        _run(agent, output_type={"type": "array"})
    with pytest.raises(ConfigurationError, match="cannot derive a JSON Schema"):
        _run(agent, output_type=int)
    with pytest.raises(ConfigurationError, match="output_mode must be"):
        _run(agent, output_type=City, output_mode="json")
    with pytest.raises(ConfigurationError, match="like one of the agent's tools"):
        _run(agent, output_type={**CITY_SCHEMA, "title": "lookup"}, output_mode="tool")
    with pytest.raises(ConfigurationError, match="output retries must be an int >= 0"):
        _run(agent, output_type=City, output_retries=-1)

    class Plain:
        async def receive(self, request: Any) -> Any:
            yield  # pragma: no cover

    with pytest.raises(ConfigurationError, match="no native structured output"):
        _run(Agent(Plain()), output_type=City, output_mode="native")


def test_a_prompt_with_an_output_spec_has_a_wire_form() -> None:
    spec = OutputSpec(CITY_SCHEMA, "city", "a city", "tool", 3)
    prompt = AgentPrompt((UserMessage("m1", "hi"),), output=spec, timestamp=5)
    assert from_dict(to_dict(prompt)) == prompt
    assert from_dict(json.loads(json.dumps(to_dict(prompt)))) == prompt


def test_a_structured_run_replays_from_its_journal_alone() -> None:
    driver = ScriptedDriver([_text_answer("nope"), _text_answer(PARIS_TEXT)])
    agent = Agent(driver, journal=MemoryJournal())
    _, delivered = _run(agent, output_type=CityModel)
    journal = agent.journal
    assert journal is not None
    replayed = [o for _, o in replay(journal)]
    assert replayed == delivered  # no driver, no output type: the journal holds the spec


# -- streaming -------------------------------------------------------------------------------


def _stream(agent: Agent, **options: Any) -> tuple[list[Any], Any]:
    async def main() -> tuple[list[Any], Any]:
        stream = agent.stream("Which city?", **options)
        partials = [p async for p in stream]
        return partials, stream.output

    return asyncio.run(main())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(["native", "tool", "prompted"]))
def test_streamed_partials_grow_and_end_with_the_answer(data: st.DataObject, mode: str) -> None:
    value = {"name": "Saint-Étienne", "population": 170049, "rivers": ["Furan", "Loire"]}
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 3},
            "population": {"type": "integer"},
            "rivers": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["name", "population", "rivers"],
    }
    text = json.dumps(value, ensure_ascii=data.draw(st.booleans()))
    chunks = data.draw(chunked(text))
    if mode == "tool":
        events: list[Any] = [
            MessageStart("m", "scripted-model"),
            ToolUseStart("c1", "final_result", 0),
            *(InputJsonDelta(c, 0) for c in chunks),
            ToolUseStop("c1", 0),
            MessageDelta("tool_use"),
            MessageStop(),
        ]
    else:
        prose = "Here you are:\n```json\n" if mode == "prompted" else ""
        events = text_turn(prose, chunk=4)[:-2] + [TextDelta(c, 0) for c in chunks]
        events += text_turn("x")[-2:]
    agent = Agent(ScriptedDriver([events]), journal=MemoryJournal())
    partials, output = _stream(agent, output_type=schema, output_mode=mode)
    assert output == value and partials[-1] == value
    for before, after in itertools.pairwise(partials):
        assert is_prefix(before, after) and before != after


def test_a_partial_that_cannot_become_valid_is_not_yielded() -> None:
    text = '{"name": "Paris", "population": "many"}'
    driver = ScriptedDriver([_text_answer(text), _text_answer(PARIS_TEXT)])
    partials, output = _stream(Agent(driver), output_type=City)
    assert output == City("Paris", 2102650)
    assert {"name": "Paris", "population": "many"} not in partials
    assert {"name": "Paris"} in partials and partials[-1] == PARIS


def test_a_failed_structured_stream_raises_at_the_end() -> None:
    driver = ScriptedDriver([_text_answer('{"name": "Paris"}')])

    async def main() -> list[Any]:
        stream = Agent(driver).stream("Which city?", output_type=City, output_retries=0)
        got = []
        with pytest.raises(OutputParseError):
            async for partial in stream:
                got.append(partial)
        assert stream.output is None
        return got

    got = asyncio.run(main())
    assert got[0] == {} and got[-1] == {"name": "Paris"}


def test_a_model_that_decides_from_the_request_sees_the_schema() -> None:
    def model(request: Any) -> str:
        spec = request.output
        assert spec is not None and spec.mode == "native"
        return json.dumps({k: PARIS[k] for k in spec.schema["required"]})

    result, _ = _run(Agent(FunctionDriver(model)), output_type=CityModel)
    assert result.output == CityModel(name="Paris", population=2102650)


# -- the decision, as a property --------------------------------------------------------------

_ANSWERS = st.sampled_from(
    [
        ("valid", PARIS),
        ("wrong type", {"name": "Paris", "population": "many"}),
        ("missing key", {"name": "Paris"}),
        ("extra key", {**PARIS, "mayor": "?"}),
        ("not json", "Paris, of course"),
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_ANSWERS, min_size=1, max_size=5),
    st.integers(0, 3),
    st.sampled_from(["native", "tool", "prompted"]),
)
def test_the_run_ends_with_the_first_valid_answer_within_the_retries(
    answers: list[tuple[str, Any]], retries: int, mode: str
) -> None:
    script = answers + [("not json", "no idea")] * (retries + 1)  # never runs out

    def turn(i: int, answer: Any) -> list[Any]:
        if isinstance(answer, str):
            return text_turn(answer, message_id=f"m{i}")
        if mode == "tool":
            return tool_turn([(f"c{i}", "city", answer)], message_id=f"m{i}")
        return text_turn(json.dumps(answer), message_id=f"m{i}")

    driver = ScriptedDriver([turn(i, a) for i, (_, a) in enumerate(script)])
    agent = Agent(driver, journal=MemoryJournal())
    delivered: list[Any] = []
    agent.subscribe(delivered.append)
    valid = next((i for i, (kind, _) in enumerate(script[: retries + 1]) if kind == "valid"), None)

    async def main() -> Any:
        options = {"output_type": CITY_SCHEMA, "output_mode": mode, "output_retries": retries}
        return await agent.run("Which city?", **options)

    if valid is not None:
        assert asyncio.run(main()).output == PARIS
        calls = valid + 1
    else:
        with pytest.raises(OutputParseError):
            asyncio.run(main())
        calls = retries + 1
    assert len(driver.requests) == calls
    assert [o.attempt for o in delivered if type(o) is OutputRetry] == list(range(1, calls))
    assert [o.output for o in delivered if type(o) is AgentOutput] == (
        [] if valid is None else [PARIS]
    )
    assert history_problems(agent.state.messages) == []
    assert_replays(agent, delivered)


def test_a_resumed_agent_goes_on_with_the_structured_run() -> None:
    journal = MemoryJournal()
    stalled = [*text_turn('{"na')[:2], Pause(5)]

    async def first_process() -> None:
        driver = ScriptedDriver([_text_answer('{"name": "Paris"}'), stalled])
        agent = Agent(driver, journal=journal, agent_id="a")
        retried = asyncio.Event()
        agent.subscribe("output_retry", lambda _: retried.set())
        task = asyncio.create_task(agent.run("Which city?", output_type=City))
        await retried.wait()
        await asyncio.sleep(0.05)  # the second call streams, then the process dies
        task.cancel()
        agent._shell.journal = None  # nothing after the death reaches the journal
        journal.release("a")  # as the OS lets a dead process's lanes go

    asyncio.run(first_process())

    async def second_process() -> tuple[Agent, list[Any]]:
        agent = await Agent.resume(journal, model=ScriptedDriver([_text_answer(PARIS_TEXT)]))
        outputs: list[Any] = []
        agent.subscribe("agent_output", outputs.append)
        await agent.wait()
        return agent, outputs

    agent, outputs = asyncio.run(second_process())
    assert [o.output for o in outputs] == [PARIS]  # the spec came back from the journal
    assert agent.state.error is None and history_problems(agent.state.messages) == []
