"""The scripted server's HTTP side: the routes, what a request is recorded as, and the handler that answers.

``ScriptedHandler`` serves each request from the ``ScriptedServer`` it belongs to (its script, fallback and fixed
answers) and writes the reply as OpenAI does: SSE chunks over chunked transfer encoding when streaming, a JSON
completion otherwise, and the broken and stalled replies the scenarios script. ``POST /v1/chat/completions`` answers
in Chat Completions form, ``POST /v1/responses`` in the Responses API's (``responses_wire``), from the same script.
``ScriptedHTTPServer`` keeps track of the open connections, so ``ScriptedServer.stop`` can close kept-alive ones and
no handler thread lingers.
"""

from __future__ import annotations

import json
import select
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from tests.support.responses_wire import response_events, whole_response
from tests.support.scenario import Broken, ErrorReply, RawReply, Reply, ScriptedReply, Slow, Stall

if TYPE_CHECKING:
    from tests.support.scripted_server import ScriptedServer

NO_REPLY_LEFT = "scripted server: no reply left for this request"
CHAT_PATH = "/v1/chat/completions"
RESPONSES_PATH = "/v1/responses"
MODELS_PATH = "/v1/models"
STATS_PATH = "/v1/_scripted/stats"
# How often a stalled reply checks whether the client left or the server is stopping.
_STALL_POLL_S = 0.02


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it. ``client_closed`` is set when the client hung up mid-reply."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # the parsed JSON body; None for GET
    client_closed: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)
    raw: bytes = field(default=b"", compare=False, repr=False)  # the body's bytes as they arrived


class ScriptedHTTPServer(ThreadingHTTPServer):
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


class ScriptedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streaming, as real servers do
    server: ScriptedHTTPServer

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
            self._send_json(200, {"served": self.scripted.served_spans()})
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
        request = RecordedRequest("POST", self.path, self._headers(), body, raw=raw)
        self.scripted.record(request)
        if ("POST", self.route) in self.scripted.fixed:
            self._send_json(*self.scripted.fixed[("POST", self.route)])
            return
        if self.route not in (CHAT_PATH, RESPONSES_PATH):
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
                if self.route == RESPONSES_PATH:
                    self._send_json(200, whole_response(turn, model, self.scripted.next_call_id))
                else:
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
        for position, (name, data) in enumerate(self._events(turn, model)):
            if delay and position and self.scripted.stopping.wait(delay):
                self.close_connection = True
                return
            self._send_event(data, name)
        if self.route != RESPONSES_PATH:  # the Responses API ends with ``response.completed``, no ``[DONE]``
            self._send_event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")

    def _events(self, turn: Reply, model: str, partial: bool = False) -> list[tuple[str | None, str]]:
        """The events of ``turn`` on this route, as (SSE event name, data); ``partial``: only those before the
        end (what a stall or a broken stream sends before it stops)."""
        if self.route == RESPONSES_PATH:
            events = response_events(turn, model, self.scripted.next_call_id)
            return [(name, json.dumps(payload)) for name, payload in (events[:-1] if partial else events)]
        chunks = turn.content_chunks if partial else turn.stream_chunks
        return [(None, json.dumps(chunk)) for chunk in chunks(model, self.scripted.next_call_id)]

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
            for name, data in self._events(after, model, partial=True):
                self._send_event(data, name)

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

    def _send_event(self, data: str, name: str | None = None) -> None:
        payload = (f"event: {name}\n" if name else "").encode() + f"data: {data}\n\n".encode()
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
