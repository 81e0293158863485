"""Driving the app in tests: build it against the scripted server, wait for the engine, submit, settle."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen

from coder_tui.app import CoderApp
from coder_tui.input.history import InputHistory
from coder_tui.widgets.prompt_input import PromptInput
from engine.server.host import EngineOptions
from engine.server.memory import InMemoryEngine
from tests.support.fakes import make_config
from tests.support.scripted_server import ScriptedServer

SIZES = [(120, 40), (80, 24)]
SIZE_IDS = ["120x40", "80x24"]
# What the prompt line shows instead of a temporary folder, so snapshots never change.
WORKSPACE_LABEL = "~/demo-project"


def make_app(
    workspace: Path,
    server: ScriptedServer,
    *,
    start_mode: str | None = None,
    history: InputHistory | None = None,
    clock: Callable[[], datetime] | None = None,
    model: str | None = None,
    first_inputs: tuple[str, ...] = (),
    timer: Callable[[], float] = lambda: 0.0,
    **config: Any,
) -> CoderApp:
    """The app with its engine in memory (same protocol, same codec as the engine process), so tests can patch
    engine modules and stay deterministic. ``model`` and ``first_inputs``: as ``--model`` and ``--continue`` give them;
    ``config``: settings of the configuration the engine loads."""
    options = EngineOptions(
        workspace=workspace, mode=start_mode, model=model, env={"OPENAI_API_KEY": "sk-test-key"}
    )
    return CoderApp(
        workspace=workspace,
        engine=lambda: InMemoryEngine(options, config=make_config(server.base_url, **config)),
        # A running input's time stands still: screens show no clock (a test that needs one passes its own).
        timer=timer,
        workspace_label=WORKSPACE_LABEL,
        start_mode=start_mode,
        model=model,
        first_inputs=first_inputs,
        history=history if history is not None else InputHistory(None),
        clock=clock,
    )


def write_sessions(
    workspace: Path, sessions: Sequence[tuple[str, str, int]], origins: Sequence[str] = ()
) -> list[str]:
    """Stores sessions as (title, last used ISO time, message count), each written at its own fixed time, so the
    resume picker shows the same times on any day; ``origins``: where each was made (default: the full screen).
    Returns their ids."""
    from engine.messages import Message
    from engine.storage.db import Database, database_path
    from engine.storage.provenance import StateKey
    from engine.storage.sessions.seals import SessionSeals
    from engine.storage.store import Store

    ids = []
    # Sealed with the key the app's engine reads (the test's config folder): the user's own sessions (SPEC 19).
    seals = SessionSeals(StateKey.load(), workspace)
    for index, (title, when, count) in enumerate(sessions):
        origin = origins[index] if index < len(origins) else "tui"
        store = Store(
            Database.open(database_path(workspace)), clock=lambda when=when: when, seals=seals, origin=origin
        )
        try:
            session_id = store.sessions.create(model="scripted-model", mode="default", session_id=f"session{index:05d}")
            for number in range(count):
                message = Message.user(title) if number % 2 == 0 else Message.assistant("ok")
                store.conversation.append(session_id, message)
        finally:
            store.close()
        ids.append(session_id)
    return ids


async def wait_until(pilot: Pilot[object], condition: Callable[[], bool], what: str = "condition") -> None:
    """Lets the app run until ``condition`` holds; the cap only turns a hang into a clear failure."""
    for _ in range(1000):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def prompt_of(app: CoderApp) -> PromptInput:
    return app.session.prompt.input


async def ready(pilot: Pilot[object]) -> CoderApp:
    """Waits for the engine to load; turns the cursor blink off so screenshots do not depend on timing."""
    app = pilot.app
    assert isinstance(app, CoderApp)
    prompt_of(app).cursor_blink = False
    await wait_until(pilot, lambda: app.link.state is not None, "the engine to load")
    await pilot.pause()
    return app


async def submit(pilot: Pilot[object], text: str) -> None:
    """Puts ``text`` in the prompt and presses Enter, as a user pasting then sending would."""
    app = pilot.app
    assert isinstance(app, CoderApp)
    prompt_of(app).set_text(text)
    await pilot.press("enter")


async def settle(pilot: Pilot[object]) -> None:
    """Waits until no input runs or waits, then until every stream has been rendered."""
    app = pilot.app
    assert isinstance(app, CoderApp)
    await wait_until(pilot, lambda: not app.link.busy and not app.link.queued, "the session to be idle")
    await app.workers.wait_for_complete()
    await pilot.pause()


def after_each_layout(screen: Screen[object], monkeypatch: pytest.MonkeyPatch, record: Callable[[], None]) -> None:
    """Calls ``record`` after each full layout of ``screen`` (``Screen._refresh_layout``), for tests that count the
    layouts or look at what each one placed."""
    lay_out = screen._refresh_layout

    def laid_out(*args: object, **kwargs: object) -> None:
        lay_out(*args, **kwargs)  # type: ignore[arg-type]
        record()

    monkeypatch.setattr(screen, "_refresh_layout", laid_out)
