"""The attacker's world for the confinement tests (SPEC 13): a home folder with secrets, a workspace cloned from
anywhere that holds lists of files outside, secrets in coder's environment, fake listeners on TCP and UDP, IPv4 and
IPv6, and the real `coder-tui` run headless against the scripted server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

from tests.support.scripted_server import ScriptedServer

REPO = Path(__file__).resolve().parents[2]
# Values that must never reach the model, the listeners or a file outside.
SECRETS = {
    "DATABASE_URL": "postgres://u:dbsecret-5a1@db/x",
    "MYSQL_PWD": "mysqlsecret-5a2",
    "DB_PASS": "dbpass-5a3",
    "GH_PAT": "ghp_patsecret5a4",
    "SENTRY_DSN": "https://sentrysecret-5a5@o1.ingest.sentry.io/1",
    "CI_JOB_JWT": "eyJjwtsecret-5a6",
    "MY_SERVICE_COOKIE": "cookiesecret-5a7",
}
FILE_SECRET = "outside-file-secret-7c1"
GITCONFIG_SECRET = "gitconfig-token-7c2"
ARGV_SECRET = "argv-secret-7c3"
ALL_SECRETS = (*SECRETS.values(), FILE_SECRET, GITCONFIG_SECRET, ARGV_SECRET)


class SocketServers:
    """Sockets each served on its own thread until closed: ``_receive`` takes one datagram or connection."""

    def __init__(self) -> None:
        self._sockets: list[socket.socket] = []

    def _serve(self, name: str, sock: socket.socket) -> None:
        while True:
            try:
                self._receive(name, sock)
            except TimeoutError:
                continue
            except OSError:
                return

    def _receive(self, name: str, sock: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        for sock in self._sockets:
            sock.close()


class Listeners(SocketServers):
    """TCP and UDP servers on 127.0.0.1 and ::1 that record every byte they receive, and every connection."""

    def __init__(self) -> None:
        super().__init__()
        self.received: list[tuple[str, bytes]] = []
        self.ports: dict[str, int] = {}
        for name, family, kind, host in (
            ("tcp4", socket.AF_INET, socket.SOCK_STREAM, "127.0.0.1"),
            ("udp4", socket.AF_INET, socket.SOCK_DGRAM, "127.0.0.1"),
            ("tcp6", socket.AF_INET6, socket.SOCK_STREAM, "::1"),
            ("udp6", socket.AF_INET6, socket.SOCK_DGRAM, "::1"),
        ):
            try:
                sock = socket.socket(family, kind)
                sock.bind((host, 0))
            except OSError:
                continue  # no IPv6 on this machine
            if kind == socket.SOCK_STREAM:
                sock.listen(16)
            sock.settimeout(0.2)
            self._sockets.append(sock)
            self.ports[name] = sock.getsockname()[1]
            threading.Thread(target=self._serve, args=(name, sock), daemon=True).start()

    def _receive(self, name: str, sock: socket.socket) -> None:
        if sock.type == socket.SOCK_STREAM:
            conn, _ = sock.accept()
            conn.settimeout(1)
            self.received.append((name, b"<connection>"))
            try:
                self.received.append((name, conn.recv(65536)))
            except OSError:
                pass
            conn.close()
        else:
            data, _ = sock.recvfrom(65536)
            self.received.append((name, data))


def build_world(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(workspace, outside, home): the workspace holds lists naming the file outside, as a hostile clone would."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[http]\n\textraHeader = Authorization: Bearer {GITCONFIG_SECRET}\n")
    outside = tmp_path / "out"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text(FILE_SECRET + "\n")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text("# project\n")
    (root / "paths.txt").write_text(f"{secret}\n")
    (root / "list0").write_bytes(str(secret).encode() + b"\0")
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home), "PATH": os.environ["PATH"]}
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "i"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)
    return root.resolve(), outside.resolve(), home.resolve()


def run_coder(
    args: list[str], root: Path, home: Path, server: ScriptedServer, config: dict | None = None
) -> subprocess.CompletedProcess[str]:
    """The real `coder-tui` headless in ``root``, with the secrets in its environment and ``home`` as its home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODER_"))}
    xdg = home / ".config"
    (xdg / "coder").mkdir(parents=True, exist_ok=True)
    (xdg / "coder" / "config.json").write_text(json.dumps(config or {}))
    env.update(SECRETS, HOME=str(home), XDG_CONFIG_HOME=str(xdg), PYTHONPATH=str(REPO))
    env.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-confine-test")
    return subprocess.run(
        [sys.executable, "-m", "coder_tui", "--cwd", str(root), *args],
        input="", capture_output=True, text=True, env=env, timeout=240,
    )  # fmt: skip


def tool_results(server: ScriptedServer) -> dict[str, str]:
    """What the model received for each tool call of the run: call id -> the tool message's text."""
    messages = server.requests[-1].body["messages"]
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
