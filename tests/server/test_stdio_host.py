"""The engine process (``python -m engine.server``): a real subprocess speaking the engine protocol on stdio,
against the scripted server. A turn, an approval answered over the pipe, a cancel, a bad line, a clean shutdown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.events import ErrorEvent, MessageAdded, ModeChanged, TextDelta, ToolCallFinished, ToolStatus
from engine.interaction import ApprovalDecision, ApprovalRequest
from engine.protocol import (
    AnswerRequest,
    Cancel,
    EngineEvent,
    EngineReady,
    InputFinished,
    InputStarted,
    InteractionRequested,
    RunInput,
    SetMode,
    Shutdown,
)
from tests.server.engine_client import EngineClient
from tests.support.scenario import reply, stall, text, tool_call
from tests.support.scripted_server import ScriptedServer


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def engine(workspace: Path, scripted_server: ScriptedServer) -> Iterator[EngineClient]:
    client = EngineClient(workspace, scripted_server.base_url)
    yield client
    client.close()


def test_the_engine_announces_its_state_then_runs_a_turn(engine: EngineClient, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Hello from the model")))
    ready = engine.wait_for(lambda m: isinstance(m, EngineReady), "the engine to be ready")
    assert ready.state.model == "scripted-model" and ready.state.mode == "default"
    assert "/help" in {name for name, _ in ready.state.slash_commands}
    engine.send(RunInput("i1", "say hello"))
    finished = engine.wait_for(lambda m: isinstance(m, InputFinished), "the input to finish")
    assert finished.input_id == "i1" and finished.reason == "completed" and finished.text == "Hello from the model"
    assert finished.state.session_id == ready.state.session_id
    kinds = [type(m) for m in engine.received]
    assert kinds.index(InputStarted) < kinds.index(EngineEvent) < kinds.index(InputFinished)
    streamed = "".join(m.event.text for m in engine.received if isinstance(m, EngineEvent)
                       and isinstance(m.event, TextDelta))
    assert streamed == "Hello from the model"
    assert scripted_server.requests[0].body["messages"][-1]["content"] == "say hello"



def test_streamed_text_crosses_the_pipe_in_few_deltas_in_order(
    engine: EngineClient, scripted_server: ScriptedServer
) -> None:
    """A fast stream's many small deltas reach the client as a few larger ones, with the same text, before the
    message that ends them (``DELTA_INTERVAL_S``)."""
    answer = "".join(f"word{number} " for number in range(400))
    scripted_server.add(reply(text(answer, chunk=4)))
    engine.send(RunInput("i1", "talk"))
    engine.wait_for(lambda m: isinstance(m, InputFinished), "the input to finish")
    events = [m.event for m in engine.received if isinstance(m, EngineEvent)]
    deltas = [index for index, event in enumerate(events) if isinstance(event, TextDelta)]
    assert "".join(events[index].text for index in deltas) == answer
    assert len(deltas) < len(answer) // 4 // 10
    added = next(index for index, event in enumerate(events) if isinstance(event, MessageAdded)
                 and event.message.role == "assistant")
    assert deltas[-1] < added

def test_an_input_sent_before_the_engine_is_ready_waits_and_runs(
    engine: EngineClient, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("early answer")))
    engine.send(RunInput("early", "typed at launch"))
    finished = engine.wait_for(lambda m: isinstance(m, InputFinished), "the input to finish")
    assert (finished.input_id, finished.text) == ("early", "early answer")


def test_an_approval_is_asked_and_answered_over_the_pipe(
    engine: EngineClient, scripted_server: ScriptedServer, workspace: Path
) -> None:
    scripted_server.add(reply(tool_call("bash", command="touch made.txt")), reply(text("made it")))
    engine.send(RunInput("i1", "make a file"))
    asked = engine.wait_for(lambda m: isinstance(m, InteractionRequested), "the approval request")
    assert isinstance(asked.request, ApprovalRequest) and asked.request.tool == "bash"
    assert not (workspace / "made.txt").exists()
    engine.send(AnswerRequest(asked.request_id, ApprovalDecision.YES))
    finished = engine.wait_for(lambda m: isinstance(m, InputFinished), "the input to finish")
    assert finished.reason == "completed" and finished.text == "made it"
    assert (workspace / "made.txt").exists()
    done = [m.event for m in engine.received if isinstance(m, EngineEvent) and isinstance(m.event, ToolCallFinished)]
    assert [event.status for event in done] == [ToolStatus.SUCCESS]


def test_cancel_stops_the_stream_and_the_engine_keeps_serving(
    engine: EngineClient, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(stall(after=reply(text("Thinking")), seconds=30), reply(text("second answer")))
    engine.send(RunInput("i1", "long task"))
    engine.wait_for(lambda m: isinstance(m, EngineEvent) and isinstance(m.event, TextDelta), "the stream to start")
    engine.send(Cancel())
    finished = engine.wait_for(lambda m: isinstance(m, InputFinished), "the cancelled input")
    assert (finished.input_id, finished.reason) == ("i1", "cancelled")
    engine.send(RunInput("i2", "again"))
    finished = engine.wait_for(lambda m: isinstance(m, InputFinished), "the next input")
    assert (finished.input_id, finished.text) == ("i2", "second answer")


def test_a_bad_line_is_reported_and_a_mode_change_confirmed(engine: EngineClient) -> None:
    engine.wait_for(lambda m: isinstance(m, EngineReady), "the engine to be ready")
    engine.send_line('{"type": "Launch", "what": "rockets"}')
    error = engine.wait_for(lambda m: isinstance(m, EngineEvent), "the error")
    assert isinstance(error.event, ErrorEvent) and "unknown message type 'Launch'" in error.event.message
    engine.send(SetMode("plan"))
    changed = engine.wait_for(lambda m: isinstance(m, EngineEvent), "the mode change")
    assert changed.event == ModeChanged("plan")


def test_shutdown_ends_the_process_cleanly(engine: EngineClient) -> None:
    engine.wait_for(lambda m: isinstance(m, EngineReady), "the engine to be ready")
    engine.send(Shutdown())
    assert engine.process.wait(timeout=30) == 0
