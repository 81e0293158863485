"""The TUI's link to the engine: loads the orchestrator after the first frame, runs inputs one at a time from a
visible queue, forwards events, cancels.

Loading waits for the first frame and imports the engine in a thread, so the prompt takes keys at once; anything
submitted meanwhile simply waits in the queue (SPEC 15: input submitted while busy is queued and runs next).
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from textual.app import App

from coder_tui.interaction import TuiInteraction
from engine.events import Event
from engine.modes import Mode, next_mode

if TYPE_CHECKING:
    from engine.config import Config
    from engine.orchestrator import Orchestrator, TurnOutcome


# The SDK import waits this long after the last input, so it does not compete with that input's last frames.
SDK_LOAD_DELAY_S = 0.5


class SessionView(Protocol):
    """What the link tells the screen; the screen renders, the link never touches a widget."""

    def engine_ready(self, orchestrator: Orchestrator) -> None: ...

    def engine_failed(self, message: str) -> None: ...

    def show_event(self, event: Event) -> None: ...

    def input_started(self, text: str) -> None: ...

    def input_finished(self, outcome: TurnOutcome) -> None: ...

    def queue_changed(self, queued: list[str]) -> None: ...

    def mode_changed(self, mode: str) -> None: ...


class EngineLink:
    """Owns the orchestrator and the input queue for one app. With ``config=None`` the configuration is loaded
    in the background too (it needs pydantic, which the first frame can do without)."""

    def __init__(
        self,
        app: App[object],
        *,
        workspace: Path,
        config: Config | None,
        env: dict[str, str] | None = None,
        first_inputs: tuple[str, ...] = (),
        start_mode: str | None = None,
        model: str | None = None,
    ) -> None:
        self._app = app
        self._workspace = workspace
        self._config = config
        self._env = env
        self._model_override = model
        self._view: SessionView | None = None
        self._queue: deque[str] = deque(first_inputs)
        self._running = False
        self.orchestrator: Orchestrator | None = None
        self.interaction = TuiInteraction(app)
        # Shift+Tab before the engine is loaded still works: the choice is applied once it is.
        self._chosen_mode: Mode | None = Mode.parse(start_mode) if start_mode else None

    @property
    def busy(self) -> bool:
        """An input is running (the queue may hold more)."""
        return self._running

    @property
    def mode(self) -> Mode:
        if self.orchestrator is not None:
            return self.orchestrator.mode
        if self._chosen_mode is not None or self._config is None:
            return self._chosen_mode or Mode.DEFAULT
        return configured_mode(self._config)

    @property
    def model(self) -> str:
        if self.orchestrator is not None:
            return self.orchestrator.model
        return self._config.model if self._config is not None else ""

    @property
    def queued(self) -> list[str]:
        return list(self._queue)

    def attach(self, view: SessionView) -> None:
        self._view = view

    def start(self) -> None:
        """Loads the engine in the background; call after the first frame."""
        self._app.run_worker(self._load(), name="load-engine", group="engine", exit_on_error=False)

    def submit(self, text: str) -> None:
        self._queue.append(text)
        self._notify_queue()
        self._drain()

    def cancel(self) -> bool:
        """Cancels the running input (the queue stays and runs next); True if something was running."""
        return self.orchestrator.cancel() if self.orchestrator is not None else False

    async def aclose(self) -> None:
        """On exit: cancels what runs and releases the engine's connections and database."""
        if self.orchestrator is not None:
            await self.orchestrator.aclose()

    def cycle_mode(self) -> None:
        """Shift+Tab: default → auto-edit → plan → default."""
        mode = next_mode(self.mode)
        if self.orchestrator is not None:
            self.orchestrator.set_mode(mode)  # emits ModeChanged, which updates the view
        else:
            self._chosen_mode = mode
            if self._view is not None:
                self._view.mode_changed(mode.value)

    async def _load(self) -> None:
        try:
            if self._config is None:
                self._config = await asyncio.to_thread(self._load_config)
            module = await asyncio.to_thread(importlib.import_module, "engine.orchestrator")
            orchestrator: Orchestrator = module.Orchestrator(
                workspace=self._workspace,
                config=self._config,
                interaction=self.interaction,
                mode=self._chosen_mode,
                env=self._env,
            )
            # The first turn would import the model SDK and the token encoding on the event loop and freeze the
            # screen for a moment: load them now, in threads, before any input runs.
            await orchestrator.preload()
        except Exception as exc:  # the screen must say why the engine is missing instead of dying
            if self._view is not None:
                self._view.engine_failed(f"the engine could not start: {type(exc).__name__}: {exc}")
            return
        orchestrator.subscribe(self._forward)
        self.orchestrator = orchestrator
        if self._view is not None:
            self._view.engine_ready(orchestrator)
        if self._queue:
            self._drain()  # the SDK loads once these inputs are done (it would slow a --resume down)
        else:
            self._start_sdk_import()

    def _start_sdk_import(self) -> None:
        """preload() makes the provider, but its SDK is imported at the first request: about 0.3 s and 50,000
        objects on the event loop, just as the answer starts. Import it in a thread while nothing runs (harmless once
        preload does it)."""
        if "openai" not in sys.modules and not self._running:
            self._app.run_worker(asyncio.to_thread(importlib.import_module, "openai"), name="load-sdk", group="engine",
                                 exit_on_error=False)

    def _load_config(self) -> Config:
        from engine.config import load_config
        from engine.events import Notice

        loaded = load_config(self._workspace)
        for issue in loaded.issues:
            self._app.call_from_thread(self._forward, Notice(f"config: {issue} (ignored)", "warning"))
        if self._model_override:
            return loaded.config.model_copy(update={"model": self._model_override})
        return loaded.config

    def _forward(self, event: Event) -> None:
        if self._view is not None:
            self._view.show_event(event)

    def _notify_queue(self) -> None:
        if self._view is not None:
            self._view.queue_changed(list(self._queue))

    def _drain(self) -> None:
        if self.orchestrator is not None and not self._running and self._queue:
            self._running = True
            self._app.run_worker(self._run_queue(self.orchestrator), name="run-inputs", group="engine")

    async def _run_queue(self, orchestrator: Orchestrator) -> None:
        try:
            while self._queue:
                text = self._queue.popleft()
                self._notify_queue()
                if self._view is not None:
                    self._view.input_started(text)
                outcome = await orchestrator.run_input(text)
                if self._view is not None:
                    self._view.input_finished(outcome)
        finally:
            self._running = False
        if "openai" not in sys.modules:
            self._app.set_timer(SDK_LOAD_DELAY_S, self._start_sdk_import)


def configured_mode(config: Config) -> Mode:
    """The mode the engine will start in: ``mode`` if set, else the one the permission preset implies."""
    if config.mode:
        return Mode.parse(config.mode)
    preset = config.permissions.preset
    return Mode.DEFAULT if preset in ("strict", "balanced") else Mode.parse(preset)
