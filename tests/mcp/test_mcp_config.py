"""The ``mcpServers`` configuration: shapes, environment expansion, and secrets that never
reach a repr or an error message."""

from __future__ import annotations

import json
import pathlib
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore.errors import ConfigurationError
from agentcore.mcp import (
    HttpParams,
    MCPServer,
    StdioParams,
    expand_env,
    load_mcp_servers,
    read_mcp_config,
)

CONFIG = {
    "mcpServers": {
        "files": {
            "command": "npx",
            "args": ["-y", "files-server", "${HOME_DIR}"],
            "env": {"TOKEN": "${FILES_TOKEN}", "MODE": "${MODE:-fast}"},
        },
        "remote": {
            "url": "https://mcp.example.com/mcp",
            "headers": {"Authorization": "Bearer ${REMOTE_KEY}"},
        },
        "legacy": {"type": "sse", "url": "http://127.0.0.1:8000/sse"},
        "off": {"command": "nothing", "disabled": True},
        "other": {"command": "tool", "autoApprove": ["x"]},
    }
}
ENV = {"HOME_DIR": "/home/ada", "FILES_TOKEN": "tok-files-123456", "REMOTE_KEY": "key-remote-98765"}


def test_the_common_shape_is_read_with_environment_expansion() -> None:
    servers = read_mcp_config(CONFIG, environ=ENV)
    assert sorted(servers) == ["files", "legacy", "other", "remote"]  # "off" is disabled
    assert servers["files"] == StdioParams(
        "npx", ("-y", "files-server", "/home/ada"), {"TOKEN": "tok-files-123456", "MODE": "fast"}
    )
    assert servers["remote"] == HttpParams(
        "https://mcp.example.com/mcp", {"Authorization": "Bearer key-remote-98765"}
    )
    assert servers["legacy"] == HttpParams("http://127.0.0.1:8000/sse", {}, "sse")
    assert servers["other"] == StdioParams("tool")  # unknown keys of other clients are ignored


def test_a_file_is_read_and_servers_are_built_without_starting(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"servers": {"files": CONFIG["mcpServers"]["files"]}}))
    servers = load_mcp_servers(path, environ=ENV, prefix_with_name=True, timeout=9)
    files = servers["files"]
    assert isinstance(files, MCPServer) and not files.connected
    assert (files.name, files.prefix, files.timeout) == ("files", "files", 9)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({}, 'needs a "mcpServers" object'),
        ({"mcpServers": {"x": []}}, "MCP server 'x': expected an object"),
        ({"mcpServers": {"x": {"args": []}}}, "MCP server 'x': needs \"command\""),
        ({"mcpServers": {"x": {"type": "ws", "url": "ws://h"}}}, "unknown type 'ws'"),
        ({"mcpServers": {"x": {"command": "c", "args": "a b"}}}, "x' args: must be a list"),
        ({"mcpServers": {"x": {"command": "c", "env": {"A": 1}}}}, "x' env: must be an object"),
        ({"mcpServers": {"x": {"url": "ftp://h"}}}, "must start with http:// or https://"),
        ({"mcpServers": {"x": {"command": ""}}}, '"command" must be a non-empty string'),
    ],
)
def test_malformed_entries_name_the_server_and_the_field(config: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message.replace("(", r"\(")):
        read_mcp_config(config, environ={})


def test_a_missing_variable_is_named_and_its_neighbours_values_are_not() -> None:
    with pytest.raises(ConfigurationError) as info:
        read_mcp_config(CONFIG, environ={"HOME_DIR": "/h", "FILES_TOKEN": "tok-files-123456"})
    text = str(info.value)
    assert "'REMOTE_KEY'" in text and "MCP server 'remote' headers Authorization" in text
    assert "tok-files-123456" not in text


def test_unreadable_and_invalid_files_are_clear_errors(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot read MCP configuration"):
        read_mcp_config(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {,}}')
    with pytest.raises(ConfigurationError, match=r"not valid JSON: .* \(line 1, column 17\)"):
        read_mcp_config(bad)


def test_reprs_hide_environment_values_headers_and_url_credentials() -> None:
    servers = read_mcp_config(CONFIG, environ=ENV)
    text = repr(servers) + repr(HttpParams("https://u:pw-123456@h.example/mcp?key=qk-123456"))
    for secret in ("tok-files-123456", "key-remote-98765", "pw-123456", "qk-123456"):
        assert secret not in text
    assert "h.example/mcp" in text


_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
_plain = st.text(alphabet=string.ascii_letters + string.digits + " /:-_.{}", max_size=30)


@given(_plain)
def test_text_without_references_is_unchanged(text: str) -> None:
    assert expand_env(text.replace("${", "$ {"), {}, where="w") == text.replace("${", "$ {")


@given(_names, _plain, _plain, st.text(max_size=20))
def test_a_reference_is_replaced_by_its_value(
    name: str, before: str, after: str, value: str
) -> None:
    before, after = before.replace("$", ""), after.replace("$", "")
    text = f"{before}${{{name}}}{after}"
    assert expand_env(text, {name: value}, where="w") == before + value + after


@given(_names, st.from_regex(r"[^}]{0,10}", fullmatch=True))
def test_a_default_applies_only_when_the_variable_is_unset(name: str, default: str) -> None:
    text = f"${{{name}:-{default}}}"
    assert expand_env(text, {}, where="w") == default
    assert expand_env(text, {name: "set"}, where="w") == "set"
    with pytest.raises(ConfigurationError, match=f"'{name}' is not set"):
        expand_env(f"${{{name}}}", {}, where="w")
