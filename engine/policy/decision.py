"""What the policy answers for one tool call, and what `always` would allow."""

from __future__ import annotations

from enum import Enum

from engine.policy.arity import CommandPrefix
from engine.record import record
from engine.sandbox.grant import SandboxGrant


class Action(str, Enum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"
    BLOCKED = "blocked"  # the tool, or this bash command, is disabled in this mode (SPEC 5 step 1)


# When several rules or commands disagree, the stricter answer stands.
STRICTNESS: dict[Action, int] = {Action.ALLOW: 0, Action.ASK: 1, Action.DENY: 2, Action.BLOCKED: 3}


@record
class Allowance:
    """One session allowance: every call of a tool, the bash commands a prefix covers, or fetch from one host."""

    tool: str
    prefix: CommandPrefix | None = None
    host: str | None = None
    # One exact bash line, the files its `>` overwrites included: `python3 calc.py > out.txt` overwrites the
    # `out.txt` its first run made, and "always" must cover that same call next time.
    line: str | None = None

    def describe(self) -> str:
        if self.host is not None:
            return f"{self.tool} from {self.host}"
        if self.line is not None:
            return f"the exact command `{' '.join(self.line.split())}`, overwriting the files it writes"
        return self.prefix.describe() if self.prefix is not None else f"every {self.tool} call"

    def config_entry(self) -> tuple[str, str]:
        """Where "always for this project" goes: ("bash", "git checkout *"), ("bash", "make > build.log"),
        ("fetch", "docs.python.org") or ("tools", "write")."""
        if self.host is not None:
            return ("fetch", self.host)
        if self.line is not None:
            return ("bash", self.line)
        return ("bash", self.prefix.pattern()) if self.prefix is not None else ("tools", self.tool)


@record
class PolicyDecision:
    action: Action
    # Plain words, each one reason to ask, deny or block; empty for allow.
    reasons: tuple[str, ...]
    # Which rule decided, in words: "mode default: write asks", "permissions.bash 'git push *' = deny (config)".
    rule: str
    # Exactly what `always` would allow, shown in the dialog; None when the dialog offers no `always`.
    always_scope: str | None = None
    allowances: tuple[Allowance, ...] = ()
    # For bash: the sandbox the command runs in if it runs (SPEC 20; where the system has none, the grant still
    # scrubs the environment); None for yolo, which runs unsandboxed with the user's environment.
    sandbox: SandboxGrant | None = None
