"""``auto_verify_step`` (SPEC 8): after an answer with no tool calls, the project's whitelisted test command, when
the turn edited code and the mode calls for it. Whether to verify and which command are decided by two separate
functions of ``engine.workflow.verify``; this step only acts on their answers."""

from __future__ import annotations

from engine.events import Notice, VerificationFinished, VerificationStarted
from engine.messages import Message
from engine.modes import Mode
from engine.orchestrator.deps import TurnDeps
from engine.orchestrator.state import TurnState
from engine.orchestrator.tool_chain import captured
from engine.policy import Action
from engine.workflow.verify import (
    choose_verify_command_off_loop,
    classify_failure,
    fix_message,
    may_retry,
    not_run_message,
    output_tail,
    run_verification,
    should_verify,
    user_asked_for_verification,
)


async def auto_verify_step(state: TurnState, deps: TurnDeps) -> bool:
    """True when a fixable failure was handed back to the model: the turn goes on."""
    root = deps.tool_context.workspace.root
    workflow = deps.config.workflow
    choice = await choose_verify_command_off_loop(state.user_text, workflow.verify_commands, root)
    bash = deps.registry.get("bash")
    allowed = True
    if bash is not None and choice.command is not None:
        # The whitelist is the approval: only a deny rule or a mode that blocks it stops the command.
        action = deps.policy.decide("bash", bash.kind, {"command": choice.command}).action
        allowed = action not in (Action.DENY, Action.BLOCKED)
    decision = should_verify(
        edited_paths=state.edited_paths,
        mode=deps.policy.mode,
        workflow=workflow,
        bash_available=bash is not None,
        bash_allowed=allowed,
        attempts=state.verify_attempts,
        user_asked=user_asked_for_verification(state.user_text),
    )
    if not decision:
        return False
    if choice.command is None:
        deps.emit(Notice(not_run_message(choice.reason)))
        return False
    # SPEC 8: the tests may be the model's code, so they run confined; where the system cannot confine them, they
    # run only in yolo, where the user asked for no confinement at all.
    confinable = deps.policy.sandbox.confines_unasked
    if not confinable and deps.policy.mode is not Mode.YOLO:
        deps.emit(Notice(not_run_message("this system cannot confine the test run (no Landlock or seccomp)")))
        return False
    grant = deps.policy.verify_grant(workflow.verify_network) if confinable else None
    deps.emit(VerificationStarted(choice.command, state.verify_attempts + 1))
    async with captured(deps):  # what the test run changes is the turn's, undone with it like a shell command's
        result = await run_verification(
            choice.command,
            root,
            timeout=deps.config.bash.max_timeout,
            output_cap=deps.config.bash.output_cap_bytes,
            grant=grant,
        )
    outcome = classify_failure(result)
    deps.emit(
        VerificationFinished(choice.command, outcome.kind, result.exit_code, outcome.reason, output_tail(result))
    )
    if outcome.kind == "passed":
        return False
    if outcome.kind == "environment":
        deps.emit(Notice(f"auto-verify: `{choice.command}`: {outcome.reason}; verification stopped", level="warning"))
        return False
    if not may_retry(state.verify_attempts, workflow):
        # The turn failed its own check: it ends as a failure (headless exits 1), not as "completed".
        state.end("verify_failed", f"auto-verify: `{choice.command}` still fails after {state.verify_attempts} retries")
        return False
    state.verify_attempts += 1
    deps.session.append(Message.user(fix_message(result)))
    return True
