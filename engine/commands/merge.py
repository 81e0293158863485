"""``/merge <agent>`` (SPEC 26): brings an agent's work into the main tree, file by file through the approval dialog
and its hunk picker (each file's diff against what the main tree holds now; the hunks kept are applied), as one turn
of the session in view, so one ``/undo`` takes it all back. Conflicts are named, never written as markers."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING

from engine.agents.merge_plan import FileMerge, plan_merge
from engine.agents.worktree import WorktreeError
from engine.command_results import AgentMerged, CommandFailed
from engine.errors import EngineError
from engine.interaction import ApprovalAnswer, ApprovalDecision, ApprovalRequest
from engine.text_diff import unified_diff
from engine.tools.write import WriteParams, WriteTool

if TYPE_CHECKING:
    from engine.commands.context import CommandContext
    from engine.orchestrator.runtime import SessionRuntime

USAGE = "/merge <agent>"


async def merge_command(ctx: CommandContext, arg: str) -> AgentMerged | CommandFailed:
    name = arg.strip()
    if not name or " " in name:
        return CommandFailed("/merge", f"usage: {USAGE} (/agents lists them)")
    try:
        agent = ctx.agents.get(name)
        if agent.state.running:
            raise WorktreeError(f"agent {name} is still {agent.state.value}: merge it once it ends")
        await ctx.agents.commit_work(name)
        plan = await asyncio.to_thread(plan_merge, ctx.workspace_root, agent.branch, agent.base_commit, ctx.env)
    except WorktreeError as exc:
        return CommandFailed("/merge", str(exc))
    runtime = ctx.runtime
    applied: list[str] = []
    declined: list[str] = []
    failed: list[str] = []
    runtime.undo.begin_turn(uuid.uuid4().hex[:12], f"/merge {name}")
    try:
        for number, change in enumerate(plan.changes):
            request = ApprovalRequest(
                call_id=f"merge-{number}",
                tool="write",
                key_argument=change.path,
                arguments={"path": change.path},
                reasons=(f"brings agent {name}'s change ({agent.branch}) into this tree",),
                preview=unified_diff(change.current, change.merged, change.path),
            )
            reply = await ctx.interaction.request_approval(request)
            decision = reply.decision if isinstance(reply, ApprovalAnswer) else reply
            kept = reply.kept_hunks if isinstance(reply, ApprovalAnswer) else None
            if decision in (ApprovalDecision.NO, ApprovalDecision.CANCEL) or kept == ():
                declined.append(change.path)
                if decision is ApprovalDecision.CANCEL:
                    break
                continue
            try:
                await _apply(runtime, change, kept)
            except EngineError as exc:
                failed.append(f"{change.path}: {exc}")
                continue
            applied.append(change.path)
    finally:
        runtime.undo.end_turn()
    if applied:
        ctx.note_to_model(f"The user merged agent {name}'s work ({agent.branch}) into: {', '.join(applied)}.")
    return AgentMerged(
        "/merge",
        _summary(name, agent.branch, applied, declined, failed, plan.conflicts, plan.skipped),
        applied=tuple(applied),
        declined=tuple(declined),
        failed=tuple(failed),
        conflicts=tuple({"path": path, "why": why} for path, why in plan.conflicts),
        skipped=tuple({"path": path, "why": why} for path, why in plan.skipped),
    )


async def _apply(runtime: SessionRuntime, change: FileMerge, kept: tuple[int, ...] | None) -> None:
    context = replace(runtime.tool_context, kept_hunks=None if kept is None else frozenset(kept))
    if change.merged is not None:
        await WriteTool().run(WriteParams(path=change.path, content=change.merged), context)
        return
    path = context.workspace.resolve(change.path, write=True)
    context.about_to_change([path])
    await asyncio.to_thread(path.unlink)


def _summary(
    name: str,
    branch: str,
    applied: list[str],
    declined: list[str],
    failed: list[str],
    conflicts: tuple[tuple[str, str], ...],
    skipped: tuple[tuple[str, str], ...],
) -> str:
    if not (applied or declined or failed or conflicts or skipped):
        return f"agent {name}'s branch {branch} changes nothing this tree does not already hold"
    lines = [f"merged from {branch}: {', '.join(applied) or 'nothing'}" + (" (/undo takes it back)" if applied else "")]
    if declined:
        lines.append(f"not taken: {', '.join(declined)}")
    lines += [f"failed: {line}" for line in failed]
    lines += [f"conflict, not written: {path} ({why}); resolve with git merge {branch}" for path, why in conflicts]
    lines += [f"skipped: {path} ({why})" for path, why in skipped]
    return "\n".join(lines)
