"""The one table of key bindings (SPEC 15).

Every key the TUI reacts to is declared here once. The app, the session screen and the prompt build their Textual
``BINDINGS`` from it (so the footer shows them), and ``/help`` lists the same rows, so the two never disagree.
"""

from __future__ import annotations

from typing import Literal

from textual.binding import Binding

from engine.record import record

Scope = Literal[
    "app", "screen", "prompt", "approval", "question", "picker", "rewind", "trust", "history", "elicitation", "model",
    "home", "findings", "help", "keys", "agents", "setup", "find",
]


@record
class KeySpec:
    """One row of the table: Textual key string(s), the action, and how the footer and ``/help`` describe it."""

    keys: str
    action: str
    description: str
    scope: Scope
    help: str
    show: bool = True
    priority: bool = False
    key_display: str | None = None
    # Rows with the same group show in the footer as their keys side by side under one description.
    group: str | None = None


KEY_TABLE: tuple[KeySpec, ...] = (
    # The prompt: what editing and submitting do.
    KeySpec("enter", "submit", "Send", "prompt", "submit the input (accepts a highlighted completion first)",
            key_display="⏎"),
    KeySpec("ctrl+j,shift+enter", "newline", "Newline", "prompt",
            "insert a newline (Shift+Enter where the terminal reports it)", key_display="^j"),
    KeySpec("tab", "complete", "Complete", "prompt", "complete a /command or an @path mention", show=False),
    KeySpec("up", "history_previous", "History", "prompt",
            "previous input from the history (or move up in a list or a multi-line input)", show=False),
    KeySpec("down", "history_next", "History", "prompt", "next input from the history", show=False),
    KeySpec("escape", "escape", "Close", "prompt",
            "close the suggestion list; twice clears the input, or on an empty input opens /rewind; interrupts a "
            "running task", show=False),
    KeySpec("ctrl+k", "delete_to_end_of_line", "Kill line", "prompt", "delete to the end of the line", show=False),
    KeySpec("alt+backspace", "delete_word_left", "Delete word", "prompt", "delete the word before the cursor",
            show=False),
    KeySpec("ctrl+g", "edit_in_editor", "Editor", "prompt", "edit the input in $VISUAL / $EDITOR", show=False),
    KeySpec("ctrl+r", "search_history", "Search", "prompt", "search the input history (type to narrow, Esc leaves)",
            show=False),
    KeySpec("ctrl+d", "exit_if_empty", "Exit", "prompt", "exit when the input is empty (else delete right)",
            show=False),
    KeySpec("question_mark", "show_keys", "Keys", "prompt", "on an empty input: the keys overlay (Esc closes)",
            show=False, key_display="?"),
    KeySpec("home", "home_or_top", "Top", "prompt",
            "start of the line; on an empty input, the top of the transcript", show=False),
    KeySpec("end", "end_or_bottom", "Bottom", "prompt",
            "end of the line; on an empty input, the bottom of the transcript", show=False),
    # The session screen. Paging wins over the prompt's own PageUp/PageDown (a prompt is a few lines at most).
    KeySpec("pageup,shift+pageup", "scroll_transcript('page_up')", "Scroll", "screen",
            "scroll the transcript up a page", priority=True, key_display="PgUp", group="Scroll"),
    KeySpec("pagedown,shift+pagedown", "scroll_transcript('page_down')", "Scroll", "screen",
            "scroll the transcript down a page", priority=True, key_display="PgDn", group="Scroll"),
    KeySpec("ctrl+home,home", "scroll_transcript('top')", "Top", "screen",
            "jump to the top of the transcript (Home too when the input is empty)", show=False, ),
    KeySpec("ctrl+end,end", "scroll_transcript('bottom')", "Bottom", "screen",
            "jump to the bottom of the transcript and follow it again (End too when the input is empty)",
            show=False),
    KeySpec("ctrl+t", "toggle_panes", "Panes", "screen", "show or hide the todo and tool-event panes"),
    KeySpec("ctrl+b", "toggle_agents", "Agents", "screen",
            "show or hide the agents pane: Enter on an agent shows its transcript, m the main session's, c cancels "
            "every agent", show=False),
    KeySpec("ctrl+f", "find", "Find", "screen",
            "search the transcript: Up/Down for the older/newer match, older parts loaded as needed",
            show=False, priority=True),
    KeySpec("ctrl+l", "clear_transcript", "Clear", "screen", "clear the screen (the session is kept)"),
    KeySpec("ctrl+o", "toggle_output", "Expand", "screen",
            "expand the folded long tool outputs and pasted inputs (again: fold them); a click expands one",
            show=False),
    # The app: these must win over every Screen's own binding for the same key.
    KeySpec("shift+tab", "cycle_mode", "Mode", "app", "cycle the mode: default → auto-edit → plan",
            priority=True, key_display="⇧⇥"),
    KeySpec("escape", "interrupt", "Interrupt", "app", "interrupt the running task (stream, bash, approval)",
            key_display="esc"),
    KeySpec("ctrl+c", "ctrl_c", "Cancel", "app",
            "copy a selection; else cancel the running task; twice on an idle prompt exits", show=False,
            priority=True),
    # Dialogs.
    KeySpec("y", "decide('yes')", "Yes", "approval", "approve this tool call once"),
    KeySpec("n", "decide('no')", "No, stop", "approval",
            "refuse this tool call and stop the turn: the model is told and waits for your next message"),
    KeySpec("t", "explain", "Say why", "approval",
            "refuse and type the reason: the model reads it with the refusal and the turn goes on"),
    KeySpec("a", "decide('always')", "Always", "approval", "approve and allow the shown scope for this session"),
    KeySpec("p", "decide('always_project')", "Always here", "approval",
            "approve and allow the shown scope in this project for good (saved to .coder/config.json)"),
    KeySpec("escape", "decide('cancel')", "Cancel", "approval", "dismiss the dialog and cancel the whole task"),
    KeySpec("space", "toggle_hunk", "Keep/drop", "approval",
            "write, edit, patch: keep or drop the hunk under the cursor (only kept hunks are applied)",
            key_display="space"),
    KeySpec("up", "move(-1)", "Previous", "approval", "the previous hunk of the diff (a command: scroll a line)",
            show=False),
    KeySpec("down", "move(1)", "Next", "approval", "the next hunk of the diff (a command: scroll a line)",
            show=False),
    KeySpec("pageup", "scroll_preview(-1)", "Scroll up", "approval", "scroll the diff or command up a page",
            show=False),
    KeySpec("pagedown", "scroll_preview(1)", "Scroll down", "approval", "scroll the diff or command down a page",
            show=False),
    KeySpec("escape", "cancel", "Cancel task", "question", "dismiss the question and cancel the task"),
    *(KeySpec(str(number), f"pick({number})", "Pick", "question", "pick the option with that number", show=False)
      for number in range(1, 10)),
    KeySpec("ctrl+s", "submit", "Send", "elicitation", "send the form an MCP server asked for (Enter in a field too)"),
    KeySpec("ctrl+n", "decline", "Decline", "elicitation", "decline the MCP server's request for input"),
    KeySpec("escape", "cancel", "Dismiss", "elicitation", "dismiss the MCP server's form (it hears \"cancel\")"),
    KeySpec("escape", "close", "Close", "picker", "close the list of sessions (/resume) without resuming"),
    KeySpec("ctrl+t", "toggle_headless", "Headless", "picker", "hide or show the sessions of headless runs (-p)"),
    KeySpec("ctrl+a", "all_folders", "All folders", "picker",
            "search the sessions of every folder too (this folder's first), or this folder's again", priority=True),
    KeySpec("ctrl+r", "rename", "Rename", "picker", "rename the highlighted session (Enter saves)"),
    KeySpec("up", "move(-1)", "Up", "picker", "the session above", show=False),
    KeySpec("down", "move(1)", "Down", "picker", "the session below", show=False),
    KeySpec("escape", "close", "Close", "rewind", "close the /rewind list without rewinding"),
    KeySpec("escape", "close", "Close", "model", "close the /model list; the model is unchanged"),
    KeySpec("escape", "close", "Close", "findings", "close the /review findings (the review stays in the transcript)"),
    KeySpec("escape", "close", "Cancel", "setup", "close the /setup form; nothing is saved"),
    KeySpec("t", "decide('trust')", "Trust", "trust", "trust this folder: its own config applies (remembered)"),
    KeySpec("d", "decide('dont_trust')", "Don't trust", "trust",
            "keep ignoring this folder's power-widening keys (remembered)"),
    KeySpec("escape", "decide('later')", "Later", "trust", "not now: untrusted for this run, asked again next time"),
    KeySpec("p", "read_only", "Read-only", "home", "the workspace is the home folder or above it: continue in plan mode"),
    KeySpec("o", "open_folder", "Open folder", "home", "type a project folder to open instead (Enter opens it)"),
    KeySpec("escape", "quit", "Quit", "home", "leave without opening the home folder"),
    KeySpec("escape,question_mark", "close", "Close", "keys", "close the keys overlay"),
    KeySpec("escape", "close", "Close", "help", "close the help screen (type in it to search)"),
    KeySpec("pageup", "scroll_rows(-1)", "Scroll up", "help", "scroll the help up a page", show=False),
    KeySpec("pagedown", "scroll_rows(1)", "Scroll down", "help", "scroll the help down a page", show=False),
    KeySpec("m", "main_session", "Main", "agents", "show the main session's transcript again"),
    KeySpec("c", "cancel_all", "Cancel all", "agents",
            "cancel every agent that runs or waits (Esc in an agent's view cancels that one only)"),
    KeySpec("escape", "close", "Close", "agents", "close the agents pane"),
    KeySpec("escape", "close", "Close", "find", "close the transcript search; the view stays at the match"),
    KeySpec("up,ctrl+p", "move(-1)", "Older", "find", "the previous (older) match (Enter too)"),
    KeySpec("down,ctrl+n", "move(1)", "Newer", "find", "the next (newer) match"),
    KeySpec("escape", "close", "Leave", "history", "leave the history search; the input is unchanged"),
    KeySpec("up", "move(-1)", "Newer", "history", "the newer match", show=False),
    KeySpec("down,ctrl+r", "move(1)", "Older", "history", "the older match (Ctrl+R again too)", show=False),
)


def bindings_for(scope: Scope) -> list[Binding]:
    """The Textual bindings of one scope, in table order."""
    groups = {spec.group: Binding.Group(spec.group) for spec in KEY_TABLE if spec.group}
    return [
        Binding(
            spec.keys,
            spec.action,
            spec.description,
            show=spec.show,
            priority=spec.priority,
            key_display=spec.key_display,
            group=groups.get(spec.group) if spec.group else None,
        )
        for spec in KEY_TABLE
        if spec.scope == scope
    ]


# How ``/help`` names the keys whose Textual names read badly.
_KEY_NAMES = {"pageup": "PgUp", "pagedown": "PgDn", "question_mark": "?"}


def display_keys(keys: str) -> str:
    """``ctrl+j,shift+enter`` -> ``Ctrl+J / Shift+Enter``: how ``/help`` names keys."""
    names = []
    for key in keys.split(","):
        parts = [_KEY_NAMES.get(part) or (part.capitalize() if len(part) > 1 else part.upper())
                 for part in key.split("+")]
        names.append("+".join(parts))
    return " / ".join(names)


def help_rows() -> list[tuple[str, str, str]]:
    """(where, keys, what it does) for every binding, for ``/help``."""
    where = {
        "app": "anywhere", "screen": "session", "prompt": "input", "approval": "approval", "question": "question",
        "picker": "/resume list", "rewind": "/rewind list", "model": "/model list", "trust": "trust",
        "history": "history search", "elicitation": "MCP form", "home": "home folder", "findings": "/review list",
        "help": "/help", "keys": "keys overlay", "agents": "agents pane", "setup": "/setup form",
        "find": "transcript search",
    }
    rows: list[tuple[str, list[str], str]] = []
    for spec in KEY_TABLE:
        scope, keys = where[spec.scope], display_keys(spec.keys)
        if rows and rows[-1][0] == scope and rows[-1][2] == spec.help:
            rows[-1][1].append(keys)  # keys side by side that do the same (1 to 9 in a question): one row
        else:
            rows.append((scope, [keys], spec.help))
    return [(scope, _key_run(keys), help) for scope, keys, help in rows]


def _key_run(keys: list[str]) -> str:
    """``1…9`` for a run of digits, else the keys side by side."""
    if len(keys) > 2 and all(k.isdigit() and len(k) == 1 for k in keys):
        return f"{keys[0]}…{keys[-1]}"
    return " / ".join(keys)
