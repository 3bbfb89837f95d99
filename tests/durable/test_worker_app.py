"""The documented worker command run from the folder of ``app.py`` (no ``PYTHONPATH``), and
a run that failed reported as failed by ``DurableClient`` (not ``completed`` with an error
beside it)."""

from __future__ import annotations

import asyncio
import os
import pathlib
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from harness import fresh_database

from agentcore.durable import DurableClient

APP = """
from agentcore.durable import Definitions
from agentcore.events import ErrorReceived, MessageStart
from agentcore.drivers.scripted import FunctionDriver, text_turn

definitions = Definitions()
def failing(request):
    return [MessageStart("m1", "x"), ErrorReceived("server_error: boom", "PROVIDER_ERROR")]

definitions.define("failing", model=FunctionDriver(failing))
definitions.define("fine", model=FunctionDriver(lambda request: text_turn("hello there")))
"""


def _script() -> str:
    """The ``agentcore`` console script, as the docs run it (``python -m agentcore`` puts
    the working directory on ``sys.path`` by itself)."""
    script = pathlib.Path(sys.executable).with_name("agentcore")
    return str(script) if script.exists() else str(shutil.which("agentcore"))


@pytest.fixture(scope="module")
def worker(postgres_server: Any, tmp_path_factory: Any) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("app")
    (folder / "app.py").write_text(APP)
    url = fresh_database(postgres_server, "workerapp")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    process = subprocess.Popen(
        [_script(), "worker", "--database-url", url, "--agents", "app:definitions"],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("worker "):
        process.kill()
        _, err = process.communicate(timeout=30)
        pytest.fail(f"the worker did not start from the folder of app.py: {line!r}\n{err[-3000:]}")
    try:
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)


def test_a_failed_run_is_reported_failed_and_a_fine_one_completed(worker: str) -> None:
    async def main() -> dict[str, Any]:
        async with DurableClient(worker) as client:
            results = {}
            for definition in ("failing", "fine"):
                run = await client.submit(f"a-{definition}", definition, "hi")
                results[definition] = await run.result(120)
            return results

    results = asyncio.run(main())
    failed = results["failing"]
    assert failed["status"] == "failed"
    assert failed["error"]["code"] == "PROVIDER_ERROR" and "boom" in failed["error"]["message"]
    assert results["fine"]["status"] == "completed" and results["fine"]["error"] is None
    assert results["fine"]["text"] == "hello there"
