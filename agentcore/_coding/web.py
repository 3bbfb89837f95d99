"""The ``webfetch`` and ``websearch`` tools.

``webfetch`` uses httpx2, markdownify and BeautifulSoup (the ``coding`` extra), imported
when a fetch runs, so the other tools work without them. ``websearch`` has no search
engine of its own: it calls a ``SearchBackend`` the caller provides (a vendor API, an
internal index); without one it answers every call with an error result saying so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol
from urllib.parse import urlsplit

import attrs

from .._loop.tools import Tool, ToolOutput, define_tool
from .images import image_media_type, is_pdf, to_image_content, to_pdf_content
from .results import failure
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head

__all__ = [
    "SearchBackend",
    "SearchResult",
    "create_webfetch_tool",
    "create_websearch_tool",
    "html_to_markdown",
    "html_to_text",
]

MAX_RESPONSE_BYTES = 5 * 1024 * 1024
_DROPPED_TAGS = ("script", "style", "noscript", "iframe", "object", "embed", "svg", "template")


def _soup(html: str) -> Any:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(_DROPPED_TAGS):
        tag.decompose()
    return soup


def html_to_markdown(html: str) -> str:
    """Markdown of an HTML page (scripts, styles and embeds dropped), ATX headings."""
    from markdownify import MarkdownConverter

    markdown = MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(_soup(html))
    return re.sub(r"\n{3,}", "\n\n", str(markdown)).strip()


def html_to_text(html: str) -> str:
    """The visible text of an HTML page, one block per line."""
    text = _soup(html).get_text("\n")
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def create_webfetch_tool(
    *,
    max_bytes: int = MAX_RESPONSE_BYTES,
    default_timeout: float = 30.0,
    max_timeout: float = 120.0,
    auto_resize_images: bool = True,
) -> Tool:
    """``webfetch(url, format?, timeout?)``: GET an http(s) URL (redirects followed) and
    return it as markdown (default), text or html; images as image content, PDFs as a
    document (``DocumentContent``). A response
    over ``max_bytes`` (5 MB) is refused; the text returned keeps 2,000 lines / 50 KB
    with a notice. Details: ``url``, ``final_url``, ``status``, ``content_type``,
    ``format``, ``fetched_bytes``, ``truncation``."""

    async def webfetch(args: dict[str, Any], ctx: Any) -> ToolOutput:
        url: str = args["url"]
        form: str = args.get("format", "markdown")
        timeout = min(float(args.get("timeout", default_timeout)), max_timeout)
        if not re.match(r"^https?://[^/\s]", url):
            return failure(f"url must start with http:// or https://, got {url!r}", url=url)
        try:
            import httpx2
        except ImportError:
            return failure("webfetch needs httpx2: pip install 'agentcore-engine[coding]'", url=url)
        body = bytearray()
        try:
            async with (
                httpx2.AsyncClient(follow_redirects=True, timeout=timeout) as client,
                client.stream("GET", url, headers=_HEADERS) as response,
            ):
                declared = int(response.headers.get("content-length") or 0)
                if declared > max_bytes:
                    return _too_large(url, declared, max_bytes)
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > max_bytes:
                        return _too_large(url, len(body), max_bytes)
                status = response.status_code
                content_type = response.headers.get("content-type", "")
                encoding = response.encoding or "utf-8"
                final_url = str(response.url)
        except httpx2.TimeoutException:
            return failure(f"fetching {url} timed out after {timeout:g} s", url=url)
        except httpx2.HTTPError as exc:
            return failure(f"fetching {url} failed: {type(exc).__name__}: {exc}", url=url)
        details: dict[str, Any] = {
            "url": url,
            "final_url": final_url,
            "status": status,
            "content_type": content_type,
            "format": form,
            "fetched_bytes": len(body),
            "truncation": None,
        }
        if status >= 400:
            return failure(f"{url} answered HTTP {status}", **details)
        media_type = image_media_type(bytes(body))
        if media_type is not None:
            image, image_details = await to_image_content(
                bytes(body), media_type, resize=auto_resize_images
            )
            return ToolOutput([image], details={**details, "image": image_details})
        if is_pdf(bytes(body)):
            name = urlsplit(final_url).path.rsplit("/", 1)[-1] or final_url
            document, document_details = to_pdf_content(bytes(body), name)
            return ToolOutput([document], details={**details, "document": document_details})
        text = bytes(body).decode(encoding, errors="replace")
        if form != "html" and ("html" in content_type or _looks_like_html(text)):
            text = html_to_markdown(text) if form == "markdown" else html_to_text(text)
        cut = truncate_head(text, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)
        if not cut.truncated:
            return ToolOutput(text, details=details)
        details["truncation"] = cut.as_details()
        notice = (
            f"[Content cut: showing {cut.output_lines} of {cut.total_lines} lines "
            f"({format_size(cut.output_bytes)} of {format_size(cut.total_bytes)}).]"
        )
        return ToolOutput(f"{cut.content}\n\n{notice}", details=details)

    return define_tool(
        "webfetch",
        "Fetch a URL (http or https) and return its content as markdown (default), plain "
        "text or raw html. Read-only.",
        {
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "Full URL, http:// or https://"},
                "format": {"enum": ["markdown", "text", "html"]},
                "timeout": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": f"Seconds (default {default_timeout:g}, at most "
                    f"{max_timeout:g})",
                },
            },
            "required": ["url"],
            "additionalProperties": False,
        },
        webfetch,
    )


_HEADERS = {
    "User-Agent": "agentcore-webfetch/1",
    "Accept": "text/markdown;q=1.0, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1",
}


def _looks_like_html(text: str) -> bool:
    head = text[:512].lstrip().lower()
    return head.startswith(("<!doctype html", "<html"))


def _too_large(url: str, size: int, max_bytes: int) -> ToolOutput:
    return failure(
        f"{url} is larger than the {format_size(max_bytes)} webfetch accepts "
        f"({format_size(size)} or more)",
        url=url,
        fetched_bytes=size,
    )


@attrs.frozen(slots=True)
class SearchResult:
    """One web search hit."""

    title: str
    url: str
    snippet: str = ""


class SearchBackend(Protocol):
    """A web search engine for ``websearch``."""

    async def search(self, query: str, *, num_results: int) -> Sequence[SearchResult]:
        """At most ``num_results`` hits for ``query``, best first."""
        ...


def create_websearch_tool(backend: SearchBackend | None = None) -> Tool:
    """``websearch(query, num_results?)`` through ``backend``; with none, every call is an
    error result saying that no search backend is configured. Details: ``query``,
    ``results`` (the hits as JSON)."""

    async def websearch(args: dict[str, Any], ctx: Any) -> ToolOutput:
        query: str = args["query"]
        if backend is None:
            return failure(
                "websearch is not available: no search backend is configured "
                "(create_websearch_tool(backend=...)); answer without it or use webfetch on "
                "a known URL",
                query=query,
            )
        try:
            wanted = args.get("num_results", 8)
            hits = list(await backend.search(query, num_results=wanted))[:wanted]
        except Exception as exc:  # a failing backend is reported to the model, not raised
            return failure(f"web search failed: {type(exc).__name__}: {exc}", query=query)
        results = [attrs.asdict(hit) for hit in hits]
        if not hits:
            return ToolOutput(f"No results for {query!r}.", details={"query": query, "results": []})
        text = "\n\n".join(
            f"{i}. {hit.title}\n   {hit.url}" + (f"\n   {hit.snippet}" if hit.snippet else "")
            for i, hit in enumerate(hits, 1)
        )
        return ToolOutput(text, details={"query": query, "results": results})

    return define_tool(
        "websearch",
        "Search the web; returns titles, URLs and snippets of the best results.",
        {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "num_results": {"type": "integer", "minimum": 1, "maximum": 10},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        websearch,
    )
