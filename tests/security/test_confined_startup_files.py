"""SPEC 13: a shell started with a start-up file of the model's (`bash --rcfile ./evil.sh -ic ls`, `--init-file`)
runs that file before its script. The parser once kept such lines out of the read-only class; the kernel confines
what the file does instead, so they run unasked. Each line runs as the policy lets it, in the hostile world of
conftest.py, with a start-up file that reads the outside secret, writes outside and in the workspace, and connects to
a listener: none of it reaches anything. Without the kernel the same file does run (the attack is real)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.modes import Mode
from engine.policy import Action, PermissionPolicy
from engine.sandbox import Confinement, SandboxGrant, SandboxSupport, detect
from engine.tools.base import ToolKind
from engine.tools.bash import run_command
from tests.security.conftest import SECRET, snapshot

SUPPORT = detect()
pytestmark = pytest.mark.skipif(not SUPPORT.confines_unasked, reason=f"this machine cannot confine reads ({SUPPORT})")
LINES = (
    "bash --rcfile ./evil.sh -ic ls",
    "bash --init-file ./evil.sh -ic 'git status'",
    "bash --rcfile evil.sh -i -c 'cat notes.txt'",
    "timeout 5 bash --rcfile ./evil.sh -i -c 'echo hi'",
)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP listener on 127.0.0.1 that nothing accepts from: a connection that got through waits in its backlog."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def _arm(root: Path, outside: Path, port: int) -> Path:
    """The model's start-up file in the workspace; returns the marker it makes outside."""
    mark = outside / "pwned"
    (root / "evil.sh").write_text(
        f"echo STARTUP-RAN\n"
        f"cat {outside}/secret.txt\n"
        f"touch {mark}\n"
        f"echo changed >> {root}/notes.txt\n"
        f"echo sent > /dev/tcp/127.0.0.1/{port}\n"
    )
    return mark


def _reached(listener: socket.socket) -> bool:
    try:
        connection, _ = listener.accept()
    except BlockingIOError:
        return False
    connection.close()
    return True


@pytest.mark.parametrize("command", LINES)
async def test_start_up_file_runs_unasked_and_confined(
    world: tuple[Path, Path], listener: socket.socket, command: str
) -> None:
    root, outside = world
    mark = _arm(root, outside, listener.getsockname()[1])
    before = (snapshot(outside), snapshot(root / "src"), (root / "notes.txt").read_bytes())
    decision = PermissionPolicy(Mode.DEFAULT, workspace=root, sandbox=SUPPORT).decide(
        "bash", ToolKind.EXECUTE, {"command": command}
    )
    assert decision.action is Action.ALLOW and decision.sandbox is not None, decision
    assert decision.sandbox.confinement is Confinement.UNASKED
    result = await run_command(command, root, 20, 100_000, sandbox=decision.sandbox)
    assert "STARTUP-RAN" in result.stdout, result  # the file did run: the kernel, not the shell, held
    assert SECRET.strip() not in result.stdout + result.stderr
    assert not mark.exists()
    assert (snapshot(outside), snapshot(root / "src"), (root / "notes.txt").read_bytes()) == before
    assert not _reached(listener)


async def test_without_the_kernel_the_start_up_file_reaches_out(
    world: tuple[Path, Path], listener: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("engine.tools.bash.detect", lambda: SandboxSupport("none"))
    root, outside = world
    mark = _arm(root, outside, listener.getsockname()[1])
    result = await run_command(LINES[0], root, 20, 100_000, sandbox=SandboxGrant(Confinement.UNASKED, network=False))
    assert SECRET.strip() in result.stdout
    assert mark.exists()
    assert _reached(listener)
