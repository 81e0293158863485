"""The context window a local server runs the model with (``server_probe``), applied to the configuration unless
the configuration sets one, and where the window in use came from, for ``/status``.

The probe runs as a background task of the loop when a session starts or the model changes; a turn, ``/status``,
``/doctor`` and a headless run wait for it (``server_answer.server_ready``), bounded by its timeout; until it
answers, the known-model table or the default stands.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from engine.config import Config
from engine.provider.known_windows import known_context_window
from engine.provider.profiles import window_is_configured
from engine.provider.server_probe import cached, http_library, probe_server

log = logging.getLogger(__name__)


class ServerWindow:
    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self._from: str | None = None  # where the server's window was read, once applied

    @property
    def idle(self) -> bool:
        """Whether no probe was started yet."""
        return self._task is None

    def start(self, config: Config, apply: Callable[[], None], api_key: str | None = None) -> None:
        """Asks the configured server in the background (with the key, which vLLM's ``--api-key`` requires even
        for ``/v1/models``); ``apply`` is called once it has answered."""
        base_url = config.provider.base_url
        if not base_url:
            return
        with contextlib.suppress(RuntimeError):  # no running loop: nothing to ask from
            loop = asyncio.get_running_loop()
            if self._task is not None and not self._task.done():
                self._task.cancel()
            self._task = loop.create_task(self._probe(config, apply, api_key))

    async def _probe(self, config: Config, apply: Callable[[], None], api_key: str | None) -> None:
        try:
            await asyncio.to_thread(http_library)  # the SDK's import, off the event loop, as the preload does
            auth = {"Authorization": f"Bearer {api_key}"} if api_key else {}
            await probe_server(config.provider.base_url, config.model, headers={**config.provider.headers, **auth})
        except Exception:  # noqa: BLE001 - a probe that fails says nothing; the session goes on without it
            log.debug("probing the model server failed", exc_info=True)
            return
        apply()

    async def wait(self) -> None:
        """Waits for a running probe, and for one its answer started (the model changed to the server's own)."""
        while self._task is not None and not self._task.done():
            await asyncio.gather(self._task, return_exceptions=True)

    async def aclose(self) -> None:
        """Stops a probe still under way (the session is closing)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        await self.wait()

    def applied(self, base: Config, profile: str | None, config: Config) -> Config:
        """``config`` with the window the server reported, unless the configuration sets one."""
        info = cached(config.provider.base_url, config.model)
        self._from = None
        if info is None or info.context_window is None or window_is_configured(base, profile):
            return config
        self._from = info.window_from
        return config.model_copy(update={"context_window": max(info.context_window, 1024)})

    def source(self, base: Config, profile: str | None, config: Config) -> str:
        """Where ``config``'s context window comes from, in words."""
        if window_is_configured(base, profile):
            return "set in the configuration"
        if self._from is not None:
            return f"reported by the server: {self._from}"
        if known_context_window(config.model):
            return "known model table"
        return "default (neither the configuration nor the server gave one)"
