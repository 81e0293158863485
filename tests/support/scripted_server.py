"""A scripted OpenAI-compatible Chat Completions server: the one way tests, benchmarks and manual tries reach a model.

Real HTTP on 127.0.0.1 (standard library only, served from a daemon thread, so sync and async callers alike can use
it). ``POST /v1/chat/completions`` consumes one scripted reply per request, in order, and answers exactly as OpenAI
does: SSE ``data: {chunk}`` events ending in ``data: [DONE]`` when ``stream`` is true, a JSON completion otherwise.
``GET /v1/models`` lists the model names. ``answer(method, path, payload)`` gives any other route (or that one) a
fixed JSON answer, to play a local server's own endpoints (Ollama's ``/api/show``, llama.cpp's ``/props``...).
Every request is recorded so a test can assert what the client sent, and
timed from its request line to the end of the answer: ``GET /v1/_scripted/stats`` returns those spans
(``{"served": [[start, end], ...]}``, seconds on the server's clock) so a benchmark can tell server time from
client time.

Manual tries (for example in tmux), from the repository root, or as ``coder-tui-demo-server`` from anywhere after
``pip install -e .``::

    python -m tests.support.scripted_server --port 8765 [--scenario path.py]

A scenario file defines ``REPLIES`` (a list built with ``tests.support.scenario`` helpers) and optionally
``fallback(body) -> reply``; with no scenario the demo fallback of ``tests.support.demo`` answers every request.
"""

from __future__ import annotations

import argparse
import json
import runpy
import select
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.scenario import (
    Broken,
    ErrorReply,
    RawReply,
    Reply,
    ReplyLike,
    ScriptedReply,
    Slow,
    Stall,
    as_reply,
)

PROBE_USER_AGENT = "coder-tui (server probe)"  # as engine.provider.server_probe sends it
NO_REPLY_LEFT = "scripted server: no reply left for this request"
CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"
STATS_PATH = "/v1/_scripted/stats"
# How often a stalled reply checks whether the client left or the server is stopping.
_STALL_POLL_S = 0.02

Fallback = Callable[[dict[str, Any]], ReplyLike]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it. ``client_closed`` is set when the client hung up mid-reply."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # the parsed JSON body; None for GET
    client_closed: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)


class ScriptedServer:
    """Serves scripted replies in FIFO order; ``fallback`` answers when the script is empty (else HTTP 500)."""

    def __init__(
        self,
        replies: Iterable[ReplyLike] = (),
        *,
        fallback: Fallback | None = None,
        port: int = 0,
        models: Sequence[str] = ("scripted-model",),
        log: Callable[[str], None] | None = None,
    ) -> None:
        self._script: deque[ScriptedReply] = deque(as_reply(item) for item in replies)
        self._fallback = fallback
        self._port = port
        self.models = tuple(models)
        self._log = log
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._call_ids = count(1)
        self.served: list[tuple[float, float]] = []  # each chat request's (start, end), time.perf_counter()
        # Set by stop(); slow and stalled replies wait on it, so none outlives the server.
        self.stopping = threading.Event()
        self.fixed: dict[tuple[str, str], tuple[int, Any]] = {}  # (method, path): (status, JSON payload)
        # What coder-tui's server probe asked (its own user agent), kept apart so ``requests`` stays the script's.
        self.probes: list[RecordedRequest] = []
        self._httpd: _ScriptedHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ScriptedServer:
        if self._httpd is not None:
            raise RuntimeError("scripted server: already started")
        self._httpd = _ScriptedHTTPServer(("127.0.0.1", self._port), _ScriptedHandler, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stops serving, ends stalled replies and closes kept-alive connections so no thread lingers."""
        if self._httpd is None:
            return
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.close_open_connections()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("scripted server: not started")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def answer(self, method: str, path: str, payload: Any, status: int = 200) -> None:
        """Answers ``method path`` (no query string) with ``payload`` as JSON, before any built-in route."""
        self.fixed[(method.upper(), path.rstrip("/"))] = (status, payload)

    def add(self, *replies: ReplyLike) -> None:
        with self._lock:
            self._script.extend(as_reply(item) for item in replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def served_in(self, start: float) -> None:
        with self._lock:
            self.served.append((start, time.perf_counter()))

    def record(self, request: RecordedRequest) -> None:
        if request.headers.get("user-agent", "").startswith(PROBE_USER_AGENT):
            with self._lock:
                self.probes.append(request)
            return
        with self._lock:
            self._requests.append(request)
        if self._log is not None:
            self._log(f"{request.method} {request.path}")

    def next_reply(self, body: dict[str, Any]) -> ScriptedReply | None:
        with self._lock:
            if self._script:
                return self._script.popleft()
        return as_reply(self._fallback(body)) if self._fallback is not None else None

    def next_call_id(self) -> str:
        """Ids for tool calls scripted without one: unique for the server's life, the same on every run."""
        with self._lock:
            return f"call_{next(self._call_ids)}"


class _ScriptedHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], scripted: ScriptedServer):
        self.scripted = scripted
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, handler)

    def track(self, connection: socket.socket, open_: bool) -> None:
        with self._connections_lock:
            (self._connections.add if open_ else self._connections.discard)(connection)

    def close_open_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by the client

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client hanging up is part of the scenarios (cancellation tests); anything else is a real bug.
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)


class _ScriptedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streaming, as real servers do
    server: _ScriptedHTTPServer

    def setup(self) -> None:
        super().setup()
        # Each SSE event is its own small write: without TCP_NODELAY, Nagle's algorithm and delayed ACKs add about
        # 40 ms to every response, which would drown what the benchmarks measure.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:
        """Silenced: requests are recorded (and logged through ``ScriptedServer(log=...)``) instead."""

    @property
    def scripted(self) -> ScriptedServer:
        return self.server.scripted

    @property
    def route(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/")

    def parse_request(self) -> bool:
        self.started = time.perf_counter()  # the request line has just arrived
        return super().parse_request()

    def do_GET(self) -> None:
        if self.route == STATS_PATH:
            with self.scripted._lock:
                served = list(self.scripted.served)
            self._send_json(200, {"served": served})
            return
        self.scripted.record(RecordedRequest("GET", self.path, self._headers(), None))
        if ("GET", self.route) in self.scripted.fixed:
            self._send_json(*self.scripted.fixed[("GET", self.route)])
        elif self.route == MODELS_PATH:
            models = [{"id": name, "object": "model", "created": 0, "owned_by": "scripted"}
                      for name in self.scripted.models]
            self._send_json(200, {"object": "list", "data": models})
        else:
            self._send_error(404, f"scripted server: no route for GET {self.path}")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"null")
        except ValueError as exc:
            self.scripted.record(RecordedRequest("POST", self.path, self._headers(), None))
            self._send_error(400, f"scripted server: the request body is not JSON: {exc}")
            return
        request = RecordedRequest("POST", self.path, self._headers(), body)
        self.scripted.record(request)
        if ("POST", self.route) in self.scripted.fixed:
            self._send_json(*self.scripted.fixed[("POST", self.route)])
            return
        if self.route != CHAT_PATH:
            self._send_error(404, f"scripted server: no route for POST {self.path}")
            return
        if not isinstance(body, dict):
            self._send_error(400, "scripted server: the request body must be a JSON object")
            return
        scripted_reply = self.scripted.next_reply(body)
        if scripted_reply is None:
            self._send_error(500, NO_REPLY_LEFT)
            return
        try:
            self._serve(scripted_reply, body, request)
        except (BrokenPipeError, ConnectionResetError):
            request.client_closed.set()
            self.close_connection = True
        self.scripted.served_in(self.started)

    def _serve(self, scripted_reply: ScriptedReply, body: dict[str, Any], request: RecordedRequest) -> None:
        streaming = bool(body.get("stream"))
        model = str(body.get("model") or self.scripted.models[0])
        match scripted_reply:
            case RawReply():
                self._send_raw(scripted_reply)
            case ErrorReply():
                self._send_json(scripted_reply.status, scripted_reply.body(), scripted_reply.headers())
            case Reply() | Slow() if not streaming:
                turn = scripted_reply.reply if isinstance(scripted_reply, Slow) else scripted_reply
                self._send_json(200, turn.completion(model, self.scripted.next_call_id))
            case Reply():
                self._stream(scripted_reply, model, delay=0.0)
            case Slow(reply=turn, delay=delay):
                self._stream(turn, model, delay)
            case Stall(after=after, seconds=seconds):
                self._send_partial(after, model, streaming)
                self._hang(seconds, request)
                self.close_connection = True
            case Broken(after=after):
                # Closing after the partial body leaves the chunked stream unterminated, as a dropped link does.
                self._send_partial(after, model, streaming)
                self.close_connection = True

    def _stream(self, turn: Reply, model: str, delay: float) -> None:
        self._start_stream()
        for position, chunk in enumerate(turn.stream_chunks(model, self.scripted.next_call_id)):
            if delay and position and self.scripted.stopping.wait(delay):
                self.close_connection = True
                return
            self._send_event(json.dumps(chunk))
        self._send_event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")

    def _send_raw(self, raw: RawReply) -> None:
        self.send_response(raw.status)
        self.send_header("Content-Type", raw.content_type)
        if not raw.is_event_stream:
            self.send_header("Content-Length", str(len(raw.body)))
            self.end_headers()
            self.wfile.write(raw.body)
            return
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in raw.events():
            self.wfile.write(f"{len(event):X}\r\n".encode() + event + b"\r\n")
        if raw.drop:
            self.close_connection = True
        else:
            self.wfile.write(b"0\r\n\r\n")

    def _send_partial(self, after: Reply | None, model: str, streaming: bool) -> None:
        """Headers and the content chunks of ``after`` (no finish chunk, no ``[DONE]``); nothing when not streaming."""
        if not streaming:
            return
        self._start_stream()
        if after is not None:
            for chunk in after.content_chunks(model, self.scripted.next_call_id):
                self._send_event(json.dumps(chunk))

    def _hang(self, seconds: float, request: RecordedRequest) -> None:
        """Waits until the client hangs up, the server stops, or ``seconds`` pass: never past ``stop()``."""
        remaining = seconds
        while remaining > 0:
            if self._client_left():
                request.client_closed.set()
                return
            if self.scripted.stopping.wait(min(_STALL_POLL_S, remaining)):
                return
            remaining -= _STALL_POLL_S

    def _client_left(self) -> bool:
        readable, _, _ = select.select([self.connection], [], [], 0)
        if not readable:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _send_event(self, data: str) -> None:
        payload = f"data: {data}\n\n".encode()
        self.wfile.write(f"{len(payload):X}\r\n".encode() + payload + b"\r\n")

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, status: int, message: str) -> None:
        self._send_json(status, ErrorReply(status, message).body())

    def _headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}


def load_scenario(path: Path) -> tuple[list[ReplyLike], Fallback | None]:
    """Reads ``REPLIES`` (required) and ``fallback`` (optional) from a scenario file."""
    namespace = runpy.run_path(str(path))
    if "REPLIES" not in namespace:
        raise SystemExit(f"{path}: a scenario file must define REPLIES = [...] (replies from tests.support.scenario)")
    return list(namespace["REPLIES"]), namespace.get("fallback")


def main(argv: Sequence[str] | None = None, prog: str = "python -m tests.support.scripted_server") -> int:
    from tests.support.demo import demo_reply

    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run the scripted OpenAI-compatible server in the foreground (Ctrl+C stops it).",
    )
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0 picks a free one)")
    parser.add_argument("--scenario", type=Path, help="a .py file defining REPLIES (and optionally fallback)")
    args = parser.parse_args(argv)
    replies, fallback = load_scenario(args.scenario) if args.scenario else ([], demo_reply)
    with ScriptedServer(replies, fallback=fallback, port=args.port, log=print) as server:
        print(f"scripted server on {server.base_url}  (OPENAI_BASE_URL={server.base_url})", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
