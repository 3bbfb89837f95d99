"""Agent definitions: built in Python or read from JSON, TOML and YAML; the registry's checks."""

from __future__ import annotations

import json
import pathlib

import pytest

from agentcore import tool
from agentcore.agents import AgentDefinition, AgentRegistry, load_definitions
from agentcore.errors import ConfigurationError

FULL = {
    "id": "editor",
    "displayName": "Editor",
    "description": "Edits files",
    "model": "anthropic/claude-sonnet-4-5",
    "toolNames": ["read", "write"],
    "spawnableAgents": ["finder"],
    "systemPrompt": "You edit code.",
    "instructionsPrompt": "Be careful.",
    "stepPrompt": "Keep going.",
    "includeMessageHistory": True,
    "inputSchema": {
        "prompt": {"type": "string", "description": "what to edit"},
        "params": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    "outputMode": "structured_output",
    "outputSchema": {"type": "object", "properties": {"changed": {"type": "boolean"}}},
    "maxIterations": 5,
}


def _check_full(d: AgentDefinition) -> None:
    assert d.id == "editor" and d.name == "Editor" and d.description == "Edits files"
    assert d.model == "anthropic/claude-sonnet-4-5"
    assert d.tools == ("read", "write") and d.spawnable_agents == ("finder",)
    assert (d.system_prompt, d.instructions_prompt, d.step_prompt) == (
        "You edit code.",
        "Be careful.",
        "Keep going.",
    )
    assert d.include_message_history is True
    assert d.input_schema is not None and d.input_schema["params"]["type"] == "object"
    assert d.output_mode == "structured_output"
    assert d.limits() == {"max_iterations": 5}


def test_a_definition_from_the_seeds_camel_case_keys() -> None:
    _check_full(AgentDefinition.from_dict(FULL))


def test_snake_case_keys_work_too() -> None:
    d = AgentDefinition.from_dict(
        {"id": "a", "model": "openai/gpt-4.1", "display_name": "A", "spawnable_agents": ["b"]}
    )
    assert (d.name, d.spawnable_agents, d.output_mode) == ("A", ("b",), "last_message")
    assert AgentDefinition("x", "p/m").name == "x"


def test_definitions_load_from_json_toml_and_yaml(tmp_path: pathlib.Path) -> None:
    (tmp_path / "one.json").write_text(json.dumps(FULL))
    (tmp_path / "many.json").write_text(json.dumps({"agents": [FULL, {"id": "b", "model": "p/m"}]}))
    (tmp_path / "list.json").write_text(json.dumps([{"id": "c", "model": "p/m"}]))
    (tmp_path / "agents.toml").write_text(
        """
[[agents]]
id = "finder"
model = "anthropic/claude-haiku-4-5"
tools = ["grep"]
output_mode = "last_message"
handle_steps = "json:dumps"

[[agents]]
id = "planner"
model = "anthropic/claude-sonnet-4-5"
spawnableAgents = ["finder"]
"""
    )
    (tmp_path / "agent.yaml").write_text(
        """
id: editor
displayName: Editor
description: Edits files
model: anthropic/claude-sonnet-4-5
toolNames: [read, write]
spawnableAgents: [finder]
systemPrompt: You edit code.
instructionsPrompt: Be careful.
stepPrompt: Keep going.
includeMessageHistory: true
inputSchema:
  prompt: {type: string, description: what to edit}
  params: {type: object, properties: {path: {type: string}}}
outputMode: structured_output
outputSchema: {type: object, properties: {changed: {type: boolean}}}
maxIterations: 5
"""
    )
    _check_full(load_definitions(tmp_path / "one.json")[0])
    _check_full(load_definitions(tmp_path / "agent.yaml")[0])
    assert [d.id for d in load_definitions(tmp_path / "many.json")] == ["editor", "b"]
    assert [d.id for d in load_definitions(tmp_path / "list.json")] == ["c"]
    finder, planner = load_definitions(tmp_path / "agents.toml")
    assert finder.handle_steps is json.dumps  # imported from its reference
    assert planner.spawnable_agents == ("finder",)
    registry = AgentRegistry()
    registry.load(tmp_path / "agents.toml")
    assert "planner" in registry and len(registry) == 2


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"id": "a b", "model": "p/m"}, "AgentDefinition.id must be non-empty letters"),
        ({"id": "a", "model": ""}, "model must be a 'provider/model' string"),
        ({"id": "a", "model": "p/m", "outputMode": "json"}, "output_mode must be one of"),
        ({"id": "a", "model": "p/m", "colour": "red"}, "unknown key(s) ['colour']"),
        (
            {"id": "a", "model": "p/m", "outputSchema": {"type": "object"}},
            "output_schema needs output_mode='structured_output'",
        ),
        (
            {
                "id": "a",
                "model": "p/m",
                "outputMode": "structured_output",
                "outputSchema": {"type": 3},
            },
            "output_schema is not a valid JSON Schema",
        ),
        (
            {"id": "a", "model": "p/m", "inputSchema": {"params": {"type": "array"}}},
            "input_schema['params'] must describe an object",
        ),
        ({"id": "a", "model": "p/m", "inputSchema": {"other": {}}}, "takes 'prompt' and 'params'"),
        ({"id": "a", "model": "p/m", "maxIterations": 0}, "max_iterations must be a number > 0"),
        ({"id": "a", "model": "p/m", "toolNames": "read"}, "expected a list of names"),
        ({"id": "a", "model": "p/m", "handleSteps": "nowhere"}, "'package.module:function'"),
        ({"id": "a", "model": "p/m", "handleSteps": "json:nope"}, "cannot import handle_steps"),
    ],
)
def test_bad_definitions_say_what_is_wrong(data: dict, needle: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        AgentDefinition.from_dict(data, source="agents.json")
    assert needle in str(caught.value)
    assert "agents.json" in str(caught.value)


def test_bad_files_name_the_file(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigurationError, match=r"bad\.json is not valid"):
        load_definitions(bad)
    (tmp_path / "bad.yaml").write_text("id: [unclosed")
    with pytest.raises(ConfigurationError, match="not valid YAML"):
        load_definitions(tmp_path / "bad.yaml")
    (tmp_path / "a.txt").write_text("")
    with pytest.raises(ConfigurationError, match=r"\.json, \.toml, \.yaml or \.yml"):
        load_definitions(tmp_path / "a.txt")
    with pytest.raises(ConfigurationError, match="cannot read agent definitions"):
        load_definitions(tmp_path / "missing.json")
    (tmp_path / "odd.json").write_text('{"agents": 3}')
    with pytest.raises(ConfigurationError, match="an 'agents' list"):
        load_definitions(tmp_path / "odd.json")


@tool
def read(path: str) -> str:
    """Read a file."""
    return path


def test_the_registry_resolves_ids_and_names_what_is_missing() -> None:
    registry = AgentRegistry(
        [
            AgentDefinition("planner", "p/m", spawnable_agents=["finder"]),
            AgentDefinition("finder", "p/m", tools=["read", "grep"]),
        ],
        tools=[read],
    )
    assert registry.get("finder").tools == ("read", "grep")
    with pytest.raises(
        ConfigurationError, match=r"no agent 'nope' is registered; known: \['finder'"
    ):
        registry.get("nope")
    with pytest.raises(ConfigurationError, match=r"names tool\(s\) \['grep'\]"):
        registry.check("planner")
    with pytest.raises(ConfigurationError, match="already registered"):
        registry.register(AgentDefinition("finder", "p/m"))
    lonely = AgentRegistry([AgentDefinition("boss", "p/m", spawnable_agents=["ghost"])])
    with pytest.raises(ConfigurationError, match="may spawn 'ghost', which is not registered"):
        lonely.create("boss")
    with pytest.raises(ConfigurationError, match="is the registry's own"):
        AgentRegistry(tools=[tool(name="task")(_clash)])


def _clash(x: int) -> int:
    return x
