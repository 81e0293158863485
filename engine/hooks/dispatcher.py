"""Runs the configured hooks of an event and turns their answers into decisions for the engine. Every run goes to
the audit log (tool ``hook:<event>``, actor ``user``); a hook that fails or times out is reported, never fatal.
The hooks given are the ones in force: the user's own, which run in every folder, then the project's, which the
configuration holds only once the folder is trusted (SPEC 19, ``engine.config.loader``)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engine.events import Event, Notice
from engine.hooks.answers import post_tool_feedback, pre_tool_answer, prompt_answer, stop_answer, strongest
from engine.hooks.runner import HookRun, run_hook_command
from engine.hooks.settings import HookCommand, HookEvent, HooksConfig
from engine.record import record
from engine.storage.log.audit import AuditTrail
from engine.storage.log.records import ToolCallCompleted, ToolCallRequested


@record
class PreToolDecision:
    decision: str | None = None  # allow | deny | ask | None (no opinion)
    reason: str = ""


@record
class PromptDecision:
    blocked: bool = False
    reason: str = ""
    context: str = ""


@record
class HookScope:
    """Who the hooks run for: the session and task, and the session file (Claude Code's ``transcript_path``)."""

    session_id: str
    task_id: str | None
    transcript_path: str


class HookDispatcher:
    def __init__(
        self,
        hooks: HooksConfig,
        *,
        cwd: Path,
        env: Mapping[str, str],
        audit: AuditTrail,
        emit: Callable[[Event], None],
    ) -> None:
        self._hooks = hooks
        self._cwd = cwd
        self._env = env
        self._audit = audit
        self._emit = emit
        # The dispatchers ``at`` made, which follow this one's configuration.
        self._elsewhere: list[HookDispatcher] = []

    def replace(self, hooks: HooksConfig) -> None:
        """The hooks of a reloaded configuration (``/trust on|off`` adds or drops the project's)."""
        self._hooks = hooks
        for other in self._elsewhere:
            other.replace(hooks)

    def at(self, cwd: Path) -> HookDispatcher:
        """The same hooks, run in ``cwd`` (an agent's worktree, SPEC 26), following this one's configuration."""
        other = HookDispatcher(self._hooks, cwd=cwd, env=self._env, audit=self._audit, emit=self._emit)
        self._elsewhere.append(other)
        return other

    def configured(self, event: HookEvent) -> bool:
        return bool(self._hooks.get(event))

    async def pre_tool_use(
        self, scope: HookScope, call_id: str, tool: str, tool_input: dict[str, Any]
    ) -> PreToolDecision:
        payload = {"tool_name": tool, "tool_input": tool_input, "tool_use_id": call_id}
        runs = await self._run("PreToolUse", scope, payload, tool)
        answer = strongest([pre_tool_answer(run) for run in runs])
        return PreToolDecision(answer.decision, answer.reason)

    async def post_tool_use(
        self, scope: HookScope, call_id: str, tool: str, tool_input: dict[str, Any], response: dict[str, Any]
    ) -> str:
        """Feedback for the model (empty when none)."""
        payload = {"tool_name": tool, "tool_input": tool_input, "tool_response": response, "tool_use_id": call_id}
        runs = await self._run("PostToolUse", scope, payload, tool)
        return "\n".join(text for text in (post_tool_feedback(run) for run in runs) if text)

    async def user_prompt_submit(self, scope: HookScope, prompt: str) -> PromptDecision:
        runs = await self._run("UserPromptSubmit", scope, {"prompt": prompt})
        answers = [prompt_answer(run) for run in runs]
        blocked = strongest(answers)
        context = "\n".join(a.context for a in answers if a.context)
        return PromptDecision(blocked.decision == "deny", blocked.reason, context)

    async def session_start(self, scope: HookScope, source: str) -> str:
        """Context for the session's first request (a SessionStart hook's stdout), empty when none."""
        runs = await self._run("SessionStart", scope, {"source": source})
        return "\n".join(run.stdout.strip() for run in runs if run.exit_code == 0 and run.stdout.strip())

    async def stop(self, scope: HookScope, *, active: bool) -> str | None:
        """Why the model must go on (a hook blocked the stop), else None. ``active``: the turn already went on once
        for a Stop hook (Claude Code's ``stop_hook_active``, which lets a hook avoid keeping a turn alive for ever)."""
        runs = await self._run("Stop", scope, {"stop_hook_active": active})
        answer = strongest([stop_answer(run) for run in runs])
        return answer.reason if answer.decision == "deny" else None

    async def pre_compact(self, scope: HookScope, *, trigger: str, instructions: str) -> None:
        """Before a compaction (Claude Code's ``PreCompact``: ``trigger`` is "manual" for ``/compact``, "auto" at
        the threshold; the matcher matches it). It cannot stop the compaction; a failure is reported."""
        await self._run("PreCompact", scope, {"trigger": trigger, "custom_instructions": instructions}, trigger)

    async def notification(self, scope: HookScope, message: str) -> None:
        await self._run("Notification", scope, {"message": message})

    async def _run(
        self, event: HookEvent, scope: HookScope, fields: dict[str, Any], tool: str | None = None
    ) -> list[HookRun]:
        commands = [hook for group in self._hooks.get(event, []) if group.matches(tool) for hook in group.hooks]
        if not commands:
            return []
        payload = {
            "session_id": scope.session_id,
            "transcript_path": scope.transcript_path,
            "cwd": str(self._cwd),
            "hook_event_name": event,
            **fields,
        }
        return list(await asyncio.gather(*(self._run_one(event, scope, hook, payload) for hook in commands)))

    async def _run_one(self, event: HookEvent, scope: HookScope, hook: HookCommand, payload: dict[str, Any]) -> HookRun:
        audit_id = f"hook_{uuid.uuid4().hex[:12]}"
        tool = f"hook:{event}"
        arguments = {"command": hook.command, "event": payload}
        self._audit.record(ToolCallRequested(scope.session_id, scope.task_id, audit_id, tool, arguments, "user"))
        run = await run_hook_command(hook.command, payload, cwd=self._cwd, timeout=hook.timeout, env=self._env)
        self._audit.record(
            ToolCallCompleted(
                scope.session_id, scope.task_id, audit_id, tool, run.to_record(), run.failed, run.duration_ms, "user"
            )
        )
        if run.failed:
            self._emit(Notice(f"{event} hook `{hook.command}` {run.describe_failure()} (ignored)", "warning"))
        return run
