"""The permission policy (SPEC 4, 5 steps 1-3): mode matrix, preset, config rules, session allowances, and
for bash the per-command analysis with its risk reasons, folded into one decision per tool call. For bash, the
records come from one pass over the parsed line (``bash_analysis``) and steps 1-5 below are ``bash_decision``'s; the
grant of step 6 is made here.

Order of precedence, for a tool and for each command of a bash line:
1. The mode: a tool the mode disables (write/edit/patch/task in plan) is BLOCKED, and so is a mutating git
   command in plan. No rule or allowance lifts that.
2. Config rules: a `deny` denies. An `allow` allows, except in plan mode, where a command that is not
   read-only still asks: plan stays read-only whatever the config says. An `ask` asks.
3. Otherwise the matrix cell: allow, or ask. The `strict` preset asks for every bash command.
4. An `ask` is lifted by a session allowance (the user's earlier `always`) that covers it; in plan mode
   allowances do not apply to bash, for the same reason as 2.
5. Bash risk reasons (`rm -rf`, `sudo`, `$(...)`, `> existing-file`, a write to anything but an ordinary workspace
   file...) always ask, whatever 2-4 said: an allowance for `rm *` covers `rm build.log`, never `rm -rf build`. So
   a line with a risk reason offers no `always`, except an overwrite by its own `>`, which the exact line's
   allowance lifts (``bash_decision.bash_allowances``). A write under coder-tui's own configuration is denied.
6. The sandbox (SPEC 13, 20): a bash line whose every command is read-only gets the `unasked` grant, also where it
   asked (the strict preset, or a system that cannot confine reads and the network); any other line a rule, an
   allowance or the user let through gets `approved` (``engine.sandbox.grant.Confinement`` says what each allows).
A bash line takes the strictest answer of its commands: one blocked command blocks the line, one denied
command denies it, and one asking command or one risk reason asks, once, with every reason. In yolo mode
bash skips steps 2-5 entirely (SPEC 5); other tools still meet their config rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.home_folder import home_workspace_problem
from engine.modes import Mode
from engine.policy.bash_analysis import BashAnalysis, analyse
from engine.policy.bash_decision import BashStanding, decide_bash
from engine.policy.bash_readonly import Access
from engine.policy.decision import Action, Allowance, PolicyDecision
from engine.policy.fetch_hosts import FETCH_TOOL, FetchHosts
from engine.policy.matrix import rows, tool_cell
from engine.policy.presets import PRESET_MODES, STRICT, parse_preset, preset_for_mode
from engine.policy.rules import RuleSet
from engine.sandbox import Confinement, SandboxGrant, SandboxSupport, describe, detect, no_sandbox_notice
from engine.policy.tool_patterns import name_matches
from engine.tools.base import ToolKind
from engine.tools.fetch_host import url_host

if TYPE_CHECKING:
    from engine.config.schema import Config

_KIND_WORK = {
    ToolKind.READ: "reading",
    ToolKind.EDIT: "changing files",
    ToolKind.SUBAGENT: "starting a sub-agent",
    ToolKind.INTERACT: "asking you",
    ToolKind.EXECUTE: "running commands",
    ToolKind.MCP: "using a tool of an MCP server",
    ToolKind.MCP_READ_ONLY: "using a tool of an MCP server",
}


class PermissionPolicy:
    def __init__(
        self,
        mode: Mode,
        preset: str | None = None,
        tool_rules: dict[str, str] | None = None,
        bash_rules: dict[str, str] | None = None,
        *,
        workspace: Path | None = None,
        rules_source: str = "config",
        sandbox: SandboxSupport | None = None,
        sandbox_writable: tuple[str, ...] = (),
        fetch_rules: dict[str, str] | None = None,
        sandbox_readable: tuple[str, ...] = (),
        env_names: tuple[str, ...] = (),
        plan_only: str | None = None,
    ) -> None:
        """``preset`` is kept only when it belongs to ``mode`` (`strict` with default); the mode wins.
        ``workspace`` resolves `> file` targets; None means the process's working directory. ``sandbox`` is what
        the system offers (detected when None); ``sandbox_writable`` the config's extra folders for approved runs.
        ``plan_only``: why the session stays in plan mode whatever is asked (the workspace is the home folder or
        above it, ``engine.home_folder``); None for a project folder."""
        self._rules = RuleSet(tool_rules, bash_rules, rules_source)
        self._fetch_hosts = FetchHosts(fetch_rules, rules_source)
        self.plan_only = plan_only
        self.mode = Mode.PLAN if plan_only else mode
        self.preset = preset_for_mode(self.mode, parse_preset(preset) if preset else None)
        self._workspace = workspace
        self._session: list[Allowance] = []
        self.sandbox = sandbox if sandbox is not None else detect()
        self._sandbox_writable = tuple(sandbox_writable)
        self._sandbox_readable = tuple(sandbox_readable)
        self._env_names = tuple(env_names)
        self._sandbox_notice_given = False
        # Tool name -> the name pattern "always" allows for it (an MCP server's tools may share one); default: the
        # tool alone. Shared with whoever registers such tools (the MCP manager), who keeps it up to date.
        self.always_scopes: dict[str, str] = {}

    @classmethod
    def for_settings(cls, config: Config, mode: str | None, workspace: Path) -> PermissionPolicy:
        """From a whole configuration: its `permissions` (``mode``, the config's `mode` or a flag, overrides the
        preset's), and the sandbox folders and environment names its `sandbox` and `bash` sections add. Every policy
        a session makes (start, `/trust`, a sub-agent) is made here, so none forgets a setting; in the home folder or
        above it, each stays in plan mode."""
        permissions = config.permissions
        preset = parse_preset(permissions.preset)
        return cls(
            Mode.parse(mode) if mode else PRESET_MODES[preset],
            preset,
            dict(permissions.tools),
            dict(permissions.bash),
            workspace=workspace,
            sandbox_writable=tuple(config.sandbox.writable),
            fetch_rules=dict(permissions.fetch),
            sandbox_readable=tuple(config.sandbox.readable),
            env_names=tuple(config.bash.env),
            plan_only=home_workspace_problem(workspace),
        )

    def sandbox_description(self) -> str:
        """The sandbox in force, in one line, for `/permissions` and `/status`."""
        return describe(self.sandbox)

    def take_sandbox_notice(self) -> str | None:
        """"No sandbox here", once per policy (so once per session), outside yolo; None otherwise."""
        if self.sandbox.available or self.mode is Mode.YOLO or self._sandbox_notice_given:
            return None
        self._sandbox_notice_given = True
        return no_sandbox_notice()

    def set_preset(self, preset: str) -> Mode:
        """Switches preset and mode together (`/permissions <preset>`); ValueError for an unknown preset. Where
        the session is plan-only, it stays in plan; returns the mode in force."""
        chosen = parse_preset(preset)
        if self.plan_only and PRESET_MODES[chosen] is not Mode.PLAN:
            return self.mode
        self.preset = chosen
        self.mode = PRESET_MODES[self.preset]
        return self.mode

    def set_mode(self, mode: Mode) -> Mode:
        """Switches the mode (`/mode`, Shift+Tab); the preset follows (strict survives a switch to default).
        Where the session is plan-only, it stays in plan; returns the mode in force."""
        if not self.plan_only:
            self.mode = mode
            self.preset = preset_for_mode(mode, self.preset)
        return self.mode

    def decide(self, tool: str, kind: ToolKind, arguments: dict[str, Any]) -> PolicyDecision:
        """SPEC 5 steps 1-2 for any tool, and step 3 for bash (its risk reasons are among the reasons)."""
        if kind is ToolKind.EXECUTE:
            return self._decide_bash(tool, arguments)
        if tool == FETCH_TOOL:
            return self._decide_fetch(arguments)
        return self._decide_tool(tool, kind)

    def _decide_fetch(self, arguments: dict[str, Any]) -> PolicyDecision:
        """A `permissions.tools` rule for fetch decides as for any tool; else the host decides (SPEC 5)."""
        by_tool = self._decide_tool(FETCH_TOOL, ToolKind.READ)
        if self._rules.tool_rule(FETCH_TOOL) is not None or by_tool.action is Action.BLOCKED:
            return by_tool
        return self._fetch_hosts.decide(self.mode, url_host(arguments.get("url")), tuple(self._session))

    def fetch_host_allowed(self, host: str) -> bool:
        """Whether fetch may go on to ``host`` (a redirect) without asking."""
        if self.mode is Mode.YOLO or self._rules.tool_rule(FETCH_TOOL) is not None:
            return self._decide_tool(FETCH_TOOL, ToolKind.READ).action is Action.ALLOW
        return self._fetch_hosts.allows_without_asking(self.mode, host, tuple(self._session))

    def fetch_address_denied(self, address: str) -> str | None:
        """Why a ``permissions.fetch`` deny rule naming ``address`` refuses it (whatever name led there), or None."""
        if self.mode is Mode.YOLO:
            return None
        return self._fetch_hosts.address_denied(address)

    def allow_always(self, decision_or_scope: PolicyDecision | Allowance) -> str:
        """Records the user's `always` for the session; returns the sentence to show."""
        if isinstance(decision_or_scope, Allowance):
            allowances: tuple[Allowance, ...] = (decision_or_scope,)
        else:
            allowances = decision_or_scope.allowances
        if not allowances:
            raise ValueError("this decision offers no 'always': there is nothing it could allow")
        for allowance in allowances:
            if allowance not in self._session:
                self._session.append(allowance)
        return "always allowed for this session: " + "; ".join(a.describe() for a in allowances)

    @property
    def session_allowances(self) -> tuple[Allowance, ...]:
        return tuple(self._session)

    def matrix(self) -> list[tuple[str, str]]:
        """What /permissions shows under the preset and mode: the matrix column in force, config rules, allowances."""
        table = rows(self.mode, self.preset == STRICT)
        table[1:1] = FetchHosts.matrix_rows(self.mode)
        for row, value in self._rules.rows() + self._fetch_hosts.rows():
            skipped = self.mode is Mode.YOLO
            table.append((row, f"{value} (skipped in yolo)" if skipped else value))
        table.extend((f"session: {a.describe()}", Action.ALLOW.value) for a in self._session)
        return table

    def _decide_tool(self, tool: str, kind: ToolKind) -> PolicyDecision:
        mode = self.mode.value
        cell = tool_cell(self.mode, kind)
        if cell is Action.BLOCKED:
            return PolicyDecision(
                Action.BLOCKED,
                (f"{tool} is disabled in {mode} mode",),
                f"mode {mode}: {tool} is blocked (tool disabled)",
            )
        if self.mode is Mode.YOLO:
            # SPEC 4: yolo asks nothing; the policy and the tools' own reasons are skipped for every tool.
            return PolicyDecision(Action.ALLOW, (), f"mode yolo: {tool} runs without policy or approval")
        rule = self._rules.tool_rule(tool)
        if rule is not None and rule.action is Action.DENY:
            return PolicyDecision(Action.DENY, (f"{tool}: denied by {rule.text}",), rule.text)
        if rule is not None and rule.action is Action.ALLOW:
            return PolicyDecision(Action.ALLOW, (), rule.text)
        if rule is None and cell is Action.ALLOW:
            verb = "enabled" if kind is ToolKind.INTERACT else "allowed"
            return PolicyDecision(Action.ALLOW, (), f"mode {mode}: {tool} {verb}")
        allowance = Allowance(self.always_scopes.get(tool, tool))
        granted = next(
            (
                a for a in self._session
                if a.prefix is None and a.host is None and a.line is None and name_matches(a.tool, tool)
            ),
            None,
        )
        if granted is not None:
            return PolicyDecision(Action.ALLOW, (), f"session: always allowed {granted.describe()}")
        if rule is not None:
            because, reason = rule.text, f"{tool}: {rule.text}"
        else:
            because, reason = f"mode {mode}: {tool} asks", f"{tool}: {mode} mode asks before {_KIND_WORK[kind]}"
        return PolicyDecision(Action.ASK, (reason,), because, allowance.describe(), (allowance,))

    def _decide_bash(self, tool: str, arguments: dict[str, Any]) -> PolicyDecision:
        command = arguments.get("command")
        if not isinstance(command, str):
            return PolicyDecision(
                Action.DENY, (f"{tool}: the `command` argument is missing or not a string",), "invalid arguments"
            )
        if self.mode is Mode.YOLO:
            return PolicyDecision(Action.ALLOW, (), f"mode yolo: {tool} runs without policy or risk checks")
        analysis = analyse(command, self._workspace or Path.cwd())
        standing = BashStanding(
            self.mode, self.preset == STRICT, self.sandbox.confines_unasked, self._rules, tuple(self._session)
        )
        return decide_bash(standing, tool, analysis, self._grant(analysis))

    def _grant(self, analysis: BashAnalysis) -> SandboxGrant:
        read_only = all(verdict.access is Access.READ_ONLY for verdict in analysis.verdicts)
        confinement = Confinement.UNASKED if read_only else Confinement.APPROVED
        return SandboxGrant(
            confinement,
            network=self.mode is not Mode.PLAN and confinement is Confinement.APPROVED,
            extra_writable=self._sandbox_writable,
            extra_readable=self._sandbox_readable,
            env_names=self._env_names,
        )

    def verify_grant(self, network: bool) -> SandboxGrant:
        """Auto-verify's confinement (SPEC 8): its build outputs and caches writable, never sources or configuration
        (engine.sandbox.verify_writes), reads and environment as for unasked commands, the network only when
        `workflow.verify_network` is true."""
        return SandboxGrant(
            Confinement.VERIFY, network=network, extra_readable=self._sandbox_readable, env_names=self._env_names
        )
