"""Cases and datasets: what an eval runs.

A ``Case`` is either a recorded session (``entries``: the journal entries of one agent's
lane and of every sub-agent under it, ``agent_id`` its root) or a hand-written list of
``inputs`` (prompts, steering, follow-ups, approvals) with no recording, plus the
``evaluators`` that judge a run of it. ``record_case`` takes a session from any journal
(memory, JSONL, SQLite, PostgreSQL: whatever ``entries_of`` reads); ``load_dataset``
reads a dataset: a JSON or YAML file of cases, or a folder of such files.

On disk a case is a mapping: ``name``, then ``agent_id`` and ``entries`` (each entry
``{"agent_id", "seq", "event"}`` with the event in its wire form, as a JSONL journal
line) or ``journal`` (a journal file's path, relative to the dataset file) for a
recording, or ``inputs`` for a hand-written case; ``expect`` lists evaluators as data
(``evaluators.evaluator_of``). A file holds one case, a list, or ``{"cases": [...]}``.
"""

from __future__ import annotations

import json
import os
import pathlib
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from .._core.errors import ConfigurationError
from .._core.events import UserMessage
from .._core.wire import from_dict, to_dict
from .._journal.journal import JournalEntry
from .._journal.replay import JournalSource, entries_of
from .._loop.events import AgentAbort, AgentFollowUp, AgentPrompt, AgentSteer, ToolApproval

__all__ = [
    "Case",
    "case_data",
    "inputs_of",
    "load_dataset",
    "record_case",
    "save_case",
    "spawned_by",
    "tree_of",
]


def _tuple(items: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(items)


def _inputs(items: Iterable[Any]) -> tuple[Any, ...]:
    return inputs_of(items)


@attrs.frozen(kw_only=True)
class Case:
    """One eval case (module docstring). ``inputs`` are commands or their short forms
    (``inputs_of``); ``expect`` holds evaluators (objects or data)."""

    name: str
    agent_id: str = "agent"
    entries: tuple[JournalEntry, ...] = attrs.field(default=(), converter=_tuple)
    inputs: tuple[Any, ...] = attrs.field(default=(), converter=_inputs)
    expect: tuple[Any, ...] = attrs.field(default=(), converter=_tuple)

    @property
    def recorded(self) -> bool:
        """Whether the case is a recorded session (else hand-written inputs)."""
        return bool(self.entries)

    def lane(self) -> list[JournalEntry]:
        """The root agent's entries, in order."""
        return [e for e in self.entries if e.agent_id == self.agent_id]


def tree_of(agent_id: str, lane: str) -> bool:
    """Whether ``lane`` is ``agent_id``'s or one of its sub-agents' (``root/call.n``)."""
    return lane == agent_id or lane.startswith(agent_id + "/")


def spawned_by(agent_id: str, lane: str) -> str | None:
    """The id of ``agent_id``'s tool call that spawned the sub-agent lane ``lane``
    (``root/call`` for one child, ``root/call.n`` for several, grandchildren below them),
    or None when ``lane`` is not below ``agent_id``."""
    if not lane.startswith(agent_id + "/"):
        return None
    child = lane[len(agent_id) + 1 :].split("/")[0]
    return child.rpartition(".")[0] if child.rpartition(".")[2].isdigit() else child


def record_case(
    source: JournalSource,
    agent_id: str | None = None,
    *,
    name: str | None = None,
    expect: Sequence[Any] = (),
) -> Case:
    """The session ``agent_id`` of ``source`` (with its sub-agents' lanes) as a case.

    Without ``agent_id`` the journal must hold one root agent. Raises
    ``ConfigurationError`` naming the agents the journal holds when it is not there."""
    entries = list(entries_of(source))
    roots = list(dict.fromkeys(e.agent_id for e in entries if "/" not in e.agent_id))
    if agent_id is None:
        if not roots:
            raise ConfigurationError("the journal holds no session: it is empty")
        if len(roots) != 1:
            raise ConfigurationError(
                f"the journal holds {len(roots)} root agents {roots}: name one with agent_id="
            )
        agent_id = roots[0]
    tree = tuple(e for e in entries if tree_of(agent_id, e.agent_id))
    if not any(e.agent_id == agent_id for e in tree):
        raise ConfigurationError(
            f"the journal holds no session {agent_id!r}; it holds {roots or 'none'}"
        )
    return Case(name=name or agent_id, agent_id=agent_id, entries=tree, expect=tuple(expect))


def inputs_of(items: Iterable[Any]) -> tuple[Any, ...]:
    """Hand-written inputs as commands: a string is a prompt; ``{"prompt"|"steer"|
    "follow_up": text}``, ``{"approve": true|false, "reason": ...}`` (every call that
    waits then), ``{"abort": reason}``; commands (``AgentPrompt``...) pass as they are."""
    commands: list[Any] = []
    for item in items:
        if isinstance(item, str):
            commands.append(AgentPrompt((UserMessage("", item),)))
        elif isinstance(item, Mapping):
            commands.append(_command(item))
        else:
            commands.append(item)
    return tuple(commands)


def _command(item: Mapping[str, Any]) -> Any:
    if "prompt" in item:
        return AgentPrompt((UserMessage("", str(item["prompt"])),))
    if "steer" in item:
        return AgentSteer(UserMessage("", str(item["steer"])))
    if "follow_up" in item:
        return AgentFollowUp(UserMessage("", str(item["follow_up"])))
    if "approve" in item:
        return ToolApproval("*", bool(item["approve"]), item.get("reason"))
    if "abort" in item:
        return AgentAbort(str(item["abort"] or "user"))
    raise ConfigurationError(
        f"an input is a prompt string or a mapping with one of prompt, steer, follow_up, "
        f"approve, abort; got {dict(item)!r}"
    )


# -- on disk -------------------------------------------------------------------------------


def _entry_data(entry: JournalEntry) -> dict[str, Any]:
    return {"agent_id": entry.agent_id, "seq": entry.seq, "event": to_dict(entry.event)}


def case_data(case: Case) -> dict[str, Any]:
    """``case`` as JSON data (evaluators given as data are kept; objects are not)."""
    data: dict[str, Any] = {"name": case.name, "agent_id": case.agent_id}
    if case.entries:
        data["entries"] = [_entry_data(e) for e in case.entries]
    if case.inputs:
        data["inputs"] = [to_dict(i) for i in case.inputs]
    expect = [e for e in case.expect if isinstance(e, Mapping)]
    if expect:
        data["expect"] = expect
    return data


def save_case(case: Case, path: str | os.PathLike[str]) -> pathlib.Path:
    """Write ``case`` as a JSON file (a temporary file beside it, then renamed)."""
    target = pathlib.Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(case_data(case), ensure_ascii=False, indent=1)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, target)
    return target


def _read(path: pathlib.Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise ConfigurationError(
                f"{path}: reading YAML needs PyYAML: pip install 'agentcore-engine[yaml]'"
            ) from None
        return yaml.safe_load(text)
    try:
        return json.loads(text)
    except ValueError as exc:
        if path.suffix.lower() == ".jsonl":  # a journal given where a case belongs
            raise ConfigurationError(
                f"{path} is a journal, not a dataset: save a session of it as a case first "
                f"(agentcore eval record {path} -o cases/NAME.json)"
            ) from None
        raise ConfigurationError(f"{path} is not valid JSON: {exc}") from None


def _case(data: Any, where: str, base: pathlib.Path) -> Case:
    if not isinstance(data, Mapping):
        raise ConfigurationError(f"{where}: a case is a mapping, got {data!r}")
    known = {"name", "agent_id", "entries", "journal", "inputs", "expect"}
    unknown = set(data) - known
    if unknown:
        raise ConfigurationError(
            f"{where}: unknown key(s) {sorted(unknown)}; known {sorted(known)}"
        )
    name = str(data.get("name") or where)
    expect = tuple(data.get("expect") or ())
    if "journal" in data:
        journal = base / str(data["journal"])
        return record_case(journal, data.get("agent_id"), name=name, expect=expect)
    entries = tuple(
        JournalEntry(str(e["agent_id"]), int(e["seq"]), from_dict(e["event"]))
        for e in data.get("entries") or ()
    )
    inputs = tuple(from_dict(i) if _is_event(i) else i for i in data.get("inputs") or ())
    if not entries and not inputs:
        raise ConfigurationError(f"{where}: a case needs entries, journal or inputs")
    agent_id = str(data.get("agent_id") or (entries[0].agent_id if entries else "agent"))
    return Case(name=name, agent_id=agent_id, entries=entries, inputs=inputs, expect=expect)


def _is_event(value: Any) -> bool:
    return isinstance(value, Mapping) and "type" in value and "data" in value


def _cases_in(path: pathlib.Path) -> list[Case]:
    data = _read(path)
    if isinstance(data, Mapping) and "cases" in data:
        data = data["cases"]
    items = data if isinstance(data, list) else [data]
    return [_case(item, f"{path.name} case #{i + 1}", path.parent) for i, item in enumerate(items)]


def load_dataset(path: str | os.PathLike[str]) -> list[Case]:
    """The cases of a dataset: a JSON/YAML file, or every such file in a folder (sorted).
    Raises ``ConfigurationError`` naming the file and what is wrong; case names must be
    unique."""
    root = pathlib.Path(path)
    if root.is_dir():
        files = sorted(p for p in root.iterdir() if p.suffix.lower() in (".json", ".yaml", ".yml"))
        cases = [case for file in files for case in _cases_in(file)]
    elif root.exists():
        cases = _cases_in(root)
    else:
        raise ConfigurationError(f"no dataset at {root}")
    names = [c.name for c in cases]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigurationError(f"dataset {root}: case name(s) {twice} appear more than once")
    return cases
