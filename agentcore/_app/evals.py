"""``agentcore eval``: record a session as a case, and run a dataset (docs/evals.md).

    agentcore eval record session.jsonl --agent-id a1 -o cases/a1.json --contains Paris
    agentcore eval run cases/ --config factory.py --mode replay --json report.json
    agentcore eval run cases/ --config factory.py --compare last.json  # 1 on a regression

A journal is a JSONL file, a SQLite file (``.db``, ``.sqlite``, ``.sqlite3``) or a
``postgresql://`` URL. ``run`` prints a table (a plain one without rich), writes the JSON
report when asked, and exits 1 when a case regressed against ``--compare`` (without it,
when a case failed), 2 when the dataset or configuration cannot be used.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pathlib
import sys
from typing import Any

from .._core.errors import ConfigurationError
from .._evals.cases import load_dataset, record_case, save_case
from .._evals.config import load_config
from .._evals.report import Report, run_dataset
from .._evals.rerun import MODES
from .._journal.journal import Journal
from .cli import register_command

__all__: list[str] = []

_SQLITE = (".db", ".sqlite", ".sqlite3")


def open_journal(source: str) -> Journal | str:
    """The journal ``source`` names (module docstring); a JSONL path as it is."""
    if source.startswith(("postgresql://", "postgres://")):
        from .._journal.sql.postgres import PostgresJournal

        return PostgresJournal(source)
    if pathlib.Path(source).suffix.lower() in _SQLITE:
        from .._journal.sql.sqlite import SqliteJournal

        if not pathlib.Path(source).exists():
            raise FileNotFoundError(2, "no such file", source)
        return SqliteJournal(source)
    return source


def _configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="eval_command", required=True)
    record = sub.add_parser("record", help="save a session from a journal as a case")
    record.add_argument("journal", help="a .jsonl or SQLite file, or a postgresql:// URL")
    record.add_argument("--agent-id", help="the session (default: the journal's one agent)")
    record.add_argument("--name", help="the case's name (default: the agent id)")
    record.add_argument("-o", "--output", required=True, help="the case file to write (.json)")
    record.add_argument("--contains", action="append", default=[], help="expect this text")
    record.add_argument("--equals", help="expect exactly this answer")
    record.add_argument("--regex", help="expect an answer matching this pattern")
    run = sub.add_parser("run", help="re-run a dataset's cases and report")
    run.add_argument("dataset", help="a JSON/YAML file of cases, or a folder of them")
    run.add_argument(
        "--config",
        required=True,
        help="file.py[:function], package.module:function (returning Agent options), or "
        "an agent definition file",
    )
    run.add_argument(
        "--mode",
        choices=MODES,
        default="replay",
        help="replay (default): the recorded model answers while requests match; live: the "
        "configuration's model answers; replay-then-live: replay, then live after a divergence",
    )
    run.add_argument(
        "--concurrency", type=_at_least_one, default=4, help="cases at once (default 4)"
    )
    run.add_argument(
        "--replay-tools",
        default="all",
        help="all (default), none, or tool names separated by commas",
    )
    run.add_argument("--journals", help="write each case's journal to DIR/<case>.jsonl")
    run.add_argument("--json", dest="json_path", help="write the JSON report here (- for stdout)")
    run.add_argument("--compare", help="a previous JSON report: exit 1 on a regression")
    run.add_argument("--judge-model", help="provider/model for judge evaluators")


def _record(args: argparse.Namespace) -> int:
    expect: list[dict[str, Any]] = [{"contains": text} for text in args.contains]
    if args.equals is not None:
        expect.append({"equals": args.equals})
    if args.regex is not None:
        expect.append({"regex": args.regex})
    journal = open_journal(args.journal)
    try:
        case = record_case(journal, args.agent_id, name=args.name, expect=expect)
    finally:
        if not isinstance(journal, str):
            journal.close()
    path = save_case(case, args.output)
    agents = len({e.agent_id for e in case.entries})
    print(f"recorded {case.name!r}: {len(case.entries)} entries of {agents} agent(s) -> {path}")
    return 0


def _replay_tools(value: str) -> bool | frozenset[str]:
    if value == "all":
        return True
    if value == "none":
        return False
    return frozenset(name.strip() for name in value.split(",") if name.strip())


def _print(report: Report) -> None:
    try:
        from rich.console import Console
    except ImportError:  # the console extra is not installed: a plain table
        for r in report.results:
            why = r.error or r.divergence or ""
            print(f"{'pass' if r.passed else 'FAIL'}  {r.score:.2f}  {r.name}  {why}")
        print(report.summary())
        return
    Console(width=140).print(report.table())


def _at_least_one(text: str) -> int:
    """An ``argparse`` type: a whole number from 1, refused as a usage error (exit 2)."""
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1, got {text!r}")
    return int(text)


def _run(args: argparse.Namespace) -> int:
    cases = load_dataset(args.dataset)
    config = load_config(args.config)
    previous = None
    if args.compare:
        previous = json.loads(pathlib.Path(args.compare).read_text(encoding="utf-8"))
    report = asyncio.run(
        run_dataset(
            cases,
            config,
            mode=args.mode,
            concurrency=args.concurrency,
            replay_tools=_replay_tools(args.replay_tools),
            journal_dir=args.journals,
            judge_model=args.judge_model,
        )
    )
    if args.json_path == "-":
        print(report.to_json())
    else:
        _print(report)
        if args.json_path:
            pathlib.Path(args.json_path).write_text(report.to_json(), encoding="utf-8")
    if previous is not None:
        comparison = report.compare(previous)
        print(comparison.text(), file=sys.stderr)
        return 1 if comparison.regressed else 0
    return 0 if report.passed else 1


def _dispatch(args: argparse.Namespace) -> int:
    try:
        return _record(args) if args.eval_command == "record" else _run(args)
    except ConfigurationError as exc:
        print(f"agentcore eval: {exc.message}", file=sys.stderr)
        return 2


register_command("eval", "record sessions as eval cases and re-run datasets", _configure, _dispatch)
