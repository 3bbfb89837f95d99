"""The terminal front end of ``agentcore code``, with ``rich`` (the ``console`` extra).

The transcript scrolls as ordinary terminal output; below it a live region (``rich``'s
``Live``) shows the line being streamed, an open approval question, the messages queued
while the agent works, the line being typed and a status line (what the agent does,
model, tokens, cost). The terminal is put in cbreak mode without signals, so every key,
Ctrl-C included, arrives as input while the agent works; ``keys.decode`` and
``keys.edit`` make keys and lines of it. Modes and bracketed paste are restored on the
way out, also after an error.

When input or output is not a terminal, ``run_lines`` reads one line at a time instead:
each line waits for the previous run, and questions are answered by a line.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import termios
import threading
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .app import CodeApp
from .keys import END, INTERRUPT, REDRAW, SUBMIT, Decoder, Editor, Key, decode, edit, flush
from .view import THINKING, Line, call_line

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live

__all__ = ["LineScreen", "TerminalScreen", "run_lines", "run_terminal"]

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ESCAPE_WAIT = 0.05
"""Seconds after a lone ESC before it counts as the Escape key."""
FRAME = 0.08
"""Seconds between redraws of the live region while something changes."""


def _render(line: Line) -> Any:
    from rich.text import Text

    from agentcore.presenters.console import safe

    return Text.assemble(*((safe(text), style) for text, style in line))


class LineScreen:
    """A ``Screen`` printing lines on a ``rich`` console (no live region)."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def print(self, lines: Sequence[Line]) -> None:
        for line in lines:
            self.console.print(_render(line))

    def changed(self) -> None:
        pass

    def clear(self) -> None:
        self.console.clear()


class TerminalScreen(LineScreen):
    """A ``Screen`` over a ``rich`` console with a live region redrawn when it changed.
    Lines wait for the next frame (``flush``) and are drawn together: one ``rich`` print
    per frame instead of one per line, a third of the cost."""

    def __init__(self, console: Console) -> None:
        super().__init__(console)
        self.dirty = True
        self.pending: list[Line] = []

    def print(self, lines: Sequence[Line]) -> None:
        self.pending.extend(lines)
        self.dirty = True

    def flush(self) -> None:
        if self.pending:
            from rich.text import Text

            lines, self.pending = self.pending, []
            self.console.print(Text("\n").join(_render(line) for line in lines))

    def changed(self) -> None:
        self.dirty = True

    def clear(self) -> None:
        self.flush()
        self.console.clear()


@contextlib.contextmanager
def _cbreak(fd: int) -> Iterator[None]:
    """Keys one at a time, unechoed; Ctrl-C/Ctrl-Z/Ctrl-S as keys; bracketed paste on."""
    saved = termios.tcgetattr(fd)
    mode = termios.tcgetattr(fd)
    mode[0] &= ~(termios.IXON | termios.ICRNL)
    mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
    mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
    termios.tcsetattr(fd, termios.TCSADRAIN, mode)
    sys.stdout.write("\x1b[?2004h")
    sys.stdout.flush()
    try:
        yield
    finally:
        sys.stdout.write("\x1b[?2004l")
        sys.stdout.flush()
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


class _Keyboard:
    """Feeds the app from the terminal's keys, with the line editor in between."""

    def __init__(self, app: CodeApp, screen: TerminalScreen) -> None:
        self.app = app
        self.screen = screen
        self.decoder = Decoder()
        self.editor = Editor()
        self._escape: asyncio.TimerHandle | None = None

    def feed(self, data: bytes) -> None:
        if self._escape is not None:
            self._escape.cancel()
            self._escape = None
        if not data:  # the terminal went away
            self.app.quit()
            return
        self.decoder, keys = decode(self.decoder, data)
        for key in keys:
            self.key(key)
        if self.decoder.pending.startswith(b"\x1b") and self.decoder.paste is None:
            self._escape = asyncio.get_running_loop().call_later(ESCAPE_WAIT, self._flush)
        self.screen.changed()

    def _flush(self) -> None:
        self._escape = None
        self.decoder, keys = flush(self.decoder)
        for key in keys:
            self.key(key)
        self.screen.changed()

    def key(self, key: Key) -> None:
        app = self.app
        if key.name != "ctrl-c":
            app.disarm()
        if app.asking is not None:
            if key.name == "char" and key.text.lower() in ("y", "n", "a"):
                app.answer(key.text.lower())
            elif key.name == "escape":
                app.answer("n")
            elif key.name == "ctrl-c":
                app.interrupt()
            return
        self.editor, action = edit(self.editor, key)
        if action == SUBMIT:
            app.submit(self.editor.history[-1])
        elif action == INTERRUPT:
            app.interrupt()
        elif action == END:
            app.quit()
        elif action == REDRAW:
            self.screen.clear()


def _live_view(app: CodeApp, editor: Editor, now: float) -> RenderableType:
    from rich.console import Group
    from rich.rule import Rule
    from rich.text import Text

    rows: list[Any] = []
    view = app.view
    if view.partial:
        style = THINKING if view.block is not None and view.block[0] == "thinking" else ""
        rows.append(_render(((view.partial, style),)))
    for _, line in view.running:
        rows.append(_render((*line, ("  …", "dim"))))
    ask = app.asking
    if ask is not None:
        call = ask.call
        rows.append(_render((*call_line(call.tool_name, call.input), ("", ""))))
        rows.append(Text(f"  {ask.reason}", style="yellow"))
    for message in app.queued():
        rows.append(_render((("↳ queued: ", "dim"), (message, "dim"))))
    rows.append(Rule(style="dim"))
    if ask is not None:
        name = ask.call.tool_name
        rows.append(
            Text.assemble(
                ("Allow? ", "bold yellow"),
                f"[y]es  [n]o  [a]lways allow {name}  ",
                ("(Ctrl-C aborts the run)", "dim"),
            )
        )
    else:
        rows.append(_input_line(editor))
    activity, footer = app.status()
    status = Text(style="dim")
    if activity:
        status.append(SPINNER[int(now / FRAME) % len(SPINNER)] + " ", style="cyan")
        status.append(activity + " · ", style="cyan")
    status.append(footer)
    if app.armed:
        status.append(" · press Ctrl-C again to quit", style="bold yellow")
    rows.append(status)
    return Group(*rows)


def _input_line(editor: Editor) -> Any:
    from rich.text import Text

    from agentcore.presenters.console import safe

    text, cursor = editor.text, editor.cursor
    line = Text("> ", style="bold")
    line.append(safe(text[:cursor]).replace("\n", "\n  "))
    under = text[cursor : cursor + 1]
    line.append(" " if under in ("", "\n") else safe(under), style="reverse")
    if under == "\n":
        line.append("\n  ")
    line.append(safe(text[cursor + 1 :]).replace("\n", "\n  "))
    return line


async def run_terminal(app: CodeApp, screen: TerminalScreen) -> None:
    """Run the app on the terminal until it quits; then close it (the session stays)."""
    from rich.live import Live

    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()
    keyboard = _Keyboard(app, screen)
    live: Live | None = None

    def on_input() -> None:
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        keyboard.feed(data)
        if live is not None:  # echo typing at once, not at the next frame
            screen.flush()
            live.update(_live_view(app, keyboard.editor, time.monotonic()), refresh=True)
            screen.dirty = False

    with _cbreak(fd), _signals(app, screen):
        live = Live(
            _live_view(app, keyboard.editor, time.monotonic()),
            console=screen.console,
            auto_refresh=False,
            transient=True,
            redirect_stdout=True,
            redirect_stderr=True,
        )
        with live:
            loop.add_reader(fd, on_input)
            try:
                while not app.finished.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(app.finished.wait(), FRAME)
                    if screen.dirty or app.running:
                        screen.dirty = False
                        screen.flush()
                        live.update(_live_view(app, keyboard.editor, time.monotonic()))
                        live.refresh()
            finally:
                loop.remove_reader(fd)
                await app.close()
                screen.flush()


@contextlib.contextmanager
def _signals(app: CodeApp, screen: TerminalScreen) -> Iterator[None]:
    """SIGTERM/SIGHUP quit cleanly (the session is kept), SIGINT interrupts, SIGWINCH
    redraws."""
    loop = asyncio.get_running_loop()
    handlers = {
        signal.SIGTERM: app.quit,
        signal.SIGHUP: app.quit,
        signal.SIGINT: app.interrupt,
        signal.SIGWINCH: screen.changed,
    }
    for number, handler in handlers.items():
        loop.add_signal_handler(number, handler)
    try:
        yield
    finally:
        for number in handlers:
            loop.remove_signal_handler(number)


async def run_lines(app: CodeApp, screen: LineScreen) -> None:
    """Run the app on lines of standard input: each line is a prompt or a command run to
    the end before the next is read; a question is answered by a line (y, n or a)."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGINT, app.interrupt)
    lines: asyncio.Queue[str | None] = asyncio.Queue()

    def read() -> None:  # a daemon thread: a blocked read never holds up the exit
        with contextlib.suppress(RuntimeError):  # the loop closed first
            for line in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, None)

    threading.Thread(target=read, name="agentcore-code-stdin", daemon=True).start()
    ended = False

    async def next_line() -> str | None:
        nonlocal ended
        line = None if ended else await lines.get()
        ended = line is None
        return line

    try:
        while not app.finished.is_set():
            while app.running:
                ask = app.asking
                if ask is None:
                    await asyncio.sleep(0.02)
                    continue
                screen.print([call_line(ask.call.tool_name, ask.call.input)])
                screen.console.print(f"  {ask.reason}", markup=False, highlight=False)
                screen.console.print("Allow? [y/n/a] ", end="", markup=False)
                answer = await next_line()
                screen.console.print((answer or "").strip(), markup=False, highlight=False)
                app.answer(None if answer is None else answer.strip().lower()[:1] or "n")
                while app.asking is ask:  # until the app took the answer
                    await asyncio.sleep(0.01)
            line = await next_line()
            if line is None:
                break
            app.submit(line)
            await asyncio.sleep(0)
    finally:
        await app.close()
