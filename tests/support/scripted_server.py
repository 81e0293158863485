"""A scripted OpenAI-compatible Chat Completions server: the one way tests, benchmarks and manual tries reach a model.

Real HTTP on 127.0.0.1 (standard library only, served from a daemon thread, so sync and async callers alike can use
it). ``POST /v1/chat/completions`` consumes one scripted reply per request, in order, and answers exactly as OpenAI
does: SSE ``data: {chunk}`` events ending in ``data: [DONE]`` when ``stream`` is true, a JSON completion otherwise.
``GET /v1/models`` lists the model names. ``answer(method, path, payload)`` gives any other route (or that one) a
fixed JSON answer, to play a local server's own endpoints (Ollama's ``/api/show``, llama.cpp's ``/props``...).
Every request is recorded so a test can assert what the client sent, and
timed from its request line to the end of the answer: ``GET /v1/_scripted/stats`` returns those spans
(``{"served": [[start, end], ...]}``, seconds on the server's clock) so a benchmark can tell server time from
client time. This module holds the script and what was asked; the routes and the handler that writes the replies
are in ``tests.support.scripted_http``.

Manual tries (for example in tmux), from the repository root, or as ``coder-tui-demo-server`` from anywhere after
``pip install -e .``::

    python -m tests.support.scripted_server --port 8765 [--scenario path.py] [--models a,b] [--context-window N]

A scenario file defines ``REPLIES`` (a list built with ``tests.support.scenario`` helpers) and optionally
``fallback(body) -> reply``; with no scenario the demo fallback of ``tests.support.demo`` answers every request.
"""

from __future__ import annotations

import argparse
import runpy
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from itertools import count
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.scenario import ReplyLike, ScriptedReply, as_reply
from tests.support.scripted_http import RecordedRequest, ScriptedHandler, ScriptedHTTPServer

PROBE_USER_AGENT = "coder-tui (server probe)"  # as engine.provider.server_probe sends it

Fallback = Callable[[dict[str, Any]], ReplyLike]


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
        self._httpd: ScriptedHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ScriptedServer:
        if self._httpd is not None:
            raise RuntimeError("scripted server: already started")
        self._httpd = ScriptedHTTPServer(("127.0.0.1", self._port), ScriptedHandler, self)
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

    def served_spans(self) -> list[tuple[float, float]]:
        with self._lock:
            return list(self.served)

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


def vllm_models(models: Sequence[str], window: int) -> dict[str, Any]:
    """``GET /v1/models`` as vLLM answers it: each model with the ``max_model_len`` it serves."""
    entries = [{"id": name, "object": "model", "owned_by": "vllm", "max_model_len": window} for name in models]
    return {"object": "list", "data": entries}


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
    parser.add_argument(
        "--models", metavar="A,B", default="scripted-model", help="the model names GET /v1/models lists"
    )
    parser.add_argument(
        "--context-window", metavar="N", type=int,
        help="list the models as vLLM does, each with this max_model_len (the context window it serves)",
    )
    args = parser.parse_args(argv)
    replies, fallback = load_scenario(args.scenario) if args.scenario else ([], demo_reply)
    models = [name.strip() for name in args.models.split(",") if name.strip()]
    with ScriptedServer(replies, fallback=fallback, port=args.port, models=models, log=print) as server:
        if args.context_window:
            server.answer("GET", "/v1/models", vllm_models(models, args.context_window))
        print(f"scripted server on {server.base_url}  (OPENAI_BASE_URL={server.base_url})", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
