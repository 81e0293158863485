"""The two ends of the engine link (``engine_link``): the pipe to an engine, and the screen it reports to."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from engine.events import Event
    from engine.protocol import EngineState, InputFinished


class EngineConnection(Protocol):
    """A pipe to an engine: lines of the protocol each way. ``on_exit`` says why the engine stopped unasked. One to an
    engine in another process also has ``async detach()``, called once the engine said ``Detached``: it lets go."""

    def open(self, on_line: Callable[[str], None], on_exit: Callable[[str], None]) -> None: ...

    def send_line(self, line: str) -> None: ...

    async def aclose(self) -> None: ...


EngineStarter = Callable[[], EngineConnection]


class SessionView(Protocol):
    """What the link tells the screen; the screen renders, the link never touches a widget."""

    def engine_ready(self, state: EngineState) -> None: ...

    def engine_failed(self, message: str) -> None: ...

    def show_event(self, event: Event) -> None: ...

    def input_started(self, text: str, *, echo: bool = True) -> None:
        """``echo``: show the input in the transcript (not the opening ``/resume`` of a history already shown)."""

    def input_finished(self, outcome: InputFinished) -> None: ...

    def queue_changed(self, queued: list[str]) -> None: ...

    def mode_changed(self, mode: str) -> None: ...
