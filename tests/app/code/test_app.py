"""The coding agent's controller, in process: prompts, steering, approvals, interrupts,
commands and resuming, with a scripted model, the real tools and a JSONL session.

Tests the private module ``agentcore._app.code``: the ``agentcore code`` app's own parts."""

from __future__ import annotations

import asyncio
import json
import pathlib
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pytest

from agentcore import ModelPrice
from agentcore._app.code.app import HELP, CodeApp
from agentcore._app.code.script import load_script, script_driver
from agentcore._app.code.sessions import JsonlSessions
from agentcore._app.code.setup import approval_reason, close_agent, open_agent
from agentcore.events import ToolCallPart
from agentcore.journal import read_jsonl

FREE = ModelPrice(input=0.0, output=0.0)
PUSH = "git push origin feature"  # asked about by default (no remote here: it fails)
FORCED = "git push --force origin main"  # the bash guard blocks it


class Screen:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.cleared = 0

    def print(self, lines: Sequence[Any]) -> None:
        self.lines += ["".join(text for text, _ in line) for line in lines]

    def changed(self) -> None:
        pass

    def clear(self) -> None:
        self.cleared += 1

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "args": {"command": command}}


async def start(
    tmp_path: pathlib.Path,
    replies: list[dict[str, Any]],
    *,
    approval: str = "destructive",
    resume: str | None = None,
    guard: bool = True,
) -> tuple[CodeApp, Screen]:
    """The app on a scripted model playing ``replies`` (also the model of the explorer
    sub-agent: the script is saved, and the session's model is ``script/<its path>``)."""
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": replies}))
    model = f"script/{script}"
    store = JsonlSessions(tmp_path / "sessions")
    session = store.open(resume) if resume else store.create(str(workspace), model)
    screen = Screen()

    async def switch(name: str) -> Any:
        assert app.agent is not None
        await close_agent(app.agent)
        other = script_driver(load_script({"replies": [{"steps": [{"text": f"I am {name}"}]}]}))
        return await open_agent(session, name, other, FREE, app, resumed=True, guard=guard)

    app = CodeApp(screen, session, store, approval=approval, guard=guard, switch_model=switch)  # type: ignore[arg-type]
    driver = script_driver(load_script(script))
    agent = await open_agent(
        session, model, driver, FREE, app, resumed=resume is not None, guard=guard
    )
    app.attach(agent, resumed=resume is not None)
    return app, screen


async def until(check: Callable[[], Any], timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.01)


async def settled(app: CodeApp) -> None:
    await until(lambda: not app.running)


def test_a_prompt_streams_its_reply_and_titles_the_session(tmp_path: pathlib.Path) -> None:
    async def main() -> None:
        app, screen = await start(tmp_path, [{"steps": [{"text": "Hello\nthere."}]}])
        app.submit("say hello\nplease")
        await settled(app)
        assert screen.lines[-4:] == [" ", "> say hello", "  please", "Hello", "there."][-4:]
        assert app.session.info.title == "say hello"
        assert app.store.list()[0].title == "say hello"
        app.session = attrs.evolve(app.session, info=attrs.evolve(app.session.info, title=""))
        app.submit("try sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 please")
        await settled(app)
        assert app.store.list()[0].title == "try [REDACTED] please"  # as in the journal
        activity, footer = app.status()
        assert (
            activity == ""
            and footer.startswith("script/")
            and " · " in footer
            and "$0.0000" in footer
        )
        await app.close()

    asyncio.run(main())


def test_a_line_typed_while_it_works_steers_it(tmp_path: pathlib.Path) -> None:
    replies = [
        {"when": "slow", "steps": [{"text": "a b c d e f g h i j k", "delay": 0.05}]},
        {"when": "instead", "steps": [{"text": "Steered."}]},
    ]

    async def main() -> None:
        app, screen = await start(tmp_path, replies)
        app.submit("go slow")
        await until(lambda: app.view.partial)
        app.submit("do this instead")
        assert app.queued() == ["do this instead"]
        assert app.running and app.status()[0] in ("responding", "thinking")
        await settled(app)
        assert app.queued() == []
        text = screen.text
        assert text.index("a b c d e f g h i j k") < text.index("> do this instead")
        assert screen.lines[-1] == "Steered."
        await app.close()

    asyncio.run(main())


def test_destructive_commands_ask_and_the_answers_decide(tmp_path: pathlib.Path) -> None:
    replies = [
        {
            "when": "push",
            "steps": [
                {"tools": [bash("echo safe"), bash(PUSH)]},
                {"tools": [bash(PUSH)]},
                {"tools": [bash(PUSH)]},
                {"text": "Done."},
            ],
        }
    ]

    async def main() -> None:
        app, screen = await start(tmp_path, replies)
        app.submit("push it")
        await until(lambda: app.asking is not None)
        assert app.asking is not None and app.asking.call.input == {"command": PUSH}
        assert app.asking.reason == "risky: git push publishes to a remote"
        assert app.status()[0] == "waiting for your decision"
        app.answer("n")
        await until(lambda: app.asking is not None and "[rejected]" in screen.text)
        app.answer("y")
        await until(lambda: app.asking is not None and "[approved]" in screen.text)
        app.answer("a")  # and every later bash call
        await settled(app)
        assert app.always == {"bash"} and screen.lines[-1] == "Done."
        text = screen.text
        assert "The user rejected this call" in text and "the user said no" in text
        assert text.count("● bash  $ " + PUSH) == 3 + 3  # asked about, and ran or refused
        assert "[approved (and every bash call)]" in text
        assert "  ⎿ safe" in text
        await app.close()
        decisions = [
            (e.event.tool_call_id, e.event.approved)
            for e in read_jsonl(app.session.journal.path)
            if e.event.type == "tool_approval"
        ]
        assert decisions == [
            ("call_1_0", True),  # echo safe: let through at once
            ("call_1_1", False),
            ("call_2_0", True),
            ("call_3_0", True),
        ]

    asyncio.run(main())


@pytest.mark.parametrize(
    ("mode", "name", "args", "asked"),
    [
        ("destructive", "edit", {"path": "a", "old_text": "x", "new_text": "y"}, None),
        ("destructive", "bash", {"command": "rm -rf build"}, "risky: rm deletes build"),
        ("destructive", "bash", {"command": "pytest -q"}, None),
        ("destructive", "bash", {"command": "rm -rf ~"}, None),  # the guard blocks it, unasked
        ("all", "bash", {"command": "rm -rf ~"}, None),
        ("all", "edit", {"path": "a", "old_text": "x", "new_text": "y"}, "every change"),
        ("all", "read", {"path": "a"}, None),
        ("none", "bash", {"command": "rm -rf /"}, None),
    ],
)
def test_approval_reason(mode: Any, name: str, args: dict[str, Any], asked: str | None) -> None:
    reason = approval_reason(mode, ToolCallPart("c", name, args))
    assert reason is None if asked is None else reason is not None and reason.startswith(asked)


def test_without_the_guard_what_it_would_block_is_asked_about() -> None:
    call = ToolCallPart("c", "bash", {"command": "rm -rf ~"})
    assert (
        approval_reason("destructive", call, guarded=False) == "risky: rm -r on the home directory"
    )
    assert approval_reason("none", call, guarded=False) is None


def test_ctrl_c_aborts_the_run_then_quits(tmp_path: pathlib.Path) -> None:
    replies = [{"steps": [{"text": "word " * 200, "delay": 0.02}]}]

    async def main() -> None:
        app, screen = await start(tmp_path, replies)
        app.submit("talk")
        await until(lambda: "word" in app.view.partial)
        app.interrupt()
        await settled(app)
        assert "⏹ interrupted" in screen.lines and app.armed and not app.finished.is_set()
        app.disarm()
        app.interrupt()  # disarmed by a key in between: arms again
        assert app.armed and not app.finished.is_set()
        app.interrupt()
        assert app.finished.is_set()
        await app.close()

    asyncio.run(main())


def test_ctrl_c_during_a_question_aborts_the_run(tmp_path: pathlib.Path) -> None:
    replies = [{"steps": [{"tools": [bash(PUSH)]}, {"text": "never"}]}]

    async def main() -> None:
        app, screen = await start(tmp_path, replies)
        app.submit("push")
        await until(lambda: app.asking is not None)
        app.interrupt()
        await settled(app)
        assert app.asking is None and "[aborted]" in screen.text
        assert "never" not in screen.lines and not app.agent.state.pending_approvals  # type: ignore[union-attr]
        await app.close()

    asyncio.run(main())


def test_commands(tmp_path: pathlib.Path) -> None:
    replies = [{"steps": [{"text": "slow " * 50, "delay": 0.02}]}]

    async def main() -> None:
        app, screen = await start(tmp_path, replies)
        app.submit("/help")
        assert screen.lines[-len(HELP.splitlines()) :] == HELP.splitlines()
        app.submit("/approval all")
        assert app.approval == "all" and screen.lines[-1] == "approval: all"
        app.submit("/approval maybe")
        assert app.approval == "all" and "unknown approval mode 'maybe'" in screen.lines[-1]
        app.submit("/session")
        assert screen.lines[-1] == f"resume it with: agentcore code --session {app.session.info.id}"
        app.submit("/cost")
        assert screen.lines[-1].endswith("0 in / 0 out · $0.0000")
        app.submit("/clear")
        assert screen.cleared == 1
        app.submit("/what")
        assert screen.lines[-1] == "unknown command /what; /help lists them"
        app.submit("talk")
        await until(lambda: app.view.partial)
        app.submit("/reset")
        assert screen.lines[-1] == "/reset waits until the agent is idle (Ctrl-C interrupts it)"
        await settled(app)
        app.submit("/reset")
        assert app.agent is not None and app.agent.state.messages == ()
        app.submit("/model")
        assert screen.lines[-1] == "model: " + app.session.info.model
        app.submit("/model script/other")
        await settled(app)
        assert screen.lines[-1] == "model: script/other"
        app.submit("hello")
        await settled(app)
        assert screen.lines[-1] == "I am script/other"
        assert app.store.list()[0].model == "script/other"
        app.submit("/quit")
        assert app.finished.is_set()
        await app.close()

    asyncio.run(main())


def test_a_question_open_when_the_process_died_is_asked_again(tmp_path: pathlib.Path) -> None:
    replies = [
        {
            "steps": [
                {"tools": [{"name": "todo_write", "args": {"todos": [{"content": "push"}]}}]},
                {"tools": [bash(PUSH)]},
                {"text": "Pushed, or tried."},
            ]
        }
    ]

    async def first() -> str:
        app, _ = await start(tmp_path, replies)
        app.submit("push")
        await until(lambda: app.asking is not None)
        assert app._task is not None
        app._task.cancel()  # the process dies with the question open
        app.session.journal.close()  # the OS lets its lock go
        return app.session.info.id

    session_id = asyncio.run(first())

    async def second() -> None:
        app, screen = await start(tmp_path, replies, resume=session_id)
        assert "> push" in screen.lines and "(resumed session " + session_id + ")" in screen.text
        await until(lambda: app.asking is not None)
        assert app.asking is not None and app.asking.call.input == {"command": PUSH}
        app.answer("y")
        await settled(app)
        assert screen.lines[-1] == "Pushed, or tried."
        tools = {t.name: t for t in app.agent.config.tools}  # type: ignore[union-attr]
        assert tools["bash"].requires_approval and tools["read"].idempotent
        await app.close()

    asyncio.run(second())


def test_ctrl_c_stops_a_running_command(tmp_path: pathlib.Path) -> None:
    replies = [{"steps": [{"tools": [bash("sleep 30; echo never")]}, {"text": "after"}]}]

    async def main() -> None:
        app, screen = await start(tmp_path, replies)
        app.submit("wait")
        await until(lambda: app.view.running)
        assert app.status()[0] == "running bash"
        began = asyncio.get_running_loop().time()
        app.interrupt()
        await settled(app)
        assert asyncio.get_running_loop().time() - began < 5
        assert "⏹ interrupted" in screen.lines and "after" not in screen.lines
        assert "  ⎿ The call was cancelled before it finished: the run was stopped." in screen.lines
        assert "  ⎿ never" not in screen.lines and "    never" not in screen.lines
        assert app.view.running == ()
        await app.close()

    asyncio.run(main())
