"""The orchestrator's model provider: made from the configuration at first use (or given by the caller, as tests
do), made again once the configuration points at another server, closed at exit. Beside it, the context window the
configured server reports, asked in the background (SPEC 18, ``ServerWindow``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from engine.config import Config
from engine.config.loader import resolve_api_key
from engine.provider.base import ChatProvider
from engine.provider.factory import missing_model_setup
from engine.provider.server_window import ServerWindow


class ProviderSlot:
    """``get(config)`` the provider; ``ask_server(config)`` for its context window, which ``on_window`` applies."""

    def __init__(self, provider: ChatProvider | None, env: dict[str, str], on_window: Callable[[], None]) -> None:
        self._provider = provider
        self._given = provider is not None
        self._env = env
        self._on_window = on_window
        self.server_window = ServerWindow()

    def get(self, config: Config) -> ChatProvider:
        """Made at first use. Raises ``ProviderError`` when no model is configured."""
        if self._provider is None:
            from engine.provider.factory import make_provider

            provider = make_provider(config, self._env)
            if config.tool_call_format == "xml":
                from engine.provider.xml_tools import XmlToolCallingProvider

                provider = XmlToolCallingProvider(provider)
            self._provider = provider
            if self.server_window.idle:  # made before any turn (the preload): the answer comes meanwhile
                self.ask_server(config)
        return self._provider

    def missing_setup(self, config: Config) -> str | None:
        """How to configure a model, while none is (no key, no server URL)."""
        return None if self._provider is not None else missing_model_setup(config, self._env)

    def ask_server(self, config: Config) -> None:
        """Asks the configured server for its context window, in the background."""
        self.server_window.start(config, self._on_window, resolve_api_key(config, self._env))

    def server_changed(self) -> None:
        """The model is on another server now: the next turn makes a new provider; the old one's connections close
        meanwhile."""
        provider, self._provider = self._provider, None
        if provider is not None:
            with contextlib.suppress(RuntimeError):  # no event loop: nothing is open to close
                asyncio.get_running_loop().create_task(provider.aclose())

    async def config_replaced(self) -> None:
        """A reloaded configuration: a provider made from the old one is closed, the next turn makes a new one."""
        if not self._given:
            provider, self._provider = self._provider, None
            if provider is not None:
                await provider.aclose()

    async def aclose(self) -> None:
        await self.server_window.aclose()
        if self._provider is not None:
            await self._provider.aclose()
