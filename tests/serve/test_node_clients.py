"""The frontends' own client libraries against a live ``agentcore serve``: the Vercel AI
SDK's transport and stream parser (npm ``ai``) and the AG-UI TypeScript client (npm
``@ag-ui/client``) each run a turn with a tool call, from a frontend origin allowed with
``allow_origins`` (what ``--allow-origin`` sets); from any other origin they are refused.

The packages are installed once, at pinned versions, with npm into
``~/.cache/agentcore-tests/npm`` (``$AGENTCORE_TEST_CACHE/npm``), as the project installs
its other real components; the scripts are ``tests/serve/node/*.mjs``."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import pathlib
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from .server_kit import serving

NPM_PACKAGES = {"ai": "6.0.325", "@ag-ui/client": "1.0.0"}
"""Pinned: ``ai`` 7 needs node 22, and Debian's node is 20."""
SCRIPTS = pathlib.Path(__file__).parent / "node"
FRONTEND = "http://localhost:3000"


@contextlib.contextmanager
def _locked(path: pathlib.Path) -> Iterator[None]:
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="module")
def node_modules() -> pathlib.Path:
    """The cache directory holding ``NPM_PACKAGES`` (installed by the first test run)."""
    assert shutil.which("node") and shutil.which("npm"), "node and npm are needed (.ci/)"
    root = pathlib.Path(os.environ.get("AGENTCORE_TEST_CACHE", "~/.cache/agentcore-tests"))
    cache = root.expanduser() / "npm"
    cache.mkdir(parents=True, exist_ok=True)
    manifest = {"name": "agentcore-tests", "private": True, "dependencies": NPM_PACKAGES}
    stamp = cache / "installed.json"
    with _locked(cache / ".lock"):
        if not stamp.exists() or json.loads(stamp.read_text()) != manifest:
            (cache / "package.json").write_text(json.dumps(manifest, indent=2))
            subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=cache,
                check=True,
                timeout=600,
            )
            stamp.write_text(json.dumps(manifest))
    return cache


async def _node(cache: pathlib.Path, script: str, base: str, origin: str) -> tuple[int, str]:
    """Run ``tests/serve/node/<script>`` from the cache (its packages resolve there)."""
    source = (SCRIPTS / script).read_text()
    process = await asyncio.create_subprocess_exec(
        "node", "--input-type=module", "-e", source, base, origin,
        cwd=cache, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode()


def _both(cache: pathlib.Path, script: str) -> tuple[Any, str]:
    """The script's result from the allowed frontend, and its output from another origin."""

    async def main() -> tuple[Any, str]:
        async with serving(allow_origins=(FRONTEND,)) as base:
            code, out = await _node(cache, script, base, FRONTEND)
            assert code == 0, out
            refused, said = await _node(cache, script, base, "http://evil.example")
            assert refused != 0, said
            return json.loads(out.strip().splitlines()[-1]), said

    return asyncio.run(main())


def test_the_ai_sdk_runs_a_tool_turn(node_modules: pathlib.Path) -> None:
    result, refused = _both(node_modules, "ai_sdk_chat.mjs")
    headers, message = result["headers"], result["message"]
    assert headers["access-control-allow-origin"] == FRONTEND
    assert headers["x-vercel-ai-ui-message-stream"] == "v1"
    parts = [p for p in message["parts"] if p["type"] != "step-start"]
    assert [p["type"] for p in parts] == ["text", "tool-get_weather", "text"]
    tool = parts[1]
    assert tool["state"] == "output-available" and tool["input"] == {"city": "Paris"}
    assert tool["output"].startswith("Paris: 18 °C")
    assert parts[2]["text"] == f"The tool get_weather returned: {tool['output']}"
    assert message["metadata"]["model"] == "agentcore/demo"
    assert "--allow-origin http://evil.example" in refused  # the server's 403, as thrown


def test_the_ag_ui_client_runs_a_tool_turn(node_modules: pathlib.Path) -> None:
    result, refused = _both(node_modules, "ag_ui_run.mjs")
    types = result["types"]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert {"TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"} <= set(types)
    user, asked, answered, final = result["messages"]
    assert user["role"] == "user"
    call = asked["toolCalls"][0]
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    assert answered == {
        "id": answered["id"],
        "role": "tool",
        "toolCallId": call["id"],
        "content": "Paris: 18 °C, light rain, wind 12 km/h",
    }
    assert final["role"] == "assistant" and final["content"].endswith(answered["content"])
    assert "HTTP 403" in refused
