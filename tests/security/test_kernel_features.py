"""One test per kernel feature the confinement uses (SPEC 13, 20), each skipped with the reason where this machine
lacks it; the line `sandbox: ...` at the end of the run (tests/security/conftest.py) says which ones it had."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.sandbox import Confinement, SandboxGrant, detect
from engine.sandbox import landlock, seccomp
from engine.sandbox.command import LAUNCHER
from engine.tools.bash import run_command

SUPPORT = detect()
UNASKED = SandboxGrant(Confinement.UNASKED, network=False)
APPROVED_PLAN = SandboxGrant(Confinement.APPROVED, network=False)


def _skip_unless(condition: bool, feature: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not condition, reason=f"this kernel lacks {feature} ({SUPPORT})")


@_skip_unless(SUPPORT.kind == "landlock", "Landlock (file read rights, ABI 1)")
async def test_landlock_read_rights(world: tuple[Path, Path]) -> None:
    root, outside = world
    inside = await run_command("cat README.md", root, 20, 10_000, sandbox=UNASKED)
    out = await run_command(f"cat {outside}/secret.txt", root, 20, 10_000, sandbox=UNASKED)
    assert inside.stdout == "# project\n"
    assert out.exit_code != 0 and "Permission denied" in out.stderr and out.stdout == ""


@_skip_unless(SUPPORT.kind == "landlock", "Landlock")
async def test_no_proc_for_unasked_commands(world: tuple[Path, Path]) -> None:
    root, _ = world
    result = await run_command("cat /proc/self/environ; ls /proc; cat /proc/1/cmdline", root, 20, 10_000,
                               sandbox=UNASKED)  # fmt: skip
    assert result.stdout == "" and result.stderr.count("Permission denied") == 3


@_skip_unless(SUPPORT.kind == "landlock" and SUPPORT.abi >= 4, "Landlock TCP rules (ABI 4)")
def test_landlock_tcp_rules(tmp_path: Path) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)"
    try:
        pid = os.fork()
        if pid == 0:
            try:
                landlock.restrict([], [], block_tcp=True)
                exec(probe)
                os._exit(0)
            except OSError:
                os._exit(3)
        _, status = os.waitpid(pid, 0)
    finally:
        server.close()
    assert os.WEXITSTATUS(status) == 3


@_skip_unless(SUPPORT.seccomp, "seccomp filters")
@pytest.mark.parametrize("family", ["AF_INET", "AF_INET6", "AF_PACKET", "AF_NETLINK"])
@pytest.mark.parametrize("kind", ["SOCK_DGRAM", "SOCK_STREAM", "SOCK_RAW"])
def test_seccomp_leaves_only_unix_sockets(family: str, kind: str) -> None:
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            seccomp.deny_network()
            try:
                socket.socket(getattr(socket, family), getattr(socket, kind))
                code = 1
            except OSError as exc:
                code = 3 if exc.errno in (97, 1) else 4
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()
        except BaseException:
            code = 5
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 3


@_skip_unless(SUPPORT.blocks_network, "seccomp filters")
async def test_udp_from_an_approved_plan_command_never_leaves(world: tuple[Path, Path]) -> None:
    root, _ = world
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    command = f"echo leak > /dev/udp/127.0.0.1/{port}; python3 -c \"import socket; socket.socket(2, 2).sendto(b'x', ('127.0.0.1', {port}))\""
    try:
        result = await run_command(command, root, 20, 10_000, sandbox=APPROVED_PLAN)
        with pytest.raises(TimeoutError):
            listener.recvfrom(100)
        control = await run_command(command, root, 20, 10_000, sandbox=SandboxGrant(Confinement.APPROVED))
        assert listener.recvfrom(100)[0] in (b"leak\n", b"x")  # the same command with the network does send
    finally:
        listener.close()
    assert result.exit_code != 0 and control.exit_code == 0


@_skip_unless(SUPPORT.kind == "landlock" and SUPPORT.abi >= 6, "Landlock scopes (ABI 6)")
async def test_landlock_signal_scope(world: tuple[Path, Path]) -> None:
    root, _ = world
    watcher = subprocess.Popen(["sleep", "30"])
    try:
        result = await run_command(f"kill -TERM {watcher.pid}", root, 10, 10_000, sandbox=UNASKED)
        assert result.exit_code != 0 and watcher.poll() is None
    finally:
        watcher.kill()
        watcher.wait()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


def _escapee(root: Path, name: str) -> str:
    """A command that starts a process outside its group and session (`setsid`), which writes its pid to ``name``."""
    return f"setsid sh -c 'echo $$ > {name}; exec sleep 100' > /dev/null 2>&1 & sleep 0.3; echo started"


async def _wait_for_pid(path: Path) -> int:
    for _ in range(300):
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        await asyncio.sleep(0.02)
    raise AssertionError("the child never started")


async def _gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


@_skip_unless(SUPPORT.ends_trees, "a child subreaper (Linux)")
@pytest.mark.parametrize("grant", [None, SandboxGrant(Confinement.APPROVED)], ids=["unconfined", "approved"])
async def test_setsid_children_die_when_the_command_ends(tmp_path: Path, grant: SandboxGrant | None) -> None:
    result = await run_command(_escapee(tmp_path, "pid"), tmp_path, 20, 10_000, sandbox=grant)
    assert result.stdout == "started\n"
    assert await _gone(await _wait_for_pid(tmp_path / "pid"))


@_skip_unless(SUPPORT.ends_trees, "a child subreaper (Linux)")
async def test_setsid_children_die_on_timeout_and_cancellation(tmp_path: Path) -> None:
    command = _escapee(tmp_path, "pid") + "; sleep 100"
    timed = await run_command(command, tmp_path, 1.5, 10_000, sandbox=SandboxGrant(Confinement.APPROVED))
    assert timed.timed_out
    assert await _gone(await _wait_for_pid(tmp_path / "pid"))
    (tmp_path / "pid").unlink()
    task = asyncio.ensure_future(run_command(command, tmp_path, 60, 10_000))
    pid = await _wait_for_pid(tmp_path / "pid")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _gone(pid)


@_skip_unless(SUPPORT.ends_trees, "a child subreaper (Linux)")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL])
def test_setsid_children_die_with_the_launcher_or_its_parent(tmp_path: Path, signum: int) -> None:
    """A signal to the launcher, or the death of whoever started it (coder killed with SIGKILL), ends the tree."""
    pid_file = tmp_path / "pid"
    inner = _escapee(tmp_path, str(pid_file)) + "; sleep 100"
    if signum == signal.SIGKILL:
        # The parent (a stand-in for coder) is killed; the launcher learns it through PR_SET_PDEATHSIG.
        script = (f"import subprocess, sys; subprocess.Popen([sys.executable, '-E', '-s', '-S', {LAUNCHER!r}, "
                  f"'--unconfined', '--', '/bin/sh', '-c', {inner!r}], cwd={str(tmp_path)!r}).wait()")  # fmt: skip
        parent = subprocess.Popen([sys.executable, "-c", script])
    else:
        parent = subprocess.Popen([sys.executable, "-E", "-s", "-S", LAUNCHER, "--unconfined", "--", "/bin/sh", "-c", inner],
                                  cwd=tmp_path)  # fmt: skip
    try:
        pid = asyncio.run(_wait_for_pid(pid_file))
        parent.send_signal(signum)
        parent.wait(10)
        assert asyncio.run(_gone(pid)), f"the setsid child {pid} outlived {signal.Signals(signum).name}"
    finally:
        parent.kill()


@_skip_unless(SUPPORT.blocks_network, "seccomp filters")
async def test_unasked_commands_reach_no_local_daemon_through_a_unix_socket(tmp_path: Path) -> None:
    """A unix socket can lead out (a Docker daemon, an SSH agent, a proxy): an unasked command cannot connect one."""
    root = tmp_path / "ws"
    root.mkdir()
    path = str(tmp_path / "daemon.sock")
    daemon = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    daemon.bind(path)
    daemon.listen()
    daemon.settimeout(0.5)
    command = f"python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{path}'); s.send(b'x')\""
    try:
        result = await run_command(command, root, 20, 10_000, sandbox=UNASKED)
        with pytest.raises(TimeoutError):
            daemon.accept()
        approved = await run_command(command, root, 20, 10_000, sandbox=SandboxGrant(Confinement.APPROVED))
        daemon.accept()[0].close()  # the same command approved does connect: the refusal was the filter's
    finally:
        daemon.close()
    assert result.exit_code != 0 and "Operation not permitted" in result.stderr
    assert approved.exit_code == 0
    pair = await run_command("python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"ok\"); print(b.recv(2))'",
                             root, 20, 10_000, sandbox=UNASKED)  # fmt: skip
    assert pair.stdout == "b'ok'\n"
