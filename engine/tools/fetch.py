"""The ``fetch`` tool (SPEC 5): an HTTP GET of one web page or text file, returned as readable text.

Only ``http`` and ``https`` URLs; at most ``max_redirects`` redirects; one deadline for the whole request (a server
that drips bytes cannot hold the turn past it); at most ``max_bytes`` of body read, however large the page; content
types that are not text (images, archives, PDFs...) refused before their body is read. HTML becomes plain text with
headings, lists, links, tables and code blocks kept recognisable (stdlib ``html.parser``); when the page marks its
content with ``<main>`` or ``<article>``, only that part is kept, which drops menus and footers.

Where it connects (SPEC 5): every hop's URL is parsed once into one normalised host (``fetch_host``), the host the
permission rules saw; redirects are followed one by one, each checked in full: its host allowed by the policy, the
host resolved once, every address checked (``fetch_address``: no loopback, private, link-local or metadata address
unless the gate allows them; none that a deny rule names), and the request sent to the checked address itself, so
nothing can swap the answer between check and connect. A redirect to a host not allowed without asking is not
followed (the model is told to fetch it directly, which asks). The environment's proxy settings are not used: a
proxy would connect elsewhere.

httpx (the HTTP client the openai SDK is built on) is imported inside ``run``, so building an orchestrator never
loads it.
"""

from __future__ import annotations

import asyncio
import re
from html.parser import HTMLParser
from typing import TYPE_CHECKING
from urllib.parse import quote, urljoin

from pydantic import BaseModel, Field

from engine.errors import ToolError
from engine.record import record
from engine.text_diff import looks_binary
from engine.tools.base import FetchGate, Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.fetch_address import Resolver, checked_addresses, system_resolver
from engine.tools.fetch_host import FetchTarget, fetch_target

if TYPE_CHECKING:
    import httpx

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_BYTES = 5 * 1024 * 1024
DEFAULT_MAX_REDIRECTS = 5
USER_AGENT = "coder-tui (fetch tool; +https://pypi.org/project/coder-tui/)"
_ACCEPT = "text/html, text/markdown, text/plain, application/json;q=0.9, application/xml;q=0.8, */*;q=0.5"

_TEXT_TYPES = {
    "application/json",
    "application/xml",
    "application/xhtml+xml",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "application/yaml",
    "application/x-yaml",
    "application/toml",
    "application/x-sh",
    "application/sql",
    "application/graphql",
}
# What a query keeps as it is when the rest is percent-encoded (as httpx does when it parses a URL).
_QUERY_SAFE = "!$&'()*+,;=:@/?%"
_HTML_TYPES = {"text/html", "application/xhtml+xml"}
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)
_HTML_START = re.compile(rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)\b", re.IGNORECASE | re.DOTALL)


class FetchParams(BaseModel):
    url: str = Field(min_length=1, description="The http:// or https:// URL to get.")


@record
class _Page:
    url: str
    status: int
    content_type: str
    body: bytes
    charset: str | None
    # The body stopped at the size cap: what was read is the page's beginning.
    cut: bool


class FetchTool(Tool[FetchParams]):
    name = "fetch"
    description = (
        "Get a web page or text file over HTTP(S) and return its text: HTML is turned into readable text (headings "
        "as '#', links as [text](url), code blocks kept), JSON and plain text come back as they are. Use it for "
        "documentation, API references, issues or changelogs the user points to. Non-text content (images, PDFs, "
        "archives) is refused; long pages are cut with a 'truncated' note. It cannot log in or run JavaScript."
    )
    params = FetchParams
    kind = ToolKind.READ

    def __init__(
        self,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_redirects: int = DEFAULT_MAX_REDIRECTS,
        resolver: Resolver = system_resolver,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """``resolver`` and ``transport`` are the network's two ends, replaced only in tests (a fake DNS answer,
        a fake route to a local server): the checks between them are the same."""
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.resolver = resolver
        self.transport = transport

    def key_argument(self, params: FetchParams) -> str:
        return params.url

    async def run(self, params: FetchParams, ctx: ToolContext) -> ToolOutput:
        url = params.url.strip()
        fetch_target(url)
        page = await self._get(url, ctx.fetch_gate)
        text = _decode(page)
        data: dict[str, object] = {"url": page.url, "status": page.status, "content_type": page.content_type}
        if page.content_type in _HTML_TYPES or (not page.content_type and _HTML_START.match(page.body)):
            title, text = await asyncio.to_thread(html_to_text, text, page.url)
            if title:
                data["title"] = title
        notes = []
        if page.cut:
            notes.append(f"the page is larger than {self.max_bytes} bytes: only its beginning was read")
        cap = ctx.limits.output_cap_bytes
        if len(text) > cap:
            notes.append(f"truncated: showing the first {cap} of {len(text)} characters")
            text = text[:cap]
        data["content"] = text
        if notes:
            data["note"] = "; ".join(notes)
        return ToolOutput(data=data)

    async def _get(self, url: str, gate: FetchGate | None) -> _Page:
        import httpx

        try:
            async with asyncio.timeout(self.timeout_s):
                async with httpx.AsyncClient(
                    follow_redirects=False,
                    timeout=self.timeout_s,
                    headers={"User-Agent": USER_AGENT, "Accept": _ACCEPT},
                    # No proxy from the environment: the connection goes to the address that was checked.
                    trust_env=False,
                    transport=self.transport,
                ) as client:
                    return await self._follow(client, url, gate)
        except TimeoutError as exc:
            raise ToolError(f"fetching {url} timed out after {self.timeout_s:g}s") from exc
        except httpx.TimeoutException as exc:
            raise ToolError(f"fetching {url} timed out after {self.timeout_s:g}s") from exc
        except httpx.InvalidURL as exc:
            raise ToolError(f"cannot fetch {url}: {exc}") from exc
        except httpx.HTTPError as exc:
            raise ToolError(f"cannot fetch {url}: {_cause(exc)}") from exc

    async def _follow(self, client: httpx.AsyncClient, url: str, gate: FetchGate | None) -> _Page:
        """Each hop by hand: its host allowed, its name resolved once and every address checked, the request sent
        to the checked address (the name still in ``Host`` and in TLS's SNI and certificate check)."""
        first_host = fetch_target(url).host
        for hop in range(self.max_redirects + 1):
            try:
                target = fetch_target(url)
            except ToolError as exc:
                raise ToolError(f"the page redirected to a URL that is not http or https with a host: {exc}") from None
            if hop and target.host != first_host and gate is not None and not gate.host_allowed(target.host):
                raise ToolError(
                    f"the page redirected to {url}, on {target.host}, a host not allowed yet; fetch that URL itself "
                    "if it is needed (the user will be asked)"
                )
            request = await self._request_to_checked_address(client, target, gate)
            response = await client.send(request, stream=True)
            try:
                if not response.has_redirect_location:
                    return await self._read(response, url)
                url = urljoin(url, response.headers["location"])
            finally:
                await response.aclose()
        raise ToolError(f"{url} redirected more than {self.max_redirects} times; giving up")

    async def _request_to_checked_address(
        self, client: httpx.AsyncClient, target: FetchTarget, gate: FetchGate | None
    ) -> httpx.Request:
        import httpx

        private = gate is not None and gate.private_allowed()
        addresses = await checked_addresses(target.host, target.port, self.resolver, allow_private=private)
        for address in addresses if gate is not None else ():
            refusal = gate.address_denied(str(address))
            if refusal is not None:
                shown = target.host if target.host == str(address) else f"{target.host} ({address})"
                raise ToolError(f"refused to fetch from {shown}: {refusal}")
        checked = str(addresses[0])
        url = httpx.URL(scheme=target.scheme, host=checked, port=target.given_port, path=target.path)
        if target.query:
            url = url.copy_with(query=quote(target.query, safe=_QUERY_SAFE).encode("ascii"))
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        return client.build_request("GET", url, headers={"Host": target.host_header}, extensions=extensions)

    async def _read(self, response: httpx.Response, final_url: str) -> _Page:
        if response.status_code >= 400:
            raise ToolError(f"HTTP {response.status_code} {response.reason_phrase} from {final_url}")
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type and not _is_text_type(content_type):
            raise ToolError(f"{final_url} is {content_type}, not text; fetch only returns text content")
        chunks: list[bytes] = []
        size = 0
        cut = False
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > self.max_bytes:
                cut = True
                break
        body = b"".join(chunks)[: self.max_bytes]
        if looks_binary(body):
            shown = content_type or "without a content type"
            raise ToolError(f"{final_url} ({shown}) holds binary data, not text; fetch only returns text content")
        return _Page(final_url, response.status_code, content_type, body, response.charset_encoding, cut)


def _is_text_type(content_type: str) -> bool:
    return (
        content_type.startswith("text/")
        or content_type in _TEXT_TYPES
        or content_type.endswith("+json")
        or content_type.endswith("+xml")
    )


def _decode(page: _Page) -> str:
    """The charset the server declared, else one a ``<meta>`` declares, else UTF-8; bad bytes never fail it."""
    charset = page.charset
    if charset is None and (found := _META_CHARSET.search(page.body[:4096])):
        charset = found.group(1).decode("ascii", errors="ignore")
    try:
        return page.body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return page.body.decode("utf-8", errors="replace")


def _cause(exc: BaseException) -> str:
    """The innermost error's words: httpx's own are often just the class name."""
    seen = {id(exc)}
    while (inner := exc.__cause__ or exc.__context__) is not None and id(inner) not in seen:
        seen.add(id(inner))
        exc = inner
    return str(exc) or type(exc).__name__


# -- HTML to text ---------------------------------------------------------------------------------------------------

_SKIPPED = {"script", "style", "noscript", "template", "svg", "iframe", "object", "canvas", "head", "select"}
_FOCUS = {"main", "article"}
_PARAGRAPHS = {
    "p", "div", "section", "header", "footer", "nav", "aside", "ul", "ol", "dl", "table", "blockquote", "figure",
    "form", "details", "fieldset", "address", "hr", "main", "article",
}
_LINES = {"li", "tr", "br", "dt", "dd", "figcaption", "summary", "caption"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_PROTECTED = "\ue000"


def html_to_text(html: str, base_url: str) -> tuple[str, str]:
    """(title, text) of an HTML document; relative links are made absolute against ``base_url``."""
    parser = _TextExtractor(base_url)
    parser.feed(html)
    parser.close()
    return parser.title(), parser.text()


class _TextExtractor(HTMLParser):
    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self._base_url = base_url
        self._title: list[str] = []
        # Each piece of output, and whether it came from inside <main>/<article>.
        self._pieces: list[tuple[str, bool]] = []
        self._pre_blocks: list[str] = []
        self._pre: list[str] | None = None
        self._links: list[tuple[int, str | None]] = []
        self._cells = 0
        self._skip = 0
        self._focus = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and not self._title:
            self._in_title = True
        elif tag in _SKIPPED:
            self._skip += 1
        if self._skip or self._in_title:
            return
        if tag in _FOCUS:
            self._focus += 1
        if tag == "pre":
            self._emit("\n\n")
            self._pre = []
        elif self._pre is not None:
            return
        elif tag in _HEADINGS:
            self._emit("\n\n" + "#" * _HEADINGS[tag] + " ")
        elif tag == "li":
            self._emit("\n- ")
        elif tag in ("td", "th"):
            self._emit(" | " if self._cells else "")
            self._cells += 1
        elif tag == "tr":
            self._cells = 0
            self._emit("\n")
        elif tag == "a":
            self._links.append((len(self._pieces), _link_target(dict(attrs).get("href"), self._base_url)))
            self._emit("")
        elif tag == "code":
            self._emit("`")
        elif tag in _PARAGRAPHS:
            self._emit("\n\n")
        elif tag in _LINES:
            self._emit("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self._in_title:
            self._in_title = False
            return
        if tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
            return
        if self._skip:
            return
        if tag == "pre" and self._pre is not None:
            self._pre_blocks.append("```\n" + "".join(self._pre).strip("\n") + "\n```")
            self._pre = None
            self._emit(f"{_PROTECTED}{len(self._pre_blocks) - 1}{_PROTECTED}\n\n")
        elif self._pre is not None:
            return
        elif tag in _HEADINGS or tag in _PARAGRAPHS:
            self._emit("\n\n")
        elif tag == "a" and self._links:
            start, target = self._links.pop()
            if target and "".join(piece for piece, _ in self._pieces[start:]).strip():
                self._pieces[start] = ("[", self._pieces[start][1])
                self._emit(f"]({target})")
        elif tag == "code":
            self._emit("`")
        if tag in _FOCUS:
            self._focus = max(0, self._focus - 1)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title.append(data)
        elif self._skip:
            return
        elif self._pre is not None:
            self._pre.append(data)
        else:
            self._emit(re.sub(r"\s+", " ", data))

    def _emit(self, piece: str) -> None:
        self._pieces.append((piece, self._focus > 0))

    def title(self) -> str:
        return " ".join("".join(self._title).split())

    def text(self) -> str:
        focused = [piece for piece, inside in self._pieces if inside]
        chosen = focused if "".join(focused).strip() else [piece for piece, _ in self._pieces]
        lines = [" ".join(line.split()) for line in "".join(chosen).split("\n")]
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        return re.sub(f"{_PROTECTED}(\\d+){_PROTECTED}", lambda m: self._pre_blocks[int(m.group(1))], text)


def _link_target(href: str | None, base_url: str) -> str | None:
    """The absolute URL a link points to; None for in-page anchors and javascript: links, which mean nothing here."""
    if not href or href.startswith("#") or href.lower().startswith(("javascript:", "mailto:", "data:")):
        return None
    return urljoin(base_url, href)
