"""Tests import what users import, and mirror the package's layout.

A test file imports a private module (``agentcore._…``, or one of the plugin packages',
``agentcore.drivers._common``, ``agentcore.presenters._base``) only when it is about it:
such a file is listed in ``ABOUT`` below with the private modules it tests and why, and
its own docstring says "tests the private module …", so a reader of either sees it.
Every other test uses the public names (``agentcore``, ``agentcore.events``,
``agentcore.loop``, ``agentcore.journal``, ``agentcore.testing``, ...). The folders of
``tests/`` mirror the private folders of ``agentcore`` (``tests/core`` for
``agentcore/_core``, ``tests/app/code`` for ``agentcore/_app/code``), plus one folder per
plugin package and the two that test the project as a whole.
"""

from __future__ import annotations

import ast
import pathlib

import agentcore

TESTS = pathlib.Path(__file__).parent
PACKAGE = pathlib.Path(agentcore.__file__).parent

ABOUT: dict[str, tuple[tuple[str, ...], str]] = {
    # a test file (or a folder, ending in "/") under tests/: the private modules it tests
    # (a module stands for its submodules too), and why it needs them
    "a2a/test_a2a_task_journal.py": (
        ("agentcore._a2a.tasks",),
        "the task records in their own lane, and the text a stopped task ends with",
    ),
    "agents/test_steps_resume.py": (
        ("agentcore._agents.steps_replay",),
        "its walk over a journal counts the steps a generator was asked",
    ),
    "app/code/": (("agentcore._app.code",), "the ``agentcore code`` app's own parts"),
    "app/test_chat.py": (("agentcore._app.chat",), "the chat command's read-answer loop"),
    "coding/test_atomic_writes.py": (
        ("agentcore._coding.shell_operations",),
        "the error a failed write raises",
    ),
    "coding/test_bash.py": (
        ("agentcore._coding.bash_tool", "agentcore._coding.truncate"),
        "the output window of a running command and its size text",
    ),
    "coding/test_edit_match.py": (("agentcore._coding.edit_match",), "the edit matcher"),
    "coding/test_search_tools.py": (
        ("agentcore._coding.ripgrep",),
        "its glob matcher, which must agree with ripgrep's",
    ),
    "coding/test_truncate.py": (("agentcore._coding.truncate",), "head and tail truncation"),
    "core/test_agent_processor_text_path.py": (
        ("agentcore._core.agent_processor",),
        "its text-delta shortcut against the three processors",
    ),
    "core/test_content.py": (
        ("agentcore._core.content", "agentcore._core.media"),
        "converting values to content, and sniffing media types",
    ),
    "core/test_event_checks.py": (
        ("agentcore._core.checks", "agentcore._testing.strategies"),
        "the field checks, against values the strategies' annotation reader builds",
    ),
    "core/test_fuzz.py": (
        ("agentcore._core.checks",),
        "whether an event passed its checks",
    ),
    "core/test_secrets.py": (("agentcore._core.secrets",), "the secret patterns and scrubbing"),
    "drivers/test_call.py": (
        ("agentcore.drivers._common",),
        "the skeleton's streaming call and its retries",
    ),
    "drivers/test_guard.py": (
        ("agentcore.drivers._common.guard",),
        "the text guard every driver streams through",
    ),
    "drivers/test_history.py": (
        ("agentcore.drivers._common.history",),
        "normalising a history for a provider",
    ),
    "drivers/test_openai_request.py": (
        ("agentcore.drivers._common.history",),
        "the result an orphaned tool call is given",
    ),
    "drivers/test_openai_responses_request.py": (
        ("agentcore.drivers._common.history",),
        "the result an orphaned tool call is given",
    ),
    "drivers/test_plain.py": (("agentcore.drivers._common.base",), "plain, which lives there"),
    "drivers/test_price_dataset.py": (
        ("agentcore._runtime.plugins",),
        "find_model_price, the lookup over the registered price tables (not public)",
    ),
    "drivers/test_ratebucket.py": (
        ("agentcore.drivers._common.ratebucket",),
        "the rate budget's bucket arithmetic",
    ),
    "drivers/test_retry.py": (
        ("agentcore.drivers._common",),
        "classifying failures, and retrying before the first item",
    ),
    "drivers/test_structured_output_requests.py": (
        ("agentcore.drivers._common.output",),
        "the strict schema a provider is sent",
    ),
    "durable/test_lane.py": (
        ("agentcore._durable.lane", "agentcore._durable.stepping"),
        "how a durable lane numbers its inputs",
    ),
    "durable/test_notices.py": (("agentcore._durable.notices",), "the workers' notices"),
    "durable/test_parts.py": (
        ("agentcore._durable",),
        "the worker's parts (a tool call as a step, the store, the database URL)",
    ),
    "durable/test_serve.py": (
        ("agentcore._app.serve",),
        "the demo agent ``agentcore serve`` runs, here durably",
    ),
    "edges/test_collect_reply.py": (
        ("agentcore._edges.driver",),
        "collect_reply, one model call's reply read whole",
    ),
    "evals/test_divergence.py": (
        ("agentcore._app.serve_model",),
        "the demo's agent tree, run as an eval",
    ),
    "journal/test_conversation_replay.py": (
        ("agentcore._journal.conversation",),
        "Conversation, the one fold (not public)",
    ),
    "journal/test_exact_values.py": (
        ("agentcore._journal.read", "agentcore._journal.resume"),
        "load_line against the stdlib's parser, and a resume with the forked reader forced",
    ),
    "journal/test_journal_memory.py": (("agentcore._journal.read",), "the reader's chunk size"),
    "journal/test_journal_reading.py": (
        ("agentcore._journal.read", "agentcore._journal.fork"),
        "the fast reader and the forked one against the plain one",
    ),
    "journal/test_journal_reopen.py": (
        ("agentcore._journal.tail", "agentcore._journal.read"),
        "reading a JSONL journal from its end",
    ),
    "loop/reference_policy.py": (
        ("agentcore._loop", "agentcore._core"),
        "the loop policy as it was, kept verbatim as the phase table's oracle",
    ),
    "loop/reference_tool_calls.py": (
        ("agentcore._loop", "agentcore._core"),
        "the tool calls' steps as they were, kept verbatim as their oracle",
    ),
    "loop/test_compaction.py": (
        ("agentcore._loop.compaction",),
        "planning a compaction and its summary request",
    ),
    "loop/test_cost_ledger.py": (
        ("agentcore._core.pricing",),
        "call_cost counted: each model call priced once",
    ),
    "loop/test_conversation_properties.py": (
        ("agentcore._core", "agentcore._journal.sql.tally"),
        "every layer's own record of pending calls and usage agrees",
    ),
    "loop/test_loop_emitted.py": (
        ("agentcore._loop.emitted",),
        "the loop's outputs built without their checks, against their classes",
    ),
    "loop/test_loop_fastpaths.py": (
        ("agentcore._loop.state", "agentcore._runtime.outlet"),
        "the hot-path shortcuts against the slow paths",
    ),
    "loop/test_loop_state_twins.py": (
        ("agentcore._loop.state",),
        "its classes against attrs-built twins",
    ),
    "loop/test_tool_calls_oracle.py": (
        ("agentcore._loop.tool_calls",),
        "its steps against the old ones",
    ),
    "loop/test_tool_json.py": (("agentcore._loop.tool_json",), "a tool result to JSON"),
    "loop/test_tool_schema.py": (
        ("agentcore._loop.tool_schema",),
        "the path a validator's failure names",
    ),
    "loop/test_tool_schema_cache.py": (
        ("agentcore._loop.tool_schema",),
        "the compiled validators and their cache",
    ),
    "mcp/test_mcp_close.py": (("agentcore._mcp.stdio",), "its grace and reaping timeouts"),
    "mcp/test_mcp_convert.py": (
        ("agentcore._mcp", "agentcore._core.secrets"),
        "converting MCP's types and callbacks, and the scrubber's mark",
    ),
    "presenters/test_presenters_logging.py": (
        ("agentcore.presenters._base",),
        "output_type, the name every presenter gives an output",
    ),
    "presenters/test_presenters_recording.py": (
        ("agentcore.presenters._base",),
        "Filter and present, the presenters' shared parts",
    ),
    "runtime/test_agent_edges.py": (
        ("agentcore._runtime.delivery",),
        "a presenter lane's backpressure",
    ),
    "runtime/test_awaitables.py": (("agentcore._runtime.awaitables",), "its hot-path check"),
    "runtime/test_fallback.py": (
        ("agentcore._runtime.plugins",),
        "find_model_price, the lookup over the registered price tables (not public)",
    ),
    "runtime/test_option_errors.py": (
        ("agentcore._durable.worker",),
        "dbos_url, which must never show a password",
    ),
    "runtime/test_performer_protocol.py": (
        ("agentcore._edges.performer", "agentcore._runtime", "agentcore._durable.performer"),
        "both performers against the performer protocol (none of them public)",
    ),
    "runtime/test_run_end_activity.py": (
        ("agentcore._core.agent_processor",),
        "the core's summary of a state",
    ),
    "serve/server_kit.py": (
        ("agentcore._app.serve",),
        "the demo agent ``agentcore serve`` runs",
    ),
    "serve/test_cli.py": (
        ("agentcore._app.serve", "agentcore._app.serve_model", "agentcore._serve.server"),
        "the ``agentcore serve`` command and its demo",
    ),
    "serve/test_http_edges.py": (("agentcore._app.serve_model",), "the demo's story"),
    "serve/test_page.py": (("agentcore._app.serve_model",), "the demo's story"),
    "serve/test_page_chat.py": (("agentcore._serve.app",), "the static files the app serves"),
    "serve/test_security.py": (
        ("agentcore._serve.guard", "agentcore._serve.server", "agentcore._app.serve"),
        "the guard's rules, and the demo server",
    ),
    "serve/test_startup.py": (
        ("agentcore._app.code.setup",),
        "how ``agentcore code`` makes its drivers at a base URL",
    ),
    "sessions/test_one_writer.py": (
        ("agentcore._journal.sql.postgres",),
        "the advisory lock a PostgreSQL lane is held by",
    ),
    "sessions/test_sql_journal.py": (
        ("agentcore._journal.sql",),
        "the SQL journals' rows, schema and databases",
    ),
    "core/test_pending.py": (
        ("agentcore._core.assembler", "agentcore._core.pending", "agentcore._core.state_events"),
        "the one table of calls awaiting their result",
    ),
    "core/test_records.py": (
        ("agentcore._core", "agentcore._loop", "agentcore._runtime"),
        "records.frozen against attrs-built twins",
    ),
    "journal/test_delta_lines.py": (
        ("agentcore._journal.read", "agentcore._journal.resume"),
        "the reader's fast path for delta lines",
    ),
    "journal/test_delta_runs.py": (
        (
            "agentcore._journal.journal",
            "agentcore._journal.read",
            "agentcore._journal.resume",
            "agentcore._journal.tail",
        ),
        "the run records and the folds that read them",
    ),
    "journal/test_resume_forked.py": (
        (
            "agentcore._journal.fork",
            "agentcore._journal.journal",
            "agentcore._journal.read",
            "agentcore._journal.resume",
        ),
        "the forked reader's run records and when a resume forks",
    ),
    "journal/test_fold_steps.py": (
        ("agentcore._journal.replay",),
        "fold_steps, the journal's fold per entry",
    ),
    "journal/test_live_deltas.py": (("agentcore._journal.conversation",), "the live delta path"),
    "journal/test_snapshot_format.py": (
        ("agentcore._core.assembler", "agentcore._core.content", "agentcore._journal.resume"),
        "the snapshot format",
    ),
    "loop/test_conversation_runs.py": (
        ("agentcore._core.agent_processor",),
        "delta runs under the conversation",
    ),
    "runtime/test_agent_construction.py": (("agentcore._runtime.agent",), "what Agent(...) defers"),
    "runtime/test_cut_streams.py": (("agentcore._edges.driver",), "ended_batches, the driver edge"),
    "journal/test_conversation_secrets.py": (
        (
            "agentcore._journal.conversation",
            "agentcore._core.secrets",
            "agentcore._core.registry",
            "agentcore._core.checks",
        ),
        "no secret escapes a Conversation, whichever input class carries it",
    ),
    "edges/test_stamped.py": (("agentcore._edges.clock",), "stamped's copy against evolve"),
    "journal/test_conversation_quiet.py": (
        ("agentcore._journal.conversation",),
        "its quiet-sink path and command",
    ),
    "runtime/test_quiet_outlet.py": (("agentcore._runtime.outlet",), "the outlet's quiet flag"),
    "journal/test_conversation_delta_runs.py": (
        ("agentcore._journal.conversation",),
        "its runs of deltas",
    ),
}

TOP_LEVEL = {
    "drivers": "the agentcore.drivers plugin package",
    "presenters": "the agentcore.presenters plugin package",
    "packaging": "the project as a user installs it: wheel, fresh machine, README and docs",
    "bench": "the bench harness, on tiny sizes",
}
"""Test folders that mirror no private folder, and what they test."""

UNTESTED_FOLDERS = {
    "_testing": "the test kit: every folder's tests use it, tests/sessions its conformance",
}
"""Private folders without a test folder of their own, and where they are tested."""


def _test_sources() -> list[pathlib.Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "node_modules" not in p.parts)


def _is_module(dotted: str) -> bool:
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def private_imports(source: str) -> set[str]:
    """The private ``agentcore`` modules (and private names) ``source`` imports, anywhere
    in it (in a function too), by ``import``, ``from … import``,
    ``importlib.import_module("…")`` or ``pytest.importorskip("…")``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                # ``from agentcore._core import checks`` imports the module ``checks``;
                # ``from agentcore.drivers.scripted import _stamped``, a private name
                dotted = f"{node.module}.{alias.name}"
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                found.add(dotted if private or _is_module(dotted) else node.module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "importorskip")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value)
    return {
        name
        for name in found
        if name.startswith("agentcore.")
        and any(part.startswith("_") for part in name.split(".")[1:])
    }


def _entry(relative: str) -> tuple[tuple[str, ...], str] | None:
    for key, entry in ABOUT.items():
        if relative == key or (key.endswith("/") and relative.startswith(key)):
            return entry
    return None


def _covers(subjects: tuple[str, ...], module: str) -> bool:
    return any(module == s or module.startswith(f"{s}.") for s in subjects)


def test_a_test_imports_a_private_module_only_when_it_is_about_it() -> None:
    problems = []
    for path in _test_sources():
        relative = path.relative_to(TESTS).as_posix()
        imported = private_imports(path.read_text(encoding="utf-8"))
        entry = _entry(relative)
        subjects = entry[0] if entry else ()
        stray = sorted(m for m in imported if not _covers(subjects, m))
        if stray:
            problems.append(f"tests/{relative}: {', '.join(stray)}")
    assert not problems, (
        "import the public name instead (see tests/test_exports.py), or, if the test is "
        "about the private module, list it in ABOUT and say so in its docstring:\n"
        + "\n".join(problems)
    )


def test_each_listed_file_says_which_private_module_it_tests() -> None:
    problems = []
    for key, (subjects, reason) in ABOUT.items():
        assert reason, key
        paths = sorted((TESTS / key).glob("*.py")) if key.endswith("/") else [TESTS / key]
        assert paths and all(p.is_file() for p in paths), f"tests/{key} is gone: drop it"
        assert all(_is_module(s) for s in subjects), f"tests/{key}: {subjects}"
        imported = set().union(*(private_imports(p.read_text(encoding="utf-8")) for p in paths))
        unused = [s for s in subjects if not any(_covers((s,), m) for m in imported)]
        if unused:
            problems.append(f"tests/{key} no longer imports {', '.join(unused)}: drop it")
        for path in paths:
            source = path.read_text(encoding="utf-8")
            doc = " ".join((ast.get_docstring(ast.parse(source)) or "").split())
            if private_imports(source) and not (
                "private module" in doc.lower() and all(s in doc for s in subjects)
            ):
                problems.append(
                    f"tests/{path.relative_to(TESTS)}: its docstring should say it tests the "
                    f"private module{'s' if len(subjects) > 1 else ''} {', '.join(subjects)}"
                )
    assert not problems, "\n".join(problems)


def test_the_test_folders_mirror_the_package() -> None:
    private = {
        p.name
        for p in PACKAGE.iterdir()
        if p.is_dir() and p.name.startswith("_") and p.name != "__pycache__"
    }
    folders = {
        p.name
        for p in TESTS.iterdir()
        if p.is_dir() and any(p.rglob("test_*.py")) and p.name != "__pycache__"
    }
    mirrored = {f"_{name}" for name in folders} & private
    stray = folders - {m[1:] for m in mirrored} - set(TOP_LEVEL)
    assert not stray, f"tests/ folders that mirror no agentcore/_<folder>: {sorted(stray)}"
    missing = private - mirrored - set(UNTESTED_FOLDERS)
    assert not missing, f"agentcore folders without a tests/ folder: {sorted(missing)}"
    # a subpackage with tests of its own is mirrored one level down (tests/app/code)
    for folder in sorted(mirrored):
        for sub in (TESTS / folder[1:]).iterdir():
            if sub.is_dir() and any(sub.glob("test_*.py")):
                assert (PACKAGE / folder / sub.name).is_dir(), f"{sub} mirrors no {folder}/"


def test_private_imports_finds_every_form() -> None:
    source = (
        "import agentcore._core.checks\n"
        "from agentcore._loop import tool_json\n"
        "from agentcore._journal.read import dumps\n"
        "from agentcore.events import TextDelta\n"
        "from agentcore.drivers.scripted import _stamped\n"
        "import importlib\n"
        "def f():\n"
        "    from agentcore._runtime.delivery import PresenterLane\n"
        "    importlib.import_module('agentcore._serve.guard')\n"
    )
    assert private_imports(source) == {
        "agentcore._core.checks",
        "agentcore._loop.tool_json",
        "agentcore._journal.read",
        "agentcore.drivers.scripted._stamped",
        "agentcore._runtime.delivery",
        "agentcore._serve.guard",
    }
