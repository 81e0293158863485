"""How the policy folds a bash line's per-command judgements into one answer: the reasons it shows, the `always`
it offers, and the exact-line allowance that lifts an overwrite by the line's own `>` (steps 4-5 of
``engine.policy.policy``'s docstring).

Kept apart from ``PermissionPolicy`` because these are pure functions of the analysis, the judgements and the
session's allowances: what one command's rule and mode say is ``PermissionPolicy._judge``'s, what the whole line
then shows and offers is decided here.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TypeVar

from engine.modes import Mode
from engine.policy.bash_analysis import BashAnalysis
from engine.policy.decision import Action, Allowance
from engine.policy.rules import RuleSet
from engine.record import record

T = TypeVar("T")
# The risk reasons an `always` of the exact line lifts: it overwrites the files it names, as the user saw.
LINE_LIFTS = frozenset({"redirect_overwrite"})


@record
class Judgement:
    """What the policy says of one command of a bash line."""

    action: Action
    reason: str | None
    rule: str
    allowance: Allowance | None = None
    # The reason is the command's problem, which its own risk reasons say better (``problem_redundant``).
    redundant: bool = False


def line_allowed(mode: Mode, rules: RuleSet, session: Collection[Allowance], tool: str, command: str) -> str | None:
    """The rule that allows this exact bash line (an `always` of this session, or a config entry), if any;
    never in plan mode, where allowances do not apply to bash."""
    if mode is Mode.PLAN:
        return None
    line = Allowance(tool, line=command)
    if line in session:
        return f"session: always allowed {line.describe()}"
    if rules.allows_line(command):
        return f"permissions.bash {command!r} = allow ({rules.source})"
    return None


def bash_allowances(
    mode: Mode, tool: str, command: str, analysis: BashAnalysis, asking: list[Judgement]
) -> tuple[Allowance, ...]:
    """What `always` saves, only where it lets the same line through next time: each asking command's prefix,
    and for a line whose `>` truncates a file (it overwrites what it wrote when run again) that exact line.
    A risk reason other than that overwrite asks whatever is saved (step 5): no `always` at all."""
    if mode is Mode.PLAN or any(risk.code not in LINE_LIFTS for risk in analysis.risks):
        return ()
    covered = all(j.allowance is not None for j in asking)
    prefixes = unique(j.allowance for j in asking) if covered else ()
    if analysis.truncates:
        return (*prefixes, Allowance(tool, line=command))
    return () if analysis.risks else prefixes


def bash_reasons(tool: str, analysis: BashAnalysis, judged: list[Judgement]) -> tuple[str, ...]:
    """Each command's reasons in the line's order, each naming that command, once: its risk reasons stand for a
    problem they make redundant. The line's own risks (it does not parse, a substitution, a download run as code)
    come last."""
    reasons: list[str] = []
    for verdict, judgement in zip(analysis.verdicts, judged, strict=True):
        own = [f"{tool}: {risk.text}" for risk in verdict.risks]
        if judgement.action is Action.ASK and not judgement.redundant:
            reasons.append(judgement.reason)
        reasons += own
    of_commands = {risk for verdict in analysis.verdicts for risk in verdict.risks}
    reasons += [f"{tool}: {risk.text}" for risk in analysis.risks if risk not in of_commands]
    return unique(reasons)


def unique(items: Iterable[T | None]) -> tuple[T, ...]:
    """The items in order, without repeats and without None."""
    return tuple(dict.fromkeys(item for item in items if item is not None))
