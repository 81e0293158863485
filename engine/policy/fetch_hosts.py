"""Which hosts ``fetch`` may reach without asking (SPEC 5, decision of 2026-11-28).

A fetched URL can carry what the model read (``http://host/?q=<secret>``), so in plan and default mode a host not
yet allowed asks, with `a` (this host for the session) and `p` (saved as ``permissions.fetch`` in the project's
config). ``permissions.fetch`` maps host patterns to allow, ask or deny: ``"docs.python.org": "allow"``,
``"*.internal.example": "deny"``; ``*`` matches any run of characters, an exact host beats any pattern and the longest
literal text wins among patterns. Auto-edit and yolo allow every host; a deny rule still denies there (but in yolo,
which skips the policy). Whether an *address* may be reached (loopback, private...) is the tool's check, not this.

Hosts and rules are compared in one form, the tool's (``engine.tools.fetch_host``: IDNA, numeric IPv4 spellings,
trailing dots, IPv4-mapped IPv6), so a rule for ``127.0.0.1`` is the rule for ``2130706433`` and ``127。0。0。1``. A
deny rule that names an address also refuses every name that resolves to it (the tool asks ``address_denied`` with
each address it is about to connect to).
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.modes import Mode
from engine.policy.decision import Action, Allowance, PolicyDecision
from engine.policy.rules import config_action
from engine.policy.tool_patterns import matching_rule
from engine.tools.fetch_host import normalised_host

FETCH_TOOL = "fetch"
# The modes where a host not yet allowed asks.
ASKING_MODES = (Mode.PLAN, Mode.DEFAULT)


class FetchHosts:
    """The ``permissions.fetch`` rules and the hosts allowed for this session."""

    def __init__(self, rules: Mapping[str, str] | None = None, source: str = "config") -> None:
        self._rules: dict[str, Action] = {}
        for pattern, value in (rules or {}).items():
            action = config_action(f"permissions.fetch {pattern!r}", value, source)
            if not pattern.strip():
                raise ValueError(f"permissions.fetch: an empty host pattern is not allowed ({source})")
            self._rules[_rule_host(pattern, source)] = action
        self._source = source

    @staticmethod
    def matrix_rows(mode: Mode) -> list[tuple[str, str]]:
        """The fetch rows of /permissions for ``mode``: public hosts, then private addresses."""
        if mode in ASKING_MODES:
            public = ("fetch: a host not yet allowed (a: this session, p: this project)", Action.ASK.value)
        else:
            public = ("fetch: public hosts", Action.ALLOW.value)
        private = Action.ALLOW if mode is Mode.YOLO else Action.DENY
        return [public, ("fetch: private addresses (loopback, LAN, metadata; fetch.allow_private)", private.value)]

    def rows(self) -> list[tuple[str, str]]:
        return [(f"permissions.fetch {pattern!r}", action.value) for pattern, action in self._rules.items()]

    def decide(self, mode: Mode, host: str | None, session: tuple[Allowance, ...]) -> PolicyDecision:
        if mode is Mode.YOLO:
            return PolicyDecision(Action.ALLOW, (), "mode yolo: fetch runs without policy or approval")
        if host is None:
            # The tool itself says what is wrong with the URL.
            return PolicyDecision(Action.ALLOW, (), "fetch: the URL names no host")
        found = matching_rule(self._rules, host)
        if found is not None:
            pattern, action = found
            text = f"permissions.fetch {pattern!r} = {action.value} ({self._source})"
            if action is Action.DENY:
                return PolicyDecision(Action.DENY, (f"fetch from {host}: denied by {text}",), text)
            if action is Action.ALLOW:
                return PolicyDecision(Action.ALLOW, (), text)
        if any(allowance.host == host for allowance in session):
            return PolicyDecision(Action.ALLOW, (), f"session: always allowed fetch from {host}")
        if found is None and mode not in ASKING_MODES:
            return PolicyDecision(Action.ALLOW, (), f"mode {mode.value}: fetch allowed from public hosts")
        allowance = Allowance(FETCH_TOOL, host=host)
        reason = (
            f"fetch sends a request to {host}, a host not allowed yet: the URL can carry what was read in this "
            "session"
        )
        because = text if found is not None else f"mode {mode.value}: fetch asks per host"
        return PolicyDecision(Action.ASK, (reason,), because, allowance.describe(), (allowance,))

    def address_denied(self, address: str) -> str | None:
        """Why a deny rule naming ``address`` (exactly, once normalised) refuses it, or None."""
        try:
            key = normalised_host(address)
        except ValueError:
            return None
        if self._rules.get(key) is Action.DENY:
            return f"denied by permissions.fetch {key!r} = deny ({self._source})"
        return None

    def allows_without_asking(self, mode: Mode, host: str, session: tuple[Allowance, ...]) -> bool:
        return self.decide(mode, host, session).action is Action.ALLOW


def _rule_host(pattern: str, source: str) -> str:
    """A rule's host in the form hosts are compared in; a pattern with ``*`` only lower-cased and without trailing
    dots (it is matched against normalised hosts)."""
    text = pattern.strip()
    if "*" in text:
        return text.rstrip(".").lower()
    try:
        return normalised_host(text)
    except ValueError as exc:
        raise ValueError(f"permissions.fetch {pattern!r}: {exc} ({source})") from None
