"""Auto-verify (SPEC 8): after a turn edits code, run the project's tests with one of a fixed set of commands.

Two separate decisions, each its own function: *whether* to verify (``should_verify``) and *which* command
(``choose_verify_command``). Only the exact commands of ``WHITELIST`` ever run: a candidate outside it (the user's,
or the config's) is refused and nothing else is run in its place. After a run, ``classify_failure`` tells a failure
the model can fix (the tests fail: ``fix_message`` asks it to fix and verify again) from one of the environment
(the tool is not installed, exit 126/127...: a warning, and verification stops).

Counting: ``attempts`` is the number of "fix it and verify again" rounds already asked for in this turn. The first
verification is not a retry; a fixable failure is retried while ``attempts < max_verify_attempts`` (default 2, so
at most two retries, as SPEC 8 says), and the verification that follows a retry always runs.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal, Protocol

from engine.modes import Mode
from engine.record import record

if TYPE_CHECKING:
    from engine.config.schema import WorkflowConfig
    from engine.sandbox.grant import SandboxGrant
    from engine.tools.bash import CommandResult

WHITELIST: tuple[str, ...] = (
    "go test ./...",
    "pytest -q",
    "npm test -- --watch=false",
    "pnpm test -- --watch=false",
    "yarn test --watch=false",
    "cargo test",
    "mvn -q test",
    "gradle test",
    "./gradlew test",
)

DOC_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc"})
DOC_FOLDERS = frozenset({"docs", "doc", "documentation"})
# How much of a failed run's output the model is shown.
OUTPUT_TAIL_LINES = 80
OUTPUT_TAIL_CHARS = 6000

_ASKED = re.compile(
    r"(?<![A-Za-z])(?:verify|verified|verification|validate|re-?run (?:the )?tests?|run (?:the |all |my )?"
    r"(?:unit |integration )?tests?|run (?:the )?test suite|make sure (?:the )?tests? pass|check (?:that )?"
    r"(?:the )?tests? pass|tests? (?:it|this|that|them)|ensure (?:the )?tests? pass)(?![A-Za-z])"
    r"|跑测试|跑一下测试|跑下测试|跑单测|运行测试|执行测试|跑一遍测试|测试一下|验证(?!码)|确保测试通过|测试通过",
    re.IGNORECASE,
)
# A command the user quotes (`make test`): a test tool's name first, a word of testing after.
_QUOTED = re.compile(r"`([^`\n]+)`")
_RUNNERS = re.compile(
    r"^(?:go|pytest|py\.test|python3?|npm|pnpm|yarn|npx|cargo|mvn|gradle|\./gradlew|gradlew|make|tox|nox|uv|poetry|"
    r"bun|deno|jest|vitest|ctest|bazel)(?:\s|$)"
)
_TESTING = re.compile(r"test|check|verify|spec", re.IGNORECASE)
# A whitelisted command written out, not inside a longer word or command ("pnpm test" is not "npm test").
_WRITTEN = [
    (command, re.compile(rf"(?<![\w./-]){re.escape(command)}(?![\w-])")) for command in WHITELIST
]
_NOT_FOUND = re.compile(r"command not found|not found: |No such file or directory|is not recognized as", re.IGNORECASE)
# Failures that no code change fixes: a missing script, no project, no tests at all.
_ENVIRONMENT_SIGNS = re.compile(
    r"Missing script:? \"?test|npm ERR! missing script|could not find `Cargo\.toml`|go: cannot find main module|"
    r"go\.mod file not found|no tests ran|collected 0 items|No module named pytest|"
    r"does not contain a Maven project|No POM in this directory|ERR_PNPM_NO_SCRIPT|Couldn't find a package\.json",
    re.IGNORECASE,
)


@record
class Decision:
    yes: bool
    reason: str

    def __bool__(self) -> bool:
        return self.yes


@record
class Choice:
    """The command to run, or None and why nothing runs. ``source``: where the command came from."""

    command: str | None
    reason: str
    source: Literal["user", "config", "inferred"] | None = None


FailureKind = Literal["passed", "fixable", "environment"]


@record
class Outcome:
    kind: FailureKind
    reason: str


class RunResult(Protocol):
    """What a verification run returns (``engine.tools.bash.CommandResult`` has it)."""

    @property
    def command(self) -> str: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def stdout(self) -> str: ...
    @property
    def stderr(self) -> str: ...
    @property
    def timed_out(self) -> bool: ...


def user_asked_for_verification(text: str) -> bool:
    """"run the tests", "verify", "make sure tests pass", "跑测试", "验证"... in the user's request, or a test
    command the user names."""
    return bool(_ASKED.search(text)) or explicit_command(text) is not None


def is_documentation(path: str) -> bool:
    """A documentation file: ``.md`` and similar, or anything under a ``docs/`` folder."""
    posix = PurePosixPath(path.replace("\\", "/"))
    if posix.suffix.lower() in DOC_SUFFIXES:
        return True
    return any(part.lower() in DOC_FOLDERS for part in posix.parts[:-1])


def should_verify(
    *,
    edited_paths: Sequence[str],
    mode: Mode,
    workflow: WorkflowConfig,
    bash_available: bool,
    bash_allowed: bool,
    attempts: int,
    user_asked: bool,
) -> Decision:
    """Whether the turn's edits are verified now (SPEC 8), checking each condition in the SPEC's order."""
    if not edited_paths:
        return Decision(False, "the turn changed no file")
    if all(is_documentation(path) for path in edited_paths):
        return Decision(False, "only documentation was changed")
    if not workflow.auto_verify_after_edit:
        return Decision(False, "workflow.auto_verify_after_edit is off")
    if not bash_available:
        return Decision(False, "the bash tool is not available")
    if not bash_allowed:
        return Decision(False, "the permission policy does not allow running the command")
    if attempts > workflow.max_verify_attempts:
        return Decision(False, f"{workflow.max_verify_attempts} verification retries already made")
    if mode is Mode.PLAN:
        return Decision(False, "plan mode never verifies")
    if mode is Mode.DEFAULT and not user_asked:
        return Decision(False, "default mode verifies only when the user asks for it")
    return Decision(True, f"{mode.value} mode, code files changed")


def may_retry(attempts: int, workflow: WorkflowConfig) -> bool:
    """After a fixable failure: whether to ask the model to fix it and verify again."""
    return attempts < workflow.max_verify_attempts


async def choose_verify_command_off_loop(
    user_text: str, verify_commands: Sequence[str], workspace: Path
) -> Choice:
    """``choose_verify_command`` in a worker thread: inferring the command may walk the workspace, which must not
    hold the event loop; cancelling the caller (Esc, a signal) stops the walk."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(choose_verify_command, user_text, verify_commands, workspace, stop)
    finally:
        stop.set()


def choose_verify_command(
    user_text: str, verify_commands: Sequence[str], workspace: Path, stop: threading.Event | None = None
) -> Choice:
    """The user's explicit command if whitelisted; else the first whitelisted entry of ``verify_commands``; else
    one inferred from the project's files. A named candidate outside the whitelist stops the choice there."""
    named = explicit_command(user_text)
    if named is not None:
        if named in WHITELIST:
            return Choice(named, "the command you asked for", "user")
        return Choice(None, f"`{named}` is not one of the auto-verify commands ({', '.join(WHITELIST)})")
    if verify_commands:
        for candidate in verify_commands:
            if normalise(candidate) in WHITELIST:
                return Choice(normalise(candidate), "the first whitelisted entry of workflow.verify_commands", "config")
        listed = ", ".join(f"`{c}`" for c in verify_commands)
        allowed = ", ".join(WHITELIST)
        return Choice(None, f"workflow.verify_commands ({listed}) holds no auto-verify command ({allowed})")
    return infer_command(workspace, stop)


def explicit_command(user_text: str) -> str | None:
    """The command the user named: a whitelisted command written out (the first one), else a `quoted` command that
    runs a test tool (``make test``, ``pytest -x``), which is returned as it is, to be refused."""
    flat = normalise(user_text)
    written = [(match.start(), command) for command, pattern in _WRITTEN if (match := pattern.search(flat))]
    if written:
        return min(written)[1]
    for span in _QUOTED.findall(user_text):
        candidate = normalise(span)
        if _RUNNERS.match(candidate) and _TESTING.search(candidate):
            return candidate
    return None


def infer_command(workspace: Path, stop: threading.Event | None = None) -> Choice:
    """The whitelisted command for the project at ``workspace``, from its build files (first match wins: Go,
    Rust, Node, Python, Maven, Gradle)."""
    if (workspace / "go.mod").is_file():
        return Choice("go test ./...", "go.mod found", "inferred")
    if (workspace / "Cargo.toml").is_file():
        return Choice("cargo test", "Cargo.toml found", "inferred")
    package = workspace / "package.json"
    if package.is_file():
        choice = _node_command(package)
        if choice is not None:
            return choice
    reason = _pytest_reason(workspace, stop)
    if reason is not None:
        return Choice("pytest -q", reason, "inferred")
    if (workspace / "pom.xml").is_file():
        return Choice("mvn -q test", "pom.xml found", "inferred")
    if (workspace / "build.gradle").is_file() or (workspace / "build.gradle.kts").is_file():
        if (workspace / "gradlew").is_file():
            return Choice("./gradlew test", "Gradle build with a gradlew wrapper found", "inferred")
        return Choice("gradle test", "Gradle build found", "inferred")
    return Choice(None, "no test setup found (go.mod, Cargo.toml, package.json with a test script, pytest "
                  "configuration or tests, pom.xml, build.gradle)")


def classify_failure(result: RunResult) -> Outcome:
    """``passed`` (exit 0), ``environment`` (the tool is missing or cannot run, no tests exist, or it hung), or
    ``fixable`` (the tests ran and failed: the code needs fixing)."""
    if result.timed_out:
        return Outcome("environment", "the command timed out")
    if result.exit_code == 0:
        return Outcome("passed", "the command succeeded")
    if result.exit_code in (126, 127):
        kind = "cannot be executed" if result.exit_code == 126 else "was not found"
        return Outcome("environment", f"the command {kind} (exit {result.exit_code})")
    if result.exit_code == 5 and result.command.startswith("pytest"):
        return Outcome("environment", "pytest collected no tests (exit 5)")
    output = f"{result.stdout}\n{result.stderr}"
    if _NOT_FOUND.search(result.stderr) and result.command.split()[0] in result.stderr:
        return Outcome("environment", "the command was not found")
    sign = _ENVIRONMENT_SIGNS.search(output)
    if sign:
        return Outcome("environment", f"the project cannot be tested this way ({sign.group(0)})")
    return Outcome("fixable", f"the tests failed (exit {result.exit_code})")


def fix_message(result: RunResult) -> str:
    """The message that asks the model to fix what verification found and verify again."""
    return (
        f"Auto-verify: `{result.command}` failed (exit {result.exit_code}). Fix the cause of the failure, then "
        f"verify again.\n\nOutput (end):\n```\n{output_tail(result)}\n```"
    )


def output_tail(result: RunResult) -> str:
    text = "\n".join(part.rstrip() for part in (result.stdout, result.stderr) if part.strip())
    lines = text.splitlines()[-OUTPUT_TAIL_LINES:]
    tail = "\n".join(lines)
    return tail[-OUTPUT_TAIL_CHARS:] if len(tail) > OUTPUT_TAIL_CHARS else tail


def not_run_message(reason: str) -> str:
    return f"auto-verify not run: {reason}"


async def run_verification(
    command: str, workspace: Path, *, timeout: float, output_cap: int, grant: SandboxGrant | None
) -> CommandResult:
    """Runs a whitelisted command in the workspace under ``grant`` (SPEC 8: confined; the test code it runs may be
    the model's), ended with everything it started on timeout or cancellation. ``grant`` None (yolo) runs it
    unconfined. Anything but a whitelisted command is refused here too, whatever the caller chose."""
    if command not in WHITELIST:
        raise ValueError(f"refusing to auto-verify with {command!r}: not one of {', '.join(WHITELIST)}")
    from engine.tools.bash import run_command

    return await run_command(command, workspace, timeout, output_cap, sandbox=grant)


def normalise(command: str) -> str:
    return " ".join(command.split())


def _node_command(package: Path) -> Choice | None:
    try:
        manifest = json.loads(package.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    scripts = manifest.get("scripts") if isinstance(manifest, dict) else None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    # npm init writes a test script that only fails; it is no test setup.
    if not isinstance(test, str) or not test.strip() or "no test specified" in test:
        return None
    folder = package.parent
    manager = str(manifest.get("packageManager", "")).split("@")[0]
    if (folder / "pnpm-lock.yaml").is_file() or manager == "pnpm":
        return Choice("pnpm test -- --watch=false", "package.json test script, pnpm lock file", "inferred")
    if (folder / "yarn.lock").is_file() or manager == "yarn":
        return Choice("yarn test --watch=false", "package.json test script, yarn lock file", "inferred")
    return Choice("npm test -- --watch=false", "package.json test script", "inferred")


def _pytest_reason(workspace: Path, stop: threading.Event | None = None) -> str | None:
    for name, marker in (
        ("pytest.ini", None),
        ("pyproject.toml", "[tool.pytest"),
        ("setup.cfg", "[tool:pytest]"),
        ("tox.ini", "[pytest]"),
    ):
        path = workspace / name
        if path.is_file() and (marker is None or marker in _read(path)):
            return f"pytest configuration in {name}"
    if (workspace / "conftest.py").is_file():
        return "conftest.py found"
    found = _first_pytest_file(workspace, stop)
    if found is not None:
        return f"Python tests such as {found}"
    return None


# What pytest itself does not recurse into (its default ``norecursedirs``), and dependency folders.
_NOT_COLLECTED = {"build", "dist", "node_modules", "venv", "site-packages", "__pycache__", "CVS", "_darcs", "{arch}"}
# The walk's bounds (SPEC 13: no walk can hang or crash the engine): folders seen, depth, seconds. A project whose
# tests lie beyond them has a configuration anyway.
_MAX_FOLDERS = 5000
_MAX_DEPTH = 32
_MAX_SECONDS = 2.0


def _first_pytest_file(workspace: Path, stop: threading.Event | None = None) -> str | None:
    """The first file pytest would collect with no configuration (``test_*.py`` or ``*_test.py``), anywhere but
    hidden folders, virtual environments and dependency folders; its workspace-relative path, or None.

    Breadth first, without recursion and without following links, within ``_MAX_FOLDERS`` folders, ``_MAX_DEPTH``
    levels and ``_MAX_SECONDS``; ``stop`` (set when the turn is cancelled) ends it early."""
    deadline = time.monotonic() + _MAX_SECONDS
    queue: deque[tuple[Path, int]] = deque([(workspace, 0)])
    seen = 0
    while queue:
        folder, depth = queue.popleft()
        seen += 1
        if seen > _MAX_FOLDERS or time.monotonic() > deadline or (stop is not None and stop.is_set()):
            return None
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")):
                if entry.is_file(follow_symlinks=False):
                    return Path(entry.path).relative_to(workspace).as_posix()
        if depth >= _MAX_DEPTH:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and not _skipped_folder(Path(entry.path)):
                queue.append((Path(entry.path), depth + 1))
    return None


def _skipped_folder(path: Path) -> bool:
    name = path.name
    if name.startswith(".") or name in _NOT_COLLECTED or name.endswith(".egg"):
        return True
    # A virtual environment or a conda environment, whatever its name (pytest skips these too).
    return (path / "pyvenv.cfg").is_file() or (path / "conda-meta").is_dir()


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
