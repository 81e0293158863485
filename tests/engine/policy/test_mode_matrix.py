"""SPEC 4: the mode matrix for every tool in every mode, presets moving the mode, and /permissions."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config.schema import Config, PermissionsConfig
from engine.modes import Mode
from engine.policy import Action, PermissionPolicy
from engine.tools.base import ToolKind

PLAN, DEFAULT, AUTO_EDIT, YOLO = Mode.PLAN, Mode.DEFAULT, Mode.AUTO_EDIT, Mode.YOLO
ALLOW, ASK, DENY, BLOCKED = Action.ALLOW, Action.ASK, Action.DENY, Action.BLOCKED

# The SPEC 4 table, restated: (tool, kind) -> decision per mode.
READ_TOOLS = ["read", "list", "glob", "grep", "todoread", "todowrite", "skill", "fetch"]
EXPECTED = {
    ToolKind.READ: {PLAN: ALLOW, DEFAULT: ALLOW, AUTO_EDIT: ALLOW, YOLO: ALLOW},
    ToolKind.EDIT: {PLAN: BLOCKED, DEFAULT: ASK, AUTO_EDIT: ALLOW, YOLO: ALLOW},
    ToolKind.SUBAGENT: {PLAN: BLOCKED, DEFAULT: ASK, AUTO_EDIT: ALLOW, YOLO: ALLOW},
    ToolKind.INTERACT: {PLAN: ALLOW, DEFAULT: ALLOW, AUTO_EDIT: ALLOW, YOLO: ALLOW},
}
TOOLS = [
    *[(name, ToolKind.READ) for name in READ_TOOLS],
    ("write", ToolKind.EDIT),
    ("edit", ToolKind.EDIT),
    ("patch", ToolKind.EDIT),
    ("task", ToolKind.SUBAGENT),
    ("question", ToolKind.INTERACT),
    ("some_plugin_reader", ToolKind.READ),
]
BASH_ROWS = {
    "ls -la": {PLAN: ALLOW, DEFAULT: ALLOW, AUTO_EDIT: ALLOW, YOLO: ALLOW},
    "make build": {PLAN: ASK, DEFAULT: ASK, AUTO_EDIT: ASK, YOLO: ALLOW},
    "git commit -m fix": {PLAN: BLOCKED, DEFAULT: ASK, AUTO_EDIT: ASK, YOLO: ALLOW},
    "terraform destroy -auto-approve": {PLAN: DENY, DEFAULT: DENY, AUTO_EDIT: DENY, YOLO: ALLOW},
    "rm -rf /": {PLAN: ASK, DEFAULT: ASK, AUTO_EDIT: ASK, YOLO: ALLOW},
}


def decide(policy: PermissionPolicy, tool: str, kind: ToolKind, **arguments: object) -> Action:
    return policy.decide(tool, kind, dict(arguments)).action


@pytest.mark.parametrize("mode", [PLAN, DEFAULT, AUTO_EDIT, YOLO])
@pytest.mark.parametrize(("tool", "kind"), TOOLS)
def test_mode_matrix_row_for_every_tool(tool: str, kind: ToolKind, mode: Mode) -> None:
    assert decide(PermissionPolicy(mode), tool, kind) is EXPECTED[kind][mode]


@pytest.mark.parametrize("mode", [PLAN, DEFAULT, AUTO_EDIT, YOLO])
@pytest.mark.parametrize("command", list(BASH_ROWS))
def test_mode_matrix_bash_rows(tmp_path: Path, command: str, mode: Mode) -> None:
    policy = PermissionPolicy(mode, bash_rules={"terraform destroy *": "deny"}, workspace=tmp_path)
    assert decide(policy, "bash", ToolKind.EXECUTE, command=command) is BASH_ROWS[command][mode]


def test_plan_mode_blocks_write_and_says_why() -> None:
    decision = PermissionPolicy(PLAN).decide("write", ToolKind.EDIT, {"path": "a.txt", "content": ""})
    assert decision.action is BLOCKED
    assert decision.reasons == ("write is disabled in plan mode",)
    assert decision.rule == "mode plan: write is blocked (tool disabled)"
    assert decision.always_scope is None


def test_default_mode_ask_for_edit_explains_rule_and_scope() -> None:
    decision = PermissionPolicy(DEFAULT).decide("edit", ToolKind.EDIT, {"path": "a.py"})
    assert decision.action is ASK
    assert decision.rule == "mode default: edit asks"
    assert decision.reasons == ("edit: default mode asks before changing files",)
    assert decision.always_scope == "every edit call"


def test_yolo_bash_skips_policy_and_risk_checks(tmp_path: Path) -> None:
    policy = PermissionPolicy(YOLO, tool_rules={"bash": "deny"}, bash_rules={"*": "deny"}, workspace=tmp_path)
    decision = policy.decide("bash", ToolKind.EXECUTE, {"command": "sudo rm -rf / && curl x | sh"})
    assert decision.action is ALLOW
    assert decision.reasons == ()
    assert decision.rule == "mode yolo: bash runs without policy or risk checks"


def test_yolo_skips_config_rules_for_every_tool() -> None:
    """SPEC 4 (decision of 2026-11-23): yolo asks nothing; steps 2 and 3 are skipped for every tool, not only bash."""
    policy = PermissionPolicy(YOLO, tool_rules={"write": "deny", "fetch": "ask"})
    assert decide(policy, "write", ToolKind.EDIT) is ALLOW
    assert decide(policy, "fetch", ToolKind.READ) is ALLOW
    assert ("permissions.tools write", "deny (skipped in yolo)") in policy.matrix()
    policy.set_mode(Mode.DEFAULT)
    assert decide(policy, "write", ToolKind.EDIT) is DENY
    assert decide(policy, "fetch", ToolKind.READ) is ASK


def test_bash_without_a_command_string_is_denied_with_a_clear_reason() -> None:
    decision = PermissionPolicy(DEFAULT).decide("bash", ToolKind.EXECUTE, {"command": ["ls"]})
    assert decision.action is DENY
    assert decision.reasons == ("bash: the `command` argument is missing or not a string",)


@pytest.mark.parametrize(
    ("preset", "mode"),
    [
        ("strict", DEFAULT),
        ("balanced", DEFAULT),
        ("auto-edit", AUTO_EDIT),
        ("build", AUTO_EDIT),
        ("yolo", YOLO),
        ("plan", PLAN),
        (" Build ", AUTO_EDIT),
    ],
)
def test_presets_move_the_mode(preset: str, mode: Mode) -> None:
    policy = PermissionPolicy(DEFAULT)
    assert policy.set_preset(preset) is mode
    assert policy.mode is mode
    assert policy.preset == ("auto-edit" if preset.strip().lower() == "build" else preset)


def test_unknown_preset_names_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown permission preset 'careful'.*strict, balanced, auto-edit"):
        PermissionPolicy(DEFAULT).set_preset("careful")


def test_set_mode_moves_the_preset() -> None:
    policy = PermissionPolicy(DEFAULT, preset="strict")
    policy.set_mode(AUTO_EDIT)
    assert policy.preset == "auto-edit"
    policy.set_mode(PLAN)
    assert policy.preset == "plan"
    policy.set_mode(DEFAULT)
    assert policy.preset == "balanced"


def test_strict_survives_setting_default_again() -> None:
    policy = PermissionPolicy(DEFAULT, preset="strict")
    policy.set_mode(DEFAULT)
    assert policy.preset == "strict"


def test_preset_that_does_not_belong_to_the_mode_gives_way_to_the_mode() -> None:
    assert PermissionPolicy(PLAN, preset="strict").preset == "plan"


def test_strict_preset_asks_for_every_bash_command_even_whitelisted(tmp_path: Path) -> None:
    policy = PermissionPolicy(DEFAULT, preset="strict", workspace=tmp_path)
    decision = policy.decide("bash", ToolKind.EXECUTE, {"command": "ls -la"})
    assert decision.action is ASK
    assert decision.rule == "preset strict: bash asks for every command"
    assert decision.always_scope == "bash commands starting `ls`"
    assert decide(policy, "write", ToolKind.EDIT) is ASK
    assert decide(policy, "task", ToolKind.SUBAGENT) is ASK
    assert decide(policy, "read", ToolKind.READ) is ALLOW


def test_for_settings_takes_the_presets_mode_unless_a_mode_is_given(tmp_path: Path) -> None:
    permissions = PermissionsConfig(preset="build", tools={"fetch": "ask"}, bash={"git push *": "deny"})
    config = Config(permissions=permissions)
    policy = PermissionPolicy.for_settings(config, None, tmp_path)
    assert (policy.mode, policy.preset) == (AUTO_EDIT, "auto-edit")
    assert decide(policy, "fetch", ToolKind.READ) is ASK
    overridden = PermissionPolicy.for_settings(config, "plan", tmp_path)
    assert (overridden.mode, overridden.preset) == (PLAN, "plan")


def test_permissions_matrix_shows_the_column_in_force_with_rules_and_allowances(tmp_path: Path) -> None:
    policy = PermissionPolicy(
        PLAN, tool_rules={"fetch": "ask"}, bash_rules={"git push *": "deny"}, workspace=tmp_path,
        rules_source=".coder/config.json",
    )  # fmt: skip
    rows = dict(policy.matrix())
    assert rows["write, edit, patch"] == "blocked (tool disabled)"
    assert rows["task (sub-agent)"] == "blocked (tool disabled)"
    assert rows["question"] == "enabled"
    assert rows["bash: other commands"] == "ask"
    assert rows["bash: mutating git commands (commit, push, reset, checkout, clean...)"] == "blocked (tool disabled)"
    assert rows["permissions.tools fetch"] == "ask"
    assert rows["permissions.bash 'git push *'"] == "deny"
    policy.set_preset("yolo")
    decision = PermissionPolicy(DEFAULT).decide("write", ToolKind.EDIT, {})
    policy.allow_always(decision)
    rows = dict(policy.matrix())
    assert rows["bash: other commands"] == "allow"
    assert rows["bash: policy deny patterns"] == "allow"
    assert rows["permissions.bash 'git push *'"] == "deny (skipped in yolo)"
    assert rows["session: every write call"] == "allow"


def test_policy_import_does_not_load_tree_sitter() -> None:
    import subprocess
    import sys

    code = "import sys, engine.policy; sys.exit('tree_sitter' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parents[3]).returncode == 0
