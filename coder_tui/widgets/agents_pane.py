"""The agents pane (SPEC 26): the main session, then each agent with its state, todo progress, elapsed time and
tokens. Enter on a row shows that session's transcript (``Chosen``); m goes back to the main session; c cancels every
running agent (``CancelAll``); Esc closes the pane. The rows come from the engine (``AgentsChanged``); a hidden pane
keeps them without drawing. While it is shown and an agent runs, the running agents' elapsed time ticks once a second
(their rows alone are redrawn, never the pane's layout, so the transcript is not repainted)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from coder_tui.input.bindings import bindings_for
from coder_tui.transcript.formatting import format_tokens

MAIN_ID = "main"
_RUNNING = ("queued", "working", "waiting for you")
_LOOKS = {
    "queued": ("◌", "$text-muted"),
    "working": ("◐", "bold $text-accent"),
    "waiting for you": ("◆", "bold $text-warning"),
    "done": ("✓", "$text-success"),
    "failed": ("✗", "$text-error"),
    "cancelled": ("■", "$text-muted"),
}


def elapsed_text(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def agent_line(row: dict[str, Any], viewed: bool, name_width: int = 0, since: float = 0.0) -> Content:
    """One agent: its mark, name, state, todos, elapsed time and tokens (``▶`` when its transcript is shown), the
    name padded to ``name_width`` so the columns line up. ``since``: seconds since the row was made, added to the
    elapsed time of an agent that runs."""
    state = str(row.get("state", ""))
    glyph, style = _LOOKS.get(state, ("?", ""))
    todos = f"{row.get('todos_done', 0)}/{row.get('todos_total', 0)}" if row.get("todos_total") else "-"
    elapsed = elapsed_text(float(row.get("elapsed_s", 0)) + (since if state in _RUNNING else 0.0))
    facts = f" todos {todos:<5} {elapsed:>6} {int(row.get('tokens', 0)):>8,} tok"
    return Content.assemble(
        ("▶ " if viewed else "  ", "bold"),
        (f"{glyph} ", style),
        (str(row.get("name", "")).ljust(name_width + 1), "bold"),
        (state.ljust(len("waiting for you") + 1), style),
        (facts, "$text-muted"),
    )


def agents_summary(rows: Sequence[dict[str, Any]], viewed: str | None) -> str:
    """The status line's word on the agents: the one in view, or how many run (of all) and the tokens of them
    all."""
    if not rows:
        return ""
    running = sum(1 for row in rows if row.get("state") in _RUNNING)
    tokens = sum(int(row.get("tokens", 0)) for row in rows)
    if viewed:  # the agent in view first: the line has little room at 80 columns
        return f"▶ {viewed} · agents {running}/{len(rows)}"
    return f"agents {running}/{len(rows)} · {format_tokens(tokens)} tok"


class AgentsPane(OptionList):
    """The agents and the main session; the one in view is marked."""

    DEFAULT_CSS = """
    AgentsPane {
        display: none;
        height: auto;
        max-height: 10;
        border: none;
        border-top: solid $foreground 15%;
        border-title-color: $text-accent;
        border-title-style: bold;
        padding: 0 1;
    }
    AgentsPane:focus { border: none; border-top: solid $accent; background-tint: $foreground 0%; }
    AgentsPane.-open { display: block; }
    """

    BINDINGS = bindings_for("agents")

    class Chosen(Message):
        """The user chose the session to show: an agent's name, or None for the main session."""

        def __init__(self, agent: str | None) -> None:
            super().__init__()
            self.agent = agent

    class Closed(Message):
        """The user closed the pane (Esc)."""

    class CancelAll(Message):
        """The user asked to cancel every agent that runs or waits."""

    def __init__(self, *, timer: Callable[[], float] = time.monotonic, id: str | None = None) -> None:
        """``timer``: the clock the elapsed time ticks by, in seconds (tests fix it: snapshots show no clock)."""
        super().__init__(id=id)
        self.rows: tuple[dict[str, Any], ...] = ()
        self.viewed: str | None = None
        self.border_title = "Agents"
        self._timer = timer
        self._rows_at = timer()  # when the rows' elapsed times were true
        self._ticking: Timer | None = None

    def running_names(self) -> list[str]:
        return [str(row.get("name")) for row in self.rows if row.get("state") in _RUNNING]

    @property
    def open(self) -> bool:
        return self.has_class("-open")

    @property
    def ticking(self) -> bool:
        return self._ticking is not None

    def set_open(self, open_: bool) -> None:
        """Opens the pane with the session in view highlighted, or closes it."""
        self.set_class(open_, "-open")
        if open_:
            self._draw()
            names = [row.get("name") for row in self.rows]
            self.highlighted = names.index(self.viewed) + 1 if self.viewed in names else 0
        self._keep_ticking()

    def set_rows(self, rows: Sequence[dict[str, Any]]) -> None:
        self.rows, self._rows_at = tuple(rows), self._timer()
        if self.open:
            self._draw()
        self._keep_ticking()

    def set_viewed(self, agent: str | None) -> None:
        self.viewed = agent
        if self.open:
            self._draw()

    def _draw(self) -> None:
        highlighted = self.highlighted
        running = sum(1 for row in self.rows if row.get("state") in _RUNNING)
        self.border_title = f"Agents {running} running · {len(self.rows)} in all" if self.rows else "Agents"
        main = Content.assemble(("▶ " if self.viewed is None else "  ", "bold"), ("main session", "bold"))
        options = [Option(main, id=MAIN_ID)]
        width = max((len(str(row.get("name", ""))) for row in self.rows), default=0)
        since = self._timer() - self._rows_at
        options += [
            Option(agent_line(row, row.get("name") == self.viewed, width, since), id=f"agent:{row.get('name')}")
            for row in self.rows
        ]
        if not self.rows:
            options.append(Option(Content.styled("no agents yet: /spawn <task> starts one", "$text-muted italic"),
                                  disabled=True))
        self.set_options(options)
        if highlighted is not None and highlighted < self.option_count:
            self.highlighted = highlighted

    def _keep_ticking(self) -> None:
        """A tick a second while the pane is shown and an agent runs; none otherwise."""
        wanted = self.open and bool(self.running_names())
        if wanted and self._ticking is None:
            self._ticking = self.set_interval(1.0, self._tick)
        elif not wanted and self._ticking is not None:
            self._ticking.stop()
            self._ticking = None

    def _tick(self) -> None:
        """The running agents' rows again, their elapsed time gone on; the same size, so only the pane repaints."""
        since = self._timer() - self._rows_at
        width = max((len(str(row.get("name", ""))) for row in self.rows), default=0)
        for index, row in enumerate(self.rows, start=1):  # the main session is the first option
            if row.get("state") in _RUNNING:
                line = agent_line(row, row.get("name") == self.viewed, width, since)
                self.replace_option_prompt_at_index(index, line)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or MAIN_ID
        self.post_message(self.Chosen(None if option_id == MAIN_ID else option_id.removeprefix("agent:")))

    def action_main_session(self) -> None:
        self.post_message(self.Chosen(None))

    def action_cancel_all(self) -> None:
        self.post_message(self.CancelAll())

    def action_close(self) -> None:
        self.post_message(self.Closed())
