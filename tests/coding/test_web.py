"""webfetch against a server on 127.0.0.1 started here; websearch through a backend."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from agentcore.coding import SearchResult, create_webfetch_tool, create_websearch_tool
from agentcore.events import DocumentContent, ImageContent
from tests.coding.test_file_tools import PDF

PAGE = b"""<!doctype html><html><head><title>T</title><style>p{color:red}</style>
<script>alert('no')</script></head><body><h1>Title</h1><p>Some <b>bold</b> text and
a <a href="/x">link</a>.</p><ul><li>one</li><li>two</li></ul></body></html>"""
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str, length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/page":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif self.path == "/plain":
            self._send(200, "caf\u00e9\n".encode("latin-1"), "text/plain; charset=latin-1")
        elif self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/declared-big":
            self.send_response(200)
            self.send_header("Content-Length", str(6 * 1024 * 1024))
            self.end_headers()
        elif self.path == "/streamed-big":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(7):
                self.wfile.write(b"x" * 1024 * 1024)
        elif self.path == "/long":
            self._send(200, b"".join(b"line %d\n" % i for i in range(3000)), "text/plain")
        elif self.path == "/image":
            self._send(200, PNG, "image/png")
        elif self.path == "/papers/spec.pdf?v=2":
            self._send(200, PDF, "application/pdf")
        elif self.path == "/slow":
            time.sleep(2)
            self._send(200, b"late", "text/plain")
        else:
            self._send(404, b"not here", "text/plain")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_html_becomes_markdown_without_scripts_or_styles(server: str, call: Any) -> None:
    out = call(create_webfetch_tool(), url=f"{server}/redirect")
    assert not out.is_error
    assert out.content.splitlines() == [
        "T",
        "",
        "# Title",
        "",
        "Some **bold** text and",
        "a [link](/x).",
        "",
        "- one",
        "- two",
    ]
    assert out.details["final_url"] == f"{server}/page" and out.details["status"] == 200


def test_text_and_html_formats_and_charset(server: str, call: Any) -> None:
    fetch = create_webfetch_tool()
    text = call(fetch, url=f"{server}/page", format="text").content
    assert text.splitlines()[:2] == ["T", "Title"] and "alert" not in text
    assert call(fetch, url=f"{server}/page", format="html").content == PAGE.decode()
    assert call(fetch, url=f"{server}/plain").content == "caf\u00e9\n"


def test_size_cap_declared_or_streamed(server: str, call: Any) -> None:
    fetch = create_webfetch_tool()
    for path in ("/declared-big", "/streamed-big"):
        out = call(fetch, url=f"{server}{path}")
        assert out.is_error and "larger than the 5.0 MB" in out.content


def test_errors_timeouts_and_bad_urls(server: str, call: Any) -> None:
    fetch = create_webfetch_tool()
    missing = call(fetch, url=f"{server}/missing")
    assert missing.is_error and "HTTP 404" in missing.content
    slow = call(fetch, url=f"{server}/slow", timeout=0.3)
    assert slow.is_error and "timed out" in slow.content
    assert "must start with http" in call(fetch, url="file:///etc/passwd").content


def test_long_pages_are_cut_with_a_notice_and_images_are_images(server: str, call: Any) -> None:
    fetch = create_webfetch_tool()
    out = call(fetch, url=f"{server}/long")
    assert out.content.splitlines()[1999] == "line 1999"
    assert "showing 2000 of 3000 lines" in out.content
    image = call(fetch, url=f"{server}/image")
    assert isinstance(image.content[0], ImageContent) and image.content[0].media_type == "image/png"


def test_pdfs_are_documents(server: str, call: Any) -> None:
    out = call(create_webfetch_tool(), url=f"{server}/papers/spec.pdf?v=2")
    (document,) = out.content
    assert isinstance(document, DocumentContent) and document.to_bytes() == PDF
    assert document.title == "spec.pdf"
    assert out.details["document"]["bytes"] == len(PDF)


class Engine:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.asked: list[tuple[str, int]] = []

    async def search(self, query: str, *, num_results: int) -> list[SearchResult]:
        self.asked.append((query, num_results))
        if self.fail:
            raise ConnectionError("engine down")
        return [SearchResult(f"R{i}", f"https://r{i}.example", f"about {query}") for i in range(20)]


def test_websearch_without_backend_is_a_clear_error(call: Any) -> None:
    out = call(create_websearch_tool(), query="python")
    assert out.is_error and "no search backend is configured" in out.content


def test_websearch_through_a_backend(call: Any) -> None:
    engine = Engine()
    out = call(create_websearch_tool(engine), query="python", num_results=2)
    assert out.content == (
        "1. R0\n   https://r0.example\n   about python\n\n"
        "2. R1\n   https://r1.example\n   about python"
    )
    assert engine.asked == [("python", 2)] and len(out.details["results"]) == 2
    failed = call(create_websearch_tool(Engine(fail=True)), query="x")
    assert failed.is_error and "engine down" in failed.content
