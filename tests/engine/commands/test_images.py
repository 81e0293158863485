"""SPEC 23 images: @shot.png or a pasted image path goes to the model as an image_url part (a base64 data URL) of
the user message; the session file keeps a reference to the blob stored once under .coder/blobs/; a server that
refuses images gets a plain error and the text goes through again without them."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from engine.events import Notice
from tests.support.fakes import make_orchestrator
from tests.support.scenario import error, reply, text
from tests.support.scripted_server import ScriptedServer

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def parts_of(server: ScriptedServer, index: int = -1) -> list[dict]:
    content = server.requests[index].body["messages"][-1]["content"]
    assert isinstance(content, list), content
    return content


async def test_an_image_mention_is_sent_as_an_image_url_part(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    scripted_server.add(reply(text("A red square.")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    assert (await orch.run_input("what is in @shot.png?")).ok
    first, image = parts_of(scripted_server)
    assert first == {"type": "text", "text": "what is in @shot.png?"}
    assert image == {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()}}
    # The session file and the database keep a reference; the bytes are stored once, as a blob.
    blobs = list((tmp_path / ".coder" / "blobs").iterdir())
    assert len(blobs) == 1 and blobs[0].read_bytes() == PNG
    snapshot = (orch.session.path).read_text()
    assert base64.b64encode(PNG).decode()[:40] not in snapshot
    user = next(m for m in json.loads(snapshot)["messages"] if m["role"] == "user")
    assert user["content"] == "what is in @shot.png?"
    assert user["images"] == [{"blob": str(blobs[0]), "mime": "image/png", "name": "shot.png"}]
    stored = orch.store.conversation.load(orch.session_id).messages[0]
    assert stored.images is not None and stored.images[0].blob == str(blobs[0])


async def test_a_pasted_image_path_outside_the_workspace_is_attached(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    shots = tmp_path / "My Screenshots"
    shots.mkdir()
    (shots / "error dialog.jpg").write_bytes(b"\xff\xd8\xff\xe0jpeg")
    scripted_server.add(reply(text("It says disk full.")))
    orch, _, _ = make_orchestrator(workspace, scripted_server.base_url)
    pasted = str(shots / "error dialog.jpg").replace(" ", "\\ ")
    await orch.run_input(f"what does this say {pasted}")
    _, image = parts_of(scripted_server)
    assert image["image_url"]["url"].startswith("data:image/jpeg;base64,")


async def test_a_server_refusing_images_gets_a_plain_error_and_the_text_goes_through(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    scripted_server.add(error(400, "Invalid content type. image_url is only supported by certain models."),
                        reply(text("I cannot see images, but from your text...")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    outcome = await orch.run_input("describe @shot.png")
    assert outcome.ok and outcome.text.startswith("I cannot see images")
    warning = next(n.text for n in log.of(Notice) if "refused the attached image" in n.text)
    assert "image_url is only supported by certain models" in warning
    retried = parts_of(scripted_server)
    assert [part["type"] for part in retried] == ["text", "text"] and "not sent" in retried[1]["text"]
    assert retried[0]["text"] == "describe @shot.png"
