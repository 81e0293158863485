"""The in-memory transport: the serving loop runs as a task in the caller's event loop, and lines pass through a
queue instead of a pipe. For tests that drive the TUI with Textual's Pilot and patch engine modules in-process;
everything still crosses the protocol's codec exactly as over the engine process's pipe.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from engine.server.host import EngineOptions
from engine.server.lines import LineSession

if TYPE_CHECKING:
    from engine.config import Config


class InMemoryEngine:
    """A client connection (``open`` / ``send_line`` / ``aclose``) to a ``LineSession`` in this process."""

    def __init__(self, options: EngineOptions, *, config: Config | None = None) -> None:
        self.options = options
        self._config = config
        self._inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.session: LineSession | None = None

    def open(self, on_line: Callable[[str], None], on_exit: Callable[[str], None]) -> None:
        """Starts the serving loop; replies reach ``on_line`` on later loop iterations, in order."""
        loop = asyncio.get_running_loop()
        self.session = LineSession(self.options, lambda line: loop.call_soon(on_line, line), config=self._config)
        self._task = loop.create_task(self.session.serve(self._lines()))

        def ended(task: asyncio.Task[None]) -> None:
            if not task.cancelled() and task.exception() is not None:
                exc = task.exception()
                on_exit(f"{type(exc).__name__}: {exc}")

        self._task.add_done_callback(ended)

    def send_line(self, line: str) -> None:
        self._inbox.put_nowait(line)

    async def aclose(self) -> None:
        self._inbox.put_nowait(None)
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    async def _lines(self) -> AsyncIterator[str]:
        while (line := await self._inbox.get()) is not None:
            yield line
