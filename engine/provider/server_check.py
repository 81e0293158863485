"""``coder-tui --check-server`` and ``/doctor`` (SPEC 18): asks the configured server what it is, whether it
streams, whether tool calls come natively or as text, and its context window, and says it in a few lines a user can
paste into a bug report. No key, header or password of the URL is ever part of it.

The tool-call question is one small streamed request offering one tool and asking the model to call it; its answer
is read by the same code a turn uses (``stream_reader``, ``text_tool_calls``), on the API the model is served on
(Chat Completions, or the Responses API: ``responses_stream``).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from engine.errors import ProviderError
from engine.provider.base import TextChunk, ToolCallChunk
from engine.provider.server_probe import SERVER_NAMES, ServerInfo, http_library, probe_server
from engine.provider.responses_input import responses_body
from engine.provider.responses_stream import read_responses_stream
from engine.provider.stream_reader import read_stream
from engine.provider.text_tool_calls import OfferedTools, first_marker, parse_marked, parse_whole_json
from engine.record import record

CHECK_TIMEOUT_S = 60.0
_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file of the project.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "the file's path"}},
            "required": ["path"],
        },
    },
}
_ASK = "Call the read_file tool with path README.md. Do not answer with text."


@record
class ToolCallCheck:
    streamed: bool  # the answer came as an event stream of several events
    events: int
    tool_calls: str  # "native", "text", "none"
    detail: str  # the text format, or the model's words when there was no call
    seconds: float


@record
class ServerCheck:
    base_url: str
    model: str
    info: ServerInfo
    models: list[str] | None  # what /models listed; None when it did not answer
    call: ToolCallCheck | None
    error: str | None  # why the chat request failed
    window_in_use: int

    def report(self) -> str:
        kind = SERVER_NAMES.get(self.info.kind or "", "an OpenAI-compatible server (not a known local one)")
        version = f" {self.info.version}" if self.info.version else ""
        rows = [("server", f"{kind}{version} at {self.base_url}")]
        if self.models is None:
            offered = "the server did not list its models (GET /models)"
        elif self.model in self.models:
            offered = "offered by the server"
        else:
            listed = f"{len(self.models)} model{'' if len(self.models) == 1 else 's'}"
            offered = f"NOT among the {listed} the server lists ({', '.join(self.models[:5])})"
        rows.append(("model", f"{self.model} ({offered})"))
        if self.call is not None:
            rows.append(("streaming", f"yes ({self.call.events} events)" if self.call.streamed
                         else "no: the server sent the whole answer at once (it still works, without live text)"))
            rows.append(("tool calls", _tool_calls_text(self.call)))
        else:
            rows.append(("chat", f"failed: {self.error}"))
        if self.info.context_window:
            window = f"{self.info.context_window:,} tokens, from {self.info.window_from}"
        else:
            window = "not reported by the server"
        rows.append(("context", f"{window}; in use: {self.window_in_use:,}"))
        rows.append(("verdict", self.verdict()))
        width = max(len(key) for key, _ in rows)
        return "\n".join(f"  {key.ljust(width)}  {value}" for key, value in rows)

    @property
    def model_served(self) -> bool:
        """False when the server lists its models and the one configured is not among them."""
        return self.models is None or self.model in self.models

    def verdict(self) -> str:
        if not self.model_served:
            return (
                f"the server does not serve {self.model}: choose one of its models with --model NAME, CODER_MODEL "
                "or model in your config (or /model in coder-tui)"
            )
        if self.call is None:
            return "cannot chat with the model: fix the error above first"
        if self.call.tool_calls == "none":
            return "chat works, but the model made no tool call: coder-tui cannot edit or run anything with it"
        notes = []
        if self.call.tool_calls == "text":
            notes.append("tool calls come as text and are read as calls automatically")
        if self.info.context_window and self.info.context_window < 16_384:
            notes.append(f"the server runs the model with a small context ({self.info.context_window:,} tokens)")
        return "works with coder-tui" + (": " + "; ".join(notes) if notes else "")


def _tool_calls_text(call: ToolCallCheck) -> str:
    if call.tool_calls == "native":
        return f"native ({call.detail})"
    if call.tool_calls == "text":
        return f"written as text ({call.detail}), read as calls automatically"
    return f"none: the model answered {call.detail!r}"


async def check_server(
    base_url: str, model: str, *, api_key: str | None, headers: dict[str, str], window_in_use: int,
    timeout: float = CHECK_TIMEOUT_S, api: str = "chat",
) -> ServerCheck:
    httpx = http_library()
    auth = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    info = await probe_server(base_url, model, headers={**headers, **auth})
    async with httpx.AsyncClient(timeout=timeout, headers={**headers, **auth}) as client:
        models = await _models(client, base_url)
        call: ToolCallCheck | None = None
        error: str | None = None
        try:
            call = await _tool_call(client, base_url, model, api)
        except (httpx.HTTPError, ProviderError) as exc:
            error = str(exc) or type(exc).__name__
    return ServerCheck(_without_secrets(base_url), model, info, models, call, error, window_in_use)


async def _models(client: Any, base_url: str) -> list[str] | None:
    httpx = http_library()
    try:
        response = await client.get(f"{base_url.rstrip('/')}/models")
        data = response.json().get("data") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    if not isinstance(data, list):
        return None
    return [item["id"] for item in data if isinstance(item, dict) and isinstance(item.get("id"), str)]


async def _tool_call(client: Any, base_url: str, model: str, api: str) -> ToolCallCheck:
    messages = [{"role": "user", "content": _ASK}]
    if api == "responses":
        path, read = "responses", read_responses_stream
        body = responses_body(model, messages, [_TOOL], {"stream": True, "store": False, "max_output_tokens": 512})
    else:
        path, read = "chat/completions", read_stream
        body = {"model": model, "messages": messages, "tools": [_TOOL], "stream": True, "max_tokens": 512}
    started = time.monotonic()
    async with client.stream("POST", f"{base_url.rstrip('/')}/{path}", json=body) as response:
        if response.status_code != 200:
            text = (await response.aread()).decode(errors="replace")
            raise ProviderError(f"the server answered {response.status_code}: {_short(text)}")
        pieces = [piece async for piece in response.aiter_bytes()]
        content_type = response.headers.get("content-type", "")
    raw = b"".join(pieces)
    events = raw.count(b"data:")
    text, native = "", []
    async for chunk in read(_replay(pieces), content_type):
        if isinstance(chunk, TextChunk):
            text += chunk.text
        elif isinstance(chunk, ToolCallChunk) and chunk.name:
            native.append(chunk.name)
    seconds = time.monotonic() - started
    streamed = "event-stream" in content_type and events > 1
    if native:
        return ToolCallCheck(streamed, events, "native", f"called {', '.join(native)}", seconds)
    tools = OfferedTools.from_wire([_TOOL])
    stripped = text.strip()
    at = first_marker(stripped)
    calls = parse_marked(stripped[at:], tools) if at >= 0 else parse_whole_json(stripped, tools)
    if calls:
        marker = stripped[at:at + 40] if at >= 0 else "JSON"
        return ToolCallCheck(streamed, events, "text", f"{_format_name(marker)}", seconds)
    return ToolCallCheck(streamed, events, "none", _short(stripped) or "(nothing)", seconds)


async def _replay(pieces: list[bytes]) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece


def _format_name(opening: str) -> str:
    for marker, name in (
        ("<tool_call>", "Hermes/Qwen <tool_call>"),
        ("<function=", "Qwen3-Coder <function=...>"),
        ("[TOOL_CALLS]", "Mistral [TOOL_CALLS]"),
        ("<|python_tag|>", "Llama <|python_tag|>"),
    ):
        if opening.startswith(marker):
            return name + (" with <function=...>" if marker == "<tool_call>" and "<function=" in opening else "")
    return "bare JSON"


def _short(text: str, limit: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _without_secrets(url: str) -> str:
    """The URL without a user or password and without its query (where some gateways take a key)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))

