"""How the session screen renders each engine event: the transcript, the tool log, the side panes and the status
line. Imported after the first frame, with the protocol (``SessionScreen``'s ``EVENT_MODULES``)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from coder_tui.widgets.history_entries import RestoredHistory, compaction_text, note_text
from coder_tui.widgets.tool_log import RESTORED_ROWS
from engine.command_results import (
    AgentShown,
    AgentsListed,
    CommandReply,
    ReviewFindings,
    VimToggled,
    ConversationRewound,
    CopyRequested,
    ExitRequested,
    HelpShown,
    ModelsOffered,
    RewindOffered,
    SessionsListed,
    SessionStarted,
    SetupOffered,
)
from engine.events import (
    AgentsChanged,
    ContextCompacted,
    ErrorEvent,
    Event,
    HistoryRestored,
    LoopDetected,
    MessageAdded,
    ModeChanged,
    ModelChanged,
    Notice,
    ReasoningDelta,
    SlashCommandsChanged,
    SubagentEvent,
    TextDelta,
    TodosChanged,
    ToolCallAwaitingApproval,
    ToolCallExecuting,
    ToolProgress,
    ToolCallFinished,
    ToolCallOutput,
    ToolCallScheduled,
    ToolStatus,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
    VerificationFinished,
    VerificationStarted,
)
from engine.restored import RestoredEntry
from engine.settings_results import ServerSet, ThemeChanged

if TYPE_CHECKING:
    from coder_tui.screens.session import SessionScreen


def show_event(screen: SessionScreen, event: Event) -> None:
    transcript = screen.transcript
    tool_log = screen.tool_log
    match event:
        case TurnStarted():
            pass  # the user's input is already shown by input_started
        case TextDelta(text=text):
            transcript.append_text(text)
            screen.progress.streamed(text)
        case ReasoningDelta(text=text):
            transcript.append_reasoning(text)
            screen.progress.streamed(text)
        case MessageAdded(message=message):
            if message.role == "assistant":
                transcript.end_stream()
            record = message.to_record()
            if record.get("origin") == "note":  # shown as a resumed transcript shows it
                transcript.add_notice(note_text(message.content or ""))
            transcript.add_record(record)
        case ToolCallScheduled(call_id=call_id, tool=tool, key_argument=key_argument):
            transcript.add_tool_call(call_id, tool, key_argument)
            tool_log.add_call(call_id, tool, key_argument)
        case ToolCallAwaitingApproval(call_id=call_id, reasons=reasons):
            if (view := transcript.tool_call(call_id)) is not None:
                view.set_status(ToolStatus.AWAITING_APPROVAL, reasons)
            tool_log.set_status(call_id, ToolStatus.AWAITING_APPROVAL)
        case ToolCallExecuting(call_id=call_id):
            if (view := transcript.tool_call(call_id)) is not None:
                view.set_status(ToolStatus.EXECUTING)
            tool_log.set_status(call_id, ToolStatus.EXECUTING)
        case ToolProgress(call_id=call_id):
            if (view := transcript.tool_call(call_id)) is not None:
                view.set_progress(event)
        case ToolCallOutput(call_id=call_id, text=text):
            if (view := transcript.tool_call(call_id)) is not None:
                view.add_output(text)
        case ToolCallFinished(call_id=call_id, status=status, duration_ms=duration_ms, diff=diff):
            if diff:
                transcript.add_diff(call_id, diff)
            if (view := transcript.tool_call(call_id)) is not None:
                view.show_result(
                    status, event.result, diff=diff, duration_ms=duration_ms, key_argument=event.key_argument
                )
            tool_log.set_status(call_id, status, duration_ms, diff if status is ToolStatus.SUCCESS else None)
        case TodosChanged(todos=todos):
            screen.todo_pane.set_todos(todos)
            if todos:  # a resumed or new session without todos is not news for the transcript
                transcript.add_todos(todos)
        case HistoryRestored():
            # The conversation was replaced: show the resumed one (the command's own result follows).
            history = RestoredHistory(event)
            shown = transcript.show_history(history)
            tool_log.show_stored(history.stored_calls(RESTORED_ROWS), after=shown)
        case SessionsListed(sessions=sessions, query=query) if sessions:
            now = screen.clock()
            transcript.add_command_result(event, now=now)
            _pick_session(screen, list(sessions), now, query)
        case ModelsOffered(models=models, model=current) if models:
            transcript.add_command_result(event)
            _pick_model(screen, list(models), current)
        case SessionStarted():
            # A new, empty session: no call, no todo, no context yet (as at start-up).
            transcript.clear()
            tool_log.clear()
            screen.todo_pane.set_todos([])
            screen.status.context_used = 0
            screen.status.cost_usd = None
            transcript.add_command_result(event)
        case RewindOffered(points=points) if points:
            _pick_rewind(screen, list(points))  # the picker shows the list: closing it leaves nothing behind
        case ConversationRewound(prompt_text=request, messages=kept):
            entries = tuple(RestoredEntry("message", record) for record in kept)
            transcript.show_history(RestoredHistory(HistoryRestored.of("", entries)))
            transcript.add_command_result(event)
            screen.prompt.input.set_text(request)
        case CopyRequested(copy_text=copied):
            screen.app.copy_to_clipboard(copied)
            transcript.add_command_result(event)
        case ExitRequested():
            screen.app.leave()  # type: ignore[attr-defined]
        case VimToggled(enabled=enabled):
            screen.prompt.input.set_vim(enabled)
            transcript.add_command_result(event)
        case ThemeChanged(theme=theme, themes=themes) if themes:
            _pick_theme(screen, list(themes), theme)  # the picker shows the list
        case ThemeChanged(theme=theme):
            screen.apply_theme(theme)
            transcript.add_command_result(event)
        case ReviewFindings(findings=findings, text=title):
            transcript.add_command_result(event)
            if findings:
                from coder_tui.screens.review_findings import ReviewFindingsScreen

                screen.app.push_screen(ReviewFindingsScreen(title, findings, screen.workspace))
        case AgentsChanged(agents=rows):
            screen.agents_pane.set_rows(rows)
            screen.agent_view_changed()
        case AgentsListed(agents=rows):
            screen.agents_pane.set_rows(rows)
            screen.agent_view_changed()
            transcript.add_command_result(event)
        case AgentShown(agent=agent):
            screen.agents_pane.set_viewed(agent)
            screen.agent_view_changed()
            transcript.add_command_result(event)
        case HelpShown(commands=commands):
            from coder_tui.screens.help_screen import HelpScreen

            screen.app.push_screen(HelpScreen([(item["usage"], item["summary"]) for item in commands]))
        case SetupOffered():
            _set_up(screen, event)
        case ServerSet():
            screen.status.model_missing = False  # a server is configured now
            transcript.add_command_result(event)
        case CommandReply():
            transcript.add_command_result(event)
        case ModeChanged(mode=mode):
            screen.mode_changed(mode)
        case ModelChanged(model=model):
            screen.status.model = model
        case UsageUpdated(
            context_tokens=used, context_window=window, completion_tokens=completion, session_cost_usd=cost
        ):
            if completion:
                screen.progress.request_used(completion)
            screen.status.context_used = used
            screen.status.context_window = window
            if cost is not None:
                screen.status.cost_usd = cost
        case ContextCompacted(tokens_before=before, tokens_after=after, kept=kept):
            line = compaction_text(before, after)
            transcript.add_notice(f"{line}; kept verbatim: {' and '.join(kept)}" if kept else line)
        case LoopDetected():
            pass  # the turn ends on it, and the ErrorEvent that ends it says so: shown once, there
        case VerificationStarted(command=command, attempt=attempt):
            transcript.add_notice(f"auto-verify: running {command} (attempt {attempt})")
        case VerificationFinished(command=command, outcome=outcome, reason=reason, output_tail=tail):
            summary = f"auto-verify {outcome}: {command} — {reason}"
            transcript.add_notice(summary if outcome == "passed" or not tail else f"{summary}\n{tail}",
                                  "info" if outcome == "passed" else "warning")
        case SubagentEvent(parent_call_id=parent, event=inner):
            # Its tool calls show nested under the task call; its text arrives as the task's result.
            if (view := transcript.tool_call(parent)) is not None:
                view.subagent_event(inner)
            tool_log.subagent_event(parent, inner)
        case Notice(text=text, level=level):
            transcript.add_notice(text, level)
        case SlashCommandsChanged(commands=commands):
            screen.prompt.slash_commands = [tuple(command) for command in commands]
        case ErrorEvent(message=message):
            transcript.add_notice(message, "error")
        case TurnFinished(reason=reason):
            transcript.end_stream()
            if reason == "cancelled":
                transcript.add_notice("interrupted", "interrupted")
            elif reason == "refused":
                transcript.add_notice(REFUSED_NOTICE, "warning")


# Where a plain "no" leaves the user (SPEC 5): the model waits for them.
REFUSED_NOTICE = "stopped: you refused the call. Say what to do instead, or ask for something else."


def _pick_session(screen: SessionScreen, sessions: list[dict[str, Any]], now: datetime, query: str) -> None:
    """``/resume`` with no id: a picker of the recent sessions (searching for ``query``); choosing one resumes
    it."""
    from coder_tui.screens.session_picker import SessionPickerScreen

    def chosen(session_id: str | None) -> None:
        if session_id:
            screen.link.submit(f"/resume {session_id}")

    def rename(session_id: str, title: str) -> None:
        screen.link.submit(f"/rename --session {session_id} {title}")

    picker = SessionPickerScreen(sessions, now, workspace=screen.workspace, query=query, rename=rename)
    screen.app.push_screen(picker, callback=chosen)


def _pick_model(screen: SessionScreen, models: list[str], current: str) -> None:
    """``/model`` with no name: a picker of the server's models; choosing one switches to it (and saves it)."""
    from coder_tui.screens.model_picker import ModelPickerScreen

    def chosen(model: str | None) -> None:
        if model and model != current:
            screen.link.submit(f"/model {model}")

    screen.app.push_screen(ModelPickerScreen([str(m) for m in models], current), callback=chosen)


def _pick_theme(screen: SessionScreen, themes: list[str], current: str) -> None:
    """``/theme`` with no name: a picker of the themes; choosing one switches to it (and saves it)."""
    from coder_tui.screens.theme_picker import ThemePickerScreen

    def chosen(theme: str | None) -> None:
        if theme and theme != current:
            screen.link.submit(f"/theme {theme}")

    screen.app.push_screen(ThemePickerScreen(themes, current), callback=chosen)


def _set_up(screen: SessionScreen, offered: SetupOffered) -> None:
    """``/setup``: the form for the server URL and model; saving sends ``/setup URL [MODEL]`` to the engine."""
    import os

    from coder_tui.screens.setup import SetupScreen

    def chosen(choice: tuple[str, str] | None) -> None:
        if choice is not None:
            screen.link.submit(" ".join(("/setup", *(word for word in choice if word))))

    api_key = os.environ.get(offered.api_key_env)  # the engine process has this environment too
    form = SetupScreen(offered.base_url, offered.model, offered.config_file, api_key)
    screen.app.push_screen(form, callback=chosen)


def _pick_rewind(screen: SessionScreen, points: list[dict[str, Any]]) -> None:
    """``/rewind`` with no number: a picker of the requests; choosing one rewinds to it."""
    from coder_tui.screens.rewind_picker import RewindPickerScreen

    def chosen(choice: tuple[int, str] | None) -> None:
        if choice is not None:
            number, scope = choice
            screen.link.submit(f"/rewind {number} {scope}")

    screen.app.push_screen(RewindPickerScreen(points), callback=chosen)
