"""Issue 43 item 13: one rule for the image files a request sends, mentioned (``@docs/shot.png``) or pasted as an
absolute path. A repository's link to a file outside the workspace is refused both ways, its folder linked or the
file itself, so a planted ``shot.png -> ~/secret`` never sends the secret's bytes to the model server; a file the
user names outside the workspace is theirs and goes. What is checked is what the model server received."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer

SECRET = b"\x89PNG\r\n\x1a\nSECRET-KEY-MATERIAL"


def sent_images(server: ScriptedServer) -> list[bytes]:
    content = server.requests[-1].body["messages"][-1]["content"]
    parts = content if isinstance(content, list) else []
    return [base64.b64decode(part["image_url"]["url"].split(",", 1)[1]) for part in parts if part["type"] == "image_url"]


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace whose ``docs/shot.png`` links to a file outside it, and ``pics/`` to a folder outside it."""
    outside = tmp_path / "home" / "private"
    outside.mkdir(parents=True)
    (outside / "secret.png").write_bytes(SECRET)
    workspace = tmp_path / "ws"
    (workspace / "docs").mkdir(parents=True)
    (workspace / "docs" / "shot.png").symlink_to(outside / "secret.png")
    (workspace / "pics").symlink_to(outside)
    return workspace, outside


@pytest.mark.parametrize("named", ["@docs/shot.png", "{ws}/docs/shot.png", "'{ws}/docs/shot.png'",
                                   "@{ws}/docs/shot.png", "{ws}/pics/secret.png", "@pics/secret.png",
                                   "{ws}/docs/../docs/shot.png"])
async def test_a_repository_link_to_an_outside_image_is_not_sent(
    planted: tuple[Path, Path], scripted_server: ScriptedServer, named: str
) -> None:
    workspace, _ = planted
    scripted_server.add(reply(text("ok")))
    orch, _, _ = make_orchestrator(workspace, scripted_server.base_url)
    await orch.run_input(f"what is in {named.format(ws=workspace)}")
    assert SECRET not in sent_images(scripted_server)


@pytest.mark.parametrize("named", ["{outside}/secret.png", "@{outside}/secret.png"])
async def test_an_image_the_user_names_outside_the_workspace_is_sent(
    planted: tuple[Path, Path], scripted_server: ScriptedServer, named: str
) -> None:
    workspace, outside = planted
    scripted_server.add(reply(text("ok")))
    orch, _, _ = make_orchestrator(workspace, scripted_server.base_url)
    await orch.run_input(f"what is in {named.format(outside=outside)}")
    assert sent_images(scripted_server) == [SECRET]
