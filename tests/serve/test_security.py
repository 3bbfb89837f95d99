"""``agentcore serve`` against the pages a user has open: cross-site requests (CSRF), DNS
rebinding (a foreign ``Host``), bodies that are not JSON, and frontends allowed by origin.

The rules (``agentcore._serve.guard``) are pure, so they are stated as properties; the
attacks themselves go to a real server over HTTP, as a browser would send them.

Tests the private modules ``agentcore._serve.guard``, ``agentcore._serve.server`` and
``agentcore._app.serve``: the guard's rules, and the demo server."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import subprocess
import sys
import tempfile
import time

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore._serve.guard import check_origin, host_refusal, normal_origin, origin_refusal
from agentcore.errors import ConfigurationError
from agentcore.serve import ServeConfig

from .server_kit import free_port, serving

EVIL = "http://evil.example"
TEXT = {"content-type": "text/plain;charset=UTF-8"}

ports = st.one_of(st.just(""), st.integers(1, 65535).map(lambda p: f":{p}"))
labels = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)
names = (
    st.lists(labels, min_size=2, max_size=4)
    .map(".".join)
    .filter(lambda n: n != "localhost" and not n.endswith(".localhost"))
)


def _host(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    return f"[{address}]" if address.version == 6 else str(address)


# -- the rules -------------------------------------------------------------------------------


@given(st.ip_addresses(), ports)
def test_an_ip_literal_host_is_served(address: ipaddress.IPv4Address, port: str) -> None:
    """No DNS answer can put an attacker's page behind an address typed as an address."""
    assert host_refusal(_host(address) + port, ()) is None


@given(st.one_of(st.just("localhost"), labels.map(lambda n: f"{n}.localhost")), ports)
def test_localhost_names_are_served(name: str, port: str) -> None:
    assert host_refusal(name + port, ()) is None
    assert host_refusal(name.upper() + port, ()) is None


@given(names, ports)
def test_any_other_name_is_refused_unless_allowed(name: str, port: str) -> None:
    refused = host_refusal(name + port, ())
    assert refused is not None and "--allow-host" in refused and name in refused
    assert host_refusal(name + port, (name.upper(),)) is None
    assert host_refusal(name + port, ("*",)) is None
    assert host_refusal(name + port, ("other.example",)) is not None


def test_a_request_without_host_is_not_a_browsers() -> None:
    assert host_refusal(None, ()) is None


@given(st.sampled_from(["http", "https"]), st.one_of(names, st.just("127.0.0.1")), ports)
def test_the_pages_own_origin_may_change_state(scheme: str, name: str, port: str) -> None:
    host = name + port
    assert origin_refusal(f"{scheme}://{host}", "same-origin", host, ()) is None
    assert origin_refusal(f"{scheme}://{host}/".upper(), None, host, ()) is None


@given(names, names, ports, st.sampled_from([None, "cross-site", "same-site"]))
def test_a_foreign_origin_is_refused_unless_allowed(
    ours: str, theirs: str, port: str, site: str | None
) -> None:
    if ours == theirs:
        return
    origin = f"http://{theirs}{port}"
    refused = origin_refusal(origin, site, ours + port, ())
    assert refused is not None and f"--allow-origin {origin}" in refused
    assert origin_refusal(origin, site, ours + port, (origin + "/",)) is None


@pytest.mark.parametrize(
    ("origin", "site", "refused"),
    [
        (None, None, False),  # curl, an SDK: not a browser
        (None, "same-origin", False),
        (None, "none", False),  # typed in the address bar
        (None, "cross-site", True),
        (None, "same-site", True),
        ("null", None, True),  # a sandboxed frame, a file:// page
        ("http://127.0.0.1:8000", "same-origin", False),
        ("http://127.0.0.1:80", None, True),
        ("http://localhost:8000", "same-site", True),
    ],
)
def test_origin_rules(origin: str | None, site: str | None, refused: bool) -> None:
    assert (origin_refusal(origin, site, "127.0.0.1:8000", ()) is not None) is refused


def test_default_ports_and_case_do_not_make_two_origins() -> None:
    assert normal_origin("HTTP://Example.COM:80/") == "http://example.com"
    assert normal_origin("https://example.com:443") == "https://example.com"
    assert normal_origin("http://[::1]:8000") == "http://[::1]:8000"
    assert origin_refusal("http://example.com", None, "example.com:80", ()) is None


@pytest.mark.parametrize("bad", ["localhost:3000", "http://", "ftp://x.example", "http://a/b"])
def test_an_allowed_origin_must_be_one(bad: str) -> None:
    with pytest.raises(ValueError, match="is not an origin"):
        check_origin(bad)
    with pytest.raises(ConfigurationError, match="allow_origins"):
        ServeConfig(lambda model: {}, allow_origins=(bad,))


# -- the attacks, over HTTP ------------------------------------------------------------------


def test_a_cross_site_text_plain_post_changes_nothing() -> None:
    """The CSRF: a page elsewhere POSTs ``text/plain`` (no preflight) with its Origin."""

    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            body = b'{"agent_id": "mine"}'
            created = await client.post(
                f"{base}/agents", content=body, headers={**TEXT, "origin": EVIL}
            )
            assert created.status_code == 403, created.text
            assert "--allow-origin http://evil.example" in created.json()["error"]
            ours = (await client.post(f"{base}/agents", json={"agent_id": "a1"})).json()
            for route in ("messages", "steer", "follow_up", "approve", "interrupt"):
                sent = await client.post(
                    f"{base}/agents/a1/{route}",
                    content=b'{"text": "weather in Paris"}',
                    headers={**TEXT, "origin": EVIL},
                )
                assert sent.status_code == 403, (route, sent.text)
            for route in ("/chat", "/ag-ui"):
                sent = await client.post(
                    f"{base}{route}", content=b"{}", headers={**TEXT, "origin": EVIL}
                )
                assert sent.status_code == 403
            no_origin = await client.post(
                f"{base}/agents/a1/messages",
                content=b'{"text": "hi"}',
                headers={"content-type": "application/json", "sec-fetch-site": "cross-site"},
            )
            assert no_origin.status_code == 403
            listed = (await client.get(f"{base}/agents")).json()["agents"]
            assert [a["agent_id"] for a in listed] == [ours["agent_id"]]
            state = (await client.get(f"{base}/agents/a1/state")).json()
            assert state["messages"] == [] and not state["running"]

    asyncio.run(main())


def test_a_rebound_host_reads_nothing() -> None:
    """The DNS rebinding: a page whose name now points at 127.0.0.1 reads as same-origin."""

    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            await client.post(f"{base}/agents", json={"agent_id": "a1"})
            port = base.rsplit(":", 1)[1]
            evil = {"host": f"evil.example:{port}"}
            for path in (
                "/",
                "/agents",
                "/agents/a1/journal",
                "/agents/a1/state",
                "/agents/a1/timeline",
                "/agents/a1/events?after=0",
                "/static/app.js",
            ):
                read = await client.get(f"{base}{path}", headers=evil)
                assert read.status_code == 403, (path, read.status_code)
                assert "--allow-host" in read.json()["error"]
            sent = await client.post(
                f"{base}/agents", json={}, headers={**evil, "origin": f"http://{evil['host']}"}
            )
            assert sent.status_code == 403
            for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"app.localhost:{port}"):
                assert (await client.get(f"{base}/agents", headers={"host": host})).is_success
        async with serving(allow_hosts=("agents.lan",)) as base, httpx2.AsyncClient() as client:
            allowed = await client.get(f"{base}/agents", headers={"host": "agents.lan:80"})
            assert allowed.status_code == 200

    asyncio.run(main())


def test_the_pages_own_requests_and_a_clis_go_through() -> None:
    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            page = {"origin": base, "sec-fetch-site": "same-origin"}
            made = await client.post(f"{base}/agents", json={"agent_id": "p"}, headers=page)
            assert made.status_code == 201
            assert (await client.post(f"{base}/agents", json={"agent_id": "cli"})).is_success
            sent = await client.post(f"{base}/agents/p/messages", json={"text": "hi"}, headers=page)
            assert sent.status_code == 202
            bare = await client.post(f"{base}/agents/p/interrupt")  # no body: no content type
            assert bare.status_code == 202

    asyncio.run(main())


@pytest.mark.parametrize(
    "route", ["/agents", "/agents/a1/messages", "/agents/a1/steer", "/agents/a1/follow_up",
              "/agents/a1/approve", "/chat", "/ag-ui"]
)  # fmt: skip
def test_a_body_must_say_it_is_json(route: str) -> None:
    async def main() -> None:
        async with serving() as base, httpx2.AsyncClient(timeout=10) as client:
            await client.post(f"{base}/agents", json={"agent_id": "a1"})
            for headers in (TEXT, {"content-type": "application/x-www-form-urlencoded"}, {}):
                sent = await client.post(
                    f"{base}{route}", content=b'{"text": "x"}', headers=headers
                )
                assert sent.status_code == 415, (headers, sent.text)
                assert "Content-Type: application/json" in sent.json()["error"]
            utf8 = {"content-type": "Application/JSON; charset=utf-8"}
            sent = await client.post(f"{base}{route}", content=b"[", headers=utf8)
            assert sent.status_code == 400  # read as JSON (and found wanting)

    asyncio.run(main())


def test_an_allowed_frontend_gets_cors_and_no_other_does() -> None:
    ui = "http://localhost:3000"

    async def main() -> None:
        async with (
            serving(allow_origins=(ui,)) as base,
            httpx2.AsyncClient(timeout=10) as client,
        ):
            ask = {"access-control-request-method": "POST",
                   "access-control-request-headers": "content-type"}  # fmt: skip
            preflight = await client.options(f"{base}/chat", headers={**ask, "origin": ui})
            assert preflight.status_code == 200
            assert preflight.headers["access-control-allow-origin"] == ui
            assert "content-type" in preflight.headers["access-control-allow-headers"].lower()
            other = await client.options(f"{base}/chat", headers={**ask, "origin": EVIL})
            assert "access-control-allow-origin" not in other.headers
            made = await client.post(f"{base}/agents", json={}, headers={"origin": ui})
            assert made.status_code == 201
            assert made.headers["access-control-allow-origin"] == ui
            refused = await client.post(f"{base}/agents", json={}, headers={"origin": EVIL})
            assert refused.status_code == 403
            assert "access-control-allow-origin" not in refused.headers

    asyncio.run(main())


def test_the_token_stands_for_the_origin() -> None:
    """A request carrying the server's token cannot come from a page that does not know it."""

    async def main() -> None:
        async with serving(token="s3cret") as base, httpx2.AsyncClient(timeout=10) as client:
            foreign = {"origin": EVIL}
            denied = await client.post(f"{base}/agents", json={}, headers=foreign)
            assert denied.status_code == 401
            auth = {**foreign, "authorization": "Bearer s3cret"}
            assert (await client.post(f"{base}/agents", json={}, headers=auth)).status_code == 201
            preflight = await client.options(
                f"{base}/agents",
                headers={"origin": EVIL, "access-control-request-method": "POST"},
            )
            assert preflight.status_code != 401  # no CORS for it, but never a token demanded

    asyncio.run(main())


def test_agentcore_serve_refuses_both_attacks() -> None:
    """The reproduction: the default command, raw requests as a browser would send them."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "agentcore", "serve", "--port", str(port),
         "--journal-dir", tempfile.mkdtemp(), "--delay", "0.001"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _wait_for(port)

        def raw(method: str, path: str, host: str, body: bytes = b"", **headers: str) -> int:
            lines = [f"{method} {path} HTTP/1.1", f"host: {host}", "connection: close"]
            lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
            lines.append(f"content-length: {len(body)}")
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
                reply = b""
                while chunk := sock.recv(65536):
                    reply += chunk
            return int(reply.split()[1])

        ours = f"127.0.0.1:{port}"
        plain = "text/plain;charset=UTF-8"
        assert raw("POST", "/agents", ours, b'{"agent_id":"mine"}', content_type=plain,
                   origin=EVIL) == 403  # fmt: skip
        assert raw("POST", "/agents", ours, b'{"agent_id":"mine"}',
                   content_type="application/json") == 201  # fmt: skip
        assert raw("POST", "/agents/mine/messages", ours, b'{"text":"weather in Paris"}',
                   content_type=plain, origin=EVIL) == 403  # fmt: skip
        assert raw("GET", "/agents/mine/journal", ours) == 200
        assert raw("GET", "/agents/mine/journal", f"evil.example:{port}") == 403
    finally:
        server.terminate()
        server.wait(20)


def _wait_for(port: int) -> None:
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the server never listened")


def test_the_cli_takes_allow_origin_and_keeps_cors_origin(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcore import cli

    configs: list[ServeConfig] = []
    monkeypatch.setattr(
        "agentcore._serve.server.run", lambda config, *a, **k: configs.append(config)
    )
    argv = ["serve", "--allow-origin", "http://localhost:3000", "--cors-origin",
            "https://app.example", "--allow-host", "agents.lan"]  # fmt: skip
    assert cli.main(argv) == 0
    assert tuple(configs[0].allow_origins) == ("http://localhost:3000", "https://app.example")
    assert tuple(configs[0].allow_hosts) == ("agents.lan",)
    assert cli.main(["serve", "--allow-origin", "localhost:3000"]) == 2


def test_a_host_bound_by_name_is_served(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from agentcore._app.serve import agent_options
    from agentcore._serve import server

    apps: list[object] = []
    monkeypatch.setattr("uvicorn.Server.run", lambda self, sockets: apps.append(self.config.app))
    server.run(ServeConfig(agent_options(None, 0.0)), "box.lan", 9, out=io.StringIO())
    served = apps[0].state.server.config  # type: ignore[attr-defined]
    assert "box.lan" in served.allow_hosts
    server.run(ServeConfig(agent_options(None, 0.0)), "0.0.0.0", 9, out=io.StringIO())
    assert tuple(apps[1].state.server.config.allow_hosts) == ()  # type: ignore[attr-defined]
