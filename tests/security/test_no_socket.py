"""SPEC 20 (decision of 2026-12-07): "no network" means no socket to anything, for unasked commands and auto-verify
alike. Each attack is one system call of one family against a real listener outside the sandbox (unix stream,
datagram and seqpacket, by path and abstract; TCP and UDP on 127.0.0.1 and ::1; the kernel's netlink), asserting
what the listener received, and run unconfined too (yolo), where it does arrive, so the test can fail. Socketpairs and
pipes keep working."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.sandbox import Confinement, SandboxGrant, detect
from engine.tools.bash import run_command
from tests.security.confine_world import Listeners, SocketServers

SUPPORT = detect()
pytestmark = pytest.mark.skipif(not SUPPORT.blocks_network, reason=f"no seccomp filter here ({SUPPORT})")
CONFINED = {
    "unasked": SandboxGrant(Confinement.UNASKED, network=False),
    "verify": SandboxGrant(Confinement.VERIFY, network=False),
}
PAYLOAD = "leak-9f3"
# What the test itself sends each listener after a confined attack, to know the listener has recorded all before it.
MARK = b"mark-after-the-attack"

# The attacker's program: `python3 attack.py CASE TARGET`; each case makes one socket and sends PAYLOAD through one
# call, or asks the kernel (netlink) and prints what came back.
ATTACK = f'''
import socket, sys
case, target = sys.argv[1], sys.argv[2]
data = {PAYLOAD!r}.encode()
U, I4, I6 = socket.AF_UNIX, socket.AF_INET, socket.AF_INET6
ST, DG, SP = socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET
def address(family):
    if family == U:
        return "\\0" + target[1:] if target.startswith("@") else target
    host, port = target.rsplit(":", 1)
    return (host.strip("[]"), int(port))
def connect_send(family, kind):
    s = socket.socket(family, kind)
    s.connect(address(family))
    s.send(data)
def pair_send(kind, how):
    a, b = socket.socketpair(U, kind)
    if how == "sendto":
        a.sendto(data, address(U))
    else:
        a.sendmsg([data], [], 0, address(U))
cases = {{
    "connect unix stream": lambda: connect_send(U, ST),
    "connect unix seqpacket": lambda: connect_send(U, SP),
    "connect unix datagram": lambda: connect_send(U, DG),
    "sendto unix datagram": lambda: socket.socket(U, DG).sendto(data, address(U)),
    "sendmsg unix datagram": lambda: socket.socket(U, DG).sendmsg([data], [], 0, address(U)),
    "sendto from a stream socketpair": lambda: pair_send(ST, "sendto"),
    "sendmsg from a stream socketpair": lambda: pair_send(ST, "sendmsg"),
    "sendmsg from a seqpacket socketpair": lambda: pair_send(SP, "sendmsg"),
    "sendto from a datagram socketpair": lambda: pair_send(DG, "sendto"),
    "sendmsg from a datagram socketpair": lambda: pair_send(DG, "sendmsg"),
    "connect tcp4": lambda: connect_send(I4, ST),
    "connect tcp6": lambda: connect_send(I6, ST),
    "sendto tcp4 fast open": lambda: socket.socket(I4, ST).sendto(data, 0x20000000, address(I4)),
    "sendto udp4": lambda: socket.socket(I4, DG).sendto(data, address(I4)),
    "sendmsg udp4": lambda: socket.socket(I4, DG).sendmsg([data], [], 0, address(I4)),
    "connect udp4": lambda: connect_send(I4, DG),
    "sendto udp6": lambda: socket.socket(I6, DG).sendto(data, address(I6)),
    "sendmsg udp6": lambda: socket.socket(I6, DG).sendmsg([data], [], 0, address(I6)),
}}
try:
    cases[case]()
    print("SENT")
except OSError as exc:
    print("refused:", exc)
'''
# What the kernel tells a netlink socket: the list of network links; confined, nothing comes back.
NETLINK = """
import socket, struct
try:
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.sendto(struct.pack("=LHHLLBxxxiII", 32, 18, 0x301, 1, 0, 0, 0, 0, 0), (0, 0))
    print("GOT", len(s.recv(65536)))
except OSError as exc:
    print("refused:", exc)
"""
# Families with no listener to reach: the socket itself must not be made.
UNMADE = {
    "packet": "socket.socket(socket.AF_PACKET, socket.SOCK_RAW)",
    "vsock": "socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)",
    "netlink datagram": "socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 0)",
    "unix datagram": "socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)",
    "raw inet": "socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)",
    "tipc socketpair": "socket.socketpair(30, socket.SOCK_SEQPACKET)",
}


class UnixListeners(SocketServers):
    """Unix sockets outside the sandbox, by path and abstract, that record every byte they receive."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.received: dict[str, list[bytes]] = {}
        self.addresses: dict[str, str] = {}
        self.kinds: dict[str, socket.SocketKind] = {}
        tag = f"coder-test-{os.getpid()}-{id(self)}"
        for name, kind in (("stream", socket.SOCK_STREAM), ("seqpacket", socket.SOCK_SEQPACKET),
                           ("datagram", socket.SOCK_DGRAM)):  # fmt: skip
            for where in ("path", "abstract"):
                sock = socket.socket(socket.AF_UNIX, kind)
                address = str(folder / f"{name}.sock") if where == "path" else f"\0{tag}-{name}"
                sock.bind(address)
                if kind != socket.SOCK_DGRAM:
                    sock.listen(8)
                sock.settimeout(0.1)
                key = f"{name} {where}"
                self.received[key] = []
                self.addresses[key] = address if where == "path" else "@" + address[1:]
                self.kinds[key] = kind
                self._sockets.append(sock)
                threading.Thread(target=self._serve, args=(key, sock), daemon=True).start()

    def _receive(self, key: str, sock: socket.socket) -> None:
        if sock.type == socket.SOCK_DGRAM:
            self.received[key].append(sock.recv(65536))
            return
        conn, _ = sock.accept()
        self.received[key].append(b"<connection>")
        conn.settimeout(1)
        self.received[key].append(conn.recv(65536))
        conn.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "attack.py").write_text(ATTACK)
    (root / "netlink.py").write_text(NETLINK)
    return root


@pytest.fixture
def unix(tmp_path: Path) -> Iterator[UnixListeners]:
    outside = tmp_path / "sockets"
    outside.mkdir()
    found = UnixListeners(outside)
    yield found
    found.close()


@pytest.fixture
def inet() -> Iterator[Listeners]:
    found = Listeners()
    yield found
    found.close()


# (attack case, the listener it aims at)
UNIX_ATTACKS = [
    ("connect unix stream", "stream path"), ("connect unix stream", "stream abstract"),
    ("connect unix seqpacket", "seqpacket path"), ("connect unix seqpacket", "seqpacket abstract"),
    ("connect unix datagram", "datagram path"), ("connect unix datagram", "datagram abstract"),
    ("sendto unix datagram", "datagram path"), ("sendto unix datagram", "datagram abstract"),
    ("sendmsg unix datagram", "datagram path"), ("sendmsg unix datagram", "datagram abstract"),
    ("sendto from a stream socketpair", "datagram path"), ("sendmsg from a stream socketpair", "datagram path"),
    ("sendmsg from a seqpacket socketpair", "datagram path"),
    ("sendto from a datagram socketpair", "datagram path"), ("sendmsg from a datagram socketpair", "datagram abstract"),
]  # fmt: skip
INET_ATTACKS = [
    ("connect tcp4", "tcp4"), ("connect tcp6", "tcp6"), ("sendto tcp4 fast open", "tcp4"), ("sendto udp4", "udp4"),
    ("sendmsg udp4", "udp4"), ("connect udp4", "udp4"), ("sendto udp6", "udp6"), ("sendmsg udp6", "udp6"),
]  # fmt: skip
# The stream and seqpacket socketpairs cannot send to another address even unconfined: the kernel refuses the address
# (stream) or ignores it and delivers to the pair's other end (seqpacket). They are the filter's design made
# attacks: what they reach is the listener's record, and it must stay empty.
_KERNEL_REFUSES = {"sendto from a stream socketpair", "sendmsg from a stream socketpair",
                   "sendmsg from a seqpacket socketpair"}  # fmt: skip


async def _attack(root: Path, case: str, target: str, grant: SandboxGrant | None) -> str:
    result = await run_command(f"python3 attack.py '{case}' '{target}'", root, 20, 10_000, sandbox=grant)
    return result.stdout + result.stderr


async def _until(arrived: Callable[[], bool]) -> None:
    """Gives a listener's thread time to record what was sent (it polls every 0.1 s); the cap only ends a hang."""
    for _ in range(300):
        if arrived():
            return
        await asyncio.sleep(0.01)


def _mark(family: socket.AddressFamily, kind: socket.SocketKind, address: str | tuple[str, int]) -> None:
    """Sends MARK from this process, after the confined attack ended: a listener records what reaches it in the
    order it arrives, so once the mark is recorded, whatever the attack had sent would be recorded before it."""
    with socket.socket(family, kind) as sock:
        if kind == socket.SOCK_DGRAM:
            sock.sendto(MARK, address)
        else:
            sock.connect(address)
            sock.send(MARK)


def _marked(kind: socket.SocketKind) -> list[bytes]:
    """What a listener of ``kind`` records of the mark alone."""
    return [MARK] if kind == socket.SOCK_DGRAM else [b"<connection>", MARK]


@pytest.mark.parametrize("grant", sorted(CONFINED))
@pytest.mark.parametrize(("case", "listener"), UNIX_ATTACKS, ids=[f"{c} -> {t}" for c, t in UNIX_ATTACKS])
async def test_no_unix_socket_reaches_a_listener_outside(
    workspace: Path, unix: UnixListeners, grant: str, case: str, listener: str
) -> None:
    output = await _attack(workspace, case, unix.addresses[listener], CONFINED[grant])
    address = unix.addresses[listener]
    _mark(socket.AF_UNIX, unix.kinds[listener], "\0" + address[1:] if address.startswith("@") else address)
    received = unix.received[listener]
    await _until(lambda: MARK in received)
    assert received == _marked(unix.kinds[listener]), output
    if case in _KERNEL_REFUSES:
        return
    assert "SENT" not in output
    control = await _attack(workspace, case, unix.addresses[listener], None)
    await _until(lambda: PAYLOAD.encode() in received)
    assert PAYLOAD.encode() in received, control  # unconfined, the same attack arrives


@pytest.mark.parametrize("grant", sorted(CONFINED))
@pytest.mark.parametrize(("case", "listener"), INET_ATTACKS, ids=[f"{c} -> {t}" for c, t in INET_ATTACKS])
async def test_no_inet_socket_reaches_a_listener_on_loopback(
    workspace: Path, inet: Listeners, grant: str, case: str, listener: str
) -> None:
    if listener not in inet.ports:
        pytest.skip(f"no {listener} listener on this machine")
    host = "127.0.0.1" if listener.endswith("4") else "[::1]"
    target = f"{host}:{inet.ports[listener]}"
    output = await _attack(workspace, case, target, CONFINED[grant])
    kind = socket.SOCK_STREAM if listener.startswith("tcp") else socket.SOCK_DGRAM
    _mark(socket.AF_INET if listener.endswith("4") else socket.AF_INET6, kind, (host.strip("[]"), inet.ports[listener]))
    await _until(lambda: (listener, MARK) in inet.received)
    assert inet.received == [(listener, data) for data in _marked(kind)], output
    assert "SENT" not in output
    await _attack(workspace, case, target, None)
    await _until(lambda: any(PAYLOAD.encode() in data for _, data in inet.received))
    assert any(PAYLOAD.encode() in data for _, data in inet.received)  # unconfined, the same attack arrives


@pytest.mark.parametrize("grant", sorted(CONFINED))
async def test_netlink_gets_nothing_from_the_kernel(workspace: Path, grant: str) -> None:
    confined = await run_command("python3 netlink.py", workspace, 20, 10_000, sandbox=CONFINED[grant])
    control = await run_command("python3 netlink.py", workspace, 20, 10_000, sandbox=None)
    assert "GOT" not in confined.stdout and "refused" in confined.stdout
    assert "GOT" in control.stdout  # unconfined, the kernel answers


@pytest.mark.parametrize("grant", sorted(CONFINED))
@pytest.mark.parametrize("family", sorted(UNMADE))
async def test_no_socket_of_another_family_is_made(workspace: Path, grant: str, family: str) -> None:
    code = f"import socket\ntry:\n    {UNMADE[family]}\n    print('MADE')\n"
    code += "except OSError as e:\n    print('refused', e)\n"
    (workspace / "make.py").write_text(code)
    result = await run_command("python3 make.py", workspace, 20, 10_000, sandbox=CONFINED[grant])
    assert "refused" in result.stdout and "MADE" not in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("grant", sorted(CONFINED))
async def test_socketpairs_and_pipes_still_work(workspace: Path, grant: str) -> None:
    code = (
        "import os, socket\n"
        "a, b = socket.socketpair(); a.send(b'send'); print(b.recv(4))\n"
        "a.sendmsg([b'sendmsg']); print(b.recv(7))\n"
        "socket.send_fds(a, [b'fd'], [1]); print(socket.recv_fds(b, 2, 1)[0])\n"
        "c, d = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET); c.send(b'packet'); print(d.recv(6))\n"
        "r, w = os.pipe(); os.write(w, b'pipe'); print(os.read(r, 4))\n"
    )
    (workspace / "pairs.py").write_text(code)
    result = await run_command("python3 pairs.py | cat", workspace, 20, 10_000, sandbox=CONFINED[grant])
    assert result.stdout.split() == ["b'send'", "b'sendmsg'", "b'fd'", "b'packet'", "b'pipe'"], result
