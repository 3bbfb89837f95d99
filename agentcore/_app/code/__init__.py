"""``agentcore code``: a coding agent in the terminal, over the coding tools.

::

    agentcore code [--model PROVIDER/MODEL | demo | script/FILE.json] [--base-url URL]
                   [--cwd DIR] [--resume | --session ID] [--sessions] [--approval MODE]
                   [--no-guard]

The agent works in a workspace (``--cwd``, default the current directory) with the tools
of ``agentcore.coding``, confined to it, and the ``task`` tool running a read-only
explorer sub-agent; the bash guard blocks destructive commands (``--no-guard`` lifts it:
they are asked about instead), the tool logger writes to the session's log file, and
context info tells the model the workspace, its git branch and the time. The reply
streams; each tool call shows as a line and its result in a few; calls that need
approval are asked about; a line typed while the agent works steers it; Ctrl-C aborts
the run, a second Ctrl-C quits. Every input is journaled in the session
(``sessions.py``), so ``--resume`` (the newest session of the workspace) or ``--session
ID`` goes on where it stopped, also after a crash.

Without ``--model`` the model is ``$AGENTCORE_MODEL``, else one of the first provider
whose key is set, else ``demo``: a scripted model fixing the tests of a sample project
copied to a temporary directory, offline. Modules using ``rich`` or the drivers are
imported when the command runs, never by ``agentcore --help``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from typing import Any

from ..._core.errors import ConfigurationError
from ..cli import add_base_url, register_command

__all__: list[str] = []


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        help="PROVIDER/MODEL (e.g. anthropic/claude-sonnet-4-5), demo (offline), or "
        "script/FILE.json (a scripted model); default: $AGENTCORE_MODEL, else the first "
        "provider with a key, else demo",
    )
    add_base_url(parser)
    parser.add_argument("--cwd", help="the workspace (default: the current directory)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--resume", action="store_true", help="continue the newest session of the workspace"
    )
    which.add_argument("--session", metavar="ID", help="continue this session")
    which.add_argument("--sessions", action="store_true", help="list the sessions and exit")
    parser.add_argument(
        "--approval",
        choices=("destructive", "all", "none"),
        default="destructive",
        help="ask before risky commands: deleting files, discarding changes, git push, "
        "sudo... (destructive, the default), before every write, edit, bash and webfetch "
        "(all), or never (none)",
    )
    parser.add_argument(
        "--no-guard",
        dest="guard",
        action="store_false",
        help="do not block destructive commands (rm -rf ~, git push --force to main...); "
        "they are asked about unless --approval none",
    )
    parser.add_argument("--sessions-dir", help="where sessions are kept")
    parser.add_argument(
        "--max-iterations", type=int, default=50, help="model calls per request (default 50)"
    )


def _run(args: argparse.Namespace) -> int:
    from .sessions import JsonlSessions
    from .setup import DEMO, SCRIPT_PREFIX, default_model, make_driver

    store = JsonlSessions(args.sessions_dir)
    if args.sessions:
        return _list_sessions(store)
    try:
        if args.session or args.resume:
            if args.session:
                session = store.open(args.session)
            else:
                cwd = os.path.abspath(args.cwd or os.getcwd())
                info = store.latest(cwd)
                if info is None:
                    raise ConfigurationError(
                        f"no session in {cwd} to resume; agentcore code --sessions lists "
                        "them all (continue one with --session ID)"
                    )
                session = store.open(info.id)
            model = args.model or session.info.model
            cwd = session.info.cwd
            driver, price = make_driver(model, base_url=args.base_url)
            resumed = True
        else:
            model = args.model or default_model()
            if model.startswith(SCRIPT_PREFIX):
                model = SCRIPT_PREFIX + os.path.abspath(model.removeprefix(SCRIPT_PREFIX))
            driver, price = make_driver(model, base_url=args.base_url)  # a missing key: now
            cwd = _workspace(args.cwd, demo=model == DEMO)
            _check_workspace(cwd)
            session = store.create(cwd, model)
            resumed = False
        _check_workspace(cwd)
    except ConfigurationError as exc:
        print(f"agentcore code: {exc.message}", file=sys.stderr)
        return 2
    return asyncio.run(_main(args, session, store, model, driver, price, resumed))


def _check_workspace(cwd: str) -> None:
    if not os.path.isdir(cwd):
        raise ConfigurationError(f"the workspace {cwd} is not a directory")


def _workspace(given: str | None, *, demo: bool) -> str:
    """``--cwd``; for the demo without one, a fresh copy of its sample project."""
    if given is not None or not demo:
        return os.path.abspath(given or os.getcwd())
    from .script import SAMPLE_PROJECT

    target = os.path.join(tempfile.mkdtemp(prefix="agentcore-demo-"), "calc")
    os.mkdir(target)
    for name, content in json.loads(SAMPLE_PROJECT.read_text(encoding="utf-8")).items():
        with open(os.path.join(target, name), "w", encoding="utf-8") as file:
            file.write(content)
    return target


async def _main(
    args: argparse.Namespace,
    session: Any,
    store: Any,
    model: str,
    driver: Any,
    price: Any,
    resumed: bool,
) -> int:
    from rich.console import Console

    from ..._runtime.agent import Agent
    from .app import CodeApp
    from .setup import close_agent, make_driver, open_agent
    from .terminal import LineScreen, TerminalScreen, run_lines, run_terminal

    console = Console()
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    screen = TerminalScreen(console) if interactive else LineScreen(console)
    info = session.info
    drivers = [driver]

    async def switch_model(name: str) -> Agent:
        new_driver, new_price = make_driver(name, base_url=args.base_url)
        drivers.append(new_driver)
        assert app.agent is not None
        await close_agent(app.agent)
        return await open_agent(
            session,
            name,
            new_driver,
            new_price,
            app,
            resumed=True,
            max_iterations=args.max_iterations,
            guard=args.guard,
            base_url=args.base_url,
        )

    app = CodeApp(
        screen,
        session,
        store,
        approval=args.approval,
        guard=args.guard,
        switch_model=switch_model,
    )
    agent = await open_agent(
        session,
        model,
        driver,
        price,
        app,
        resumed=resumed,
        max_iterations=args.max_iterations,
        guard=args.guard,
        base_url=args.base_url,
    )
    console.print(
        f"[bold]agentcore code[/bold] · {info.cwd} · {model} · session {info.id}\n"
        "[dim]/help for commands · Ctrl-C interrupts, twice quits[/dim]",
        highlight=False,
    )
    if not resumed and model == "demo":
        console.print(
            "[yellow]No API key is set: this is the offline demo, on a sample project whose "
            "tests fail. Try: fix the failing tests[/yellow]",
            highlight=False,
        )
    app.attach(agent, resumed=resumed)
    try:
        if interactive:
            await run_terminal(app, screen)  # type: ignore[arg-type]
        else:
            await run_lines(app, screen)
    finally:
        for each in drivers:
            await each.aclose()
        session.journal.close()
    if not resumed and not app.session.info.title:  # never prompted: nothing to resume
        store.discard(info.id)
        return 0
    console.print(
        f"[dim]session {info.id} saved · continue it with: agentcore code --session "
        f"{info.id}[/dim]",
        highlight=False,
    )
    return 0


def _list_sessions(store: Any) -> int:
    sessions = store.list()
    if not sessions:
        print(f"no sessions in {store.directory}")
    for info in sessions:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created / 1000))
        print(f"{info.id}  {when}  {info.model:<28} {info.cwd}  {info.title}")
    return 0


register_command("code", "a coding agent in the terminal", _configure, _run)
