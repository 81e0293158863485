"""Config permission rules (SPEC 5 step 2): `permissions.tools` and `permissions.bash`.

`permissions.tools` maps a tool name to allow, ask or deny. `permissions.bash` maps patterns to the same:

- A pattern is matched against one simple command, not the whole line: in `make && git push` the rule
  `"git push *"` meets `git push` on its own. The command is its words with quotes removed, joined by one space,
  without leading `FOO=1` assignments (`FOO=1 git push origin` is matched as `git push origin`).
- `*` matches any run of characters, spaces included; everything else is literal and the whole command must
  match. A trailing ` *` also matches nothing, so `"git push *"` covers `git push` alone too.
- A wrapped command is matched as written and as what it runs: `sudo git push`, `timeout 9 git push` and
  `bash -c 'git push'` all meet a `"git push *"` rule. When several forms match, the strictest action wins.

The most specific matching pattern wins. Specific means, in order: the longer literal text before the first
`*` (`git push *` beats `git *` beats `*`); then more literal characters overall (`docker * rm *` beats
`docker *`); then fewer `*`; and on a full tie the stricter action (deny over ask over allow), so that the
order of the rules in the file never matters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from engine.policy.decision import STRICTNESS, Action
from engine.policy.tool_patterns import matching_rule
from engine.record import record

_CONFIG_ACTIONS = {"allow": Action.ALLOW, "ask": Action.ASK, "deny": Action.DENY}


@record
class RuleMatch:
    action: Action
    # "permissions.bash 'git push *' = deny (.coder/config.json)"
    text: str


@record
class BashPattern:
    pattern: str
    action: Action
    regex: re.Pattern[str]

    @classmethod
    def compile(cls, pattern: str, action: Action) -> BashPattern:
        normalized = " ".join(pattern.split())
        body, tail = (normalized[:-2], "(?: .*)?") if normalized.endswith(" *") else (normalized, "")
        regex = ".*".join(re.escape(piece) for piece in body.split("*")) + tail
        return cls(normalized, action, re.compile(regex, re.DOTALL))

    def matches(self, command: str) -> bool:
        return self.regex.fullmatch(command) is not None

    @property
    def specificity(self) -> tuple[int, int, int, int]:
        literal_prefix = len(self.pattern.split("*", 1)[0])
        wildcards = self.pattern.count("*")
        literal = len(self.pattern) - wildcards
        return (literal_prefix, literal, -wildcards, STRICTNESS[self.action])


class RuleSet:
    """The config's rules, validated once; ``source`` names where they came from in every explanation."""

    def __init__(
        self,
        tools: Mapping[str, str] | None = None,
        bash: Mapping[str, str] | None = None,
        source: str = "config",
    ) -> None:
        self.source = source
        self.tools = {
            name: config_action(f"permissions.tools.{name}", value, source) for name, value in (tools or {}).items()
        }
        self.bash: list[BashPattern] = []
        for pattern, value in (bash or {}).items():
            if not pattern.strip():
                raise ValueError(f"permissions.bash: an empty pattern is not allowed ({source})")
            action = config_action(f"permissions.bash {pattern!r}", value, source)
            self.bash.append(BashPattern.compile(pattern, action))

    def tool_rule(self, tool: str) -> RuleMatch | None:
        """The tool's own entry, else the most specific name pattern (``"mcp__git__*"``) that covers it."""
        found = matching_rule(self.tools, tool)
        if found is None:
            return None
        name, action = found
        return RuleMatch(action, f"permissions.tools {name} = {action.value} ({self.source})")

    def bash_rule(self, forms: Sequence[str]) -> RuleMatch | None:
        """The rule for one command seen in several forms: per form the most specific, then the strictest."""
        winners = [
            max(matching, key=lambda p: p.specificity)
            for form in forms
            if (matching := [p for p in self.bash if p.matches(form)])
        ]
        if not winners:
            return None
        chosen = max(winners, key=lambda p: (STRICTNESS[p.action], p.specificity))
        return RuleMatch(chosen.action, f"permissions.bash '{chosen.pattern}' = {chosen.action.value} ({self.source})")

    def allows_line(self, command: str) -> bool:
        """Whether a `permissions.bash` entry allows this exact command line, as "always here" saves it."""
        return any(p.pattern == command and p.action is Action.ALLOW for p in self.bash)

    def rows(self) -> list[tuple[str, str]]:
        """The rules as /permissions rows, most specific bash pattern first."""
        rows = [(f"permissions.tools {name}", action.value) for name, action in sorted(self.tools.items())]
        for pattern in sorted(self.bash, key=lambda p: p.specificity, reverse=True):
            rows.append((f"permissions.bash '{pattern.pattern}'", pattern.action.value))
        return rows


def config_action(key: str, value: str, source: str) -> Action:
    """A rule's allow, ask or deny; ValueError naming ``key`` and ``source`` for anything else."""
    action = _CONFIG_ACTIONS.get(str(value).strip().lower())
    if action is None:
        raise ValueError(f"{key}: {value!r} is not one of allow, ask, deny ({source})")
    return action
