"""Reading a hook's answer the way Claude Code defines it: exit code 0 is success (stdout may be a JSON object with
a decision), exit code 2 is a block (stderr is the reason), anything else is a failure that blocks nothing."""

from __future__ import annotations

import json
from typing import Any, Literal

from engine.hooks.runner import HookRun
from engine.record import record

Decision = Literal["allow", "deny", "ask"]
# deny beats ask beats allow when several hooks answer.
_STRENGTH = {"allow": 0, "ask": 1, "deny": 2}


@record
class HookAnswer:
    decision: Decision | None = None
    reason: str = ""
    context: str = ""


def json_output(run: HookRun) -> dict[str, Any] | None:
    text = run.stdout.strip()
    if run.exit_code != 0 or not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def pre_tool_answer(run: HookRun) -> HookAnswer:
    if run.exit_code == 2:
        return HookAnswer("deny", run.stderr.strip() or "blocked by a PreToolUse hook")
    output = json_output(run)
    if output is None:
        return HookAnswer()
    specific = output.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision") in _STRENGTH:
        return HookAnswer(specific["permissionDecision"], str(specific.get("permissionDecisionReason") or ""))
    legacy = {"approve": "allow", "block": "deny"}.get(str(output.get("decision")))
    if legacy is not None:
        return HookAnswer(legacy, str(output.get("reason") or ""))  # type: ignore[arg-type]
    return HookAnswer()


def prompt_answer(run: HookRun) -> HookAnswer:
    """UserPromptSubmit: exit 2 or ``decision: block`` refuses the request; plain stdout or ``additionalContext``
    is added to it."""
    if run.exit_code == 2:
        return HookAnswer("deny", run.stderr.strip() or "blocked by a UserPromptSubmit hook")
    if run.exit_code != 0:
        return HookAnswer()
    output = json_output(run)
    if output is None:
        return HookAnswer(context=run.stdout.strip())
    if output.get("decision") == "block":
        return HookAnswer("deny", str(output.get("reason") or "blocked by a UserPromptSubmit hook"))
    specific = output.get("hookSpecificOutput")
    context = specific.get("additionalContext") if isinstance(specific, dict) else None
    return HookAnswer(context=str(context or ""))


def post_tool_feedback(run: HookRun) -> str:
    """PostToolUse: the call already ran; exit 2 or ``decision: block`` sends the reason to the model."""
    if run.exit_code == 2:
        return run.stderr.strip()
    output = json_output(run)
    if output is not None and output.get("decision") == "block":
        return str(output.get("reason") or "")
    return ""


def stop_answer(run: HookRun) -> HookAnswer:
    """Stop: exit 2 or ``decision: block`` keeps the model working; the reason (stderr, or ``reason``) tells it why."""
    if run.exit_code == 2:
        return HookAnswer("deny", run.stderr.strip() or "a Stop hook asked to go on")
    output = json_output(run)
    if output is not None and output.get("decision") == "block":
        return HookAnswer("deny", str(output.get("reason") or "a Stop hook asked to go on"))
    return HookAnswer()


def strongest(answers: list[HookAnswer]) -> HookAnswer:
    decided = [a for a in answers if a.decision is not None]
    if not decided:
        return HookAnswer()
    top = max(decided, key=lambda a: _STRENGTH[a.decision or "allow"])
    reasons = "; ".join(a.reason for a in decided if a.decision == top.decision and a.reason)
    return HookAnswer(top.decision, reasons)
