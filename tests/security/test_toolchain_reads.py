"""SPEC 13, 20 (decision of 2026-12-07): unasked commands and auto-verify read the toolchains' program and library
folders only, never the parent of a PATH entry, and never a credential file by name. A fake home folder, built
here, holds the toolchains a developer has (cargo and rustup, pyenv, nvm, docker, pulumi, fly, a venv, Go, pipx)
with their credentials beside them; each attack is a real command, run confined, and what it printed must hold no
secret, while what the toolchains need still reads and runs."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from engine.sandbox import Confinement, SandboxGrant, detect
from engine.tools.bash import run_command

SUPPORT = detect()
pytestmark = pytest.mark.skipif(not SUPPORT.confines_unasked, reason=f"this machine cannot confine reads ({SUPPORT})")
GRANTS = {
    "unasked": SandboxGrant(Confinement.UNASKED, network=False),
    "verify": SandboxGrant(Confinement.VERIFY, network=False),
}
# Credential files a developer's home holds beside (or inside) the toolchains on PATH: path -> text with a secret.
SECRETS = {
    ".cargo/credentials.toml": '[registry]\ntoken = "cargo-secret-c1"\n',
    ".cargo/credentials": '[registry]\ntoken = "cargo-secret-c2"\n',
    ".cargo/config.toml": '[registries.corp]\ntoken = "cargo-secret-c3"\n',
    ".docker/config.json": '{"auths": {"registry": {"auth": "docker-secret-d1"}}}\n',
    ".pulumi/credentials.json": '{"accessTokens": {"https://api.pulumi.com": "pulumi-secret-p1"}}\n',
    ".fly/config.yml": "access_token: fly-secret-f1\n",
    "bin/github_token": "ghp_bin-secret-b1\n",
    "bin/.netrc": "machine example.com password bin-secret-b2\n",
    "bin/deploy.pem": "-----BEGIN PRIVATE KEY-----\nbin-secret-b3\n",
    ".pyenv/versions/3.12.0/pip.conf": "[global]\nindex-url = https://u:pyenv-secret-y1@pypi.corp/simple\n",
    ".nvm/versions/node/v20.0.0/etc/npmrc": "//registry.npmjs.org/:_authToken=nvm-secret-n1\n",
    ".nvm/versions/node/v20.0.0/.npmrc": "//registry.npmjs.org/:_authToken=nvm-secret-n2\n",
    ".local/share/keyrings/login.keyring": "local-secret-l1\n",
    ".local/bin/hosts.yml": "github.com:\n  oauth_token: local-secret-l2\n",
    "go/src/other-project/.env": "GO_SECRET=go-secret-g1\n",
    "venvs/notes.txt": "venv-parent-secret-v1\n",
    "venvs/proj/.pypirc": "[pypi]\npassword = venv-secret-v2\n",
    ".ssh/id_rsa": "ssh-secret-s1\n",
    ".gitconfig": "[http]\n\textraHeader = Bearer gitconfig-secret-s2\n",
    ".config/gh/hosts.yml": "github.com:\n  oauth_token: gh-secret-s3\n",
}
# What the toolchains read to run: path -> text, each must stay readable.
NEEDED = {
    ".cargo/registry/src/index/crate-1.0/src/lib.rs": "pub fn from_the_registry() {}\n",
    ".cargo/git/checkouts/dep/src/lib.rs": "pub fn from_a_git_dependency() {}\n",
    ".rustup/settings.toml": 'default_toolchain = "stable"\n',
    ".rustup/toolchains/stable/lib/rustlib/core.rs": "// the standard library\n",
    ".pyenv/versions/3.12.0/lib/python3.12/os.py": "# the standard library\n",
    ".pyenv/version": "3.12.0\n",
    ".nvm/versions/node/v20.0.0/lib/node_modules/npm/package.json": '{"name": "npm"}\n',
    ".local/lib/python3.12/site-packages/userpkg.py": "# a pip --user package\n",
    "go/pkg/mod/example.com/m@v1/m.go": "package m\n",
    "venvs/proj/pyvenv.cfg": "home = /usr/bin\n",
    "venvs/proj/lib/python3.12/site-packages/pkg.py": "# a venv package\n",
}
PROGRAMS = [".cargo/bin/cargo", ".rustup/toolchains/stable/bin/rustc", ".docker/bin/docker", ".pulumi/bin/pulumi",
            ".fly/bin/flyctl", "bin/tool", ".pyenv/shims/python9", ".pyenv/versions/3.12.0/bin/python9",
            ".nvm/versions/node/v20.0.0/bin/node9", ".local/bin/pipx-tool", "go/bin/gotool",
            "venvs/proj/bin/venvtool"]  # fmt: skip
PATH_ENTRIES = [".cargo/bin", ".docker/bin", ".pulumi/bin", ".fly/bin", "bin", ".pyenv/shims", ".pyenv/bin",
                ".nvm/versions/node/v20.0.0/bin", ".local/bin", "go/bin", "venvs/proj/bin"]  # fmt: skip


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder with toolchains on PATH and their credentials, as coder's environment (HOME, PATH)."""
    home = tmp_path / "home"
    for relative, text in {**SECRETS, **NEEDED}.items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(text)
    for relative in PROGRAMS:
        program = home / relative
        program.parent.mkdir(parents=True, exist_ok=True)
        program.write_text(f"#!/bin/sh\necho ran-{program.name}\n")
        program.chmod(0o755)
    (home / ".pyenv" / "bin").mkdir(exist_ok=True)
    (home / "bin" / "ssh-key").symlink_to(home / ".ssh" / "id_rsa")  # a link in a folder granted child by child
    path = [str(home / entry) for entry in PATH_ENTRIES] + os.environ["PATH"].split(os.pathsep)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", os.pathsep.join(path))
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text("# project\n")
    return root


async def _run(command: str, root: Path, grant: str) -> str:
    result = await run_command(command, root, 30, 1_000_000, sandbox=GRANTS[grant])
    return result.stdout + result.stderr


def _secrets_in(output: str) -> list[str]:
    """The credential files whose secret (`<tool>-secret-<n>`) the output shows."""
    return [relative for relative, text in SECRETS.items() if re.search(r"[a-z-]+-secret-\w+", text)[0] in output]


@pytest.mark.parametrize("grant", sorted(GRANTS))
@pytest.mark.parametrize("relative", sorted(SECRETS))
async def test_a_credential_file_is_not_read(home: Path, workspace: Path, grant: str, relative: str) -> None:
    output = await _run(f"cat '{home / relative}'; cat ~/{relative}", workspace, grant)
    assert _secrets_in(output) == [], output


@pytest.mark.parametrize("grant", sorted(GRANTS))
@pytest.mark.parametrize(
    "command",
    [
        "grep -r . ~ 2>/dev/null", "cat ~/.cargo/* ~/.docker/* ~/.pulumi/* ~/.fly/* ~/bin/* ~/.local/bin/* 2>&1",
        "find ~ -type f -exec cat {} + 2>/dev/null", "tar -cf - -C ~ . 2>/dev/null | strings",
        "for f in ~/.*/* ~/*/* ~/.*/*/* ~/.nvm/versions/node/*/*/*; do cat \"$f\"; done 2>/dev/null",
        "python3 -c 'import os, sys\nfor d, _, fs in os.walk(os.path.expanduser(\"~\")):\n  for f in fs:\n"
        "    try: sys.stdout.write(open(os.path.join(d, f)).read())\n    except OSError: pass'",
        "cat ~/bin/ssh-key", "ls -la ~/.cargo ~/.docker ~/bin; cat ~/.cargo/../.docker/config.json",
    ],
    ids=["grep -r", "cat globs", "find -exec cat", "tar", "shell loop", "python walk", "link out", "ls parents"],
)  # fmt: skip
async def test_no_sweep_of_the_home_folder_finds_a_credential(
    home: Path, workspace: Path, grant: str, command: str
) -> None:
    output = await _run(command, workspace, grant)
    assert _secrets_in(output) == [], output


@pytest.mark.parametrize("grant", sorted(GRANTS))
async def test_what_the_toolchains_need_still_reads_and_runs(home: Path, workspace: Path, grant: str) -> None:
    for relative, text in NEEDED.items():
        output = await _run(f"cat ~/{relative}", workspace, grant)
        assert output == text, (relative, output)
    for relative in PROGRAMS:
        by_name = os.path.dirname(relative) in PATH_ENTRIES
        output = await _run(os.path.basename(relative) if by_name else f"~/{relative}", workspace, grant)
        assert output == f"ran-{os.path.basename(relative)}\n", (relative, output)
