"""The decision over a bash line's records (steps 1-5 of ``engine.policy.policy``'s docstring): each command judged
by the mode, the config's rules and the session's allowances, then the whole line folded into one answer with the
reasons it shows, the `always` it offers, and the exact-line allowance that lifts an overwrite by the line's own `>`.

Pure functions of the analysis and of where the policy stands (``BashStanding``): the policy makes the analysis and
the sandbox grant, and hands both here.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TypeVar

from engine.modes import Mode
from engine.policy.bash_analysis import BashAnalysis, CommandVerdict
from engine.policy.bash_readonly import Access
from engine.policy.bash_risk import REFUSING_CODES
from engine.policy.decision import Action, Allowance, PolicyDecision
from engine.policy.matrix import bash_cell
from engine.policy.rules import RuleMatch, RuleSet
from engine.record import record
from engine.sandbox import SandboxGrant

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


@record
class BashStanding:
    """Where the policy stands when it decides a bash line."""

    mode: Mode
    # The strict preset: every command asks, read-only ones included.
    strict: bool
    # The system confines what runs unasked (reads, writes, network); where it cannot, read-only commands ask.
    confined: bool
    rules: RuleSet
    session: tuple[Allowance, ...]


def decide_bash(standing: BashStanding, tool: str, analysis: BashAnalysis, grant: SandboxGrant) -> PolicyDecision:
    """A bash line takes the strictest answer of its commands: one blocked command blocks the line, one denied
    command denies it, a write under coder-tui's own configuration is denied, and one asking command or one risk
    reason asks, once, with every reason. ``grant`` is the sandbox the line runs in if it runs."""
    judged = [_judge(standing, tool, verdict) for verdict in analysis.verdicts]
    for final in (Action.BLOCKED, Action.DENY):
        stopping = [j for j in judged if j.action is final]
        if stopping:
            rule = "; ".join(unique(j.rule for j in stopping))
            return PolicyDecision(final, unique(j.reason for j in stopping), rule)
    refusing = [risk for risk in analysis.risks if risk.code in REFUSING_CODES]
    if refusing:
        reasons = unique(f"{tool}: {risk.text}" for risk in refusing)
        return PolicyDecision(Action.DENY, reasons, "coder-tui's own configuration is never written")
    asking = [j for j in judged if j.action is Action.ASK]
    risks = analysis.risks
    line_rule = line_allowed(standing.mode, standing.rules, standing.session, tool, analysis.command)
    if line_rule is not None:
        # The user allowed this exact line, the files its `>` overwrites included.
        asking, risks = [], tuple(risk for risk in risks if risk.code not in LINE_LIFTS)
        judged = [Judgement(Action.ALLOW, None, line_rule)]
    if not asking and not risks:
        rule = "; ".join(unique(j.rule for j in judged)) or "no command to run"
        return PolicyDecision(Action.ALLOW, (), rule, sandbox=grant)
    because = [*(j.rule for j in asking), *(["bash risk analysis"] if risks else [])]
    allowances = bash_allowances(standing.mode, tool, analysis.command, analysis, asking)
    return PolicyDecision(
        Action.ASK,
        bash_reasons(tool, analysis, judged) if line_rule is None else tuple(f"{tool}: {r.text}" for r in risks),
        "; ".join(unique(because)),
        "; ".join(a.describe() for a in allowances) if allowances else None,
        allowances,
        sandbox=grant,
    )


def _judge(standing: BashStanding, tool: str, verdict: CommandVerdict) -> Judgement:
    """Steps 1-4 of ``engine.policy.policy``'s docstring for one command of a bash line."""
    mode = standing.mode
    plan = mode is Mode.PLAN
    if verdict.access is Access.MUTATING_GIT and plan:
        return Judgement(
            Action.BLOCKED,
            f"{tool}: {verdict.problem}, disabled in plan mode",
            "mode plan: mutating git commands are blocked",
        )
    rule: RuleMatch | None = standing.rules.bash_rule(verdict.forms) or standing.rules.tool_rule(tool)
    if rule is not None and rule.action is Action.DENY:
        return Judgement(Action.DENY, f"{tool}: `{verdict.shown}` is denied by {rule.text}", rule.text)
    read_only = verdict.access is Access.READ_ONLY
    if rule is not None and rule.action is Action.ALLOW and (read_only or not plan):
        return Judgement(Action.ALLOW, None, rule.text)
    unconfined = not standing.confined
    cell = bash_cell(mode, verdict.access, standing.strict or unconfined)
    if rule is not None and rule.action is Action.ASK:
        because, reason = rule.text, f"{tool}: `{verdict.shown}` asks by {rule.text}"
    elif cell is Action.ALLOW:
        return Judgement(Action.ALLOW, None, f"mode {mode.value}: read-only {tool} commands run")
    elif read_only and unconfined and not standing.strict:
        because = "no full confinement on this system: read-only bash commands ask"
        reason = (
            f"{tool}: this system cannot confine a command's reads and network, so even `{verdict.shown}` "
            "asks before it runs"
        )
    elif read_only:
        because = f"preset strict: {tool} asks for every command"
        reason = f"{tool}: the strict preset asks before every command, even `{verdict.shown}`"
    elif plan and rule is not None:
        because = f"mode plan: only read-only {tool} commands run unasked ({rule.text} does not apply)"
        reason = f"{tool}: {verdict.problem}"
    else:
        because = f"mode {mode.value}: {tool} commands that are not read-only ask"
        reason = f"{tool}: {verdict.problem}"
    redundant = verdict.problem_redundant and reason == f"{tool}: {verdict.problem}"
    if plan or verdict.prefix is None:
        return Judgement(Action.ASK, reason, because, redundant=redundant)
    for allowance in standing.session:
        if allowance.tool == tool and allowance.prefix is not None and allowance.prefix.matches(verdict.words):
            return Judgement(Action.ALLOW, None, f"session: always allowed {allowance.describe()}")
    return Judgement(Action.ASK, reason, because, Allowance(tool, verdict.prefix), redundant)


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
