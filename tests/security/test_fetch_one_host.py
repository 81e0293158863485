"""SPEC 5, issue 40 item 7: ``fetch``'s rules, its private-address refusal and its connection use one normalised host.

A user who allowed private addresses (``fetch.allow_private``) and denied ``127.0.0.1`` (or ``localhost``) keeps a
local service out of reach in every spelling of its host: the model's calls go through the whole orchestrator (the
policy, the tool, the connection) and the test asserts what reached the listener on 127.0.0.1. A second listener on
127.0.0.2, allowed, shows that the requests would have arrived.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.modes import Mode
from engine.tools.fetch_host import normalised_host
from tests.security.test_fetch_reach import SECRET, Listener
from tests.security.test_fetch_reach import listener  # noqa: F401 (fixture)
from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

# Every spelling of 127.0.0.1 that reaches it: numeric forms the resolver reads, full-width and ideographic dots,
# full-width digits, trailing dots, IPv4-mapped IPv6 in its forms.
LOOPBACK_SPELLINGS = [
    "127.0.0.1", "2130706433", "0x7f.1", "0x7f000001", "017700000001", "127.1", "0177.0.0.1", "127.0.0.1.",
    "127。0。0。1", "127．0．0．1", "127｡0｡0｡1", "１２７.０.０.１", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
    "[0:0:0:0:0:FFFF:127.0.0.1]", "0x7F.0.0.1",
]  # fmt: skip
LOCALHOST_SPELLINGS = ["localhost", "LOCALHOST", "localhost.", "LocalHost..", "ｌｏｃａｌｈｏｓｔ", "localhost。"]


@pytest.fixture
def allowed() -> Iterator[Listener]:
    found = Listener(host="127.0.0.2")
    yield found
    found.close()


def _results(server: ScriptedServer) -> dict[str, dict]:  # type: ignore[type-arg]
    messages = server.requests[-1].body["messages"]
    return {m["tool_call_id"]: json.loads(m["content"]) for m in messages if m["role"] == "tool"}


async def _fetch_each(
    tmp_path: Path, server: ScriptedServer, urls: list[str], rules: dict[str, str]
) -> dict[str, dict]:  # type: ignore[type-arg]
    calls = [tool_call("fetch", id=f"f{i}", url=url) for i, url in enumerate(urls)]
    server.add(reply(*calls), text("done"))
    orch, _, _ = make_orchestrator(
        tmp_path, server.base_url, mode=Mode.AUTO_EDIT, fetch={"allow_private": True}, permissions={"fetch": rules}
    )
    await orch.run_input("read the local docs")
    return _results(server)


@pytest.mark.parametrize("rule", ["127.0.0.1", "2130706433", "127。0。0。1", "::ffff:127.0.0.1"])
async def test_a_deny_rule_for_loopback_holds_in_every_spelling(
    tmp_path: Path, scripted_server: ScriptedServer, listener: Listener, allowed: Listener, rule: str  # noqa: F811 (fixture)
) -> None:
    """The rule, in any spelling too, refuses every spelling of the host and every name that resolves to it."""
    urls = [f"http://{host}:{listener.port}/?ref={SECRET}" for host in [*LOOPBACK_SPELLINGS, *LOCALHOST_SPELLINGS]]
    urls.append(f"http://127.0.0.2:{allowed.port}/fine")
    results = await _fetch_each(tmp_path, scripted_server, urls, {rule: "deny"})
    assert listener.seen == []
    assert allowed.seen == ["/fine"]
    for index in range(len(urls) - 1):
        assert results[f"f{index}"]["ok"] is False, urls[index]
        assert "denied by permissions.fetch" in results[f"f{index}"]["error"]


async def test_a_deny_rule_for_localhost_holds_in_every_spelling(
    tmp_path: Path, scripted_server: ScriptedServer, listener: Listener  # noqa: F811 (fixture)
) -> None:
    urls = [f"http://{host}:{listener.port}/?ref={SECRET}" for host in LOCALHOST_SPELLINGS]
    urls.append(f"http://127.0.0.1:{listener.port}/by-address")
    results = await _fetch_each(tmp_path, scripted_server, urls, {"LocalHost.": "deny"})
    assert listener.seen == ["/by-address"]  # the rule names the name; the address itself was not denied
    for index in range(len(LOCALHOST_SPELLINGS)):
        assert "denied by permissions.fetch 'localhost'" in results[f"f{index}"]["error"]


async def test_a_redirect_to_a_denied_spelling_is_checked_again(
    tmp_path: Path, scripted_server: ScriptedServer, listener: Listener, allowed: Listener  # noqa: F811 (fixture)
) -> None:
    """An allowed host answers with redirects to the denied one, spelled differently each time: none is followed."""
    spellings = ["2130706433", "127。0。0。1", "[::ffff:127.0.0.1]", "localhost", "0x7f.1"]
    redirecting = Listener(
        host="127.0.0.2",
        routes={
            f"/r{i}": (302, {"Location": f"http://{host}:{listener.port}/?ref={SECRET}"}, b"")
            for i, host in enumerate(spellings)
        },
    )
    try:
        urls = [f"http://127.0.0.2:{redirecting.port}/r{i}" for i in range(len(spellings))]
        results = await _fetch_each(
            tmp_path, scripted_server, urls, {"127.0.0.1": "deny", "127.0.0.2": "allow"}
        )
        assert redirecting.seen == [f"/r{i}" for i in range(len(spellings))]
    finally:
        redirecting.close()
    assert listener.seen == []
    assert all(result["ok"] is False for result in results.values())


async def test_an_allowed_host_in_another_spelling_still_works(
    tmp_path: Path, scripted_server: ScriptedServer, allowed: Listener
) -> None:
    urls = [f"http://{host}:{allowed.port}/{i}" for i, host in enumerate(["127.0.0.2", "127。0。0。2", "2130706434"])]
    results = await _fetch_each(tmp_path, scripted_server, urls, {"127.0.0.1": "deny"})
    assert allowed.seen == ["/0", "/1", "/2"]
    assert all(result["ok"] for result in results.values())


@pytest.mark.parametrize("host", ["999.1.1.1", "a..b", "[::zz]", "4294967296", "1.0x1000000"])
def test_a_host_that_cannot_be_normalised_is_refused(host: str) -> None:
    with pytest.raises(ValueError, match="not a valid"):
        normalised_host(host.strip("[]"))
