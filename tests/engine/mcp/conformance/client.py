"""The client command the MCP maintainers' conformance suite runs for each client scenario: the real
``coder-tui -p``, with the scenario's server as its one HTTP MCP server.

``python -m tests.engine.mcp.conformance.client SERVER_URL``; the suite sets ``MCP_CONFORMANCE_SCENARIO`` (and,
for the scenarios with credentials, ``MCP_CONFORMANCE_CONTEXT``). Everything the run needs is built here: a home and
a user config in a temporary folder, a scripted model (``tests.support.scripted_server``) that calls the tool the
scenario offers, and a "person" who opens the sign-in address coder-tui shows, as a browser would (the suite's
authorization server consents at once and sends the browser back to coder-tui's listener).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import httpx

from engine.mcp.names import qualified_name
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

SERVER = "conf"
SIGN_IN = "needs you to sign in: open "
# The tool each scenario's server offers, and the arguments the model calls it with.
TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_call": ("add_numbers", {"a": 2, "b": 3}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
    "sse-retry": ("test_reconnection", {}),
}
CI_SIGN_IN = {"auth/client-credentials-basic": "client_secret_basic", "auth/client-credentials-jwt": "private_key_jwt"}


def server_config(url: str, scenario: str, context: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {"url": url, "startup_timeout": 60, "elicitation": {}}
    if scenario in CI_SIGN_IN:
        oauth: dict[str, Any] = {"grant": "client_credentials", "client_id": context["client_id"]}
        if "private_key_pem" in context:
            oauth |= {"private_key": context["private_key_pem"],
                      "signing_algorithm": context.get("signing_algorithm", "ES256")}
        else:
            oauth["client_secret"] = context["client_secret"]
        config["oauth"] = oauth
    elif scenario == "auth/cross-app-access-complete-flow":
        config["oauth"] = {
            "grant": "identity_assertion", "client_id": context["client_id"],
            "client_secret": context["client_secret"], "token_endpoint_auth_method": "client_secret_basic",
            "issuer": authorization_server(url),
            "idp": {"token_endpoint": context["idp_token_endpoint"], "client_id": context["idp_client_id"],
                    "id_token": context["idp_id_token"]},
        }
    elif scenario == "auth/pre-registration":
        config["oauth"] = {"client_id": context["client_id"], "client_secret": context["client_secret"]}
    elif scenario == "auth/basic-cimd":
        config["oauth"] = {"client_metadata_url": "https://conformance-test.local/client-metadata.json"}
    return config


def authorization_server(url: str) -> str:
    """The issuer the administrator would name: the one the MCP server's protected-resource metadata gives."""
    origin, path = url.split("/", 3)[:3], url.split("/", 3)[3]
    metadata = httpx.get("/".join(origin) + "/.well-known/oauth-protected-resource/" + path, timeout=30).json()
    return str(metadata["authorization_servers"][0])


def script(model: ScriptedServer, scenario: str) -> None:
    tool, arguments = TOOLS.get(scenario, ("test-tool", {}) if scenario.startswith("auth/") else (None, {}))
    if tool is not None:
        model.add(reply(tool_call(qualified_name(SERVER, tool), **arguments)))
    model.add(text("Done."))


def sign_in_when_asked(stderr: Any, seen: list[str]) -> None:
    """Reads coder-tui's progress; opens each sign-in address it shows, as the person at the browser would."""
    for line in stderr:
        seen.append(line)
        if SIGN_IN in line:
            address = line.split(SIGN_IN, 1)[1].split(" ", 1)[0]
            try:
                httpx.get(address, follow_redirects=True, timeout=30)
            except httpx.HTTPError as exc:
                seen.append(f"[driver] opening {address} failed: {exc}\n")


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory(prefix="coder-conformance-") as scratch, ScriptedServer() as model:
        home, project = Path(scratch) / "home", Path(scratch) / "home" / "project"
        project.mkdir(parents=True)
        (home / ".config" / "coder").mkdir(parents=True)
        config = {"model": "scripted-model", "provider": {"base_url": model.base_url},
                  "mcp_servers": {SERVER: server_config(url, scenario, context)}}
        (home / ".config" / "coder" / "config.json").write_text(json.dumps(config))
        script(model, scenario)
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "OPENAI_API_KEY": "sk-conformance", "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
        run = subprocess.Popen([sys.executable, "-m", "coder_tui", "-p", "use the tool", "--mode", "yolo"],
                               cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen: list[str] = []
        reader = threading.Thread(target=sign_in_when_asked, args=(run.stderr, seen), daemon=True)
        reader.start()
        out = run.stdout.read() if run.stdout else ""
        code = run.wait()
        reader.join(5)
        sys.stdout.write(out)
        sys.stderr.write("".join(seen))
        return code


if __name__ == "__main__":
    sys.exit(main())
