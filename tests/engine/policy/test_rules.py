"""SPEC 5 step 2: config rules per tool and bash patterns, the most specific pattern winning."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.modes import Mode
from engine.policy import Action, PermissionPolicy
from engine.policy.rules import RuleSet
from engine.tools.base import ToolKind


def bash(policy: PermissionPolicy, command: str) -> Action:
    return policy.decide("bash", ToolKind.EXECUTE, {"command": command}).action


@pytest.fixture
def rules_policy(tmp_path: Path) -> PermissionPolicy:
    return PermissionPolicy(
        Mode.DEFAULT,
        bash_rules={"git *": "allow", "git push *": "deny", "npm test*": "allow", "*": "ask"},
        workspace=tmp_path,
        rules_source=".coder/config.json",
    )


def test_longest_literal_prefix_wins(rules_policy: PermissionPolicy) -> None:
    assert bash(rules_policy, "git fetch origin") is Action.ALLOW
    decision = rules_policy.decide("bash", ToolKind.EXECUTE, {"command": "git push origin main"})
    assert decision.action is Action.DENY
    assert decision.rule == "permissions.bash 'git push *' = deny (.coder/config.json)"
    assert decision.reasons == (
        "bash: `git push origin main` is denied by permissions.bash 'git push *' = deny (.coder/config.json)",
    )


def test_rule_order_in_the_file_does_not_matter(tmp_path: Path) -> None:
    forward = PermissionPolicy(Mode.DEFAULT, bash_rules={"git *": "allow", "git push *": "deny"}, workspace=tmp_path)
    backward = PermissionPolicy(Mode.DEFAULT, bash_rules={"git push *": "deny", "git *": "allow"}, workspace=tmp_path)
    for policy in (forward, backward):
        assert bash(policy, "git push") is Action.DENY
        assert bash(policy, "git fetch") is Action.ALLOW


def test_more_literal_text_wins_when_prefixes_tie() -> None:
    rules = RuleSet(bash={"docker *": "allow", "docker * rm *": "deny"})
    match = rules.bash_rule(["docker container rm web"])
    assert match is not None and match.text.startswith("permissions.bash 'docker * rm *' =")
    assert rules.bash_rule(["docker ps"]).text.startswith("permissions.bash 'docker *' =")  # type: ignore[union-attr]


def test_full_tie_takes_the_stricter_action() -> None:
    rules = RuleSet(bash={"x*y*": "allow", "x*z*": "deny"})
    match = rules.bash_rule(["xyz"])
    assert match is not None and match.action is Action.DENY


def test_trailing_wildcard_also_matches_the_bare_command(rules_policy: PermissionPolicy) -> None:
    assert bash(rules_policy, "git push") is Action.DENY


def test_wildcard_matches_spaces_and_the_rest(rules_policy: PermissionPolicy) -> None:
    assert bash(rules_policy, "npm test -- --watch=false") is Action.ALLOW


def test_catch_all_pattern_is_the_least_specific(rules_policy: PermissionPolicy) -> None:
    decision = rules_policy.decide("bash", ToolKind.EXECUTE, {"command": "make build"})
    assert decision.action is Action.ASK
    assert decision.rule == "permissions.bash '*' = ask (.coder/config.json)"


def test_patterns_meet_each_command_of_a_chain(rules_policy: PermissionPolicy) -> None:
    decision = rules_policy.decide("bash", ToolKind.EXECUTE, {"command": "npm test && git push origin"})
    assert decision.action is Action.DENY
    assert decision.reasons == (
        "bash: `git push origin` is denied by permissions.bash 'git push *' = deny (.coder/config.json)",
    )


@pytest.mark.parametrize(
    "command",
    ["sudo git push", "timeout 9 git push origin", "bash -c 'git push'", "FOO=1 git push", "env A=1 git push -q"],
)
def test_deny_pattern_sees_through_wrappers_and_scripts(rules_policy: PermissionPolicy, command: str) -> None:
    assert bash(rules_policy, command) is Action.DENY


@pytest.mark.parametrize("command", ['echo "git push origin"', "grep 'git push' notes.txt", "git log --grep=push"])
def test_deny_pattern_ignores_lookalikes(tmp_path: Path, command: str) -> None:
    policy = PermissionPolicy(Mode.DEFAULT, bash_rules={"git push *": "deny"}, workspace=tmp_path)
    assert bash(policy, command) is Action.ALLOW


def test_allow_pattern_never_silences_a_risk_reason(tmp_path: Path) -> None:
    policy = PermissionPolicy(Mode.DEFAULT, bash_rules={"rm *": "allow"}, workspace=tmp_path)
    assert bash(policy, "rm build.log") is Action.ALLOW
    decision = policy.decide("bash", ToolKind.EXECUTE, {"command": "rm -rf build"})
    assert decision.action is Action.ASK
    assert decision.reasons == ("bash: `rm -rf build` deletes files recursively and without confirmation",)
    assert decision.rule == "bash risk analysis"


def test_allow_pattern_cannot_make_plan_mode_run_what_is_not_read_only(tmp_path: Path) -> None:
    policy = PermissionPolicy(Mode.PLAN, bash_rules={"make *": "allow", "git *": "allow"}, workspace=tmp_path)
    decision = policy.decide("bash", ToolKind.EXECUTE, {"command": "make build"})
    assert decision.action is Action.ASK
    assert "does not apply" in decision.rule
    assert bash(policy, "git commit -m x") is Action.BLOCKED
    policy.set_mode(Mode.DEFAULT)
    assert bash(policy, "make build") is Action.ALLOW


def test_ask_pattern_makes_a_read_only_command_ask(tmp_path: Path) -> None:
    policy = PermissionPolicy(Mode.DEFAULT, bash_rules={"cat *.env": "ask"}, workspace=tmp_path)
    decision = policy.decide("bash", ToolKind.EXECUTE, {"command": "cat prod.env"})
    assert decision.action is Action.ASK
    assert decision.reasons == ("bash: `cat prod.env` asks by permissions.bash 'cat *.env' = ask (config)",)
    assert bash(policy, "cat README.md") is Action.ALLOW


def test_tool_rule_for_bash_applies_below_patterns(tmp_path: Path) -> None:
    policy = PermissionPolicy(
        Mode.DEFAULT, tool_rules={"bash": "deny"}, bash_rules={"ls *": "allow"}, workspace=tmp_path
    )
    assert bash(policy, "ls -la") is Action.ALLOW
    assert bash(policy, "pwd") is Action.DENY


def test_tool_rules_allow_ask_deny_but_never_enable_a_blocked_tool() -> None:
    rules = {"write": "allow", "task": "allow", "read": "ask", "fetch": "deny"}
    default = PermissionPolicy(Mode.DEFAULT, tool_rules=rules)
    assert default.decide("write", ToolKind.EDIT, {}).action is Action.ALLOW
    assert default.decide("read", ToolKind.READ, {}).action is Action.ASK
    assert default.decide("fetch", ToolKind.READ, {}).action is Action.DENY
    plan = PermissionPolicy(Mode.PLAN, tool_rules=rules)
    assert plan.decide("write", ToolKind.EDIT, {}).action is Action.BLOCKED
    assert plan.decide("task", ToolKind.SUBAGENT, {}).action is Action.BLOCKED


def test_invalid_rule_action_names_the_key_and_file() -> None:
    expected = r"permissions.bash 'git push \*': 'never' is not one of allow, ask, deny \(x.json\)"
    with pytest.raises(ValueError, match=expected):
        RuleSet(bash={"git push *": "never"}, source="x.json")
    with pytest.raises(ValueError, match="permissions.tools.write: 'yes'"):
        RuleSet(tools={"write": "yes"})


def test_empty_pattern_is_refused() -> None:
    with pytest.raises(ValueError, match="empty pattern"):
        RuleSet(bash={"  ": "deny"})
