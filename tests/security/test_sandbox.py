"""SPEC 20: the sandbox itself. Landlock through the launcher on this kernel (skipped where the kernel has none),
the Seatbelt profile as text (macOS cannot run here), the description `/permissions` shows, and what the policy
does where no sandbox exists."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from engine.modes import Mode
from engine.policy import PermissionPolicy
from engine.sandbox import Confinement, SandboxGrant, SandboxSupport, describe, detect
from engine.sandbox.command import LAUNCHER, confine, refused_write_note
from engine.sandbox.seatbelt import profile
from engine.tools.base import ToolContext, ToolKind
from engine.tools.bash import BashParams, BashTool, run_command
from engine.tools.guard import Workspace

LANDLOCK = detect()
needs_landlock = pytest.mark.skipif(LANDLOCK.kind != "landlock", reason="this kernel has no Landlock")
UNASKED = SandboxGrant(Confinement.UNASKED)
APPROVED = SandboxGrant(Confinement.APPROVED)


async def _bash(command: str, root: Path, grant: SandboxGrant | None) -> dict[str, object]:
    output = await BashTool().run(BashParams(command=command), ToolContext(workspace=Workspace(root), sandbox=grant))
    return output.data


@needs_landlock
async def test_unasked_command_writes_only_to_its_temp_folder(world: tuple[Path, Path]) -> None:
    root, outside = world
    data = await _bash(
        'echo t > "$TMPDIR/t" && cat "$TMPDIR/t"; echo w > inside.txt; echo o > ../out/pwned; echo done',
        root,
        UNASKED,
    )
    assert data["stdout"] == "t\ndone\n"
    assert "Permission denied" in str(data["stderr"])
    assert not (root / "inside.txt").exists() and not (outside / "pwned").exists()
    assert "sandbox" not in data  # the line as a whole succeeded: nothing failed for the sandbox to explain


@needs_landlock
async def test_refused_write_is_named_in_the_result(world: tuple[Path, Path]) -> None:
    root, outside = world
    data = await _bash("touch ../out/pwned", root, UNASKED)
    assert data["exit_code"] != 0
    assert "sandbox" in str(data["sandbox"]) and "without asking" in str(data["sandbox"])
    assert not (outside / "pwned").exists()


@needs_landlock
async def test_approved_command_writes_in_the_workspace_not_outside(world: tuple[Path, Path]) -> None:
    root, outside = world
    data = await _bash("echo w > inside.txt && mkdir -p build/x && echo o > ../out/pwned", root, APPROVED)
    assert (root / "inside.txt").read_text() == "w\n" and (root / "build" / "x").is_dir()
    assert not (outside / "pwned").exists()
    assert "sandbox.writable" in str(data["sandbox"])


@needs_landlock
async def test_sandbox_writable_adds_folders_for_approved_commands(world: tuple[Path, Path]) -> None:
    root, outside = world
    grant = SandboxGrant(Confinement.APPROVED, extra_writable=(str(outside),))
    await _bash("echo o > ../out/allowed", root, grant)
    assert (outside / "allowed").read_text() == "o\n"
    await _bash("echo o > ../out/not-for-unasked", root, SandboxGrant(Confinement.UNASKED, extra_writable=(str(outside),)))
    assert not (outside / "not-for-unasked").exists()


@needs_landlock
async def test_temp_folder_is_private_and_removed(world: tuple[Path, Path]) -> None:
    root, _ = world
    first = await _bash('echo "$TMPDIR"', root, UNASKED)
    second = await _bash('echo "$TMPDIR"', root, UNASKED)
    assert first["stdout"] != second["stdout"]
    assert not Path(str(first["stdout"]).strip()).exists()


@needs_landlock
@pytest.mark.skipif(not LANDLOCK.blocks_network, reason="Landlock ABI < 4 has no TCP rules")
async def test_plan_grant_blocks_tcp_even_to_localhost(world: tuple[Path, Path]) -> None:
    root, _ = world
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
    try:
        allowed = await run_command(probe, root, 10, 10_000, sandbox=SandboxGrant(Confinement.APPROVED, network=True))
        blocked = await run_command(probe, root, 10, 10_000, sandbox=SandboxGrant(Confinement.APPROVED, network=False))
        unasked = await run_command(probe, root, 10, 10_000, sandbox=SandboxGrant(Confinement.UNASKED, network=True))
    finally:
        server.close()
    assert allowed.stdout == "connected\n"
    assert blocked.stdout == "" and blocked.exit_code != 0
    assert unasked.stdout == "" and unasked.exit_code != 0  # an unasked command never has the network


@needs_landlock
async def test_sandboxed_command_cannot_signal_processes_outside(world: tuple[Path, Path]) -> None:
    root, _ = world
    watcher = await asyncio.create_subprocess_exec("sleep", "30")
    try:
        result = await run_command(f"kill -TERM {watcher.pid}", root, 10, 10_000, sandbox=UNASKED)
        assert result.exit_code != 0
        assert watcher.returncode is None
    finally:
        watcher.kill()
        await watcher.wait()


@needs_landlock
async def test_yolo_and_bang_run_unsandboxed(world: tuple[Path, Path]) -> None:
    root, outside = world
    await run_command("echo y > ../out/from-bang", root, 10, 10_000)
    assert (outside / "from-bang").exists()
    decision = PermissionPolicy(Mode.YOLO, workspace=root).decide("bash", ToolKind.EXECUTE, {"command": "ls"})
    assert decision.sandbox is None


def test_confined_argv_runs_the_launcher_before_the_shell(tmp_path: Path) -> None:
    support = SandboxSupport("landlock", 7, seccomp=True)
    confined = confine(UNASKED, support, "/bin/bash", "true", tmp_path)
    try:
        assert confined.argv[1:4] == ["-E", "-s", "-S"]
        assert confined.argv[confined.argv.index("--") + 1 :] == ["/bin/bash", "-c", "true"]
        assert "--no-net" in confined.argv and "--confine-reads" in confined.argv  # never the network unasked
        assert confined.argv.count("--write") == 1 and confined.tmpdir in confined.argv
    finally:
        confined.cleanup()
    assert not Path(confined.tmpdir).exists()


def test_policy_grants_follow_the_decision(tmp_path: Path) -> None:
    support = SandboxSupport("landlock", 7, seccomp=True)
    plan = PermissionPolicy(Mode.PLAN, workspace=tmp_path, sandbox=support)
    unasked = plan.decide("bash", ToolKind.EXECUTE, {"command": "ls"}).sandbox
    assert unasked == SandboxGrant(Confinement.UNASKED, network=False)
    default = PermissionPolicy(
        Mode.DEFAULT, workspace=tmp_path, sandbox=support, bash_rules={"npm test*": "allow"}, sandbox_writable=("~/x",)
    )
    allowed = default.decide("bash", ToolKind.EXECUTE, {"command": "npm test"}).sandbox
    assert allowed == SandboxGrant(Confinement.APPROVED, network=True, extra_writable=("~/x",))
    asked = default.decide("bash", ToolKind.EXECUTE, {"command": "make"})
    assert asked.action.value == "ask" and asked.sandbox is not None
    assert asked.sandbox.confinement is Confinement.APPROVED


def test_without_a_sandbox_read_only_commands_ask_and_a_notice_is_given_once(tmp_path: Path) -> None:
    policy = PermissionPolicy(Mode.DEFAULT, workspace=tmp_path, sandbox=SandboxSupport("none"))
    decision = policy.decide("bash", ToolKind.EXECUTE, {"command": "ls"})
    assert decision.action.value == "ask" and "cannot confine" in decision.reasons[0]
    # Approved, it still runs with the allow-listed environment and git's hooks off.
    assert decision.sandbox == SandboxGrant(Confinement.UNASKED, network=False)
    notice = policy.take_sandbox_notice()
    assert notice is not None and "no bash sandbox" in notice
    assert policy.take_sandbox_notice() is None
    assert "none available" in policy.sandbox_description()
    yolo = PermissionPolicy(Mode.YOLO, workspace=tmp_path, sandbox=SandboxSupport("none"))
    assert yolo.decide("bash", ToolKind.EXECUTE, {"command": "ls"}).action.value == "allow"
    assert yolo.take_sandbox_notice() is None


def test_description_names_the_sandbox_and_what_it_allows() -> None:
    text = describe(SandboxSupport("landlock", 7, seccomp=True))
    assert text.startswith("landlock (ABI 7) + seccomp: ")
    assert "private temp folder" in text and "no network in plan" in text and "read only the workspace" in text
    assert "network not restricted" in describe(SandboxSupport("landlock", 3))
    assert "read-only commands ask" in describe(SandboxSupport("landlock", 7, seccomp=False))
    assert describe(SandboxSupport("seatbelt")).startswith("seatbelt")


def test_seatbelt_profile_denies_writes_but_the_allowed_folders() -> None:
    text = profile(["/work/ws", '/tmp/we"ird'], network=False)
    lines = text.splitlines()
    assert lines[:3] == ["(version 1)", "(allow default)", "(deny file-write*)"]
    assert '    (subpath "/work/ws")' in lines
    assert '(subpath "' in text and 'we\\"ird' in text
    assert '    (literal "/dev/null")' in lines
    assert "(deny network-outbound)" in lines
    assert "network" not in profile(["/w"], network=True)
    assert text.count("(") == text.count(")")
    assert "file-read" not in text  # approved commands read anywhere


def test_seatbelt_profile_of_unasked_commands_limits_reads_too(tmp_path: Path) -> None:
    """macOS (SPEC 13, issue 26 item 6): the same read limits as Landlock's, and no network."""
    support = SandboxSupport("seatbelt")
    confined = confine(UNASKED, support, "/bin/bash", "true", tmp_path, {"PATH": "/usr/bin:/opt/homebrew/bin"})
    try:
        assert confined.argv[:2] == ["/usr/bin/sandbox-exec", "-p"]
        text = confined.argv[2]
        lines = text.splitlines()
        assert "(deny file-read*)" in lines and "(allow file-read-metadata)" in lines
        assert f"    (subpath {str(tmp_path.resolve())!r})".replace("'", '"') in lines
        assert '    (subpath "/usr")' in lines and "(deny network-outbound)" in lines
        home = str(Path.home().resolve())
        assert f'(subpath "{home}")' not in text
        assert text.count("(") == text.count(")")
    finally:
        confined.cleanup()


def test_refused_write_note_only_for_failures_that_look_like_refusals() -> None:
    landlock = SandboxSupport("landlock", 7, seccomp=True)
    assert refused_write_note(UNASKED, landlock, 0, "Permission denied") is None
    assert refused_write_note(UNASKED, landlock, 1, "no such file") is None
    assert refused_write_note(UNASKED, landlock, 1, "touch: cannot touch 'x': Permission denied") is not None
    assert refused_write_note(APPROVED, landlock, 2, "Read-only file system") is not None
    curl = "curl: (7) Couldn't connect: Address family not supported by protocol"
    assert "no network" in str(refused_write_note(UNASKED, landlock, 7, curl))
    assert refused_write_note(UNASKED, SandboxSupport("none"), 1, "Permission denied") is None
    plan_grant = SandboxGrant(Confinement.APPROVED, network=False)
    plan = refused_write_note(plan_grant, landlock, 1, "Operation not permitted")
    assert plan is not None and "network is off" in plan


def test_without_a_sandbox_the_grant_still_scrubs_the_environment(tmp_path: Path) -> None:
    confined = confine(UNASKED, SandboxSupport("none"), "/bin/bash", "true", tmp_path, {"GIT_DIR": "/x", "PATH": "1"})
    try:
        assert confined.argv == ["/bin/bash", "-c", "true"]
        assert "GIT_DIR" not in confined.env and confined.env["PATH"] == "1"
        assert confined.env["GIT_CONFIG_KEY_0"] == "core.fsmonitor"
    finally:
        confined.cleanup()


def test_launcher_that_cannot_confine_does_not_run_the_command(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    result = subprocess.run(
        [sys.executable, "-E", "-s", "-S", LAUNCHER, "--bogus", "--", "/bin/sh", "-c", f"touch {marker}"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 126 and "sandbox launcher" in result.stderr
    assert not marker.exists()
