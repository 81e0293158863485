"""SPEC 8: auto-verify: whether to verify, which whitelisted command, and what a failure means."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.config.schema import WorkflowConfig
from engine.modes import Mode
from engine.workflow.verify import (
    WHITELIST,
    choose_verify_command,
    classify_failure,
    explicit_command,
    fix_message,
    is_documentation,
    may_retry,
    not_run_message,
    run_verification,
    should_verify,
    user_asked_for_verification,
)
from engine.sandbox import Confinement, SandboxGrant, detect
from tests.support import plugin_free_pytest as plugin_free
from tests.support.deep_chain import LEVEL, make_chain, remove_chain

# Auto-verify's confinement (SPEC 8) where this machine has it.
GRANT = SandboxGrant(Confinement.VERIFY, network=False) if detect().confines_unasked else None
# The same, letting the variable of ``plugin_free_pytest`` through.
CHILD_GRANT = GRANT and SandboxGrant(Confinement.VERIFY, network=False, env_names=(plugin_free.VARIABLE,))


@dataclass(frozen=True)
class Result:
    command: str
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False


def decide(**overrides: object):
    arguments: dict[str, object] = {
        "edited_paths": ["src/app.py"],
        "mode": Mode.AUTO_EDIT,
        "workflow": WorkflowConfig(),
        "bash_available": True,
        "bash_allowed": True,
        "attempts": 0,
        "user_asked": False,
    }
    arguments.update(overrides)
    return should_verify(**arguments)  # type: ignore[arg-type]


# --- whether ------------------------------------------------------------------------------------------------------


def test_whitelist_is_exactly_the_spec_commands() -> None:
    assert WHITELIST == (
        "go test ./...", "pytest -q", "npm test -- --watch=false", "pnpm test -- --watch=false",
        "yarn test --watch=false", "cargo test", "mvn -q test", "gradle test", "./gradlew test",
    )


def test_auto_edit_and_yolo_verify_code_edits() -> None:
    assert decide(mode=Mode.AUTO_EDIT)
    assert decide(mode=Mode.YOLO)


def test_no_edit_no_verification() -> None:
    decision = decide(edited_paths=[])
    assert not decision and "changed no file" in decision.reason


@pytest.mark.parametrize("path", ["README.md", "docs/guide.txt", "docs/api/index.html", "CHANGES.rst", "a/b.mdx"])
def test_documentation_paths(path: str) -> None:
    assert is_documentation(path)


@pytest.mark.parametrize("path", ["src/app.py", "docs.py", "main.go", "Makefile", "src/doc_parser/x.rs"])
def test_code_paths(path: str) -> None:
    assert not is_documentation(path)


def test_documentation_only_edits_are_not_verified() -> None:
    assert not decide(edited_paths=["README.md", "docs/setup.md"])
    assert decide(edited_paths=["README.md", "src/app.py"])


def test_config_switch_turns_it_off() -> None:
    decision = decide(workflow=WorkflowConfig(auto_verify_after_edit=False))
    assert not decision and "auto_verify_after_edit" in decision.reason


def test_bash_must_be_available_and_allowed() -> None:
    assert "not available" in decide(bash_available=False).reason
    assert "does not allow" in decide(bash_allowed=False).reason


def test_attempts_are_bounded_by_max_verify_attempts() -> None:
    workflow = WorkflowConfig(max_verify_attempts=2)
    # The first run and the runs after each of the two retries happen; no more.
    assert decide(workflow=workflow, attempts=0) and decide(workflow=workflow, attempts=2)
    assert not decide(workflow=workflow, attempts=3)
    assert may_retry(0, workflow) and may_retry(1, workflow) and not may_retry(2, workflow)
    assert not may_retry(0, WorkflowConfig(max_verify_attempts=0))


def test_plan_mode_never_verifies() -> None:
    assert not decide(mode=Mode.PLAN, user_asked=True)


def test_default_mode_verifies_only_when_the_user_asked() -> None:
    assert not decide(mode=Mode.DEFAULT)
    assert decide(mode=Mode.DEFAULT, user_asked=True)


@pytest.mark.parametrize(
    "request_text",
    ["fix it and run the tests", "Please verify the change", "make sure the tests pass", "rerun tests",
     "修复后跑测试", "改完验证一下", "运行测试", "改好之后测试一下", "fix it, then `make test`"],
)
def test_requests_that_ask_for_verification(request_text: str) -> None:
    assert user_asked_for_verification(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "fix the typo", "add a test for parse()", "write tests/test_x.py", "重构这个函数", "what is a testbed",
        "修复验证码页面",
    ],
)
def test_requests_that_do_not_ask_for_verification(request_text: str) -> None:
    assert not user_asked_for_verification(request_text)


# --- which ----------------------------------------------------------------------------------------------------------


def test_the_users_whitelisted_command_comes_first(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module x\n")
    choice = choose_verify_command("fix it and run cargo test", ["pytest -q"], tmp_path)
    assert choice.command == "cargo test" and choice.source == "user"


def test_a_user_command_outside_the_whitelist_runs_nothing(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module x\n")
    choice = choose_verify_command("verify with `make test`", ["go test ./..."], tmp_path)
    assert choice.command is None
    assert "`make test` is not one of the auto-verify commands" in choice.reason


def test_a_near_miss_of_a_whitelisted_command_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    choice = choose_verify_command("run `pytest -x tests/`", [], tmp_path)
    assert choice.command is None and "`pytest -x tests/`" in choice.reason


def test_explicit_commands_are_matched_whole() -> None:
    assert explicit_command("run pnpm test -- --watch=false now") == "pnpm test -- --watch=false"
    assert explicit_command("run npm test -- --watch=false now") == "npm test -- --watch=false"
    assert explicit_command("./gradlew test please") == "./gradlew test"
    assert explicit_command("gradle test please") == "gradle test"
    assert explicit_command("run  pytest   -q") == "pytest -q"
    assert explicit_command("fix `tests/test_api.py` then run the tests") is None
    assert explicit_command("I ran `npm install` and it failed") is None


def test_the_first_whitelisted_config_entry_comes_next(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module x\n")
    choice = choose_verify_command("fix it", ["make check", "cargo  test", "pytest -q"], tmp_path)
    assert choice.command == "cargo test" and choice.source == "config"


def test_config_without_a_whitelisted_entry_runs_nothing_in_its_place(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module x\n")
    choice = choose_verify_command("fix it", ["make check", "tox"], tmp_path)
    assert choice.command is None
    assert "`make check`, `tox`" in choice.reason


def package(folder: Path, test_script: str | None = "jest", **extra: object) -> None:
    manifest: dict[str, object] = {"name": "x", **extra}
    if test_script is not None:
        manifest["scripts"] = {"test": test_script}
    (folder / "package.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"go.mod": "module x"}, "go test ./..."),
        ({"Cargo.toml": "[package]"}, "cargo test"),
        ({"pytest.ini": "[pytest]"}, "pytest -q"),
        ({"pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'"}, "pytest -q"),
        ({"setup.cfg": "[tool:pytest]\n"}, "pytest -q"),
        ({"tox.ini": "[pytest]\n"}, "pytest -q"),
        ({"conftest.py": ""}, "pytest -q"),
        ({"tests/test_app.py": "def test_x(): pass"}, "pytest -q"),
        ({"test/unit/app_test.py": ""}, "pytest -q"),
        ({"calc.py": "", "test_calc.py": "def test_x(): pass"}, "pytest -q"),
        ({"src/pkg/mod.py": "", "src/pkg/mod_test.py": ""}, "pytest -q"),
        ({"pom.xml": "<project/>"}, "mvn -q test"),
        ({"build.gradle": ""}, "gradle test"),
        ({"build.gradle.kts": ""}, "gradle test"),
        ({"build.gradle": "", "gradlew": "#!/bin/sh"}, "./gradlew test"),
    ],
)
def test_command_inferred_from_project_files(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    choice = choose_verify_command("fix it", [], tmp_path)
    assert choice.command == expected and choice.source == "inferred"


def test_node_projects_use_their_package_manager(tmp_path: Path) -> None:
    package(tmp_path)
    assert choose_verify_command("", [], tmp_path).command == "npm test -- --watch=false"
    (tmp_path / "package-lock.json").write_text("{}")
    assert choose_verify_command("", [], tmp_path).command == "npm test -- --watch=false"
    (tmp_path / "package-lock.json").unlink()
    (tmp_path / "yarn.lock").write_text("")
    assert choose_verify_command("", [], tmp_path).command == "yarn test --watch=false"
    (tmp_path / "yarn.lock").unlink()
    (tmp_path / "pnpm-lock.yaml").write_text("")
    assert choose_verify_command("", [], tmp_path).command == "pnpm test -- --watch=false"
    (tmp_path / "pnpm-lock.yaml").unlink()
    package(tmp_path, packageManager="pnpm@9.1.0")
    assert choose_verify_command("", [], tmp_path).command == "pnpm test -- --watch=false"


def test_node_project_without_a_real_test_script_is_not_inferred(tmp_path: Path) -> None:
    package(tmp_path, test_script=None)
    assert choose_verify_command("", [], tmp_path).command is None
    package(tmp_path, test_script='echo "Error: no test specified" && exit 1')
    assert choose_verify_command("", [], tmp_path).command is None
    (tmp_path / "package.json").write_text("{not json")
    assert choose_verify_command("", [], tmp_path).command is None


def test_pyproject_without_pytest_config_and_no_tests_is_not_python_tested(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "tests").mkdir()
    choice = choose_verify_command("", [], tmp_path)
    assert choice.command is None and "no test setup found" in choice.reason
    assert not_run_message(choice.reason).startswith("auto-verify not run: no test setup found")


# --- what a run means ------------------------------------------------------------------------------------------------


def test_exit_zero_passes() -> None:
    assert classify_failure(Result("pytest -q", 0, "3 passed")).kind == "passed"


def test_failing_tests_are_fixable() -> None:
    outcome = classify_failure(Result("pytest -q", 1, "FAILED tests/test_a.py::test_x - assert 1 == 2"))
    assert outcome.kind == "fixable" and "exit 1" in outcome.reason
    assert classify_failure(Result("cargo test", 101, "test result: FAILED")).kind == "fixable"


@pytest.mark.parametrize(
    "result",
    [
        Result("go test ./...", 127, stderr="bash: line 1: go: command not found"),
        Result("./gradlew test", 126, stderr="bash: ./gradlew: Permission denied"),
        Result("pytest -q", 5, "no tests ran in 0.01s"),
        Result("npm test -- --watch=false", 1, stderr='npm ERR! Missing script: "test"'),
        Result("cargo test", 101, stderr="error: could not find `Cargo.toml` in `/w` or any parent directory"),
        Result("go test ./...", 1, stderr="go: go.mod file not found in current directory"),
        Result("mvn -q test", 1, stderr="[ERROR] The goal you specified requires a project to execute but there is "
               "no POM in this directory (/w). No POM in this directory"),
        Result("pytest -q", None, timed_out=True),
    ],
)
def test_environment_failures_stop_verification(result: Result) -> None:
    assert classify_failure(result).kind == "environment"


def test_fix_message_asks_to_fix_and_verify_again_with_the_output_tail() -> None:
    lines = [f"line {i}" for i in range(500)]
    message = fix_message(Result("pytest -q", 1, "\n".join(lines), "E   AssertionError: boom"))
    assert message.startswith(
        "Auto-verify: `pytest -q` failed (exit 1). Fix the cause of the failure, then verify again."
    )
    assert "line 499" in message and "E   AssertionError: boom" in message
    assert "line 10\n" not in message


async def test_only_whitelisted_commands_can_be_run(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="refusing to auto-verify with 'rm -rf /'"):
        await run_verification("rm -rf /", tmp_path, timeout=5, output_cap=1000, grant=GRANT)


async def test_a_missing_tool_runs_and_classifies_as_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    result = await run_verification("cargo test", tmp_path, timeout=10, output_cap=10_000, grant=GRANT)
    assert result.exit_code == 127
    assert classify_failure(result).kind == "environment"


async def test_a_real_pytest_run_fails_fixably_then_passes(
    tmp_path: Path, plugin_free_pytest: dict[str, list[str]]
) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "calc.py").write_text("def double(x):\n    return x + x + 1\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1]))\nfrom calc import double\n\n"
        "def test_double():\n    assert double(2) == 4\n"
    )
    choice = choose_verify_command("fix calc and run the tests", [], tmp_path)
    assert choice.command == "pytest -q"
    failed = await run_verification(choice.command, tmp_path, timeout=60, output_cap=20_000, grant=CHILD_GRANT)
    assert classify_failure(failed).kind == "fixable"
    assert "assert 5 == 4" in fix_message(failed)
    (tmp_path / "calc.py").write_text("def double(x):\n    return x + x\n")
    passed = await run_verification(choice.command, tmp_path, timeout=60, output_cap=20_000, grant=CHILD_GRANT)
    assert classify_failure(passed).kind == "passed"


@pytest.mark.parametrize(
    "where",
    [".venv/lib/test_x.py", "env/test_x.py", "node_modules/pkg/test_x.py", "build/test_x.py", ".git/test_x.py",
     "dist/x_test.py", "thing.egg/test_x.py", "tests/helper.py", "conda/test_x.py"],
)
def test_files_pytest_would_not_collect_do_not_count_as_tests(tmp_path: Path, where: str) -> None:
    (tmp_path / where).parent.mkdir(parents=True)
    (tmp_path / where).write_text("def test_x(): pass\n")
    (tmp_path / "env" / "pyvenv.cfg").parent.mkdir(exist_ok=True)
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (tmp_path / "conda" / "conda-meta").mkdir(parents=True, exist_ok=True)
    choice = choose_verify_command("", [], tmp_path)
    assert choice.command is None, choice.reason



def test_test_discovery_survives_a_deep_chain_and_a_link_loop(tmp_path: Path) -> None:
    """Issue 26: a 1,500-deep folder chain made every turn fail with a RecursionError; a link loop must not hang."""
    chain = make_chain(tmp_path, 1500, LEVEL, "test_deep.py")
    (tmp_path / "loop").symlink_to(tmp_path)
    try:
        started = time.monotonic()
        choice = choose_verify_command("", [], tmp_path)
        assert choice.command is None and "no test setup" in choice.reason  # beyond the depth bound: not found
        assert time.monotonic() - started < 10
        (chain / "test_shallow.py").write_text("def test_y():\n    pass\n")
        assert choose_verify_command("", [], tmp_path).reason == "Python tests such as d/test_shallow.py"
    finally:
        remove_chain(chain)


async def test_test_discovery_runs_off_the_event_loop_and_stops_when_cancelled(tmp_path: Path, monkeypatch) -> None:
    import threading

    from engine.workflow import verify

    entered = threading.Event()
    stopped = threading.Event()

    def slow_walk(workspace: Path, stop: threading.Event | None = None) -> str | None:
        entered.set()
        assert stop is not None
        if stop.wait(10):
            stopped.set()
        return None

    monkeypatch.setattr(verify, "_first_pytest_file", slow_walk)
    task = asyncio.ensure_future(verify.choose_verify_command_off_loop("", [], tmp_path))
    while not entered.is_set():
        await asyncio.sleep(0.01)  # the loop keeps running while the walk runs
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(stopped.wait, 5)
