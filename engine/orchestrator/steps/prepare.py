"""``prepare_turn_state`` (SPEC 3.1): the context refreshed, the user message appended with its @mentions
attached, and, for a complex request with no unfinished todo, the instruction to start with a todo list (SPEC 9).

The system prompt is made at a session's first turn and kept, so the requests of a session share their prefix and
the server's prompt cache holds (SPEC 18); what changed since (the mode, the git status, the date...) goes to the
model as a reminder on the user message."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from engine.context.images import attach_images, pasted_image_paths
from engine.context.instructions import load_instructions
from engine.context.mentions import collect_mentions
from engine.context.system_prompt import Environment, probe_environment, prompt_changes
from engine.events import Notice
from engine.messages import Message
from engine.modes import Mode
from engine.orchestrator.deps import TurnDeps
from engine.orchestrator.state import TurnState
from engine.storage.sessions.blobs import BlobStore
from engine.workflow.complex_task import is_complex, should_init_todos, todo_init_instruction


async def prepare_turn_state(state: TurnState, deps: TurnDeps) -> None:
    changes = await refresh_system_prompt(deps)
    workspace = deps.tool_context.workspace
    # Off the event loop: a mention may name a slow disk, a huge folder or a file that is being swapped.
    found = await asyncio.to_thread(collect_mentions, state.user_text, workspace)
    content, problems = found.text, found.problems
    pasted = [path for path in pasted_image_paths(state.user_text, workspace, problems) if path not in found.images]
    images = await asyncio.to_thread(
        attach_images, found.images + pasted, BlobStore.for_workspace(workspace.root), problems
    )
    if state.hook_context:
        content = f"{content}\n\n<hook-context>\n{state.hook_context}\n</hook-context>"
    if found.attached or images:
        named = [*found.attached, *(f"{image.name} (image)" for image in images)]
        deps.emit(Notice(f"attached {', '.join(named)}"))
    for problem in problems:
        deps.emit(Notice(problem, level="warning"))
    verdict = is_complex(state.user_text)
    if should_init_todos(verdict, deps.tool_context.todos, deps.config.workflow.require_todo_for_complex):
        content = f"{content}\n\n<system-reminder>\n{todo_init_instruction(state.user_text)}\n</system-reminder>"
    if changes:
        content = f"{content}\n\n<system-reminder>\n{changes}\n</system-reminder>"
    deps.session.append(Message(role="user", content=content, images=images or None))
    deps.loops.reset()


async def current_system_prompt(
    root: Path, mode: Mode, build_prompt: Callable[[Mode, Environment, str], str]
) -> tuple[str, tuple[str, ...]]:
    """The system prompt for this mode, the environment and the project's instructions, read off the event loop;
    and the problems found in the instructions."""
    environment, instructions = await asyncio.gather(
        asyncio.to_thread(probe_environment, root), asyncio.to_thread(load_instructions, root)
    )
    return build_prompt(mode, environment, instructions.text), tuple(instructions.problems)


async def refresh_system_prompt(deps: TurnDeps) -> str:
    """Builds the prompt for the current mode, environment and project instructions: the session's system prompt
    when it has none yet, else kept to compare. Returns what changed since the model was last told (a reminder's
    text), empty when nothing did."""
    prompt, problems = await current_system_prompt(deps.tool_context.workspace.root, deps.policy.mode, deps.build_prompt)
    for problem in problems:
        deps.emit(Notice(problem, level="warning"))
    session = deps.session
    if not session.system_prompt:
        session.system_prompt = prompt
    changes = prompt_changes(session.told_prompt or session.system_prompt, prompt)
    session.told_prompt = prompt
    session.mode = deps.policy.mode.value
    if deps.counter.ready:  # else it loads once the first request is out (``token_loading``), and says so then
        note = deps.counter.take_notice()
        if note:
            deps.emit(Notice(note, level="warning"))
    return changes
