"""The terminal's live region and how lines are drawn, rendered by rich into text.

Tests the private module ``agentcore._app.code``: the ``agentcore code`` app's own parts."""

from __future__ import annotations

import asyncio
import io
import pathlib
from typing import Any

from rich.console import Console

from agentcore._app.code.keys import Editor
from agentcore._app.code.terminal import LineScreen, _live_view

from .test_app import PUSH, bash, start, until


def drawn(renderable: Any) -> str:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_control_characters_from_the_model_are_shown_not_obeyed() -> None:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    LineScreen(console).print([(("clear \x1b[2J\x07 now", ""),)])
    assert console.file.getvalue() == "clear \\x1b[2J\\x07 now\n"  # type: ignore[attr-defined]


def test_the_live_region(tmp_path: pathlib.Path) -> None:
    replies = [
        {
            "steps": [
                {
                    "text": "first line\nstill stream",
                    "tools": [bash("sleep 0.3")],
                    "delay": 0.05,
                    "pause": 0.05,
                },
                {"tools": [bash(PUSH)]},
                {"text": "done"},
            ]
        }
    ]

    async def main() -> None:
        app, _ = await start(tmp_path, replies)
        live = drawn(_live_view(app, Editor("type here", 4), 0.0))
        model = app.session.info.model
        assert live.splitlines()[-2:] == ["> type here", f"{model} · 0 in / 0 out · $0.0000"]
        app.submit("go")
        app.submit("go on")  # steers: the same reply again, from its first step
        live = drawn(_live_view(app, Editor(), 0.0))
        assert "↳ queued: go on" in live and "⠋ " in live
        await until(lambda: app.view.running)
        assert "● bash  $ sleep 0.3  …" in drawn(_live_view(app, Editor(), 0.0))
        await until(lambda: app.asking is not None)
        live = drawn(_live_view(app, Editor(), 0.0))
        assert "● bash  $ " + PUSH in live
        assert "risky: git push publishes to a remote" in live
        assert "Allow? [y]es  [n]o  [a]lways allow bash  (Ctrl-C aborts the run)" in live
        assert "waiting for your decision" in live
        app.interrupt()
        await until(lambda: not app.running)
        assert "press Ctrl-C again to quit" in drawn(_live_view(app, Editor(), 0.0))
        await app.close()

    asyncio.run(main())
