"""SPEC 5 step 4: `always` allows a tool, or a bash command's prefix by arity, for the session; never more."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.modes import Mode
from engine.policy import Action, Allowance, CommandPrefix, PermissionPolicy, PolicyDecision
from engine.tools.base import ToolKind


@pytest.fixture
def policy(tmp_path: Path) -> PermissionPolicy:
    return PermissionPolicy(Mode.DEFAULT, workspace=tmp_path)


def bash(policy: PermissionPolicy, command: str) -> PolicyDecision:
    return policy.decide("bash", ToolKind.EXECUTE, {"command": command})


@pytest.mark.parametrize(
    ("command", "scope"),
    [
        ("git checkout main", "bash commands starting `git checkout`"),
        ("git checkout -b feature", "bash commands starting `git checkout`"),
        ("npm run dev --port 3000", "bash commands starting `npm run dev`"),
        ("npm install left-pad", "bash commands starting `npm install`"),
        ("docker compose up -d", "bash commands starting `docker compose up`"),
        ("cargo test --all", "bash commands starting `cargo test`"),
        ("python -m pytest -q tests", "bash commands starting `python -m pytest`"),
        ("python3 -m pip install x", "bash commands starting `python3 -m pip install`"),
        # Run again, the line overwrites listing.txt: "always" covers that exact line, overwrite included.
        (
            "ls > listing.txt",
            "bash commands starting `ls`; the exact command `ls > listing.txt`, overwriting the files it writes",
        ),
        ("make build", "bash commands starting `make build`"),
        ("./run.sh --fast", "bash commands starting `./run.sh`"),
        ("timeout 60 npm test", "bash commands starting `timeout 60 npm test`"),
        ("npm run", "the bash command `npm run`"),
        ("git -C repo commit -m x", "the bash command `git -C repo commit -m x`"),
        ("sh -c 'make all'", "bash commands starting `make all`"),
    ],
)
def test_always_scope_follows_the_command_arity(policy: PermissionPolicy, command: str, scope: str) -> None:
    decision = bash(policy, command)
    assert decision.action is Action.ASK
    assert decision.always_scope == scope


def test_always_for_a_tool_is_every_call_of_that_tool(policy: PermissionPolicy) -> None:
    decision = policy.decide("write", ToolKind.EDIT, {"path": "a.txt"})
    assert decision.always_scope == "every write call"
    assert policy.allow_always(decision) == "always allowed for this session: every write call"
    assert policy.decide("write", ToolKind.EDIT, {"path": "b.txt"}).action is Action.ALLOW
    assert policy.decide("write", ToolKind.EDIT, {}).rule == "session: always allowed every write call"
    assert policy.decide("edit", ToolKind.EDIT, {}).action is Action.ASK


def test_session_allowance_is_never_broader_than_shown(policy: PermissionPolicy) -> None:
    decision = bash(policy, "git checkout main")
    assert policy.allow_always(decision) == "always allowed for this session: bash commands starting `git checkout`"
    assert bash(policy, "git checkout develop").action is Action.ALLOW
    assert bash(policy, "git checkout -- README.md").action is Action.ALLOW
    others = ("git commit -m x", "git checkout-index -a", "git -C x checkout main", "git push", "sudo git checkout x")
    for other in others:
        assert bash(policy, other).action is Action.ASK, other


def test_always_never_covers_all_of_git(policy: PermissionPolicy) -> None:
    policy.allow_always(bash(policy, "git push origin main"))
    assert bash(policy, "git push origin dev").action is Action.ALLOW
    assert bash(policy, "git reset --soft HEAD~1").action is Action.ASK


def test_wrapped_scope_does_not_cover_the_bare_command(policy: PermissionPolicy) -> None:
    policy.allow_always(bash(policy, "timeout 60 npm test"))
    assert bash(policy, "timeout 60 npm test -- --ci").action is Action.ALLOW
    assert bash(policy, "npm test").action is Action.ASK


def test_risk_still_asks_after_always(policy: PermissionPolicy) -> None:
    first = bash(policy, "rm build.log")
    assert first.always_scope == "bash commands starting `rm`"
    policy.allow_always(first)
    assert bash(policy, "rm other.log").action is Action.ALLOW
    risky = bash(policy, "rm -rf build")
    assert risky.action is Action.ASK
    assert risky.reasons == ("bash: `rm -rf build` deletes files recursively and without confirmation",)
    assert risky.always_scope is None


def test_risky_command_offers_no_always(policy: PermissionPolicy) -> None:
    """A risk reason asks whatever was allowed before, so "always" could not let the same call through again."""
    decision = bash(policy, "git push --force")
    assert decision.always_scope is None and decision.allowances == ()
    with pytest.raises(ValueError):
        policy.allow_always(decision)
    assert bash(policy, "git push --force").action is Action.ASK


def test_chain_asks_once_with_one_scope_per_command_that_is_not_read_only(policy: PermissionPolicy) -> None:
    decision = bash(policy, "ls && make build && npm install | tee log.txt && make build")
    assert decision.action is Action.ASK
    assert [a.describe() for a in decision.allowances] == [
        "bash commands starting `make build`",
        "bash commands starting `npm install`",
        "bash commands starting `tee`",
    ]
    assert decision.always_scope == "; ".join(a.describe() for a in decision.allowances)
    assert len(decision.reasons) == 3
    policy.allow_always(decision)
    assert bash(policy, "ls && make build && npm install | tee log.txt && make build").action is Action.ALLOW


def test_allowances_do_not_apply_to_bash_in_plan_mode(policy: PermissionPolicy) -> None:
    policy.allow_always(bash(policy, "make build"))
    policy.set_mode(Mode.PLAN)
    decision = bash(policy, "make build")
    assert decision.action is Action.ASK
    assert decision.always_scope is None
    policy.set_mode(Mode.DEFAULT)
    assert bash(policy, "make build").action is Action.ALLOW


def test_session_allowance_never_overrides_a_config_deny(tmp_path: Path) -> None:
    policy = PermissionPolicy(Mode.DEFAULT, bash_rules={"git push *": "deny"}, workspace=tmp_path)
    policy.allow_always(Allowance("bash", CommandPrefix(("git", "push"))))
    assert bash(policy, "git push").action is Action.DENY


def test_session_allowance_lifts_a_config_ask(tmp_path: Path) -> None:
    policy = PermissionPolicy(Mode.DEFAULT, bash_rules={"docker *": "ask"}, workspace=tmp_path)
    policy.allow_always(bash(policy, "docker ps -a"))
    assert bash(policy, "docker ps").action is Action.ALLOW
    assert bash(policy, "docker rm web").action is Action.ASK


def test_no_always_for_a_command_that_does_not_parse_or_is_known_only_at_run_time(policy: PermissionPolicy) -> None:
    for command in ("if then fi", '"$EDITOR" notes.txt', "echo $(whoami)"):
        decision = bash(policy, command)
        assert decision.action is Action.ASK
        assert decision.always_scope is None
        with pytest.raises(ValueError, match="offers no 'always'"):
            policy.allow_always(decision)


def test_allowance_config_entry_for_always_for_this_project(policy: PermissionPolicy) -> None:
    (checkout,) = bash(policy, "git checkout main").allowances
    assert checkout.config_entry() == ("bash", "git checkout *")
    (exact,) = bash(policy, "npm run").allowances
    assert exact.config_entry() == ("bash", "npm run")
    (write,) = policy.decide("write", ToolKind.EDIT, {}).allowances
    assert write.config_entry() == ("tools", "write")


def test_always_on_a_line_that_writes_with_gt_covers_the_same_line_next_time(tmp_path: Path) -> None:
    """`python3 calc.py > out.txt`: the first run makes out.txt, so the same call next time overwrites it."""
    policy = PermissionPolicy(Mode.DEFAULT, workspace=tmp_path)
    line = "python3 calc.py > out.txt"
    policy.allow_always(bash(policy, line))
    (tmp_path / "out.txt").write_text("1\n")
    assert bash(policy, line).action is Action.ALLOW
    assert bash(policy, "python3 calc.py > notes.txt").action is Action.ALLOW  # a new file: the prefix covers it
    (tmp_path / "notes.txt").write_text("mine\n")
    overwrite = bash(policy, "python3 calc.py > notes.txt")
    assert overwrite.action is Action.ASK and overwrite.reasons == (
        "bash: `python3 calc.py > notes.txt` overwrites the existing file `notes.txt`",
    )


def test_always_on_an_overwrite_covers_it_and_saves_the_exact_line(tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text("1\n")
    policy = PermissionPolicy(Mode.DEFAULT, workspace=tmp_path)
    decision = bash(policy, "make report > out.txt")
    assert [a.config_entry() for a in decision.allowances] == [
        ("bash", "make report *"), ("bash", "make report > out.txt")
    ]
    policy.allow_always(decision)
    assert bash(policy, "make report > out.txt").action is Action.ALLOW
    saved = PermissionPolicy(Mode.DEFAULT, bash_rules={"make report > out.txt": "allow"}, workspace=tmp_path)
    assert bash(saved, "make report > out.txt").action is Action.ALLOW
