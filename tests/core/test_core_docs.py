"""docs/events.md and docs/processors.md stay true: examples run, field tables match."""

import inspect
import pathlib
import re

import attrs
import pytest

from agentcore.events import EVENT_TYPES, LAYERS

DOCS = pathlib.Path(__file__).parents[2] / "docs"


@pytest.mark.parametrize("name", ["events.md", "processors.md"])
def test_python_examples_run(name: str) -> None:
    text = (DOCS / name).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, name, "exec"), {"__name__": "docs_example"})


def _field_rows(cls: type) -> list[str]:
    rows = []
    for field in attrs.fields(cls):
        if field.name == "timestamp":
            continue
        default = field.default
        if default is attrs.NOTHING:
            shown = "required"
        elif isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            shown = f"`{default.factory.__name__}()`"
        else:
            shown = f"`{default!r}`"
        kind = str(field.type).replace("|", "\\|")
        rows.append(f"| `{field.name}` | `{kind}` | {shown} |")
    return rows


def test_every_core_event_is_documented_with_its_fields() -> None:
    text = (DOCS / "events.md").read_text(encoding="utf-8")
    for name, cls in EVENT_TYPES.items():
        if LAYERS[name] not in ("stream", "message", "state", "turn"):
            continue
        heading = f"### `{name}` ({cls.__name__})"
        assert heading in text, f"{name} is not documented"
        section = text.split(heading, 1)[1].split("\n### ", 1)[0]
        summary = (inspect.getdoc(cls) or "").split("\n\n")[0].replace("\n", " ")
        assert summary.replace("``", "`") in section
        for row in _field_rows(cls):
            assert row in section, f"{name}: missing or stale row {row}"
