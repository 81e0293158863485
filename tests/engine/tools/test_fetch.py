"""SPEC 5: fetch(url) is an HTTP GET with a timeout, a size cap and limited redirects, for http and https only;
HTML comes back as readable text, non-text content is refused. Served by a local http.server on 127.0.0.1."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engine.errors import ToolError
from engine.modes import Mode
from engine.policy import Action, PermissionPolicy
from engine.tools.base import ToolContext, ToolKind
from engine.tools.fetch import FetchTool, html_to_text
from engine.tools.guard import Workspace
from tests.engine.tools.support import run_tool, with_limits

PAGE = """<!doctype html>
<html><head><title>Widget  docs</title><style>body { color: red }</style>
<script>document.write("nope")</script></head>
<body>
<nav><a href="/">Home</a> | <a href="/blog">Blog</a></nav>
<main>
  <h1>Widgets &amp; gadgets</h1>
  <p>A widget   is <b>small</b>.
     See the <a href="api.html">API reference</a> and <a href="#install">install</a>.</p>
  <h2>Install</h2>
  <ol><li>Download it.</li><li>Run <code>make install</code>.</li></ol>
  <pre>def widget():
    return 42
</pre>
  <table><tr><th>Name</th><th>Size</th></tr><tr><td>tiny</td><td>1</td></tr></table>
</main>
<footer>Copyright</footer>
</body></html>"""

Route = tuple[int, dict[str, str], bytes]


class _Handler(BaseHTTPRequestHandler):
    routes: dict[str, Callable[[], Route]] = {}

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        make = self.routes.get(self.path)
        status, headers, body = make() if make else (404, {"Content-Type": "text/plain"}, b"no such page")
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[tuple[str, threading.Event]]:
    """The base URL of a local site, and an event that releases its slow page."""
    release = threading.Event()

    def slow() -> Route:
        release.wait(10)
        return 200, {"Content-Type": "text/plain"}, b"late"

    html = {"Content-Type": "text/html; charset=utf-8"}
    routes: dict[str, Callable[[], Route]] = {
        "/page.html": lambda: (200, html, PAGE.encode()),
        "/data.json": lambda: (200, {"Content-Type": "application/json"}, b'{"version": "1.2.3"}'),
        "/notes.txt": lambda: (200, {"Content-Type": "text/plain"}, "caf\u00e9\n".encode()),
        "/latin1.txt": lambda: (200, {"Content-Type": "text/plain; charset=iso-8859-1"}, "caf\u00e9".encode("latin-1")),
        "/meta.html": lambda: (200, {"Content-Type": "text/html"},
                               '<meta charset="windows-1252"><p>caf\u00e9</p>'.encode("cp1252")),
        "/untyped": lambda: (200, {}, b"<!DOCTYPE html><html><body><p>Hi</p></body></html>"),
        "/blob": lambda: (200, {}, b"\x00\x01\x02binary"),
        "/logo.png": lambda: (200, {"Content-Type": "image/png"}, b"\x89PNG\r\n\x1a\n"),
        "/big.txt": lambda: (200, {"Content-Type": "text/plain"}, b"x" * 5000),
        "/redirect": lambda: (302, {"Location": "/page.html"}, b""),
        "/loop": lambda: (302, {"Location": "/loop"}, b""),
        "/to-ftp": lambda: (302, {"Location": "ftp://example.com/file"}, b""),
        "/gone": lambda: (410, {"Content-Type": "text/plain"}, b"gone"),
        "/slow": slow,
    }
    handler = type("Handler", (_Handler,), {"routes": routes})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", release
    finally:
        release.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def base(site: tuple[str, threading.Event]) -> str:
    return site[0]


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The local site is reached directly even where the environment names a proxy."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


fetch = FetchTool()


class OpenGate:
    """The gate of a user who set fetch.allow_private: this module's site lives on 127.0.0.1."""

    def host_allowed(self, host: str) -> bool:
        return True

    def private_allowed(self) -> bool:
        return True

    def address_denied(self, address: str) -> str | None:
        return None


@pytest.fixture
def ctx(root: Path) -> ToolContext:
    return ToolContext(workspace=Workspace(root), fetch_gate=OpenGate())


def test_fetch_is_a_read_tool() -> None:
    assert fetch.kind is ToolKind.READ
    assert fetch.definition().parameters["required"] == ["url"]


async def test_fetch_turns_html_into_readable_text(ctx: ToolContext, base: str) -> None:
    output = await run_tool(fetch, ctx, url=f"{base}/page.html")
    assert output.data["url"] == f"{base}/page.html"
    assert (output.data["status"], output.data["content_type"]) == (200, "text/html")
    assert output.data["title"] == "Widget docs"
    assert output.data["content"] == (
        "# Widgets & gadgets\n\n"
        f"A widget is small. See the [API reference]({base}/api.html) and install.\n\n"
        "## Install\n\n"
        "- Download it.\n"
        "- Run `make install`.\n\n"
        "```\ndef widget():\n    return 42\n```\n\n"
        "Name | Size\n"
        "tiny | 1"
    )
    assert "note" not in output.data


def test_html_without_main_keeps_the_whole_body_and_drops_scripts() -> None:
    title, text = html_to_text(
        "<html><body><div>One<br>Two</div><script>x()</script><noscript>enable js</noscript><p>Three</p></body></html>",
        "https://example.com/",
    )
    assert (title, text) == ("", "One\nTwo\n\nThree")


async def test_fetch_returns_json_and_text_as_they_are(ctx: ToolContext, base: str) -> None:
    output = await run_tool(fetch, ctx, url=f"{base}/data.json")
    assert output.data["content"] == '{"version": "1.2.3"}' and "title" not in output.data
    output = await run_tool(fetch, ctx, url=f"{base}/notes.txt")
    assert output.data["content"] == "café\n"


async def test_fetch_decodes_the_declared_charset(ctx: ToolContext, base: str) -> None:
    assert (await run_tool(fetch, ctx, url=f"{base}/latin1.txt")).data["content"] == "café"
    assert (await run_tool(fetch, ctx, url=f"{base}/meta.html")).data["content"] == "café"


async def test_fetch_sniffs_html_without_a_content_type(ctx: ToolContext, base: str) -> None:
    output = await run_tool(fetch, ctx, url=f"{base}/untyped")
    assert output.data["content"] == "Hi"


async def test_fetch_refuses_non_text_content(ctx: ToolContext, base: str) -> None:
    with pytest.raises(ToolError, match=r"/logo.png is image/png, not text; fetch only returns text content"):
        await run_tool(fetch, ctx, url=f"{base}/logo.png")
    with pytest.raises(ToolError, match=r"/blob \(without a content type\) holds binary data"):
        await run_tool(fetch, ctx, url=f"{base}/blob")


async def test_fetch_caps_the_download_and_the_output(ctx: ToolContext, base: str) -> None:
    capped = FetchTool(max_bytes=1000)
    output = await run_tool(capped, with_limits(ctx, output_cap_bytes=300), url=f"{base}/big.txt")
    assert output.data["content"] == "x" * 300
    assert output.data["note"] == (
        "the page is larger than 1000 bytes: only its beginning was read; "
        "truncated: showing the first 300 of 1000 characters"
    )


async def test_fetch_follows_redirects_and_reports_the_final_url(ctx: ToolContext, base: str) -> None:
    output = await run_tool(fetch, ctx, url=f"{base}/redirect")
    assert output.data["url"] == f"{base}/page.html"
    assert output.data["title"] == "Widget docs"


async def test_fetch_limits_redirects(ctx: ToolContext, base: str) -> None:
    with pytest.raises(ToolError, match=r"/loop redirected more than 3 times; giving up"):
        await run_tool(FetchTool(max_redirects=3), ctx, url=f"{base}/loop")


async def test_fetch_refuses_a_redirect_to_another_scheme(ctx: ToolContext, base: str) -> None:
    with pytest.raises(ToolError, match="redirected to a URL that is not http or https"):
        await run_tool(fetch, ctx, url=f"{base}/to-ftp")


async def test_fetch_http_error_status_is_a_tool_error(ctx: ToolContext, base: str) -> None:
    with pytest.raises(ToolError, match=r"^HTTP 410 Gone from .*/gone$"):
        await run_tool(fetch, ctx, url=f"{base}/gone")
    with pytest.raises(ToolError, match=r"^HTTP 404 Not Found from"):
        await run_tool(fetch, ctx, url=f"{base}/missing")


async def test_fetch_times_out(ctx: ToolContext, base: str) -> None:
    with pytest.raises(ToolError, match=r"/slow timed out after 0.2s"):
        await run_tool(FetchTool(timeout_s=0.2), ctx, url=f"{base}/slow")


async def test_fetch_connection_refused_is_a_tool_error(ctx: ToolContext, refused_port: int) -> None:
    with pytest.raises(ToolError, match=rf"^cannot fetch http://127.0.0.1:{refused_port}/: "):
        await run_tool(fetch, ctx, url=f"http://127.0.0.1:{refused_port}/")


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("file:///etc/passwd", "it has the scheme 'file'; only http:// and https:// URLs are fetched"),
        ("ftp://example.com/x", "it has the scheme 'ftp'"),
        ("example.com/page", "it has no scheme"),
        ("http:///path-only", "the URL has no host"),
    ],
)
async def test_fetch_only_takes_http_and_https_urls(ctx: ToolContext, url: str, problem: str) -> None:
    with pytest.raises(ToolError, match=f"cannot fetch {url!r}: ") as caught:
        await run_tool(fetch, ctx, url=url)
    assert problem in str(caught.value)


def test_importing_fetch_loads_no_httpx() -> None:
    code = "import sys, engine.tools.fetch; sys.exit('httpx' in sys.modules)"
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_fetch_asks_per_host_in_plan_and_default_and_runs_unasked_in_auto_edit_and_yolo() -> None:
    url = {"url": "https://example.com/x"}
    for mode in (Mode.PLAN, Mode.DEFAULT):
        decision = PermissionPolicy(mode).decide("fetch", FetchTool.kind, url)
        assert decision.action is Action.ASK
        assert decision.always_scope == "fetch from example.com"
    for mode in (Mode.AUTO_EDIT, Mode.YOLO):
        assert PermissionPolicy(mode).decide("fetch", FetchTool.kind, url).action is Action.ALLOW
