"""What ``agentcore code`` runs with by default: the bash guard, the tool logger, context
info and the ``task`` tool with its read-only explorer, each seen working end to end
through the app (a scripted model, the real tools, a JSONL session).

Tests the private module ``agentcore._app.code``: the ``agentcore code`` app's own parts."""

from __future__ import annotations

import asyncio
import json
import pathlib
import subprocess
from typing import Any

from agentcore._app.code.app import CodeApp
from agentcore._app.code.sessions import JsonlSessions
from agentcore._app.code.setup import EXPLORER, open_agent
from agentcore.drivers.scripted import FunctionDriver, text_turn

from .test_app import FORCED, FREE, Screen, bash, settled, start, until


def test_the_bash_guard_blocks_unasked_and_the_screen_says_so(tmp_path: pathlib.Path) -> None:
    blocked = f"touch ran && {FORCED}"  # a chain is read whole: nothing of it runs
    replies = [{"steps": [{"tools": [bash(blocked)]}, {"text": "Left it."}]}]

    async def main() -> None:
        app, screen = await start(tmp_path, replies)  # --approval destructive, guard on
        app.submit("push")
        await settled(app)
        assert app.asking is None and "[approved]" not in screen.text
        assert "  ⎿ ⛔ Blocked by the bash guard: git push --force to main" in screen.lines
        assert screen.lines[-1] == "Left it."
        assert not (tmp_path / "ws" / "ran").exists()
        result = app.agent.state.messages[2]  # type: ignore[union-attr]
        assert result.is_error and result.details["blocked"] is True
        assert "The command was not run" in result.result
        await app.close()

    asyncio.run(main())


def test_without_the_guard_the_command_is_asked_about_and_may_run(
    tmp_path: pathlib.Path,
) -> None:
    command = f"touch ran; {FORCED}"
    replies = [{"steps": [{"tools": [bash(command)]}, {"text": "Tried."}]}]

    async def main() -> None:
        app, screen = await start(tmp_path, replies, guard=False)
        app.submit("push")
        await until(lambda: app.asking is not None)
        assert app.asking is not None and app.asking.reason == "risky: git push --force to main"
        app.answer("y")
        await settled(app)
        assert (tmp_path / "ws" / "ran").exists()  # it ran (the push itself fails: no repo)
        assert "⛔" not in screen.text and screen.lines[-1] == "Tried."
        await app.close()

    asyncio.run(main())


def test_the_tool_logger_writes_the_session_log(tmp_path: pathlib.Path) -> None:
    replies = [{"steps": [{"tools": [bash("echo hi"), bash("exit 3")]}, {"text": "ok"}]}]

    async def main() -> None:
        app, screen = await start(tmp_path, replies)
        app.submit("go")
        await settled(app)
        app.submit("/session")
        log = app.session.log
        assert log is not None and f"tool calls logged to {log}" in screen.text
        entries = [json.loads(line) for line in log.read_text().splitlines()]
        starts = {e["tool_call_id"]: e for e in entries if e["type"] == "start"}
        ends = {e["tool_call_id"]: e for e in entries if e["type"] == "end"}
        assert starts.keys() == ends.keys() == {"call_1_0", "call_1_1"}
        assert starts["call_1_0"]["args"] == {"command": "echo hi"}
        assert ends["call_1_0"]["is_error"] is False and ends["call_1_1"]["is_error"] is True
        assert all(e["tool_name"] == "bash" and "T" in e["time"] for e in entries)
        assert all(e["duration_ms"] >= 0 for e in ends.values())
        await app.close()
        app.store.discard(app.session.info.id)
        assert not log.exists()

    asyncio.run(main())


def test_context_info_tells_the_model_the_workspace_and_branch(tmp_path: pathlib.Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "topic"], cwd=workspace, check=True)
    seen: list[Any] = []

    def model(request: Any) -> Any:
        seen.append(request)
        return text_turn("ok")

    async def main() -> None:
        store = JsonlSessions(tmp_path / "sessions")
        session = store.create(str(workspace), "script/none")
        screen = Screen()
        app = CodeApp(screen, session, store)  # type: ignore[arg-type]
        agent = await open_agent(
            session, "script/none", FunctionDriver(model), FREE, app, resumed=False
        )
        app.attach(agent, resumed=False)
        app.submit("hello")
        await settled(app)
        note = seen[0].messages[0].content
        assert note.startswith("<context>") and f"Working directory: {workspace}" in note
        assert "Git branch: topic" in note and "Current time: " in note
        assert [m.content for m in agent.state.messages[:1]] == ["hello"]  # history unchanged
        await app.close()

    asyncio.run(main())


def test_the_task_tool_runs_the_read_only_explorer(tmp_path: pathlib.Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    question = "Survey: where is add defined?"
    replies = [
        {  # the explorer's prompt: the same scripted model answers the sub-agent
            "when": "survey",
            "steps": [
                {"tools": [{"name": "grep", "args": {"pattern": "def add"}}]},
                {  # the pause comes before this step: meanwhile the explorer's grep shows
                    "tools": [{"name": "write", "args": {"path": "x.txt", "content": "no"}}],
                    "pause": 0.3,
                },
                {"text": "add is defined in calc.py:1."},
            ],
        },
        {
            "when": "where",
            "steps": [
                {
                    "tools": [
                        {
                            "name": "task",
                            "args": {
                                "description": "find add",
                                "prompt": question,
                                "subagent_type": EXPLORER,
                            },
                        }
                    ]
                },
                {"text": "The explorer found it."},
            ],
        },
    ]

    async def main() -> None:
        app, screen = await start(tmp_path, replies)
        tools = {t.name for t in app.agent.config.tools}  # type: ignore[union-attr]
        assert {"task", "read", "edit", "bash", "todo_write", "webfetch"} <= tools
        app.submit("where is add?")
        await until(lambda: app.view.child)
        assert app.status()[0] == "running task · Explorer: grep 'def add'"
        await settled(app)
        assert screen.lines[-1] == "The explorer found it."
        assert "● task  explorer: find add" in screen.lines
        assert "  ⎿ add is defined in calc.py:1." in screen.lines
        assert not (tmp_path / "ws" / "x.txt").exists()  # the explorer has no write tool
        result = app.agent.state.messages[2]  # type: ignore[union-attr]
        assert result.tool_name == "task" and not result.is_error
        spawned = result.details["subagents"]
        child_tokens = spawned["usage"]["input_tokens"]
        assert child_tokens > 0 and spawned["agents"][0]["agent_type"] == EXPLORER
        own = sum(
            m.usage.input_tokens for m in app.agent.state.messages if m.type == "assistant_message"
        )  # type: ignore[union-attr]
        assert app.view.usage.input_tokens == own + child_tokens  # the footer counts both
        assert app.view.child == ""
        await app.close()
        return app.session.info.id

    session_id = asyncio.run(main())

    async def resumed() -> None:  # the history read back shows the task, the tokens too
        app, screen = await start(tmp_path, replies, resume=session_id)
        assert "● task  explorer: find add" in screen.lines
        assert app.view.usage.input_tokens > 0
        lane = [e.agent_id for e in app.session.journal.entries()]
        assert f"{session_id}/call_1_0" in lane  # the child's lane, in the session's journal
        await app.close()

    asyncio.run(resumed())
