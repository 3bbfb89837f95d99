"""What ``from agentcore import Agent`` and a plain run leave out of the interpreter: the
journal's JSON codec (``orjson``, with ``datetime``), ``tempfile`` (with ``shutil`` and
``random``), ``pickle`` and ``hashlib`` are imported when a JSONL journal is written or
read, a snapshot saved or loaded, a blob or a lane named, and those still work then;
pyrsistent's package (its C ``pvector`` is imported straight) only for a price table.
The classes of the path are built by ``records.frozen`` but for those attrs must build,
and their methods are written on first use; ``checks.checked`` plans them on their first
check.
Structural, not timed: the figures are in docs/performance.md."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

LAZY = ("orjson", "tempfile", "shutil", "random", "pickle", "hashlib", "pyrsistent")
"""Imported on first use, never by importing the runtime or by a run without files."""


def _run(code: str) -> dict[str, list[str]]:
    """Run ``code`` in a fresh interpreter; it prints a JSON object of module lists."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    result: dict[str, list[str]] = json.loads(done.stdout.splitlines()[-1])
    return result


_PRELUDE = f"""
import asyncio, json, sys
LAZY = {LAZY!r}
def loaded():
    return sorted(m for m in LAZY if m in sys.modules)
"""


def test_the_package_alone_loads_no_typing() -> None:
    """``typing`` is a few milliseconds: ``import agentcore`` (the names, no runtime) needs
    none of it (``TYPE_CHECKING = False`` stands for ``typing.TYPE_CHECKING``)."""
    code = "import json, sys, agentcore; print(json.dumps({'typing': 'typing' in sys.modules}))"
    assert _run(code) == {"typing": False}


def test_the_agent_import_and_a_plain_run_load_no_lazy_module() -> None:
    code = (
        _PRELUDE
        + """
seen = {}
from agentcore import Agent, MemoryJournal
seen["import"] = loaded()
from agentcore.drivers.scripted import ScriptedDriver, text_turn

async def main():
    agent = Agent(ScriptedDriver([text_turn("hi")]))
    assert (await agent.run("x")).output == "hi"
    seen["plain run"] = loaded()
    agent = Agent(ScriptedDriver([text_turn("hi")]), journal=MemoryJournal(), agent_id="a")
    assert (await agent.run("x")).output == "hi"
    seen["memory journal"] = loaded()

asyncio.run(main())
print(json.dumps(seen))
"""
    )
    assert _run(code) == {"import": [], "plain run": [], "memory journal": []}


def test_a_jsonl_journal_and_file_snapshots_import_what_they_use(tmp_path: pathlib.Path) -> None:
    """Writing, snapshotting and resuming from files brings the lazy modules in, and the
    resumed agent has the state of the one that wrote them."""
    code = (
        _PRELUDE
        + f"""
from agentcore import Agent, JsonlJournal
from agentcore.drivers.scripted import ScriptedDriver, text_turn
from agentcore.journal import FileSnapshots
folder = {str(tmp_path)!r}

async def main():
    journal = JsonlJournal(folder + "/j.jsonl")
    snapshots = FileSnapshots(folder + "/snaps")
    turns = [text_turn("one"), text_turn("two")]
    agent = Agent(
        ScriptedDriver(turns), journal=journal, snapshots=snapshots, snapshot_every=3,
        agent_id="a",
    )
    await agent.prompt("first")
    await agent.prompt("second")
    await agent.aclose()
    assert snapshots.latest("a") is not None
    back = await Agent.resume(
        JsonlJournal(folder + "/j.jsonl"), model=ScriptedDriver([]), snapshots=snapshots
    )
    await back.aclose()
    plain = await Agent.resume(JsonlJournal(folder + "/j.jsonl"), model=ScriptedDriver([]))
    assert back.state.messages == agent.state.messages == plain.state.messages
    assert back.conversation_state == plain.conversation_state

asyncio.run(main())
print(json.dumps({{"after": loaded()}}))
"""
    )
    assert _run(code) == {"after": ["orjson", "pickle", "random", "shutil", "tempfile"]}


def test_the_journal_module_imports_the_sql_layer_on_first_use() -> None:
    """``agentcore.journal``'s SQL names come on first use, with ``sqlite3``."""
    code = """
import json, sys
import agentcore.journal
before = "sqlite3" in sys.modules
from agentcore.journal import SqliteJournal
print(json.dumps({"before": before, "after": "sqlite3" in sys.modules}))
"""
    assert _run(code) == {"before": False, "after": True}


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("SqlJournal", "journal"),
        ("PostgresJournal", "postgres"),
        ("SqlSnapshots", "snapshots"),
        ("SqliteJournal", "sqlite"),
    ],
)
def test_the_journal_module_s_sql_names_are_their_sources(name: str, module: str) -> None:
    import agentcore.journal as journal

    value = getattr(journal, name)
    assert value.__module__ == f"agentcore._journal.sql.{module}"
    assert getattr(sys.modules[value.__module__], name) is value
    assert name in dir(journal)


def test_the_journal_module_has_its_schema_version_and_no_unknown_name() -> None:
    import agentcore.journal as journal

    version = journal.SCHEMA_VERSION
    assert version == sys.modules["agentcore._journal.sql.schema"].SCHEMA_VERSION
    assert type(version) is int and version >= 1
    with pytest.raises(AttributeError, match=r"'agentcore.journal' has no attribute 'Nope'"):
        journal.Nope  # noqa: B018


def test_the_agent_import_writes_the_methods_of_no_class_it_does_not_make() -> None:
    """The classes ``records.frozen`` builds get their ``__init__``, ``__eq__``,
    ``__hash__``, ``__repr__`` and pickling pair on first use: the import writes those of
    the classes it makes (``Usage`` for ``ZERO_USAGE``, the guardrails' passing ``Verdict``);
    a plain run writes those of the
    classes it makes, and they work as written."""
    code = """
import asyncio, json, sys
from agentcore import Agent
from agentcore._core.records import _Unwritten

def written():
    classes = {c for name, m in list(sys.modules.items()) if name.startswith("agentcore.")
               for c in vars(m).values() if isinstance(c, type)}
    unwritten = {c for c in classes if isinstance(vars(c).get("__signature__"), _Unwritten)}
    done = {c for c in classes - unwritten if "<frozen generated init" in
            getattr(getattr(c.__init__, "__code__", None), "co_filename", "")}
    return len(unwritten | done), sorted(c.__name__ for c in done)

seen = {"import": written()}
from agentcore.drivers.scripted import ScriptedDriver, text_turn

async def main():
    agent = Agent(ScriptedDriver([text_turn("hi")]))
    assert (await agent.run("x")).output == "hi"

asyncio.run(main())
seen["run"] = written()
print(json.dumps(seen))
"""
    seen = _run(code)
    (built, at_import), (_, after_run) = seen["import"], seen["run"]
    assert built >= 100
    assert at_import == ["Usage", "Verdict"]
    assert {"TextDelta", "UserMessage"} <= set(after_run) and len(after_run) < built / 2


def test_the_agent_import_builds_its_named_tuples_with_records() -> None:
    """The processors' states (``class State(NamedTuple)``) are built by
    ``records.NamedTuple``, whose ``__new__`` is written out for up to eight fields, not
    by ``typing.NamedTuple`` (a ``__new__`` compiled and every annotation made a
    ``ForwardRef`` for each class, 100-200 µs); the import's builders take their code
    from ``builder_code`` (written out), compiling none."""
    code = """
import json, sys
from agentcore import Agent
from agentcore._core import records

states = {c.__name__: c.__new__.__code__.co_filename for name, m in list(sys.modules.items())
          if name.startswith("agentcore.") for c in vars(m).values()
          if isinstance(c, type) and issubclass(c, tuple) and hasattr(c, "_fields")
          and c.__module__ == name}
from agentcore._core import builder_code
compiled = [n for n, code in records.BUILDERS.items() if code.co_filename != builder_code.__file__]
print(json.dumps({"states": len(states), "others": sorted(
    name for name, file in states.items() if file != records.__file__),
    "builders": len(records.BUILDERS), "compiled": compiled}))
"""
    seen = _run(code)
    assert seen["states"] >= 9 and seen["others"] == []
    assert seen["builders"] >= 10 and seen["compiled"] == []  # builders' code: the .pyc's


ATTRIBUTES_MADE = {"Usage", "Batch", "Run", "LoopState", "_Reference"}
"""The classes whose ``attrs.Attribute``s the import makes (about 60 µs a class): those it
makes an instance of (``Usage``), reads the fields of (``_loop.state``'s replacers) or
attrs built. Builders and the constants that need only the names (``records.builder``,
``records.field_names``) read them off the definition."""


def test_the_agent_import_makes_the_attributes_of_few_classes() -> None:
    code = """
import json, sys
from agentcore import Agent
from agentcore._core.records import _Pending

made = {c.__name__ for name, m in list(sys.modules.items()) if name.startswith("agentcore.")
        for c in vars(m).values() if isinstance(c, type) and c.__module__ == name
        and "__attrs_attrs__" in vars(c) and not isinstance(vars(c)["__attrs_attrs__"], _Pending)}
print(json.dumps({"made": sorted(made)}))
"""
    assert set(_run(code)["made"]) <= ATTRIBUTES_MADE


ATTRS_BUILT = {"_Reference"}
"""The classes of ``from agentcore import Agent`` that attrs itself builds (about 0.4 ms a
class, its methods compiled when defined): only ``records._Reference``, the attrs class
``frozen`` takes its shared methods from. A class with an option ``frozen`` refuses (a
base class with fields, a mutable class, a converter on an ``init=False`` field) would
be one more."""


def test_the_agent_import_leaves_to_attrs_only_the_classes_frozen_refuses() -> None:
    """Every other class of the path is built by ``records.frozen`` (methods on first
    use): a class moved back to ``attrs.frozen`` fails here."""
    code = """
import json, sys
import attrs
from agentcore import Agent
from agentcore._core.records import _Unwritten

def generated(c):
    code = getattr(c.__init__, "__code__", None)
    return code is not None and code.co_filename.startswith("<frozen generated init")

classes = {c for name, m in list(sys.modules.items()) if name.startswith("agentcore.")
           for c in vars(m).values() if isinstance(c, type) and c.__module__ == name}
frozen = {c for c in classes if isinstance(vars(c).get("__signature__"), _Unwritten)
          or generated(c)}
print(json.dumps({"attrs": sorted(c.__name__ for c in classes - frozen if attrs.has(c)),
                  "frozen": len(frozen)}))
"""
    seen = _run(code)
    assert set(seen["attrs"]) == ATTRS_BUILT
    assert seen["frozen"] >= 120


def test_the_agent_import_resolves_no_annotation_and_makes_no_checked_plan() -> None:
    """``checks.checked`` plans the package's classes on their first check: the import
    calls no ``typing.get_type_hints`` and leaves every ``__checked_plan__`` to be made; a
    plain run makes the plans of the classes it checks with the generic check."""
    code = """
import asyncio, json, sys, typing
calls = []
real = typing.get_type_hints

def counted(obj, *args, **kwargs):
    calls.append(obj.__qualname__)
    return real(obj, *args, **kwargs)

typing.get_type_hints = counted
from agentcore import Agent
from agentcore._core.checks import _Plan

def planned():
    return sorted({c.__qualname__ for name, m in list(sys.modules.items())
                   if name.startswith("agentcore.") for c in vars(m).values()
                   if isinstance(c, type) and isinstance(vars(c).get("__checked_plan__"), _Plan)})

seen = {"hints": list(calls), "plans": planned()}
from agentcore.drivers.scripted import ScriptedDriver, text_turn

async def main():
    agent = Agent(ScriptedDriver([text_turn("hi")]))
    assert (await agent.run("x")).output == "hi"

asyncio.run(main())
seen["planned by a run"] = planned()
print(json.dumps(seen))
"""
    seen = _run(code)
    assert (seen["hints"], seen["plans"]) == ([], [])
    assert seen["planned by a run"] != []


def test_the_agent_import_leaves_out_the_blobs_jiter_dataclasses_and_numbers() -> None:
    """The journals' media store (``_journal.blobs``) comes with the first journal, the
    partial-JSON parser (``jiter``) with the first structured answer, ``dataclasses`` and
    ``numbers`` when a tool's schema reads a dataclass or a rarer number; each works then
    (tests/loop/test_tool_schema.py holds ``_is_number`` to ``numbers.Number``)."""
    code = """
import json, sys
WATCHED = ("agentcore._journal.blobs", "jiter", "dataclasses", "numbers")
seen = {}
from agentcore import Agent, MemoryJournal
seen["import"] = [m for m in WATCHED if m in sys.modules]
journal = MemoryJournal()
assert journal.blobs is not None
seen["a journal"] = [m for m in WATCHED if m in sys.modules]
from agentcore.loop import parse_partial
assert parse_partial('{"a": "b') == {"a": "b"}
seen["a partial answer"] = [m for m in WATCHED if m in sys.modules]
print(json.dumps(seen))
"""
    assert _run(code) == {
        "import": [],
        "a journal": ["agentcore._journal.blobs"],
        "a partial answer": ["agentcore._journal.blobs", "jiter"],
    }


def test_the_agent_import_leaves_out_the_snapshot_store_resume_and_replay() -> None:
    """``_journal.snapshots``, ``_journal.resume`` and ``_journal.replay`` come with the
    first snapshot or resume, not with the runtime: a plain run and a journaled one
    without snapshots leave them out; an agent saving snapshots brings them, and its
    snapshot loads back."""
    code = """
import asyncio, json, sys
WATCHED = ("agentcore._journal.snapshots", "agentcore._journal.resume",
           "agentcore._journal.replay")
def loaded():
    return [m for m in WATCHED if m in sys.modules]
seen = {}
from agentcore import Agent, MemoryJournal
seen["import"] = loaded()
from agentcore.drivers.scripted import ScriptedDriver, text_turn

async def main():
    agent = Agent(ScriptedDriver([text_turn("hi")]), journal=MemoryJournal(), agent_id="a")
    assert (await agent.run("x")).output == "hi"
    seen["journaled run"] = loaded()
    from agentcore.journal import MemorySnapshots, load_state
    store = MemorySnapshots()
    agent = Agent(ScriptedDriver([text_turn("hi")]), journal=MemoryJournal(), agent_id="b",
                  snapshots=store, snapshot_every=1)
    assert (await agent.run("x")).output == "hi"
    _, data = store.latest("b")
    assert type(load_state(data, agent.initial_state())) is type(agent.initial_state())

asyncio.run(main())
seen["snapshots"] = loaded()
print(json.dumps(seen))
"""
    assert _run(code) == {
        "import": [],
        "journaled run": [],
        "snapshots": [
            "agentcore._journal.snapshots",
            "agentcore._journal.resume",
            "agentcore._journal.replay",
        ],
    }


def test_the_secret_pattern_is_compiled_on_the_first_text_that_may_hold_a_key() -> None:
    """``SECRET_PATTERN`` and its bytes twin are compiled when a text or a line first
    holds one of the pattern's fixed parts, not by the import nor by a plain run's text;
    then they scrub as before."""
    code = """
import asyncio, json
from agentcore import Agent
from agentcore._core import secrets
def compiled():
    return [secrets._secret.cache_info().currsize, secrets._secret_bytes.cache_info().currsize]
seen = {"import": compiled()}
from agentcore.drivers.scripted import ScriptedDriver, text_turn
agent = Agent(ScriptedDriver([text_turn("hi")]))
assert asyncio.run(agent.run("x")).output == "hi"
seen["plain run"] = compiled()
key = "sk-" + "a1" * 12
assert secrets.scrub(f"key {key}.") == "key [REDACTED]."
assert secrets.scrub_bytes(f"key {key}.".encode()) == b"key [REDACTED]."
seen["scrubbed"] = compiled()
print(json.dumps(seen))
"""
    assert _run(code) == {"import": [0, 0], "plain run": [0, 0], "scrubbed": [1, 1]}


def test_the_fallback_chain_comes_with_the_first_list_of_models() -> None:
    """``_runtime.fallback`` is imported by a list of models (or by its public name), not
    by the runtime: a plain run leaves it out, a chain answers through it."""
    code = """
import asyncio, json, sys
FALLBACK = "agentcore._runtime.fallback"
from agentcore import Agent
seen = {"import": FALLBACK in sys.modules}
from agentcore.drivers.scripted import ScriptedDriver, text_turn
assert asyncio.run(Agent(ScriptedDriver([text_turn("hi")])).run("x")).output == "hi"
seen["plain run"] = FALLBACK in sys.modules
agent = Agent([ScriptedDriver([text_turn("chained")])])
assert asyncio.run(agent.run("x")).output == "chained"
seen["chain"] = FALLBACK in sys.modules
print(json.dumps(seen))
"""
    assert _run(code) == {"import": False, "plain run": False, "chain": True}
